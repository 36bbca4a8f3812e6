//! nginx `limit_req`, exactly: `ngx_http_limit_req_module.c` (nginx/nginx, `lookup` and
//! `account`), with one zone, one key and one `limit_req` line.
//!
//! - The rate is kept in milli-requests per second with nginx's integer division:
//!   `rate = r * 1000 / scale` (scale 1 for r/s, 60 for r/m; `1r/m` is 16, i.e. 0.96/min).
//! - State per key is `(excess, last)` in milli-requests and milliseconds. A request computes
//!   `excess = excess − rate × ms / 1000 + 1000`, floored at 0 (`ms` = time since `last`,
//!   0 if the clock went back less than 60 s, 1 if more).
//! - `excess > burst × 1000` rejects, **without touching the state** (a refused request costs
//!   nothing). Otherwise the state is stored; `last` moves only when `ms ≠ 0`.
//! - An admitted request is held `(excess − delay) × 1000 / rate` ms when `excess > delay`,
//!   where `delay` is `delay=N × 1000`, 0 by default (every excess request is held) and
//!   effectively infinite with `nodelay`.
//! - The first request of a key creates its node with `excess = 0`, so a fresh key gets
//!   `burst + 1` at once; with one key the node never expires.
//!
//! nginx rejects with 503 (`limit_req_status`) and sends no Retry-After; the mock answers 429 by
//! default and computes the wait nginx would impose: `ceil((excess + 1000 − burst) × 1000 /
//! rate)` ms after `last`.

use super::spec::NginxDelay;
use super::{Decision, Nanos, Quota, QuotaUnit, NS_PER_MS};

/// `NGX_MAX_INT_T_VALUE / 1000 * 1000` on 64-bit: what `nodelay` sets the delay threshold to.
const NODELAY: u64 = (i64::MAX as u64 / 1000) * 1000;

#[derive(Debug, Clone)]
pub struct LeakyBucket {
    /// Configured requests per second or minute, as written.
    rate_written: u64,
    per_minute: bool,
    /// milli-requests per second, nginx's `ctx->rate`.
    rate: u64,
    burst: u64,
    /// `limit->delay`, milli-requests.
    delay: u64,
    /// `(excess, last)`: milli-requests and ms.
    node: Option<(u64, u64)>,
}

impl LeakyBucket {
    pub fn new(rate: u64, per_minute: bool, burst: u64, delay: NginxDelay) -> LeakyBucket {
        let scale = if per_minute { 60 } else { 1 };
        LeakyBucket {
            rate_written: rate,
            per_minute,
            // A rate below 1 milli-request/s (60r/m would be 1000) cannot be configured in
            // nginx (`rate=0r/m` is refused); keep it at 1 rather than divide by zero.
            rate: (rate * 1000 / scale).max(1),
            burst: burst * 1000,
            delay: match delay {
                NginxDelay::Delay(d) => d * 1000,
                NginxDelay::NoDelay => NODELAY,
            },
            node: None,
        }
    }

    /// Time to drain `milli` milli-requests, ms (rounded up).
    fn drain_ms(&self, milli: u64) -> u64 {
        (milli as u128 * 1000).div_ceil(self.rate as u128) as u64
    }

