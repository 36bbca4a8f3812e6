//! `retry_after_not_exposed`: a browser page asked another origin, got a 429 or 503 with a
//! Retry-After, and the response did not let the page read it. The HAR shows the header, but
//! a cross-origin fetch() exposes only the CORS-safelisted response headers and those named in
//! `Access-Control-Expose-Headers` (`*` only for requests without credentials); Retry-After is
//! not safelisted. So the page's retry code cannot honour the wait, however well written.
//! Without a matching `Access-Control-Allow-Origin` the page cannot even read the status.
//! (What counts as cross-origin and exposed: [`crate::attribute::cors`].)

use super::{Cx, Detector, Finding, Placed, Severity, Step};
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
}

#[derive(Debug, Default)]
pub struct NotExposed {
    hosts: BTreeMap<u32, Host>,
}

impl Detector for NotExposed {
    fn step(&mut self, s: &Step, cx: &Cx) {
        let ev = s.ev;
        if ev.status != 429 && ev.status != 503 {
            return;
        }
        let Some(row) = cx.row(ev) else { return };
        if row.retry_after.raw.is_none() {
            return;
        }
        let Some(c) = row.cors.as_deref() else { return };
        if c.retry_after_exposed {
            return;
        }
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
    let summary = format!(
        "{responses} from {host} to a browser page on another origin ({from}) carried Retry-After, but the response {why}: the page's JavaScript cannot read the wait even though the capture shows it. Expose it (`Access-Control-Expose-Headers: Retry-After`{}), or make the client fall back to exponential backoff with jitter when the header is unreadable.",
        if h.unreadable > 0 {
            ", with Access-Control-Allow-Origin for the page"
        } else {
            ""
        }
    );
    Finding::new(
        "retry_after_not_exposed",
        Severity::Warning,
        summary,
        json!({
            "host": host,
            "responses": n,
            "unreadable_responses": h.unreadable,
            "credentialed_wildcard": h.wildcard_with_credentials,
            "page_origins": h.origins,
            "examples": h.examples,
        }),
    )
}
