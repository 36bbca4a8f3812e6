//! Recommendation unit tests on constructed requests and reports (attribution and detectors
//! are set by hand, so these do not depend on their engines).

use super::*;
use crate::analyze::analyze_with;
use crate::attribute::Quota;
use crate::detect::{Finding, Severity};
use crate::http::ratelimit::Limits;
use crate::model::{Location, Position, Request};
use crate::report::Report;
use chrono::TimeZone;
use std::sync::Arc;

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 30, 12, 0, 0).unwrap()
}

fn req(i: usize, at_ms: i64, status: u16, duration_ms: f64, retry_after: Option<&str>) -> Request {
    let mut r = Request::at(Location {
        source: Arc::from("t.har"),
        position: Position::Entry(i),
    });
    r.started = Some(t0() + chrono::Duration::milliseconds(at_ms));
    r.method = "GET".into();
    r.url = "https://api.example.com/v1/items".into();
    r.status = status;
    r.duration_ms = Some(duration_ms);
    if let Some(ra) = retry_after {
        r.response_headers.push("Retry-After", ra);
    }
    r
}

fn finding(kind: &str) -> Finding {
    Finding {
        kind: kind.into(),
        severity: Severity::Warning,
        summary: kind.into(),
        evidence: serde_json::Value::Null,
    }
}

fn opts(limit: Option<&str>) -> Options {
    Options {
        limit: crate::units::GivenLimits::any(limit.map(|l| Rate::parse(l).unwrap())),
        ..Default::default()
    }
}

/// The recommendation for a hand-edited report: its rate-limited rows and findings, read the way
/// the analysis reads them.
fn recommend(r: &Report, requests: &[Request], o: &Options) -> Option<Recommendation> {
    let (hosts, all) = crate::analyze::recommend_evidence(requests, &r.rate_limited);
    let limited: Vec<&HostEvidence> = hosts.iter().filter(|h| h.rate_limited > 0).collect();
    super::recommend(&limited, &all, &r.findings, o)
}

fn report(requests: &[Request], o: &Options) -> Report {
    analyze_with(
        Vec::new(),
        requests,
        &crate::analyze::AnalyzeOptions {
            limit: o.limit.clone(),
        },
        o,
    )
}

/// A burst: 100 requests in 10 s (the last 20 rejected), then quiet 10 minutes of 1 request
/// every 10 s. Average ≈ 0.26/s, far under 2/s.
fn burst_incident() -> Vec<Request> {
    let mut v = Vec::new();
    for i in 0..100 {
        let status = if i >= 80 { 429 } else { 200 };
        v.push(req(
            i,
            i as i64 * 100,
            status,
            400.0,
            if status == 429 { Some("5") } else { None },
        ));
    }
    for k in 0..60 {
        v.push(req(100 + k, 10_000 + k as i64 * 10_000, 200, 400.0, None));
    }
    v
}

#[test]
fn arithmetic_of_the_brief() {
    let t = target(Rate::parse("120/min").unwrap(), 0.75);
    assert_eq!(t.rate_per_second, 1.5);
    assert_eq!(t.rate_per_minute, 90.0);
    assert_eq!(t.min_interval_ms, 667);
    assert_eq!(concurrency_for(1.5, 2000.0), 3);
    assert_eq!(concurrency_for(1.5, 2100.0), 4);
    assert_eq!(concurrency_for(0.01, 10.0), 1);
    assert_eq!(rate_for(3.0, 2000.0), 1.5);
    assert_eq!(latency_budget_ms(1.5, 3.0), 2000.0);
    // 80/min × 0.75 = 1/s: one start every 1000 ms, not 1001 ms from 0.99999999/s.
    assert_eq!(target(Rate::new(80.0, 60.0), 0.75).min_interval_ms, 1000);
    assert_eq!(target(Rate::new(80.0, 60.0), 0.75).rate_per_second, 1.0);
    // 2/s: exactly 500 ms, not 501 from float noise.
    assert_eq!(
        target(Rate::parse("2/s").unwrap(), 1.0).min_interval_ms,
        500
    );
    assert_eq!(windows_ms(1000, 8000, 4), vec![1000, 2000, 4000, 8000]);
    assert_eq!(
        windows_ms(1000, 8000, 6),
        vec![1000, 2000, 4000, 8000, 8000, 8000]
    );
    assert_eq!(windows_ms(1000, 8000, 0), Vec::<u64>::new());
    // A huge retry count does not overflow.
    assert_eq!(*windows_ms(1000, 8000, 100).last().unwrap(), 8000);
}

