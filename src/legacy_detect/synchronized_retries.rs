//! `synchronized_retries`: many logical requests retrying at the same instant (a thundering
//! herd), typically because they were limited together and wait identical delays (no jitter,
//! or a shared Retry-After with no spread on top).
//!
//! A *wave* is ≥ 5 distinct logical requests retrying within 100 ms, and ≥ 4× what retries
//! spread evenly over the same period would put in 100 ms. Reported per host when there are
//! ≥ 2 waves (or one of ≥ 10) holding ≥ 30 % of the host's retries. The delays of the retries in
//! waves are summarized to show whether they were identical.
//!
//! Without waves, identical delays alone are reported when ≥ 8 logical requests from ≥ 2
//! clients waited the same delay (≥ 200 ms, within 2 % or 20 ms) before the same retry: no
//! jitter, which synchronizes callers as soon as they are limited together.
//!
//! Inputs whose timestamps carry whole seconds only are not judged (truncation alone would
//! make retries look simultaneous).

use super::{
    at, end_s, median, percentile, r3, seconds_text, sort_f64, start_s, Context, Finding, Severity,
};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap};

const WAVE_S: f64 = 0.1;
const MIN_WAVE: usize = 5;

struct Retry {
    i: usize,
    t: f64,
    logical: usize,
    /// Attempt number (1 = first retry).
    attempt: usize,
    client: usize,
    delay: f64,
}

/// Retries of ≥ 8 logical requests from ≥ 2 clients, same attempt number, whose delays (≥ 200 ms)
/// agree within 2 % (or 20 ms): (attempt, logical requests, clients, median delay, spread).
fn identical_delays(retries: &[Retry]) -> Option<(usize, usize, usize, f64, f64)> {
    let mut by_attempt: BTreeMap<usize, Vec<&Retry>> = BTreeMap::new();
    for r in retries.iter().filter(|r| r.delay >= 0.2) {
        by_attempt.entry(r.attempt).or_default().push(r);
    }
    let mut best: Option<(usize, usize, usize, f64, f64)> = None;
    for (attempt, group) in by_attempt {
        let logical: BTreeSet<usize> = group.iter().map(|r| r.logical).collect();
        let clients: BTreeSet<usize> = group.iter().map(|r| r.client).collect();
        if logical.len() < 8 || clients.len() < 2 {
            continue;
        }
        let mut d: Vec<f64> = group.iter().map(|r| r.delay).collect();
        sort_f64(&mut d);
        let (md, spread) = (median(&d), percentile(&d, 0.9) - percentile(&d, 0.1));
        if spread <= (0.02 * md).max(0.02) && best.map(|b| logical.len() > b.1).unwrap_or(true) {
            best = Some((attempt, logical.len(), clients.len(), md, spread));
        }
    }
    best
}

