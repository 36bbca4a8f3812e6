//! Config emitters: the recommendation written out for the tools users already run, one file
//! per target. Each file starts with a comment header that explains its numbers and lists what
//! that tool cannot express; the same list is returned so the command can print it.
//!
//! Emitters are pure: [`Policy`] in, file name and text out. Writing is the command's job.

mod dotnet;
mod envoy;
mod go;
mod grpc;
mod neutral;
mod node;
mod python;
mod resilience4j;
mod tenacity;

use super::{Action, Backoff, LatencySource, LimitInfo, Recommendation};
use crate::units::fmt_num;
use serde::{Deserialize, Serialize};

pub use grpc::{
    MAX_ATTEMPTS_CAP as GRPC_MAX_ATTEMPTS, THROTTLE_MAX_TOKENS as GRPC_THROTTLE_MAX_TOKENS,
    THROTTLE_TOKEN_RATIO as GRPC_THROTTLE_TOKEN_RATIO,
};
pub use neutral::POLICY_SCHEMA_VERSION;

/// The neutral policy every emitter reads, and what `toomany.toml`/`toomany.json` hold (readable
/// back by later features such as simulate/verify).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Policy {
    pub schema_version: u32,
    pub generated_by: String,
    /// What produced it (`analyze` or `plan`).
    pub from: String,
    pub action: Action,
    pub headroom: f64,
    pub limit: LimitInfo,
    pub rate: RatePolicy,
    pub concurrency: ConcurrencyPolicy,
    pub retry: Backoff,
    /// The arithmetic, in sentences.
    pub rationale: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RatePolicy {
    pub rate_per_second: f64,
    pub rate_per_minute: f64,
    pub min_interval_ms: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConcurrencyPolicy {
    pub max_in_flight: u32,
    pub latency_ms: f64,
    pub latency_source: LatencySource,
}

impl Policy {
    /// The policy of an analysed incident; `Err` says why there is none (no rate target).
    pub fn from_recommendation(r: &Recommendation) -> Result<Policy, NoRateTarget> {
        let (Some(limit), Some(rps), Some(rpm), Some(interval), Some(c)) = (
            &r.limit,
            r.rate_per_second,
            r.rate_per_minute,
            r.min_interval_ms,
            r.concurrency,
        ) else {
            return Err(NoRateTarget);
        };
        Ok(Policy {
            schema_version: POLICY_SCHEMA_VERSION,
            generated_by: format!("toomany {}", env!("CARGO_PKG_VERSION")),
            from: "analyze".into(),
            action: r.action,
            headroom: r.headroom,
            limit: limit.clone(),
            rate: RatePolicy {
                rate_per_second: rps,
                rate_per_minute: rpm,
                min_interval_ms: interval,
            },
            concurrency: ConcurrencyPolicy {
                max_in_flight: c,
                latency_ms: r.latency.mean_ms,
                latency_source: r.latency.source,
            },
            retry: r.backoff.clone(),
            rationale: r.rationale.clone(),
        })
    }

    /// The policy of a plan; none when the plan has no pace (a job that fits in one window of a
    /// daily allowance: the per-minute limit paces it).
    pub fn from_plan(p: &super::plan::Plan) -> Result<Policy, NoPace> {
        let (Some(rps), Some(rpm), Some(interval), Some(c)) = (
            p.rate_per_second,
            p.rate_per_minute,
            p.min_interval_ms,
            p.concurrency,
        ) else {
            return Err(NoPace {
                requests: p.requests,
                allowance: crate::units::Rate {
                    per_second: p.limit.rate_per_second,
                    window_s: p.limit.window_s,
                },
            });
        };
        Ok(Policy {
            schema_version: POLICY_SCHEMA_VERSION,
            generated_by: format!("toomany {}", env!("CARGO_PKG_VERSION")),
            from: "plan".into(),
            action: Action::SlowDown,
            headroom: p.headroom,
            limit: p.limit.clone(),
            rate: RatePolicy {
                rate_per_second: rps,
                rate_per_minute: rpm,
                min_interval_ms: interval,
            },
            concurrency: ConcurrencyPolicy {
                max_in_flight: c,
                latency_ms: p.latency.mean_ms,
                latency_source: p.latency.source,
            },
            retry: p.backoff.clone(),
            rationale: p.rationale.clone(),
        })
    }
}

/// A tool a config file can be written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Target {
    Toomany,
    Envoy,
    Grpc,
    Urllib3,
    Tenacity,
    Resilience4j,
    Dotnet,
    Bottleneck,
    Retryablehttp,
}