#[test]
fn floor_sig_is_short_and_never_above() {
    assert_eq!(floor_sig(1.5), 1.5);
    assert_eq!(floor_sig(90.0), 90.0);
    assert_eq!(floor_sig(0.1 + 0.2), 0.3);
    assert_eq!(floor_sig(7500.0 / 86400.0), 0.0868055555);
    assert_eq!(floor_sig(2.0 / 3.0), 0.666666666);
    let tiny = 1.0 / 86400.0 * 0.05;
    assert!(floor_sig(tiny) > 0.0 && floor_sig(tiny) <= tiny);
    assert_eq!(floor_sig(0.0), 0.0);
}

#[test]
fn default_backoff_is_the_brief() {
    let b = backoff(&BackoffOptions::default(), 2000.0);
    assert_eq!(
        (b.base_ms, b.cap_ms, b.max_attempts, b.deadline_ms),
        (1000, 8000, 5, 30_000)
    );
    assert_eq!(b.retries(), 4);
    assert_eq!(b.windows_ms, vec![1000, 2000, 4000, 8000]);
    assert_eq!(b.attempt_timeout_ms, 6000);
    assert!(b.honor_retry_after);
    assert_eq!(b.jitter, Jitter::Full);
    assert!(!b.retry_methods.contains(&"POST".to_string()));
}

#[test]
fn backoff_options_validate() {
    let ok = BackoffOptions::default();
    assert!(ok.validate().is_ok());
    assert!(BackoffOptions {
        max_attempts: 0,
        ..ok.clone()
    }
    .validate()
    .is_err());
    assert!(BackoffOptions {
        cap_ms: 500,
        ..ok.clone()
    }
    .validate()
    .is_err());
    assert!(BackoffOptions {
        attempt_timeout_ms: Some(60_000),
        ..ok.clone()
    }
    .validate()
    .is_err());
    assert!(validate_headroom(0.0).is_err());
    assert!(validate_headroom(1.5).is_err());
    assert!(validate_headroom(f64::NAN).is_err());
    assert_eq!(validate_headroom(1.0), Ok(1.0));
}

#[test]
fn nothing_to_recommend_without_429_or_limit() {
    let reqs: Vec<Request> = (0..5)
        .map(|i| req(i, i as i64 * 1000, 200, 100.0, None))
        .collect();
    let r = report(&reqs, &opts(None));
    assert!(r.recommendation.is_none());
    let r = report(&reqs, &opts(Some("60/min")));
    let rec = r.recommendation.unwrap();
    assert_eq!(rec.rate_per_second, Some(0.75));
    assert_eq!(rec.action, Action::SlowDown);
}

#[test]
fn limit_from_flag_beats_headers_and_traffic() {
    let reqs = burst_incident();
    let mut r = report(&reqs, &opts(Some("120/min")));
    for rl in r.rate_limited.make_mut() {
        std::sync::Arc::make_mut(&mut rl.attribution).limits = Some(Limits {
            limit: Some(50.0),
            remaining: Some(0.0),
            reset_seconds: Some(5.0),
            window_seconds: Some(60.0),
            policy: None,
        });
    }
    let rec = recommend(&r, &reqs, &opts(Some("120/min"))).unwrap();
    assert_eq!(rec.limit.as_ref().unwrap().source, LimitSource::Flag);
    assert_eq!(rec.rate_per_minute, Some(90.0));

    let rec = recommend(&r, &reqs, &opts(None)).unwrap();
    let l = rec.limit.as_ref().unwrap();
    assert_eq!(l.source, LimitSource::Stated);
    assert_eq!(l.rate_per_minute, 50.0);
    assert_eq!(rec.rate_per_minute, Some(37.5));
    assert!(
        rec.rationale
            .iter()
            .any(|s| s.contains("50 requests per minute")),
        "{:?}",
        rec.rationale
    );
}

