//! Token bucket: `count` tokens per period, at most `burst` stored, full at the start, one token
//! per request (AWS API Gateway: "the token bucket algorithm, where a token counts for a
//! request"; Envoy `local_ratelimit`'s `TokenBucket {max_tokens, tokens_per_fill,
//! fill_interval}`). Refilled continuously (Envoy since 1.31, PR #35207: refilled on access), or
//! with `interval=` in whole steps every fill interval on a clock-aligned timer, as Envoy did
//! before (a main-thread timer every `fill_interval`).
//!
//! Tokens are kept scaled by the period (one token = `period_ns` units, refill `count` units per
//! ns), so 2/s or 90/min refill exactly.

use super::{div_ceil_u128, ns, Decision, Nanos, Quota, QuotaUnit};

#[derive(Debug, Clone)]
pub struct TokenBucket {
    count: u64,
    period_ns: u64,
    burst: u64,
    fill_interval_ns: Option<u64>,
    /// Scaled tokens (continuous) or whole tokens (discrete), and the last update.
    tokens: u128,
    last: Option<Nanos>,
}

impl TokenBucket {
    pub fn new(count: u64, period_ns: u64, burst: u64, fill_interval_ns: Option<u64>) -> Self {
        TokenBucket {
            count,
            period_ns,
            burst,
            fill_interval_ns,
            tokens: 0,
            last: None,
        }
    }

    fn quota(&self, remaining: u64, reset_ns: u64) -> Quota {
        // Advertised as count per period with the bucket size beside it.
        let (limit, window_s) = whole_seconds(self.count, self.period_ns);
        Quota {
            policy: "token-bucket",
            limit,
            window_s: Some(window_s),
            remaining,
            reset_ns: Some(reset_ns),
            burst: Some(self.burst),
            unit: QuotaUnit::Requests,
        }
    }

    /// A request taking `cost` tokens (1 for a request).
    pub fn admit(&mut self, now: Nanos, cost: u64) -> Decision {
        match self.fill_interval_ns {
            None => self.admit_continuous(now, cost),
            Some(i) => self.admit_discrete(now, i, cost),
        }
    }

    fn admit_continuous(&mut self, now: Nanos, cost: u64) -> Decision {
        let fits = cost <= self.burst;
        let need = self.period_ns as u128 * cost as u128;
        let unit = self.period_ns as u128;
        let cap = self.burst as u128 * unit;
        self.tokens = match self.last {
            None => cap,
            Some(last) => {
                let elapsed = now.saturating_sub(last) as u128;
                (self.tokens + elapsed * self.count as u128).min(cap)
            }
        };
        self.last = Some(self.last.map_or(now, |l| l.max(now)));
        let admitted = fits && self.tokens >= need;
        if admitted {
            self.tokens -= need;
        }
        let rate = self.count as u128;
        // Time until the next whole token arrives (a full bucket: one emission interval).
        let to_next = if self.tokens >= cap {
            div_ceil_u128(unit, rate)
        } else {
            div_ceil_u128(unit - self.tokens % unit, rate)
        };
        let remaining = (self.tokens / unit) as u64;
        Decision {
            admitted,
            delay_ns: 0,
            retry_after_ns: (!admitted && fits)
                .then(|| ns(div_ceil_u128(need - self.tokens, rate))),
            quota: self.quota(remaining, ns(to_next)),
        }
    }

    fn admit_discrete(&mut self, now: Nanos, interval: u64, cost: u64) -> Decision {
        let per_fill = self.count as u128 * interval as u128 / self.period_ns as u128;
        let cap = self.burst as u128;
        self.tokens = match self.last {
            None => cap,
            Some(last) => {
                let fills = (now / interval).saturating_sub(last / interval) as u128;
                (self.tokens + fills * per_fill).min(cap)
            }
        };
        self.last = Some(self.last.map_or(now, |l| l.max(now)));
        let need = cost as u128;
        let admitted = need <= cap && self.tokens >= need;
        if admitted {
            self.tokens -= need;
        }
        let to_fill = interval - now % interval;
        // Whole fills until `need` tokens are there.
        let fills = match need.saturating_sub(self.tokens) {
            0 => 0,
            short if per_fill > 0 => (short.div_ceil(per_fill) - 1) as u64,
            _ => 0,
        };
        Decision {
            admitted,
            delay_ns: 0,
            retry_after_ns: (!admitted && need <= cap && per_fill > 0)
                .then(|| to_fill.saturating_add(fills.saturating_mul(interval))),
            quota: self.quota(self.tokens as u64, to_fill),
        }
    }
}

/// A rate as a whole count per whole seconds for the headers (`q`, `w` are integers):
/// 2/s → (2, 1); 90/min → (90, 60); 5/500ms → (10, 1).
pub(crate) fn whole_seconds(count: u64, period_ns: u64) -> (u64, u64) {
    let s = super::NS_PER_S;
    if period_ns.is_multiple_of(s) {
        (count, period_ns / s)
    } else {
        let per_second = (count as u128 * s as u128 / period_ns as u128) as u64;
        (per_second.max(1), 1)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;

    #[test]
    fn hand_worked_continuous_refill() {
        // 2/s, burst 5: five at once, then one every 500 ms.
        let got = run(
            "token-bucket:2/s,burst=5",
            &[0, 0, 0, 0, 0, 0, 250, 500, 600, 1000, 1001],
        );
        assert_eq!(
            got,
            [
                (true, 0, None),
                (true, 0, None),
                (true, 0, None),
                (true, 0, None),
                (true, 0, None),
                (false, 0, Some(500)),
                (false, 0, Some(250)),
                (true, 0, None),
                (false, 0, Some(400)),
                (true, 0, None),
                (false, 0, Some(499)),
            ]
        );
    }

    #[test]
    fn discrete_refill_waits_for_the_timer() {
        // 2/s refilled as 1 token every 500 ms on the clock: a request at 499 waits 1 ms.
        let got = run(
            "token-bucket:2/s,burst=2,interval=500ms",
            &[0, 0, 0, 499, 500, 501, 999, 1000],
        );
        assert_eq!(
            got,
            [
                (true, 0, None),
                (true, 0, None),
                (false, 0, Some(500)),
                (false, 0, Some(1)),
                (true, 0, None),
                (false, 0, Some(499)),
                (false, 0, Some(1)),
                (true, 0, None),
            ]
        );
    }

    #[test]
    fn ninety_per_minute_refills_exactly() {
        // burst 1: one every 666.67 ms. 667 ms spacing always passes; 666 ms fails every
        // second request (a refused request takes no token, so the next has 1332 ms).
        let ok: Vec<u64> = (0..100).map(|i| i * 667).collect();
        assert!(admitted("token-bucket:90/min,burst=1", &ok)
            .iter()
            .all(|a| *a));
        let tight: Vec<u64> = (0..100).map(|i| i * 666).collect();
        let got = admitted("token-bucket:90/min,burst=1", &tight);
        assert_eq!(got.iter().filter(|a| **a).count(), 50);
    }
}
