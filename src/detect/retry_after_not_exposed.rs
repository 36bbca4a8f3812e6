//! `retry_after_not_exposed`: a browser page asked another origin, got a 429 or 503 with a
//! Retry-After, the response did not let the page read it, **and the page then retried before
//! the wait had elapsed**. The HAR shows the header, but a cross-origin fetch() exposes only
//! the CORS-safelisted response headers and those named in `Access-Control-Expose-Headers`
//! (`*` only for requests without credentials); Retry-After is not safelisted. So the page's
//! retry code cannot honour the wait, however well written. Without a matching
//! `Access-Control-Allow-Origin` the page cannot even read the status.
//! (What counts as cross-origin and exposed: [`crate::attribute::cors`].)
//!
//! Why only when a retry came early: a page that backs off at least as long as the wait
//! anyway (or does not retry) behaves correctly, and issue 11 asks for findings only for what
//! is wrong. The header still being unreadable is said in the evidence of the finding when
//! it fires, and `ignored_retry_after` counts the hidden ones among its early retries.
//! "Early" is `ignored_retry_after`'s rule: before 90 % of the wait (less 50 ms, or 1 s on
//! whole-second timestamps), measured from the end of the refused response.

use super::{median, r3, seconds_text, Cx, Detector, Finding, Placed, Severity, Step};
use crate::detect::kept::Row;
use crate::model::event::Event;
use crate::stats::Samples;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// Examples kept per host.
const EXAMPLES: usize = 3;
/// Page origins named per host.
const ORIGINS: usize = 5;

#[derive(Debug, Default)]
struct Host {
    hidden: usize,
    /// Of those, responses the page could not read at all (no matching Allow-Origin).
    unreadable: usize,
    /// Credentialed requests where `Access-Control-Expose-Headers: *` did not count.
    wildcard_with_credentials: usize,
    origins: Vec<String>,
    examples: Vec<Value>,
    /// Retries that followed a hidden response with a usable wait.
    retries: usize,
    /// Of those, retries sent before the wait had elapsed.
    early: usize,
    gaps: Samples,
    waits: Samples,
    early_examples: Vec<Value>,
}

#[derive(Debug, Default)]
pub struct NotExposed {
    hosts: BTreeMap<u32, Host>,
}

/// The response's Retry-After, when the page could not read it.
fn hidden(ev: &Event, row: &Row) -> bool {
    (ev.status == 429 || ev.status == 503)
        && row.retry_after.raw.is_some()
        && row.cors.as_deref().is_some_and(|c| !c.retry_after_exposed)
}

impl NotExposed {
    /// A retry of a response whose Retry-After the page could not read: early or not.
    fn retry(&mut self, s: &Step, cx: &Cx) {
        let Some(prev) = &s.link.prev else { return };
        let Some(row) = cx.row(&prev.ev) else { return };
        if !hidden(&prev.ev, row) {
            return;
        }
        let Some(wait) = row.retry_after.seconds.filter(|w| *w > 0.0) else {
            return;
        };
        let (Some(t), Some(e)) = (s.ev.start_s(), prev.ev.end_s()) else {
            return;
        };
        let rounding = if cx.coarse_time { 1.0 } else { 0.05 };
        let h = self.hosts.entry(s.ev.host).or_default();
        h.retries += 1;
        let gap = t - e;
        if gap < 0.9 * wait - rounding {
            let gap = gap.max(0.0);
            h.early += 1;
            h.gaps.push(gap);
            h.waits.push(wait);
            if h.early_examples.len() < EXAMPLES {
                h.early_examples.push(json!({
                    "retry": cx.at(s.ev),
                    "previous": cx.at(&prev.ev),
                    "retry_after_s": r3(wait),
                    "gap_s": r3(gap),
                }));
            }
        }
    }
}

impl Detector for NotExposed {
    fn step(&mut self, s: &Step, cx: &Cx) {
        self.retry(s, cx);
        let ev = s.ev;
        let Some(row) = cx.row(ev) else { return };
        if !hidden(ev, row) {
            return;
        }
        let Some(c) = row.cors.as_deref() else { return };
        let h = self.hosts.entry(ev.host).or_default();
        h.hidden += 1;
        if !c.readable {
            h.unreadable += 1;
        }
        let star = c
            .expose_headers
            .as_deref()
            .is_some_and(|l| l.split(',').any(|x| x.trim() == "*"));
        if star && c.credentialed {
            h.wildcard_with_credentials += 1;
        }
        if h.origins.len() < ORIGINS && !h.origins.contains(&c.page_origin) {
            h.origins.push(c.page_origin.clone());
        }
        if h.examples.len() < EXAMPLES {
            h.examples.push(json!({
                "at": cx.at(ev),
                "status": ev.status,
                "retry_after": row.retry_after.raw,
                "page_origin": c.page_origin,
                "request_origin": c.target_origin,
                "cross_origin_because": c.how_known,
                "credentials": c.credentialed,
                "access_control_allow_origin": c.allow_origin,
                "access_control_expose_headers": c.expose_headers,
            }));
        }
    }

    fn finish(&mut self, cx: &Cx, _earlier: &[Finding]) -> Vec<Placed> {
        let mut out = Vec::new();
        for (&id, h) in &self.hosts {
            // A page that waited anyway (or did not retry) did nothing wrong.
            if h.early == 0 || h.hidden == 0 {
                continue;
            }
            let host = cx.host(id).to_string();
            out.push(((host.clone(), 0), finding(&host, h)));
        }
        out
    }
}

fn finding(host: &str, h: &Host) -> Finding {
    let n = h.hidden;
    let responses = if n == 1 {
        "1 rate-limited response".to_string()
    } else {
        format!("{n} rate-limited responses")
    };
    let from = h.origins.join(", ");
    let why = if h.unreadable == n {
        "had no Access-Control-Allow-Origin for the page, so the browser withheld the whole response (the page saw a network error, not even the status)".to_string()
    } else if h.wildcard_with_credentials > 0 {
        "listed Retry-After neither by name nor by a wildcard that counts (the requests carried credentials, and `Access-Control-Expose-Headers: *` exposes nothing to those)".to_string()
    } else {
        "did not name Retry-After in Access-Control-Expose-Headers".to_string()
    };
    let (mg, mw) = (median(&h.gaps.sorted()), median(&h.waits.sorted()));
    let summary = format!(
        "{responses} from {host} to a browser page on another origin ({from}) carried Retry-After, but the response {why}: the page's JavaScript cannot read the wait even though the capture shows it, and {} of {} retries came before it had elapsed (median {} after a Retry-After of {}). Expose it (`Access-Control-Expose-Headers: Retry-After`{}), or make the client fall back to exponential backoff with jitter when the header is unreadable.",
        h.early,
        h.retries,
        seconds_text(mg),
        seconds_text(mw),
        if h.unreadable > 0 {
            ", with Access-Control-Allow-Origin for the page"
        } else {
            ""
        }
    );
    Finding::new(
        super::Kind::RetryAfterNotExposed,
        Severity::Warning,
        summary,
        json!({
            "host": host,
            "responses": n,
            "unreadable_responses": h.unreadable,
            "credentialed_wildcard": h.wildcard_with_credentials,
            "page_origins": h.origins,
            "examples": h.examples,
            "retries_after_hidden": h.retries,
            "early_retries": h.early,
            "median_gap_s": r3(mg),
            "median_retry_after_s": r3(mw),
            "early_examples": h.early_examples,
        }),
    )
}
