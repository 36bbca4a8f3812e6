//! `toomany check IN.har`: strict validation against the HAR 1.2 spec (1.3 when the file says
//! so), entry by entry, with each deviation's location and field (see `crate::check`).

use super::{Error, Outcome};
use crate::check::{self, CheckReport};
use crate::cli::{CheckArgs, OutputFormat};
use crate::ingest::{source, Format};
use crate::output;
use std::io::Read;

pub fn run(args: CheckArgs) -> Outcome {
    let src = &args.input;
    let opened = source::open(src).map_err(|e| Error::fatal(format!("{src}: {e}")))?;
    let jsonl = matches!(
        source::sniff(&opened.prefix, src),
        Ok(source::Sniffed {
            format: Format::Jsonl,
            ..
        })
    );
    if let Some(why) = check::not_a_har(&opened.prefix, jsonl) {
        return Err(Error::fatal(format!("{src}: {why}")));
    }
    let mut bytes = Vec::new();
    opened
        .into_reader()
        .read_to_end(&mut bytes)
        .map_err(|e| Error::fatal(format!("{src}: cannot read: {e}")))?;
    let text = std::str::from_utf8(&bytes).map_err(|e| {
        Error::fatal(format!(
            "{src}: invalid UTF-8 at byte {} of the (decompressed) input; a HAR is UTF-8 text",
            e.valid_up_to()
        ))
    })?;
    let mut checker = check::Checker::new(args.max_issues);
    let body = match strip_jsonp(text) {
        Some(inner) => {
            checker.document("wrapped in a JSONP/HARP callback; a HAR file is plain JSON");
            inner
        }
        None => text,
    };
    let doc: serde_json::Value = serde_json::from_str(body).map_err(|e| {
        Error::fatal(format!(
            "{src}: not valid JSON: {}",
            crate::redact::scrub_message(&e.to_string())
        ))
    })?;
    check::walk_value(&doc, &mut checker);
    let report = checker.finish(src);
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

/// The document inside `callback( … );`, when wrapped.
fn strip_jsonp(text: &str) -> Option<&str> {
    let t = text.trim_start();
    if t.starts_with('{') {
        return None;
    }
    let start = t.find('(')? + 1;
    let end = t.rfind(')').filter(|&e| e > start)?;
    Some(&t[start..end])
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
    if r.deviation_count > 0 {
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
