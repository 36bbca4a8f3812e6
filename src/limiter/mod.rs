//! Provider rate limiters as pure state machines over a clock.
//!
//! One model serves two clocks: `mock` feeds it the wall clock, `simulate` a virtual one. Every
//! model takes the time as an argument (nanoseconds since the Unix epoch, UTC) and never reads a
//! clock itself, so the same arrivals always give the same decisions. Each decision carries what
//! the model knows about its own state: when it would admit the next request (the Retry-After)
//! and the quota it can advertise (limit, remaining, reset) for the rate-limit headers
//! ([`headers`]).
//!
//! Integer arithmetic throughout (nanoseconds, and nginx's own milli-request units for the leaky
//! bucket), so a rate like 90/min (one every 666.67 ms) is exact rather than a float that
//! drifts. The models and their sources are described in `docs/limiters.md`.

mod concurrency;
mod daily;
mod fixed_window;
mod gcra;
pub mod headers;
mod leaky_bucket;
mod sliding_window;
mod spec;
mod token_bucket;

pub use spec::{parse_spec, Spec, SpecError, SPEC_FORMS};

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// A point in time: nanoseconds since 1970-01-01T00:00:00Z.
pub type Nanos = u64;
pub const NS_PER_MS: u64 = 1_000_000;
pub const NS_PER_S: u64 = 1_000_000_000;
pub const NS_PER_DAY: u64 = 86_400 * NS_PER_S;

/// What quota units a model counts (the IETF `qu` parameter).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuotaUnit {
    Requests,
    ConcurrentRequests,
}

/// The quota a model advertises after a decision: the numbers behind `RateLimit`,
/// `RateLimit-Policy` and `X-RateLimit-*`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quota {
    /// Policy name for the IETF fields (`"fixed-window"`, …).
    pub policy: &'static str,
    /// Requests per window (`q`, `X-RateLimit-Limit`).
    pub limit: u64,
    /// Window in whole seconds (`w`); `None` for a concurrency limit, which has none.
    pub window_s: Option<u64>,
    /// Requests that would be admitted right now, after this decision (`r`).
    pub remaining: u64,
    /// Time until more quota becomes available, ns (`t`, `X-RateLimit-Reset`); `None` when the
    /// model cannot know (a concurrency slot frees when a response ends).
    pub reset_ns: Option<u64>,
    /// A burst allowance beyond the window's count (buckets), advertised as `toomany-burst`.
    pub burst: Option<u64>,
    pub unit: QuotaUnit,
}

/// One decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub admitted: bool,
    /// How long an admitted request is held before it is served (nginx `limit_req` delays
    /// excess requests inside the burst instead of rejecting them), ns.
    pub delay_ns: u64,
    /// For a rejection: how long until this model would admit a request, if nothing else
    /// arrives meanwhile, ns. `None` when no time is known (a concurrency limit).
    pub retry_after_ns: Option<u64>,
    pub quota: Quota,
}

/// A limiter built from a [`Spec`].
#[derive(Debug, Clone)]
pub enum Limiter {
    FixedWindow(fixed_window::FixedWindow),
    SlidingWindow(sliding_window::SlidingWindow),
    TokenBucket(token_bucket::TokenBucket),
    Gcra(gcra::Gcra),
    LeakyBucket(leaky_bucket::LeakyBucket),
    Concurrency(concurrency::Concurrency),
    Daily(daily::Daily),
}

