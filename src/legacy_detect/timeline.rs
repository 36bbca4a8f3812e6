//! Timelines: start counts over sliding windows (1 s, 10 s, 60 s), requests in flight from
//! start + duration, and the trailing start rate at an instant. Pure functions over sorted
//! epoch-second times, so they are easy to test and cannot depend on thread count.

use super::{end_s, start_s};
use crate::model::Request;

/// The windows burst detection looks at, seconds.
pub const WINDOWS: [f64; 3] = [1.0, 10.0, 60.0];

/// A window of starts: positions `first..=last` in the time array it was computed on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    pub first: usize,
    pub last: usize,
    pub count: usize,
    pub start: f64,
    /// Time of the last start inside the window.
    pub last_start: f64,
}

impl Window {
    /// Seconds from the first to the last start in the window.
    pub fn span(&self) -> f64 {
        self.last_start - self.start
    }
}

/// Index of the first element > x in sorted `v`.
fn upper_bound(v: &[f64], x: f64) -> usize {
    v.partition_point(|&y| y <= x)
}

fn lower_bound(v: &[f64], x: f64) -> usize {
    v.partition_point(|&y| y < x)
}

/// The `k` busiest non-overlapping windows of length `w` over sorted `times`, busiest first
/// (ties: earliest first).
pub fn busiest(times: &[f64], w: f64, k: usize) -> Vec<Window> {
    let mut cands: Vec<Window> = Vec::with_capacity(times.len());
    let mut j = 0;
    for i in 0..times.len() {
        if j < i {
            j = i;
        }
        while j + 1 < times.len() && times[j + 1] < times[i] + w {
            j += 1;
        }
        cands.push(Window {
            first: i,
            last: j,
            count: j - i + 1,
            start: times[i],
            last_start: times[j],
        });
    }
    cands.sort_by(|a, b| b.count.cmp(&a.count).then(a.first.cmp(&b.first)));
    let mut out: Vec<Window> = Vec::new();
    for c in cands {
        if out.len() >= k {
            break;
        }
        if out.iter().all(|o| c.last < o.first || c.first > o.last) {
            out.push(c);
        }
    }
    out
}

/// Starts in `(t − w, t]` other than the one at `t` itself (the trailing load at that start).
pub fn trailing(times: &[f64], t: f64, w: f64) -> usize {
    upper_bound(times, t)
        .saturating_sub(lower_bound(times, t - w))
        .saturating_sub(1)
}

/// For each request of `idx` (time-sorted indices into `requests`), how many *other* requests
/// of `idx` were in flight when it started. Requests without a duration count as instant.
pub fn in_flight_at_starts(requests: &[Request], idx: &[usize]) -> Vec<usize> {
    let mut starts: Vec<f64> = idx.iter().filter_map(|&i| start_s(&requests[i])).collect();
    let mut ends: Vec<f64> = idx.iter().filter_map(|&i| end_s(&requests[i])).collect();
    super::sort_f64(&mut starts);
    super::sort_f64(&mut ends);
    idx.iter()
        .map(|&i| {
            let r = &requests[i];
            let (Some(t), Some(e)) = (start_s(r), end_s(r)) else {
                return 0;
            };
            let own = usize::from(e > t);
            upper_bound(&starts, t)
                .saturating_sub(upper_bound(&ends, t))
                .saturating_sub(own)
        })
        .collect()
}
