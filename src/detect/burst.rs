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

use super::limit::KnownLimit;
use super::timeline::{Candidates, Window};
use super::{r3, rate_text, seconds_text, Cx, Detector, Finding, Placed, Severity, Step};
use crate::model::event::Event;
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
/// No window with fewer first attempts than this can qualify, whatever the limit.
const MIN_ANY: usize = 10;
const WINDOWS: [f64; 2] = [1.0, 10.0];

/// A qualifying window, then its extent once grown over neighbours at its pace.
#[derive(Debug, Clone)]
struct Found {
    /// Positions in the host's first attempts: the window, then grown.
    first: usize,
    last: usize,
    /// Grow over gaps up to this, seconds.
    thr: f64,
    reason: &'static str,
    grown: Option<Grown>,
}

/// What the second look finds out about a window's grown extent.
#[derive(Debug, Clone, Default)]
struct Grown {
    first: usize,
    last: usize,
    first_ev: Option<Event>,
    last_ev: Option<Event>,
    /// Rate-limited first attempts from the current run start up to `last`.
    limited: usize,
    /// The left edge is settled (the window's own first attempt was reached).
    left_done: bool,
    right_done: bool,
}

#[derive(Default)]
struct Host {
    /// First attempts (not retries) seen: their windows.
    windows: Vec<Candidates>,
    firsts: usize,
    /// Time the first attempts were active (gaps over an hour left out).
    active: Active,
    /// Start times of the rate-limited responses (every attempt), in order.
    limited_t: Vec<f64>,
    bursts: Vec<Found>,
    sustained: f64,
    /// Second look: position in the first attempts, previous time.
    at: usize,
    prev_t: f64,
}

/// `burst` (see the module doc).
#[derive(Default)]
pub struct Burst {
    hosts: Vec<Host>,
}

fn host(hosts: &mut Vec<Host>, id: u32) -> &mut Host {
    let i = id as usize;
    if hosts.len() <= i {
        hosts.resize_with(i + 1, Host::default);
    }
    let h = &mut hosts[i];
    if h.windows.is_empty() {
        h.windows = WINDOWS
            .iter()
            .map(|&w| Candidates::new(w, MIN_ANY, WORST))
            .collect();
    }
    h
}

fn limited_between(limited_t: &[f64], a: f64, b: f64) -> usize {
    limited_t
        .iter()
        .filter(|&&x| x >= a && x <= b + AFTERMATH_S)
        .count()
}

/// Seconds the host was active: the capture's span less every gap longer than
/// [`crate::overview::WINDOW_GAP_MS`] (inputs from different days are separate windows, so a
/// burst is not measured against a "sustained" rate averaged over the night between them);
/// and how many such windows there are. Fed start times in time order.
#[derive(Debug, Default, Clone, Copy)]
struct Active {
    seconds: f64,
    windows: usize,
    last: Option<f64>,
}

impl Active {
    fn push(&mut self, t: f64) {
        let gap = crate::overview::WINDOW_GAP_MS as f64 / 1000.0;
        match self.last {
            None => self.windows = 1,
            Some(prev) => {
                let d = (t - prev).abs();
                if d <= gap {
                    self.seconds += d;
                } else {
                    self.windows += 1;
                }
            }
        }
        self.last = Some(t);
    }
}

/// Grow a window over neighbours that keep its pace: gaps up to 5× its mean gap, 0.25–1 s.
fn threshold(w: &Window) -> f64 {
    let mean_gap = if w.count > 1 {
        w.span() / (w.count - 1) as f64
    } else {
        0.0
    };
    (5.0 * mean_gap).clamp(0.25, 1.0)
}

impl Detector for Burst {
    fn step(&mut self, s: &Step, _cx: &Cx) {
        let Some(t) = s.ev.start_s() else { return };
        let h = host(&mut self.hosts, s.ev.host);
        if s.ev.limited() {
            h.limited_t.push(t);
        }
        if s.is_retry() {
            return;
        }
        h.firsts += 1;
        h.active.push(t);
        for c in &mut h.windows {
            c.push(t);
        }
    }

