//! `toomany compare` rendered: the verdict and its reasons first, then the figures per host
//! (before / after rows), the findings resolved / new / persisting, and the plans. Table and
//! Markdown hold the same content; JSON is the [`Comparison`] itself.

use super::color::{severity_word, Paint, Palette};
use super::grid::{painted, Cell, Column, Fit, Grid};
use super::markdown::{prose, table as md_table};
use super::text::{printable, wrap};
use super::Style;
use crate::compare::{Comparison, Figures, FindingRef, PlanFacts, Verdict};
use std::fmt::Write;

fn pct(x: f64) -> String {
    format!("{:.1} %", x * 100.0)
}

fn num(x: Option<f64>) -> String {
    match x {
        Some(v) if v >= 100.0 => format!("{v:.0}"),
        Some(v) if v >= 10.0 => format!("{v:.1}"),
        Some(v) => format!("{v:.2}"),
        None => "—".into(),
    }
}

fn verdict_paint(v: Verdict) -> Paint {
    match v {
        Verdict::Improved => Paint::Layer(crate::attribute::Layer::Api),
        Verdict::Unchanged => Paint::Strong,
        Verdict::Regressed => Paint::Severity(crate::detect::Severity::Critical),
    }
}

fn inputs_text(inputs: &[String]) -> String {
    match inputs.len() {
        0 => "—".into(),
        1 => printable(&inputs[0]),
        n => format!("{} and {} more", printable(&inputs[0]), n - 1),
    }
}

fn finding_text(f: &FindingRef) -> String {
    format!(
        "{}{}",
        f.kind,
        f.host
            .as_deref()
            .map(|h| format!(" on {}", printable(h)))
            .unwrap_or_default()
    )
}

fn plan_text(p: Option<&PlanFacts>) -> String {
    match p {
        None => "none (not rate-limited)".into(),
        Some(p) => {
            let mut s = p.action.replace('_', " ");
            if let Some(r) = p.rate_per_second {
                let _ = write!(s, ", {}/s", num(Some(r)));
            }
            if let Some(c) = p.concurrency {
                let _ = write!(s, ", {c} in flight");
            }
            s
        }
    }
}

/// The figures as table cells, in [`HEADERS`] order after the host and side.
fn figure_cells(f: &Figures) -> Vec<String> {
    vec![
        f.requests.to_string(),
        f.rate_limited.to_string(),
        pct(f.rate_limited_share),
        num(f.attempts_per_logical),
        f.peak_rate_per_s
            .map(|v| format!("{v:.0}"))
            .unwrap_or_else(|| "—".into()),
        num(f.sustained_rate_per_s),
        f.max_in_flight.to_string(),
        f.honoured_text().unwrap_or("—").to_string(),
    ]
}

const HEADERS: [&str; 8] = [
    "requests",
    "429s",
    "share",
    "attempts/logical",
    "peak/s",
    "sustained/s",
    "in flight",
    "retry-after honoured",
];

/// Rows: (host, side, figures) for all traffic, then each host.
/// (With one host on both sides, its rows are the totals and are not repeated.)
fn rows(c: &Comparison) -> Vec<(String, &'static str, Option<&Figures>)> {
    let mut out = Vec::new();
    if c.hosts.len() != 1 {
        out.push(("all hosts".to_string(), "before", Some(&c.before.figures)));
        out.push((String::new(), "after", Some(&c.after.figures)));
    }
    for h in &c.hosts {
        out.push((printable(&h.host), "before", h.before.as_ref()));
        out.push((String::new(), "after", h.after.as_ref()));
    }
    out
}

pub fn table(c: &Comparison, style: Style) -> Vec<u8> {
    let palette = Palette { on: style.color };
    let w = style.width;
    let mut lines: Vec<String> = Vec::new();
    let head = |t: &str| palette.paint(Paint::Heading, t);
    lines.push(format!(
        "Verdict: {}",
        palette.paint(verdict_paint(c.verdict), c.verdict.as_str())
    ));
    lines.extend(wrap(
        &format!(
            "before: {} · after: {}",
            inputs_text(&c.before.inputs),
            inputs_text(&c.after.inputs)
        ),
        w,
        "  ",
        "    ",
    ));
    for r in &c.reasons {
        lines.extend(wrap(&printable(r), w, "  - ", "    "));
    }
    lines.push(String::new());
    lines.push(head(
        "Per host (shares and rates, so captures of different lengths compare)",
    ));
    figure_lines(c, w, palette, &mut lines);
    lines.push(String::new());
    lines.push(head("Findings"));
    finding_lines(c, w, palette, &mut lines);
    lines.push(String::new());
    lines.push(head("Plans"));
    plan_lines(c, w, &mut lines);
    let mut out = lines.join("\n");
    out.push('\n');
    out.into_bytes()
}

/// The table's figures per host, before and after, with the columns hidden to fit `w`.
fn figure_lines(c: &Comparison, w: usize, palette: Palette, lines: &mut Vec<String>) {
    let mut cols = vec![
        Column::new("host").shrink(Fit::Middle, 12, 0),
        Column::new("side"),
    ];
    for (i, h) in HEADERS.iter().enumerate() {
        let col = Column::new(h).right();
        cols.push(match i {
            5 => col.drop_at(0),
            7 => col.drop_at(1),
            6 => col.drop_at(2),
            1 => col.drop_at(3),
            _ => col,
        });
    }
    let mut g = Grid::new(cols);
    for (host, side, f) in rows(c) {
        let mut row: Vec<Cell> = vec![host.into(), painted(side, Paint::Dim)];
        match f {
            Some(f) => row.extend(figure_cells(f).into_iter().map(Cell::from)),
            None => row.extend((0..HEADERS.len()).map(|_| Cell::from("—"))),
        }
        g.push(row);
    }
    let laid = g.render(w, "", palette);
    lines.extend(laid.lines);
    if !laid.dropped.is_empty() {
        lines.extend(wrap(
            &format!(
                "(hidden to fit {w} columns: {}; --format markdown shows every column)",
                laid.dropped.join(", ")
            ),
            w,
            "",
            " ",
        ));
    }
}

