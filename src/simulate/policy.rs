//! Client policies `simulate` can run: the built-ins and the neutral policy (`toomany.toml` /
//! `toomany.json`) the recommender writes. A policy says when a client may start an attempt
//! (spacing, in-flight cap) and what it does after a refusal (attempt cap, backoff, Retry-After,
//! deadline, a retry budget).

use super::rng::Rng;
use crate::limiter::NS_PER_MS;
use crate::recommend::config::Policy as NeutralPolicy;
use crate::recommend::BackoffOptions;
use std::path::Path;

/// How a client waits before retry `n` (1 = the first retry) when no Retry-After decides.
#[derive(Debug, Clone, PartialEq)]
pub enum Backoff {
    /// Sleep the whole window `min(cap, base · 2^(n−1))`: exponential backoff without jitter.
    Exact { base_ns: u64, cap_ns: u64 },
    /// A uniform sleep in [0, window] (AWS "Full Jitter", the plan's default).
    Full { base_ns: u64, cap_ns: u64 },
    /// gRFC A6 (grpc/proposal #452, 2024): `min(initial · mult^(n−1), max) · random(0.8, 1.2)`.
    Grpc {
        initial_ns: u64,
        max_ns: u64,
        multiplier: u64,
    },
}

impl Backoff {
    /// The capped exponential window of retry `n ≥ 1`.
    fn window(base: u64, cap: u64, multiplier: u64, n: u32) -> u64 {
        let mut w = base as u128;
        for _ in 1..n {
            w = w.saturating_mul(multiplier as u128);
            if w >= cap as u128 {
                break;
            }
        }
        w.min(cap as u128) as u64
    }

    pub fn wait(&self, n: u32, rng: &mut Rng) -> u64 {
        match *self {
            Backoff::Exact { base_ns, cap_ns } => Self::window(base_ns, cap_ns, 2, n),
            Backoff::Full { base_ns, cap_ns } => rng.up_to(Self::window(base_ns, cap_ns, 2, n)),
            Backoff::Grpc {
                initial_ns,
                max_ns,
                multiplier,
            } => {
                let w = Self::window(initial_ns, max_ns, multiplier, n) as f64;
                (w * (0.8 + 0.4 * rng.f64())).round() as u64
            }
        }
    }
}

/// What a client does with a server's Retry-After.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RetryAfter {
    /// Not read (gRPC reads `grpc-retry-pushback-ms`, not HTTP Retry-After).
    Ignored,
    /// Wait at least that long plus a random 0..spread; give up when it exceeds what is left
    /// of the deadline (the plan).
    MinimumPlusSpread { spread_ns: u64 },
    /// Wait the longer of the backoff window and the Retry-After (no randomness).
    MaxWithBackoff,
}

/// gRFC A6 `retryThrottling`: per client, `token_count` starts at max; a failure takes 1, a
/// success adds `ratio`; no retries while it is at or below max/2. Kept in thousandths.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Throttling {
    pub max_tokens_milli: u64,
    pub ratio_milli: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ClientPolicy {
    pub name: String,
    /// At most one attempt start per this interval, per client (first attempts and retries).
    pub min_interval_ns: Option<u64>,
    /// At most this many attempts in flight per client.
    pub max_in_flight: Option<u32>,
    pub max_attempts: u32,
    pub backoff: Option<Backoff>,
    pub retry_after: RetryAfter,
    /// No attempt starts later than this after the logical request's first attempt.
    pub deadline_ns: Option<u64>,
    pub throttling: Option<Throttling>,
}

/// Built-in policy names.
pub const BUILTINS: &str = "naive, no-jitter, full-jitter, grpc";

/// The retry knobs the built-ins take from "the plan": the first policy file given, else the
/// recommender's defaults (5 attempts, 1 s base, 8 s cap, 30 s deadline, 1 s spread).
#[derive(Debug, Clone, PartialEq)]
pub struct PlanRetry {
    pub max_attempts: u32,
    pub base_ns: u64,
    pub cap_ns: u64,
    pub deadline_ns: u64,
    pub spread_ns: u64,
}

impl Default for PlanRetry {
    fn default() -> Self {
        let d = BackoffOptions::default();
        PlanRetry {
            max_attempts: d.max_attempts,
            base_ns: d.base_ms * NS_PER_MS,
            cap_ns: d.cap_ms * NS_PER_MS,
            deadline_ns: d.deadline_ms * NS_PER_MS,
            spread_ns: d.retry_after_spread_ms * NS_PER_MS,
        }
    }
}

impl PlanRetry {
    pub fn of(p: &NeutralPolicy) -> PlanRetry {
        PlanRetry {
            max_attempts: p.retry.max_attempts.max(1),
            base_ns: p.retry.base_ms * NS_PER_MS,
            cap_ns: p.retry.cap_ms * NS_PER_MS,
            deadline_ns: p.retry.deadline_ms * NS_PER_MS,
            spread_ns: p.retry.retry_after_spread_ms * NS_PER_MS,
        }
    }
}

