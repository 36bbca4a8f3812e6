//! JSON: the report as-is, pretty-printed. The schema is documented in docs/report-schema.md.

use crate::attribute::Attribution;
use crate::http::retry_after::RetryAfter;
use crate::report::{InputSummary, RateLimited, Report, Summary};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::HashMap;
use std::io::Write;
use std::sync::Arc;

/// The report with its rate-limited list left empty: everything but the rows, in the report's
/// field order (it must follow [`Report`]'s; the tests compare the whole text).
#[derive(Serialize)]
struct Outline<'a> {
    schema_version: u32,
    generated_by: &'a str,
    inputs: &'a [InputSummary],
    summary: &'a Summary,
    rate_limited: &'a [RateLimited],
    findings: &'a [crate::detect::Finding],
    clients: &'a crate::detect::clients::ClientsSection,
    recommendation: &'a Option<crate::recommend::Recommendation>,
    recommendations: &'a [crate::recommend::Recommendation],
}

/// Rows rendered at once on the thread pool before they are written (bounds the memory).
const ROWS_AT_ONCE: usize = 1024;

/// Where the empty list stands in the outline: a key at the top level (the only lines indented
/// by two spaces that start with a quote; a string never holds a raw newline).
const EMPTY_ROWS: &[u8] = b"\n  \"rate_limited\": []";

/// Write the report to `w` as it serializes: a long incident's report lists tens of thousands
/// of rate-limited responses, and a buffer of the whole text (grown by doubling) was the largest
/// single allocation of a big analysis. The rows, most of the text, are rendered a batch at a
/// time on the thread pool (the serial tail of a big analysis was mostly this), then written in
/// order: the same bytes as serializing the report in one go.
pub fn write(report: &Report, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut w = std::io::BufWriter::with_capacity(1 << 16, w);
    let outline = Outline {
        schema_version: report.schema_version,
        generated_by: &report.generated_by,
        inputs: &report.inputs,
        summary: &report.summary,
        rate_limited: &[],
        findings: &report.findings,
        clients: &report.clients,
        recommendation: &report.recommendation,
        recommendations: &report.recommendations,
    };
    let head = serde_json::to_vec_pretty(&outline).map_err(std::io::Error::from)?;
    let at = memchr::memmem::find(&head, EMPTY_ROWS)
        .ok_or_else(|| std::io::Error::other("report outline without its rate-limited list"))?;
    // Up to and including the list's `[`.
    let split = at + EMPTY_ROWS.len() - 1;
    if report.rate_limited.is_empty() {
        w.write_all(&head)?;
    } else {
        w.write_all(&head[..split])?;
        let mut first = true;
        let mut all = report.rate_limited.iter();
        loop {
            let batch: Vec<RateLimited> = all.by_ref().take(ROWS_AT_ONCE).collect();
            if batch.is_empty() {
                break;
            }
            // A long incident repeats a few attributions and Retry-After values (shared, see
            // `RateLimited`): each pair is rendered once per batch, then spliced into its rows.
            type Pair<'r> = (&'r RetryAfter, &'r Attribution);
            let mut distinct: HashMap<(*const RetryAfter, *const Attribution), usize> =
                HashMap::new();
            let mut shared: Vec<Pair<'_>> = Vec::new();
            let which: Vec<usize> = batch
                .iter()
                .map(|r| {
                    let key = (Arc::as_ptr(&r.retry_after), Arc::as_ptr(&r.attribution));
                    *distinct.entry(key).or_insert_with(|| {
                        shared.push((&r.retry_after, &r.attribution));
                        shared.len() - 1
                    })
                })
                .collect();
            let tails: Vec<Vec<u8>> = shared
                .par_iter()
                .map(|&(ra, a)| row_tail(ra, a))
                .collect::<Result<_, _>>()
                .map_err(std::io::Error::from)?;
            let rows: Vec<Vec<u8>> = batch
                .par_iter()
                .zip(&which)
                .map(|(r, &k)| row_text(r, &tails[k]))
                .collect::<Result<_, _>>()
                .map_err(std::io::Error::from)?;
            for row in &rows {
                w.write_all(if first { b"\n    " } else { b",\n    " })?;
                first = false;
                w.write_all(row)?;
            }
        }
        if let Some(e) = report.rate_limited.read_error() {
            return Err(std::io::Error::other(e));
        }
        w.write_all(b"\n  ")?;
        w.write_all(&head[split..])?;
    }
    w.write_all(b"\n")?;
    w.flush()
}

