use super::*;
use crate::detect::testkit::Scenario;

/// The plan `toomany plan --requests 20 --limit 120/min` writes: one start every 667 ms, at
/// most 2 in flight, 5 attempts, windows 1/2/4/8 s, 30 s deadline, 0–1 s spread.
fn plan() -> Policy {
    toml::from_str(
        r#"
schema_version = 1
generated_by = "toomany test"
from = "plan"
action = "slow_down"
headroom = 0.75
rationale = []
[limit]
rate_per_second = 2.0
rate_per_minute = 120.0
window_s = 60.0
source = "flag"
detail = "given with --limit 120/min"
[rate]
rate_per_second = 1.5
rate_per_minute = 90.0
min_interval_ms = 667
[concurrency]
max_in_flight = 2
latency_ms = 1000.0
latency_source = "assumed"
[retry]
base_ms = 1000
cap_ms = 8000
max_attempts = 5
jitter = "full"
deadline_ms = 30000
honor_retry_after = true
retry_after_spread_ms = 1000
attempt_timeout_ms = 3000
windows_ms = [1000, 2000, 4000, 8000]
retry_on_status = [429, 503]
retry_methods = ["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]
"#,
    )
    .expect("the test plan parses")
}

fn run(s: Scenario) -> Verification {
    verify(&s.build(), &plan(), &Options::default()).expect("judgeable")
}

fn check<'a>(v: &'a Verification, name: &str) -> &'a Check {
    v.checks
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no check {name}"))
}

fn failed(v: &Verification) -> Vec<&'static str> {
    v.checks.iter().filter(|c| !c.ok).map(|c| c.name).collect()
}

/// Offsets off whole seconds, as real clocks are.
const T0: f64 = 0.1234;

#[test]
fn a_batch_that_follows_the_plan_passes() {
    let mut s = Scenario::new();
    for i in 0..20 {
        // 668 ms apart with up to 12 ms of late starts: within the tolerance.
        let jitter = ((i * 7) % 13) as f64 / 1000.0;
        s.at(T0 + i as f64 * 0.668 + jitter)
            .client("w")
            .get(&format!("http://127.0.0.1/items/{i}"), 200);
    }
    let v = run(s);
    assert_eq!(failed(&v), Vec::<&str>::new(), "{:#?}", v.checks);
    assert_eq!(v.verdict, Verdict::Pass);
    assert_eq!(
        (
            v.counts.logical_requests,
            v.counts.first_attempts,
            v.counts.retries,
            v.counts.successes,
            v.counts.final_failures
        ),
        (20, 20, 0, 20, 0)
    );
    assert_eq!(v.in_flight.max, 1);
    assert_eq!(v.spacing.target_ms, 667);
    assert!(v.spacing.min_ms.unwrap() >= 655.0);
}

#[test]
fn start_rate_allows_a_clients_jitter_but_not_a_burst_or_a_sustained_excess() {
    let build = |starts: &[f64]| {
        let mut s = Scenario::new();
        for (i, t) in starts.iter().enumerate() {
            s.at(T0 + t)
                .client("w")
                .get(&format!("http://127.0.0.1/items/{i}"), 200);
        }
        run(s)
    };
    // One send 80 ms late, the next on time: a 587 ms gap, 80 ms ahead (allowed: 20 ms + 15 % of 667 ms).
    let late_once = build(&[0.0, 0.667, 1.414, 2.001, 2.668]);
    assert!(
        check(&late_once, "start_rate").ok,
        "{:?}",
        late_once.spacing
    );
    assert_eq!(late_once.spacing.allowance_ms, 120.1);
    // Two at once.
    let burst = build(&[0.0, 0.667, 0.668, 2.001]);
    assert!(!check(&burst, "start_rate").ok);
    // 3 % too fast all along: every gap looks fine, the schedule drifts past the allowance.
    let fast: Vec<f64> = (0..12).map(|i| i as f64 * 0.647).collect();
    let v = build(&fast);
    assert!(v.spacing.min_ms.unwrap() > 640.0);
    let c = check(&v, "start_rate");
    assert!(!c.ok && c.detail.contains("faster than the plan"), "{c:?}");
}

