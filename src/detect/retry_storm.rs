//! `retry_storm`: retries amplify traffic. Per host: attempts per logical request (max, p95),
//! retries ÷ first attempts, the share of traffic that is retries, and, when the gaps between
//! attempts fall into short runs separated by long pauses of equal length, the nested retry
//! layers that multiply attempts (an SDK's 3 attempts inside an app loop of 4 = 12).
//!
//! Reported when a host saw ≥ 10 retries and either a p95 of ≥ 6 attempts per logical request,
//! one logical request with ≥ 10 attempts at ≥ 2 a minute; or ≥ 1 retry per first attempt with
//! some logical request at ≥ 3 attempts, or ≥ 0.5 with one at ≥ 6, unless ≥ 80 % of the
//! retries waited out the server's Retry-After. A client that retries the odd 429 once or
//! twice, or every request once, or politely after each Retry-After, stays clean.

use super::link::{Attempt, Logical};
use super::{r3, sort_f64, Cx, Detector, Finding, Placed, Severity, Step};
use crate::stats::Counts;
use serde_json::{json, Value};
use std::collections::BTreeMap;

const MIN_RETRIES: usize = 10;
/// p95 attempts per logical request that make a storm on their own: more than the
/// recommendation's own budget of 5 attempts.
const PERSISTENT_P95: f64 = 6.0;
/// A logical request of ≥ 10 attempts makes a storm when it retried at least this often (per
/// minute).
const MIN_PERSISTENT_PACE: f64 = 2.0;

/// Inner attempts per round and number of rounds, when the gaps show two retry layers.
pub(crate) fn nested_layers(l: &Logical) -> Option<(usize, usize)> {
    if l.attempts.len() < 4 {
        return None;
    }
    let mut gaps = Vec::new();
    for w in l.attempts.windows(2) {
        gaps.push((w[1].ev.start_s()? - w[0].ev.end_s()?).max(0.0));
    }
    let mut sorted = gaps.clone();
    sort_f64(&mut sorted);
    // Try every clear break between consecutive sorted gaps (long ≥ 1.5× short) that cuts the
    // attempts into equal runs: `k` attempts per round, `m` rounds (the last round may be cut
    // short by a success). Prefer a cut that explains every attempt (k × m = attempts), then
    // the innermost layer (most rounds), then the clearest break.
    let n = l.attempts.len();
    let mut best: Option<(bool, usize, f64, usize)> = None; // (complete, m, ratio, k)
    for w in sorted.windows(2) {
        let ratio = w[1] / w[0].max(0.01);
        if ratio < 1.5 {
            continue;
        }
        let thr = (w[0] + w[1]) / 2.0;
        let mut segments = vec![1usize];
        for g in &gaps {
            if *g > thr {
                segments.push(1);
            } else if let Some(s) = segments.last_mut() {
                *s += 1;
            }
        }
        let (k, m) = (segments[0], segments.len());
        let (full, last) = segments.split_at(m - 1);
        // At least two complete rounds: one run of k followed by a shorter one is what a single
        // exponential backoff looks like when its last (longest) wait stands out.
        let complete = segments.iter().filter(|&&s| s == k).count();
        if k >= 2 && m >= 2 && complete >= 2 && full.iter().all(|&s| s == k) && last[0] <= k {
            let cand = (k * m == n, m, ratio, k);
            let better = match best {
                None => true,
                Some(b) => (cand.0, cand.1)
                    .cmp(&(b.0, b.1))
                    .then(cand.2.total_cmp(&b.2))
                    .is_gt(),
            };
            if better {
                best = Some(cand);
            }
        }
    }
    best.map(|(_, m, _, k)| (k, m))
}

/// Attempts per minute over a logical request's life (first start to last start).
fn attempts_per_minute(l: &Logical) -> f64 {
    let (Some(a), Some(b)) = (l.attempts.first(), l.attempts.last()) else {
        return 0.0;
    };
    match (a.ev.start_s(), b.ev.start_s()) {
        (Some(x), Some(y)) if y > x => (l.attempts.len() - 1) as f64 * 60.0 / (y - x),
        _ => f64::INFINITY,
    }
}

