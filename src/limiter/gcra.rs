//! GCRA, the generic cell rate algorithm (virtual scheduling form, as in governor and
//! redis-cell): emission interval T = period / count, tolerance τ = (burst − 1) · T; a request
//! at `now` is admitted when `max(TAT, now) − now ≤ τ`, and then TAT = max(TAT, now) + T. A
//! refused request leaves TAT alone, and the wait is `TAT − τ − now`.
//!
//! `burst` is the number admitted back to back (governor: `Quota::per_second(2)
//! .allow_burst(5)`); redis-cell's `max_burst` is one less (`CL.THROTTLE k 15 30 60` allows 16).
//! Times are kept multiplied by `count`, which makes T = period an integer.

use super::token_bucket::whole_seconds;
use super::{div_ceil_u128, ns, Decision, Nanos, Quota, QuotaUnit};

#[derive(Debug, Clone)]
pub struct Gcra {
    count: u64,
    period_ns: u64,
    burst: u64,
    /// Theoretical arrival time × count.
    tat: u128,
}

impl Gcra {
    pub fn new(count: u64, period_ns: u64, burst: u64) -> Gcra {
        Gcra {
            count,
            period_ns,
            burst,
            tat: 0,
        }
    }

    /// A request of `cost` cells: admitted when its last cell conforms (`cost` ≤ burst).
    pub fn admit(&mut self, now: Nanos, cost: u64) -> Decision {
        let c = self.count as u128;
        let t = self.period_ns as u128;
        let tau = (self.burst as u128 - 1) * t;
        let extra = (cost.max(1) as u128 - 1) * t;
        let fits = cost <= self.burst;
        let now_s = now as u128 * c;
        let tat = self.tat.max(now_s);
        let admitted = fits && tat + extra - now_s <= tau;
        if admitted {
            self.tat = tat + extra + t;
        }
        let ahead = self.tat.max(now_s) - now_s;
        let (remaining, to_next) = if ahead > tau {
            (0, ahead - tau)
        } else {
            let left = tau - ahead;
            let remaining = (left / t + 1) as u64;
            let to_next = if ahead == 0 { t } else { t - left % t };
            (remaining.min(self.burst), to_next)
        };
        let (limit, window_s) = whole_seconds(self.count, self.period_ns);
        Decision {
            admitted,
            delay_ns: 0,
            retry_after_ns: (!admitted && fits)
                .then(|| ns(div_ceil_u128(tat + extra - tau - now_s, c))),
            quota: Quota {
                policy: "gcra",
                limit,
                window_s: Some(window_s),
                remaining,
                reset_ns: Some(ns(div_ceil_u128(to_next, c))),
                burst: Some(self.burst),
                unit: QuotaUnit::Requests,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use super::super::{parse_spec, Limiter, NS_PER_MS};
    use proptest::prelude::*;

    #[test]
    fn hand_worked_timeline() {
        // 2/s (T = 500 ms), burst 5 (τ = 2 s).
        let got = run("gcra:2/s,burst=5", &[0, 0, 0, 0, 0, 0, 400, 500, 999, 1000]);
        assert_eq!(
            got,
            [
                (true, 0, None),
                (true, 0, None),
                (true, 0, None),
                (true, 0, None),
                (true, 0, None),
                // TAT = 2500, τ = 2000: wait 2500 − 2000 − 0.
                (false, 0, Some(500)),
                (false, 0, Some(100)),
                (true, 0, None), // TAT 3000: at 999 it is 2001 ahead
                (false, 0, Some(1)),
                (true, 0, None),
            ]
        );
    }

    #[test]
    fn redis_cell_readme_example() {
        // CL.THROTTLE user123 15 30 60 → limit 16, remaining 15: 30 per 60 s with max_burst 15,
        // i.e. burst 16 here. First request: admitted, 15 left, full again after 2 s.
        let mut l = Limiter::new(&parse_spec("gcra:30/min,burst=16").unwrap());
        let d = l.admit(T0);
        assert!(d.admitted);
        assert_eq!(d.quota.remaining, 15);
        assert_eq!(d.quota.reset_ns, Some(2000 * NS_PER_MS));
    }

    proptest! {
        /// GCRA with burst B decides exactly like a continuous token bucket of capacity B.
        #[test]
        fn gcra_equals_the_continuous_token_bucket(
            count in 1u64..20,
            period_ms in prop::sample::select(vec![100u64, 1000, 60_000]),
            burst in 1u64..8,
            gaps in prop::collection::vec(0u64..2_000, 1..60),
        ) {
            let mut t = 0;
            let arrivals: Vec<u64> = gaps.iter().map(|g| { t += g; t }).collect();
            let rate = format!("{count}/{period_ms}ms");
            let a = run(&format!("gcra:{rate},burst={burst}"), &arrivals);
            let b = run(&format!("token-bucket:{rate},burst={burst}"), &arrivals);
            prop_assert_eq!(a, b);
        }
    }
}
