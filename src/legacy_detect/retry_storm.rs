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

use super::logical::Logical;
use super::{at, end_s, percentile, r3, sort_f64, start_s, Context, Finding, Severity};
use serde_json::json;
use std::collections::BTreeMap;

const MIN_RETRIES: usize = 10;
/// p95 attempts per logical request that make a storm on their own: more than the
/// recommendation's own budget of 5 attempts.
const PERSISTENT_P95: f64 = 6.0;
/// A logical request of ≥ 10 attempts makes a storm when it retried at least this often (per
/// minute).
const MIN_PERSISTENT_PACE: f64 = 2.0;

/// Inner attempts per round and number of rounds, when the gaps show two retry layers.
fn nested_layers(cx: &Context, l: &Logical) -> Option<(usize, usize)> {
    if l.attempts.len() < 4 {
        return None;
    }
    let mut gaps = Vec::new();
    for w in l.attempts.windows(2) {
        let (a, b) = (&cx.requests[w[0]], &cx.requests[w[1]]);
        gaps.push((start_s(b)? - end_s(a)?).max(0.0));
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
fn attempts_per_minute(cx: &Context, l: &Logical) -> f64 {
    let (Some(&a), Some(&b)) = (l.attempts.first(), l.attempts.last()) else {
        return 0.0;
    };
    match (start_s(&cx.requests[a]), start_s(&cx.requests[b])) {
        (Some(x), Some(y)) if y > x => (l.attempts.len() - 1) as f64 * 60.0 / (y - x),
        _ => f64::INFINITY,
    }
}

/// Did the retry `next` wait out the Retry-After (≥ 1 s) of the failed attempt `prev`?
fn waited_retry_after(cx: &Context, prev: usize, next: usize) -> bool {
    let p = &cx.requests[prev];
    let wait = crate::http::retry_after::from_headers(&p.response_headers, p.started).seconds;
    match (wait, end_s(p), start_s(&cx.requests[next])) {
        (Some(w), Some(e), Some(t)) if w >= 1.0 => t - e >= 0.9 * w - 0.05,
        _ => false,
    }
}

pub fn detect(cx: &Context) -> Vec<Finding> {
    let mut by_host_logical: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (li, l) in cx.attempts.logical.iter().enumerate() {
        if let Some(&first) = l.attempts.first() {
            by_host_logical
                .entry(cx.host(first).to_string())
                .or_default()
                .push(li);
        }
    }
    let mut out = Vec::new();
    for (host, lis) in by_host_logical {
        let logical: Vec<&Logical> = lis.iter().map(|&li| &cx.attempts.logical[li]).collect();
        let firsts = logical.len();
        let total: usize = logical.iter().map(|l| l.attempts.len()).sum();
        let retries = total - firsts;
        if retries < MIN_RETRIES {
            continue;
        }
        let mut counts: Vec<f64> = logical.iter().map(|l| l.attempts.len() as f64).collect();
        sort_f64(&mut counts);
        let max = counts.last().copied().unwrap_or(0.0);
        let p95 = percentile(&counts, 0.95);
        let mut retried: Vec<f64> = counts.iter().copied().filter(|&c| c > 1.0).collect();
        sort_f64(&mut retried);
        let ratio = retries as f64 / firsts as f64;
        let share = retries as f64 / total as f64;
        // Retries that waited out the server's Retry-After do not press on a limited server.
        let patient = logical
            .iter()
            .flat_map(|l| l.attempts.windows(2))
            .filter(|w| waited_retry_after(cx, w[0], w[1]))
            .count();
        let patient_share = patient as f64 / retries as f64;
        // Up to 5 attempts (4 retries) is the budget the recommendation itself gives, so a p95
        // at that budget is not a storm on its own (a client following the advice through an
        // outage reaches it); a p95 beyond it is.
        // One logical request with ≥ 10 attempts counts when it kept at it (≥ 2 attempts a
        // minute): a poller stuck behind 429s for ten minutes, one request a minute, is not a
        // storm.
        let max_fast = logical
            .iter()
            .filter(|l| attempts_per_minute(cx, l) >= MIN_PERSISTENT_PACE)
            .map(|l| l.attempts.len())
            .max()
            .unwrap_or(0);
        let persistent = p95 >= PERSISTENT_P95 || max_fast >= 10;
        let amplified = (ratio >= 1.0 && max >= 3.0) || (ratio >= 0.5 && max >= 6.0);
        if !(persistent || (amplified && patient_share < 0.8)) {
            continue;
        }
        // The worst logical request, for the reader to look at.
        let worst = logical.iter().max_by(|a, b| {
            a.attempts
                .len()
                .cmp(&b.attempts.len())
                .then(b.attempts[0].cmp(&a.attempts[0]))
        });
        let gave_up = logical
            .iter()
            .filter(|l| {
                l.retries() > 0
                    && l.attempts
                        .last()
                        .map(|&i| super::is_failure(cx.requests[i].status))
                        .unwrap_or(false)
            })
            .count();
        // Inner run length → (logical requests showing it, most rounds seen, most rounds seen
        // complete: the budget when the operation gave up).
        let mut patterns: BTreeMap<usize, (usize, usize, usize)> = BTreeMap::new();
        for l in &logical {
            if let Some((k, m)) = nested_layers(cx, l) {
                let e = patterns.entry(k).or_insert((0, 0, 0));
                e.0 += 1;
                e.1 = e.1.max(m);
                if l.attempts.len() == k * m {
                    e.2 = e.2.max(m);
                }
            }
        }
        let nested = patterns
            .iter()
            .max_by(|a, b| a.1 .0.cmp(&b.1 .0).then(a.0.cmp(b.0)))
            .filter(|(k, e)| e.0 >= 2 || **k * e.1 >= 6)
            .map(|(k, e)| ((*k, if e.2 > 0 { e.2 } else { e.1 }), e.0))
            // Never claim a product larger than any logical request actually reached.
            .filter(|((k, m), _)| (k * m) as f64 <= max);
        let mut summary = format!(
            "{retries} of {total} requests to {host} were retries ({:.0}%): {firsts} logical requests took up to {} attempts (p95 {}), {} retries per first attempt",
            share * 100.0,
            max as usize,
            p95 as usize,
            crate::units::fmt_num(r3(ratio * 100.0).round() / 100.0)
        );
        if gave_up > 0 {
            summary.push_str(&format!(", {gave_up} still failed after retrying"));
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
        out.push(Finding::new(
            "retry_storm",
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
                "attempts_p95_of_retried": percentile(&retried, 0.95) as usize,
                "logical_requests_retried": retried.len(),
                "gave_up": gave_up,
                "polls_not_counted_as_retries": cx.attempts.polls_after_failure,
                "retries_that_waited_retry_after": patient,
                "nested_layers": nested.map(|((k, m), n)| json!({
                    "inner_attempts": k, "outer_rounds": m, "product": k * m, "logical_requests_showing_it": n
                })),
                "worst": worst.map(|l| json!({
                    "attempts": l.attempts.len(),
                    "client": cx.clients.label(l.client),
                    "first": at(&cx.requests[l.attempts[0]]),
                    "last": at(&cx.requests[*l.attempts.last().unwrap_or(&l.attempts[0])]),
                })),
            }),
        ));
    }
    out
}