/// Did the retry starting at `t` wait out the Retry-After (≥ 1 s) of the failed attempt `prev`?
fn waited_retry_after(cx: &Cx, prev: &Attempt, t: f64) -> bool {
    match (cx.wait_s(&prev.ev), prev.ev.end_s()) {
        (Some(w), Some(e)) if w >= 1.0 => t - e >= 0.9 * w - 0.05,
        _ => false,
    }
}

/// The logical request with the most attempts (ties: the earliest).
#[derive(Debug, Clone)]
struct Worst {
    attempts: usize,
    first_seq: u64,
    client: u32,
    first: Attempt,
    last: Attempt,
}

#[derive(Default)]
struct Host {
    firsts: usize,
    total: usize,
    /// Attempts per logical request; and per logical request that retried.
    counts: Counts,
    retried: Counts,
    patient: usize,
    max_fast: usize,
    worst: Option<Worst>,
    gave_up: usize,
    /// Inner run length → (logical requests showing it, most rounds seen, most rounds seen
    /// complete: the budget when the operation gave up).
    patterns: BTreeMap<usize, (usize, usize, usize)>,
}

/// `retry_storm` (see the module doc).
#[derive(Default)]
pub struct RetryStorm {
    hosts: BTreeMap<u32, Host>,
}

impl Detector for RetryStorm {
    fn step(&mut self, s: &Step, cx: &Cx) {
        if let (Some(prev), Some(t)) = (&s.link.prev, s.ev.start_s()) {
            if waited_retry_after(cx, prev, t) {
                self.hosts.entry(s.ev.host).or_default().patient += 1;
            }
        }
    }

    fn closed(&mut self, l: &Logical, _cx: &Cx) {
        let (Some(first), Some(last)) = (l.attempts.first(), l.attempts.last()) else {
            return;
        };
        let h = self.hosts.entry(first.ev.host).or_default();
        let n = l.attempts.len();
        h.firsts += 1;
        h.total += n;
        h.counts.push(n);
        if n > 1 {
            h.retried.push(n);
        }
        // One logical request with ≥ 10 attempts counts when it kept at it (≥ 2 attempts a
        // minute): a poller stuck behind 429s for ten minutes, one request a minute, is not a
        // storm.
        if attempts_per_minute(l) >= MIN_PERSISTENT_PACE {
            h.max_fast = h.max_fast.max(n);
        }
        let better = match &h.worst {
            None => true,
            Some(w) => n > w.attempts || (n == w.attempts && first.seq < w.first_seq),
        };
        if better {
            h.worst = Some(Worst {
                attempts: n,
                first_seq: first.seq,
                client: l.client,
                first: *first,
                last: *last,
            });
        }
        if l.retries() > 0 && super::is_failure(last.ev.status) {
            h.gave_up += 1;
        }
        if let Some((k, m)) = nested_layers(l) {
            let e = h.patterns.entry(k).or_insert((0, 0, 0));
            e.0 += 1;
            e.1 = e.1.max(m);
            if n == k * m {
                e.2 = e.2.max(m);
            }
        }
    }

    fn finish(&mut self, cx: &Cx, _earlier: &[Finding]) -> Vec<Placed> {
        let mut out = Vec::new();
        for (&id, h) in &self.hosts {
            let host = cx.host(id);
            if let Some(f) = finding(cx, host, h) {
                out.push(((host.to_string(), 0), f));
            }
        }
        out
    }
}