/// gRPC clients treat a larger `maxAttempts` as 5 (A6 "Limits on Retries and Hedges").
use crate::recommend::config::GRPC_MAX_ATTEMPTS;

pub fn builtin(name: &str, plan: &PlanRetry) -> Option<ClientPolicy> {
    let full = ClientPolicy {
        name: name.to_string(),
        min_interval_ns: None,
        max_in_flight: None,
        max_attempts: plan.max_attempts,
        backoff: Some(Backoff::Full {
            base_ns: plan.base_ns,
            cap_ns: plan.cap_ns,
        }),
        retry_after: RetryAfter::MinimumPlusSpread {
            spread_ns: plan.spread_ns,
        },
        deadline_ns: Some(plan.deadline_ns),
        throttling: None,
    };
    Some(match name {
        // Every request at its arrival, no spacing, no retries.
        "naive" => ClientPolicy {
            max_attempts: 1,
            backoff: None,
            retry_after: RetryAfter::Ignored,
            deadline_ns: None,
            ..full
        },
        // The plan's attempt cap and windows, sleeping the whole window; Retry-After as minimum.
        "no-jitter" => ClientPolicy {
            backoff: Some(Backoff::Exact {
                base_ns: plan.base_ns,
                cap_ns: plan.cap_ns,
            }),
            retry_after: RetryAfter::MaxWithBackoff,
            ..full
        },
        // The plan's retries with full jitter, without its spacing or in-flight cap.
        "full-jitter" => full,
        // A gRPC client given the emitted service config (grpc-service-config.json).
        "grpc" => ClientPolicy {
            max_attempts: plan.max_attempts.min(GRPC_MAX_ATTEMPTS),
            backoff: Some(Backoff::Grpc {
                initial_ns: plan.base_ns,
                max_ns: plan.cap_ns,
                multiplier: 2,
            }),
            retry_after: RetryAfter::Ignored,
            throttling: Some(Throttling {
                max_tokens_milli: crate::recommend::config::GRPC_THROTTLE_MAX_TOKENS as u64 * 1000,
                ratio_milli: (crate::recommend::config::GRPC_THROTTLE_TOKEN_RATIO * 1000.0).round()
                    as u64,
            }),
            ..full
        },
        _ => return None,
    })
}

/// The neutral policy as the emitted clients run it: spaced starts, an in-flight cap, full
/// jitter, Retry-After as a minimum plus spread, the attempt cap and the deadline.
pub fn from_neutral(name: &str, p: &NeutralPolicy) -> ClientPolicy {
    let plan = PlanRetry::of(p);
    ClientPolicy {
        name: name.to_string(),
        min_interval_ns: Some(p.rate.min_interval_ms.max(1) * NS_PER_MS),
        max_in_flight: Some(p.concurrency.max_in_flight.max(1)),
        max_attempts: plan.max_attempts,
        backoff: Some(Backoff::Full {
            base_ns: plan.base_ns,
            cap_ns: plan.cap_ns,
        }),
        retry_after: if p.retry.honor_retry_after {
            RetryAfter::MinimumPlusSpread {
                spread_ns: plan.spread_ns,
            }
        } else {
            RetryAfter::Ignored
        },
        deadline_ns: Some(plan.deadline_ns),
        throttling: None,
    }
}

/// Largest policy file read.
const MAX_POLICY_BYTES: u64 = 1 << 20;

/// Why a policy file cannot be used; every message starts with the file's path.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {why}")]
pub struct PolicyFileError {
    pub path: String,
    pub why: PolicyProblem,
}

/// What is wrong with a policy file.
#[derive(Debug, thiserror::Error)]
pub enum PolicyProblem {
    #[error("{0}")]
    Read(std::io::Error),
    #[error("larger than 1 MiB; not a toomany policy file")]
    TooLarge,
    /// Neither toomany's JSON nor its TOML: the parser's message (with the field's path).
    #[error("not a toomany policy (write one with `toomany plan … --emit-config DIR`): {0}")]
    NotAPolicy(String),
    #[error("policy schema_version {found} is not one this toomany reads ({reads})")]
    SchemaVersion { found: u32, reads: u32 },
}

