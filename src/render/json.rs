//! JSON: the report as-is, pretty-printed. The schema is documented in docs/report-schema.md.

use crate::report::Report;
use std::io::Write;

/// Write the report to `w` as it serializes: a long incident's report lists tens of thousands
/// of rate-limited responses, and a buffer of the whole text (grown by doubling) was the largest
/// single allocation of a big analysis.
pub fn write(report: &Report, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut w = std::io::BufWriter::with_capacity(1 << 16, w);
    serde_json::to_writer_pretty(&mut w, report).map_err(std::io::Error::from)?;
    w.write_all(b"\n")?;
    w.flush()
}

pub fn render(report: &Report) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(report).expect("report serializes");
    out.push(b'\n');
    out
}
