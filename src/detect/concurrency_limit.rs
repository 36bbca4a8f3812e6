//! `concurrency_limit`: the 429s follow the number of requests in flight, not the start rate.
//!
//! Per host with ≥ 3 rate-limited responses, ≥ 5 successes and durations on ≥ 80 % of records:
//! how well does "requests in flight at the start ≥ T" separate rate-limited starts from
//! successful ones (best threshold, balanced accuracy), compared with the same test on the
//! start rate over the previous 1 s and 10 s? Reported when in-flight separates them well
//! (≥ 0.85) and clearly better than the start rate (by ≥ 0.1), or when the attribution (or the
//! body: "too many concurrent requests") says the limit is on concurrency for at least half of
//! the rate-limited responses.

use super::{r3, rate_text, Cx, Detector, Finding, Placed, Severity, Step};
use crate::attribute::Quota;
use crate::model::event::Event;
use crate::stats::Counts;
use serde_json::json;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};

/// Best threshold T and its balanced accuracy for "feature ≥ T ⇒ rate-limited".
fn separation(p: &Counts, n: &Counts) -> (f64, f64) {
    let mut cands: Vec<usize> = p.values().chain(n.values()).collect();
    cands.sort_unstable();
    cands.dedup();
    let mut best = (0.5, f64::INFINITY);
    for t in cands {
        let tpr = (p.len() as u64 - p.below(t)) as f64 / p.len() as f64;
        let tnr = n.below(t) as f64 / n.len() as f64;
        let b = (tpr + tnr) / 2.0;
        if b > best.0 {
            best = (b, t as f64);
        }
    }
    best
}

/// The three features of one class of responses: requests in flight at the start, and starts
/// over the previous 1 s and 10 s.
#[derive(Default)]
struct Features {
    fl: Counts,
    r1: Counts,
    r10: Counts,
}

impl Features {
    fn push(&mut self, fl: usize, r1: usize, r10: usize) {
        self.fl.push(fl);
        self.r1.push(r1);
        self.r10.push(r10);
    }
}

use crate::stats::TotalF64 as End;

#[derive(Default)]
struct Host {
    timed: usize,
    with_duration: usize,
    lim: Features,
    ok: Features,
    said: usize,
    first_limited: Option<Event>,
    /// Requests that start at the same instant, read together.
    group: Vec<(Event, f64, f64, bool)>,
    group_t: f64,
    started: usize,
    ends: BinaryHeap<Reverse<End>>,
    ended: usize,
    /// Start times of the last 1 s and 10 s, one entry per instant (with its number of
    /// starts), not one per request.
    last_1s: VecDeque<(f64, usize)>,
    before_1s: usize,
    last_10s: VecDeque<(f64, usize)>,
    before_10s: usize,
}

impl Host {
    /// Requests in flight and trailing starts for every request starting at `group_t`.
    fn flush(&mut self) {
        if self.group.is_empty() {
            return;
        }
        let t = self.group_t;
        let n = self.group.len();
        self.started += n;
        for &(_, _, e, _) in &self.group {
            self.ends.push(Reverse(End(e)));
        }
        self.last_1s.push_back((t, n));
        self.last_10s.push_back((t, n));
        while let Some(Reverse(End(e))) = self.ends.peek().copied() {
            if e > t {
                break;
            }
            self.ends.pop();
            self.ended += 1;
        }
        for (w, q, before) in [
            (1.0, &mut self.last_1s, &mut self.before_1s),
            (10.0, &mut self.last_10s, &mut self.before_10s),
        ] {
            while let Some(&(_, n)) = q.front().filter(|&&(x, _)| x < t - w) {
                q.pop_front();
                *before += n;
            }
        }
        // Drained, not taken: the group's buffer serves the next instant too.
        for (ev, start, end, said) in self.group.drain(..) {
            let own = usize::from(end > start);
            let fl = self.started.saturating_sub(self.ended).saturating_sub(own);
            let r1 = self
                .started
                .saturating_sub(self.before_1s)
                .saturating_sub(1);
            let r10 = self
                .started
                .saturating_sub(self.before_10s)
                .saturating_sub(1);
            if ev.limited() {
                if said {
                    self.said += 1;
                }
                self.first_limited.get_or_insert(ev);
                self.lim.push(fl, r1, r10);
            }
            // A rate-limited 202 (a WAF challenge) is a success too, as a status.
            if (200..300).contains(&ev.status) {
                self.ok.push(fl, r1, r10);
            }
        }
    }
}

/// `concurrency_limit` (see the module doc).
#[derive(Default)]
pub struct Concurrency {
    hosts: BTreeMap<u32, Host>,
}

impl Detector for Concurrency {
    /// Reads only the requests (in flight, start rates): runs beside the linking lane.
    fn reads_links(&self) -> bool {
        false
    }

    fn step(&mut self, s: &Step, cx: &Cx) {
        let (Some(t), Some(e)) = (s.ev.start_s(), s.ev.end_s()) else {
            return;
        };
        let h = self.hosts.entry(s.ev.host).or_default();
        if !h.group.is_empty() && t != h.group_t {
            h.flush();
        }
        h.group_t = t;
        h.timed += 1;
        if s.ev.duration_ms().is_some() {
            h.with_duration += 1;
        }
        let said = s.ev.limited()
            && cx
                .facts(s.ev)
                .is_some_and(|f| f.quota() == Quota::Concurrency || f.says_concurrency);
        h.group.push((*s.ev, t, e, said));
    }