fn finding(cx: &Cx, host: &str, h: &Host) -> Option<Finding> {
    let (firsts, total) = (h.firsts, h.total);
    let retries = total - firsts;
    if retries < MIN_RETRIES {
        return None;
    }
    let max = h.counts.max().unwrap_or(0) as f64;
    let p95 = h.counts.percentile(0.95);
    let ratio = retries as f64 / firsts as f64;
    let share = retries as f64 / total as f64;
    // Retries that waited out the server's Retry-After do not press on a limited server.
    let patient_share = h.patient as f64 / retries as f64;
    // Up to 5 attempts (4 retries) is the budget the recommendation itself gives, so a p95 at
    // that budget is not a storm on its own (a client following the advice through an outage
    // reaches it); a p95 beyond it is.
    let persistent = p95 >= PERSISTENT_P95 || h.max_fast >= 10;
    let amplified = (ratio >= 1.0 && max >= 3.0) || (ratio >= 0.5 && max >= 6.0);
    if !(persistent || (amplified && patient_share < 0.8)) {
        return None;
    }
    let nested = commonest_nesting(h, max);
    let mut summary = format!(
        "{retries} of {total} requests to {host} were retries ({:.0} %): {firsts} logical requests took up to {} attempts (p95 {}), {} retries per first attempt",
        share * 100.0,
        max as usize,
        p95 as usize,
        crate::units::fmt_num(r3(ratio * 100.0).round() / 100.0)
    );
    if h.gave_up > 0 {
        summary.push_str(&format!(", {} still failed after retrying", h.gave_up));
    }
    if let Some(((k, m), _)) = nested {
        summary.push_str(&format!(
            "; attempts look multiplied by nested retry layers ({k} × {m} = {})",
            k * m
        ));
    }
    summary.push('.');
    let severity = if ratio >= 1.0 || share >= 0.5 {
        Severity::Critical
    } else {
        Severity::Warning
    };
    Some(Finding::new(
        super::Kind::RetryStorm,
        severity,
        summary,
        json!({
            "host": host,
            "requests": total,
            "first_attempts": firsts,
            "retries": retries,
            "retries_per_first_attempt": r3(ratio),
            "retry_share": r3(share),
            "attempts_max": max as usize,
            "attempts_p95": p95 as usize,
            "attempts_p95_of_retried": h.retried.percentile(0.95) as usize,
            "logical_requests_retried": h.retried.len(),
            "gave_up": h.gave_up,
            "polls_not_counted_as_retries": cx.polls_after_failure,
            "retries_that_waited_retry_after": h.patient,
            "nested_layers": nested.map(|((k, m), n)| json!({
                "inner_attempts": k, "outer_rounds": m, "product": k * m, "logical_requests_showing_it": n
            })),
            "worst": worst(cx, h),
        }),
    ))
}

/// Attempts multiplied by nested retry layers: the commonest inner count k and outer rounds m
/// (k × m never more than any logical request reached), with how many requests showed it.
fn commonest_nesting(h: &Host, max: f64) -> Option<((usize, usize), usize)> {
    h.patterns
        .iter()
        .max_by(|a, b| a.1 .0.cmp(&b.1 .0).then(a.0.cmp(b.0)))
        .filter(|(k, e)| e.0 >= 2 || **k * e.1 >= 6)
        .map(|(k, e)| ((*k, if e.2 > 0 { e.2 } else { e.1 }), e.0))
        // Never claim a product larger than any logical request actually reached.
        .filter(|((k, m), _)| (k * m) as f64 <= max)
}

/// The logical request with the most attempts, as the report shows it.
fn worst(cx: &Cx, h: &Host) -> Option<Value> {
    h.worst.as_ref().map(|w| {
        json!({
            "attempts": w.attempts,
            "client": cx.client_label(w.client),
            "first": cx.at(&w.first.ev),
            "last": cx.at(&w.last.ev),
        })
    })
}

#[cfg(test)]
mod tests {
    use crate::detect::testkit::*;

    fn storm(policy: impl Fn(&mut Worker), workers: usize) -> Vec<crate::model::Request> {
        let mut sim = Sim::new(Limiter::Window {
            limit: 30,
            window_s: 60.0,
        });
        for k in 0..workers {
            let mut w = Worker::new(
                &format!("worker-{k}"),
                "https://api.example.com/v1/orders/{j}",
                40,
            );
            w.start_s = k as f64 * 0.3;
            w.spacing_s = 0.5;
            policy(&mut w);
            sim.workers.push(w);
        }
        sim.horizon_s = 300.0;
        sim.run()
    }