#[test]
fn limit_from_traffic_before_first_429() {
    let reqs = burst_incident();
    let r = report(&reqs, &opts(None));
    let rec = r.recommendation.unwrap();
    let l = rec.limit.as_ref().unwrap();
    assert_eq!(l.source, LimitSource::Observed);
    // 80 accepted in 7.9 s before the first 429 → read as 80 per minute.
    assert_eq!(l.rate_per_minute, 80.0);
    assert_eq!(rec.rate_per_minute, Some(60.0));
    assert!(
        l.detail.contains("80 requests were accepted"),
        "{}",
        l.detail
    );
    assert!(rec
        .warnings
        .iter()
        .any(|w| w.contains("estimated from the traffic")));
}

#[test]
fn an_early_first_429_does_not_make_a_limit_of_one_per_minute() {
    // A dashboard at 70/min whose second poll was limited, then one poll in 20: the single
    // request before the first 429 says nothing; the minutes with 429s accepted ~66 each.
    let reqs: Vec<Request> = (0..700)
        .map(|i| {
            let limited = i == 1 || i % 20 == 0 && i > 0;
            req(
                i,
                i as i64 * 857,
                if limited { 429 } else { 200 },
                120.0,
                limited.then_some("5"),
            )
        })
        .collect();
    let r = report(&reqs, &opts(None));
    let rec = r.recommendation.unwrap();
    let l = rec.limit.as_ref().unwrap();
    assert_eq!(l.source, LimitSource::Observed);
    assert!(
        (60.0..=70.0).contains(&l.rate_per_minute),
        "{}: {}",
        l.rate_per_minute,
        l.detail
    );
    assert!(l.detail.contains("that also had a 429"), "{}", l.detail);
}

#[test]
fn first_request_limited_means_no_limit_known() {
    let reqs = vec![
        req(0, 0, 429, 10.0, Some("1")),
        req(1, 2000, 200, 10.0, None),
    ];
    let r = report(&reqs, &opts(None));
    let rec = r.recommendation.unwrap();
    assert!(rec.limit.is_none());
    assert_eq!(rec.rate_per_second, None);
    assert_eq!(rec.concurrency, None);
    assert!(rec.warnings.iter().any(|w| w.contains("pass --limit")));
    assert!(config::Policy::from_recommendation(&rec).is_err());
}

#[test]
fn burst_incident_stays_under_limit_times_headroom_and_is_fix_client() {
    let reqs = burst_incident();
    let o = opts(Some("120/min"));
    let mut r = report(&reqs, &o);
    r.findings.push(finding("burst"));
    let rec = recommend(&r, &reqs, &o).unwrap();
    assert!(rec.rate_per_second.unwrap() <= 2.0 * DEFAULT_HEADROOM + 1e-12);
    assert!(rec.rate_per_minute.unwrap() <= 120.0 * DEFAULT_HEADROOM + 1e-9);
    assert!(1000.0 / rec.min_interval_ms.unwrap() as f64 <= 1.5);
    assert_eq!(rec.action, Action::FixClient);
    assert!(
        rec.rationale.iter().any(|s| s.contains("burst")),
        "{:?}",
        rec.rationale
    );

    // The same with a tighter headroom: still bounded by it.
    let o = Options {
        headroom: 0.5,
        ..opts(Some("120/min"))
    };
    let rec = recommend(&r, &reqs, &o).unwrap();
    assert_eq!(rec.rate_per_minute, Some(60.0));
}

