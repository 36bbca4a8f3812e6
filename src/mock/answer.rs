//! What the mock answers for one decision: status, headers and body, in the shape of a preset
//! ([`super::preset`]) or the generic shape (`--headers`, `--body`, `--status`). A pure function
//! of the decision, shared by the server and the tests that hold presets to attribution.

use super::policy::{Limit, Outcome};
use super::preset::{Fill, Preset};
use crate::limiter::headers::{self, BodyStyle, HeaderStyle, RetryAfterStyle};
use crate::limiter::{headers::ceil_s, Nanos};

/// How refusals and rate-limit headers look.
#[derive(Debug, Clone, Copy)]
pub enum Shape {
    Preset(&'static Preset),
    Generic {
        headers: HeaderStyle,
        body: BodyStyle,
        status: u16,
    },
}

impl Shape {
    pub fn status(&self) -> u16 {
        match self {
            Shape::Preset(p) => p.status,
            Shape::Generic { status, .. } => *status,
        }
    }
}

/// A response before it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

/// What one answer is built from.
pub struct Ask<'a> {
    pub shape: Shape,
    /// `--retry-after` when given; else the preset's form (or delta-seconds).
    pub retry_after: Option<RetryAfterStyle>,
    pub outcome: &'a Outcome,
    pub limits: &'a [Limit],
    /// When the limits decided (waits and resets count from here).
    pub now: Nanos,
    /// When the answer is sent (its `Date`).
    pub date: Nanos,
    pub request_id: &'a str,
    pub client_ip: &'a str,
    pub seq: u64,
    pub method: &'a str,
    pub path: &'a str,
}

/// The answer to a decided request.
pub fn answer(a: &Ask) -> Answer {
    let mut h = Vec::new();
    let refused = !a.outcome.admitted;
    let (status, content_type, body) = match a.shape {
        Shape::Preset(p) => preset_parts(a, p, refused, &mut h),
        Shape::Generic {
            headers: style,
            body,
            status,
        } => generic_parts(a, style, body, status, refused, &mut h),
    };
    h.push(("Date".into(), headers::http_date(a.date)));
    h.push(("Content-Type".into(), content_type));
    Answer {
        status,
        headers: h,
        body,
    }
}

fn ok_body(a: &Ask) -> String {
    let v = serde_json::json!({ "ok": true, "seq": a.seq, "method": a.method, "path": a.path });
    format!("{v}\n")
}

/// A Retry-After in a form the user asked for (`--retry-after`), from the outcome's wait.
fn forced_retry_after(a: &Ask, style: RetryAfterStyle) -> Option<String> {
    let wait = a.outcome.retry_after_ns?;
    match style {
        RetryAfterStyle::Seconds => Some(ceil_s(wait).to_string()),
        RetryAfterStyle::Date => Some(headers::http_date_at_or_after(a.now.saturating_add(wait))),
        RetryAfterStyle::Past => Some(headers::http_date_past(a.date)),
        RetryAfterStyle::None => None,
    }
}

fn preset_parts(
    a: &Ask,
    p: &Preset,
    refused: bool,
    h: &mut Vec<(String, String)>,
) -> (u16, String, String) {
    let fill = Fill {
        now: a.now,
        outcome: a.outcome,
        limits: a.limits,
        request_id: a.request_id,
        client_ip: a.client_ip,
    };
    if !refused {
        fill.headers(p, h);
        return (200, "application/json".into(), ok_body(a));
    }
    let ra = match a.retry_after {
        Some(style) => forced_retry_after(a, style),
        None => fill.retry_after(p),
    };
    if let Some(v) = ra {
        h.push(("Retry-After".into(), v));
    }
    fill.headers(p, h);
    for (n, v) in p.refusal {
        h.push((n.to_string(), fill.text(p, v)));
    }
    (p.status, p.content_type.to_string(), fill.text(p, p.body))
}

fn generic_parts(
    a: &Ask,
    style: HeaderStyle,
    body: BodyStyle,
    status: u16,
    refused: bool,
    h: &mut Vec<(String, String)>,
) -> (u16, String, String) {
    let d = a.outcome.binding();
    let ra = a.retry_after.unwrap_or(RetryAfterStyle::Seconds);
    if a.limits.len() == 1 {
        // Policy name = the model, as the mock always wrote it.
        let mut d = d.clone();
        d.retry_after_ns = a.outcome.retry_after_ns;
        h.extend(headers::response_headers(&d, style, ra, a.now));
    } else {
        if refused {
            if let Some(v) = forced_retry_after(a, ra) {
                h.push(("Retry-After".into(), v));
            }
        }
        if matches!(style, HeaderStyle::Ietf | HeaderStyle::Both) {
            let items: Vec<(String, String)> = a
                .limits
                .iter()
                .zip(&a.outcome.decisions)
                .map(|(l, d)| headers::ietf_items(&d.quota, &l.name))
                .collect();
            let join = |f: fn(&(String, String)) -> &String| {
                items.iter().map(f).cloned().collect::<Vec<_>>().join(", ")
            };
            h.push(("RateLimit-Policy".into(), join(|i| &i.0)));
            h.push(("RateLimit".into(), join(|i| &i.1)));
        }
        if matches!(style, HeaderStyle::XRatelimit | HeaderStyle::Both) {
            let only =
                headers::response_headers(d, HeaderStyle::XRatelimit, RetryAfterStyle::None, a.now);
            h.extend(only);
        }
    }
    if !refused {
        return (200, "application/json".into(), ok_body(a));
    }
    let mut d = d.clone();
    d.retry_after_ns = a.outcome.retry_after_ns;
    let (ct, text) = headers::refusal_body(&d, status, body);
    (status, ct.to_string(), text)
}
