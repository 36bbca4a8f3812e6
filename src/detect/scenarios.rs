//! End-to-end scenario matrix: realistic simulated incidents must produce exactly the expected
//! finding kinds (every expected one, no others), and clean traffic must produce none.

use super::testkit::*;
use crate::model::Request;

fn assert_kinds(name: &str, reqs: &[Request], limit: Option<&str>, want: &[&str]) {
    let got = kinds(reqs, limit);
    let mut want: Vec<String> = want.iter().map(|s| s.to_string()).collect();
    want.sort();
    assert_eq!(got, want, "scenario {name} (limit {limit:?})");
}

fn merge(parts: Vec<Vec<Request>>) -> Vec<Request> {
    let mut all: Vec<Request> = parts.into_iter().flatten().collect();
    all.sort_by_key(|r| r.started);
    all
}

#[test]
fn clean_traffic() {
    let mut s = Scenario::new();
    page_load(&mut s, 0.0, 80, 11);
    page_load(&mut s, 45.0, 60, 12);
    assert_kinds("two page loads", &s.build(), None, &[]);

    let mut s = Scenario::new();
    steady(&mut s, 0.0, 1.6, 1800.0, 3);
    let reqs = s.build();
    assert_kinds("steady stream under the limit", &reqs, Some("120/min"), &[]);
    assert_kinds("steady stream, no limit given", &reqs, None, &[]);

    let mut s = Scenario::new();
    polling(&mut s, 0.0, 5.0, 360, 6, None);
    assert_kinds("dashboard polling every 5 s", &s.build(), None, &[]);

    let mut s = Scenario::new();
    polling(&mut s, 0.0, 5.0, 360, 6, Some(25));
    page_load(&mut s, 2.0, 80, 5);
    assert_kinds(
        "dashboard polling through the odd 429, with a page load",
        &s.build(),
        None,
        &[],
    );

    // A worker under its limit that is limited once in a while and backs off politely.
    let mut sim = Sim::new(Limiter::Window {
        limit: 100,
        window_s: 60.0,
    });
    let mut w = Worker::new("sync", "https://api.example.com/v1/contacts/{j}", 400);
    w.spacing_s = 0.45;
    w.max_attempts = 4;
    sim.workers.push(w);
    let reqs = sim.run();
    assert!(reqs.iter().any(|r| r.status == 429));
    assert_kinds("polite client near its limit", &reqs, None, &[]);
}

#[test]
fn burst_against_a_known_limit() {
    let mut sim = Sim::new(Limiter::Window {
        limit: 120,
        window_s: 60.0,
    });
    let mut w = Worker::new("export", "https://api.example.com/v1/reports/{j}", 600);
    w.spacing_s = 0.005;
    w.latency_ms = 12.0;
    sim.workers.push(w);
    let reqs = sim.run();
    assert_kinds("600 in 10 s", &reqs, Some("120/min"), &["burst"]);
    assert_kinds("600 in 10 s, no --limit", &reqs, None, &["burst"]);
}

#[test]
fn immediate_retries_ignoring_retry_after() {
    let mut sim = Sim::new(Limiter::Window {
        limit: 60,
        window_s: 60.0,
    });
    let mut w = Worker::new("importer", "https://api.example.com/v1/rows/{j}", 120);
    w.spacing_s = 0.6;
    w.max_attempts = 10;
    w.backoff = Backoff::Fixed(0.1);
    w.jitter = 0.5;
    w.ra = RaUse::Ignore;
    sim.workers.push(w);
    let reqs = sim.run();
    assert_kinds(
        "storm",
        &reqs,
        None,
        &["ignored_retry_after", "retry_storm"],
    );
}

