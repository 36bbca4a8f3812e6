//! What the client should do instead: a rate target with headroom, a concurrency cap from
//! Little's Law, a retry/backoff policy, and the action (slow down, stop or reschedule, fix the
//! client). Pure arithmetic over [`HostEvidence`] (what the analysis gathered about one host)
//! and the findings; no I/O, no environment, and no dependence on the Report, which holds the
//! result.
//!
//! Every number comes with a sentence in `rationale` that shows how it was computed, so a person
//! can check it by hand.
//!
//! One module per concern: [`evidence`] (what is read), [`limit`] (the allowance), [`latency`],
//! [`target`] (plan arithmetic), [`backoff`] (the retry policy), `action` (what to do),
//! [`explain`] (the sentences), [`plan`] (the `plan` subcommand), [`config`] (files written).

mod action;
pub mod backoff;
pub mod config;
pub mod evidence;
pub mod explain;
pub mod latency;
pub mod limit;
pub mod owner;
pub mod plan;
pub mod target;

pub use backoff::{
    backoff, default_attempt_timeout_ms, windows_ms, Backoff, BackoffOptions, Jitter,
    IDEMPOTENT_METHODS, RETRY_ON_STATUS,
};
pub use evidence::HostEvidence;
pub use explain::{explain_backoff, explain_core};
pub use latency::{latency, Latency, LatencySource};
pub use limit::{LimitInfo, LimitSource};
pub use target::{
    concurrency_for, floor_sig, fmt_precise, latency_budget_ms, rate_for, target, Target,
};

use crate::detect::Finding;
use crate::units::{fmt_duration_ms, GivenLimits, Rate};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Share of the allowance to use by default, leaving room for other callers and for retries.
pub const DEFAULT_HEADROOM: f64 = 0.75;
/// Mean response time assumed when the input has none and `--latency` is not given.
pub const ASSUMED_LATENCY_MS: f64 = 1000.0;
/// When the clients' throughput is the only evidence, a run shorter than this is read as one
/// window of this length (most request-rate limits are per minute).
pub const OBSERVED_MIN_WINDOW_S: f64 = 60.0;
/// The minutes that had a 429 must show at least this many accepted requests to stand in for
/// the limit.
pub const OBSERVED_MIN_ACCEPTED: usize = 10;
/// ... and at least this multiple of the reading before the first 429, which they replace.
pub const SATURATED_OVER_EARLY: f64 = 2.0;

/// Everything the recommendation can be told (the CLI flags of `analyze` and `plan`).
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Known limits (`--limit`); each beats what the headers or the traffic suggest for its
    /// host.
    pub limit: GivenLimits,
    /// `--host`: the plan for this host only (and a `--limit` without a host is for it).
    pub host: Option<String>,
    /// 0 < headroom ≤ 1.
    pub headroom: f64,
    /// Mean response time (`--latency`), beats what the input shows.
    pub latency_ms: Option<f64>,
    pub backoff: BackoffOptions,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            limit: GivenLimits::default(),
            host: None,
            headroom: DEFAULT_HEADROOM,
            latency_ms: None,
            backoff: BackoffOptions::default(),
        }
    }
}

pub fn validate_headroom(h: f64) -> Result<f64, backoff::KnobError> {
    if h.is_finite() && h > 0.0 && h <= 1.0 {
        Ok(h)
    } else {
        Err(backoff::KnobError::Headroom(h))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Send at the target rate with the concurrency cap and the backoff.
    SlowDown,
    /// The allowance is gone (or the server's wait exceeds the deadline): waiting in a retry
    /// loop will not help; stop and run again after the reset.
    StopOrReschedule,
    /// The average was under the limit: the 429s come from how the client sends (bursts, retry
    /// storms). Fix the client's pacing and retries.
    FixClient,
}

impl Action {
    pub fn as_str(&self) -> &'static str {
        match self {
            Action::SlowDown => "slow_down",
            Action::StopOrReschedule => "stop_or_reschedule",
            Action::FixClient => "fix_client",
        }
    }
}

/// What the client should do instead, with the arithmetic.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Recommendation {
    /// Target request starts per second (limit × headroom); `null` when no limit is known.
    pub rate_per_second: Option<f64>,
    pub rate_per_minute: Option<f64>,
    /// Spacing between request starts, ms.
    pub min_interval_ms: Option<u64>,
    /// Requests in flight at most (Little's Law).
    pub concurrency: Option<u32>,
    pub backoff: Backoff,
    pub action: Action,
    /// When the allowance is expected back (for `stop_or_reschedule`), UTC.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resume_at: Option<DateTime<Utc>>,
    /// For a pacing plan: the longest Retry-After the server stated that the retry deadline
    /// was sized to wait out, s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stated_wait_s: Option<f64>,
    pub rationale: Vec<String>,
    pub warnings: Vec<String>,
    /// The allowance the target is taken from, and where it came from.
    pub limit: Option<LimitInfo>,
    pub headroom: f64,
    pub latency: Latency,
    /// When an edge or gateway that may be the user's own set the limit: the fixes besides
    /// pacing the client (raise or scope the rule, batch or cache the calls).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub alternatives: Vec<String>,
    /// The host the recommendation is for (the one that sent the 429s).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
}