    fn second_look(&mut self, cx: &Cx) -> bool {
        let mut any = false;
        for (id, h) in self.hosts.iter_mut().enumerate() {
            if h.firsts < MIN_ANY {
                continue;
            }
            h.sustained = h.firsts as f64 / h.active.seconds.max(60.0);
            let limit = cx.limit(id as u32).filter(|l| l.window_s <= 3600.0);
            let limited_t = std::mem::take(&mut h.limited_t);
            let lb = |a: f64, b: f64| limited_between(&limited_t, a, b);
            for (wi, &win) in WINDOWS.iter().enumerate() {
                for w in h.windows[wi].best() {
                    if let Some(reason) = qualifies(&w, win, limit, h.sustained, &lb) {
                        h.bursts.push(Found {
                            first: w.first,
                            last: w.last,
                            thr: threshold(&w),
                            reason,
                            grown: Some(Grown {
                                first: 0,
                                last: w.last,
                                ..Default::default()
                            }),
                        });
                    }
                }
            }
            h.limited_t = limited_t;
            h.windows.clear();
            any |= !h.bursts.is_empty();
        }
        any
    }

    fn step_again(&mut self, s: &Step, cx: &Cx) {
        if s.is_retry() {
            return;
        }
        let Some(h) = self.hosts.get_mut(s.ev.host as usize) else {
            return;
        };
        if h.bursts.is_empty() {
            return;
        }
        let Some(t) = s.ev.start_s() else { return };
        let k = h.at;
        h.at += 1;
        let gap = if k == 0 { f64::INFINITY } else { t - h.prev_t };
        h.prev_t = t;
        let limited = s.ev.limited();
        for b in &mut h.bursts {
            let Some(g) = &mut b.grown else { continue };
            if !g.left_done && (k == 0 || gap > b.thr) {
                // A gap wider than the pace: the run starts here.
                g.first = k;
                g.first_ev = Some(*s.ev);
                g.limited = 0;
            }
            if k == b.first {
                g.left_done = true;
            }
            if g.right_done {
                continue;
            }
            if k > b.last && gap > b.thr {
                g.right_done = true;
                continue;
            }
            g.last = k;
            g.last_ev = Some(*s.ev);
            if limited {
                g.limited += 1;
            }
        }
        let _ = cx;
    }

    fn finish(&mut self, cx: &Cx, _earlier: &[Finding]) -> Vec<Placed> {
        let mut out = Vec::new();
        for (id, h) in self.hosts.iter_mut().enumerate() {
            if h.bursts.is_empty() {
                continue;
            }
            // Grown extents; the busiest windows first decide, the later ones may not overlap.
            let mut found: Vec<Found> = Vec::new();
            for mut b in std::mem::take(&mut h.bursts) {
                if let Some(g) = &b.grown {
                    b.first = g.first;
                    b.last = g.last;
                }
                if found.iter().all(|f| b.last < f.first || b.first > f.last) {
                    found.push(b);
                }
            }
            found.sort_by(|a, b| {
                (b.last - b.first)
                    .cmp(&(a.last - a.first))
                    .then(a.first.cmp(&b.first))
            });
            found.truncate(WORST);
            let host = cx.host(id as u32).to_string();
            let limit = cx.limit(id as u32).filter(|l| l.window_s <= 3600.0);
            let f = finding(cx, &host, h, &found, limit);
            out.push(((host, 0), f));
        }
        out
    }
}

/// Why a window (of length `win`) is a burst, if it is.
fn qualifies(
    w: &Window,
    win: f64,
    limit: Option<&KnownLimit>,
    sustained: f64,
    limited_between: &dyn Fn(f64, f64) -> usize,
) -> Option<&'static str> {
    let rate = w.count as f64 / win;
    let limited = limited_between(w.start, w.last_start) > 0;
    match limit {
        Some(l) => {
            // The fewest requests a window must hold: 10, and a quarter of the allowance when
            // the limit's own window is longer than this one, but never more than the 40 that
            // make a burst without any known limit (an hourly allowance hides a short-term
            // limiter: 80 in 10 s refused under 5000/h is still a burst).
            let min_count = if l.window_s > win {
                (MIN_SHARE_OF_ALLOWANCE * l.count)
                    .ceil()
                    .clamp(10.0, MIN_UNLIMITED as f64) as usize
            } else {
                10
            };
            let fast = w.count >= min_count && rate >= 3.0 * l.per_second();
            let hurt = limited || w.count as f64 > l.count;
            // Over the limit *and* bursty: well above the client's own sustained rate.
            let spiky = w.count >= min_count
                && rate >= 1.5 * l.per_second()
                && rate >= 3.0 * sustained
                && limited;
            if fast && hurt {
                Some("short-window rate at least 3× the limit's rate")
            } else if spiky {
                Some("short-window rate above the limit and at least 3× the sustained rate, followed by rate limiting")
            } else {
                None
            }
        }
        None => {
            let far = (w.count >= MIN_UNLIMITED && rate >= 4.0 * sustained)
                || (w.count >= MIN_UNLIMITED_FAR && rate >= 10.0 * sustained);
            (far && rate >= 2.0 && limited).then_some(
                "short-window rate at least 4× the sustained rate, followed by rate limiting",
            )
        }
    }
}

