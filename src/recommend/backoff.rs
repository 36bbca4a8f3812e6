//! The retry policy: capped exponential windows with full jitter, Retry-After honoured as a
//! minimum, one attempt budget across every layer, and a total deadline.

use super::target::ceil;
use super::ASSUMED_LATENCY_MS;
use crate::units::fmt_duration_ms;
use serde::{Deserialize, Serialize};

/// Retry and backoff knobs (typed, validated by the command that builds them).
#[derive(Debug, Clone, PartialEq)]
pub struct BackoffOptions {
    /// First retry window, ms.
    pub base_ms: u64,
    /// Largest single backoff window, ms.
    pub cap_ms: u64,
    /// Attempts in all, the first included, across every layer.
    pub max_attempts: u32,
    /// Total time for one logical request, every attempt and sleep included, ms.
    pub deadline_ms: u64,
    /// The user chose `deadline_ms` (`--retry-deadline`): it is kept even when the server asks
    /// for longer waits (those are told to stop); the default is raised to fit them.
    pub deadline_given: bool,
    /// Random spread added on top of a server's Retry-After, ms.
    pub retry_after_spread_ms: u64,
    /// Per-attempt timeout, ms; derived from the latency when not given.
    pub attempt_timeout_ms: Option<u64>,
}

impl Default for BackoffOptions {
    fn default() -> Self {
        BackoffOptions {
            base_ms: 1000,
            cap_ms: 8000,
            max_attempts: 5,
            deadline_ms: 30_000,
            deadline_given: false,
            retry_after_spread_ms: 1000,
            attempt_timeout_ms: None,
        }
    }
}

impl BackoffOptions {
    /// Check the knobs make sense together; the message names the flag.
    pub fn validate(&self) -> Result<(), KnobError> {
        if self.max_attempts == 0 {
            return Err(KnobError::NoAttempts);
        }
        if self.max_attempts > 100 {
            return Err(KnobError::TooManyAttempts(self.max_attempts));
        }
        if self.base_ms == 0 {
            return Err(KnobError::NoBase);
        }
        if self.cap_ms < self.base_ms {
            return Err(KnobError::CapBelowBase {
                cap_ms: self.cap_ms,
                base_ms: self.base_ms,
            });
        }
        if self.deadline_ms == 0 {
            return Err(KnobError::NoDeadline);
        }
        if let Some(t) = self.attempt_timeout_ms {
            if t == 0 || t > self.deadline_ms {
                return Err(KnobError::AttemptTimeout {
                    timeout_ms: t,
                    deadline_ms: self.deadline_ms,
                });
            }
        }
        Ok(())
    }
}

/// Recommendation knobs that do not make sense (alone or together); the message names the
/// flag.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum KnobError {
    #[error("--max-attempts must be at least 1 (1 = no retries)")]
    NoAttempts,
    #[error("--max-attempts {0} is not a sane retry budget (at most 100)")]
    TooManyAttempts(u32),
    #[error("--backoff-base must be more than 0")]
    NoBase,
    #[error(
        "--backoff-cap ({}) must be at least --backoff-base ({})",
        fmt_duration_ms(*.cap_ms as f64),
        fmt_duration_ms(*.base_ms as f64)
    )]
    CapBelowBase { cap_ms: u64, base_ms: u64 },
    #[error("--retry-deadline must be more than 0")]
    NoDeadline,
    #[error(
        "--attempt-timeout ({}) must be more than 0 and at most --retry-deadline ({})",
        fmt_duration_ms(*.timeout_ms as f64),
        fmt_duration_ms(*.deadline_ms as f64)
    )]
    AttemptTimeout { timeout_ms: u64, deadline_ms: u64 },
    #[error("--headroom {0}: must be more than 0 and at most 1 (0.75 = use three quarters of the allowance)")]
    Headroom(f64),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Jitter {
    /// Sleep a uniformly random time in [0, window] (AWS "Full Jitter").
    Full,
}

/// The retry policy, the same for every layer it is written out for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Backoff {
    pub base_ms: u64,
    pub cap_ms: u64,
    /// Attempts in all, first included (retries = max_attempts − 1).
    pub max_attempts: u32,
    pub jitter: Jitter,
    /// Total time for one logical request, all attempts and sleeps, ms.
    pub deadline_ms: u64,
    /// Wait at least the server's Retry-After (never shortened); give up instead when it does not
    /// fit in what is left of the deadline.
    pub honor_retry_after: bool,
    /// Random spread added on top of Retry-After, so workers do not resume in step, ms.
    pub retry_after_spread_ms: u64,
    /// Per-attempt timeout, ms.
    pub attempt_timeout_ms: u64,
    /// The capped exponential window of each retry, ms (retry 1 first).
    pub windows_ms: Vec<u64>,
    /// Statuses worth retrying.
    pub retry_on_status: Vec<u16>,
    /// Methods safe to repeat; others only with a stable idempotency key.
    pub retry_methods: Vec<String>,
}

