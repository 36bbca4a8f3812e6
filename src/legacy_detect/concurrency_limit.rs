//! `concurrency_limit`: the 429s follow the number of requests in flight, not the start rate.
//!
//! Per host with ≥ 3 rate-limited responses, ≥ 5 successes and durations on ≥ 80 % of records:
//! how well does "requests in flight at the start ≥ T" separate rate-limited starts from
//! successful ones (best threshold, balanced accuracy), compared with the same test on the
//! start rate over the previous 1 s and 10 s? Reported when in-flight separates them well
//! (≥ 0.85) and clearly better than the start rate (by ≥ 0.1), or when the attribution (or the
//! body: "too many concurrent requests") says the limit is on concurrency for at least half of
//! the rate-limited responses.

use super::timeline::{in_flight_at_starts, trailing};
use super::{at, median, percentile, r3, rate_text, sort_f64, start_s, Context, Finding, Severity};
use crate::attribute::Quota;
use serde_json::json;

/// Best threshold T and its balanced accuracy for "feature ≥ T ⇒ rate-limited".
fn separation(pos: &[f64], neg: &[f64]) -> (f64, f64) {
    let (p, n) = (sorted(pos.iter().copied()), sorted(neg.iter().copied()));
    let mut cands: Vec<f64> = p.iter().chain(n.iter()).copied().collect();
    sort_f64(&mut cands);
    cands.dedup();
    let mut best = (0.5, f64::INFINITY);
    for &t in &cands {
        let tpr = (p.len() - p.partition_point(|&x| x < t)) as f64 / p.len() as f64;
        let tnr = n.partition_point(|&x| x < t) as f64 / n.len() as f64;
        let b = (tpr + tnr) / 2.0;
        if b > best.0 {
            best = (b, t);
        }
    }
    best
}

fn sorted(v: impl Iterator<Item = f64>) -> Vec<f64> {
    let mut v: Vec<f64> = v.collect();
    sort_f64(&mut v);
    v
}

pub fn detect(cx: &Context) -> Vec<Finding> {
    cx.by_host
        .iter()
        .filter_map(|(host, idx)| for_host(cx, host, idx))
        .collect()
}

/// The finding for one host (`idx`: its timed requests in time order), if its 429s follow the
/// number of requests in flight.
pub fn for_host(cx: &Context, host: &str, idx: &[usize]) -> Option<Finding> {
    let limited: Vec<usize> = (0..idx.len()).filter(|&k| cx.is_limited(idx[k])).collect();
    let ok: Vec<usize> = (0..idx.len())
        .filter(|&k| (200..300).contains(&cx.requests[idx[k]].status))
        .collect();
    if limited.len() < 3 || ok.len() < 5 {
        return None;
    }
    let with_duration = idx
        .iter()
        .filter(|&&i| cx.requests[i].duration_ms.is_some())
        .count();
    if (with_duration as f64) < 0.8 * idx.len() as f64 {
        return None;
    }
    let said = limited
        .iter()
        .filter(|&&k| {
            let i = idx[k];
            cx.attribution[i]
                .map(|a| a.quota == Quota::Concurrency)
                .unwrap_or(false)
                || cx.requests[i]
                    .body_excerpt
                    .as_deref()
                    .map(|b| b.to_ascii_lowercase().contains("concurren"))
                    .unwrap_or(false)
        })
        .count();
    let flight = in_flight_at_starts(cx.requests, idx);
    let times: Vec<f64> = idx
        .iter()
        .filter_map(|&i| start_s(&cx.requests[i]))
        .collect();
    if times.len() != idx.len() {
        return None;
    }
    let feature =
        |ks: &[usize], f: &dyn Fn(usize) -> f64| -> Vec<f64> { ks.iter().map(|&k| f(k)).collect() };
    let fl = |k: usize| flight[k] as f64;
    let r1 = |k: usize| trailing(&times, times[k], 1.0) as f64;
    let r10 = |k: usize| trailing(&times, times[k], 10.0) as f64;
    let (b_fl, t_fl) = separation(&feature(&limited, &fl), &feature(&ok, &fl));
    let (b_r1, _) = separation(&feature(&limited, &r1), &feature(&ok, &r1));
    let (b_r10, _) = separation(&feature(&limited, &r10), &feature(&ok, &r10));
    let b_rate = b_r1.max(b_r10);
    let fl_lim = sorted(limited.iter().map(|&k| fl(k)));
    let fl_ok = sorted(ok.iter().map(|&k| fl(k)));
    let by_flight = b_fl >= 0.85 && b_fl - b_rate >= 0.1 && median(&fl_lim) > median(&fl_ok);
    let by_attribution = said * 2 >= limited.len();
    if !(by_flight || by_attribution) {
        return None;
    }
    let rate_lim = sorted(limited.iter().map(|&k| r10(k) / 10.0));
    let rate_ok = sorted(ok.iter().map(|&k| r10(k) / 10.0));
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
        fl_lim.first().copied().unwrap_or(0.0),
        fl_lim.last().copied().unwrap_or(0.0),
    );
    let at_429 = if lo == hi {
        format!("{lo} other requests in flight at every one")
    } else {
        format!(
            "a median of {} other requests in flight ({lo}–{hi})",
            median(&fl_lim)
        )
    };
    let summary = format!(
        "The {} rate-limited responses from {host} came with {at_429}, versus a median of {} (p90 {}) at the {} successes, while the start rate over the previous 10 s was {}({} vs {}): this looks like {limit_text}; bound requests in flight, since a slower start rate alone will not fix it.",
        limited.len(),
        median(&fl_ok),
        percentile(&fl_ok, 0.9),
        ok.len(),
        if by_flight { "about the same " } else { "" },
        rate_text(median(&rate_lim)),
        rate_text(median(&rate_ok)),
    );
    let first_limited = limited.first().map(|&k| at(&cx.requests[idx[k]]));
    Some(Finding::new(
        "concurrency_limit",
        Severity::Warning,
        summary,
        json!({
            "host": host,
            "rate_limited": limited.len(),
            "successes": ok.len(),
            "in_flight_at_rate_limited": {
                "min": fl_lim.first(), "median": median(&fl_lim), "max": fl_lim.last()
            },
            "in_flight_at_successes": {
                "median": median(&fl_ok), "p90": percentile(&fl_ok, 0.9), "max": fl_ok.last()
            },
            "start_rate_10s_at_rate_limited": r3(median(&rate_lim)),
            "start_rate_10s_at_successes": r3(median(&rate_ok)),
            "separation_by_in_flight": r3(b_fl),
            "separation_by_start_rate": r3(b_rate),
            "estimated_limit_in_flight": estimate.filter(|_| by_flight),
            "responses_saying_concurrency": said,
            "first_rate_limited": first_limited,
        }),
    ))
}