#[test]
fn burst_under_the_average_is_fix_client_even_with_a_long_retry_after() {
    // A fixed window refuses the tail of the burst with Retry-After of ~50 s (> the default
    // 30 s deadline): pacing is still the fix, and the deadline is raised to wait it out.
    let reqs: Vec<Request> = burst_incident()
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            let at = (r.started.unwrap() - t0()).num_milliseconds();
            let ra = (r.status == 429).then_some("50");
            req(i, at, r.status, 400.0, ra)
        })
        .collect();
    let o = opts(Some("120/min"));
    let mut r = report(&reqs, &o);
    assert!(
        r.findings.iter().any(|f| f.kind == "burst"),
        "the detectors see the burst"
    );
    let rec = recommend(&r, &reqs, &o).unwrap();
    assert_eq!(rec.action, Action::FixClient);
    // Without the finding, a pacing plan too: a 50 s wait is waited out, not a stop.
    r.findings.clear();
    let rec = recommend(&r, &reqs, &o).unwrap();
    assert_eq!(rec.action, Action::SlowDown);
    assert_eq!(rec.resume_at, None);
    assert_eq!(rec.stated_wait_s, Some(50.0));
    assert_eq!(rec.backoff.deadline_ms, 51_000, "50 s + the 1 s spread");
    assert!(
        rec.rationale
            .iter()
            .any(|s| s.starts_with("Deadline: 51 s")),
        "{:?}",
        rec.rationale
    );
    r.findings.push(finding("burst"));
    let rec = recommend(&r, &reqs, &o).unwrap();
    assert_eq!(rec.action, Action::FixClient);
    assert_eq!(rec.backoff.deadline_ms, 51_000);
    // An exhausted quota still wins.
    r.findings.push(finding("quota_exhausted"));
    assert_eq!(
        recommend(&r, &reqs, &o).unwrap().action,
        Action::StopOrReschedule
    );
}

#[test]
fn burst_but_average_over_limit_is_slow_down() {
    // 300 requests in 60 s = 5/s against a 2/s limit.
    let reqs: Vec<Request> = (0..300)
        .map(|i| {
            req(
                i,
                i as i64 * 200,
                if i % 3 == 0 { 429 } else { 200 },
                100.0,
                None,
            )
        })
        .collect();
    let o = opts(Some("2/s"));
    let mut r = report(&reqs, &o);
    r.findings.push(finding("burst"));
    let rec = recommend(&r, &reqs, &o).unwrap();
    assert_eq!(rec.action, Action::SlowDown);
    assert!(
        rec.rationale.iter().any(|s| s.contains("above the")),
        "{:?}",
        rec.rationale
    );
}

#[test]
fn exhausted_daily_quota_is_stop_or_reschedule_with_reset_time() {
    let reqs = burst_incident();
    let o = opts(Some("10000/day"));
    let mut r = report(&reqs, &o);
    for rl in r.rate_limited.make_mut() {
        std::sync::Arc::make_mut(&mut rl.attribution).quota = Quota::Daily;
        std::sync::Arc::make_mut(&mut rl.attribution).limits = Some(Limits {
            limit: Some(10000.0),
            remaining: Some(0.0),
            reset_seconds: Some(3600.0),
            window_seconds: Some(86400.0),
            policy: None,
        });
    }
    let rec = recommend(&r, &reqs, &o).unwrap();
    assert_eq!(rec.action, Action::StopOrReschedule);
    // Last 429 at 9.9 s + 3600 s reset.
    let expect = t0() + chrono::Duration::milliseconds(9900 + 3_600_000);
    assert_eq!(rec.resume_at, Some(expect));
    assert!(rec.rationale.iter().any(|s| s.contains("exhausted")));
}