#[test]
fn retry_after_read_as_milliseconds() {
    let mut sim = Sim::new(Limiter::Window {
        limit: 30,
        window_s: 60.0,
    });
    sim.retry_after = Some(12.0);
    let mut w = Worker::new("mailer", "https://api.example.com/v1/messages/{j}", 60);
    w.spacing_s = 1.5;
    w.max_attempts = 4;
    w.ra = RaUse::Millis;
    sim.workers.push(w);
    let reqs = sim.run();
    let d = super::testkit::run(&reqs, &unknown_attributions(&reqs), None);
    let f = d
        .findings
        .iter()
        .find(|f| f.kind == "ignored_retry_after")
        .expect("ignored_retry_after");
    assert_eq!(f.evidence["seconds_read_as_milliseconds"], true);
    assert_kinds("ms", &reqs, None, &["ignored_retry_after"]);
}

#[test]
fn thundering_herd() {
    let mut sim = Sim::new(Limiter::Window {
        limit: 20,
        window_s: 30.0,
    });
    sim.retry_after = Some(10.0);
    for k in 0..30 {
        let mut w = Worker::new(
            &format!("pod-{k}"),
            "https://api.example.com/v1/feeds/{j}",
            3,
        );
        w.cred = format!("feed{k:04}");
        w.start_s = k as f64 * 0.003;
        w.spacing_s = 5.0;
        w.max_attempts = 3;
        w.jitter = 0.0;
        sim.workers.push(w);
    }
    let reqs = sim.run();
    let got = kinds(&reqs, None);
    assert!(got.contains(&"synchronized_retries".to_string()), "{got:?}");
    assert!(
        !got.contains(&"shared_key_contention".to_string()),
        "{got:?}"
    );
}

#[test]
fn shared_key_unsafe_posts_quota_and_concurrency() {
    // Three services on one key; each alone fits 120/min, together they do not.
    let mut sim = Sim::new(Limiter::Window {
        limit: 120,
        window_s: 60.0,
    });
    for (k, name) in ["billing", "search", "notifier"].iter().enumerate() {
        let mut w = Worker::new(name, "https://api.example.com/v1/items/{j}", 200);
        w.start_s = k as f64 * 0.21;
        w.spacing_s = 0.9;
        w.max_attempts = 2;
        w.backoff = Backoff::Exp {
            base: 4.0,
            cap: 30.0,
        };
        sim.workers.push(w);
    }
    sim.horizon_s = 240.0;
    let reqs = sim.run();
    assert_kinds(
        "shared key",
        &reqs,
        Some("120/min"),
        &["shared_key_contention"],
    );

    // Payments retried without a key.
    let mut sim = Sim::new(Limiter::Window {
        limit: 20,
        window_s: 60.0,
    });
    let mut w = Worker::new("checkout", "https://api.pay.example/v1/charges", 40);
    w.method = "POST";
    w.body = true;
    w.spacing_s = 1.0;
    w.max_attempts = 2;
    w.backoff = Backoff::Exp {
        base: 30.0,
        cap: 60.0,
    };
    sim.workers.push(w);
    let reqs = sim.run();
    assert_kinds("unsafe POST retries", &reqs, None, &["unsafe_retry"]);

    let mut sim = Sim::new(Limiter::Quota {
        allowance: 200,
        retry_after_s: 40_000.0,
    });
    let mut w = Worker::new("nightly", "https://api.llm.example/v1/embeddings", 260);
    w.method = "POST";
    w.body = true;
    w.spacing_s = 2.0;
    sim.workers.push(w);
    let reqs = sim.run();
    assert_kinds("quota", &reqs, None, &["quota_exhausted"]);

    let mut sim = Sim::new(Limiter::Concurrency { max: 4 });
    for k in 0..7 {
        let mut w = Worker::new(
            &format!("thumb-{k}"),
            "https://img.example.com/v1/resize/{j}",
            25,
        );
        w.start_s = k as f64 * 1.3;
        w.latency_ms = 5000.0;
        w.spacing_s = 0.3;
        w.max_attempts = 2;
        w.backoff = Backoff::Exp {
            base: 3.0,
            cap: 10.0,
        };
        sim.workers.push(w);
    }
    let reqs = sim.run();
    assert_kinds("concurrency", &reqs, None, &["concurrency_limit"]);
}