impl Limiter {
    pub fn new(spec: &Spec) -> Limiter {
        match *spec {
            Spec::FixedWindow {
                limit,
                window_ns,
                align_first,
            } => Limiter::FixedWindow(fixed_window::FixedWindow::new(
                limit,
                window_ns,
                align_first,
            )),
            Spec::SlidingWindow {
                limit,
                window_ns,
                count_rejected,
            } => Limiter::SlidingWindow(sliding_window::SlidingWindow::new(
                limit,
                window_ns,
                count_rejected,
            )),
            Spec::TokenBucket {
                count,
                period_ns,
                burst,
                fill_interval_ns,
            } => Limiter::TokenBucket(token_bucket::TokenBucket::new(
                count,
                period_ns,
                burst,
                fill_interval_ns,
            )),
            Spec::Gcra {
                count,
                period_ns,
                burst,
            } => Limiter::Gcra(gcra::Gcra::new(count, period_ns, burst)),
            Spec::LeakyBucket {
                rate,
                per_minute,
                burst,
                delay,
            } => Limiter::LeakyBucket(leaky_bucket::LeakyBucket::new(
                rate, per_minute, burst, delay,
            )),
            Spec::Concurrency { max } => Limiter::Concurrency(concurrency::Concurrency::new(max)),
            Spec::Daily { limit } => Limiter::Daily(daily::Daily::new(limit)),
        }
    }

    /// Decide on a request arriving at `now`. An admitted request of a concurrency model holds a
    /// slot until [`Limiter::release`].
    pub fn admit(&mut self, now: Nanos) -> Decision {
        self.admit_cost(now, 1)
    }

    /// Decide on a request that costs `cost` units (tokens, points): the window and bucket
    /// models count it `cost` times at once; a cost larger than the whole allowance is refused
    /// with no Retry-After (it would never fit). The leaky bucket and concurrency models count
    /// requests only ([`Limiter::counts_cost`]): they take one unit whatever the cost.
    pub fn admit_cost(&mut self, now: Nanos, cost: u64) -> Decision {
        match self {
            Limiter::FixedWindow(m) => m.admit(now, cost),
            Limiter::SlidingWindow(m) => m.admit(now, cost),
            Limiter::TokenBucket(m) => m.admit(now, cost),
            Limiter::Gcra(m) => m.admit(now, cost),
            Limiter::LeakyBucket(m) => m.admit(now),
            Limiter::Concurrency(m) => m.admit(now),
            Limiter::Daily(m) => m.admit(now, cost),
        }
    }

    /// Does this model count a request's cost (tokens, points), not just the request?
    pub fn counts_cost(spec: &Spec) -> bool {
        !matches!(spec, Spec::LeakyBucket { .. } | Spec::Concurrency { .. })
    }

    /// An admitted request's response is complete (frees a concurrency slot; a no-op for the
    /// rate models).
    pub fn release(&mut self, _now: Nanos) {
        if let Limiter::Concurrency(m) = self {
            m.release();
        }
    }
}

/// The wall clock as [`Nanos`]: the epoch time at start plus a monotonic elapsed time, so a
/// system clock step during a run cannot move the limiter backwards.
#[derive(Debug, Clone)]
pub struct WallClock {
    start: Instant,
    start_epoch: Nanos,
}

impl WallClock {
    pub fn new() -> WallClock {
        let start_epoch = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or(Duration::ZERO)
            .as_nanos()
            .min(u64::MAX as u128) as u64;
        WallClock {
            start: Instant::now(),
            start_epoch,
        }
    }

    pub fn now(&self) -> Nanos {
        let e = self.start.elapsed().as_nanos().min(u64::MAX as u128) as u64;
        self.start_epoch.saturating_add(e)
    }
}

impl Default for WallClock {
    fn default() -> Self {
        WallClock::new()
    }
}

/// `a / b` rounded up (b > 0).
pub(crate) fn div_ceil_u128(a: u128, b: u128) -> u128 {
    a.div_ceil(b)
}

/// Clamp a u128 nanosecond count into [`Nanos`].
pub(crate) fn ns(x: u128) -> u64 {
    x.min(u64::MAX as u128) as u64
}

#[cfg(test)]
pub(crate) mod testkit {
    use super::*;

    /// A fixed epoch aligned to a UTC day, so windows start where a test expects.
    pub const T0: Nanos = 1_767_225_600 * NS_PER_S; // 2026-01-01T00:00:00Z

    pub fn ms(n: u64) -> Nanos {
        n * NS_PER_MS
    }

