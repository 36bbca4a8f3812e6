//! Daily quota: at most `limit` admitted requests per UTC day, reset at 00:00 UTC (the common
//! "requests per day" allowance; OpenAI's RPD, many free API tiers). Refused requests are not
//! counted. The wait is the time to the next midnight.

use super::{Decision, Nanos, Quota, QuotaUnit, NS_PER_DAY};

#[derive(Debug, Clone)]
pub struct Daily {
    limit: u64,
    day: Option<u64>,
    used: u64,
}

impl Daily {
    pub fn new(limit: u64) -> Daily {
        Daily {
            limit,
            day: None,
            used: 0,
        }
    }

    pub fn admit(&mut self, now: Nanos, cost: u64) -> Decision {
        let day = now / NS_PER_DAY;
        if self.day != Some(day) {
            self.day = Some(day);
            self.used = 0;
        }
        let admitted = self.used.saturating_add(cost) <= self.limit;
        if admitted {
            self.used += cost;
        }
        // Saturating: a clock near the end of u64 (fuzzed, or a far-future virtual clock) has no
        // next midnight to reach; the wait is then the time left on the clock, never a panic.
        let to_midnight = (day + 1).saturating_mul(NS_PER_DAY).saturating_sub(now);
        Decision {
            admitted,
            delay_ns: 0,
            retry_after_ns: (!admitted && cost <= self.limit).then_some(to_midnight),
            quota: Quota {
                policy: "daily",
                limit: self.limit,
                window_s: Some(86_400),
                remaining: self.limit - self.used,
                reset_ns: Some(to_midnight),
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
    fn a_clock_at_the_end_of_time_does_not_overflow() {
        let mut l = Limiter::new(&parse_spec("daily:1").unwrap());
        l.admit(u64::MAX - 1);
        let refused = l.admit(u64::MAX);
        assert!(!refused.admitted);
        assert_eq!(refused.retry_after_ns, Some(0));
    }

    #[test]
    fn resets_at_midnight_utc_and_says_so() {
        let mut l = Limiter::new(&parse_spec("daily:2").unwrap());
        // 23:00 UTC on the first day.
        let late = T0 + 23 * 3600 * NS_PER_S;
        assert!(l.admit(late).admitted);
        assert!(l.admit(late).admitted);
        let refused = l.admit(late + 1800 * NS_PER_S);
        assert!(!refused.admitted);
        // 23:30 → midnight is 30 minutes away.
        assert_eq!(refused.retry_after_ns, Some(1800 * NS_PER_S));
        assert_eq!(refused.quota.reset_ns, Some(1800 * NS_PER_S));
        // One nanosecond after midnight the day starts over.
        let next_day = T0 + 24 * 3600 * NS_PER_S + 1;
        let d = l.admit(next_day);
        assert!(d.admitted);
        assert_eq!(d.quota.remaining, 1);
    }
}
