//! Issue 11, "findings only for what is wrong": inputs whose clients behave correctly must get
//! no finding at all (not even `info`), run through the CLI on JSON-lines files written to a
//! temporary directory. Each case has a near miss beside it that is wrong and is reported, so
//! the quiet case cannot pass because the detector never fires.

mod common;

use common::analyze_json as analyze;
use serde_json::{json, Value};
use std::fmt::Write as _;

fn kinds(report: &Value) -> Vec<String> {
    report["findings"]
        .as_array()
        .expect("findings[]")
        .iter()
        .map(|f| f["kind"].as_str().unwrap_or("").to_string())
        .collect()
}

/// Time `s` seconds after the base, RFC 3339 with milliseconds.
fn ts(s: f64) -> String {
    let t =
        chrono::DateTime::from_timestamp_millis(1_772_460_000_000 + (s * 1000.0).round() as i64)
            .expect("time");
    t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// One JSON-lines record.
struct Rec {
    t: f64,
    method: &'static str,
    url: String,
    status: u16,
    dur_ms: f64,
    client: Option<String>,
    req: Value,
    resp: Value,
    body: Option<&'static str>,
}

fn rec(t: f64, method: &'static str, url: &str, status: u16) -> Rec {
    Rec {
        t,
        method,
        url: url.to_string(),
        status,
        dur_ms: if status == 429 { 12.0 } else { 80.0 },
        client: None,
        req: json!({}),
        resp: json!({}),
        body: None,
    }
}

fn write(mut recs: Vec<Rec>) -> (tempfile::TempDir, String) {
    recs.sort_by(|a, b| a.t.total_cmp(&b.t));
    let mut text = String::new();
    for r in &recs {
        let mut v = json!({
            "time": ts(r.t), "method": r.method, "url": r.url, "status": r.status,
            "duration_ms": r.dur_ms, "request_headers": r.req, "response_headers": r.resp,
        });
        if let Some(c) = &r.client {
            v["client"] = json!(c);
        }
        if let Some(b) = r.body {
            v["request_body"] = json!(b);
        }
        writeln!(text, "{v}").expect("write to string");
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("capture.jsonl");
    std::fs::write(&path, text).expect("write");
    (dir, path.to_string_lossy().into_owned())
}

/// A deterministic stream of numbers in [0, 1) (xorshift), so the cases need no crate.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A client updating 12 carts with `method`, without an idempotency key; every third is
/// refused with `Retry-After: 2` and retried 3 s later (after the wait), which succeeds.
fn idempotent_writes(method: &'static str) -> Vec<Rec> {
    let mut out = Vec::new();
    for k in 0..12 {
        let t = k as f64 * 10.0;
        let url = format!("https://api.shop.example/v1/carts/{k}");
        let mk = |t: f64, status: u16| {
            let mut r = rec(t, method, &url, status);
            r.client = Some("cart-service".into());
            r.req = json!({"Authorization": "Bearer sk-test-carts0001", "Content-Type": "application/json"});
            r.body = Some("{\"items\":[1,2,3]}");
            if status == 429 {
                r.resp = json!({"Retry-After": "2"});
            }
            r
        };
        if k % 3 == 1 {
            out.push(mk(t, 429));
            out.push(mk(t + 3.0, 200));
        } else {
            out.push(mk(t, 200));
        }
    }
    out
}

#[test]
fn put_and_delete_retried_after_a_429_without_a_key_get_no_finding() {
    for method in ["PUT", "DELETE"] {
        let (_d, path) = write(idempotent_writes(method));
        let report = analyze(&path);
        assert!(
            kinds(&report).is_empty(),
            "{method}: {:#}",
            report["findings"]
        );
    }
    // The near miss: the same retries of a POST are unsafe.
    let (_d, path) = write(idempotent_writes("POST"));
    assert_eq!(kinds(&analyze(&path)), ["unsafe_retry"]);
}

/// A popular URL read by many independent callers the log does not tell apart (a server log
/// without client identity): reads at random, one every 2 s on average for 20 minutes; the
/// server refuses every read in three 40-second stretches (an allowance spent), with
/// `Retry-After: 30`. When `retry_after_ms` is set, every refused read is also retried that
/// long after its refusal (a client that ignores the wait), on top of the independent reads.
fn popular_url(retry_after_ms: Option<f64>) -> Vec<Rec> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let url = "https://api.news.example/v1/front-page";
    let refusing = |t: f64| {
        [200.0, 600.0, 1000.0]
            .iter()
            .any(|&s| t >= s && t < s + 40.0)
    };
    let mut out = Vec::new();
    let mut t = 0.0;
    while t < 1200.0 {
        t += -(1.0 - rng.next()).ln() * 2.0;
        let refused = refusing(t);
        let mut r = rec(t, "GET", url, if refused { 429 } else { 200 });
        if refused {
            r.resp = json!({"Retry-After": "30"});
            if let Some(gap) = retry_after_ms {
                let at = t + 0.012 + gap / 1000.0;
                let mut again = rec(at, "GET", url, if refusing(at) { 429 } else { 200 });
                if refusing(at) {
                    again.resp = json!({"Retry-After": "30"});
                }
                out.push(again);
            }
        }
        out.push(r);
    }
    out
}

#[test]
fn independent_reads_of_a_popular_url_are_not_retries() {
    let recs = popular_url(None);
    let refused = recs.iter().filter(|r| r.status == 429).count();
    assert!(refused >= 10, "the case needs refusals: {refused}");
    let (_d, path) = write(recs);
    let report = analyze(&path);
    let k = kinds(&report);
    for kind in ["ignored_retry_after", "retry_storm", "synchronized_retries"] {
        assert!(!k.iter().any(|x| x == kind), "{:#}", report["findings"]);
    }
    // The near miss: the same reads, and each refused one repeated 300 ms after its 429.
    let (_d, path) = write(popular_url(Some(300.0)));
    let report = analyze(&path);
    assert!(
        kinds(&report).iter().any(|x| x == "ignored_retry_after"),
        "{:#}",
        report["findings"]
    );
}

/// `workers` callers (one client each) refused together, in three rounds a minute apart, with
/// `Retry-After: 10`; each retries 10 s after its refusal plus `spread(worker, round)` seconds.
fn shared_reset(workers: usize, spread: &mut dyn FnMut(usize, usize) -> f64) -> Vec<Rec> {
    let mut out = Vec::new();
    for round in 0..3 {
        for w in 0..workers {
            let t = 5.0 + round as f64 * 60.0 + w as f64 * 0.002;
            let url = format!("https://api.sync.example/v1/sync/{w}?round={round}");
            let client = format!("pod-{w}");
            let mut refused = rec(t, "GET", &url, 429);
            refused.client = Some(client.clone());
            refused.resp = json!({"Retry-After": "10"});
            out.push(refused);
            let mut again = rec(t + 0.012 + 10.0 + spread(w, round), "GET", &url, 200);
            again.client = Some(client);
            out.push(again);
        }
    }
    out
}

fn spread_ms(report: &Value) -> f64 {
    report["recommendation"]["backoff"]["retry_after_spread_ms"]
        .as_f64()
        .expect("recommendation.backoff.retry_after_spread_ms")
}

#[test]
fn retries_spread_as_advised_after_a_shared_reset_are_not_synchronized() {
    const WORKERS: usize = 40;
    // The herd: every caller comes back exactly on time, in step.
    let (_d, path) = write(shared_reset(WORKERS, &mut |_, _| 0.0));
    let herd = analyze(&path);
    assert!(
        kinds(&herd).iter().any(|k| k == "synchronized_retries"),
        "{:#}",
        herd["findings"]
    );
    // The advice scales with the callers sharing the reset (40 × 200 ms).
    let advised = spread_ms(&herd);
    assert!(
        advised >= 8000.0,
        "spread {advised} ms for {WORKERS} callers"
    );
    let why = herd["recommendation"]["rationale"].to_string();
    assert!(
        why.contains("40 operations were told to come back in the same second"),
        "{why}"
    );
    // Following it: Retry-After plus a uniformly random share of the advised spread.
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (_d, path) = write(shared_reset(WORKERS, &mut |_, _| {
        rng.next() * advised / 1000.0
    }));
    let followed = analyze(&path);
    assert!(
        !kinds(&followed).iter().any(|k| k == "synchronized_retries"),
        "spread {advised} ms: {:#}",
        followed["findings"]
    );
    // The near miss: a fixed one-second spread, whatever the number of callers, is not enough.
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (_d, path) = write(shared_reset(WORKERS, &mut |_, _| rng.next()));
    let one_second = analyze(&path);
    assert!(
        kinds(&one_second)
            .iter()
            .any(|k| k == "synchronized_retries"),
        "{:#}",
        one_second["findings"]
    );
}
