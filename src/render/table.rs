//! The terminal report: the verdict first (who limited you, the findings most severe first,
//! the plan per host), then the details (grouped rate-limited responses, top talkers, the
//! plan's arithmetic, inputs, the per-response listing).
//!
//! Everything fits `Style::width` columns: prose is wrapped with a hanging indent, and tables
//! give way in a stated order (see [`super::grid`] and the column specs below): URLs and
//! locations are shortened in the middle first, then whole columns are dropped (the table says
//! which); status, layer and vendor are always shown whole.

use super::color::{severity_word, Paint, Palette};
use super::grid::{painted, Cell, Column, Fit, Grid};
use super::text::{printable, wrap};
use super::verdict::{self, action_words};
use super::Style;
use crate::report::Report;

/// Clients and credentials listed among the top talkers.
pub const TOP_TALKERS: usize = 10;

struct Out {
    lines: Vec<String>,
    width: usize,
    palette: Palette,
}

impl Out {
    fn blank(&mut self) {
        if self.lines.last().is_some_and(|l| !l.is_empty()) {
            self.lines.push(String::new());
        }
    }
    fn heading(&mut self, text: &str) {
        self.blank();
        let t = self.palette.paint(Paint::Heading, &printable(text));
        self.lines.push(t);
    }
    /// Wrapped prose: `first` before the first line, `rest` before the others.
    fn prose(&mut self, text: &str, first: &str, rest: &str) {
        self.lines
            .extend(wrap(&printable(text), self.width, first, rest));
    }
    /// Wrapped prose whose first word (a label like `[critical]`) is painted.
    fn labelled(&mut self, indent: &str, label: &str, paint: Paint, text: &str, rest: &str) {
        let plain_first = format!("{indent}{label} ");
        let mut lines = wrap(&printable(text), self.width, &plain_first, rest);
        if self.palette.on {
            if let Some(l) = lines.first_mut() {
                *l = l.replacen(label, &self.palette.paint(paint, label), 1);
            }
        }
        self.lines.append(&mut lines);
    }
    fn grid(&mut self, g: &Grid, indent: &str) {
        let laid = g.render(self.width, indent, self.palette);
        self.lines.extend(laid.lines);
        if !laid.dropped.is_empty() {
            let note = format!(
                "(hidden to fit {} columns: {}; --format markdown shows every column)",
                self.width,
                laid.dropped.join(", ")
            );
            let rest = format!("{indent} ");
            let lines = wrap(&note, self.width, indent, &rest);
            for l in lines {
                self.lines.push(self.palette.paint(Paint::Dim, &l));
            }
        }
    }
}

/// `cdn/cloudflare`, `api`: layer and vendor in one whole cell, coloured by layer.
fn who_cell(layer: crate::attribute::Layer, vendor: Option<&str>) -> Cell {
    let text = match vendor {
        Some(v) => format!("{}/{}", layer.as_str(), printable(v)),
        None => layer.as_str().to_string(),
    };
    painted(text, Paint::Layer(layer))
}

pub fn render(report: &Report, style: Style) -> Vec<u8> {
    let mut o = Out {
        lines: Vec::new(),
        width: style.width,
        palette: Palette { on: style.color },
    };
    verdict_block(report, &mut o);
    details(report, style, &mut o);
    let mut s = o.lines.join("\n");
    s.push('\n');
    s.into_bytes()
}

fn verdict_block(report: &Report, o: &mut Out) {
    capture(report, o);
    who_limited(report, o);
    findings(report, o);
    plans(report, o);
}

/// The capture in two lines, the status counts and any notes on the input.
fn capture(report: &Report, o: &mut Out) {
    let p = o.palette;
    o.lines
        .push(p.paint(Paint::Heading, &printable(&verdict::capture_line(report))));
    for w in verdict::window_lines(report) {
        o.prose(&w, "  ", "    ");
    }
    o.prose(
        &format!(
            "status: {}; {}",
            verdict::status_counts(report),
            verdict::clients_line(report)
        ),
        "",
        "  ",
    );
    if let Some(note) = verdict::not_counted_note(report) {
        o.prose(&note, "", "  ");
    }
    if let Some(note) = verdict::input_problems(report) {
        o.prose(&note, "", "  ");
    }
    if let Some(note) = verdict::counted_twice(report) {
        o.prose(&note, "", "  ");
    }
}