/// Read `toomany.toml` or `toomany.json` (by extension; content sniffed otherwise).
pub fn read_policy_file(path: &Path) -> Result<NeutralPolicy, PolicyFileError> {
    use std::io::Read;
    let fail = |why: PolicyProblem| PolicyFileError {
        path: path.display().to_string(),
        why,
    };
    let f = std::fs::File::open(path).map_err(|e| fail(PolicyProblem::Read(e)))?;
    let mut text = String::new();
    f.take(MAX_POLICY_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| fail(PolicyProblem::Read(e)))?;
    if text.len() as u64 > MAX_POLICY_BYTES {
        return Err(fail(PolicyProblem::TooLarge));
    }
    let json = path
        .extension()
        .map(|e| e.eq_ignore_ascii_case("json"))
        .unwrap_or_else(|| text.trim_start().starts_with('{'));
    let p: NeutralPolicy = if json {
        let de = &mut serde_json::Deserializer::from_str(&text);
        serde_path_to_error::deserialize(de)
            .map_err(|e| fail(PolicyProblem::NotAPolicy(json_error(&e))))?
    } else {
        toml::from_str(&text).map_err(|e| fail(PolicyProblem::NotAPolicy(toml_error(&text, &e))))?
    };
    if p.schema_version != crate::recommend::config::POLICY_SCHEMA_VERSION {
        return Err(fail(PolicyProblem::SchemaVersion {
            found: p.schema_version,
            reads: crate::recommend::config::POLICY_SCHEMA_VERSION,
        }));
    }
    Ok(p)
}

/// A JSON policy's error, located (line, column, field path), never quoting the file: parser
/// messages quote values (`invalid type: string "…"`), and the file may not be a policy at all.
fn json_error(e: &serde_path_to_error::Error<serde_json::Error>) -> String {
    let inner = e.inner();
    let path = e.path().to_string();
    let at = if path == "." || path.is_empty() {
        String::new()
    } else {
        format!(" (field {})", crate::redact::scrub_message(&path))
    };
    format!(
        "{} at line {}, column {}{at}",
        crate::redact::scrub_message(&strip_location(&inner.to_string())),
        inner.line(),
        inner.column()
    )
}

/// A TOML policy's error: the message and its line and column, without the source line the
/// TOML parser quotes under it.
fn toml_error(text: &str, e: &toml::de::Error) -> String {
    let msg = crate::redact::scrub_message(e.message().trim_end());
    match e.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            format!("{msg} at line {line}, column {column}")
        }
        None => msg,
    }
}

/// serde_json's message without its own " at line L column C" (said once, by the caller).
fn strip_location(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grpc_backoff_is_the_a6_formula_not_full_jitter() {
        let b = Backoff::Grpc {
            initial_ns: 100 * NS_PER_MS,
            max_ns: 1000 * NS_PER_MS,
            multiplier: 2,
        };
        let mut rng = Rng::new(3);
        for n in 1..=6u32 {
            let window = (100u64 << (n - 1)).min(1000) * NS_PER_MS;
            let waits: Vec<u64> = (0..2000).map(|_| b.wait(n, &mut rng)).collect();
            let lo = *waits.iter().min().unwrap();
            let hi = *waits.iter().max().unwrap();
            // Within ±20 % of the capped exponential (so it may exceed maxBackoff by 20 %),
            // and never near zero as full jitter would be.
            assert!(
                lo >= window * 8 / 10 && hi <= window * 12 / 10,
                "n={n} {lo}..{hi}"
            );
            assert!(
                lo < window * 82 / 100 && hi > window * 118 / 100,
                "n={n} spread"
            );
        }
    }

    #[test]
    fn full_jitter_covers_the_window_and_exact_sleeps_all_of_it() {
        let mut rng = Rng::new(5);
        let full = Backoff::Full {
            base_ns: 1000,
            cap_ns: 8000,
        };
        let w: Vec<u64> = (0..5000).map(|_| full.wait(3, &mut rng)).collect();
        assert!(w.iter().all(|x| *x <= 4000));
        assert!(*w.iter().min().unwrap() < 100 && *w.iter().max().unwrap() > 3900);
        let exact = Backoff::Exact {
            base_ns: 1000,
            cap_ns: 8000,
        };
        assert_eq!(
            (1..=6).map(|n| exact.wait(n, &mut rng)).collect::<Vec<_>>(),
            [1000, 2000, 4000, 8000, 8000, 8000]
        );
    }

    #[test]
    fn builtins_take_the_plan_knobs() {
        let plan = PlanRetry {
            max_attempts: 7,
            ..PlanRetry::default()
        };
        assert_eq!(builtin("naive", &plan).unwrap().max_attempts, 1);
        assert_eq!(builtin("no-jitter", &plan).unwrap().max_attempts, 7);
        let g = builtin("grpc", &plan).unwrap();
        assert_eq!(g.max_attempts, 5, "A6 clamps maxAttempts to 5");
        assert_eq!(g.retry_after, RetryAfter::Ignored);
        assert_eq!(
            g.throttling,
            Some(Throttling {
                max_tokens_milli: 10_000,
                ratio_milli: 100
            })
        );
        assert!(builtin("nope", &plan).is_none());
    }
}