pub const RETRY_ON_STATUS: [u16; 2] = [429, 503];
pub const IDEMPOTENT_METHODS: [&str; 5] = ["GET", "HEAD", "OPTIONS", "PUT", "DELETE"];

impl Backoff {
    pub fn retries(&self) -> u32 {
        self.max_attempts.saturating_sub(1)
    }

    /// Sum of the retry windows: the longest the fallback backoff can sleep in all.
    pub fn worst_case_sleep_ms(&self) -> u64 {
        self.windows_ms.iter().sum()
    }
}

/// Random spread per operation that one reset releases, ms. `synchronized_retries` calls ≥ 5
/// distinct operations within 100 ms a wave; N operations spread uniformly over N × 200 ms put
/// 0.5 on average in any 100 ms, where five at once is rare (Poisson(0.5) ≥ 5: under 0.02 %
/// per window), so following the advice does not trip the detector however many there are.
pub const SPREAD_PER_CALLER_MS: u64 = 200;

/// The spread on top of Retry-After: at least the configured one, and wide enough for the
/// `callers` operations told to come back at the same moment.
pub fn retry_after_spread_ms(configured_ms: u64, callers: usize) -> u64 {
    configured_ms.max(SPREAD_PER_CALLER_MS.saturating_mul(callers as u64))
}

/// Capped exponential windows: retry i (from 1) may sleep up to min(cap, base · 2^(i−1)).
pub fn windows_ms(base_ms: u64, cap_ms: u64, retries: u32) -> Vec<u64> {
    (0..retries)
        .map(|i| {
            let w = (base_ms as u128) << i.min(64);
            w.min(cap_ms as u128) as u64
        })
        .collect()
}

/// The retry policy from its knobs; the attempt timeout comes from the latency when not given.
pub fn backoff(o: &BackoffOptions, latency_p95_ms: f64) -> Backoff {
    let attempt_timeout_ms = o
        .attempt_timeout_ms
        .unwrap_or_else(|| default_attempt_timeout_ms(latency_p95_ms, o.deadline_ms));
    Backoff {
        base_ms: o.base_ms,
        cap_ms: o.cap_ms,
        max_attempts: o.max_attempts,
        jitter: Jitter::Full,
        deadline_ms: o.deadline_ms,
        honor_retry_after: true,
        retry_after_spread_ms: o.retry_after_spread_ms,
        attempt_timeout_ms,
        windows_ms: windows_ms(o.base_ms, o.cap_ms, o.max_attempts.saturating_sub(1)),
        retry_on_status: RETRY_ON_STATUS.to_vec(),
        retry_methods: IDEMPOTENT_METHODS.iter().map(|m| m.to_string()).collect(),
    }
}

/// Three times the slow (p95) response time, rounded up to whole seconds, at least 1 s and at
/// most the deadline: long enough not to cut normal slow responses, short enough to retry a
/// stuck one.
pub fn default_attempt_timeout_ms(p95_ms: f64, deadline_ms: u64) -> u64 {
    let p = if p95_ms.is_finite() && p95_ms > 0.0 {
        p95_ms
    } else {
        ASSUMED_LATENCY_MS
    };
    let t = (ceil(3.0 * p / 1000.0).max(1.0) * 1000.0) as u64;
    t.min(deadline_ms)
}

pub(crate) fn backoff_warnings(b: &Backoff, out: &mut Vec<String>) {
    if b.worst_case_sleep_ms() >= b.deadline_ms {
        out.push(format!(
            "the backoff windows add up to {}, not less than the {} deadline: the last retries will be cut short by the deadline",
            fmt_duration_ms(b.worst_case_sleep_ms() as f64),
            fmt_duration_ms(b.deadline_ms as f64)
        ));
    }
    if b.max_attempts > 5 {
        out.push(format!(
            "{} attempts per request: gRPC silently caps retries at 5 attempts, and every extra attempt adds load on an already limited server",
            b.max_attempts
        ));
    }
}
