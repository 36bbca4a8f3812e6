//! The mock's request log: one canonical JSON line per request, in the field names the JSON-lines
//! reader (`src/ingest/jsonl.rs`) takes without `--map`, so `analyze` and `verify` read it
//! directly. Extra fields (`limiter`, `seq`, …) are for people and ignored by ingest.
//!
//! Request headers, the URL and the body are redacted before they are written (a log line is an
//! output like any other): credentials become `<redacted:…>` fingerprints, stable within one
//! run, so an idempotency key repeated across retries is still seen as one key.

use super::policy::{Limit, Outcome};
use crate::limiter::{headers::ceil_s, Nanos, NS_PER_MS, NS_PER_S};
use crate::redact::Redactor;
use chrono::{DateTime, SecondsFormat};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use std::borrow::Cow;

/// RFC 3339 with microseconds, UTC.
pub fn rfc3339(t: Nanos) -> String {
    let secs = (t / NS_PER_S) as i64;
    let nanos = (t % NS_PER_S) as u32;
    DateTime::from_timestamp(secs, nanos)
        .map(|d| d.to_rfc3339_opts(SecondsFormat::Micros, true))
        .unwrap_or_default()
}

/// Headers as a JSON object in first-seen order; a repeated name becomes a list of its values.
struct HeadersObject<'a>(Vec<(&'a str, Cow<'a, str>)>);

impl Serialize for HeadersObject<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let pairs = &self.0;
        let mut m = s.serialize_map(None)?;
        for (i, (n, v)) in pairs.iter().enumerate() {
            if pairs[..i].iter().any(|(p, _)| p == n) {
                continue; // written with its first occurrence
            }
            let all: Vec<&str> = pairs[i..]
                .iter()
                .filter(|(p, _)| p == n)
                .map(|(_, v)| v.as_ref())
                .collect();
            if all.len() == 1 {
                m.serialize_entry(n, v)?;
            } else {
                m.serialize_entry(n, &all)?;
            }
        }
        m.end()
    }
}

/// Everything one log line says.
pub struct Entry<'a> {
    pub arrival: Nanos,
    pub end: Nanos,
    pub method: &'a str,
    pub url: &'a str,
    pub status: u16,
    /// Request headers as received (redacted here).
    pub request_headers: &'a [(String, String)],
    pub response_headers: &'a [(String, String)],
    pub request_body: &'a [u8],
    pub client: &'a str,
    pub client_ip: &'a str,
    /// The limiter's decision and the limits it was made against.
    pub outcome: Option<(&'a Outcome, &'a [Limit])>,
    /// The body sent (refusals and faults; successes are not logged), cut to
    /// [`BODY_EXCERPT`] bytes.
    pub response_body: Option<&'a str>,
    /// The client hung up before the answer was sent.
    pub abandoned: bool,
    /// The fault injected, by name.
    pub fault: Option<&'a str>,
    pub preset: Option<&'a str>,
    pub in_flight_at_arrival: u64,
    pub conn_id: u64,
    pub seq: u64,
}

/// Longest response body kept in a line (the HAR reader's excerpt).
pub const BODY_EXCERPT: usize = crate::ingest::har::BODY_EXCERPT;

#[derive(Serialize)]
struct EachLimit<'a> {
    name: &'a str,
    cost: u64,
    remaining: u64,
    admits: bool,
}

/// The `limiter` object: the deciding limit's model and numbers, and with several limits (or a
/// cost) each one's cost, what it has left and whether it would have admitted.
#[derive(Serialize)]
struct LimiterLine<'a> {
    model: &'static str,
    decision: &'static str,
    remaining: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    retry_after_s: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    queued_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    limit: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    limits: Option<Vec<EachLimit<'a>>>,
}