#[test]
fn a_naive_client_fails_with_the_right_checks_named() {
    // 20 at once, the server lets 2 through and asks the rest to wait 5 s; the client retries
    // at once, 7 times.
    let mut s = Scenario::new();
    for i in 0..20 {
        let url = format!("http://127.0.0.1/items/{i}");
        let t = T0 + i as f64 * 0.002;
        if i < 2 {
            s.at(t).client("w").get(&url, 200);
            continue;
        }
        for k in 0..8 {
            s.at(t + k as f64 * 0.090)
                .client("w")
                .ra("5")
                .get(&url, 429);
        }
    }
    let v = run(s);
    let f = failed(&v);
    for name in [
        "start_rate",
        "concurrency",
        "retry_after_honoured",
        "attempt_cap",
    ] {
        assert!(f.contains(&name), "{name} should fail: {:#?}", v.checks);
    }
    assert!(!f.contains(&"idempotency") && !f.contains(&"deadline"));
    assert_eq!(v.verdict, Verdict::Fail);
    assert_eq!(v.counts.logical_requests, 20);
    assert_eq!(v.counts.retries, 18 * 7);
    assert_eq!(v.counts.final_failures, 18);
    assert_eq!(v.counts.failures_by_reason.get("attempt_cap"), Some(&18));
    assert_eq!(v.counts.max_attempts_seen, 8);
}

#[test]
fn retry_after_early_and_without_spread_fail_and_with_spread_pass() {
    // Four workers refused together with Retry-After: 2; the response ends 80 ms later.
    let build = |waits: [f64; 4]| {
        let mut s = Scenario::new();
        for (w, wait) in waits.iter().enumerate() {
            let url = format!("http://127.0.0.1/items/{w}");
            let t = T0 + w as f64 * 0.001;
            s.at(t).client(&format!("w{w}")).ra("2").get(&url, 429);
            s.at(t + 0.080 + wait)
                .client(&format!("w{w}"))
                .get(&url, 200);
        }
        s
    };
    let spread = run(build([2.31, 2.77, 2.05, 2.52]));
    assert!(
        check(&spread, "retry_after_honoured").ok,
        "{:#?}",
        spread.checks
    );
    let in_step = run(build([2.001, 2.001, 2.001, 2.001]));
    let c = check(&in_step, "retry_after_honoured");
    assert!(!c.ok && c.detail.contains("returned together"), "{c:?}");
    let early = run(build([1.5, 2.7, 2.2, 2.9]));
    let c = check(&early, "retry_after_honoured");
    assert!(!c.ok && c.detail.contains("1 came early"), "{c:?}");
    // One worker alone resuming exactly at the Retry-After synchronises with nobody.
    let mut s = Scenario::new();
    for i in 0..3 {
        let url = format!("http://127.0.0.1/items/{i}");
        let t = T0 + i as f64 * 5.0;
        s.at(t).client("w").ra("2").get(&url, 429);
        s.at(t + 2.081).client("w").get(&url, 200);
    }
    assert!(check(&run(s), "retry_after_honoured").ok);
}

#[test]
fn synchronised_backoff_fails_jitter_and_full_jitter_passes() {
    let build = |waits: &[f64]| {
        let mut s = Scenario::new();
        for (w, wait) in waits.iter().enumerate() {
            let url = format!("http://127.0.0.1/items/{w}");
            let t = T0 + w as f64 * 0.002;
            s.at(t).client(&format!("w{w}")).get(&url, 503);
            s.at(t + 0.080 + wait)
                .client(&format!("w{w}"))
                .get(&url, 200);
        }
        s
    };
    let lockstep = run(build(&[1.0; 6]));
    let c = check(&lockstep, "jitter");
    assert!(!c.ok && c.detail.contains("synchronised"), "{c:?}");
    let jittered = run(build(&[0.13, 0.71, 0.42, 0.95, 0.27, 0.58]));
    assert!(check(&jittered, "jitter").ok, "{:#?}", jittered.checks);
}

/// Six workers refused one after another over 300 ms (a wave, wider than the tolerance), each
/// told to wait (`ra`: with a Retry-After, else a backoff), retrying at `resume(w)` seconds.
fn wave(ra: Option<&str>, resume: impl Fn(usize) -> f64) -> Verification {
    let mut s = Scenario::new();
    for w in 0..6 {
        let url = format!("http://127.0.0.1/items/{w}");
        let t = T0 + w as f64 * 0.060;
        let mut refused = s.at(t).client(&format!("w{w}"));
        if let Some(ra) = ra {
            refused = refused.ra(ra);
        }
        refused.get(&url, 429);
        s.at(T0 + resume(w)).client(&format!("w{w}")).get(&url, 200);
    }
    run(s)
}