#[test]
fn quota_exhausted_finding_is_stop_or_reschedule() {
    let reqs = burst_incident();
    let o = opts(Some("120/min"));
    let mut r = report(&reqs, &o);
    r.findings.push(finding("quota_exhausted"));
    r.findings.push(finding("burst"));
    assert_eq!(
        recommend(&r, &reqs, &o).unwrap().action,
        Action::StopOrReschedule
    );
}

#[test]
fn a_wait_up_to_two_minutes_is_waited_out_and_a_longer_one_stops() {
    let with_wait = |ra: &str| {
        let mut reqs: Vec<Request> = (0..10)
            .map(|i| req(i, i as i64 * 1000, 200, 100.0, None))
            .collect();
        reqs.push(req(10, 10_000, 429, 10.0, Some(ra)));
        reqs
    };
    // 120 s: a pacing plan whose deadline fits the wait and the spread.
    let reqs = with_wait("120");
    let rec = report(&reqs, &opts(Some("60/min"))).recommendation.unwrap();
    assert_eq!(rec.action, Action::SlowDown);
    assert_eq!(rec.backoff.deadline_ms, 121_000);
    assert_eq!(rec.resume_at, None);
    // A deadline the user chose is kept: the plan says to stop for the longer waits.
    let o = Options {
        backoff: BackoffOptions {
            deadline_ms: 30_000,
            deadline_given: true,
            ..Default::default()
        },
        ..opts(Some("60/min"))
    };
    let rec = recommend(&report(&reqs, &o), &reqs, &o).unwrap();
    assert_eq!(rec.action, Action::SlowDown);
    assert_eq!(rec.backoff.deadline_ms, 30_000);
    assert!(
        rec.warnings
            .iter()
            .any(|w| w.contains("stop retrying those")),
        "{:?}",
        rec.warnings
    );
    // 10 min: stop and reschedule, with the resume time.
    let reqs = with_wait("600");
    let rec = report(&reqs, &opts(Some("60/min"))).recommendation.unwrap();
    assert_eq!(rec.action, Action::StopOrReschedule);
    assert_eq!(
        rec.resume_at,
        Some(t0() + chrono::Duration::seconds(10 + 600))
    );
    assert_eq!(
        rec.backoff.deadline_ms, 30_000,
        "a stop does not stretch the deadline"
    );
}

#[test]
fn resume_at_ignores_the_reset_of_an_unspent_allowance() {
    // A secondary limit's 429 (Retry-After 10 min) while the hourly allowance still has 4800
    // left, resetting in 50 min: come back after the Retry-After, not at the hourly reset.
    let mut reqs: Vec<Request> = (0..10)
        .map(|i| req(i, i as i64 * 1000, 200, 100.0, None))
        .collect();
    reqs.push(req(10, 10_000, 429, 10.0, Some("600")));
    let o = opts(Some("60/min"));
    let mut r = report(&reqs, &o);
    let limits = |remaining: f64| Limits {
        limit: Some(5000.0),
        remaining: Some(remaining),
        reset_seconds: Some(3000.0),
        window_seconds: None,
        policy: None,
    };
    std::sync::Arc::make_mut(&mut r.rate_limited.make_mut()[0].attribution).limits =
        Some(limits(4800.0));
    let rec = recommend(&r, &reqs, &o).unwrap();
    assert_eq!(rec.action, Action::StopOrReschedule);
    assert_eq!(
        rec.resume_at,
        Some(t0() + chrono::Duration::seconds(10 + 600))
    );
    // Spent: the reset decides.
    std::sync::Arc::make_mut(&mut r.rate_limited.make_mut()[0].attribution).limits =
        Some(limits(0.0));
    let rec = recommend(&r, &reqs, &o).unwrap();
    assert_eq!(
        rec.resume_at,
        Some(t0() + chrono::Duration::seconds(10 + 3000))
    );
}

