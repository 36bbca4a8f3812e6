//! Sliding-window counter (Cloudflare's rate limiting rules, Kong `rate-limiting-advanced` with
//! `window_type = sliding`): counts per clock-aligned window, and a request is admitted when
//!
//! ```text
//! previous × (window − elapsed) / window + current + 1 ≤ limit
//! ```
//!
//! i.e. the previous window's count weighted by how much of it still overlaps the last window
//! length. Kong counts rejected requests too ("the algorithm counts the response 429 and the API
//! is blocked indefinitely" while a client keeps sending): `count-rejected` turns that on.
//! Compared in integers scaled by the window length, so no float rounding decides a request.

use super::{Decision, Nanos, Quota, QuotaUnit};

#[derive(Debug, Clone)]
pub struct SlidingWindow {
    limit: u64,
    window_ns: u64,
    count_rejected: bool,
    /// Start of the current window; counts of it and of the one before.
    start: Option<Nanos>,
    current: u64,
    previous: u64,
}

impl SlidingWindow {
    pub fn new(limit: u64, window_ns: u64, count_rejected: bool) -> SlidingWindow {
        SlidingWindow {
            limit,
            window_ns,
            count_rejected,
            start: None,
            current: 0,
            previous: 0,
        }
    }

    fn roll(&mut self, now: Nanos) {
        let aligned = now - now % self.window_ns;
        match self.start {
            Some(s) if s == aligned => {}
            Some(s) if aligned == s + self.window_ns => {
                self.previous = self.current;
                self.current = 0;
                self.start = Some(aligned);
            }
            _ => {
                self.previous = 0;
                self.current = 0;
                self.start = Some(aligned);
            }
        }
    }

    /// The weighted count × window at `elapsed` into the current window.
    fn scaled(&self, elapsed: u64) -> u128 {
        let w = self.window_ns as u128;
        self.previous as u128 * (w - elapsed as u128) + self.current as u128 * w
    }

    /// Earliest time from `now` (at `elapsed` into the window) when `cost` more units fit, if
    /// nothing else is counted meanwhile (`cost` ≤ limit).
    fn wait_for(&self, elapsed: u64, cost: u64) -> u64 {
        let w = self.window_ns as u128;
        let limit = self.limit as u128;
        let cost = cost as u128;
        let (prev, cur) = (self.previous as u128, self.current as u128);
        // Within this window: prev·(w − e) + (cur + cost)·w ≤ limit·w.
        if cur + cost <= limit {
            let room = (limit - cur - cost) * w;
            let e = room.checked_div(prev).map_or(0, |r| w.saturating_sub(r));
            if e < w {
                return (e.max(elapsed as u128) - elapsed as u128) as u64;
            }
        }
        // In the next window the current count becomes the previous one.
        let to_end = (w - elapsed as u128) as u64;
        if cur == 0 {
            return to_end;
        }
        let room = (limit - cost) * w;
        let e = w.saturating_sub(room / cur);
        to_end + super::ns(e)
    }

    pub fn admit(&mut self, now: Nanos, cost: u64) -> Decision {
        self.roll(now);
        let elapsed = now - self.start.unwrap_or(now);
        let w = self.window_ns as u128;
        let admitted = self.scaled(elapsed) + cost as u128 * w <= self.limit as u128 * w;
        if admitted || self.count_rejected {
            self.current = self.current.saturating_add(cost);
        }
        let used = self.scaled(elapsed);
        let cap = self.limit as u128 * w;
        let remaining = if used >= cap {
            0
        } else {
            ((cap - used) / w) as u64
        };
        let fits = cost <= self.limit;
        let wait = self.wait_for(elapsed, if fits { cost } else { 1 });
        Decision {
            admitted,
            delay_ns: 0,
            retry_after_ns: (!admitted && fits).then_some(wait),
            quota: Quota {
                policy: "sliding-window",
                limit: self.limit,
                window_s: Some(self.window_ns.div_ceil(super::NS_PER_S)),
                remaining,
                reset_ns: Some(if remaining > 0 {
                    self.window_ns - elapsed
                } else {
                    wait
                }),
                burst: None,
                unit: QuotaUnit::Requests,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;

    #[test]
    fn hand_worked_weighted_count() {
        // 4/s. Window [0,1000): 4 admitted at 0..300, the 5th refused.
        // At 1250: previous 4 × 750/1000 = 3 + current 0 + 1 = 4 ≤ 4 → admitted.
        // At 1260: 4 × 0.74 = 2.96 + 1 + 1 = 4.96 > 4 → refused; one more fits when
        // 4 × (1 − e) + 2 ≤ 4, e ≥ 0.5 → at 1500, i.e. 240 ms later.
        // At 1500: 2 + 1 + 1 = 4 → admitted.
        let got = run(
            "sliding-window:4/s",
            &[0, 100, 200, 300, 400, 1250, 1260, 1500],
        );
        assert_eq!(
            got,
            [
                (true, 0, None),
                (true, 0, None),
                (true, 0, None),
                (true, 0, None),
                // 4 in this window already: the next fits when 4·(1−e) + 0 + 1 ≤ 4 in the
                // next window, e ≥ 0.25 → 1250, i.e. 850 ms after 400.
                (false, 0, Some(850)),
                (true, 0, None),
                (false, 0, Some(240)),
                (true, 0, None),
            ]
        );
    }

    #[test]
    fn counting_rejected_requests_keeps_a_persistent_client_blocked() {
        // A client that retries every 100 ms against 2/s.
        let arrivals: Vec<u64> = (0..40).map(|i| i * 100).collect();
        let free = admitted("sliding-window:2/s", &arrivals);
        let counted = admitted("sliding-window:2/s,count-rejected", &arrivals);
        // Not counting rejections: 2 in the first second, then one a second (the previous
        // window's weight leaves room for limit − 1 under constant pressure): 2 + 1 + 1 + 1.
        assert_eq!(free.iter().filter(|a| **a).count(), 5, "{free:?}");
        // Kong's behaviour: after the first window the rejected attempts keep the weighted
        // count above the limit, so nothing more is admitted while it keeps sending.
        assert_eq!(counted.iter().filter(|a| **a).count(), 2, "{counted:?}");
    }

    #[test]
    fn a_quiet_gap_of_two_windows_forgets_everything() {
        let got = admitted("sliding-window:2/s", &[0, 1, 2, 2500, 2501, 2502]);
        assert_eq!(got, [true, true, false, true, true, false]);
    }
}
