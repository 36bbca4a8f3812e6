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
    t.load_preset(presets::UTF8_BORDERS_ONLY);
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
    t.set_header(vec![
        "input", "format", "records", "skipped", "warnings", "problem",
    ]);
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
    let statuses: Vec<String> = s
        .by_status
        .iter()
        .map(|(k, v)| format!("{k} × {v}"))
        .collect();
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
        if statuses.is_empty() {
            "none".to_string()
        } else {
            statuses.join(", ")
        }
    );
    let _ = writeln!(out, "{} rate-limited responses", report.rate_limited.len());
    if let Some(note) = not_counted_note(report) {
        let _ = writeln!(out, "{note}");
    }
    if let Some(line) = attribution_summary(report) {
        let _ = writeln!(out, "sent by: {line}");
    }
    let c = &report.clients;
    let _ = writeln!(
        out,
        "{} client{} (told apart by {})\n",
        c.count,
        if c.count == 1 { "" } else { "s" },
        if c.identified_by.is_empty() {
            "nothing (no caller hints in the input)".to_string()
        } else {
            c.identified_by
                .iter()
                .map(|h| h.replace('_', " "))
                .collect::<Vec<_>>()
                .join(" + ")
        }
    );

    // Per-429 listing (bounded unless --all: the JSON report always has every one).
    if !report.rate_limited.is_empty() {
        let shown = style
            .max_rows
            .unwrap_or(usize::MAX)
            .min(report.rate_limited.len());
        let mut t = table(style);
        t.set_header(vec![
            "time (UTC)",
            "method",
            "url",
            "status",
            "layer",
            "vendor",
            "quota",
            "retry-after",
            "where",
        ]);
        for r in report.rate_limited.iter().take(shown) {
            let raw_short = r.retry_after.raw.as_deref().map(|v| shorten(v, 40));
            let ra = match (&raw_short, r.retry_after.seconds) {
                (Some(raw), Some(sec)) if raw.trim() != crate::units::fmt_num(sec) => {
                    format!("{raw} ({} s)", crate::units::fmt_num(sec))
                }
                (Some(raw), _) => format!(
                    "{raw} ({})",
                    format!("{:?}", r.retry_after.kind).to_lowercase()
                ),
                (None, _) => "—".into(),
            };
            let pos = match r.position {
                crate::model::Position::Entry(i) => format!("{} entry {i}", r.source),
                crate::model::Position::Line(n) => format!("{}:{n}", r.source),
            };
            t.add_row(vec![
                Cell::new(
                    r.time
                        .map(|t| t.format("%H:%M:%S%.3f").to_string())
                        .unwrap_or_else(|| "—".into()),
                ),
                Cell::new(&r.method),
                Cell::new(shorten(&r.url, URL_WIDTH)),
                right(r.status),
                Cell::new(format!(
                    "{} ({:.0} %)",
                    r.attribution.layer.as_str(),
                    r.attribution.confidence * 100.0
                )),
                Cell::new(r.attribution.vendor.as_deref().unwrap_or("—")),
                Cell::new(r.attribution.quota.as_str()),
                Cell::new(ra),
                Cell::new(pos),
            ]);
        }
        let _ = writeln!(out, "Rate-limited responses\n{t}");
        if shown < report.rate_limited.len() {
            let _ = writeln!(
                out,
                "… {} more not shown (--all lists every one; --format json always does)",
                report.rate_limited.len() - shown
            );
        }
        out.push('\n');
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

    if let Some(r) = &report.recommendation {
        out.push_str(&super::recommend::section(r));
    }
    out.into_bytes()
}

/// One line per layer/vendor: "41 × cdn/cloudflare (rate, 1015), 2 × api (rate)", most first.
/// 503s and 403s that were not counted as rate limiting (no Retry-After, no rate-limit headers,
/// no limiter's page): say so, so a user does not read "0 rate-limited" as "nothing went wrong".
pub fn not_counted_note(report: &Report) -> Option<String> {
    let counted = |status: u16| {
        report
            .rate_limited
            .iter()
            .filter(|r| r.status == status)
            .count()
    };
    let mut parts = Vec::new();
    for status in [503u16, 403] {
        let all = report
            .summary
            .by_status
            .get(&status.to_string())
            .copied()
            .unwrap_or(0);
        let other = all.saturating_sub(counted(status));
        if other > 0 {
            parts.push(format!("{other} × {status}"));
        }
    }
    (!parts.is_empty()).then(|| {
        format!(
            "not counted: {} without rate-limit evidence (no Retry-After, rate-limit headers or limiter page)",
            parts.join(", ")
        )
    })
}

pub fn attribution_summary(report: &Report) -> Option<String> {
    let mut groups: Vec<(String, usize)> = Vec::new();
    for r in &report.rate_limited {
        let a = &r.attribution;
        let who = match &a.vendor {
            Some(v) => format!("{}/{v}", a.layer.as_str()),
            None => a.layer.as_str().to_string(),
        };
        let mut why: Vec<&str> = Vec::new();
        if a.quota != crate::attribute::Quota::Unknown {
            why.push(a.quota.as_str());
        }
        if let Some(d) = &a.detail {
            why.push(d);
        }
        let key = if why.is_empty() {
            who
        } else {
            format!("{who} ({})", why.join(", "))
        };
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some(g) => g.1 += 1,
            None => groups.push((key, 1)),
        }
    }
    if groups.is_empty() {
        return None;
    }
    groups.sort_by_key(|g| std::cmp::Reverse(g.1));
    Some(
        groups
            .iter()
            .map(|(k, n)| format!("{n} × {k}"))
            .collect::<Vec<_>>()
            .join(", "),
    )
}