#[test]
fn unrepresentable_retry_after_is_stop_or_reschedule() {
    let mut reqs: Vec<Request> = (0..3)
        .map(|i| req(i, i as i64 * 1000, 200, 100.0, None))
        .collect();
    reqs.push(req(3, 3000, 429, 10.0, Some("99999999999999999999999")));
    let rec = report(&reqs, &opts(Some("60/min"))).recommendation.unwrap();
    assert_eq!(rec.action, Action::StopOrReschedule);
    assert_eq!(rec.resume_at, None);
}

#[test]
fn latency_percentiles_and_p95_concurrency() {
    // 19 fast (1 s) responses and one slow (9 s): mean 1.4 s, p50 1 s, p95 1 s (nearest rank
    // 19 of 20), the slow one only shows at p100.
    let mut reqs: Vec<Request> = (0..19)
        .map(|i| req(i, i as i64 * 1000, 200, 1000.0, None))
        .collect();
    reqs.push(req(19, 19_000, 200, 9000.0, None));
    reqs.push(req(20, 20_000, 429, 5.0, Some("1")));
    let o = opts(Some("2/s"));
    let rec = report(&reqs, &o).recommendation.unwrap();
    assert_eq!(rec.latency.source, LatencySource::Observed);
    assert_eq!(rec.latency.samples, 20, "the 429 is not a latency sample");
    assert_eq!(rec.latency.mean_ms, 1400.0);
    assert_eq!(rec.latency.p50_ms, Some(1000.0));
    assert_eq!(rec.latency.p95_ms, Some(1000.0));
    // 1.5/s × 1.4 s = 2.1 → 3.
    assert_eq!(rec.concurrency, Some(3));
    assert_eq!(rec.latency.concurrency_at_p95, Some(2));
    assert!(
        rec.rationale.iter().any(|s| s.contains("p95")),
        "{:?}",
        rec.rationale
    );

    // --latency wins.
    let o = Options {
        latency_ms: Some(2000.0),
        ..opts(Some("2/s"))
    };
    let rec = recommend(&report(&reqs, &o), &reqs, &o).unwrap();
    assert_eq!(rec.latency.source, LatencySource::Flag);
    assert_eq!(rec.concurrency, Some(3));
}

#[test]
fn no_durations_assume_and_warn() {
    let mut reqs: Vec<Request> = (0..3)
        .map(|i| req(i, i as i64 * 1000, 200, 0.0, None))
        .collect();
    for r in &mut reqs {
        r.duration_ms = None;
    }
    reqs.push(req(3, 3000, 429, 0.0, None));
    reqs[3].duration_ms = None;
    let rec = report(&reqs, &opts(Some("2/s"))).recommendation.unwrap();
    assert_eq!(rec.latency.source, LatencySource::Assumed);
    assert!(rec.warnings.iter().any(|w| w.contains("--latency")));
}

#[test]
fn other_findings_become_warnings() {
    let reqs = burst_incident();
    let o = opts(Some("120/min"));
    let mut r = report(&reqs, &o);
    for k in [
        "concurrency_limit",
        "shared_key_contention",
        "ignored_retry_after",
        "synchronized_retries",
        "unsafe_retry",
    ] {
        r.findings.push(finding(k));
    }
    let rec = recommend(&r, &reqs, &o).unwrap();
    let w = rec.warnings.join("\n");
    for needle in [
        "requests in flight",
        "share one allowance",
        "Retry-After",
        "full-jitter",
        "Idempotency-Key",
    ] {
        assert!(w.contains(needle), "{needle} missing in {w}");
    }
}

