//! `toomany check IN.har`: strict validation against the HAR 1.2 spec (1.3 when the file says
//! so), entry by entry, with each deviation's location and field (see `crate::check`).

use super::{Error, Outcome};
use crate::check::{self, CheckReport};
use crate::cli::{CheckArgs, OutputFormat};
use crate::ingest::source;
use crate::output;

pub fn run(args: CheckArgs, ui: crate::console::Notices) -> Outcome {
    let src = &args.input;
    let opened = source::open(src).map_err(|e| Error::fatal(format!("{src}: {e}")))?;
    let prefix = opened.prefix.clone();
    let report = check::check_read(&prefix, opened.into_reader(), src, args.max_issues)
        .map_err(|e| Error::fatal(format!("{src}: {e}")))?;
    // Values check could not hold whole: located, never quoted (also in the JSON report).
    for w in &report.warnings {
        let field = if w.field.is_empty() {
            String::new()
        } else {
            format!(" {}", w.field)
        };
        ui.line(format_args!(
            "{src}: warning: {}{field}: {}",
            w.at, w.problem
        ));
    }
    let bytes = match args.format {
        OutputFormat::Json => {
            let mut b = serde_json::to_vec_pretty(&report).expect("serializes");
            b.push(b'\n');
            b
        }
        OutputFormat::Table => render_table(&report).into_bytes(),
    };
    output::to_stdout(&bytes).map_err(|e| Error::fatal(format!("cannot write to stdout: {e}")))?;
    Ok(if report.deviation_count > 0 { 1 } else { 0 })
}

fn render_table(r: &CheckReport) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let mut t = comfy_table::Table::new();
    t.load_preset(comfy_table::presets::UTF8_HORIZONTAL_ONLY);
    t.remove_style(comfy_table::TableComponent::HorizontalLines);
    t.remove_style(comfy_table::TableComponent::MiddleIntersections);
    t.set_header(vec!["where", "field", "problem"]);
    for d in &r.deviations {
        t.add_row(vec![d.at.clone(), d.field.clone(), d.problem.clone()]);
    }
    if !r.deviations.is_empty() {
        let _ = writeln!(out, "{t}");
    }
    let kinds = kinds(r);
    if kinds.len() > 1 && r.deviations.len() > 10 {
        let _ = writeln!(out, "By kind (of those listed):");
        for (n, field, problem) in kinds.iter().take(8) {
            let _ = writeln!(out, "  {n:>6} × {field}: {problem}");
        }
    }
    let _ = writeln!(
        out,
        "{}: HAR {} checked against {}: {} entries, {} with deviations; {} deviation(s){}",
        r.source,
        r.version.as_deref().unwrap_or("(no version)"),
        r.checked_against,
        r.entries,
        r.entries_with_deviations,
        r.deviation_count,
        if r.deviation_count > r.deviations.len() {
            format!(
                " ({} shown; --max-issues N or --format json lists more)",
                r.deviations.len()
            )
        } else {
            String::new()
        }
    );
    if r.deviation_count > 0 && r.entries > 0 {
        let _ = writeln!(
            out,
            "toomany analyze reads this file anyway; other tools may reject it."
        );
    }
    out
}

/// Deviations grouped by field (array indices dropped) and problem, most frequent first.
fn kinds(r: &CheckReport) -> Vec<(usize, String, String)> {
    let mut counts: Vec<(usize, String, String)> = Vec::new();
    for d in &r.deviations {
        let field = strip_indices(&d.field);
        match counts
            .iter_mut()
            .find(|(_, f, p)| *f == field && *p == d.problem)
        {
            Some(c) => c.0 += 1,
            None => counts.push((1, field, d.problem.clone())),
        }
    }
    counts.sort_by_key(|c| std::cmp::Reverse(c.0));
    counts
}

/// `request.cookies[3].sameSite` → `request.cookies[].sameSite`.
fn strip_indices(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    let mut in_index = false;
    for c in field.chars() {
        match c {
            '[' => {
                in_index = true;
                out.push('[');
            }
            ']' => {
                in_index = false;
                out.push(']');
            }
            _ if in_index => {}
            _ => out.push(c),
        }
    }
    out
}
