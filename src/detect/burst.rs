//! `burst`: many first attempts started in a short window, far above the sustained rate or
//! above the known limit. Retries are left out (they are `retry_storm`'s business), so a storm
//! is not reported twice.
//!
//! A window qualifies when, on one host:
//! - with a known limit (≤ 1 h window): a 1 s or 10 s window runs at ≥ 3× the limit's rate
//!   (≥ 10 requests) and either rate-limited responses followed or the window alone holds more
//!   than the whole allowance; or it runs at ≥ 1.5× the limit's rate and ≥ 3× the sustained
//!   rate, and rate-limited responses followed; either way the window holds ≥ 10 requests and,
//!   when the limit's window is longer than it, ≥ 25 % of the allowance (at most 40 requests);
//! - without one: a 1 s / 10 s window holds ≥ 40 requests at ≥ 4× the sustained rate (or ≥ 20
//!   at ≥ 10×), at ≥ 2/s, where the sustained rate is first attempts over the time the host was
//!   active (the capture less gaps over 1 h; at least a minute), and rate-limited responses came
//!   during it or within 10 s after.
//!
//! Steady traffic a little over the limit is not a burst (the plan's rate target covers it).
//!
//! A page of parallel assets, a dashboard's polling round or a steady stream stay clean: they
//! hit no limit, or are not far above their own sustained rate.

use super::limit::{for_host, KnownLimit};
use super::timeline::{busiest, Window};
use super::{at, r3, rate_text, seconds_text, Context, Finding, Severity};
use serde_json::{json, Value};

/// Worst windows reported per host.
const WORST: usize = 3;
/// Rate-limited responses this long after a window's last start still count as its result.
const AFTERMATH_S: f64 = 10.0;
/// Without a known limit, a burst needs at least this many first attempts in its window.
const MIN_UNLIMITED: usize = 40;
/// ... or this many when the window runs at ≥ 10× the sustained rate.
const MIN_UNLIMITED_FAR: usize = 20;
/// With a known limit whose window is longer than the short window, a burst must also take at
/// least this share of the allowance: a 120/min limiter lets 120 through at once, so 11
/// requests in one second (random clustering of traffic at ~2.8/s) are not a burst against it,
/// while 30 in a second, or 600 in ten, are. Capped at [`MIN_UNLIMITED`] requests.
const MIN_SHARE_OF_ALLOWANCE: f64 = 0.25;

struct Burst {
    /// Positions in the first-attempt arrays.
    first: usize,
    last: usize,
    /// Why it qualified.
    reason: &'static str,
}

/// Grow a window over neighbours that keep its pace (gaps ≤ 5× its mean gap, 0.25–1 s).
/// Seconds the host was active: the capture's span less every gap longer than
/// [`crate::overview::WINDOW_GAP_MS`] (inputs from different days are separate windows, so a
/// burst is not measured against a "sustained" rate averaged over the night between them).
fn active_seconds(t: &[f64]) -> f64 {
    let gap = crate::overview::WINDOW_GAP_MS as f64 / 1000.0;
    t.windows(2)
        .map(|w| (w[1] - w[0]).abs())
        .filter(|d| *d <= gap)
        .sum()
}

/// How many separate time windows (gaps over 1 h apart) the start times fall in.
fn active_windows(t: &[f64]) -> usize {
    let gap = crate::overview::WINDOW_GAP_MS as f64 / 1000.0;
    1 + t.windows(2).filter(|w| (w[1] - w[0]).abs() > gap).count()
}

fn extend(t: &[f64], w: &Window) -> (usize, usize) {
    let mean_gap = if w.count > 1 {
        w.span() / (w.count - 1) as f64
    } else {
        0.0
    };
    let thr = (5.0 * mean_gap).clamp(0.25, 1.0);
    let (mut a, mut b) = (w.first, w.last);
    while a > 0 && t[a] - t[a - 1] <= thr {
        a -= 1;
    }
    while b + 1 < t.len() && t[b + 1] - t[b] <= thr {
        b += 1;
    }
    (a, b)
}