    fn finish(&mut self, cx: &Cx, _earlier: &[Finding]) -> Vec<Placed> {
        let mut out = Vec::new();
        for (&id, h) in self.hosts.iter_mut() {
            h.flush();
            let host = cx.host(id);
            if let Some(f) = finding(cx, host, h) {
                out.push(((host.to_string(), 0), f));
            }
        }
        out
    }
}

/// The finding for one host, if its 429s follow the number of requests in flight.
fn finding(cx: &Cx, host: &str, h: &Host) -> Option<Finding> {
    if h.lim.fl.len() < 3 || h.ok.fl.len() < 5 {
        return None;
    }
    if (h.with_duration as f64) < 0.8 * h.timed as f64 {
        return None;
    }
    let (b_fl, t_fl) = separation(&h.lim.fl, &h.ok.fl);
    let (b_r1, _) = separation(&h.lim.r1, &h.ok.r1);
    let (b_r10, _) = separation(&h.lim.r10, &h.ok.r10);
    let b_rate = b_r1.max(b_r10);
    let by_flight =
        b_fl >= 0.85 && b_fl - b_rate >= 0.1 && h.lim.fl.percentile(0.5) > h.ok.fl.percentile(0.5);
    let by_attribution = h.said * 2 >= h.lim.fl.len();
    if !(by_flight || by_attribution) {
        return None;
    }
    let rate_lim = h.lim.r10.percentile(0.5) / 10.0;
    let rate_ok = h.ok.r10.percentile(0.5) / 10.0;
    let estimate = if t_fl.is_finite() {
        Some(t_fl as usize)
    } else {
        None
    };
    let limit_text = match estimate {
        Some(t) if by_flight => format!("a limit of about {t} requests in flight"),
        _ => "a limit on requests in flight".to_string(),
    };
    let (lo, hi) = (
        h.lim.fl.min().unwrap_or(0) as f64,
        h.lim.fl.max().unwrap_or(0) as f64,
    );
    let at_429 = if lo == hi {
        format!("{lo} other requests in flight at every one")
    } else {
        format!(
            "a median of {} other requests in flight ({lo}–{hi})",
            h.lim.fl.percentile(0.5)
        )
    };
    let summary = format!(
        "The {} rate-limited responses from {host} came with {at_429}, versus a median of {} (p90 {}) at the {} successes, while the start rate over the previous 10 s was {}({} vs {}): this looks like {limit_text}; bound requests in flight, since a slower start rate alone will not fix it.",
        h.lim.fl.len(),
        h.ok.fl.percentile(0.5),
        h.ok.fl.percentile(0.9),
        h.ok.fl.len(),
        if by_flight { "about the same " } else { "" },
        rate_text(rate_lim),
        rate_text(rate_ok),
    );
    Some(Finding::new(
        super::Kind::ConcurrencyLimit,
        Severity::Warning,
        summary,
        json!({
            "host": host,
            "rate_limited": h.lim.fl.len(),
            "successes": h.ok.fl.len(),
            "in_flight_at_rate_limited": {
                "min": h.lim.fl.min().map(|v| v as f64), "median": h.lim.fl.percentile(0.5), "max": h.lim.fl.max().map(|v| v as f64)
            },
            "in_flight_at_successes": {
                "median": h.ok.fl.percentile(0.5), "p90": h.ok.fl.percentile(0.9), "max": h.ok.fl.max().map(|v| v as f64)
            },
            "start_rate_10s_at_rate_limited": r3(rate_lim),
            "start_rate_10s_at_successes": r3(rate_ok),
            "separation_by_in_flight": r3(b_fl),
            "separation_by_start_rate": r3(b_rate),
            "estimated_limit_in_flight": estimate.filter(|_| by_flight),
            "responses_saying_concurrency": h.said,
            "first_rate_limited": h.first_limited.map(|e| cx.at(&e)),
        }),
    ))
}

#[cfg(test)]
mod tests {
    use crate::detect::testkit::*;

    #[test]
    fn slow_requests_hit_an_in_flight_cap() {
        let mut sim = Sim::new(Limiter::Concurrency { max: 5 });
        for k in 0..8 {
            let mut w = Worker::new(
                &format!("render-{k}"),
                "https://api.example.com/v1/render/{j}",
                20,
            );
            w.start_s = k as f64 * 0.9;
            w.latency_ms = 4000.0;
            w.spacing_s = 0.5;
            w.max_attempts = 3;
            w.backoff = Backoff::Exp {
                base: 2.0,
                cap: 10.0,
            };
            sim.workers.push(w);
        }
        let reqs = sim.run();
        let d = crate::detect::testkit::run(&reqs, &unknown_attributions(&reqs), None);
        let f = d
            .findings
            .iter()
            .find(|f| f.kind == "concurrency_limit")
            .expect("concurrency");
        assert!(
            f.summary.contains("about 5 requests in flight"),
            "{}",
            f.summary
        );
    }

    #[test]
    fn near_miss_rate_limit_with_slow_responses() {
        // Start-rate limit (window), slow responses: in-flight is high everywhere.
        let mut sim = Sim::new(Limiter::Window {
            limit: 30,
            window_s: 30.0,
        });
        for k in 0..6 {
            let mut w = Worker::new(&format!("w{k}"), "https://api.example.com/v1/items/{j}", 40);
            w.start_s = k as f64 * 0.5;
            w.latency_ms = 2500.0;
            w.spacing_s = 0.2;
            w.max_attempts = 3;
            sim.workers.push(w);
        }
        let reqs = sim.run();
        assert!(reqs.iter().filter(|r| r.status == 429).count() >= 3);
        assert!(!kinds(&reqs, None).contains(&"concurrency_limit".to_string()));
    }
}