    pub fn admit(&mut self, now: Nanos) -> Decision {
        let now_ms = now / NS_PER_MS;
        let (excess, admitted) = match self.node {
            None => {
                self.node = Some((0, now_ms));
                (0, true)
            }
            Some((stored, last)) => {
                let diff = now_ms as i128 - last as i128;
                let ms: i128 = if diff < -60_000 {
                    1
                } else if diff < 0 {
                    0
                } else {
                    diff
                };
                let e = stored as i128 - self.rate as i128 * ms / 1000 + 1000;
                let e = e.max(0) as u64;
                if e > self.burst {
                    (e, false)
                } else {
                    let last = if ms != 0 { now_ms } else { last };
                    self.node = Some((e, last));
                    (e, true)
                }
            }
        };
        let delay_ms = if admitted && excess > self.delay {
            (excess - self.delay) * 1000 / self.rate
        } else {
            0
        };
        let (stored, last) = self.node.unwrap_or((0, now_ms));
        let retry_after_ns = (!admitted).then(|| {
            // Smallest ms since `last` with stored − rate·ms/1000 + 1000 ≤ burst.
            let need = stored + 1000 - self.burst;
            let at_ms = last as u128 + self.drain_ms(need) as u128;
            // In u128: a clock near the end of u64 (fuzzed, or a far-future virtual clock) may
            // put the instant past it; the wait is then what the clock can still express.
            (at_ms * NS_PER_MS as u128)
                .saturating_sub(now as u128)
                .min(u64::MAX as u128) as u64
        });
        let remaining = if admitted {
            (self.burst - excess) / 1000
        } else {
            0
        };
        let reset_ns = match retry_after_ns {
            Some(r) => r,
            None if stored == 0 => self.drain_ms(1000) * NS_PER_MS,
            None => {
                // Until one more request fits: excess must fall to burst − 1000·(remaining+1).
                let target = self.burst as i128 - 1000 * (remaining as i128 + 1);
                let d = (stored as i128 - target.max(0)).max(1) as u64;
                self.drain_ms(d) * NS_PER_MS
            }
        };
        Decision {
            admitted,
            delay_ns: delay_ms * NS_PER_MS,
            retry_after_ns,
            quota: Quota {
                policy: "leaky-bucket",
                limit: self.rate_written,
                window_s: Some(if self.per_minute { 60 } else { 1 }),
                remaining,
                reset_ns: Some(reset_ns),
                burst: Some(self.burst / 1000),
                unit: QuotaUnit::Requests,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use crate::limiter::{parse_spec, Limiter};

    /// cargo-fuzz `limiter_spec` (docs/fuzzing.md finding 4): a refusal with the clock less
    /// than one drain interval before the end of u64 multiplied the next instant in ms back to
    /// ns and overflowed.
    #[test]
    fn a_clock_near_the_end_of_time_does_not_overflow() {
        for spec in ["leaky-bucket:2/s,burst=5,nodelay", "leaky-bucket:1/min"] {
            let mut l = Limiter::new(&parse_spec(spec).unwrap());
            let start = u64::MAX - 1_000_000_000;
            let mut refused = 0;
            for i in 0..20u64 {
                let now = start + i * 1_000_000;
                let d = l.admit(now);
                if !d.admitted {
                    refused += 1;
                    let wait = d.retry_after_ns.unwrap();
                    // The model's own wait (past the end of the clock, which is fine): at
                    // most one request's drain, a minute at 1/min.
                    assert!(wait > 0 && wait < 120 * 1_000_000_000, "{spec}: {wait}");
                }
            }
            assert!(refused > 0, "{spec}: some are refused");
        }
    }

    /// Measured against nginx 1.22.1 (verify-simulate.md §2.1, [M2]): 7 simultaneous requests.
    #[test]
    fn nginx_default_holds_the_burst() {
        // rate=10r/s burst=5: 200@8, 429@8, 200@108, 200@208, 200@308, 200@407, 200@508.
        let got = run("leaky-bucket:10/s,burst=5", &[0; 7]);
        let served: Vec<u64> = got.iter().filter(|r| r.0).map(|r| r.1).collect();
        assert_eq!(served, [0, 100, 200, 300, 400, 500]);
        assert_eq!(got.iter().filter(|r| !r.0).count(), 1);
        assert!(!got[6].0, "the seventh arrival is the one refused");
    }

    #[test]
    fn nginx_nodelay_serves_the_burst_at_once() {
        // … burst=5 nodelay: six 200s within 17 ms, one 429.
        let got = run("leaky-bucket:10/s,burst=5,nodelay", &[0; 7]);
        assert_eq!(got.iter().filter(|r| r.0 && r.1 == 0).count(), 6);
        assert!(!got[6].0);
        // The refused one could come back when 1000 milli-requests have leaked: 100 ms.
        assert_eq!(got[6].2, Some(100));
    }

    #[test]
    fn nginx_delay_2_serves_three_then_holds() {
        // … burst=5 delay=2: 200@1, 200@2, 200@2, 429@4, 200@101, 200@201, 200@301.
        let got = run("leaky-bucket:10/s,burst=5,delay=2", &[0; 7]);
        let served: Vec<u64> = got.iter().filter(|r| r.0).map(|r| r.1).collect();
        assert_eq!(served, [0, 0, 0, 100, 200, 300]);
        assert!(!got[6].0);
    }

    #[test]
    fn nginx_90_per_minute_without_burst() {
        // Sequential, 700 ms apart: 6 × 200. 600 ms apart: 200, 503, 200, 503, 200, 503 —
        // a refusal leaves the state alone, so the next request sees 1.2 s of leak.
        let spaced = |gap: u64| (0..6).map(|i| i * gap).collect::<Vec<_>>();
        assert_eq!(admitted("leaky-bucket:90/min", &spaced(700)), [true; 6]);
        assert_eq!(
            admitted("leaky-bucket:90/min", &spaced(600)),
            [true, false, true, false, true, false]
        );
        // The derived trap: 1 ms below 1/rate is refused (excess 1000 − 1500·666/1000 = 1).
        assert_eq!(
            admitted("leaky-bucket:90/min", &[0, 666, 1333]),
            [true, false, true]
        );
        // The wait nginx imposes on the refused one: 667 ms after the last admitted.
        assert_eq!(run("leaky-bucket:90/min", &[0, 600])[1].2, Some(67));
    }

    #[test]
    fn nginx_integer_rate_truncation() {
        // 1r/m is 1000/60 = 16 milli-requests/s: a request leaks after 62.5 s, not 60 s.
        assert_eq!(
            admitted("leaky-bucket:1/min", &[0, 60_000, 62_500]),
            [true, false, true]
        );
    }

    #[test]
    fn the_clock_going_back_is_clamped_like_nginx() {
        // ms < 0 counts as 0: a request "before" the last one adds a full 1000.
        let got = admitted("leaky-bucket:10/s,burst=1,nodelay", &[1000, 900, 900]);
        assert_eq!(got, [true, true, false]);
    }
}