fn limiter<'a>(o: &'a Outcome, limits: &'a [Limit]) -> LimiterLine<'a> {
    let d = o.binding();
    let several = limits.len() > 1;
    LimiterLine {
        model: limits[o.binding].spec.model_name(),
        decision: match (o.admitted, o.delay_ns > 0) {
            (false, _) => "refused",
            (true, true) => "delayed",
            (true, false) => "admitted",
        },
        remaining: d.quota.remaining,
        retry_after_s: o.retry_after_ns.filter(|_| !o.admitted).map(ceil_s),
        queued_ms: (o.delay_ns > 0).then_some(o.delay_ns / NS_PER_MS),
        limit: (several || limits[0].name != limits[0].spec.model_name())
            .then_some(limits[o.binding].name.as_str()),
        limits: (several || o.costs[0] != 1).then(|| {
            limits
                .iter()
                .zip(&o.decisions)
                .zip(&o.costs)
                .map(|((l, d), &cost)| EachLimit {
                    name: &l.name,
                    cost,
                    remaining: d.quota.remaining,
                    admits: d.admitted,
                })
                .collect()
        }),
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// One line, as written.
#[derive(Serialize)]
struct Line<'a> {
    time: String,
    method: &'a str,
    url: Cow<'a, str>,
    status: u16,
    duration_ms: f64,
    request_headers: HeadersObject<'a>,
    response_headers: HeadersObject<'a>,
    client: String,
    client_ip: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    request_body: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_body: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    limiter: Option<LimiterLine<'a>>,
    #[serde(skip_serializing_if = "is_false")]
    abandoned: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    fault: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    preset: Option<&'a str>,
    in_flight_at_arrival: u64,
    conn_id: u64,
    seq: u64,
}

pub fn line(e: &Entry, red: &Redactor) -> String {
    let req = e.request_headers.iter();
    let duration_ms = (e.end.saturating_sub(e.arrival)) as f64 / NS_PER_MS as f64;
    let l = Line {
        time: rfc3339(e.arrival),
        method: e.method,
        url: red.url_cow(e.url),
        status: e.status,
        duration_ms: (duration_ms * 1000.0).round() / 1000.0,
        request_headers: HeadersObject(
            req.map(|(n, v)| (n.as_str(), red.header_cow(n, v)))
                .collect(),
        ),
        response_headers: HeadersObject(
            e.response_headers
                .iter()
                .map(|(n, v)| (n.as_str(), Cow::Borrowed(v.as_str())))
                .collect(),
        ),
        client: red.text(e.client),
        client_ip: e.client_ip,
        // Only a fingerprint: equal bodies stay equal, the content never reaches the log.
        request_body: (!e.request_body.is_empty())
            .then(|| red.token(&String::from_utf8_lossy(e.request_body))),
        response_body: e.response_body.map(|b| red.excerpt(b, BODY_EXCERPT)),
        limiter: e.outcome.map(|(o, limits)| limiter(o, limits)),
        abandoned: e.abandoned,
        fault: e.fault,
        preset: e.preset,
        in_flight_at_arrival: e.in_flight_at_arrival,
        conn_id: e.conn_id,
        seq: e.seq,
    };
    let mut s = serde_json::to_string(&l).unwrap_or_default();
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_read_back_by_the_json_lines_ingest_without_flags() {
        let red = Redactor::random();
        let req = vec![
            (
                "Authorization".to_string(),
                "Bearer sk_live_abcdef1234567890".to_string(),
            ),
            ("Idempotency-Key".to_string(), "k-1".to_string()),
            ("Accept".to_string(), "a".to_string()),
            ("Accept".to_string(), "b".to_string()),
        ];
        let resp = vec![
            ("Retry-After".to_string(), "2".to_string()),
            (
                "RateLimit".to_string(),
                "\"fixed-window\";r=0;t=2".to_string(),
            ),
        ];
        let arrival = 1_767_225_600 * NS_PER_S + 123_456_789;
        let text = line(
            &Entry {
                arrival,
                end: arrival + 50_500_000,
                method: "POST",
                url: "http://127.0.0.1:8080/items?api_key=SECRETSECRETSECRET",
                status: 429,
                request_headers: &req,
                response_headers: &resp,
                request_body: b"{\"card\":\"4242\"}",
                client: "worker-1",
                client_ip: "127.0.0.1",
                outcome: None,
                response_body: Some("{\"error\":\"slow down\"}"),
                abandoned: false,
                fault: None,
                preset: None,
                in_flight_at_arrival: 1,
                conn_id: 3,
                seq: 7,
            },
            &red,
        );
        assert!(!text.contains("sk_live_abcdef1234567890"), "{text}");
        assert!(!text.contains("SECRETSECRETSECRET"), "{text}");
        // Not "4242": the body's fingerprint (random key, hex) may contain it.
        assert!(!text.contains("card"), "{text}");
        assert!(text.contains("2026-01-01T00:00:00.123456Z"), "{text}");
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("mock.jsonl");
        std::fs::write(&p, &text).unwrap();
        let opts = crate::ingest::Options::new(Redactor::random());
        let got = crate::ingest::read_input(p.to_str().unwrap(), &opts);
        assert_eq!(got.summary.warning_count, 0, "{:?}", got.summary.warnings);
        let r = &got.requests[0];
        assert_eq!(r.method, "POST");
        assert_eq!(r.status, 429);
        assert_eq!(r.duration_ms, Some(50.5));
        assert_eq!(r.response_headers.get("retry-after"), Some("2"));
        assert!(r
            .body_excerpt
            .as_deref()
            .is_some_and(|b| b.contains("slow down")));
        assert_eq!(r.request_headers.get_all("accept").count(), 2);
        assert!(r.request_headers.get("idempotency-key").is_some());
        assert!(r.request_body_fingerprint.is_some());
        assert_eq!(
            r.started.unwrap().timestamp_nanos_opt().unwrap() as u64,
            arrival / 1000 * 1000
        );
    }
}
