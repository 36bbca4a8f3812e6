//! Export of the rate-limited responses, one row per response: CSV for spreadsheets, NDJSON for
//! `jq`. The same columns in both, in [`COLUMNS`] order. URLs are the redacted ones the report
//! holds; nothing here reads an input.
//!
//! CSV follows RFC 4180 (comma, CRLF, fields quoted when they hold `,` `"` CR or LF, quotes
//! doubled). Control characters in text become `?` (as in the table: a terminal escape in a URL
//! must not repaint the screen of whoever `cat`s the file), and text cells a spreadsheet would
//! run as a formula (starting with `=`, `+`, `-`, `@`) get a leading `'` (OWASP's advice on CSV
//! injection); numbers are written as they are. NDJSON keeps text exact (JSON escapes it).

use crate::model::Position;
use crate::report::{RateLimited, Report};
use serde_json::{json, Value};

/// The columns, in order (the CSV header and the NDJSON keys).
pub const COLUMNS: [&str; 15] = [
    "source",
    "entry",
    "line",
    "time",
    "method",
    "url",
    "host",
    "status",
    "layer",
    "vendor",
    "quota",
    "confidence",
    "retry_after_seconds",
    "retry_after_kind",
    "client",
];

/// One response as (column, value) pairs; `Value::Null` for unknown.
fn row(r: &RateLimited) -> Vec<Value> {
    let (entry, line) = match r.position {
        // HAR entries are 0-based indexes into log.entries, log lines 1-based.
        Position::Entry(e) => (json!(e), Value::Null),
        Position::Line(l) => (Value::Null, json!(l)),
    };
    let kind = serde_json::to_value(r.retry_after.kind).unwrap_or(Value::Null);
    vec![
        json!(&*r.source),
        entry,
        line,
        r.time
            .map(|t| json!(t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)))
            .unwrap_or(Value::Null),
        json!(r.method),
        json!(r.url),
        json!(crate::http::url::host(&r.url).to_ascii_lowercase()),
        json!(r.status),
        json!(r.attribution.layer.as_str()),
        r.attribution
            .vendor
            .as_deref()
            .map(|v| json!(v))
            .unwrap_or(Value::Null),
        json!(r.attribution.quota.as_str()),
        json!((r.attribution.confidence * 100.0).round() / 100.0),
        r.retry_after
            .seconds
            .map(|s| json!(s))
            .unwrap_or(Value::Null),
        kind,
        r.client.as_deref().map(|c| json!(c)).unwrap_or(Value::Null),
    ]
}

/// One object per line, keys in [`COLUMNS`] order.
pub fn ndjson(report: &Report) -> Vec<u8> {
    let mut out = Vec::new();
    for r in &report.rate_limited {
        let obj: serde_json::Map<String, Value> =
            COLUMNS.iter().map(|c| c.to_string()).zip(row(r)).collect();
        // serde_json escapes every control character: one record is always one line.
        if serde_json::to_writer(&mut out, &Value::Object(obj)).is_ok() {
            out.push(b'\n');
        }
    }
    out
}

/// A CSV cell: formula starts neutralised, quoted when needed.
fn csv_cell(v: &Value) -> String {
    let text = match v {
        Value::Null => return String::new(),
        Value::String(s) => {
            // A terminal escape in a URL must not repaint the screen of whoever `cat`s the file.
            let s = super::text::printable(s);
            if s.starts_with(['=', '+', '-', '@']) {
                format!("'{s}")
            } else {
                s
            }
        }
        other => other.to_string(),
    };
    if text.contains([',', '"', '\r', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

pub fn csv(report: &Report) -> Vec<u8> {
    let mut out = String::new();
    out.push_str(&COLUMNS.join(","));
    out.push_str("\r\n");
    for r in &report.rate_limited {
        let cells: Vec<String> = row(r).iter().map(csv_cell).collect();
        out.push_str(&cells.join(","));
        out.push_str("\r\n");
    }
    out.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_quoted_and_formulas_neutralised() {
        assert_eq!(csv_cell(&json!("plain")), "plain");
        assert_eq!(csv_cell(&json!("a,b")), "\"a,b\"");
        assert_eq!(csv_cell(&json!("say \"hi\"")), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_cell(&json!("two\nlines\u{1b}[2J")), "two?lines?[2J");
        assert_eq!(
            csv_cell(&json!("=HYPERLINK(\"x\")")),
            "\"'=HYPERLINK(\"\"x\"\")\""
        );
        assert_eq!(csv_cell(&json!("@cmd")), "'@cmd");
        assert_eq!(csv_cell(&json!(-1.5)), "-1.5");
        assert_eq!(csv_cell(&Value::Null), "");
    }
}