fn who_limited(report: &Report, o: &mut Out) {
    let p = o.palette;
    let who = verdict::who_limited(report);
    let n = report.rate_limited.len();
    if who.is_empty() {
        o.heading(&format!(
            "Who limited you: nobody ({n} rate-limited responses)"
        ));
    } else {
        o.heading(&format!(
            "Who limited you: {n} rate-limited response{} of {} requests ({})",
            if n == 1 { "" } else { "s" },
            report.summary.requests,
            verdict::percent(n, report.summary.requests)
        ));
        for h in &who {
            let senders: Vec<String> = h.senders.iter().map(|s| s.label()).collect();
            // The action stays on the first screen whatever the findings' length.
            let action = report
                .recommendations
                .iter()
                .find(|r| r.host.as_deref() == Some(h.host.as_str()))
                .map(|r| format!("; action: {}", verdict::action_words(r)))
                .unwrap_or_default();
            let text = format!(
                "{} of {} requests: {}{action}",
                h.rate_limited,
                h.requests,
                senders.join(", ")
            );
            let label = format!("{}:", h.host);
            let mut lines = wrap(&printable(&text), o.width, &format!("  {label} "), "      ");
            if p.on {
                for l in &mut lines {
                    for s in &h.senders {
                        let w = s.who();
                        // Colour the layer word where it stands (`× cdn/` or `× api `).
                        let at = format!("× {w}");
                        if l.contains(&at) {
                            *l = l.replacen(
                                &at,
                                &format!("× {}", p.paint(Paint::Layer(s.layer), &w)),
                                1,
                            );
                        }
                    }
                }
            }
            o.lines.append(&mut lines);
        }
    }
}

/// Findings, most severe first.
fn findings(report: &Report, o: &mut Out) {
    let findings = verdict::findings_by_severity(report);
    if findings.is_empty() {
        o.heading("Findings: none");
    } else {
        o.heading("Findings, most severe first");
        for f in findings {
            let label = format!("[{}]", severity_word(f.severity));
            o.labelled(
                "  ",
                &label,
                Paint::Severity(f.severity),
                &format!("{}: {}", f.kind, f.summary),
                "      ",
            );
        }
    }
}

/// The plan per host.
fn plans(report: &Report, o: &mut Out) {
    let p = o.palette;
    let plans = verdict::plans(report);
    if plans.is_empty() {
        o.heading("Recommendation: none (no rate-limited response; pass --limit for a plan)");
    }
    for r in plans {
        let title = format!(
            "Recommendation{}: {}",
            super::recommend::for_host(r),
            action_words(r)
        );
        o.heading(&title);
        for (label, value) in super::recommend::key_lines(r) {
            o.prose(&value, &format!("  {label:<13}"), &" ".repeat(15));
        }
        for w in &r.warnings {
            o.labelled("  ", "!", Paint::Caution, w, "    ");
        }
        if !r.rationale.is_empty() {
            o.lines.push(p.paint(
                Paint::Dim,
                "  (how each number was worked out: \"Why\" below)",
            ));
        }
    }
}

fn details(report: &Report, style: Style, o: &mut Out) {
    let p = o.palette;
    o.blank();
    o.lines.push(p.paint(Paint::Heading, "── Details ──"));
    groups(report, o);
    clients(report, o);
    credentials(report, o);
    arithmetic(report, o);
    inputs(report, o);
    responses(report, style, o);
}

/// Grouped rate-limited responses.
fn groups(report: &Report, o: &mut Out) {
    let groups = verdict::groups(report);
    if !groups.is_empty() {
        o.heading("Rate-limited responses by host, layer, vendor and quota");
        let mut g = Grid::new(vec![
            Column::new("host").shrink(Fit::Middle, 16, 1),
            Column::new("sent by"),
            Column::new("quota"),
            Column::new("count").right(),
            Column::new("first–last").drop_at(2),
            Column::new("conf").right().drop_at(0),
            Column::new("retry-after").shrink(Fit::End, 6, 2).drop_at(1),
            Column::new("example").shrink(Fit::Start, 14, 0).drop_at(3),
        ]);
        for gr in &groups {
            g.push(vec![
                printable(&gr.host).into(),
                who_cell(gr.layer, gr.vendor.as_deref()),
                gr.quota.as_str().into(),
                gr.count.to_string().into(),
                verdict::short_range(gr.first, gr.last).into(),
                format!("{:.0} %", gr.confidence * 100.0).into(),
                printable(&gr.retry_after.join(", ")).into(),
                printable(&verdict::location(
                    &gr.exemplar.source,
                    gr.exemplar.position,
                ))
                .into(),
            ]);
        }
        o.grid(&g, "");
    }
}