    /// Run arrivals (ms after T0) through a spec; (admitted, delay ms, retry-after ms).
    pub fn run(spec: &str, arrivals_ms: &[u64]) -> Vec<(bool, u64, Option<u64>)> {
        let mut l = Limiter::new(&parse_spec(spec).unwrap());
        arrivals_ms
            .iter()
            .map(|&t| {
                let d = l.admit(T0 + ms(t));
                (
                    d.admitted,
                    d.delay_ns / NS_PER_MS,
                    d.retry_after_ns.map(|r| r.div_ceil(NS_PER_MS)),
                )
            })
            .collect()
    }

    pub fn admitted(spec: &str, arrivals_ms: &[u64]) -> Vec<bool> {
        run(spec, arrivals_ms).into_iter().map(|r| r.0).collect()
    }
}

#[cfg(test)]
mod cost_tests {
    use super::testkit::*;
    use super::*;

    fn decide(l: &mut Limiter, at_ms: u64, cost: u64) -> (bool, Option<u64>, u64) {
        let d = l.admit_cost(T0 + ms(at_ms), cost);
        (
            d.admitted,
            d.retry_after_ns.map(|r| r.div_ceil(NS_PER_MS)),
            d.quota.remaining,
        )
    }

    #[test]
    fn a_cost_counts_as_that_many_requests_at_once() {
        // Window models: 100 per minute, 60 + 50 does not fit until the window ends.
        for spec in ["fixed-window:100/min", "daily:100"] {
            let mut l = Limiter::new(&parse_spec(spec).unwrap());
            assert_eq!(decide(&mut l, 0, 60), (true, None, 40), "{spec}");
            let (ok, wait, left) = decide(&mut l, 1000, 50);
            assert!(!ok && wait.is_some() && left == 40, "{spec}");
            assert_eq!(decide(&mut l, 2000, 40), (true, None, 0), "{spec}");
        }
        // Buckets: 10/s with room for 10; 5 more need 500 ms of refill.
        for spec in ["token-bucket:10/s,burst=10", "gcra:10/s,burst=10"] {
            let mut l = Limiter::new(&parse_spec(spec).unwrap());
            assert!(decide(&mut l, 0, 10).0, "{spec}");
            assert_eq!(decide(&mut l, 0, 5).1, Some(500), "{spec}");
            assert!(!decide(&mut l, 499, 5).0, "{spec}");
            assert!(decide(&mut l, 500, 5).0, "{spec}");
        }
        // Discrete refill: 2 tokens every 500 ms; 5 tokens from empty need three fills.
        let mut l = Limiter::new(&parse_spec("token-bucket:4/s,burst=8,interval=500ms").unwrap());
        assert!(decide(&mut l, 0, 8).0);
        assert_eq!(decide(&mut l, 100, 5).1, Some(400 + 1000));
        // Sliding window: 10/s, 6 used; 5 more wait until enough of the old window slides away.
        let mut l = Limiter::new(&parse_spec("sliding-window:10/s").unwrap());
        assert!(decide(&mut l, 0, 6).0);
        let (ok, wait, _) = decide(&mut l, 100, 5);
        assert!(!ok);
        // Next window at 1000 ms: 6·(1 − e) + 5 ≤ 10 from e = 1/6 s → 1000 + 167 − 100.
        assert_eq!(wait, Some(1067));
        assert!(!decide(&mut l, 1100, 5).0);
        assert!(decide(&mut l, 1167, 5).0);
    }

    #[test]
    fn a_cost_beyond_the_whole_allowance_never_fits() {
        for spec in [
            "fixed-window:100/min",
            "daily:100",
            "token-bucket:10/s,burst=10",
            "token-bucket:4/s,burst=8,interval=500ms",
            "gcra:10/s,burst=10",
            "sliding-window:100/min",
        ] {
            let mut l = Limiter::new(&parse_spec(spec).unwrap());
            assert!(!decide(&mut l, 0, 101).0, "{spec}");
            assert_eq!(decide(&mut l, 0, 101).1, None, "{spec}");
            assert!(decide(&mut l, 0, 1).0, "{spec}: nothing was taken");
        }
    }
}