#[test]
fn recommendation_is_for_the_limited_host() {
    let mut reqs = burst_incident();
    // A busy second host with slow responses and no 429.
    for k in 0..50 {
        let mut r = req(200 + k, k as i64 * 10, 200, 30_000.0, None);
        r.url = "https://cdn.example.net/x.js".into();
        reqs.push(r);
    }
    let rec = report(&reqs, &opts(Some("120/min")))
        .recommendation
        .unwrap();
    assert_eq!(rec.host.as_deref(), Some("api.example.com"));
    assert_eq!(
        rec.latency.mean_ms, 400.0,
        "only the limited host's responses count"
    );
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The target never exceeds limit × headroom, and its spacing never allows more.
        #[test]
        fn target_is_bounded(count in 0.001f64..1e6, window in prop::sample::select(vec![1.0, 60.0, 3600.0, 86400.0]), headroom in 0.01f64..=1.0) {
            let limit = Rate::new(count, window);
            let t = target(limit, headroom);
            let bound = limit.per_second * headroom;
            prop_assert!(t.rate_per_second <= bound * (1.0 + 1e-6) + 1e-9);
            prop_assert!(t.min_interval_ms >= 1);
            // Starts at the spacing never exceed the bound (rounding up never speeds up),
            // unless the bound is faster than one per ms.
            if bound <= 1000.0 {
                prop_assert!(1000.0 / t.min_interval_ms as f64 <= bound * (1.0 + 1e-9));
            }
        }

        /// Little's Law rounds up, and the inverse forms agree with it.
        #[test]
        fn concurrency_covers_the_load(rate in 0.001f64..1e4, latency_ms in 0.1f64..600_000.0) {
            let c = concurrency_for(rate, latency_ms);
            prop_assert!(c >= 1);
            prop_assert!(c as f64 + 1e-6 >= rate * latency_ms / 1000.0);
            prop_assert!((c as f64 - 1.0) < rate * latency_ms / 1000.0 || c == 1);
            let r = rate_for(c as f64, latency_ms);
            prop_assert!(r + 1e-9 >= rate);
            prop_assert!((latency_budget_ms(rate, c as f64) - c as f64 / rate * 1000.0).abs() < 1e-6);
        }

        /// Arbitrary captures never panic the recommendation or any emitter, and whatever is
        /// recommended stays within limit × headroom.
        #[test]
        fn never_panics_on_captures(
            reqs in prop::collection::vec((0i64..600_000, prop::sample::select(vec![0u16, 200, 200, 200, 429, 503, 403]),
                prop::option::of(0.0f64..100_000.0), prop::option::of(prop::sample::select(vec!["0", "1", "30", "3600", "-5", "soon", "99999999999999999999999", "Sun, 06 Nov 1994 08:49:37 GMT"])),
                prop::sample::select(vec!["https://a.example/x", "https://b.example/y", "not a url"])), 0..60),
            limit in prop::option::of(prop::sample::select(vec!["120/min", "2/s", "10000/day", "0.5/s"])),
            headroom in 0.05f64..=1.0,
            attempts in 1u32..12,
        ) {
            let requests: Vec<Request> = reqs.iter().enumerate().map(|(i, (t, st, d, ra, url))| {
                let mut r = req(i, *t, *st, 0.0, *ra);
                r.duration_ms = *d;
                r.url = url.to_string();
                r
            }).collect();
            let mut sorted = requests.clone();
            sorted.sort_by_key(|r| r.started);
            let o = Options {
                limit: crate::units::GivenLimits::any(limit.map(|l| Rate::parse(l).unwrap())),
                host: None,
                headroom,
                latency_ms: None,
                backoff: BackoffOptions { max_attempts: attempts, ..Default::default() },
            };
            let mut r = report(&sorted, &o);
            r.findings.push(finding("burst"));
            if let Some(rec) = recommend(&r, &sorted, &o) {
                if let (Some(l), Some(rps)) = (&rec.limit, rec.rate_per_second) {
                    prop_assert!(rps <= l.rate_per_second * headroom * (1.0 + 1e-6) + 1e-9);
                }
                if let Ok(p) = config::Policy::from_recommendation(&rec) {
                    let files = config::emit(&p, &config::ALL_TARGETS);
                    prop_assert!(files.len() >= 10);
                    for f in &files {
                        prop_assert!(!f.contents.is_empty());
                    }
                    let back: config::Policy = toml::from_str(&files[0].contents).unwrap();
                    prop_assert_eq!(back, p);
                }
            }
        }
    }
}