/// Recommendation for an analysed incident: the principal plan, for the host that sent the most
/// rate-limited responses (`limited_hosts`, busiest first), or for all traffic (`all`) when
/// none did. `None` when there is nothing to recommend: no rate-limited response and no
/// `--limit`. The first of [`recommend_all`].
pub fn recommend(
    limited_hosts: &[&HostEvidence],
    all: &HostEvidence,
    findings: &[Finding],
    opts: &Options,
) -> Option<Recommendation> {
    recommend_all(limited_hosts, all, findings, opts)
        .into_iter()
        .next()
}

/// One plan per rate-limited host (busiest first), each from that host's own evidence and
/// findings; or one plan for all traffic when no host was rate-limited but `--limit` was given.
/// The first is the principal one; when several hosts limited the clients it says so.
pub fn recommend_all(
    limited_hosts: &[&HostEvidence],
    all: &HostEvidence,
    findings: &[Finding],
    opts: &Options,
) -> Vec<Recommendation> {
    if limited_hosts.is_empty() {
        return opts
            .limit
            .any
            .map(|_| for_host(all, findings, opts, true))
            .into_iter()
            .collect();
    }
    let mut recs: Vec<Recommendation> = limited_hosts
        .iter()
        .enumerate()
        .map(|(i, ev)| {
            let own: Vec<Finding> = findings_for(findings, ev.host.as_deref())
                .cloned()
                .collect();
            for_host(ev, &own, opts, i == 0)
        })
        .collect();
    if let (Some(principal), true) = (recs.first_mut(), limited_hosts.len() > 1) {
        principal.warnings.insert(0, several_hosts(limited_hosts));
    }
    recs
}

/// The findings about `host` (a finding without a host in its evidence counts for every host).
fn findings_for<'a>(
    findings: &'a [Finding],
    host: Option<&'a str>,
) -> impl Iterator<Item = &'a Finding> + 'a {
    findings.iter().filter(
        move |f| match (host, f.evidence.get("host").and_then(|h| h.as_str())) {
            (Some(h), Some(fh)) => h.eq_ignore_ascii_case(fh),
            _ => true,
        },
    )
}

/// "2 hosts rate-limited the clients, each with its own allowance: a (22 rate-limited
/// responses) and b (12). This plan is for a; each of the others has its own plan."
fn several_hosts(limited_hosts: &[&HostEvidence]) -> String {
    let name = |h: &HostEvidence| h.host.clone().unwrap_or_else(|| "(no host)".into());
    /// Hosts named in the sentence; the rest are counted.
    const NAMED: usize = 5;
    let mut parts: Vec<String> = Vec::new();
    for (i, h) in limited_hosts.iter().take(NAMED).enumerate() {
        parts.push(if i == 0 {
            format!(
                "{} ({} rate-limited response{})",
                name(h),
                h.rate_limited,
                if h.rate_limited == 1 { "" } else { "s" }
            )
        } else {
            format!("{} ({})", name(h), h.rate_limited)
        });
    }
    let more = limited_hosts.len().saturating_sub(NAMED);
    if more > 0 {
        parts.push(format!("{more} more"));
    }
    let list = match parts.len() {
        0 | 1 => parts.join(""),
        n => format!("{} and {}", parts[..n - 1].join(", "), parts[n - 1]),
    };
    format!(
        "{} hosts rate-limited the clients, each with its own allowance: {list}. This plan is for {}; each of the others has its own plan.",
        limited_hosts.len(),
        name(limited_hosts[0])
    )
}

/// Widen the random spread on top of Retry-After for the callers told to come back in the same
/// second (never past the deadline: a wait longer than it makes the client give up instead).
fn spread_for_shared_resets(
    ev: &HostEvidence,
    b: &mut Backoff,
    rationale: &mut Vec<String>,
    warnings: &mut Vec<String>,
) {
    let sharing = ev.limited.resume_seconds.most();
    let needed = backoff::retry_after_spread_ms(b.retry_after_spread_ms, sharing);
    if needed <= b.retry_after_spread_ms {
        return;
    }
    let spread = needed.min(b.deadline_ms);
    rationale.push(format!(
        "Spread: {sharing} operations were told to come back in the same second (a shared reset), so the random spread on top of Retry-After is {} ({} per operation{}) instead of {}: spread that way, about one in two of them resumes in any 100 ms, and they do not come back in step.",
        fmt_duration_ms(spread as f64),
        fmt_duration_ms(backoff::SPREAD_PER_CALLER_MS as f64),
        if spread < needed { ", capped at the retry deadline" } else { "" },
        fmt_duration_ms(b.retry_after_spread_ms as f64)
    ));
    if spread < needed {
        warnings.push(format!(
            "{sharing} operations share one reset: spreading them {} apart would take {}, more than the retry deadline ({}); the spread is capped at the deadline, so pace them through the shared limiter at the target rate (or raise --retry-deadline)",
            fmt_duration_ms(backoff::SPREAD_PER_CALLER_MS as f64),
            fmt_duration_ms(needed as f64),
            fmt_duration_ms(b.deadline_ms as f64)
        ));
    }
    b.retry_after_spread_ms = spread;
}

