//! Streaming statistics that merge: so an analysis can read its input once, in parts, on any
//! number of threads, and give the answer a single pass over everything would.

/// A float ordered totally (`f64::total_cmp`), for heaps and sorted keys.
#[derive(Debug, Clone, Copy)]
pub struct TotalF64(pub f64);

impl PartialEq for TotalF64 {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o).is_eq()
    }
}
impl Eq for TotalF64 {}
impl PartialOrd for TotalF64 {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for TotalF64 {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&o.0)
    }
}

/// Values for percentiles: every value up to [`Samples::CAP`], then an even sample of them (one
/// in 2, 4, 8, ...: the stride doubles each time the store fills), so memory stays bounded and
/// the percentiles of a long stream stay close. Exact whenever the count is at most `CAP`.
#[derive(Debug, Clone, PartialEq)]
pub struct Samples {
    kept: Vec<f64>,
    stride: u64,
    skipped: u64,
    count: u64,
    sum: f64,
}

impl Default for Samples {
    fn default() -> Self {
        Samples {
            kept: Vec::new(),
            stride: 1,
            skipped: 0,
            count: 0,
            sum: 0.0,
        }
    }
}

impl Samples {
    /// Values kept exactly.
    pub const CAP: usize = 1 << 16;

    pub fn new() -> Samples {
        Samples::default()
    }

    pub fn push(&mut self, x: f64) {
        self.count += 1;
        self.sum += x;
        if self.skipped + 1 < self.stride {
            self.skipped += 1;
            return;
        }
        self.skipped = 0;
        self.kept.push(x);
        if self.kept.len() >= Self::CAP {
            self.halve();
        }
    }

    fn halve(&mut self) {
        let mut i = 0;
        self.kept.retain(|_| {
            i += 1;
            i % 2 == 1
        });
        self.stride = self.stride.saturating_mul(2);
    }

    /// Values pushed (all of them, kept or not).
    pub fn len(&self) -> usize {
        self.count as usize
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Every value is kept (the percentiles are exact).
    pub fn exact(&self) -> bool {
        self.stride == 1
    }

    /// The kept values, sorted.
    pub fn sorted(&self) -> Vec<f64> {
        let mut v = self.kept.clone();
        v.sort_by(|a, b| a.total_cmp(b));
        v
    }

    /// Mean of every value pushed: summed in sorted order while exact (the order a batch sum
    /// over sorted values uses), else the running sum.
    pub fn mean(&self, sorted: &[f64]) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        if self.exact() {
            sorted.iter().sum::<f64>() / sorted.len() as f64
        } else {
            self.sum / self.count as f64
        }
    }

    /// Both parts' values (`other` after `self`).
    pub fn merge(&mut self, other: &Samples) {
        if other.exact() {
            for &x in &other.kept {
                self.push(x);
            }
            return;
        }
        // Different strides: bring both to the coarser one, then interleave.
        while self.stride < other.stride {
            self.halve();
        }
        let mut o = other.clone();
        while o.stride < self.stride {
            o.halve();
        }
        self.kept.extend_from_slice(&o.kept);
        self.count += o.count;
        self.sum += o.sum;
        while self.kept.len() >= Self::CAP {
            self.halve();
        }
    }
}

/// Counts per small non-negative integer value (requests in flight, attempts per operation):
/// exact percentiles in memory that follows the largest value, not the number of values.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Counts {
    by_value: Vec<u64>,
    total: u64,
}

impl Counts {
    pub fn push(&mut self, v: usize) {
        if self.by_value.len() <= v {
            self.by_value.resize(v + 1, 0);
        }
        self.by_value[v] += 1;
        self.total += 1;
    }

    pub fn merge(&mut self, o: &Counts) {
        if self.by_value.len() < o.by_value.len() {
            self.by_value.resize(o.by_value.len(), 0);
        }
        for (a, b) in self.by_value.iter_mut().zip(&o.by_value) {
            *a += b;
        }
        self.total += o.total;
    }

    pub fn len(&self) -> usize {
        self.total as usize
    }

    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// The value at 1-based rank `rank` in sorted order.
    pub fn at_rank(&self, rank: u64) -> Option<usize> {
        let mut seen = 0;
        for (v, &n) in self.by_value.iter().enumerate() {
            seen += n;
            if n > 0 && seen >= rank {
                return Some(v);
            }
        }
        None
    }

    /// `p` in 0..=1, nearest rank (as `detect::percentile` on the sorted values); 0 when empty.
    pub fn percentile(&self, p: f64) -> f64 {
        if self.total == 0 {
            return 0.0;
        }
        let rank = ((p * self.total as f64).ceil() as u64).clamp(1, self.total);
        self.at_rank(rank).unwrap_or(0) as f64
    }

    pub fn min(&self) -> Option<usize> {
        self.by_value.iter().position(|&n| n > 0)
    }

    pub fn max(&self) -> Option<usize> {
        self.by_value.iter().rposition(|&n| n > 0)
    }

    /// Values present, ascending.
    pub fn values(&self) -> impl Iterator<Item = usize> + '_ {
        self.by_value
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(v, _)| v)
    }

    /// How many values are below `t`.
    pub fn below(&self, t: usize) -> u64 {
        self.by_value.iter().take(t).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn pct(sorted: &[f64], p: f64) -> f64 {
        let rank = (p * sorted.len() as f64).ceil() as usize;
        sorted[rank.clamp(1, sorted.len()) - 1]
    }

    proptest! {
        #[test]
        fn samples_split_and_merged_equal_one_pass(v in prop::collection::vec(-1e6f64..1e6, 0..500), cut in 0usize..500) {
            let cut = cut.min(v.len());
            let mut one = Samples::new();
            v.iter().for_each(|&x| one.push(x));
            let (mut a, mut b) = (Samples::new(), Samples::new());
            v[..cut].iter().for_each(|&x| a.push(x));
            v[cut..].iter().for_each(|&x| b.push(x));
            a.merge(&b);
            prop_assert_eq!(a.sorted(), one.sorted());
            prop_assert_eq!(a.len(), v.len());
        }

        #[test]
        fn counts_percentiles_are_the_sorted_values(v in prop::collection::vec(0usize..50, 1..300), p in 0.0f64..=1.0) {
            let mut c = Counts::default();
            v.iter().for_each(|&x| c.push(x));
            let mut s: Vec<f64> = v.iter().map(|&x| x as f64).collect();
            s.sort_by(|a, b| a.total_cmp(b));
            prop_assert_eq!(c.percentile(p), pct(&s, p));
        }
    }

    #[test]
    fn samples_stay_bounded_and_close() {
        let mut s = Samples::new();
        let n = Samples::CAP * 5;
        for i in 0..n {
            s.push(i as f64);
        }
        assert!(s.sorted().len() < Samples::CAP);
        assert_eq!(s.len(), n);
        let med = pct(&s.sorted(), 0.5);
        assert!((med - n as f64 / 2.0).abs() < n as f64 * 0.01, "{med}");
    }
}