    #[test]
    fn immediate_retries_are_a_storm() {
        let reqs = storm(
            |w| {
                w.max_attempts = 8;
                w.backoff = Backoff::Fixed(0.05);
                w.ra = RaUse::Ignore;
            },
            4,
        );
        let d = crate::detect::testkit::run(&reqs, &unknown_attributions(&reqs), None);
        let f = d
            .findings
            .iter()
            .find(|f| f.kind == "retry_storm")
            .expect("storm");
        assert_eq!(f.evidence["attempts_max"], 8);
        assert!(f.summary.contains("up to 8 attempts"), "{}", f.summary);
    }

    #[test]
    fn nested_layers_are_named() {
        let reqs = storm(
            |w| {
                w.max_attempts = 12;
                w.backoff = Backoff::Nested {
                    inner: 3,
                    inner_s: 0.2,
                    outer_s: 4.0,
                };
                w.jitter = 0.2;
                w.ra = RaUse::Ignore;
            },
            3,
        );
        let d = crate::detect::testkit::run(&reqs, &unknown_attributions(&reqs), None);
        let f = d
            .findings
            .iter()
            .find(|f| f.kind == "retry_storm")
            .expect("storm");
        assert!(f.summary.contains("3 × 4 = 12"), "{}", f.summary);
    }

    /// Logical requests whose attempts are separated by `gaps` (seconds), all 429 but the last.
    fn shaped(gaps: &[f64], ops: usize) -> Vec<crate::model::Request> {
        let mut s = Scenario::new();
        let mut rng = Rng::new(9);
        for op in 0..ops {
            let url = format!("https://api.example.com/v1/things/{op}");
            let mut t = op as f64 * 100.0;
            for (a, g) in std::iter::once(&0.0).chain(gaps.iter()).enumerate() {
                t += g * (0.95 + 0.1 * rng.next());
                let st = if a == gaps.len() { 200 } else { 429 };
                s.at(t).client("app").dur(10.0).get(&url, st);
            }
        }
        s.build()
    }

    #[test]
    fn nested_exponential_layers() {
        // SDK: 3 attempts, 0.5 s then 1 s; app: 4 rounds, 2 s, 4 s, 8 s between rounds.
        let g = [0.5, 1.0, 2.0, 0.5, 1.0, 4.0, 0.5, 1.0, 8.0, 0.5, 1.0];
        let reqs = shaped(&g, 4);
        let d = crate::detect::testkit::run(&reqs, &unknown_attributions(&reqs), None);
        let f = d
            .findings
            .iter()
            .find(|f| f.kind == "retry_storm")
            .expect("storm");
        assert!(f.summary.contains("3 × 4 = 12"), "{}", f.summary);
        // One layer of exponential backoff: many attempts, but no product to claim.
        let reqs = shaped(
            &[1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 32.0, 32.0, 32.0, 32.0, 32.0],
            4,
        );
        let d = crate::detect::testkit::run(&reqs, &unknown_attributions(&reqs), None);
        let f = d
            .findings
            .iter()
            .find(|f| f.kind == "retry_storm")
            .expect("storm");
        assert!(!f.summary.contains("nested"), "{}", f.summary);
    }

    #[test]
    fn near_miss_a_few_polite_retries() {
        // Plenty of headroom: only the odd request is limited, and it is retried once, late.
        let mut sim = Sim::new(Limiter::Window {
            limit: 38,
            window_s: 60.0,
        });
        let mut w = Worker::new("w", "https://api.example.com/v1/orders/{j}", 200);
        w.spacing_s = 1.45;
        w.max_attempts = 3;
        w.backoff = Backoff::Exp {
            base: 2.0,
            cap: 30.0,
        };
        sim.workers.push(w);
        let reqs = sim.run();
        let retries = reqs.len() - 200;
        assert!(retries > 0, "the near miss must contain some retries");
        assert!(!kinds(&reqs, None).contains(&"retry_storm".to_string()));
    }