/// The start of a row: its fields up to the status, in [`RateLimited`]'s field order (it
/// must follow it; the tests compare the whole text).
#[derive(Serialize)]
struct RowHead<'a> {
    source: &'a str,
    #[serde(flatten)]
    position: crate::model::Position,
    time: Option<chrono::DateTime<chrono::Utc>>,
    method: &'a str,
    url: &'a str,
    status: u16,
    #[serde(skip_serializing_if = "Option::is_none")]
    span: Option<&'a crate::model::trace::SpanRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    client: Option<&'a str>,
}

/// The rest of a row: its Retry-After and its attribution's fields (flattened).
#[derive(Serialize)]
struct RowTail<'a> {
    retry_after: &'a RetryAfter,
    #[serde(flatten)]
    attribution: &'a Attribution,
}

/// Pretty JSON's lines two levels deeper: the rows are elements of a list that is a field of
/// the report (pretty JSON has no raw newline inside a string, so every newline is the
/// printer's).
fn indent_into(out: &mut Vec<u8>, mut text: &[u8]) {
    while let Some(i) = memchr::memchr(b'\n', text) {
        out.extend_from_slice(&text[..=i]);
        out.extend_from_slice(b"    ");
        text = &text[i + 1..];
    }
    out.extend_from_slice(text);
}

/// A row's [`RowTail`] as the row holds it, indented: the lines between the object's braces
/// of the tail printed alone, without the final newline.
fn row_tail(ra: &RetryAfter, a: &Attribution) -> serde_json::Result<Vec<u8>> {
    let text = serde_json::to_vec_pretty(&RowTail {
        retry_after: ra,
        attribution: a,
    })?;
    // `{\n` … `\n}`: a tail always has fields.
    let inner = text
        .get(2..text.len().saturating_sub(2))
        .unwrap_or_default();
    let mut out = Vec::with_capacity(inner.len() + inner.len() / 4);
    indent_into(&mut out, inner);
    Ok(out)
}

/// One row as the report holds it: its [`RowHead`] printed and indented, then `tail` (its
/// [`row_tail`]).
fn row_text(r: &RateLimited, tail: &[u8]) -> serde_json::Result<Vec<u8>> {
    let head = serde_json::to_vec_pretty(&RowHead {
        source: &r.source,
        position: r.position,
        time: r.time,
        method: &r.method,
        url: &r.url,
        status: r.status,
        span: r.span.as_deref(),
        client: r.client.as_deref(),
    })?;
    // Less the closing `\n}`; the object goes on with the tail's fields.
    let head = head.get(..head.len().saturating_sub(2)).unwrap_or_default();
    let mut out = Vec::with_capacity(head.len() + tail.len() + 32);
    indent_into(&mut out, head);
    out.extend_from_slice(b",\n    ");
    out.extend_from_slice(tail);
    out.extend_from_slice(b"\n    }");
    Ok(out)
}

pub fn render(report: &Report) -> Vec<u8> {
    let mut out = Vec::new();
    write(report, &mut out).expect("report serializes");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::testkit::Scenario;

    /// The rows rendered apart and spliced in give the bytes of the report serialized whole.
    #[test]
    fn rows_rendered_apart_give_the_whole_reports_bytes() {
        for rows in [0usize, 1, 3, ROWS_AT_ONCE + 5] {
            let mut s = Scenario::new();
            let mut t = 0.0;
            for i in 0..rows + 20 {
                t += 0.25;
                let r = s.at(t).resp("Content-Type", "application/json");
                let url = format!("https://api.example.com/v1/items/{}", i % 7);
                if i < rows && i % 3 == 1 {
                    // Another attribution, so a batch splices several.
                    r.resp("Server", "cloudflare")
                        .resp("CF-RAY", "8a1b2c3d4e5f-AMS")
                        .excerpt("error code: 1015")
                        .get(&url, 429);
                } else if i < rows {
                    r.ra("3")
                        .excerpt("{\"error\":\"slow down\\nplease\"}")
                        .get(&url, 429);
                } else {
                    r.get(&url, 200);
                }
            }
            let report = crate::analyze::analyze(
                Vec::new(),
                &s.build(),
                &crate::analyze::AnalyzeOptions::default(),
            );
            assert_eq!(report.rate_limited.len(), rows);
            let layers: std::collections::BTreeSet<String> = report
                .rate_limited
                .iter()
                .map(|r| format!("{:?}", r.attribution.layer))
                .collect();
            assert!(rows < 3 || layers.len() >= 2, "{layers:?}");
            let mut whole = serde_json::to_vec_pretty(&report).unwrap();
            whole.push(b'\n');
            assert!(render(&report) == whole, "{rows} rows");
        }
    }
}