/// The recommendation for one host's traffic (`ev.host`; all traffic when it is `None`).
/// `principal`: the plan a `--limit` without a host is for.
pub fn for_host(
    ev: &HostEvidence,
    findings: &[Finding],
    opts: &Options,
    principal: bool,
) -> Recommendation {
    let mut rationale = Vec::new();
    let mut warnings = Vec::new();

    // 1. The limit.
    let limit = known_limit(ev, opts, principal, &mut warnings);

    // 2. Latency from the host's answered, non-limited responses.
    let mut lat = latency(opts.latency_ms, &ev.durations);
    if lat.source == LatencySource::Assumed {
        warnings.push(format!(
            "no response times in the input: concurrency assumes a mean of {}; pass --latency to use the real one",
            fmt_duration_ms(ASSUMED_LATENCY_MS)
        ));
    }

    // 3. Backoff, its spread on top of Retry-After sized for the callers sharing a reset.
    let mut b = backoff(&opts.backoff, lat.p95_ms.unwrap_or(lat.mean_ms));
    spread_for_shared_resets(ev, &mut b, &mut rationale, &mut warnings);

    // 4. The action, and the retry deadline it implies (its sentences follow the arithmetic).
    let mut why_action = Vec::new();
    let decided = action::decide(
        ev,
        findings,
        limit.as_ref(),
        &mut b,
        opts.backoff.deadline_given,
        &mut why_action,
        &mut warnings,
    );
    let action = decided.action;
    backoff::backoff_warnings(&b, &mut warnings);

    // 5. Target and concurrency (for a stop: how to spread the allowance once it is back).
    let (t, concurrency) = pace(limit.as_ref(), opts.headroom, &mut lat, &b, &mut rationale);

    rationale.append(&mut why_action);

    // 6. What other findings change.
    action::finding_warnings(ev, findings, concurrency, &mut warnings);

    // 7. Who owns the limit: an edge or gateway that may be the user's has other fixes.
    let alternatives = match owner::own_limit(ev) {
        Some(o) => {
            rationale.push(o.summary);
            o.alternatives
        }
        None => Vec::new(),
    };

    Recommendation {
        rate_per_second: t.map(|t| t.rate_per_second),
        rate_per_minute: t.map(|t| t.rate_per_minute),
        min_interval_ms: t.map(|t| t.min_interval_ms),
        concurrency,
        backoff: b,
        action,
        resume_at: decided.resume_at,
        stated_wait_s: decided.stated_wait_s,
        rationale,
        warnings,
        limit,
        headroom: opts.headroom,
        latency: lat,
        alternatives,
        host: ev.host.clone(),
    }
}

/// Step 1 of [`for_host`]: the host's limit (given, stated or measured), with a warning when it
/// counts tokens.
fn known_limit(
    ev: &HostEvidence,
    opts: &Options,
    principal: bool,
    warnings: &mut Vec<String>,
) -> Option<LimitInfo> {
    let given = match ev.host.as_deref() {
        Some(h) => opts
            .limit
            .get(h, principal)
            .map(|r| (r, opts.limit.flag_text(h, r))),
        None => opts.limit.any.map(|r| (r, format!("--limit {r}"))),
    };
    let limit = limit::limit_for(given, ev, warnings);
    if ev.limited.tokens {
        warnings.push(
            "the limit counts tokens, not requests: the request rate below only bounds starts; size each request's token use against the token allowance".into(),
        );
    }
    limit
}

/// Step 5 of [`for_host`]: the target rate and the concurrency under a known limit (for a
/// stop: how to spread the allowance once it is back), with their rationale; without a limit,
/// the backoff's alone.
fn pace(
    limit: Option<&LimitInfo>,
    headroom: f64,
    lat: &mut Latency,
    b: &Backoff,
    rationale: &mut Vec<String>,
) -> (Option<Target>, Option<u32>) {
    let Some(l) = limit else {
        rationale.push(
            "No limit is known (no --limit, no rate-limit headers with a window, no throughput before the first 429): no rate target; pass --limit.".into(),
        );
        explain_backoff(b, rationale);
        return (None, None);
    };
    rationale.push(format!(
        "Limit: {} ({}).",
        target::rate_forms(l.rate_per_second, l.window_s),
        l.detail
    ));
    let t = target(
        Rate {
            per_second: l.rate_per_second,
            window_s: l.window_s,
        },
        headroom,
    );
    let c = concurrency_for(t.rate_per_second, lat.mean_ms);
    lat.concurrency_at_p95 = lat.p95_ms.map(|p| concurrency_for(t.rate_per_second, p));
    explain_core(l, headroom, &t, lat, c, b, rationale);
    (Some(t), Some(c))
}

#[cfg(test)]
mod tests;
