//! `ignored_retry_after`: a retry sent before the previous response's Retry-After had elapsed.
//! The wait is measured from the end of that response (its start when the duration is unknown,
//! which can only make the gap look longer). A retry counts as early when it came before 90 %
//! of the wait (less 50 ms for clock rounding).
//!
//! When the gaps match the Retry-After value read in milliseconds (`Retry-After: 12` → retry
//! after ~12 ms) for most early retries with a wait of ≥ 2 s, the finding says seconds were read
//! as milliseconds (RFC 9110 §10.2.3 defines delay-seconds).
//!
//! Reported per host when ≥ 2 retries came early and they are ≥ 20 % of the retries that
//! followed a Retry-After. Polls on their own cadence are not retries and are not judged.

use super::{at, end_s, median, r3, seconds_text, sort_f64, start_s, Context, Finding, Severity};
use crate::http::retry_after;
use serde_json::{json, Value};

struct Early {
    retry: usize,
    previous: usize,
    wait_s: f64,
    gap_s: f64,
}

/// Gap (ms) within [0.5, 1.5] × the Retry-After value (+20 ms): the value was read as ms.
fn looks_like_ms(e: &Early) -> bool {
    let gap_ms = e.gap_s * 1000.0;
    gap_ms >= 0.5 * e.wait_s && gap_ms <= 1.5 * e.wait_s + 20.0
}

/// A cross-origin browser request (it sent `Origin`) whose response did not list Retry-After in
/// `Access-Control-Expose-Headers`: the page's JavaScript could not read the header.
fn hidden_from_page(prev: &crate::model::Request) -> bool {
    let cross_origin = prev
        .request_headers
        .get("origin")
        .map(|o| !o.is_empty() && o != "null")
        .unwrap_or(false);
    let exposed = prev
        .response_headers
        .get_all("access-control-expose-headers")
        .any(|v| {
            v.split(',')
                .any(|h| h.trim().eq_ignore_ascii_case("retry-after") || h.trim() == "*")
        });
    cross_origin && !exposed
}

pub fn detect(cx: &Context) -> Vec<Finding> {
    let mut out = Vec::new();
    // Whole-second timestamps can shift a gap by up to a second.
    let rounding = if cx.coarse_time { 1.0 } else { 0.05 };
    for (host, idx) in &cx.by_host {
        let (host, idx) = (host.as_str(), idx.as_slice());
        let mut eligible = 0usize;
        let mut early: Vec<Early> = Vec::new();
        let mut raws: Vec<String> = Vec::new();
        let mut hidden_by_cors = 0usize;
        for &i in idx {
            let Some(p) = cx.attempts.previous(i) else {
                continue;
            };
            let prev = &cx.requests[p];
            let ra = retry_after::from_headers(&prev.response_headers, prev.started);
            let Some(wait) = ra.seconds.filter(|s| *s > 0.0) else {
                continue;
            };
            let (Some(t), Some(e)) = (start_s(&cx.requests[i]), end_s(prev)) else {
                continue;
            };
            eligible += 1;
            let gap = t - e;
            if gap < 0.9 * wait - rounding {
                if let Some(raw) = ra.raw {
                    if !raws.contains(&raw) && raws.len() < 5 {
                        raws.push(raw);
                    }
                }
                if hidden_from_page(prev) {
                    hidden_by_cors += 1;
                }
                early.push(Early {
                    retry: i,
                    previous: p,
                    wait_s: wait,
                    gap_s: gap.max(0.0),
                });
            }
        }
        if early.len() < 2 || (early.len() as f64) < 0.2 * eligible as f64 {
            continue;
        }
        let long: Vec<&Early> = early.iter().filter(|e| e.wait_s >= 2.0).collect();
        let ms_matches = long.iter().filter(|e| looks_like_ms(e)).count();
        let as_ms =
            !cx.coarse_time && ms_matches >= 2 && ms_matches as f64 >= 0.6 * long.len() as f64;
        let mut gaps: Vec<f64> = early.iter().map(|e| e.gap_s).collect();
        sort_f64(&mut gaps);
        let mut waits: Vec<f64> = early.iter().map(|e| e.wait_s).collect();
        sort_f64(&mut waits);
        let (mg, mw) = (median(&gaps), median(&waits));
        let mut summary = format!(
            "{} of {} retries to {host} came before the previous response's Retry-After had elapsed (median {} after a Retry-After of {})",
            early.len(),
            eligible,
            seconds_text(mg),
            seconds_text(mw)
        );
        if as_ms {
            summary.push_str(&format!(
                "; the gaps match the Retry-After value in milliseconds ({} → ~{} ms): the client read seconds as milliseconds",
                crate::units::fmt_num(mw),
                crate::units::fmt_num((mg * 1000.0).round())
            ));
        }
        if hidden_by_cors * 2 > early.len() {
            summary.push_str(&format!(
                "; for {hidden_by_cors} of them the browser hid Retry-After from the page (cross-origin, not listed in Access-Control-Expose-Headers), so the server should expose it"
            ));
        }
        summary.push('.');
        let severity = if as_ms || early.len() * 2 >= eligible {
            Severity::Critical
        } else {
            Severity::Warning
        };
        let examples: Vec<Value> = early
            .iter()
            .take(5)
            .map(|e| {
                json!({
                    "retry": at(&cx.requests[e.retry]),
                    "previous": at(&cx.requests[e.previous]),
                    "retry_after_s": r3(e.wait_s),
                    "gap_s": r3(e.gap_s),
                })
            })
            .collect();
        out.push(Finding::new(
            "ignored_retry_after",
            severity,
            summary,
            json!({
                "host": host,
                "retries_after_retry_after": eligible,
                "early": early.len(),
                "median_gap_s": r3(mg),
                "median_retry_after_s": r3(mw),
                "retry_after_values": raws,
                "seconds_read_as_milliseconds": as_ms && !cx.coarse_time,
                "hidden_from_page_by_cors": hidden_by_cors,
                "gaps_matching_value_in_ms": ms_matches,
                "examples": examples,
            }),
        ));
    }
    out
}