fn finding(cx: &Cx, host: &str, h: &Host, found: &[Found], limit: Option<&KnownLimit>) -> Finding {
    let lb = |a: f64, b: f64| limited_between(&h.limited_t, a, b);
    let windows: Vec<Value> = found
        .iter()
        .map(|b| {
            let n = b.last - b.first + 1;
            let e = Ends::of(cx, b);
            let span = e.t1 - e.t0;
            json!({
                "requests": n,
                "seconds": r3(span),
                "per_second": r3(n as f64 / span.max(0.1)),
                "rate_limited_in_window": e.limited,
                "rate_limited_during_or_after": lb(e.t0, e.t1),
                "reason": b.reason,
                "first": e.first,
                "last": e.last,
            })
        })
        .collect();
    let w = &found[0];
    let n = w.last - w.first + 1;
    let Ends { t0, t1, .. } = Ends::of(cx, w);
    let span = t1 - t0;
    let rate = n as f64 / span.max(0.1);
    let hit = lb(t0, t1);
    let against = against(h, limit);
    let consequence = if hit > 0 {
        format!(
            "; {} followed",
            crate::units::count(hit, "rate-limited response")
        )
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
        super::Kind::Burst,
        severity,
        summary,
        json!({
            "host": host,
            "first_attempts": h.firsts,
            "sustained_per_second": r3(h.sustained),
            "limit": limit.map(|l| l.json()),
            "worst_windows": windows,
        }),
    )
}

/// A burst window's ends: their start times (s; 0 when unknown), as the report shows them, and
/// the rate-limited responses within.
struct Ends {
    t0: f64,
    t1: f64,
    first: Value,
    last: Value,
    limited: usize,
}

impl Ends {
    fn of(cx: &Cx, b: &Found) -> Ends {
        let g = b.grown.as_ref();
        let (fe, le) = (g.and_then(|g| g.first_ev), g.and_then(|g| g.last_ev));
        let t = |e: Option<Event>| e.and_then(|e| e.start_s()).unwrap_or(0.0);
        let at = |e: Option<Event>| e.map(|e| cx.at(&e)).unwrap_or(Value::Null);
        Ends {
            t0: t(fe),
            t1: t(le),
            first: at(fe),
            last: at(le),
            limited: g.map(|g| g.limited).unwrap_or(0),
        }
    }
}

/// What the burst's rate is set against: the limit, else the host's sustained rate.
fn against(h: &Host, limit: Option<&KnownLimit>) -> String {
    let sustained = h.sustained;
    match limit {
        Some(l) => format!("against a limit of {}", l.text()),
        None => match h.active.windows {
            // The rate is taken over at least a minute: a shorter capture shows no sustained
            // rate, so say what the figure is.
            1 if h.active.seconds < 60.0 => format!(
                "against {} if the host's {} were all of a minute's (they span only {})",
                rate_text(sustained),
                crate::units::count(h.firsts, "first attempt"),
                seconds_text(h.active.seconds)
            ),
            1 => format!(
                "against a sustained {} over the capture",
                rate_text(sustained)
            ),
            n => format!(
                "against a sustained {} while the host was active ({n} time windows more than 1 h apart)",
                rate_text(sustained)
            ),
        },
    }
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
        let active = |t: &[f64]| {
            let mut a = super::Active::default();
            t.iter().for_each(|&x| a.push(x));
            a
        };
        assert_eq!(active(&t).windows, 2);
        assert!((active(&t).seconds - 1200.0).abs() < 1e-9);
        let one: Vec<f64> = (0..=600).step_by(10).map(f64::from).collect();
        assert_eq!(active(&one).windows, 1);
        assert!((active(&one).seconds - 600.0).abs() < 1e-9);
    }

    #[test]
    fn six_hundred_in_ten_seconds_is_a_burst() {
        // 600 requests ~17 ms apart (10 s), no retries: the window lets 120 through.
        let reqs = batch(600, 0.007);
        let d = crate::detect::testkit::run(
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
        let d = crate::detect::testkit::run(&reqs, &unknown_attributions(&reqs), None);
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