/// Requests started at `times_ms` against a server that allows `limit` per sliding `window_ms`
/// (refused requests do not count): what a limiter with no rate-limit headers answers.
fn sliding_window_server(times_ms: &[i64], limit: usize, window_ms: i64) -> Vec<Request> {
    let mut accepted: std::collections::VecDeque<i64> = std::collections::VecDeque::new();
    times_ms
        .iter()
        .enumerate()
        .map(|(i, &t)| {
            while accepted.front().is_some_and(|&a| a <= t - window_ms) {
                accepted.pop_front();
            }
            let ok = accepted.len() < limit;
            if ok {
                accepted.push_back(t);
            }
            req(i, t, if ok { 200 } else { 429 }, 50.0, None)
        })
        .collect()
}

#[test]
fn a_short_run_before_the_first_429_is_not_read_as_a_per_minute_limit() {
    // 3 per second allowed; the client sends 5 at the top of every second for 30 s. Only 3 were
    // accepted (in 20 ms) before the first 429: read as "3 per minute" the plan would be 60 times
    // too slow. Per second is the only window that fits how the server accepted and refused.
    let times: Vec<i64> = (0..30)
        .flat_map(|s| (0..5).map(move |k| s * 1000 + k * 10))
        .collect();
    let reqs = sliding_window_server(&times, 3, 1000);
    let r = report(&reqs, &opts(None));
    let rec = r.recommendation.unwrap();
    let l = rec.limit.as_ref().unwrap();
    assert_eq!(l.source, LimitSource::Observed);
    assert_eq!(l.window_s, 1.0, "{}", l.detail);
    assert_eq!(l.rate_per_minute, 180.0, "{}", l.detail);
    assert_eq!(l.confidence, Some(limit::Sureness::High), "{}", l.detail);
    assert!(l.detail.contains("read as 3 per 1 s"), "{}", l.detail);
    assert!(
        l.detail.contains("ruled out: per 10 s, per 1 min"),
        "{}",
        l.detail
    );
}

#[test]
fn the_busiest_minute_before_refusals_not_the_average_of_a_long_quiet_run() {
    // 90 per minute allowed. Half an hour of one request a minute, then 2/s for two minutes:
    // averaged over the 31 minutes before the first 429 the server "allowed" under 4/min.
    let mut times: Vec<i64> = (0..30).map(|m| m * 60_000).collect();
    times.extend((0..240).map(|k| 30 * 60_000 + 30_000 + k * 500));
    let reqs = sliding_window_server(&times, 90, 60_000);
    let r = report(&reqs, &opts(None));
    let rec = r.recommendation.unwrap();
    let l = rec.limit.as_ref().unwrap();
    assert_eq!(l.window_s, 60.0, "{}", l.detail);
    assert_eq!(l.rate_per_minute, 90.0, "{}", l.detail);
    assert_eq!(l.confidence, Some(limit::Sureness::High), "{}", l.detail);
    assert_eq!(rec.rate_per_minute, Some(67.5));
}

#[test]
fn a_burst_reading_keeps_the_minute_and_says_another_window_fits() {
    // burst_incident: 80 accepted in 7.9 s, 20 refused, then one request every 10 s. 80 per
    // 10 s fits as well as 80 per minute (the client slowed down before it could tell): the
    // slower reading is used and the confidence says so.
    let reqs = burst_incident();
    let r = report(&reqs, &opts(None));
    let l = r.recommendation.unwrap().limit.unwrap();
    assert_eq!(l.rate_per_minute, 80.0, "{}", l.detail);
    assert_eq!(l.confidence, Some(limit::Sureness::Medium), "{}", l.detail);
    assert!(
        l.detail.contains("80 per 10 s would also fit"),
        "{}",
        l.detail
    );
}