pub const ALL_TARGETS: [Target; 9] = [
    Target::Toomany,
    Target::Envoy,
    Target::Grpc,
    Target::Urllib3,
    Target::Tenacity,
    Target::Resilience4j,
    Target::Dotnet,
    Target::Bottleneck,
    Target::Retryablehttp,
];

pub const TARGET_NAMES: &str =
    "all, toomany, envoy, grpc, urllib3 (python), tenacity, resilience4j (java), dotnet, bottleneck (node), retryablehttp (go)";

impl Target {
    pub fn name(&self) -> &'static str {
        match self {
            Target::Toomany => "toomany",
            Target::Envoy => "envoy",
            Target::Grpc => "grpc",
            Target::Urllib3 => "urllib3",
            Target::Tenacity => "tenacity",
            Target::Resilience4j => "resilience4j",
            Target::Dotnet => "dotnet",
            Target::Bottleneck => "bottleneck",
            Target::Retryablehttp => "retryablehttp",
        }
    }

    fn parse(s: &str) -> Option<Target> {
        Some(match s.trim().to_ascii_lowercase().as_str() {
            "toomany" | "neutral" => Target::Toomany,
            "envoy" => Target::Envoy,
            "grpc" => Target::Grpc,
            "urllib3" | "python" | "requests" => Target::Urllib3,
            "tenacity" => Target::Tenacity,
            "resilience4j" | "java" | "spring" => Target::Resilience4j,
            "dotnet" | ".net" | "polly" => Target::Dotnet,
            "bottleneck" | "node" | "p-retry" => Target::Bottleneck,
            "retryablehttp" | "go" | "go-retryablehttp" => Target::Retryablehttp,
            _ => return None,
        })
    }
}

/// A `--target` list that names no known target.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    #[error("--target: unknown target {name:?}; known: {}", TARGET_NAMES)]
    Unknown { name: String },
    #[error("--target: no target named; known: {}", TARGET_NAMES)]
    NoneNamed,
}

/// Why an analysed incident has no policy to write out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("no limit is known, so there is no rate target to write out: pass --limit (e.g. --limit 120/min)")]
pub struct NoRateTarget;

/// Why a plan has no policy to write out: its requests fit in one window of the allowance.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[error("the {requests} requests fit in one window of the {allowance} allowance, which sets no pace to write out; give the per-second or per-minute limit with --limit (e.g. --limit 120/min)")]
pub struct NoPace {
    pub requests: u64,
    pub allowance: crate::units::Rate,
}

