//! Fixed window: at most `limit` requests per window. Windows start at multiples of the window
//! length since the epoch (envoyproxy/ratelimit puts the window start in its cache key; Kong's
//! `rate-limiting` counts per calendar second/minute/hour), or at the first request after the
//! previous window ended (`align=first`). Rejected requests are not counted.

use super::{Decision, Nanos, Quota, QuotaUnit};

#[derive(Debug, Clone)]
pub struct FixedWindow {
    limit: u64,
    window_ns: u64,
    align_first: bool,
    /// Start of the current window and requests admitted in it.
    start: Option<Nanos>,
    count: u64,
}

impl FixedWindow {
    pub fn new(limit: u64, window_ns: u64, align_first: bool) -> FixedWindow {
        FixedWindow {
            limit,
            window_ns,
            align_first,
            start: None,
            count: 0,
        }
    }

    fn roll(&mut self, now: Nanos) {
        let current = match self.start {
            Some(s) if now < s.saturating_add(self.window_ns) && now >= s => return,
            _ if self.align_first => now,
            _ => now - now % self.window_ns,
        };
        self.start = Some(current);
        self.count = 0;
    }

    /// A request costing `cost` units (1 for a request; tokens for a token budget).
    pub fn admit(&mut self, now: Nanos, cost: u64) -> Decision {
        self.roll(now);
        let start = self.start.unwrap_or(now);
        let end_in = start.saturating_add(self.window_ns) - now;
        let admitted = self.count.saturating_add(cost) <= self.limit;
        if admitted {
            self.count += cost;
        }
        let remaining = self.limit - self.count;
        Decision {
            admitted,
            delay_ns: 0,
            // A cost larger than the whole window never fits: no time to name.
            retry_after_ns: (!admitted && cost <= self.limit).then_some(end_in),
            quota: Quota {
                policy: "fixed-window",
                limit: self.limit,
                window_s: Some(self.window_ns.div_ceil(super::NS_PER_S)),
                remaining,
                reset_ns: Some(end_in),
                burst: None,
                unit: QuotaUnit::Requests,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use super::super::{parse_spec, Limiter, NS_PER_S};

    #[test]
    fn hand_worked_clock_aligned_timeline() {
        // 3/s, windows [0,1000) [1000,2000) ms after a whole second.
        let got = run(
            "fixed-window:3/s",
            &[0, 100, 200, 300, 999, 1000, 1500, 1600, 1700],
        );
        let want = [
            (true, 0, None),
            (true, 0, None),
            (true, 0, None),
            (false, 0, Some(700)), // window ends at 1000
            (false, 0, Some(1)),
            (true, 0, None), // new window
            (true, 0, None),
            (true, 0, None),
            (false, 0, Some(300)),
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn first_request_alignment_starts_the_window_at_the_request() {
        let got = admitted(
            "fixed-window:2/s,align=first",
            &[300, 400, 500, 1299, 1300, 1350, 1400],
        );
        assert_eq!(got, [true, true, false, false, true, true, false]);
        // Clock-aligned, the same arrivals straddle the boundary at 1000.
        let got = admitted("fixed-window:2/s", &[300, 400, 500, 1299, 1300, 1350, 1400]);
        assert_eq!(got, [true, true, false, true, true, false, false]);
    }

    #[test]
    fn the_guide_burst_admits_one_window() {
        // 600 requests at once against 120/min: 120 pass, 480 refused.
        let got = admitted("fixed-window:120/min", &[0; 600]);
        assert_eq!(got.iter().filter(|a| **a).count(), 120);
    }

    #[test]
    fn spaced_at_667_ms_never_exceeds_120_per_minute() {
        let arrivals: Vec<u64> = (0..600).map(|i| i * 667).collect();
        assert!(admitted("fixed-window:120/min", &arrivals)
            .iter()
            .all(|a| *a));
    }

    #[test]
    fn quota_counts_down_and_resets_at_the_window_end() {
        let mut l = Limiter::new(&parse_spec("fixed-window:10/min").unwrap());
        let d = l.admit(T0 + 15 * NS_PER_S);
        assert_eq!(d.quota.limit, 10);
        assert_eq!(d.quota.window_s, Some(60));
        assert_eq!(d.quota.remaining, 9);
        assert_eq!(d.quota.reset_ns, Some(45 * NS_PER_S));
    }
}