    /// `retried` logical requests whose attempts are separated by `gaps` (all failing but the
    /// last), among `clean` single successful requests.
    fn outage(gaps: &[f64], retried: usize, clean: usize) -> Vec<crate::model::Request> {
        let mut s = Scenario::new();
        let mut rng = Rng::new(5);
        for op in 0..retried {
            let url = format!("https://api.example.com/v1/skus/r{op}");
            let mut t = 200.0 + op as f64 * 1.1;
            for (a, g) in std::iter::once(&0.0).chain(gaps.iter()).enumerate() {
                t += g * (0.8 + 0.4 * rng.next());
                let st = if a == gaps.len() { 200 } else { 503 };
                s.at(t).client("app").dur(15.0).get(&url, st);
            }
        }
        for op in 0..clean {
            s.at(op as f64 * 1.7)
                .client("app")
                .dur(90.0)
                .get(&format!("https://api.example.com/v1/skus/c{op}"), 200);
        }
        s.build()
    }

    #[test]
    fn the_recommended_budget_through_an_outage_is_not_a_storm() {
        // 5 attempts with backoff (the recommendation's own budget) for 10 % of requests.
        let reqs = outage(&[0.5, 1.2, 2.5, 6.0], 30, 270);
        assert!(!kinds(&reqs, None).contains(&"retry_storm".to_string()));
        // 7 attempts for the same share: beyond the budget, a storm.
        let reqs = outage(&[0.5, 1.2, 2.5, 3.0, 3.0, 6.0], 30, 270);
        assert!(kinds(&reqs, None).contains(&"retry_storm".to_string()));
    }

    #[test]
    fn one_run_and_a_long_last_wait_is_not_nesting() {
        // 6 quick attempts, one long wait, a 7th: one layer whose last wait stands out. Before,
        // this read as "6 × 2 = 12" although no request made more than 7 attempts.
        let reqs = outage(&[0.3, 0.3, 0.3, 0.3, 0.3, 9.0], 30, 270);
        let d = crate::detect::testkit::run(&reqs, &unknown_attributions(&reqs), None);
        let f = d
            .findings
            .iter()
            .find(|f| f.kind == "retry_storm")
            .expect("storm");
        assert!(!f.summary.contains("nested"), "{}", f.summary);
        assert!(f.evidence["nested_layers"].is_null());
    }

    #[test]
    fn a_poller_stuck_behind_429s_is_not_a_storm() {
        // One agent polls its config once a minute and is refused 11 times in a row, among 400
        // ordinary requests: 11 "attempts", but one a minute.
        let mut s = Scenario::new();
        for k in 0..12 {
            let st = if k < 11 { 429 } else { 200 };
            s.at(60.0 + k as f64 * 60.0)
                .client("agent-7")
                .dur(10.0)
                .get("https://fleet.example.com/v1/agents/7/config", st);
        }
        for op in 0..400 {
            s.at(op as f64 * 1.9)
                .client("console")
                .dur(80.0)
                .get(&format!("https://fleet.example.com/v1/items/{op}"), 200);
        }
        let reqs = s.build();
        assert!(!kinds(&reqs, None).contains(&"retry_storm".to_string()));
        // The same 12 attempts 2 s apart: a storm.
        let mut s = Scenario::new();
        for k in 0..12 {
            let st = if k < 11 { 429 } else { 200 };
            s.at(60.0 + k as f64 * 2.0)
                .client("agent-7")
                .dur(10.0)
                .get("https://fleet.example.com/v1/agents/7/config", st);
        }
        for op in 0..400 {
            s.at(op as f64 * 1.9)
                .client("console")
                .dur(80.0)
                .get(&format!("https://fleet.example.com/v1/items/{op}"), 200);
        }
        let reqs = s.build();
        assert!(kinds(&reqs, None).contains(&"retry_storm".to_string()));
    }
}
