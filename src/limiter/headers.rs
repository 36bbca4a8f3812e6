//! What a limiter's decision looks like on the wire: `Retry-After`, the rate-limit header
//! families and the body of a refusal. Shared by `mock` (real responses) and tests.
//!
//! - IETF, as in draft-ietf-httpapi-ratelimit-headers-11 (§3, §4): `RateLimit-Policy:
//!   "fixed-window";q=120;w=60` and `RateLimit: "fixed-window";r=57;t=42` — Structured-Fields
//!   Lists of Items whose value is a String; `q` quota, `w` window seconds, `qu` quota unit
//!   (`"concurrent-requests"` for a concurrency limit), `r` available quota, `t` effective window
//!   in seconds. The bucket size rides along as a vendor-prefixed parameter, `toomany-burst`
//!   ("Implementation- or service-specific parameters SHOULD be prefixed").
//! - `X-RateLimit-Limit/-Remaining/-Reset`, the reset as Unix epoch seconds (GitHub's
//!   convention; toomany's own parser reads both epoch and delta).
//! - `Retry-After` as delta-seconds rounded **up** (a rounded-down value invites an early
//!   retry) or as an IMF-fixdate at or after the instant (RFC 9110 §10.2.3); the draft asks that
//!   it not point earlier than the end of the effective window, and both come from one state.

