//! Markdown: the report as a document to paste into a ticket or a pull request. Same content as
//! the table output (bounded per-429 listing, findings, recommendation with its arithmetic),
//! rendered with GitHub-flavoured tables.

use super::Style;
use crate::model::Position;
use crate::report::Report;
use crate::units::{fmt_duration_ms, fmt_num};
use std::fmt::Write;

/// Escape what would break a table cell or start markup.
fn cell(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace('\n', " ")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Escape prose (findings, rationale) for a list item.
fn prose(s: &str) -> String {
    s.replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('\n', " ")
}

pub fn render(report: &Report, style: Style) -> Vec<u8> {
    let mut out = String::new();
    let s = &report.summary;
    let _ = writeln!(out, "# toomany report\n");
    let span = match (s.first, s.last) {
        (Some(a), Some(b)) => format!(
            " from {} to {} UTC ({})",
            a.format("%Y-%m-%d %H:%M:%S"),
            b.format("%H:%M:%S"),
            fmt_duration_ms((b - a).num_milliseconds() as f64)
        ),
        _ => String::new(),
    };
    let statuses: Vec<String> = s
        .by_status
        .iter()
        .map(|(k, v)| format!("{k} × {v}"))
        .collect();
    let _ = writeln!(
        out,
        "**{} requests**{span}; status: {}. **{} rate-limited responses.**",
        s.requests,
        if statuses.is_empty() {
            "none".to_string()
        } else {
            statuses.join(", ")
        },
        report.rate_limited.len()
    );
    if let Some(note) = super::table::not_counted_note(report) {
        let _ = writeln!(
            out,
            "{}.",
            cell(&note[..1].to_uppercase()) + &cell(&note[1..])
        );
    }
    if let Some(line) = super::table::attribution_summary(report) {
        let _ = writeln!(out, "Sent by: {}.", cell(&line));
    }
    let c = &report.clients;
    let _ = writeln!(
        out,
        "{} client{} (told apart by {}).\n",
        c.count,
        if c.count == 1 { "" } else { "s" },
        if c.identified_by.is_empty() {
            "nothing".to_string()
        } else {
            c.identified_by.join(" + ")
        }
    );

    let _ = writeln!(out, "## Inputs\n\n| input | format | records | skipped | warnings | problem |\n|---|---|---:|---:|---:|---|");
    for i in &report.inputs {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            cell(&i.source),
            i.format.as_deref().unwrap_or("?"),
            i.records,
            i.skipped,
            i.warning_count,
            cell(i.error.as_deref().unwrap_or(""))
        );
    }
    out.push('\n');

    if !report.findings.is_empty() {
        let _ = writeln!(out, "## Findings\n");
        for f in &report.findings {
            let sev = format!("{:?}", f.severity).to_lowercase();
            let _ = writeln!(out, "- **{}** ({sev}): {}", f.kind, prose(&f.summary));
        }
        out.push('\n');
    }

    if let Some(r) = &report.recommendation {
        let _ = writeln!(
            out,
            "## Recommendation{}: `{}`\n",
            super::recommend::for_host(r),
            r.action.as_str()
        );
        for (label, value) in super::recommend::key_lines(r) {
            let _ = writeln!(out, "- **{label}** {}", prose(&value));
        }
        if !r.rationale.is_empty() {
            let _ = writeln!(out, "\n### Why\n");
            for line in &r.rationale {
                let _ = writeln!(out, "- {}", prose(line));
            }
        }
        if !r.warnings.is_empty() {
            let _ = writeln!(out, "\n### Warnings\n");
            for line in &r.warnings {
                let _ = writeln!(out, "- {}", prose(line));
            }
        }
        out.push('\n');
    }

    if !report.rate_limited.is_empty() {
        let shown = style
            .max_rows
            .unwrap_or(usize::MAX)
            .min(report.rate_limited.len());
        let _ = writeln!(
            out,
            "## Rate-limited responses\n\n| time (UTC) | method | url | status | layer | vendor | quota | retry-after | where |\n|---|---|---|---:|---|---|---|---|---|"
        );
        for r in report.rate_limited.iter().take(shown) {
            let a = &r.attribution;
            let ra = match (&r.retry_after.raw, r.retry_after.seconds) {
                (Some(raw), Some(sec)) => format!("{} ({} s)", raw, fmt_num(sec)),
                (Some(raw), None) => format!("{raw} ({:?})", r.retry_after.kind).to_lowercase(),
                (None, _) => "—".into(),
            };
            let pos = match r.position {
                Position::Entry(i) => format!("{} entry {i}", r.source),
                Position::Line(n) => format!("{}:{n}", r.source),
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} ({:.0} %) | {} | {} | {} | {} |",
                r.time
                    .map(|t| t.format("%H:%M:%S%.3f").to_string())
                    .unwrap_or_else(|| "—".into()),
                cell(&r.method),
                cell(&r.url),
                r.status,
                a.layer.as_str(),
                a.confidence * 100.0,
                a.vendor.as_deref().unwrap_or("—"),
                a.quota.as_str(),
                cell(&ra),
                cell(&pos)
            );
        }
        if shown < report.rate_limited.len() {
            let _ = writeln!(
                out,
                "\n… {} more not shown (`--all` lists every one; `--format json` always does).",
                report.rate_limited.len() - shown
            );
        }
    }
    out.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_cannot_break_the_table() {
        assert_eq!(cell("a|b\nc<script>"), "a\\|b c&lt;script&gt;");
    }
}
