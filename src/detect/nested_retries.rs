//! `nested_retries`: two retry layers multiply attempts. An inner loop (an SDK or HTTP
//! client: a few attempts with short gaps) runs inside an outer loop (the application's own
//! retry, a job queue's redelivery: long, even pauses), so one logical request makes
//! inner × outer attempts: 3 × 3 = 9 against a budget of 5 across all layers.
//!
//! Reported per host when some logical request shows the shape (runs of equal length separated
//! by clearly longer pauses, at least two complete runs; see `retry_storm::nested_layers`) and
//! its attempts exceed the budget. One layer retrying four times (1 × 4) is not nested, and an
//! exponential backoff whose last wait stands out is not two layers.

use super::link::Logical;
use super::retry_storm::nested_layers;
use super::{median, r3, sort_f64, Cx, Detector, Finding, Placed, Severity, Step};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// Attempts in all, first included, that every layer together should stay within: the
/// recommendation's own backoff budget.
pub const CROSS_LAYER_CAP: usize = 5;
/// The shortest pause between rounds that reads as an outer loop, seconds.
const MIN_OUTER_GAP_S: f64 = 1.0;
/// How much longer than the longest gap inside a round every pause between rounds must be.
const OUTER_OVER_INNER: f64 = 3.0;
/// Gaps kept per host for the evidence's medians.
const GAPS_KEPT: usize = 256;

#[derive(Debug, Default)]
struct Host {
    /// Logical requests with the nested shape beyond the cap.
    nested: usize,
    attempts: usize,
    /// (inner, outer) → how many logical requests had it.
    shapes: BTreeMap<(usize, usize), usize>,
    inner_gaps: Vec<f64>,
    outer_gaps: Vec<f64>,
    worst: Option<Worst>,
}

#[derive(Debug, Clone)]
struct Worst {
    attempts: usize,
    first_seq: u64,
    inner: usize,
    outer: usize,
    client: u32,
    first: Value,
    last: Value,
}

#[derive(Debug, Default)]
pub struct NestedRetries {
    hosts: BTreeMap<u32, Host>,
}

impl Detector for NestedRetries {
    fn step(&mut self, _s: &Step, _cx: &Cx) {}

    fn closed(&mut self, l: &Logical, cx: &Cx) {
        let n = l.attempts.len();
        if n <= CROSS_LAYER_CAP {
            return;
        }
        let Some((inner, outer)) = nested_layers(l) else {
            return;
        };
        let (Some(first), Some(last)) = (l.attempts.first(), l.attempts.last()) else {
            return;
        };
        // Attempt i+1 starts a new round when i+1 is a multiple of `inner`.
        let (mut inner_gaps, mut outer_gaps) = (Vec::new(), Vec::new());
        for (i, w) in l.attempts.windows(2).enumerate() {
            let (Some(t), Some(e)) = (w[1].ev.start_s(), w[0].ev.end_s()) else {
                return;
            };
            let gap = (t - e).max(0.0);
            if (i + 1) % inner == 0 {
                outer_gaps.push(gap);
            } else {
                inner_gaps.push(gap);
            }
        }
        // Two loops, not one jittered backoff: every pause between rounds is clearly longer
        // than every gap inside one, and long enough to be another layer's wait.
        let max_inner = inner_gaps.iter().copied().fold(0.0, f64::max);
        let min_outer = outer_gaps.iter().copied().fold(f64::INFINITY, f64::min);
        if !(min_outer >= MIN_OUTER_GAP_S && min_outer >= OUTER_OVER_INNER * max_inner) {
            return;
        }
        let h = self.hosts.entry(first.ev.host).or_default();
        h.nested += 1;
        h.attempts += n;
        *h.shapes.entry((inner, outer)).or_default() += 1;
        for (v, new) in [
            (&mut h.inner_gaps, inner_gaps),
            (&mut h.outer_gaps, outer_gaps),
        ] {
            let room = GAPS_KEPT.saturating_sub(v.len());
            v.extend(new.into_iter().take(room));
        }
        let better = match &h.worst {
            None => true,
            Some(w) => n > w.attempts || (n == w.attempts && first.seq < w.first_seq),
        };
        if better {
            h.worst = Some(Worst {
                attempts: n,
                first_seq: first.seq,
                inner,
                outer,
                client: l.client,
                first: cx.at(&first.ev),
                last: cx.at(&last.ev),
            });
        }
    }

    fn finish(&mut self, cx: &Cx, _earlier: &[Finding]) -> Vec<Placed> {
        let mut out = Vec::new();
        for (&id, h) in &mut self.hosts {
            let host = cx.host(id).to_string();
            if let Some(f) = finding(cx, &host, h) {
                out.push(((host, 0), f));
            }
        }
        out
    }
}

fn finding(cx: &Cx, host: &str, h: &mut Host) -> Option<Finding> {
    let w = h.worst.clone()?;
    // The shape most logical requests had (ties: the larger product).
    let (&(inner, outer), &count) = h
        .shapes
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then((a.0 .0 * a.0 .1).cmp(&(b.0 .0 * b.0 .1))))?;
    sort_f64(&mut h.inner_gaps);
    sort_f64(&mut h.outer_gaps);
    let inner_gap = median(&h.inner_gaps);
    let outer_gap = median(&h.outer_gaps);
    let product = inner * outer;
    let requests = if h.nested == 1 {
        "1 logical request".to_string()
    } else {
        format!("{} logical requests", h.nested)
    };
    let summary = format!(
        "{requests} to {host} went through two retry layers: an inner loop of {inner} attempts {} apart (an SDK's or HTTP client's retries) repeated {outer} times by an outer loop about {} apart (the application's retry), {inner} × {outer} = {product} attempts against a budget of {CROSS_LAYER_CAP} across all layers (worst: {} attempts); cap attempts across all layers: keep one layer's retries (the one that reads Retry-After) and set the other to 1 attempt.",
        super::seconds_text(inner_gap),
        super::seconds_text(outer_gap),
        w.attempts,
    );
    let severity = if product >= 2 * CROSS_LAYER_CAP {
        Severity::Critical
    } else {
        Severity::Warning
    };
    Some(Finding::new(
        super::Kind::NestedRetries,
        severity,
        summary,
        json!({
            "host": host,
            "logical_requests": h.nested,
            "with_this_shape": count,
            "inner_attempts": inner,
            "outer_attempts": outer,
            "attempts_per_request": product,
            "attempts_total": h.attempts,
            "cross_layer_cap": CROSS_LAYER_CAP,
            "inner_gap_median_s": r3(inner_gap),
            "outer_gap_median_s": r3(outer_gap),
            "worst": {
                "attempts": w.attempts,
                "inner_attempts": w.inner,
                "outer_attempts": w.outer,
                "client": cx.client_label(w.client),
                "first": w.first,
                "last": w.last,
            },
        }),
    ))
}