pub fn detect(cx: &Context) -> Vec<Finding> {
    let mut out = Vec::new();
    if cx.coarse_time {
        // Whole-second timestamps put unrelated retries "at the same instant".
        return out;
    }
    for (host, idx) in &cx.by_host {
        let (host, idx) = (host.as_str(), idx.as_slice());
        let mut retries: Vec<Retry> = Vec::new();
        for &i in idx {
            let Some(p) = cx.attempts.previous(i) else {
                continue;
            };
            let (Some(t), Some(e)) = (start_s(&cx.requests[i]), end_s(&cx.requests[p])) else {
                continue;
            };
            let Some(Some((logical, attempt))) = cx.attempts.of_request.get(i) else {
                continue;
            };
            retries.push(Retry {
                i,
                t,
                logical: *logical,
                attempt: *attempt,
                client: cx.clients.of_request.get(i).copied().unwrap_or(0),
                delay: (t - e).max(0.0),
            });
        }
        if retries.len() < MIN_WAVE * 2 {
            continue;
        }
        let span = (retries[retries.len() - 1].t - retries[0].t).max(WAVE_S);
        let expected = retries.len() as f64 * WAVE_S / span;
        let need = MIN_WAVE.max((4.0 * expected).ceil() as usize);
        let mut waves: Vec<(usize, usize, usize)> = Vec::new(); // (first, last, distinct logical)
                                                                // Two pointers over the retries; `seen` counts logical requests in [k, j].
        let mut seen: HashMap<usize, usize> = HashMap::new();
        let (mut k, mut j) = (0usize, 0usize);
        while k < retries.len() {
            if j < k {
                j = k;
                seen.clear();
            }
            if seen.is_empty() {
                *seen.entry(retries[k].logical).or_insert(0) += 1;
            }
            while j + 1 < retries.len() && retries[j + 1].t <= retries[k].t + WAVE_S {
                j += 1;
                *seen.entry(retries[j].logical).or_insert(0) += 1;
            }
            if seen.len() >= need {
                waves.push((k, j, seen.len()));
                k = j + 1;
                seen.clear();
            } else {
                if let Some(c) = seen.get_mut(&retries[k].logical) {
                    *c -= 1;
                    if *c == 0 {
                        seen.remove(&retries[k].logical);
                    }
                }
                k += 1;
            }
        }
        let in_waves: usize = waves.iter().map(|w| w.1 - w.0 + 1).sum();
        let biggest = waves.iter().map(|w| w.2).max().unwrap_or(0);
        let herd =
            (waves.len() >= 2 || biggest >= 10) && in_waves as f64 >= 0.3 * retries.len() as f64;
        let same = identical_delays(&retries);
        if !herd {
            if let Some((attempt, logical, clients, md, spread)) = same {
                out.push(Finding::new(
                    "synchronized_retries",
                    Severity::Warning,
                    format!(
                        "Retries to {host} from {clients} clients waited identical delays ({} ± {} ms before retry {attempt}, {logical} logical requests): no jitter, so callers limited together come back together.",
                        seconds_text(md),
                        (spread * 500.0).round()
                    ),
                    json!({
                        "host": host,
                        "retries": retries.len(),
                        "waves": waves.len(),
                        "identical_delays": true,
                        "attempt": attempt,
                        "logical_requests": logical,
                        "clients": clients,
                        "median_delay_s": r3(md),
                        "delay_spread_p10_p90_s": r3(spread),
                    }),
                ));
            }
            continue;
        }
        let mut delays: Vec<f64> = waves
            .iter()
            .flat_map(|w| retries[w.0..=w.1].iter().map(|r| r.delay))
            .collect();
        sort_f64(&mut delays);
        let md = median(&delays);
        let spread = percentile(&delays, 0.9) - percentile(&delays, 0.1);
        let identical = spread <= (0.03 * md).max(0.05);
        let delay_text = if identical {
            format!(
                "; their delays were identical ({} ± {} ms): no jitter",
                seconds_text(md),
                (spread * 500.0).round()
            )
        } else {
            format!(
                "; their delays ranged {}–{}, so they were limited together and came back together",
                seconds_text(percentile(&delays, 0.1)),
                seconds_text(percentile(&delays, 0.9))
            )
        };
        let summary = format!(
            "Retries to {host} came in {} waves of up to {biggest} logical requests within 100 ms ({in_waves} of {} retries){delay_text}.",
            waves.len(),
            retries.len()
        );
        let examples: Vec<Value> = {
            let mut ws: Vec<&(usize, usize, usize)> = waves.iter().collect();
            ws.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(&b.0)));
            ws.into_iter()
                .take(5)
                .map(|w| {
                    json!({
                        "logical_requests": w.2,
                        "retries": w.1 - w.0 + 1,
                        "first": at(&cx.requests[retries[w.0].i]),
                        "last": at(&cx.requests[retries[w.1].i]),
                    })
                })
                .collect()
        };
        out.push(Finding::new(
            "synchronized_retries",
            Severity::Warning,
            summary,
            json!({
                "host": host,
                "retries": retries.len(),
                "waves": waves.len(),
                "retries_in_waves": in_waves,
                "largest_wave": biggest,
                "wave_window_ms": WAVE_S * 1000.0,
                "median_delay_s": r3(md),
                "delay_spread_p10_p90_s": r3(spread),
                "identical_delays": identical,
                "largest_waves": examples,
            }),
        ));
    }
    out
}
