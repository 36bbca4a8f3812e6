//! Markdown: the report as a document to paste into a ticket or a pull request. The same
//! content and order as the terminal report (verdict first, then details), from the same
//! [`verdict`](super::verdict) functions, with GitHub-flavoured tables that are never cut.

use super::color::severity_word;
use super::verdict::{self, action_words};
use super::Style;
use crate::report::Report;
use std::fmt::Write;

/// Escape what would break a table cell or start markup; control characters (a terminal
/// escape in a URL) become `?`.
pub(crate) fn cell(s: &str) -> String {
    super::text::printable(&s.replace(['\n', '\r'], " "))
        .replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('`', "\\`")
}

/// Escape prose (findings, rationale) for a list item.
pub(crate) fn prose(s: &str) -> String {
    super::text::printable(&s.replace(['\n', '\r'], " "))
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Markdown's table syntax (GitHub-flavoured): a header, an alignment row, cells escaped.
struct Md;

impl super::markup::Markup for Md {
    fn head(&self, out: &mut String, columns: &[super::markup::Column<'_>]) {
        let names: Vec<&str> = columns.iter().map(|(h, _)| *h).collect();
        let _ = writeln!(out, "| {} |", names.join(" | "));
        let align: Vec<&str> = columns
            .iter()
            .map(|(_, right)| if *right { "---:" } else { "---" })
            .collect();
        let _ = writeln!(out, "|{}|", align.join("|"));
    }

    fn row(&self, out: &mut String, cells: &[(&str, bool)]) {
        let cells: Vec<String> = cells.iter().map(|(c, _)| cell(c)).collect();
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }

    fn foot(&self, out: &mut String) {
        out.push('\n');
    }
}

/// A table: header, alignment row (`true` = right-aligned) and escaped rows.
pub(crate) fn table(out: &mut String, header: &[(&str, bool)], rows: &[Vec<String>]) {
    super::markup::table(out, &Md, header, rows);
}

/// The document: the verdict (what was read, who limited you, the findings, the plans), then
/// the details (grouped responses, top talkers, inputs, every response).
pub fn render(report: &Report, style: Style) -> Vec<u8> {
    let mut out = String::new();
    intro(&mut out, report);
    who_limited(&mut out, report);
    findings(&mut out, report);
    for r in verdict::plans(report) {
        plan(&mut out, r);
    }
    let _ = writeln!(out, "## Details\n");
    groups(&mut out, report);
    clients(&mut out, report);
    credentials(&mut out, report);
    inputs(&mut out, report);
    responses(&mut out, report, style);
    out.into_bytes()
}

/// The title, what was read and when, the status counts and any notes on the input.
fn intro(out: &mut String, report: &Report) {
    let _ = writeln!(out, "# toomany report\n");
    let _ = writeln!(out, "**{}.**", prose(&verdict::capture_line(report)));
    let windows = verdict::window_lines(report);
    if !windows.is_empty() {
        out.push('\n');
        for w in &windows {
            let _ = writeln!(out, "- {}", prose(w));
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "Status: {}; {}.",
        verdict::status_counts(report),
        prose(&verdict::clients_line(report))
    );
    if let Some(note) = verdict::not_counted_note(report) {
        let _ = writeln!(out, "{}.", prose(&capitalized(&note)));
    }
    if let Some(note) = verdict::input_problems(report) {
        let _ = writeln!(out, "{}.", prose(&capitalized(&note)));
    }
    if let Some(note) = verdict::counted_twice(report) {
        let _ = writeln!(out, "{}.", prose(&capitalized(&note)));
    }
    out.push('\n');
}

fn who_limited(out: &mut String, report: &Report) {
    let n = report.rate_limited.len();
    let who = verdict::who_limited(report);
    let _ = writeln!(
        out,
        "## Who limited you\n\n**{n} rate-limited response{}** of {} requests ({}).\n",
        if n == 1 { "" } else { "s" },
        report.summary.requests,
        verdict::percent(n, report.summary.requests)
    );
    for h in &who {
        let senders: Vec<String> = h.senders.iter().map(|s| s.label()).collect();
        let _ = writeln!(
            out,
            "- **{}**: {} of {} requests: {}",
            prose(&h.host),
            h.rate_limited,
            h.requests,
            prose(&senders.join(", "))
        );
    }
    if !who.is_empty() {
        out.push('\n');
    }
}

fn findings(out: &mut String, report: &Report) {
    let findings = verdict::findings_by_severity(report);
    if findings.is_empty() {
        let _ = writeln!(out, "## Findings\n\nNone.\n");
        return;
    }
    let _ = writeln!(out, "## Findings\n\nMost severe first.\n");
    for f in findings {
        let _ = writeln!(
            out,
            "- **{}** `{}`: {}",
            severity_word(f.severity).to_uppercase(),
            f.kind,
            prose(&f.summary)
        );
    }
    out.push('\n');
}

/// One recommendation: its key lines, warnings and reasons.
fn plan(out: &mut String, r: &crate::recommend::Recommendation) {
    let _ = writeln!(
        out,
        "## Recommendation{}: `{}` ({})\n",
        prose(&super::recommend::for_host(r)),
        r.action.as_str(),
        action_words(r)
    );
    for (label, value) in super::recommend::key_lines(r) {
        let _ = writeln!(out, "- **{label}** {}", prose(&value));
    }
    for (heading, lines) in [("Warnings", &r.warnings), ("Why", &r.rationale)] {
        if lines.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n### {heading}\n");
        for line in lines {
            let _ = writeln!(out, "- {}", prose(line));
        }
    }
    out.push('\n');
}

fn groups(out: &mut String, report: &Report) {
    let groups = verdict::groups(report);
    if groups.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "### Rate-limited responses by host, layer, vendor and quota\n"
    );
    let rows: Vec<Vec<String>> = groups
        .iter()
        .map(|g| {
            vec![
                g.host.clone(),
                g.layer.as_str().to_string(),
                g.vendor.clone().unwrap_or_else(|| "—".into()),
                g.quota.as_str().to_string(),
                g.count.to_string(),
                verdict::short_range(g.first, g.last),
                format!("{:.0} %", g.confidence * 100.0),
                g.retry_after.join(", "),
                verdict::location(&g.exemplar.source, g.exemplar.position),
            ]
        })
        .collect();
    table(
        out,
        &[
            ("host", false),
            ("layer", false),
            ("vendor", false),
            ("quota", false),
            ("count", true),
            ("first–last", false),
            ("confidence", true),
            ("retry-after", false),
            ("example", false),
        ],
        &rows,
    );
}

fn clients(out: &mut String, report: &Report) {
    let c = &report.clients;
    if c.list.is_empty() {
        return;
    }
    let shown = c.list.len().min(super::table::TOP_TALKERS);
    let _ = writeln!(
        out,
        "### Top talkers: clients\n\n{shown} of {}, busiest first.\n",
        c.count
    );
    let rows: Vec<Vec<String>> = c
        .list
        .iter()
        .take(shown)
        .map(|row| {
            vec![
                row.label.clone(),
                row.requests.to_string(),
                row.rate_limited.to_string(),
                verdict::percent(row.rate_limited, row.requests),
                if row.credentials.is_empty() {
                    "—".to_string()
                } else {
                    row.credentials
                        .iter()
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", ")
                },
            ]
        })
        .collect();
    table(
        out,
        &[
            ("client", false),
            ("requests", true),
            ("429s", true),
            ("limited", true),
            ("credentials", false),
        ],
        &rows,
    );
}

fn credentials(out: &mut String, report: &Report) {
    let ov = &report.overview;
    if ov.credentials.is_empty() {
        return;
    }
    let shown = ov.credentials.len().min(super::table::TOP_TALKERS);
    let _ = writeln!(
        out,
        "### Top talkers: credentials\n\n{shown} of {}, by keyed fingerprint, busiest first.\n",
        ov.credential_count
    );
    let rows: Vec<Vec<String>> = ov
        .credentials
        .iter()
        .take(shown)
        .map(|row| {
            vec![
                row.fingerprint.clone(),
                row.requests.to_string(),
                row.rate_limited.to_string(),
                row.clients.to_string(),
                verdict::short_range(row.first, row.last),
            ]
        })
        .collect();
    table(
        out,
        &[
            ("credential", false),
            ("requests", true),
            ("429s", true),
            ("clients", true),
            ("first–last", false),
        ],
        &rows,
    );
}

fn inputs(out: &mut String, report: &Report) {
    let _ = writeln!(out, "### Inputs\n");
    let rows: Vec<Vec<String>> = report
        .inputs
        .iter()
        .map(|i| {
            vec![
                i.source.to_string(),
                i.format_label(),
                i.records.to_string(),
                i.skipped.to_string(),
                i.warning_count.to_string(),
                i.problem().unwrap_or_default().to_string(),
            ]
        })
        .collect();
    table(
        out,
        &[
            ("input", false),
            ("format", false),
            ("records", true),
            ("skipped", true),
            ("warnings", true),
            ("problem", false),
        ],
        &rows,
    );
}

/// Every rate-limited response, up to the style's rows.
fn responses(out: &mut String, report: &Report, style: Style) {
    let total = report.rate_limited.len();
    if total == 0 {
        return;
    }
    let shown = style.max_rows.unwrap_or(usize::MAX).min(total);
    let with_date = verdict::spans_days(report);
    let _ = writeln!(out, "### Rate-limited responses\n");
    let rows: Vec<Vec<String>> = report
        .rate_limited
        .iter()
        .take(shown)
        .map(|r| {
            let a = &r.attribution;
            vec![
                verdict::time_of(r.time, with_date),
                r.method.to_string(),
                verdict::url_shown(&r.url).to_string(),
                r.status.to_string(),
                a.layer.as_str().to_string(),
                a.vendor.clone().unwrap_or_else(|| "—".into()),
                a.quota.as_str().to_string(),
                format!("{:.0} %", a.confidence * 100.0),
                verdict::retry_after_text(&r.retry_after),
                verdict::location(&r.source, r.position),
            ]
        })
        .collect();
    table(
        out,
        &[
            ("time (UTC)", false),
            ("method", false),
            ("url", false),
            ("status", true),
            ("layer", false),
            ("vendor", false),
            ("quota", false),
            ("confidence", true),
            ("retry-after", false),
            ("where", false),
        ],
        &rows,
    );
    if let Some(note) =
        verdict::where_note(report.rate_limited.iter().take(shown).map(|r| r.position))
    {
        let _ = writeln!(out, "{}\n", cell(note));
    }
    if shown < total {
        let _ = writeln!(
            out,
            "… {} more not shown (`--all` lists every one; `--format json` always does).",
            total - shown
        );
    }
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_cannot_break_the_table() {
        assert_eq!(cell("a|b\nc<script>`x`"), "a\\|b c&lt;script&gt;\\`x\\`");
    }
}
