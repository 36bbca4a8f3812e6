//! JSON: the report as-is, pretty-printed. The schema is documented in docs/report-schema.md.

use crate::report::Report;

pub fn render(report: &Report) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(report).expect("report serializes");
    out.push(b'\n');
    out
}