#[test]
fn incident_inside_ordinary_traffic() {
    // A browser capture: page load and dashboard polling (clean), while a background export
    // hammers the API and retries without waiting.
    let mut s = Scenario::new();
    page_load(&mut s, 0.0, 80, 21);
    polling(&mut s, 1.0, 5.0, 60, 4, None);
    let clean = s.build();
    let mut sim = Sim::new(Limiter::Window {
        limit: 50,
        window_s: 60.0,
    });
    let mut w = Worker::new("export", "https://api.example.com/v1/export/{j}", 300);
    w.start_s = 30.0;
    w.spacing_s = 0.01;
    w.latency_ms = 20.0;
    w.max_attempts = 6;
    w.backoff = Backoff::Fixed(0.05);
    w.jitter = 0.3;
    w.ra = RaUse::Ignore;
    sim.workers.push(w);
    let reqs = merge(vec![clean, sim.run()]);
    let d = super::testkit::run(&reqs, &unknown_attributions(&reqs), None);
    for f in &d.findings {
        assert_eq!(
            f.evidence["host"], "api.example.com",
            "{}: {}",
            f.kind, f.summary
        );
    }
    assert_kinds(
        "export storm in a browser capture",
        &reqs,
        None,
        &["ignored_retry_after", "retry_storm"],
    );
}

mod robustness {
    use crate::detect::testkit::*;
    use crate::model::Request;
    use proptest::prelude::*;

    /// (start s, client, status, duration ms, Retry-After variant, method, url variant).
    type Spec = (f64, u8, u16, Option<f64>, u8, u8, u8);

    fn arb_request() -> impl Strategy<Value = Spec> {
        (
            prop_oneof![0.0..5.0f64, 0.0..100_000.0f64, Just(0.0)],
            0u8..6,
            prop_oneof![
                Just(200u16),
                Just(429),
                Just(503),
                Just(0),
                Just(201),
                100u16..600
            ],
            prop_oneof![
                Just(None),
                (0.0..1e7f64).prop_map(Some),
                Just(Some(-5.0)),
                Just(Some(f64::NAN))
            ],
            0u8..8,
            0u8..4,
            0u8..3,
        )
    }

    fn build(spec: &[Spec]) -> Vec<Request> {
        let mut s = Scenario::new();
        let ras = [
            "12",
            "0",
            "-1",
            "soon",
            "99999999999999999999",
            "Wed, 21 Oct 2015 07:28:00 GMT",
            "1.5",
            "3600",
        ];
        for &(t, client, status, dur, ra, method, url) in spec {
            let mut b = s
                .at(t)
                .client(&format!("c{client}"))
                .cred(if client % 2 == 0 {
                    "aaaa0000"
                } else {
                    "bbbb1111"
                });
            b = match dur {
                Some(d) => b.dur(d),
                None => b.no_dur(),
            };
            if ra < 6 {
                b = b.ra(ras[ra as usize]);
            }
            if url == 1 {
                b = b.idem(&format!("{:08x}", t as u64));
            }
            b.req(
                ["GET", "POST", "PUT", "PATCH"][method as usize],
                [
                    "https://a.x/v1/p",
                    "https://a.x/v1/p?_=1",
                    "https://b.y/graphql",
                ][url as usize],
                status,
            );
        }
        s.build()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        /// Any request sequence: no panic, and the same input gives the same findings.
        #[test]
        fn never_panics_and_is_deterministic(spec in proptest::collection::vec(arb_request(), 0..300), limit in prop_oneof![Just(None), Just(Some("120/min")), Just(Some("2/s")), Just(Some("10000/day"))]) {
            let reqs = build(&spec);
            let a = kinds(&reqs, limit);
            let b = kinds(&reqs, limit);
            prop_assert_eq!(a, b);
            let lim = unknown_attributions(&reqs);
            let d1 = crate::detect::testkit::run(&reqs, &lim, None);
            let d2 = crate::detect::testkit::run(&reqs, &lim, None);
            prop_assert_eq!(serde_json::to_string(&d1.findings).unwrap(), serde_json::to_string(&d2.findings).unwrap());
        }
    }
}
