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
use serde_json::{json, Map, Value};

/// RFC 3339 with microseconds, UTC.
pub fn rfc3339(t: Nanos) -> String {
    let secs = (t / NS_PER_S) as i64;
    let nanos = (t % NS_PER_S) as u32;
    DateTime::from_timestamp(secs, nanos)
        .map(|d| d.to_rfc3339_opts(SecondsFormat::Micros, true))
        .unwrap_or_default()
}

/// Headers as a JSON object; a repeated name becomes a list of its values.
pub fn headers_object<'a>(pairs: impl IntoIterator<Item = (&'a str, String)>) -> Value {
    let mut m = Map::new();
    for (n, v) in pairs {
        match m.get_mut(n) {
            Some(Value::Array(a)) => a.push(Value::from(v)),
            Some(old) => {
                let first = old.take();
                *old = Value::Array(vec![first, Value::from(v)]);
            }
            None => {
                m.insert(n.to_string(), Value::from(v));
            }
        }
    }
    Value::Object(m)
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

/// The `limiter` object: the deciding limit's model and numbers, and with several limits each
/// one's cost, what it has left and whether it would have admitted.
fn limiter(o: &Outcome, limits: &[Limit]) -> Value {
    let d = o.binding();
    let decision = match (o.admitted, o.delay_ns > 0) {
        (false, _) => "refused",
        (true, true) => "delayed",
        (true, false) => "admitted",
    };
    let mut l = json!({
        "model": limits[o.binding].spec.model_name(),
        "decision": decision,
        "remaining": d.quota.remaining,
    });
    if let Some(ra) = o.retry_after_ns.filter(|_| !o.admitted) {
        l["retry_after_s"] = Value::from(ceil_s(ra));
    }
    if o.delay_ns > 0 {
        l["queued_ms"] = Value::from(o.delay_ns / NS_PER_MS);
    }
    if limits.len() > 1 || limits[0].name != limits[0].spec.model_name() {
        l["limit"] = Value::from(limits[o.binding].name.as_str());
    }
    if limits.len() > 1 || o.costs[0] != 1 {
        let each: Vec<Value> = limits
            .iter()
            .zip(&o.decisions)
            .zip(&o.costs)
            .map(|((lim, d), cost)| {
                json!({"name": lim.name, "cost": cost, "remaining": d.quota.remaining, "admits": d.admitted})
            })
            .collect();
        l["limits"] = Value::from(each);
    }
    l
}

pub fn line(e: &Entry, red: &Redactor) -> String {
    let req_h = headers_object(
        e.request_headers
            .iter()
            .map(|(n, v)| (n.as_str(), red.header(n, v))),
    );
    let resp_h = headers_object(
        e.response_headers
            .iter()
            .map(|(n, v)| (n.as_str(), v.clone())),
    );
    let duration_ms = (e.end.saturating_sub(e.arrival)) as f64 / NS_PER_MS as f64;
    let mut v = json!({
        "time": rfc3339(e.arrival),
        "method": e.method,
        "url": red.url(e.url),
        "status": e.status,
        "duration_ms": (duration_ms * 1000.0).round() / 1000.0,
        "request_headers": req_h,
        "response_headers": resp_h,
        "client": red.text(e.client),
        "client_ip": e.client_ip,
    });
    if !e.request_body.is_empty() {
        // Only a fingerprint: equal bodies stay equal, the content never reaches the log.
        v["request_body"] = Value::from(red.token(&String::from_utf8_lossy(e.request_body)));
    }
    if let Some(b) = e.response_body {
        v["response_body"] = Value::from(red.excerpt(b, BODY_EXCERPT));
    }
    if let Some((o, limits)) = e.outcome {
        v["limiter"] = limiter(o, limits);
    }
    if e.abandoned {
        v["abandoned"] = Value::from(true);
    }
    if let Some(f) = e.fault {
        v["fault"] = Value::from(f);
    }
    if let Some(p) = e.preset {
        v["preset"] = Value::from(p);
    }
    v["in_flight_at_arrival"] = Value::from(e.in_flight_at_arrival);
    v["conn_id"] = Value::from(e.conn_id);
    v["seq"] = Value::from(e.seq);
    let mut s = v.to_string();
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
