//! Terminal tables for people. Everything here is derived from the Report; nothing is computed
//! that the JSON does not also hold.

use super::Style;
use crate::report::Report;
use comfy_table::{presets, Cell, CellAlignment, ContentArrangement, Table};
use std::fmt::Write;

/// URLs longer than this are shortened in the middle in tables (JSON keeps them whole).
const URL_WIDTH: usize = 72;

fn table(style: Style) -> Table {
    let mut t = Table::new();
    t.load_preset(presets::UTF8_HORIZONTAL_ONLY);
    t.set_content_arrangement(ContentArrangement::Dynamic);
    if let Some(w) = style.width {
        t.set_width(w);
    }
    if !style.color {
        t.force_no_tty();
    }
    t
}

fn shorten(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_string();
    }
    let head: String = s.chars().take(max * 2 / 3).collect();
    let tail: String = s.chars().skip(n - (max / 3 - 1)).collect();
    format!("{head}…{tail}")
}

fn right(s: impl ToString) -> Cell {
    Cell::new(s.to_string()).set_alignment(CellAlignment::Right)
}

pub fn render(report: &Report, style: Style) -> Vec<u8> {
    let mut out = String::new();

    // Inputs.
    let mut t = table(style);
    t.set_header(vec!["input", "format", "records", "skipped", "warnings", "problem"]);
    for i in &report.inputs {
        t.add_row(vec![
            Cell::new(&*i.source),
            Cell::new(i.format.as_deref().unwrap_or("?")),
            right(i.records),
            right(i.skipped),
            right(i.warning_count),
            Cell::new(i.error.as_deref().unwrap_or("")),
        ]);
    }
    let _ = writeln!(out, "Inputs\n{t}\n");

    // Summary line.
    let s = &report.summary;
    let statuses: Vec<String> = s.by_status.iter().map(|(k, v)| format!("{k} × {v}")).collect();
    let span = match (s.first, s.last) {
        (Some(a), Some(b)) => format!(
            ", {} → {} UTC ({})",
            a.format("%Y-%m-%d %H:%M:%S"),
            b.format("%H:%M:%S"),
            crate::units::fmt_duration_ms((b - a).num_milliseconds() as f64)
        ),
        _ => String::new(),
    };
    let _ = writeln!(
        out,
        "{} requests{}; status: {}",
        s.requests,
        span,
        if statuses.is_empty() { "none".to_string() } else { statuses.join(", ") }
    );
    let _ = writeln!(out, "{} rate-limited responses", report.rate_limited.len());
    let c = &report.clients;
    let _ = writeln!(
        out,
        "{} client{} (told apart by {})\n",
        c.count,
        if c.count == 1 { "" } else { "s" },
        if c.identified_by.is_empty() {
            "nothing (no caller hints in the input)".to_string()
        } else {
            c.identified_by.iter().map(|h| h.replace('_', " ")).collect::<Vec<_>>().join(" + ")
        }
    );

    // Per-429 listing.
    if !report.rate_limited.is_empty() {
        let mut t = table(style);
        t.set_header(vec!["time (UTC)", "method", "url", "status", "retry-after", "where"]);
        for r in &report.rate_limited {
            let ra = match (&r.retry_after.raw, r.retry_after.seconds) {
                (Some(raw), Some(sec)) if raw.trim() != crate::units::fmt_num(sec) => {
                    format!("{raw} ({} s)", crate::units::fmt_num(sec))
                }
                (Some(raw), _) => raw.clone(),
                (None, _) => "—".into(),
            };
            let pos = match r.position {
                crate::model::Position::Entry(i) => format!("{} entry {i}", r.source),
                crate::model::Position::Line(n) => format!("{}:{n}", r.source),
            };
            t.add_row(vec![
                Cell::new(r.time.map(|t| t.format("%H:%M:%S%.3f").to_string()).unwrap_or_else(|| "—".into())),
                Cell::new(&r.method),
                Cell::new(shorten(&r.url, URL_WIDTH)),
                right(r.status),
                Cell::new(ra),
                Cell::new(pos),
            ]);
        }
        let _ = writeln!(out, "Rate-limited responses\n{t}\n");
    }

    // Findings, one line each.
    if !report.findings.is_empty() {
        let _ = writeln!(out, "Findings");
        for f in &report.findings {
            let sev = format!("{:?}", f.severity).to_lowercase();
            let _ = writeln!(out, "  [{sev}] {}: {}", f.kind, f.summary);
        }
        out.push('\n');
    }
    out.into_bytes()
}