/// The findings resolved, new and persisting, in that order.
fn finding_groups(c: &Comparison) -> [(&'static str, &Vec<FindingRef>); 3] {
    [
        ("resolved", &c.findings.resolved),
        ("new", &c.findings.new),
        ("persisting", &c.findings.persisting),
    ]
}

/// The table's findings, one wrapped line each, its severity painted.
fn finding_lines(c: &Comparison, w: usize, palette: Palette, lines: &mut Vec<String>) {
    let groups = finding_groups(c);
    if groups.iter().all(|(_, v)| v.is_empty()) {
        lines.push("  none on either side".into());
    }
    for (name, list) in groups {
        for f in list.iter() {
            let label = format!("[{}]", severity_word(f.severity));
            let first = format!("  {name}: {label} ");
            let mut l = wrap(
                &format!("{}: {}", finding_text(f), printable(&f.summary)),
                w,
                &first,
                "      ",
            );
            if palette.on {
                if let Some(x) = l.first_mut() {
                    *x = x.replacen(
                        &label,
                        &palette.paint(Paint::Severity(f.severity), &label),
                        1,
                    );
                }
            }
            lines.extend(l);
        }
    }
}

/// The table's plans, before → after, of the hosts that have one on either side.
fn plan_lines(c: &Comparison, w: usize, lines: &mut Vec<String>) {
    for h in &c.hosts {
        if h.plan_before.is_none() && h.plan_after.is_none() {
            continue;
        }
        let changed = if h.recommendation_changed {
            "changed"
        } else {
            "unchanged"
        };
        lines.extend(wrap(
            &format!(
                "{}: {} → {} ({changed})",
                printable(&h.host),
                plan_text(h.plan_before.as_ref()),
                plan_text(h.plan_after.as_ref())
            ),
            w,
            "  ",
            "    ",
        ));
    }
    if c.hosts
        .iter()
        .all(|h| h.plan_before.is_none() && h.plan_after.is_none())
    {
        lines.push("  no host was rate-limited on either side".into());
    }
}

pub fn markdown(c: &Comparison) -> Vec<u8> {
    let mut out = String::new();
    let _ = writeln!(out, "## toomany compare: {}\n", c.verdict.as_str());
    let _ = writeln!(
        out,
        "Before: {} · after: {}\n",
        prose(&inputs_text(&c.before.inputs)),
        prose(&inputs_text(&c.after.inputs))
    );
    for r in &c.reasons {
        let _ = writeln!(out, "- {}", prose(r));
    }
    let _ = writeln!(out, "\n<sub>Rule: {}.</sub>\n", prose(c.rule));
    let _ = writeln!(out, "### Per host\n");
    let mut header: Vec<(&str, bool)> = vec![("host", false), ("side", false)];
    header.extend(HEADERS.iter().map(|h| (*h, true)));
    let rows: Vec<Vec<String>> = rows(c)
        .into_iter()
        .map(|(host, side, f)| {
            let mut r = vec![host, side.to_string()];
            match f {
                Some(f) => r.extend(figure_cells(f)),
                None => r.extend((0..HEADERS.len()).map(|_| "—".to_string())),
            }
            r
        })
        .collect();
    md_table(&mut out, &header, &rows);
    let _ = writeln!(out, "### Findings\n");
    let mut any = false;
    for (name, list) in finding_groups(c) {
        for f in list.iter() {
            any = true;
            let _ = writeln!(
                out,
                "- **{name}** [{}] {}: {}",
                severity_word(f.severity),
                prose(&finding_text(f)),
                prose(&f.summary)
            );
        }
    }
    if !any {
        let _ = writeln!(out, "None on either side.");
    }
    let _ = writeln!(out, "\n### Plans\n");
    md_plans(c, &mut out);
    out.into_bytes()
}

/// The Markdown plans: a table of the hosts that have one on either side.
fn md_plans(c: &Comparison, out: &mut String) {
    let plan_rows: Vec<Vec<String>> = c
        .hosts
        .iter()
        .filter(|h| h.plan_before.is_some() || h.plan_after.is_some())
        .map(|h| {
            vec![
                h.host.clone(),
                plan_text(h.plan_before.as_ref()),
                plan_text(h.plan_after.as_ref()),
                if h.recommendation_changed {
                    "yes"
                } else {
                    "no"
                }
                .into(),
            ]
        })
        .collect();
    if plan_rows.is_empty() {
        let _ = writeln!(out, "No host was rate-limited on either side.");
    } else {
        md_table(
            out,
            &[
                ("host", false),
                ("before", false),
                ("after", false),
                ("changed", false),
            ],
            &plan_rows,
        );
    }
}

pub fn json(c: &Comparison) -> Vec<u8> {
    let mut v = serde_json::to_vec_pretty(c).unwrap_or_else(|e| {
        format!("{{\"error\":\"cannot serialise the comparison: {e}\"}}").into_bytes()
    });
    v.push(b'\n');
    v
}
