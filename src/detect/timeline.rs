//! Timelines: start counts over sliding windows (1 s, 10 s, 60 s), requests in flight from
//! start + duration, and the trailing start rate at an instant.
//!
//! The streaming forms ([`Candidates`], [`Peak`]) read sorted epoch-second times one at a time
//! and hold only the times inside one window; the batch forms ([`busiest`], [`trailing`],
//! [`in_flight_at_starts`]) over a whole sorted array define what they must compute (the tests
//! hold them to it).

use std::collections::VecDeque;

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
    pick_by_scan(cands, k)
}

/// The greedy choice by a plain scan: sort by [`rank`], keep each window that overlaps none
/// kept so far (each check is linear in the number kept). The batch [`busiest`] uses it, and
/// the tests hold the streaming [`greedy`] to it.
fn pick_by_scan(mut cands: Vec<Window>, k: usize) -> Vec<Window> {
    cands.sort_by(rank);
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

/// For each request (start, end; sorted by start), how many *other* requests were in flight
/// when it started. A request without a duration has end = start.
pub fn in_flight_at_starts(spans: &[(f64, f64)]) -> Vec<usize> {
    let mut starts: Vec<f64> = spans.iter().map(|s| s.0).collect();
    let mut ends: Vec<f64> = spans.iter().map(|s| s.1).collect();
    super::sort_f64(&mut starts);
    super::sort_f64(&mut ends);
    spans
        .iter()
        .map(|&(t, e)| {
            let own = usize::from(e > t);
            upper_bound(&starts, t)
                .saturating_sub(upper_bound(&ends, t))
                .saturating_sub(own)
        })
        .collect()
}

/// The candidate windows of length `w` over a stream of sorted times: one per start, holding
/// the starts in `[t, t + w)` (as [`busiest`] counts them), for the `k` busiest
/// non-overlapping ones of at least `min` starts.
///
/// Only windows that may still be among those `k` are kept, and the pruning is exact: the
/// windows follow one another in stream order, so one window overlaps at most two windows
/// that do not overlap each other. Once the greedy choice holds `2k − 1` non-overlapping
/// windows, a window ranked below all of them can never be picked among the first `k` (the
/// `k − 1` picks above it block at most `2k − 2` of them, and a free one would be picked
/// first), whatever comes later; dropping it changes no pick. So each compaction raises the
/// floor to the last of those `2k − 1` picks, and a later window (starting after every kept
/// one) is dropped at once unless it holds more starts than that floor. What stays is within
/// reach of `2k − 2` windows of the busiest: a few times the busiest window's starts (a
/// safety bound, [`Candidates::HARD_CAP`], keeps the busiest by rank past that).
#[derive(Debug, Clone)]
pub struct Candidates {
    w: f64,
    /// Windows with fewer starts are dropped: the caller's minimum, raised by compaction.
    min: usize,
    k: usize,
    /// Starts whose window is still open: (time, position).
    open: VecDeque<(f64, usize)>,
    next: usize,
    last_t: f64,
    kept: Vec<Window>,
    /// Compact when more are kept than this (it grows with what compaction leaves).
    limit: usize,
}

impl Candidates {
    /// Kept windows that trigger the first compaction.
    pub const CAP: usize = 4096;
    /// At most this many windows are ever kept: past it (only when hundreds of thousands of
    /// starts fall within a few windows of each other) the busiest by rank stay.
    pub const HARD_CAP: usize = 1 << 20;

    /// Windows of `w` seconds for the `k` busiest with at least `min` starts.
    pub fn new(w: f64, min: usize, k: usize) -> Candidates {
        Candidates::with_cap(w, min, k, Self::CAP)
    }

    fn with_cap(w: f64, min: usize, k: usize, cap: usize) -> Candidates {
        Candidates {
            w,
            min,
            k: k.max(1),
            open: VecDeque::new(),
            next: 0,
            last_t: f64::NEG_INFINITY,
            kept: Vec::new(),
            limit: cap.max(1),
        }
    }

    /// Starts seen so far.
    pub fn len(&self) -> usize {
        self.next
    }

    pub fn is_empty(&self) -> bool {
        self.next == 0
    }

    pub fn push(&mut self, t: f64) {
        while let Some(&(ti, i)) = self.open.front() {
            if t < ti + self.w {
                break;
            }
            self.open.pop_front();
            self.close(ti, i);
        }
        self.open.push_back((t, self.next));
        self.next += 1;
        self.last_t = t;
    }

    fn close(&mut self, ti: f64, i: usize) {
        let last = self.next - 1;
        let count = last - i + 1;
        if count < self.min {
            return;
        }
        self.kept.push(Window {
            first: i,
            last,
            count,
            start: ti,
            last_start: self.last_t,
        });
        if self.kept.len() > self.limit {
            self.compact();
        }
    }

    fn compact(&mut self) {
        let need = 2 * self.k - 1;
        let picks = greedy_indices(&self.kept, need);
        if picks.len() == need {
            if let Some(&floor) = picks.last() {
                let f = self.kept[floor];
                self.kept
                    .retain(|c| rank(c, &f) != std::cmp::Ordering::Greater);
                // Later windows start after `f`: on a tie they rank below it.
                self.min = self.min.max(f.count + 1);
            }
        }
        if self.kept.len() > Self::HARD_CAP {
            self.kept.sort_by(rank);
            self.kept.truncate(Self::HARD_CAP / 2);
            self.kept.sort_by_key(|c| c.first);
            self.min = self
                .min
                .max(self.kept.iter().map(|c| c.count + 1).min().unwrap_or(0));
        }
        self.limit = self.limit.max(2 * self.kept.len());
    }

    /// The `k` busiest non-overlapping windows, busiest first (ties: earliest first).
    pub fn best(&mut self) -> Vec<Window> {
        while let Some((ti, i)) = self.open.pop_front() {
            self.close(ti, i);
        }
        greedy(&self.kept, self.k)
    }

    /// Windows held now (tests: memory stays bounded).
    #[cfg(test)]
    fn held(&self) -> usize {
        self.kept.len()
    }
}

fn rank(a: &Window, b: &Window) -> std::cmp::Ordering {
    b.count.cmp(&a.count).then(a.first.cmp(&b.first))
}

fn greedy(cands: &[Window], k: usize) -> Vec<Window> {
    greedy_indices(cands, k)
        .into_iter()
        .map(|i| cands[i])
        .collect()
}

/// Positions in `cands` of the `k` busiest non-overlapping windows, busiest first (ties:
/// earliest first).
fn greedy_indices(cands: &[Window], k: usize) -> Vec<usize> {
    if in_stream_order(cands) {
        greedy_in_stream_order(cands, k)
    } else {
        greedy_by_map(cands, k)
    }
}

/// Windows as [`Candidates`] keeps them: one per start, in order of `first` (strictly rising),
/// each ending no earlier than the one before (a window of fixed length over sorted times), and
/// few enough to number with 32 bits.
fn in_stream_order(cands: &[Window]) -> bool {
    cands.len() < u32::MAX as usize
        && cands.iter().all(|c| c.count < u32::MAX as usize)
        && cands
            .windows(2)
            .all(|p| p[0].first < p[1].first && p[0].last <= p[1].last)
}

/// [`greedy_by_map`] for windows in stream order. There the windows a chosen one overlaps
/// form one run of positions (those ending at or after its first start and beginning at or
/// before its last), found by two binary searches and marked blocked; a run of blocked
/// positions is skipped in one step (`next_open`), so every position is marked once. The rank
/// (count down, then first start up) is one packed integer: ties on count are ordered by
/// position, which is the order of `first`.
fn greedy_in_stream_order(cands: &[Window], k: usize) -> Vec<usize> {
    let n = cands.len();
    let mut order: Vec<u64> = cands
        .iter()
        .enumerate()
        .map(|(i, c)| (u64::from(u32::MAX - c.count as u32) << 32) | i as u64)
        .collect();
    order.sort_unstable();
    let mut blocked = vec![false; n];
    // next_open[i]: a position ≥ i that may be unblocked (path-halving union–find).
    let mut next_open: Vec<u32> = (0..=n as u32).collect();
    fn find(next_open: &mut [u32], mut i: usize) -> usize {
        while next_open[i] as usize != i {
            let up = next_open[next_open[i] as usize];
            next_open[i] = up;
            i = up as usize;
        }
        i
    }
    let mut out = Vec::new();
    for key in order {
        if out.len() >= k {
            break;
        }
        let i = (key & u64::from(u32::MAX)) as usize;
        if blocked[i] {
            continue;
        }
        out.push(i);
        let c = &cands[i];
        let lo = cands.partition_point(|o| o.last < c.first);
        let hi = cands.partition_point(|o| o.first <= c.last);
        let mut j = find(&mut next_open, lo);
        while j < hi {
            blocked[j] = true;
            next_open[j] = j as u32 + 1;
            j = find(&mut next_open, j + 1);
        }
    }
    out
}

/// The greedy choice over windows in any order. The windows chosen so far are held by `first`
/// in an ordered map: they do not overlap one another, so a candidate overlaps one of them
/// exactly when it overlaps the chosen window starting last at or before its own end — a
/// log-time check, where comparing against every chosen window made compacting a busy log
/// quadratic.
fn greedy_by_map(cands: &[Window], k: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..cands.len()).collect();
    order.sort_by(|&a, &b| rank(&cands[a], &cands[b]));
    let mut taken: std::collections::BTreeMap<usize, usize> = std::collections::BTreeMap::new();
    let mut out = Vec::new();
    for i in order {
        if out.len() >= k {
            break;
        }
        let c = &cands[i];
        let overlaps = taken
            .range(..=c.last)
            .next_back()
            .is_some_and(|(_, &last)| last >= c.first);
        if !overlaps {
            taken.insert(c.first, c.last);
            out.push(i);
        }
    }
    out
}