/// Parse `--target envoy,grpc` (or `all`); unknown names are an error listing the known ones.
pub fn parse_targets(list: &str) -> Result<Vec<Target>, TargetError> {
    let mut out = Vec::new();
    for part in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        if part.eq_ignore_ascii_case("all") {
            out.extend(ALL_TARGETS);
            continue;
        }
        match Target::parse(part) {
            Some(t) => out.push(t),
            None => {
                return Err(TargetError::Unknown {
                    name: part.to_string(),
                })
            }
        }
    }
    if out.is_empty() {
        return Err(TargetError::NoneNamed);
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// One file to write.
#[derive(Debug, Clone, PartialEq)]
pub struct Emitted {
    pub target: Target,
    pub file_name: String,
    pub contents: String,
    /// What this tool cannot express of the policy (also in the file's header).
    pub cannot_express: Vec<String>,
}

/// Write the policy out for each target, in the order given.
pub fn emit(policy: &Policy, targets: &[Target]) -> Vec<Emitted> {
    let mut out = Vec::new();
    for t in targets {
        match t {
            Target::Toomany => out.extend(neutral::emit(policy)),
            Target::Envoy => out.push(envoy::emit(policy)),
            Target::Grpc => out.extend(grpc::emit(policy)),
            Target::Urllib3 => out.push(python::emit(policy)),
            Target::Tenacity => out.push(tenacity::emit(policy)),
            Target::Resilience4j => out.push(resilience4j::emit(policy)),
            Target::Dotnet => out.push(dotnet::emit(policy)),
            Target::Bottleneck => out.push(node::emit(policy)),
            Target::Retryablehttp => out.push(go::emit(policy)),
        }
    }
    out
}

/// A template's `@@name@@` holes filled from `vars`: the bodies of the config files are data
/// (`templates/`), only their numbers come from code. A hole `vars` does not name stays as it
/// is (the tests check that no file comes out with one).
fn fill(template: &str, vars: &[(&str, String)]) -> String {
    let mut out = String::with_capacity(template.len() + 256);
    let mut rest = template;
    while let Some(i) = rest.find("@@") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let hole = after.find("@@").and_then(|j| {
            let value = vars.iter().find(|(name, _)| *name == &after[..j])?;
            Some((&value.1, j))
        });
        match hole {
            Some((value, j)) => {
                out.push_str(value);
                rest = &after[j + 2..];
            }
            None => {
                out.push_str("@@");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The comment header every file starts with: what the numbers are and where they come from,
/// then what the tool cannot express. `c` is the line comment marker (`#` or `//`).
fn header(c: &str, p: &Policy, title: &str, how: &[String], cannot: &[String]) -> String {
    let mut h = String::new();
    let mut line = |s: &str| {
        if s.is_empty() {
            h.push_str(c);
            h.push('\n');
        } else {
            h.push_str(&format!("{c} {s}\n"));
        }
    };
    line(&format!(
        "{title} — written by {} ({}).",
        p.generated_by, p.from
    ));
    line("");
    line(&format!(
        "Limit {}/s = {}/min ({}) × headroom {} = target {}/s = {}/min = one start every {} ms.",
        fmt_num(p.limit.rate_per_second),
        fmt_num(p.limit.rate_per_minute),
        p.limit.detail,
        fmt_num(p.headroom),
        fmt_num(p.rate.rate_per_second),
        fmt_num(p.rate.rate_per_minute),
        p.rate.min_interval_ms
    ));
    line(&format!(
        "Concurrency: {}/s × {} s mean response time = at most {} in flight (Little's Law).",
        fmt_num(p.rate.rate_per_second),
        fmt_num(p.concurrency.latency_ms / 1000.0),
        p.concurrency.max_in_flight
    ));
    let r = &p.retry;
    let windows: Vec<String> = r
        .windows_ms
        .iter()
        .map(|w| fmt_num(*w as f64 / 1000.0))
        .collect();
    line(&format!(
        "Retries: {} attempts in all ({} retries) for ALL layers together; full-jitter windows {} s; Retry-After honoured as a minimum + 0–{} ms spread; total deadline {} s; per attempt {} s.",
        r.max_attempts,
        r.retries(),
        if windows.is_empty() { "none".to_string() } else { windows.join(", ") },
        r.retry_after_spread_ms,
        fmt_num(r.deadline_ms as f64 / 1000.0),
        fmt_num(r.attempt_timeout_ms as f64 / 1000.0)
    ));
    line(&format!(
        "Retry only {} on {}; writes need one stable Idempotency-Key per logical operation.",
        r.retry_methods.join("/"),
        r.retry_on_status
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .join("/")
    ));
    if p.action == Action::StopOrReschedule {
        line("ACTION stop_or_reschedule: the allowance is exhausted or the server's wait exceeds the deadline; these settings apply after it resets.");
    }
    if !how.is_empty() {
        line("");
        for s in how {
            line(s);
        }
    }
    if !cannot.is_empty() {
        line("");
        line("What this tool cannot express (do it in code or another layer):");
        for s in cannot {
            line(&format!("- {s}"));
        }
    }
    h
}

/// Seconds as a compact decimal (`0.667`, `8`): ms ÷ 1000 without float noise.
/// `429, 503`: status codes as a comma-separated list (valid in YAML, Python, JS and JSON).
fn status_list(statuses: &[u16]) -> String {
    statuses
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `"GET", "HEAD"`: strings quoted and comma-separated.
fn quoted_list(items: &[String]) -> String {
    items
        .iter()
        .map(|m| format!("\"{m}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

fn secs(ms: u64) -> String {
    let whole = ms / 1000;
    let frac = ms % 1000;
    if frac == 0 {
        whole.to_string()
    } else {
        format!("{whole}.{frac:03}")
            .trim_end_matches('0')
            .to_string()
    }
}

/// A proto3 JSON / Go-style duration string in seconds: `"0.667s"`.
fn proto_duration(ms: u64) -> String {
    format!("{}s", secs(ms))
}

#[cfg(test)]
mod tests;
