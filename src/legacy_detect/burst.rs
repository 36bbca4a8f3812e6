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
//!   at ≥ 10×), at ≥ 2/s, where the sustained rate is first attempts over the capture (at least a
//!   minute), and rate-limited responses came during it or within 10 s after.
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
        let span = t[t.len() - 1] - t[0];
        let sustained = t.len() as f64 / span.max(60.0);
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
        None => format!(
            "against a sustained {} over the capture",
            rate_text(sustained)
        ),
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