#[test]
fn retries_answering_one_wave_and_resuming_in_step_fail_jitter() {
    // Refused 60 ms apart, all back within 3 ms of one instant: the old pairwise test saw no
    // two workers refused together (60 ms > the 20 ms tolerance) and passed.
    for ra in [None, Some("2")] {
        let v = wave(ra, |w| 2.5 + w as f64 * 0.0006);
        let c = check(&v, "jitter");
        assert!(!c.ok, "{ra:?}: {c:?}");
        assert!(
            c.detail.contains("6 resumed within 5 ms") && c.detail.contains("synchronised retries"),
            "{c:?}"
        );
        assert_eq!(v.verdict, Verdict::Fail);
    }
    // The same wave, resumed at random over a second: passes.
    let spread = [0.41, 1.13, 0.77, 1.52, 0.95, 1.31];
    let v = wave(None, |w| 1.0 + spread[w]);
    let c = check(&v, "jitter");
    assert!(c.ok && c.detail.contains("0 resumed within 5 ms"), "{c:?}");
    // One worker in step with one other is chance, not a herd.
    let mut pairs = spread;
    pairs[1] = pairs[0] + 0.002;
    let c = check(&wave(None, |w| 1.0 + pairs[w]), "jitter").clone();
    assert!(c.ok && c.detail.contains("2 resumed within 5 ms"), "{c:?}");
}

#[test]
fn a_retry_alone_or_of_one_logical_request_is_no_wave() {
    // One worker retrying twice in quick succession: its own retries never pair.
    let mut s = Scenario::new();
    let url = "http://127.0.0.1/items/1";
    for t in [0.0, 0.5, 0.501] {
        s.at(T0 + t).client("w").get(url, 503);
    }
    s.at(T0 + 1.6).client("w").get(url, 200);
    let c = check(&run(s), "jitter").clone();
    assert!(
        c.ok && c.detail.contains("no two workers were refused"),
        "{c:?}"
    );
}

#[test]
fn writes_need_one_stable_idempotency_key() {
    let build = |keys: [Option<&str>; 2]| {
        let mut s = Scenario::new();
        for (k, key) in keys.iter().enumerate() {
            let mut r = s.at(T0 + k as f64 * 1.3).client("w").body("b1");
            if let Some(key) = key {
                r = r.idem(key);
            }
            r.post("http://127.0.0.1/pay", if k == 0 { 503 } else { 200 });
        }
        s
    };
    assert!(check(&run(build([Some("k1"), Some("k1")])), "idempotency").ok);
    let c = run(build([Some("k1"), Some("k2")]));
    assert_eq!(c.counts.logical_requests, 1, "one operation, two keys");
    let c = check(&c, "idempotency");
    assert!(!c.ok && c.detail.contains("new key"), "{c:?}");
    assert!(!check(&run(build([None, None])), "idempotency").ok);
}

#[test]
fn an_attempt_past_the_deadline_fails_it() {
    let mut s = Scenario::new();
    let url = "http://127.0.0.1/items/1";
    for t in [0.0, 8.0, 20.0, 36.0] {
        s.at(T0 + t).client("w").get(url, 503);
    }
    let v = run(s);
    assert_eq!(v.counts.logical_requests, 1);
    let c = check(&v, "deadline");
    assert!(!c.ok && c.detail.contains("36 s"), "{c:?}");
}

#[test]
fn whole_second_timestamps_cannot_be_judged() {
    let mut s = Scenario::new();
    for i in 0..12 {
        s.at(i as f64)
            .get(&format!("http://127.0.0.1/items/{i}"), 200);
    }
    let e = verify(&s.build(), &plan(), &Options::default()).unwrap_err();
    assert!(e.0.contains("whole seconds"), "{e:?}");
}

#[test]
fn in_flight_counts_overlaps_beyond_the_tolerance() {
    let mut s = Scenario::new();
    // Back to back (the next starts 5 ms before the previous ended, by the log's clock): 1.
    for i in 0..4 {
        s.at(T0 + i as f64 * 0.995)
            .client("w")
            .dur(1000.0)
            .get(&format!("http://127.0.0.1/a/{i}"), 200);
    }
    // Three at once: 3.
    for i in 0..3 {
        s.at(T0 + 10.0 + i as f64 * 0.001)
            .client("w")
            .dur(500.0)
            .get(&format!("http://127.0.0.1/b/{i}"), 200);
    }
    let v = run(s);
    assert_eq!(v.in_flight.max, 3);
    assert!(!check(&v, "concurrency").ok);
}
