//! Concurrency limit: at most `max` requests in flight (Stripe's concurrent requests limiter,
//! "20 API requests in progress at the same time"; GitHub's 100 concurrent requests). A slot is
//! taken on admission and freed when the response is complete ([`super::Limiter::release`]).
//! No time is known at which a slot frees, so a refusal carries no Retry-After.

use super::{Decision, Nanos, Quota, QuotaUnit};

#[derive(Debug, Clone)]
pub struct Concurrency {
    max: u64,
    in_flight: u64,
}

impl Concurrency {
    pub fn new(max: u64) -> Concurrency {
        Concurrency { max, in_flight: 0 }
    }

    pub fn admit(&mut self, _now: Nanos) -> Decision {
        let admitted = self.in_flight < self.max;
        if admitted {
            self.in_flight += 1;
        }
        Decision {
            admitted,
            delay_ns: 0,
            retry_after_ns: None,
            quota: Quota {
                policy: "concurrency",
                limit: self.max,
                window_s: None,
                remaining: self.max - self.in_flight,
                reset_ns: None,
                burst: None,
                unit: QuotaUnit::ConcurrentRequests,
            },
        }
    }

    pub fn release(&mut self) {
        self.in_flight = self.in_flight.saturating_sub(1);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use super::super::{parse_spec, Limiter};

    #[test]
    fn slots_are_held_until_release() {
        let mut l = Limiter::new(&parse_spec("concurrency:2").unwrap());
        assert!(l.admit(T0).admitted);
        assert!(l.admit(T0).admitted);
        let refused = l.admit(T0 + ms(1));
        assert!(!refused.admitted);
        assert_eq!(refused.retry_after_ns, None);
        assert_eq!(refused.quota.remaining, 0);
        l.release(T0 + ms(50));
        let d = l.admit(T0 + ms(51));
        assert!(d.admitted);
        assert_eq!(d.quota.remaining, 0);
        // Time alone frees nothing.
        assert!(!l.admit(T0 + ms(60_000)).admitted);
    }
}