/// The most starts any window of length `w` holds (the count of [`busiest`]'s first window),
/// over a stream of sorted times.
#[derive(Debug, Clone, Default)]
pub struct Peak {
    w: f64,
    open: VecDeque<(f64, usize)>,
    next: usize,
    best: usize,
}

impl Peak {
    pub fn new(w: f64) -> Peak {
        Peak {
            w,
            ..Default::default()
        }
    }

    pub fn push(&mut self, t: f64) {
        while let Some(&(ti, i)) = self.open.front() {
            if t < ti + self.w {
                break;
            }
            self.open.pop_front();
            self.best = self.best.max(self.next - i);
        }
        self.open.push_back((t, self.next));
        self.next += 1;
    }

    pub fn get(&self) -> usize {
        let open = self.open.front().map(|&(_, i)| self.next - i).unwrap_or(0);
        self.best.max(open)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::testkit::*;

    #[test]
    fn busiest_windows_do_not_overlap() {
        let mut t: Vec<f64> = (0..50).map(|i| i as f64 * 0.01).collect(); // 50 in 0.5 s
        t.extend((0..10).map(|i| 100.0 + i as f64 * 0.05)); // 10 in 0.5 s
        t.push(200.0);
        let w = busiest(&t, 1.0, 3);
        assert_eq!(w.len(), 3);
        assert_eq!(w[0].count, 50);
        assert_eq!(w[1].count, 10);
        assert_eq!(w[1].first, 50);
        assert_eq!(w[2].count, 1);
    }

    #[test]
    fn trailing_excludes_self() {
        let t = [0.0, 0.5, 0.9, 1.2, 5.0];
        assert_eq!(trailing(&t, 1.2, 1.0), 2); // 0.5, 0.9
        assert_eq!(trailing(&t, 5.0, 1.0), 0);
    }

    #[test]
    fn in_flight_counts_overlaps() {
        let mut s = Scenario::new();
        s.at(0.0).dur(1000.0).get("https://a/x", 200);
        s.at(0.2).dur(1000.0).get("https://a/x", 200);
        s.at(0.5).dur(10.0).get("https://a/x", 429);
        s.at(1.5).dur(10.0).get("https://a/x", 200);
        let reqs = s.build();
        let spans: Vec<(f64, f64)> = reqs
            .iter()
            .map(|r| {
                let t = crate::detect::secs(r.started.unwrap());
                (t, t + r.duration_ms.unwrap() / 1000.0)
            })
            .collect();
        let f = in_flight_at_starts(&spans);
        assert_eq!(f, vec![0, 1, 2, 0]);
    }

    use proptest::prelude::*;

    /// The plain greedy choice the ordered-map one must equal.
    fn greedy_by_scan(cands: &[Window], k: usize) -> Vec<Window> {
        pick_by_scan(cands.to_vec(), k)
    }

    proptest! {
        #[test]
        fn greedy_equals_the_scan(
            spans in prop::collection::vec((0usize..300, 0usize..40), 0..300),
            k in prop::sample::select(vec![1usize, 3, usize::MAX]),
        ) {
            // One window per first position, as the streaming and batch forms make them.
            let mut seen = std::collections::HashSet::new();
            let cands: Vec<Window> = spans
                .into_iter()
                .filter(|(first, _)| seen.insert(*first))
                .map(|(first, len)| Window {
                    first,
                    last: first + len,
                    count: len + 1,
                    start: first as f64,
                    last_start: (first + len) as f64,
                })
                .collect();
            prop_assert_eq!(greedy(&cands, k), greedy_by_scan(&cands, k));
        }

        /// Windows in stream order (the fast path) choose what the scan chooses.
        #[test]
        fn greedy_in_stream_order_equals_the_scan(
            steps in prop::collection::vec((1usize..4, 0usize..3, 1usize..6), 0..400),
            k in prop::sample::select(vec![1usize, 3, usize::MAX]),
        ) {
            let (mut first, mut last) = (0usize, 0usize);
            let mut cands = Vec::new();
            for (df, dl, count_div) in steps {
                first += df;
                last = (last + dl).max(first);
                let count = (last - first + 1).div_ceil(count_div);
                cands.push(Window {
                    first,
                    last,
                    count,
                    start: first as f64,
                    last_start: last as f64,
                });
            }
            prop_assert!(in_stream_order(&cands));
            prop_assert_eq!(greedy(&cands, k), greedy_by_scan(&cands, k));
        }

        /// The streaming windows give what the batch functions compute over the whole array.
        #[test]
        fn streaming_windows_equal_the_batch_ones(
            gaps in prop::collection::vec(prop::sample::select(vec![0.0, 0.001, 0.01, 0.05, 0.2, 0.7, 1.0, 3.0, 12.0]), 0..400),
            w in prop::sample::select(vec![1.0, 10.0, 60.0]),
        ) {
            let mut t = vec![];
            let mut x = 1_700_000_000.0;
            for g in gaps {
                x += g;
                t.push(x);
            }
            let mut c = Candidates::new(w, 10, 3);
            let mut p = Peak::new(w);
            for &x in &t {
                c.push(x);
                p.push(x);
            }
            let want: Vec<Window> = busiest(&t, w, 3).into_iter().filter(|w| w.count >= 10).collect();
            prop_assert_eq!(c.best(), want);
            prop_assert_eq!(p.get(), busiest(&t, w, 1).first().map(|w| w.count).unwrap_or(0));
        }

        /// A steady stream keeps a few windows' worth of candidates, not one per start.
        #[test]
        fn compaction_bounds_what_is_held(rate in prop::sample::select(vec![2.0f64, 20.0, 50.0])) {
            let mut c = Candidates::with_cap(10.0, 10, 3, 16);
            let n = (rate * 2000.0) as usize;
            let mut most = 0;
            for i in 0..n {
                // A little jitter so window counts differ.
                let t = 1_700_000_000.0 + i as f64 / rate + ((i * 7919) % 13) as f64 * 0.001;
                c.push(t);
                most = most.max(c.held());
            }
            prop_assert!(most <= 2 * 8 * (rate as usize * 10 + 2) + 16, "held {most}");
            prop_assert_eq!(c.best().len(), 3);
        }

        /// Compacting (here after a handful of windows, not thousands) drops only windows
        /// that cannot be among the busiest: the result is the batch one over every start.
        #[test]
        fn compacted_windows_equal_the_batch_ones(
            gaps in prop::collection::vec(prop::sample::select(vec![0.0, 0.02, 0.05, 0.1, 0.2, 0.4, 0.7, 1.0, 2.5]), 0..600),
            w in prop::sample::select(vec![1.0, 10.0]),
            min in prop::sample::select(vec![1usize, 3, 10]),
            cap in prop::sample::select(vec![1usize, 4, 16, 64]),
        ) {
            let mut t = vec![];
            let mut x = 1_700_000_000.0;
            for g in gaps {
                x += g;
                t.push(x);
            }
            let mut c = Candidates::with_cap(w, min, 3, cap);
            for &x in &t {
                c.push(x);
            }
            let want: Vec<Window> = busiest(&t, w, 3).into_iter().filter(|w| w.count >= min).collect();
            prop_assert_eq!(c.best(), want);
        }
    }
}
