//! The verdict cache of the rate-limited rows changes nothing: every field the attribution
//! reads, varied, gives the same report as attributing each row on its own.

use super::replay::split_detectors;
use super::*;
use crate::detect::testkit::Scenario;

/// Rate-limited responses that differ (or not) in each input of the attribution, on a few
/// hosts with their successes, more than one attribution chunk of them.
fn varied() -> Vec<Request> {
    let mut s = Scenario::new();
    let mut t = 0.0;
    let hosts = [
        "https://api.example.com/v1/orders/",
        "https://www.googleapis.com/youtube/v3/videos/",
        "https://www.googleapis.com/drive/v3/files/",
        "https://API.Example.com/v1/mixed-case/",
    ];
    for round in 0..30 {
        for base in hosts.iter() {
            t += 0.5;
            s.at(t)
                .resp("Content-Type", "application/json")
                .resp("cf-ray", "8a1b2c3d4e5f-FRA")
                .get(&format!("{base}{round}"), 200);
        }
    }
    for i in 0..2300u32 {
        t += 0.01;
        let base = hosts[(i % 4) as usize];
        let url = format!("{base}{}", i % 7);
        let r = s.at(t).resp("Content-Type", "application/json");
        let r = match i % 11 {
            // Identical apart from the URL's id and the time: one verdict each host.
            0..=3 => r.ra("12").resp("X-RateLimit-Remaining", "0"),
            // A Retry-After date: its wait depends on the record's time.
            4 => r.ra("Wed, 21 Oct 2026 07:28:00 GMT"),
            // An epoch reset without a Date header: against the record's time.
            5 => r
                .resp("X-RateLimit-Limit", "100")
                .resp("X-RateLimit-Remaining", "0")
                .resp("X-RateLimit-Reset", &format!("{}", 1_772_442_600 + i % 3)),
            // The same with a Date header.
            6 => r
                .resp("Date", "Mon, 02 Mar 2026 09:00:10 GMT")
                .resp("X-RateLimit-Reset", "1772442030"),
            7 => r.excerpt(if i % 2 == 0 {
                r#"{"error":"rate_limit_exceeded"}"#
            } else {
                "error code: 1015"
            }),
            8 => r
                .resp("Server", "cloudflare")
                .excerpt("<html>Too Many Requests</html>"),
            9 => r.resp("x-envoy-ratelimited", "true"),
            _ => r.ra(&format!("{}", i % 5)).excerpt("quota exceeded"),
        };
        let status = if i % 13 == 0 { 503 } else { 429 };
        r.get(&url, status);
    }
    s.build()
}

fn report_with(reqs: &[Request], attribute: &Attribute) -> Report {
    let c = collect_records(reqs, None);
    let rec = crate::recommend::Options::default();
    finish(
        c,
        Vec::new(),
        None,
        &AnalyzeOptions::default(),
        &rec,
        attribute,
    )
}

#[test]
fn cached_verdicts_equal_verdicts_row_by_row() {
    let reqs = varied();
    let cached = report_with(&reqs, &Attribute::Engine);
    let direct = report_with(&reqs, &Attribute::EngineUncached);
    assert!(
        cached.rate_limited.len() > 2048,
        "{}",
        cached.rate_limited.len()
    );
    let json = |r: &Report| serde_json::to_string_pretty(&r.rate_limited).unwrap();
    assert_eq!(json(&cached), json(&direct));
    // And the report around them.
    let whole = |r: &Report| {
        let mut v = serde_json::to_value(r).unwrap();
        v["generated_by"] = serde_json::Value::Null;
        v.to_string()
    };
    assert_eq!(whole(&cached), whole(&direct));
    // Alike rows share one verdict.
    let distinct: std::collections::HashSet<*const Attribution> = cached
        .rate_limited
        .iter()
        .map(|r| Arc::as_ptr(&r.attribution))
        .collect();
    assert!(
        distinct.len() < cached.rate_limited.len() / 4,
        "{}",
        distinct.len()
    );
}

/// Each detector runs on exactly one lane, and the side lane (which does not link) gets only
/// detectors that read no links.
#[test]
fn split_detectors_places_each_once() {
    let n = crate::detect::detectors().len();
    let [a, b] = split_detectors(crate::detect::detectors());
    assert_eq!((a.len(), b.len()), (n, n));
    for (x, y) in a.iter().zip(&b) {
        assert!(x.is_some() != y.is_some());
    }
    assert!(b.iter().flatten().all(|(d, _)| !d.reads_links()));
    assert!(a.iter().flatten().all(|(d, _)| d.reads_links()));
    assert!(b.iter().any(Option::is_some));
}

/// The first pass made while the only input's log is written (cadences, the overview's first
/// pass) gives the findings and overview the first replay gives.
#[test]
fn first_pass_made_early_equals_the_first_replay() {
    let mut s = Scenario::new();
    crate::detect::testkit::polling(&mut s, 0.0, 5.0, 200, 4, Some(9));
    let mut reqs = s.build();
    reqs.extend(varied());
    reqs.sort_by_key(|r| r.started);
    let run = |early: bool| {
        let mut c = collect_records(&reqs, None);
        let p = prepare(&mut c, &Attribute::Engine, &Default::default());
        let first = c.take_early();
        assert!(first.is_some(), "one input in time order");
        let r = run_detectors(&c, &p, c.coarse_time(), None, first.filter(|_| early));
        (
            serde_json::to_string(&r.findings).unwrap(),
            format!("{:?}", r.overview),
        )
    };
    let (early, replayed) = (run(true), run(false));
    assert_ne!(early.0, "[]", "findings to compare");
    assert_eq!(early, replayed);
}