use super::{Decision, Nanos, Quota, QuotaUnit, NS_PER_S};
use chrono::DateTime;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderStyle {
    /// `RateLimit` and `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers-11).
    Ietf,
    /// `X-RateLimit-Limit`, `-Remaining`, `-Reset` (epoch seconds).
    XRatelimit,
    Both,
    None,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryAfterStyle {
    /// Delta-seconds, rounded up.
    Seconds,
    /// An IMF-fixdate (HTTP-date).
    Date,
    /// An HTTP-date 30 s before the response's `Date`: a client must still wait (RFC 9110 gives
    /// it no meaning of "now"), not retry at once.
    Past,
    None,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyStyle {
    /// `application/problem+json` with the draft's `quota-exceeded` problem type.
    Json,
    Text,
    Html,
}

/// Whole seconds, rounded up.
pub fn ceil_s(ns: u64) -> u64 {
    ns.div_ceil(NS_PER_S)
}

/// An IMF-fixdate for `t` rounded up to the next whole second.
pub fn http_date_at_or_after(t: Nanos) -> String {
    let secs = ceil_s(t).min(i64::MAX as u64) as i64;
    match DateTime::from_timestamp(secs, 0) {
        Some(d) => crate::http::date::format_http_date(d),
        None => String::from("Fri, 31 Dec 9999 23:59:59 GMT"),
    }
}

/// An IMF-fixdate for `t`, truncated to the second (a response's own `Date`).
pub fn http_date(t: Nanos) -> String {
    match DateTime::from_timestamp((t / NS_PER_S).min(i64::MAX as u64) as i64, 0) {
        Some(d) => crate::http::date::format_http_date(d),
        None => String::from("Fri, 31 Dec 9999 23:59:59 GMT"),
    }
}

/// An HTTP-date 30 s before `now` ([`RetryAfterStyle::Past`]).
pub fn http_date_past(now: Nanos) -> String {
    http_date(now.saturating_sub(30 * NS_PER_S))
}

/// The `Retry-After` value for a refusal decided at `now`.
pub fn retry_after(d: &Decision, style: RetryAfterStyle, now: Nanos) -> Option<String> {
    let wait = d.retry_after_ns.filter(|_| !d.admitted)?;
    match style {
        RetryAfterStyle::Seconds => Some(ceil_s(wait).to_string()),
        RetryAfterStyle::Date => Some(http_date_at_or_after(now.saturating_add(wait))),
        RetryAfterStyle::Past => Some(http_date_past(now)),
        RetryAfterStyle::None => None,
    }
}

fn ietf(q: &Quota) -> [(String, String); 2] {
    let (policy, limit) = ietf_items(q, q.policy);
    [
        ("RateLimit-Policy".to_string(), policy),
        ("RateLimit".to_string(), limit),
    ]
}

/// One policy's items for `RateLimit-Policy` and `RateLimit`, named `name`; several limits are
/// one list each, items joined by `, ` (draft-11 §3, §4: Lists).
pub fn ietf_items(q: &Quota, name: &str) -> (String, String) {
    let mut policy = format!("\"{name}\";q={}", q.limit);
    if q.unit == QuotaUnit::ConcurrentRequests {
        policy.push_str(";qu=\"concurrent-requests\"");
    }
    if let Some(w) = q.window_s {
        policy.push_str(&format!(";w={w}"));
    }
    if let Some(b) = q.burst {
        policy.push_str(&format!(";toomany-burst={b}"));
    }
    let mut limit = format!("\"{name}\";r={}", q.remaining);
    if let Some(t) = q.reset_ns {
        limit.push_str(&format!(";t={}", ceil_s(t)));
    }
    (policy, limit)
}

fn x_ratelimit(q: &Quota, now: Nanos) -> Vec<(String, String)> {
    let mut h = vec![
        ("X-RateLimit-Limit".to_string(), q.limit.to_string()),
        ("X-RateLimit-Remaining".to_string(), q.remaining.to_string()),
    ];
    if let Some(t) = q.reset_ns {
        h.push((
            "X-RateLimit-Reset".to_string(),
            ceil_s(now.saturating_add(t)).to_string(),
        ));
    }
    h
}

/// Every limiter header of a response decided at `now` (Retry-After first, on refusals).
pub fn response_headers(
    d: &Decision,
    style: HeaderStyle,
    ra: RetryAfterStyle,
    now: Nanos,
) -> Vec<(String, String)> {
    let mut h = Vec::new();
    if let Some(v) = retry_after(d, ra, now) {
        h.push(("Retry-After".to_string(), v));
    }
    if matches!(style, HeaderStyle::Ietf | HeaderStyle::Both) {
        h.extend(ietf(&d.quota));
    }
    if matches!(style, HeaderStyle::XRatelimit | HeaderStyle::Both) {
        h.extend(x_ratelimit(&d.quota, now));
    }
    h
}

fn reason(status: u16) -> &'static str {
    match status {
        429 => "Too Many Requests",
        503 => "Service Unavailable",
        403 => "Forbidden",
        _ => "Rate Limited",
    }
}

/// The body of a refusal: (content type, text).
pub fn refusal_body(d: &Decision, status: u16, style: BodyStyle) -> (&'static str, String) {
    let wait = d.retry_after_ns.map(ceil_s);
    let detail = match wait {
        Some(s) => format!(
            "{} limit reached ({} per {}); retry in {s} s",
            d.quota.policy,
            d.quota.limit,
            window_words(&d.quota)
        ),
        None => format!(
            "{} limit reached ({} {}); retry when a request completes",
            d.quota.policy,
            d.quota.limit,
            window_words(&d.quota)
        ),
    };
    match style {
        BodyStyle::Json => {
            let mut v = serde_json::json!({
                "type": "https://iana.org/assignments/http-problem-types#quota-exceeded",
                "title": reason(status),
                "status": status,
                "detail": detail,
                "violated-policies": [d.quota.policy],
            });
            if let Some(s) = wait {
                v["retry_after_s"] = serde_json::Value::from(s);
            }
            ("application/problem+json", format!("{v}\n"))
        }
        BodyStyle::Text => (
            "text/plain; charset=utf-8",
            format!("{status} {}: {detail}\n", reason(status)),
        ),
        BodyStyle::Html => (
            "text/html; charset=utf-8",
            format!(
                "<html>\r\n<head><title>{status} {r}</title></head>\r\n<body>\r\n<center><h1>{status} {r}</h1></center>\r\n<p>{detail}</p>\r\n<hr><center>toomany mock</center>\r\n</body>\r\n</html>\r\n",
                r = reason(status)
            ),
        ),
    }
}

fn window_words(q: &Quota) -> String {
    match (q.unit, q.window_s) {
        (QuotaUnit::ConcurrentRequests, _) => "in flight".to_string(),
        (_, Some(1)) => "second".to_string(),
        (_, Some(60)) => "minute".to_string(),
        (_, Some(3600)) => "hour".to_string(),
        (_, Some(86_400)) => "day (resets 00:00 UTC)".to_string(),
        (_, Some(w)) => format!("{w} s"),
        (_, None) => "window".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use super::super::{parse_spec, Limiter};
    use super::*;
    use crate::http::{ratelimit, retry_after as ra_parse};
    use crate::model::Headers;

    fn decide(spec: &str, n: usize, at: Nanos) -> Decision {
        let mut l = Limiter::new(&parse_spec(spec).unwrap());
        let mut last = None;
        for _ in 0..n {
            last = Some(l.admit(at));
        }
        last.unwrap()
    }

    #[test]
    fn ietf_fields_follow_draft_11_syntax() {
        let at = T0 + 18 * NS_PER_S;
        let d = decide("fixed-window:120/min", 3, at);
        let h = response_headers(&d, HeaderStyle::Ietf, RetryAfterStyle::Seconds, at);
        assert_eq!(
            h,
            [
                (
                    "RateLimit-Policy".into(),
                    "\"fixed-window\";q=120;w=60".into()
                ),
                ("RateLimit".into(), "\"fixed-window\";r=117;t=42".into()),
            ]
        );
        let c = decide("concurrency:4", 1, at);
        let h = response_headers(&c, HeaderStyle::Ietf, RetryAfterStyle::Seconds, at);
        assert_eq!(h[0].1, "\"concurrency\";q=4;qu=\"concurrent-requests\"");
        assert_eq!(h[1].1, "\"concurrency\";r=3");
        let g = decide("gcra:2/s,burst=5", 1, at);
        let h = response_headers(&g, HeaderStyle::Ietf, RetryAfterStyle::Seconds, at);
        assert_eq!(h[0].1, "\"gcra\";q=2;w=1;toomany-burst=5");
    }

    #[test]
    fn refusals_carry_a_rounded_up_retry_after_in_both_forms() {
        // fixed window refused 18.25 s into the minute: 41.75 s left → "42".
        let at = T0 + 18_250 * super::super::NS_PER_MS;
        let d = decide("fixed-window:2/min", 3, at);
        assert!(!d.admitted);
        assert_eq!(
            retry_after(&d, RetryAfterStyle::Seconds, at).as_deref(),
            Some("42")
        );
        let date = retry_after(&d, RetryAfterStyle::Date, at).unwrap();
        assert_eq!(date, "Thu, 01 Jan 2026 00:01:00 GMT");
        // Read back by the analysis's own parser, from the response's Date.
        let parsed = ra_parse::parse(&date, crate::http::date::parse_http_date(&http_date(at)));
        assert_eq!(parsed.seconds, Some(42.0));
        assert!(retry_after(&d, RetryAfterStyle::None, at).is_none());
        // An admitted response never carries one.
        let ok = decide("fixed-window:2/min", 1, at);
        assert!(retry_after(&ok, RetryAfterStyle::Seconds, at).is_none());
    }

    #[test]
    fn headers_round_trip_through_the_ingest_parser() {
        let at = T0 + 10 * NS_PER_S;
        for spec in [
            "fixed-window:120/min",
            "sliding-window:120/min",
            "token-bucket:2/s,burst=5",
            "leaky-bucket:90/min,burst=3",
            "daily:1000",
        ] {
            let d = decide(spec, 2, at);
            for style in [HeaderStyle::Ietf, HeaderStyle::XRatelimit] {
                let h =
                    Headers::from_pairs(response_headers(&d, style, RetryAfterStyle::Seconds, at));
                let now = DateTime::from_timestamp((at / NS_PER_S) as i64, 0);
                let l = ratelimit::parse(&h, now).unwrap_or_else(|| panic!("{spec} {style:?}"));
                assert_eq!(l.limit, Some(d.quota.limit as f64), "{spec} {style:?}");
                assert_eq!(
                    l.remaining,
                    Some(d.quota.remaining as f64),
                    "{spec} {style:?}"
                );
                let reset = ceil_s(d.quota.reset_ns.unwrap()) as f64;
                assert_eq!(l.reset_seconds, Some(reset), "{spec} {style:?}");
            }
        }
    }

    #[test]
    fn bodies_name_the_policy_and_the_wait() {
        let at = T0;
        let d = decide("fixed-window:1/min", 2, at);
        let (ct, body) = refusal_body(&d, 429, BodyStyle::Json);
        assert_eq!(ct, "application/problem+json");
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["status"], 429);
        assert_eq!(v["retry_after_s"], 60);
        assert_eq!(v["violated-policies"][0], "fixed-window");
        let (_, text) = refusal_body(&d, 503, BodyStyle::Text);
        assert!(text.starts_with(
            "503 Service Unavailable: fixed-window limit reached (1 per minute); retry in 60 s"
        ));
        let (ct, html) = refusal_body(&d, 429, BodyStyle::Html);
        assert!(ct.starts_with("text/html"));
        assert!(html.contains("<title>429 Too Many Requests</title>"));
        let c = decide("concurrency:1", 2, at);
        let (_, text) = refusal_body(&c, 429, BodyStyle::Text);
        assert!(text.contains("retry when a request completes"), "{text}");
    }
}