pub fn detect(cx: &Context) -> Vec<Finding> {
    let mut out = Vec::new();
    for (host, idx) in &cx.by_host {
        let (host, idx) = (host.as_str(), idx.as_slice());
        let firsts: Vec<usize> = idx
            .iter()
            .copied()
            .filter(|&i| !cx.attempts.is_retry(i))
            .collect();
        if firsts.len() < 10 {
            continue;
        }
        let t: Vec<f64> = firsts
            .iter()
            .filter_map(|&i| super::start_s(&cx.requests[i]))
            .collect();
        if t.len() != firsts.len() {
            continue;
        }
        let limited_t: Vec<f64> = idx
            .iter()
            .copied()
            .filter(|&i| cx.is_limited(i))
            .filter_map(|i| super::start_s(&cx.requests[i]))
            .collect();
        let limited_between = |a: f64, b: f64| {
            limited_t
                .iter()
                .filter(|&&x| x >= a && x <= b + AFTERMATH_S)
                .count()
        };
        let sustained = t.len() as f64 / active_seconds(&t).max(60.0);
        let limit = for_host(cx, host).filter(|l| l.window_s <= 3600.0);

        let mut found: Vec<Burst> = Vec::new();
        let mut push = |b: Burst| {
            if found.iter().all(|f| b.last < f.first || b.first > f.last) {
                found.push(b);
            }
        };
        if let Some(l) = &limit {
            for win in [1.0, 10.0] {
                // The fewest requests a window must hold: 10, and a quarter of the allowance
                // when the limit's own window is longer than this one, but never more than the
                // 40 that make a burst without any known limit (an hourly allowance hides a
                // short-term limiter: 80 in 10 s refused under 5000/h is still a burst).
                let min_count = if l.window_s > win {
                    (MIN_SHARE_OF_ALLOWANCE * l.count)
                        .ceil()
                        .clamp(10.0, MIN_UNLIMITED as f64) as usize
                } else {
                    10
                };
                for w in busiest(&t, win, WORST) {
                    let rate = w.count as f64 / win;
                    let limited = limited_between(w.start, w.last_start) > 0;
                    let fast = w.count >= min_count && rate >= 3.0 * l.per_second();
                    let hurt = limited || w.count as f64 > l.count;
                    // Over the limit *and* bursty: well above the client's own sustained rate.
                    let spiky = w.count >= min_count
                        && rate >= 1.5 * l.per_second()
                        && rate >= 3.0 * sustained
                        && limited;
                    if (fast && hurt) || spiky {
                        let (a, b) = extend(&t, &w);
                        push(Burst {
                            first: a,
                            last: b,
                            reason: if fast && hurt {
                                "short-window rate at least 3× the limit's rate"
                            } else {
                                "short-window rate above the limit and at least 3× the sustained rate, followed by rate limiting"
                            },
                        });
                    }
                }
            }
        } else {
            for win in [1.0, 10.0] {
                for w in busiest(&t, win, WORST) {
                    let rate = w.count as f64 / win;
                    let far = (w.count >= MIN_UNLIMITED && rate >= 4.0 * sustained)
                        || (w.count >= MIN_UNLIMITED_FAR && rate >= 10.0 * sustained);
                    if far && rate >= 2.0 && limited_between(w.start, w.last_start) > 0 {
                        let (a, b) = extend(&t, &w);
                        push(Burst { first: a, last: b, reason: "short-window rate at least 4× the sustained rate, followed by rate limiting" });
                    }
                }
            }
        }
        if found.is_empty() {
            continue;
        }
        found.sort_by(|a, b| {
            (b.last - b.first)
                .cmp(&(a.last - a.first))
                .then(a.first.cmp(&b.first))
        });
        found.truncate(WORST);
        out.push(finding(
            cx,
            host,
            &firsts,
            &t,
            &found,
            limit.as_ref(),
            sustained,
            &limited_between,
        ));
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn finding(
    cx: &Context,
    host: &str,
    firsts: &[usize],
    t: &[f64],
    found: &[Burst],
    limit: Option<&KnownLimit>,
    sustained: f64,
    limited_between: &dyn Fn(f64, f64) -> usize,
) -> Finding {
    let windows: Vec<Value> = found
        .iter()
        .map(|b| {
            let n = b.last - b.first + 1;
            let span = t[b.last] - t[b.first];
            let own_limited = firsts[b.first..=b.last]
                .iter()
                .filter(|&&i| cx.is_limited(i))
                .count();
            json!({
                "requests": n,
                "seconds": r3(span),
                "per_second": r3(n as f64 / span.max(0.1)),
                "rate_limited_in_window": own_limited,
                "rate_limited_during_or_after": limited_between(t[b.first], t[b.last]),
                "reason": b.reason,
                "first": at(&cx.requests[firsts[b.first]]),
                "last": at(&cx.requests[firsts[b.last]]),
            })
        })
        .collect();
    let w = &found[0];
    let n = w.last - w.first + 1;
    let span = t[w.last] - t[w.first];
    let rate = n as f64 / span.max(0.1);
    let hit = limited_between(t[w.first], t[w.last]);
    let against = match limit {
        Some(l) => format!("against a limit of {}", l.text()),
        None => match active_windows(t) {
            1 => format!(
                "against a sustained {} over the capture",
                rate_text(sustained)
            ),
            n => format!(
                "against a sustained {} while the host was active ({n} time windows more than 1 h apart)",
                rate_text(sustained)
            ),
        },
    };
    let consequence = if hit > 0 {
        format!("; {hit} rate-limited responses followed")
    } else {
        String::new()
    };
    let more = if found.len() > 1 {
        format!(" ({} such windows)", found.len())
    } else {
        String::new()
    };
    let summary = format!(
        "{n} requests to {host} started in {} ({}) {against}{consequence}{more}.",
        seconds_text(span),
        rate_text(rate)
    );
    let severity = if hit > 0 {
        Severity::Critical
    } else {
        Severity::Warning
    };
    Finding::new(
        "burst",
        severity,
        summary,
        json!({
            "host": host,
            "first_attempts": firsts.len(),
            "sustained_per_second": r3(sustained),
            "limit": limit.map(|l| l.json()),
            "worst_windows": windows,
        }),
    )
}

#[cfg(test)]
mod tests {
    use crate::detect::testkit::*;

    fn batch(jobs: usize, spacing: f64) -> Vec<crate::model::Request> {
        let mut sim = Sim::new(Limiter::Window {
            limit: 120,
            window_s: 60.0,
        });
        let mut w = Worker::new("batch", "https://api.example.com/v1/reports/{j}", jobs);
        w.spacing_s = spacing;
        w.latency_ms = 10.0;
        sim.workers.push(w);
        sim.run()
    }

    #[test]
    fn gaps_over_an_hour_are_not_active_time() {
        // Two 10-minute sessions a day apart: 20 active minutes, not 24 h.
        let t: Vec<f64> = (0..=600)
            .step_by(10)
            .map(f64::from)
            .chain((0..=600).step_by(10).map(|s| 86_400.0 + f64::from(s)))
            .collect();
        assert_eq!(super::active_windows(&t), 2);
        assert!((super::active_seconds(&t) - 1200.0).abs() < 1e-9);
        let one: Vec<f64> = (0..=600).step_by(10).map(f64::from).collect();
        assert_eq!(super::active_windows(&one), 1);
        assert!((super::active_seconds(&one) - 600.0).abs() < 1e-9);
    }

    #[test]
    fn six_hundred_in_ten_seconds_is_a_burst() {
        // 600 requests ~17 ms apart (10 s), no retries: the window lets 120 through.
        let reqs = batch(600, 0.007);
        let d = crate::detect::run(
            &reqs,
            &unknown_attributions(&reqs),
            Some(crate::units::Rate::parse("120/min").unwrap()),
        );
        let b = d
            .findings
            .iter()
            .find(|f| f.kind == "burst")
            .expect("burst reported");
        assert!(
            b.summary.contains("against a limit of 120/min (2/s)"),
            "{}",
            b.summary
        );
        assert!(b.summary.starts_with("600 requests"), "{}", b.summary);
        // Without --limit, the 429s right after the burst are enough.
        assert!(kinds(&reqs, None).contains(&"burst".to_string()));
    }

    #[test]
    fn bursts_then_sleeps_even_when_the_minute_average_looks_fine() {
        // 100 requests in ~2 s every minute for 5 min against 120/min: each minute is under the
        // limit, but per-second limiting (GCRA-like) is modelled by a 2-per-second window.
        let mut sim = Sim::new(Limiter::Window {
            limit: 20,
            window_s: 10.0,
        });
        for k in 0..5 {
            let mut w = Worker::new("cron", "https://api.example.com/v1/sync/{j}", 100);
            w.client = "cron".into();
            w.start_s = k as f64 * 60.0;
            w.spacing_s = 0.01;
            w.latency_ms = 10.0;
            sim.workers.push(w);
        }
        let reqs = sim.run();
        assert!(kinds(&reqs, Some("120/min")).contains(&"burst".to_string()));
        assert!(kinds(&reqs, None).contains(&"burst".to_string()));
    }

    #[test]
    fn parallel_fan_out_that_got_limited() {
        // A page fires 30 API calls at once (Promise.all); the API allows 20 per 10 s.
        let mut s = Scenario::new();
        for k in 0..30 {
            let status = if k < 20 { 200 } else { 429 };
            s.at(60.0 + k as f64 * 0.01)
                .ua("Mozilla/5.0")
                .page("page_1")
                .dur(300.0)
                .get(&format!("https://api.example.com/v1/items/{k}"), status);
        }
        for k in 0..12 {
            s.at(7.0 + k as f64 * 15.0)
                .ua("Mozilla/5.0")
                .page("page_1")
                .get("https://api.example.com/v1/me", 200);
        }
        let reqs = s.build();
        let d = crate::detect::run(&reqs, &unknown_attributions(&reqs), None);
        let f = d
            .findings
            .iter()
            .find(|f| f.kind == "burst")
            .expect("fan-out burst");
        assert!(
            f.summary
                .starts_with("30 requests to api.example.com started in 290 ms"),
            "{}",
            f.summary
        );
        // Twenty at once that all succeed: not reported.
        let mut s = Scenario::new();
        for k in 0..20 {
            s.at(60.0 + k as f64 * 0.01)
                .ua("Mozilla/5.0")
                .get(&format!("https://api.example.com/v1/items/{k}"), 200);
        }
        assert!(kinds(&s.build(), None).is_empty());
    }

    #[test]
    fn spikes_over_the_limit_but_not_steady_excess() {
        // 40 requests at 4/s every minute against 2/s (one per 10-s window of 20 allowed).
        let mut sim = Sim::new(Limiter::Window {
            limit: 20,
            window_s: 10.0,
        });
        for k in 0..6 {
            let mut w = Worker::new(
                "sync",
                &format!("https://api.example.com/v1/a/{k}-{{j}}"),
                40,
            );
            w.start_s = k as f64 * 60.0;
            w.spacing_s = 0.24;
            w.latency_ms = 10.0;
            sim.workers.push(w);
        }
        let reqs = sim.run();
        assert!(reqs.iter().any(|r| r.status == 429));
        assert_eq!(kinds(&reqs, Some("2/s")), vec!["burst"]);
        // A steady 3/s against 2/s is over the limit but not a burst.
        let mut sim = Sim::new(Limiter::Window {
            limit: 20,
            window_s: 10.0,
        });
        let mut w = Worker::new("sync", "https://api.example.com/v1/a/{j}", 900);
        w.spacing_s = 0.323;
        w.latency_ms = 10.0;
        sim.workers.push(w);
        let reqs = sim.run();
        assert!(reqs.iter().any(|r| r.status == 429));
        assert!(kinds(&reqs, Some("2/s")).is_empty());
    }

    #[test]
    fn near_miss_fast_but_never_limited_and_under_allowance() {
        // 100 requests in 5 s with a 120/min allowance and no 429: the limiter tolerated it.
        let reqs = batch(100, 0.04);
        assert!(reqs.iter().all(|r| r.status == 200));
        assert!(kinds(&reqs, Some("120/min")).is_empty());
        assert!(kinds(&reqs, None).is_empty());
    }

    #[test]
    fn clean_scenarios_have_no_findings() {
        for limit in [None, Some("120/min")] {
            let mut s = Scenario::new();
            page_load(&mut s, 0.0, 80, 1);
            assert!(kinds(&s.build(), limit).is_empty());
            let mut s = Scenario::new();
            steady(&mut s, 0.0, 1.8, 600.0, 2);
            assert!(kinds(&s.build(), limit).is_empty(), "{limit:?}");
            let mut s = Scenario::new();
            polling(&mut s, 0.0, 5.0, 120, 8, None);
            assert!(kinds(&s.build(), limit).is_empty());
        }
    }

    /// Steady ~2.8/s with one extra cluster of `extra` requests inside a second, then a few
    /// 429s (a 120/min limiter refusing the tail of a busy minute).
    fn steady_with_cluster(extra: usize) -> Vec<crate::model::Request> {
        let mut s = Scenario::new();
        steady(&mut s, 0.0, 2.8, 300.0, 11);
        for i in 0..extra {
            s.at(100.0 + i as f64 * 0.9 / extra as f64)
                .client("ingest")
                .cred("aaaa1111")
                .dur(20.0)
                .get(&format!("https://api.example.com/v1/extra/{i}"), 200);
        }
        for i in 0..5 {
            s.at(101.0 + i as f64)
                .client("ingest")
                .cred("aaaa1111")
                .dur(10.0)
                .ra("20")
                .get(&format!("https://api.example.com/v1/late/{i}"), 429);
        }
        s.build()
    }

    #[test]
    fn a_short_window_must_take_a_real_share_of_a_long_windows_allowance() {
        // 12 in a second against 120/min: the limiter lets 120 through at once; chance
        // clustering of steady traffic, not a burst.
        let reqs = steady_with_cluster(12);
        assert!(!kinds(&reqs, Some("120/min")).contains(&"burst".to_string()));
        // 40 in a second is a third of the allowance at once: a burst.
        let reqs = steady_with_cluster(40);
        assert!(kinds(&reqs, Some("120/min")).contains(&"burst".to_string()));
    }

    #[test]
    fn an_hourly_allowance_does_not_hide_a_refused_burst() {
        // 5000/h; the server refuses past 60 starts in 10 s (a short-term limiter behind it).
        let mut s = Scenario::new();
        steady(&mut s, 0.0, 0.3, 600.0, 3);
        for i in 0..100 {
            let b = s
                .at(300.0 + i as f64 * 0.05)
                .client("bot")
                .cred("aaaa1111")
                .dur(30.0);
            let url = format!("https://api.example.com/v1/labels/{i}");
            if i < 60 {
                b.get(&url, 200);
            } else {
                b.ra("60").get(&url, 429);
            }
        }
        let reqs = s.build();
        assert!(kinds(&reqs, Some("5000/h")).contains(&"burst".to_string()));
    }
}
