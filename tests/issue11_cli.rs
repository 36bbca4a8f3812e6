//! Issue 11's findings from the command line: `retry_after_not_exposed` (a cross-origin fetch
//! with and without the exposing header, and a same-origin request that must not trigger) and
//! `nested_retries` (3 × 3 attempts triggers; 1 × 4 does not), on HAR files written to a
//! temporary directory.

mod common;

use common::analyze_json as analyze;
use serde_json::{json, Value};

fn findings<'a>(report: &'a Value, kind: &str) -> Vec<&'a Value> {
    report["findings"]
        .as_array()
        .expect("findings[]")
        .iter()
        .filter(|f| f["kind"] == kind)
        .collect()
}

fn ts(ms: u64) -> String {
    let t = chrono::DateTime::from_timestamp_millis(1_772_460_000_000 + ms as i64).expect("time");
    t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

fn headers(pairs: &[(&str, &str)]) -> Value {
    Value::Array(
        pairs
            .iter()
            .map(|(n, v)| json!({"name": n, "value": v}))
            .collect(),
    )
}

/// One HAR entry: `at_ms` after the base time, lasting 40 ms.
fn entry(at_ms: u64, url: &str, status: u16, req: &[(&str, &str)], resp: &[(&str, &str)]) -> Value {
    let body = if status == 429 {
        "{\"error\":\"rate limited\"}"
    } else {
        "{\"ok\":true}"
    };
    json!({
        "pageref": "page_1",
        "startedDateTime": ts(at_ms),
        "time": 40,
        "request": {"method": "GET", "url": url, "httpVersion": "HTTP/1.1", "headers": headers(req),
                    "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
        "response": {"status": status, "statusText": "", "httpVersion": "HTTP/1.1", "headers": headers(resp),
                     "cookies": [], "content": {"size": body.len(), "mimeType": "application/json", "text": body},
                     "redirectURL": "", "headersSize": -1, "bodySize": body.len()},
        "cache": {},
        "timings": {"send": 1, "wait": 38, "receive": 1}
    })
}

fn write_har(entries: Vec<Value>) -> (tempfile::TempDir, String) {
    let har = json!({"log": {"version": "1.2", "creator": {"name": "test", "version": "1"},
        "pages": [{"startedDateTime": ts(0), "id": "page_1", "title": "https://shop.example.org/cart",
                   "pageTimings": {}}],
        "entries": entries}});
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("capture.har");
    std::fs::write(&path, serde_json::to_vec(&har).expect("json")).expect("write");
    (dir, path.to_string_lossy().into_owned())
}

/// The page's own backoff: 2 s, well inside the 30 s it cannot read.
const EARLY_MS: u64 = 2_000;
/// A page that waits 31 s anyway.
const PATIENT_MS: u64 = 31_000;

/// A page on `page` calling `api`: eight successes, then three 429s with Retry-After: 30,
/// each retried `retry_after_ms` later, the 429s' CORS headers as given.
fn browser_capture(
    page: &str,
    api: &str,
    cors_on_429: &[(&str, &str)],
    retry_after_ms: u64,
) -> (tempfile::TempDir, String) {
    let req = [
        ("Origin", page),
        ("Referer", "https://shop.example.org/cart"),
        ("Sec-Fetch-Mode", "cors"),
        ("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0"),
    ];
    let ok = [
        ("Content-Type", "application/json"),
        ("Access-Control-Allow-Origin", page),
    ];
    let mut limited = vec![("Content-Type", "application/json"), ("Retry-After", "30")];
    limited.extend_from_slice(cors_on_429);
    let mut e = Vec::new();
    for i in 0..8 {
        e.push(entry(
            i * 2_000,
            &format!("{api}/v1/items/{i}"),
            200,
            &req,
            &ok,
        ));
    }
    for i in 0..3u64 {
        let url = format!("{api}/v1/prices/{i}");
        e.push(entry(20_000 + i * 100, &url, 429, &req, &limited));
        e.push(entry(
            20_000 + i * 100 + retry_after_ms,
            &url,
            200,
            &req,
            &ok,
        ));
    }
    write_har(e)
}

#[test]
fn a_cross_origin_fetch_that_cannot_read_retry_after_is_reported() {
    let page = "https://shop.example.org";
    let (_d, path) = browser_capture(
        page,
        "https://api.example.com",
        &[
            ("Access-Control-Allow-Origin", page),
            ("Access-Control-Expose-Headers", "X-Request-Id"),
        ],
        EARLY_MS,
    );
    let report = analyze(&path);
    let f = findings(&report, "retry_after_not_exposed");
    assert_eq!(f.len(), 1, "{:#}", report["findings"]);
    let f = f[0];
    assert_eq!(f["evidence"]["host"], "api.example.com");
    assert_eq!(f["evidence"]["responses"], 3);
    assert_eq!(f["evidence"]["page_origins"], json!([page]));
    let ex = &f["evidence"]["examples"][0];
    assert_eq!(ex["retry_after"], "30");
    assert_eq!(ex["access_control_expose_headers"], "X-Request-Id");
    assert_eq!(f["evidence"]["early_retries"], 3);
    assert_eq!(f["evidence"]["retries_after_hidden"], 3);
    let s = f["summary"].as_str().expect("summary");
    assert!(
        s.contains("Access-Control-Expose-Headers: Retry-After"),
        "{s}"
    );
    assert!(s.contains("backoff"), "{s}");
}

#[test]
fn exposing_retry_after_makes_it_readable_and_quiet() {
    let page = "https://shop.example.org";
    for expose in ["Retry-After", "x-request-id, retry-after", "*"] {
        let (_d, path) = browser_capture(
            page,
            "https://api.example.com",
            &[
                ("Access-Control-Allow-Origin", page),
                ("Access-Control-Expose-Headers", expose),
            ],
            EARLY_MS,
        );
        let report = analyze(&path);
        assert!(
            findings(&report, "retry_after_not_exposed").is_empty(),
            "Expose-Headers {expose}: {:#}",
            report["findings"]
        );
    }
}

#[test]
fn a_page_that_waits_anyway_gets_no_finding() {
    // Correct behaviour: the page cannot read the wait, but its own backoff outlasts it (and a
    // page whose response is unreadable altogether, no Allow-Origin, the same).
    let page = "https://shop.example.org";
    let unexposed = [
        ("Access-Control-Allow-Origin", page),
        ("Access-Control-Expose-Headers", "X-Request-Id"),
    ];
    for cors in [&unexposed[..], &[]] {
        let (_d, path) = browser_capture(page, "https://api.example.com", cors, PATIENT_MS);
        let report = analyze(&path);
        assert!(
            findings(&report, "retry_after_not_exposed").is_empty(),
            "{:#}",
            report["findings"]
        );
    }
}

#[test]
fn a_same_origin_request_is_not_a_cors_read() {
    // Browsers send Origin on same-origin requests too (POST, and fetch with mode cors).
    let origin = "https://api.example.com";
    let (_d, path) = browser_capture(origin, origin, &[], EARLY_MS);
    let report = analyze(&path);
    assert!(
        findings(&report, "retry_after_not_exposed").is_empty(),
        "{:#}",
        report["findings"]
    );
}

/// One logical request (the same GET) made `inner` times 200 ms apart, that round repeated
/// `outer` times 10 s apart, every attempt refused; around it, other successful calls.
fn nested_capture(inner: u64, outer: u64) -> (tempfile::TempDir, String) {
    let req = [("User-Agent", "report-worker/2.1 python-requests/2.32")];
    let ok = [("Content-Type", "application/json")];
    let limited = [("Content-Type", "application/json")];
    let mut e = Vec::new();
    for i in 0..6 {
        e.push(entry(
            i * 1_000,
            &format!("https://api.example.net/v2/jobs/{i}"),
            200,
            &req,
            &ok,
        ));
    }
    let t0 = 10_000;
    for round in 0..outer {
        for a in 0..inner {
            let at = t0 + round * 10_000 + a * 240;
            e.push(entry(
                at,
                "https://api.example.net/v2/report?month=2026-02",
                429,
                &req,
                &limited,
            ));
        }
    }
    let end = t0 + outer * 10_000 + 5_000;
    for i in 0..4 {
        e.push(entry(
            end + i * 1_000,
            &format!("https://api.example.net/v2/jobs/{}", 10 + i),
            200,
            &req,
            &ok,
        ));
    }
    write_har(e)
}

#[test]
fn three_sdk_attempts_inside_three_app_attempts_are_nested_retries() {
    let (_d, path) = nested_capture(3, 3);
    let report = analyze(&path);
    let f = findings(&report, "nested_retries");
    assert_eq!(f.len(), 1, "{:#}", report["findings"]);
    let ev = &f[0]["evidence"];
    assert_eq!(ev["inner_attempts"], 3);
    assert_eq!(ev["outer_attempts"], 3);
    assert_eq!(ev["attempts_per_request"], 9);
    assert_eq!(ev["cross_layer_cap"], 5);
    let s = f[0]["summary"].as_str().expect("summary");
    assert!(s.contains("3 × 3 = 9"), "{s}");
    assert!(s.contains("across all layers"), "{s}");
}

#[test]
fn one_layer_retrying_four_times_is_not_nested() {
    let (_d, path) = nested_capture(1, 4);
    let report = analyze(&path);
    assert!(
        findings(&report, "nested_retries").is_empty(),
        "{:#}",
        report["findings"]
    );
}

#[test]
fn a_limit_set_by_the_sites_own_edge_comes_with_the_owners_fixes() {
    // samples/cdn-burst.har: a shop page's burst refused by a Cloudflare rate-limiting rule on
    // its own API subdomain.
    let report = analyze("samples/cdn-burst.har");
    let plan = &report["recommendation"];
    let alts: Vec<&str> = plan["alternatives"]
        .as_array()
        .expect("alternatives[]")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        alts.iter()
            .any(|a| a.starts_with("raise the rule's threshold")),
        "{alts:?}"
    );
    assert!(alts.iter().any(|a| a.starts_with("scope it")), "{alts:?}");
    assert!(
        alts.iter()
            .any(|a| a.contains("batch") && a.contains("cache")),
        "{alts:?}"
    );
    let why = plan["rationale"].to_string();
    assert!(
        why.contains("Who owns the limit") && why.contains("same site"),
        "{why}"
    );
    // The client plan is still there beside it.
    assert!(plan["rate_per_second"].as_f64().is_some(), "{plan:#}");
    // An API's own 429s get no such advice.
    let report = analyze("samples/api-incident.jsonl");
    assert!(report["recommendation"].get("alternatives").is_none());
}