/// Top talkers: clients.
fn clients(report: &Report, o: &mut Out) {
    let c = &report.clients;
    if !c.list.is_empty() {
        let shown = c.list.len().min(TOP_TALKERS);
        o.heading(&format!(
            "Top talkers: clients ({} of {}, busiest first)",
            shown, c.count
        ));
        let mut g = Grid::new(vec![
            Column::new("client").shrink(Fit::End, 16, 0),
            Column::new("requests").right(),
            Column::new("429s").right(),
            Column::new("limited").right().drop_at(1),
            Column::new("credentials")
                .shrink(Fit::End, 10, 1)
                .drop_at(0),
        ]);
        for row in c.list.iter().take(shown) {
            let creds: Vec<&str> = row.credentials.iter().map(String::as_str).collect();
            g.push(vec![
                printable(&row.label).into(),
                row.requests.to_string().into(),
                row.rate_limited.to_string().into(),
                verdict::percent(row.rate_limited, row.requests).into(),
                if creds.is_empty() {
                    "—".into()
                } else {
                    printable(&creds.join(", ")).into()
                },
            ]);
        }
        o.grid(&g, "");
    }
}

/// Top talkers: credentials.
fn credentials(report: &Report, o: &mut Out) {
    let ov = &report.overview;
    if !ov.credentials.is_empty() {
        let shown = ov.credentials.len().min(TOP_TALKERS);
        o.heading(&format!(
            "Top talkers: credentials ({} of {}, by keyed fingerprint, busiest first)",
            shown, ov.credential_count
        ));
        let mut g = Grid::new(vec![
            Column::new("credential").shrink(Fit::End, 10, 0),
            Column::new("requests").right(),
            Column::new("429s").right(),
            Column::new("clients").right(),
            Column::new("first–last").drop_at(0),
        ]);
        for row in ov.credentials.iter().take(shown) {
            g.push(vec![
                printable(&row.fingerprint).into(),
                row.requests.to_string().into(),
                row.rate_limited.to_string().into(),
                row.clients.to_string().into(),
                verdict::short_range(row.first, row.last).into(),
            ]);
        }
        o.grid(&g, "");
    }
}

/// The plans' arithmetic.
fn arithmetic(report: &Report, o: &mut Out) {
    for r in verdict::plans(report) {
        if r.rationale.is_empty() {
            continue;
        }
        o.heading(&format!(
            "Why: the arithmetic of the plan{}",
            super::recommend::for_host(r)
        ));
        for line in &r.rationale {
            o.prose(line, "  - ", "    ");
        }
    }
}

fn inputs(report: &Report, o: &mut Out) {
    o.heading("Inputs");
    let mut g = Grid::new(vec![
        Column::new("input").shrink(Fit::Middle, 16, 0),
        Column::new("format"),
        Column::new("records").right(),
        Column::new("skipped").right(),
        Column::new("warnings").right(),
        Column::new("problem").shrink(Fit::End, 12, 1).drop_at(0),
    ]);
    for i in &report.inputs {
        g.push(vec![
            printable(&i.source).into(),
            i.format_label().into(),
            i.records.to_string().into(),
            i.skipped.to_string().into(),
            i.warning_count.to_string().into(),
            printable(i.problem().unwrap_or("")).into(),
        ]);
    }
    o.grid(&g, "");
}

/// Every rate-limited response (bounded unless --all: the JSON always has every one).
fn responses(report: &Report, style: Style, o: &mut Out) {
    let with_date = verdict::spans_days(report);
    let total = report.rate_limited.len();
    if total > 0 {
        let shown = style.max_rows.unwrap_or(usize::MAX).min(total);
        o.heading(&if shown < total {
            format!("Rate-limited responses (first {shown} of {total})")
        } else {
            format!("Rate-limited responses ({total})")
        });
        let mut g = Grid::new(vec![
            Column::new("time (UTC)"),
            Column::new("method").drop_at(2),
            Column::new("url").shrink(Fit::Middle, 20, 1),
            Column::new("status").right(),
            Column::new("sent by"),
            Column::new("quota").drop_at(1),
            Column::new("conf").right().drop_at(0),
            Column::new("retry-after").shrink(Fit::End, 6, 2).drop_at(3),
            Column::new("where").shrink(Fit::Start, 11, 0).drop_at(4),
        ]);
        for r in report.rate_limited.iter().take(shown) {
            let a = &r.attribution;
            g.push(vec![
                verdict::time_of(r.time, with_date).into(),
                printable(&r.method).into(),
                printable(verdict::url_shown(
                    r.url.strip_prefix("https://").unwrap_or(&r.url),
                ))
                .into(),
                r.status.to_string().into(),
                who_cell(a.layer, a.vendor.as_deref()),
                a.quota.as_str().into(),
                format!("{:.0} %", a.confidence * 100.0).into(),
                printable(&verdict::retry_after_text(&r.retry_after)).into(),
                printable(&verdict::location(&r.source, r.position)).into(),
            ]);
        }
        o.grid(&g, "");
        if let Some(note) =
            verdict::where_note(report.rate_limited.iter().take(shown).map(|r| r.position))
        {
            o.prose(note, "", "  ");
        }
        if shown < total {
            o.prose(
                &format!(
                    "… {} more not shown (--all lists every one; --format json always does)",
                    total - shown
                ),
                "",
                "  ",
            );
        }
    }
}
