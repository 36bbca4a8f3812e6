//! What the client should do instead: a rate target with headroom, a concurrency cap from
//! Little's Law, a retry/backoff policy, and the action (slow down, stop or reschedule, fix the
//! client). Pure arithmetic over the finished [`Report`]; no I/O, no environment.
//!
//! Every number comes with a sentence in `rationale` that shows how it was computed, so a person
//! can check it by hand.

pub mod config;
pub mod plan;

use crate::attribute::Quota;
use crate::model::Request;
use crate::report::Report;
use crate::units::{fmt_duration_ms, fmt_num, Rate};
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

/// Float noise guard for ceilings: `ceil(3.0000000001)` must stay 3.
const EPS: f64 = 1e-9;

fn ceil(x: f64) -> f64 {
    (x - EPS).ceil()
}

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
            retry_after_spread_ms: 1000,
            attempt_timeout_ms: None,
        }
    }
}

impl BackoffOptions {
    /// Check the knobs make sense together; the message names the flag.
    pub fn validate(&self) -> Result<(), String> {
        if self.max_attempts == 0 {
            return Err("--max-attempts must be at least 1 (1 = no retries)".into());
        }
        if self.max_attempts > 100 {
            return Err(format!(
                "--max-attempts {} is not a sane retry budget (at most 100)",
                self.max_attempts
            ));
        }
        if self.base_ms == 0 {
            return Err("--backoff-base must be more than 0".into());
        }
        if self.cap_ms < self.base_ms {
            return Err(format!(
                "--backoff-cap ({}) must be at least --backoff-base ({})",
                fmt_duration_ms(self.cap_ms as f64),
                fmt_duration_ms(self.base_ms as f64)
            ));
        }
        if self.deadline_ms == 0 {
            return Err("--retry-deadline must be more than 0".into());
        }
        if let Some(t) = self.attempt_timeout_ms {
            if t == 0 || t > self.deadline_ms {
                return Err(format!(
                    "--attempt-timeout ({}) must be more than 0 and at most --retry-deadline ({})",
                    fmt_duration_ms(t as f64),
                    fmt_duration_ms(self.deadline_ms as f64)
                ));
            }
        }
        Ok(())
    }
}

/// Everything the recommendation can be told (the CLI flags of `analyze` and `plan`).
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// A known limit (`--limit`); beats what the headers or the traffic suggest.
    pub limit: Option<Rate>,
    /// 0 < headroom ≤ 1.
    pub headroom: f64,
    /// Mean response time (`--latency`), beats what the input shows.
    pub latency_ms: Option<f64>,
    pub backoff: BackoffOptions,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            limit: None,
            headroom: DEFAULT_HEADROOM,
            latency_ms: None,
            backoff: BackoffOptions::default(),
        }
    }
}

pub fn validate_headroom(h: f64) -> Result<f64, String> {
    if h.is_finite() && h > 0.0 && h <= 1.0 {
        Ok(h)
    } else {
        Err(format!("--headroom {h}: must be more than 0 and at most 1 (0.75 = use three quarters of the allowance)"))
    }
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

/// A rate target: the allowance times the headroom, three ways.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Target {
    pub rate_per_second: f64,
    pub rate_per_minute: f64,
    /// Spacing between request starts, rounded *up* to a whole ms so the rate never exceeds the
    /// target.
    pub min_interval_ms: u64,
}

pub fn target(limit: Rate, headroom: f64) -> Target {
    // Exact arithmetic; only the outputs are rounded (the ceiling's epsilon absorbs float
    // noise: 80/min × 0.75 is one start every 1000 ms, not 1001).
    let rps = limit.per_second * headroom;
    Target {
        rate_per_second: floor_sig(rps),
        rate_per_minute: floor_sig(rps * 60.0),
        min_interval_ms: ceil(1000.0 / rps).max(1.0) as u64,
    }
}

/// Little's Law: requests in flight = rate × mean time in the system, rounded up, at least 1.
pub fn concurrency_for(rate_per_second: f64, latency_ms: f64) -> u32 {
    let c = ceil(rate_per_second * latency_ms / 1000.0);
    if c.is_finite() && c >= 1.0 {
        c.min(u32::MAX as f64) as u32
    } else {
        1
    }
}

/// Inverse Little's Law: the start rate that `concurrency` workers sustain at `latency_ms`.
pub fn rate_for(concurrency: f64, latency_ms: f64) -> f64 {
    concurrency / (latency_ms / 1000.0)
}

/// Inverse Little's Law: the mean response time `concurrency` workers may take and still keep
/// up `rate_per_second`, ms.
pub fn latency_budget_ms(rate_per_second: f64, concurrency: f64) -> f64 {
    concurrency / rate_per_second * 1000.0
}

/// Rounded *down* to 9 significant digits: short numbers for people (1.5, not 1.4999999999),
/// never above the exact value (beyond float noise), and never 0 for a tiny positive rate.
pub fn floor_sig(x: f64) -> f64 {
    if !x.is_finite() || x <= 0.0 {
        return x;
    }
    let m = 10f64.powi(8 - x.log10().floor() as i32);
    if !m.is_finite() || m == 0.0 {
        return x;
    }
    let y = (x * m * (1.0 + 1e-12)).floor() / m;
    if y > 0.0 {
        y
    } else {
        x
    }
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LimitSource {
    /// `--limit`.
    Flag,
    /// Rate-limit headers on the responses (limit and window).
    Headers,
    /// What the clients achieved before the first 429.
    Observed,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LimitInfo {
    pub rate_per_second: f64,
    pub rate_per_minute: f64,
    /// Window the allowance is counted over, seconds.
    pub window_s: f64,
    pub source: LimitSource,
    /// Where the number came from, in a sentence.
    pub detail: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LatencySource {
    /// `--latency`.
    Flag,
    /// Response times in the input.
    Observed,
    /// Neither: [`ASSUMED_LATENCY_MS`].
    Assumed,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    pub source: LatencySource,
    /// Mean response time used for Little's Law, ms.
    pub mean_ms: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p50_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p95_ms: Option<f64>,
    /// Responses the times came from.
    pub samples: usize,
    /// Requests in flight needed if every response took the p95 time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concurrency_at_p95: Option<u32>,
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
    pub rationale: Vec<String>,
    pub warnings: Vec<String>,
    /// The allowance the target is taken from, and where it came from.
    pub limit: Option<LimitInfo>,
    pub headroom: f64,
    pub latency: Latency,
    /// The host the recommendation is for (the one that sent the 429s).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
}

/// Nearest-rank percentile of sorted values.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
    sorted[(rank - 1).min(sorted.len() - 1)]
}

/// Latency from flag, else from the responses' durations, else assumed.
pub fn latency(flag_ms: Option<f64>, durations: &[f64]) -> Latency {
    if let Some(ms) = flag_ms {
        return Latency {
            source: LatencySource::Flag,
            mean_ms: ms,
            p50_ms: None,
            p95_ms: None,
            samples: 0,
            concurrency_at_p95: None,
        };
    }
    let mut d: Vec<f64> = durations
        .iter()
        .copied()
        .filter(|x| x.is_finite() && *x >= 0.0)
        .collect();
    if d.is_empty() {
        return Latency {
            source: LatencySource::Assumed,
            mean_ms: ASSUMED_LATENCY_MS,
            p50_ms: None,
            p95_ms: None,
            samples: 0,
            concurrency_at_p95: None,
        };
    }
    d.sort_by(|a, b| a.total_cmp(b));
    let mean = d.iter().sum::<f64>() / d.len() as f64;
    Latency {
        source: LatencySource::Observed,
        mean_ms: round6(mean),
        p50_ms: Some(percentile(&d, 50.0)),
        p95_ms: Some(percentile(&d, 95.0)),
        samples: d.len(),
        concurrency_at_p95: None,
    }
}

/// A number for the arithmetic sentences: like [`fmt_num`], but with 4 significant digits below
/// 1 so the sums can be checked (`0.08681`, not `0.087`).
pub fn fmt_precise(x: f64) -> String {
    if x.abs() >= 1.0 || x == 0.0 || !x.is_finite() {
        return fmt_num(x);
    }
    let decimals = (3 - x.abs().log10().floor() as i32).clamp(3, 12) as usize;
    let s = format!("{x:.decimals$}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn fmt_rate(rps: f64) -> String {
    format!("{}/s = {}/min", fmt_precise(rps), fmt_precise(rps * 60.0))
}

fn fmt_s(s: f64) -> String {
    fmt_duration_ms(s * 1000.0)
}

/// The sentences explaining a target, concurrency and backoff; shared by `analyze` and `plan`.
pub fn explain_core(
    limit: &LimitInfo,
    headroom: f64,
    t: &Target,
    lat: &Latency,
    concurrency: u32,
    b: &Backoff,
    out: &mut Vec<String>,
) {
    out.push(format!(
        "Target = limit × headroom = {}/min × {} = {}/min = {}/s, i.e. one start every 1000 ms ÷ {} = {} ms (rounded up). The rest of the allowance is left for other callers; retries count against the same budget.",
        fmt_precise(limit.rate_per_minute),
        fmt_num(headroom),
        fmt_precise(t.rate_per_minute),
        fmt_precise(t.rate_per_second),
        fmt_precise(t.rate_per_second),
        t.min_interval_ms
    ));
    let lat_src = match lat.source {
        LatencySource::Flag => "given with --latency".to_string(),
        LatencySource::Observed => format!("mean of {} observed responses", lat.samples),
        LatencySource::Assumed => {
            "assumed: the input has no response times; pass --latency".to_string()
        }
    };
    out.push(format!(
        "Concurrency by Little's Law = rate × mean response time = {}/s × {} s = {} → at most {} in flight, rounded up ({}). A semaphore bounds requests in flight and a shared limiter bounds their start rate: use both.",
        fmt_precise(t.rate_per_second),
        fmt_num(lat.mean_ms / 1000.0),
        fmt_num(round6(t.rate_per_second * lat.mean_ms / 1000.0)),
        concurrency,
        lat_src
    ));
    if let (Some(p50), Some(p95)) = (lat.p50_ms, lat.p95_ms) {
        out.push(format!(
            "Response times: p50 {}, p95 {}; if every response took the p95 time, {}/s × {} s would need {} in flight.",
            fmt_duration_ms(p50),
            fmt_duration_ms(p95),
            fmt_num(t.rate_per_second),
            fmt_num(round6(p95 / 1000.0)),
            concurrency_for(t.rate_per_second, p95)
        ));
    }
    explain_backoff(b, out);
}

pub fn explain_backoff(b: &Backoff, out: &mut Vec<String>) {
    let windows: Vec<String> = b
        .windows_ms
        .iter()
        .map(|w| fmt_num(*w as f64 / 1000.0))
        .collect();
    if b.retries() == 0 {
        out.push(format!(
            "No retries (max attempts 1): a 429 is returned to the caller at once; total deadline {}.",
            fmt_duration_ms(b.deadline_ms as f64)
        ));
        return;
    }
    out.push(format!(
        "Backoff: at most {} attempts ({} retries) across all layers together; without a Retry-After, retry n sleeps a random time in [0, min({} s, {} s × 2^(n−1))], i.e. windows of {} s (full jitter); the sleeps add up to at most {}.",
        b.max_attempts,
        b.retries(),
        fmt_num(b.cap_ms as f64 / 1000.0),
        fmt_num(b.base_ms as f64 / 1000.0),
        windows.join(", "),
        fmt_duration_ms(b.worst_case_sleep_ms() as f64)
    ));
    out.push(format!(
        "With a Retry-After, wait at least that long plus a random 0–{} (so workers do not resume together); never shorten the server's wait. Give up after {} in all, and stop at once when the required wait exceeds what is left of it. Each attempt times out after {}.",
        fmt_duration_ms(b.retry_after_spread_ms as f64),
        fmt_duration_ms(b.deadline_ms as f64),
        fmt_duration_ms(b.attempt_timeout_ms as f64)
    ));
}

fn backoff_warnings(b: &Backoff, out: &mut Vec<String>) {
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

/// Recommendation for an analysed incident. `None` when there is nothing to recommend: no
/// rate-limited response and no `--limit`.
pub fn recommend(report: &Report, requests: &[Request], opts: &Options) -> Option<Recommendation> {
    if report.rate_limited.is_empty() && opts.limit.is_none() {
        return None;
    }
    let mut rationale = Vec::new();
    let mut warnings = Vec::new();

    // The host that sent the 429s (the busiest one when several did).
    let limited_hosts: Vec<&crate::report::HostCount> = report
        .summary
        .hosts
        .iter()
        .filter(|h| h.rate_limited > 0)
        .collect();
    let host = limited_hosts.first().map(|h| h.host.clone());
    if limited_hosts.len() > 1 {
        let others: Vec<String> = limited_hosts[1..]
            .iter()
            .map(|h| format!("{} ({} × 429)", h.host, h.rate_limited))
            .collect();
        warnings.push(format!(
            "several hosts rate-limited the clients; this recommendation is for {} and each of {} has its own allowance",
            limited_hosts[0].host,
            others.join(", ")
        ));
    }
    let on_host = |r: &Request| {
        host.as_deref()
            .map(|h| crate::http::url::host(&r.url).eq_ignore_ascii_case(h))
            .unwrap_or(true)
    };
    let limited_idx: std::collections::HashSet<usize> = report
        .rate_limited
        .iter()
        .map(|r| r.request_index)
        .collect();
    let host_429s: Vec<&crate::report::RateLimited> = report
        .rate_limited
        .iter()
        .filter(|r| requests.get(r.request_index).map(&on_host).unwrap_or(false) || host.is_none())
        .collect();

    // 1. The limit.
    let limit = limit_from_flag(opts.limit)
        .or_else(|| limit_from_headers(&host_429s))
        .or_else(|| {
            limit_from_traffic(requests, &host_429s, &limited_idx, &on_host, &mut warnings)
        });
    let quota_tokens = host_429s
        .iter()
        .any(|r| r.attribution.quota == Quota::Tokens);
    if quota_tokens {
        warnings.push(
            "the limit counts tokens, not requests: the request rate below only bounds starts; size each request's token use against the token allowance".into(),
        );
    }

    // 2. Latency from the host's answered, non-limited responses.
    let durations: Vec<f64> = requests
        .iter()
        .enumerate()
        .filter(|(i, r)| on_host(r) && r.status != 0 && !limited_idx.contains(i))
        .filter_map(|(_, r)| r.duration_ms)
        .collect();
    let mut lat = latency(opts.latency_ms, &durations);
    if lat.source == LatencySource::Assumed {
        warnings.push(format!(
            "no response times in the input: concurrency assumes a mean of {}; pass --latency to use the real one",
            fmt_duration_ms(ASSUMED_LATENCY_MS)
        ));
    }

    // 3. Backoff.
    let b = backoff(&opts.backoff, lat.p95_ms.unwrap_or(lat.mean_ms));
    backoff_warnings(&b, &mut warnings);

    // 4. Target and concurrency.
    let (t, concurrency) = match &limit {
        Some(l) => {
            rationale.push(format!(
                "Limit: {} ({}).",
                fmt_rate(l.rate_per_second),
                l.detail
            ));
            let t = target(
                Rate {
                    per_second: l.rate_per_second,
                    window_s: l.window_s,
                },
                opts.headroom,
            );
            let c = concurrency_for(t.rate_per_second, lat.mean_ms);
            lat.concurrency_at_p95 = lat.p95_ms.map(|p| concurrency_for(t.rate_per_second, p));
            explain_core(l, opts.headroom, &t, &lat, c, &b, &mut rationale);
            (Some(t), Some(c))
        }
        None => {
            rationale.push(
                "No limit is known (no --limit, no rate-limit headers with a window, no throughput before the first 429): no rate target; pass --limit.".into(),
            );
            explain_backoff(&b, &mut rationale);
            (None, None)
        }
    };

    // 5. The action.
    let finding = |k: &str| report.findings.iter().any(|f| f.kind == k);
    let daily = host_429s
        .iter()
        .any(|r| r.attribution.quota == Quota::Daily);
    let exhausted = daily || finding("quota_exhausted");
    let deadline_s = b.deadline_ms as f64 / 1000.0;
    // The typical (median) Retry-After decides: with a fixed window, the 429s near its start ask
    // for nearly the whole window while most ask for less, and one long wait should not turn
    // "slow down" into "stop". A value too large to represent counts as infinite.
    let mut ras: Vec<f64> = host_429s
        .iter()
        .filter_map(|r| {
            match (
                r.retry_after.seconds,
                &r.retry_after.raw,
                r.retry_after.kind,
            ) {
                (Some(s), _, _) => Some(s),
                (None, Some(_), crate::http::retry_after::Kind::Delta) => Some(f64::INFINITY),
                _ => None,
            }
        })
        .collect();
    ras.sort_by(|a, b| a.total_cmp(b));
    let median_ra = (!ras.is_empty()).then(|| ras[ras.len() / 2]);
    let max_ra = ras.last().copied();
    let ra_too_long = median_ra.map(|s| s > deadline_s).unwrap_or(false);
    if !ra_too_long {
        if let Some(m) = max_ra.filter(|m| *m > deadline_s) {
            let n = ras.iter().filter(|s| **s > deadline_s).count();
            warnings.push(format!(
                "{n} of {} rate-limited responses asked to wait longer than the {} retry deadline (up to {}): give up on those and reschedule them, do not shorten the wait",
                ras.len(),
                fmt_duration_ms(b.deadline_ms as f64),
                if m.is_finite() { fmt_s(m) } else { "longer than can be represented".into() }
            ));
        }
    }
    let resume_at = resume_time(&host_429s);
    let avg = average_rate(requests, &on_host);
    let client_fault = finding("burst") || finding("retry_storm");

    // A burst or retry storm whose average stays under the limit is fixed by pacing the client,
    // even when the window's Retry-After is longer than the deadline (a fixed window refuses the
    // tail of a burst until the window ends): the long waits are a consequence, not the fix.
    let fix_first = !exhausted && client_fault && avg_under_limit(avg, limit.as_ref());
    let action = if exhausted || (ra_too_long && !fix_first) {
        if exhausted {
            rationale.push(format!(
                "The allowance is exhausted ({}): slowing down does not bring it back; stop and run the rest after it resets{}.",
                if daily { "a daily/long-window quota" } else { "quota_exhausted finding" },
                resume_at.map(|t| format!(" (expected at {} UTC)", t.format("%Y-%m-%d %H:%M:%S"))).unwrap_or_default()
            ));
        }
        if ra_too_long {
            let ra = median_ra.unwrap_or(f64::INFINITY);
            rationale.push(format!(
                "The server typically asked to wait {} (median Retry-After), longer than the {} retry deadline: do not wait in a retry loop and do not shorten the wait; stop and reschedule{}.",
                if ra.is_finite() { fmt_s(ra) } else { "longer than can be represented".into() },
                fmt_duration_ms(b.deadline_ms as f64),
                resume_at.map(|t| format!(" for {} UTC", t.format("%Y-%m-%d %H:%M:%S"))).unwrap_or_default()
            ));
        }
        Action::StopOrReschedule
    } else if fix_first {
        let kinds: Vec<&str> = ["burst", "retry_storm"]
            .into_iter()
            .filter(|k| finding(k))
            .collect();
        if ra_too_long {
            let ra = median_ra.unwrap_or(f64::INFINITY);
            warnings.push(format!(
                "the server typically asked to wait {} (median Retry-After), longer than the {} retry deadline: a paced client stays out of these waits; a request that still gets one should be rescheduled, not retried in a loop, and the wait never shortened",
                if ra.is_finite() { fmt_s(ra) } else { "longer than can be represented".into() },
                fmt_duration_ms(b.deadline_ms as f64)
            ));
        }
        rationale.push(format!(
            "The clients averaged {} over the capture{}, but the 429s come from {}: pace request starts at the target and cap retries instead of sending in bursts.",
            avg.map(|(r, _)| fmt_rate(round6(r))).unwrap_or_else(|| "an unknown rate".into()),
            limit.as_ref().map(|l| format!(", under the {} limit", fmt_rate(l.rate_per_second))).unwrap_or_default(),
            kinds.join(" and ")
        ));
        Action::FixClient
    } else {
        if let (Some((a, _)), Some(l)) = (avg, limit.as_ref()) {
            if a > l.rate_per_second {
                rationale.push(format!(
                    "The clients averaged {}, above the {} limit: slow down to the target.",
                    fmt_rate(round6(a)),
                    fmt_rate(l.rate_per_second)
                ));
            }
        }
        Action::SlowDown
    };

    // 6. What other findings change.
    if finding("concurrency_limit")
        || host_429s
            .iter()
            .any(|r| r.attribution.quota == Quota::Concurrency)
    {
        warnings.push(format!(
            "the limit is on requests in flight: the concurrency cap{} is the fix; a slower start rate alone does not help",
            concurrency.map(|c| format!(" ({c})")).unwrap_or_default()
        ));
    }
    if finding("shared_key_contention") {
        warnings.push(
            "several callers share one allowance: the target is for all of them together; split it between them (or give each its own key)".into(),
        );
    }
    if finding("ignored_retry_after") {
        warnings.push("the clients retried before the server's Retry-After: honour it as a minimum wait (it is in seconds)".into());
    }
    if finding("synchronized_retries") {
        warnings.push("retries came back in step: use the random (full-jitter) waits, also on top of Retry-After".into());
    }
    if finding("unsafe_retry") {
        warnings.push(
            "non-idempotent writes were retried: retry only GET/HEAD/OPTIONS/PUT/DELETE, or writes carrying one stable Idempotency-Key per logical operation".into(),
        );
    }

    Some(Recommendation {
        rate_per_second: t.map(|t| t.rate_per_second),
        rate_per_minute: t.map(|t| t.rate_per_minute),
        min_interval_ms: t.map(|t| t.min_interval_ms),
        concurrency,
        backoff: b,
        action,
        resume_at: if action == Action::StopOrReschedule {
            resume_at
        } else {
            None
        },
        rationale,
        warnings,
        limit,
        headroom: opts.headroom,
        latency: lat,
        host,
    })
}

fn limit_from_flag(rate: Option<Rate>) -> Option<LimitInfo> {
    let r = rate?;
    Some(LimitInfo {
        rate_per_second: r.per_second,
        rate_per_minute: floor_sig(r.per_minute()),
        window_s: r.window_s,
        source: LimitSource::Flag,
        detail: format!("given with --limit {r}"),
    })
}

/// The tightest request allowance stated by rate-limit headers with both a limit and a window.
fn limit_from_headers(limited: &[&crate::report::RateLimited]) -> Option<LimitInfo> {
    let mut best: Option<(f64, f64, f64, usize)> = None; // (rate, limit, window, count)
    for r in limited {
        if r.attribution.quota == Quota::Tokens {
            continue;
        }
        let Some(l) = &r.attribution.limits else {
            continue;
        };
        let (Some(limit), Some(window)) = (l.limit, l.window_seconds) else {
            continue;
        };
        if !(limit.is_finite() && window.is_finite() && limit > 0.0 && window > 0.0) {
            continue;
        }
        let rate = limit / window;
        best = match best {
            Some((br, bl, bw, n)) if br <= rate => Some((br, bl, bw, n + usize::from(br == rate))),
            Some((_, _, _, _)) | None => Some((rate, limit, window, 1)),
        };
    }
    let (rate, limit, window, n) = best?;
    Some(LimitInfo {
        rate_per_second: rate,
        rate_per_minute: floor_sig(rate * 60.0),
        window_s: window,
        source: LimitSource::Headers,
        detail: format!(
            "rate-limit headers: {} requests per {} on {} response{}",
            fmt_num(limit),
            fmt_s(window),
            n,
            if n == 1 { "" } else { "s" }
        ),
    })
}

/// What the clients achieved before the first 429: the requests accepted before it, counted over
/// the time they took (at least one minute window).
fn limit_from_traffic(
    requests: &[Request],
    limited: &[&crate::report::RateLimited],
    limited_idx: &std::collections::HashSet<usize>,
    on_host: &dyn Fn(&Request) -> bool,
    warnings: &mut Vec<String>,
) -> Option<LimitInfo> {
    let first = limited.iter().filter_map(|r| r.time).min()?;
    let before: Vec<DateTime<Utc>> = requests
        .iter()
        .enumerate()
        .filter(|(i, r)| on_host(r) && !limited_idx.contains(i) && r.status != 0)
        .filter_map(|(_, r)| r.started)
        .filter(|t| *t < first)
        .collect();
    // The reading before the first 429, per minute (0 when nothing was accepted before it).
    let early_per_minute = match before.iter().min() {
        Some(start) => {
            let span_s = (first - *start).num_milliseconds().max(0) as f64 / 1000.0;
            before.len() as f64 * 60.0 / span_s.max(OBSERVED_MIN_WINDOW_S)
        }
        None => 0.0,
    };
    // An early first 429 leaves too little to read a limit from (a dashboard whose second poll
    // was limited would be told 1/min): when the server went on to accept at least twice as
    // much per minute in the minutes it was refusing others, that is what it allows.
    if let Some(l) = limit_from_saturated_minutes(requests, limited_idx, on_host, before.len())
        .filter(|l| l.rate_per_minute >= SATURATED_OVER_EARLY * early_per_minute)
    {
        warnings.push(
            "the limit was estimated from the traffic the server accepted while it was rate-limiting, not stated by the server: confirm it in the provider's documentation and pass --limit".into(),
        );
        return Some(l);
    }
    let Some(start) = before.iter().min().copied() else {
        warnings.push(
            "the very first request was already rate-limited: there is no throughput to learn the limit from; pass --limit".into(),
        );
        return None;
    };
    let n = before.len() as f64;
    let span_s = (first - start).num_milliseconds().max(0) as f64 / 1000.0;
    let window = span_s.max(OBSERVED_MIN_WINDOW_S);
    let rate = n / window;
    warnings.push(
        "the limit was estimated from the traffic before the first 429, not stated by the server: confirm it in the provider's documentation and pass --limit".into(),
    );
    Some(LimitInfo {
        rate_per_second: rate,
        rate_per_minute: floor_sig(rate * 60.0),
        window_s: window,
        source: LimitSource::Observed,
        detail: format!(
            "observed: {} requests were accepted in the {} before the first 429 at {} UTC, read as {} per {}{}",
            n,
            fmt_s(span_s),
            first.format("%H:%M:%S"),
            n,
            fmt_s(window),
            if span_s < OBSERVED_MIN_WINDOW_S { " (a one-minute window is assumed for a shorter run)" } else { "" }
        ),
    })
}

/// The median number of requests accepted per UTC minute over the minutes that also had a 429
/// (the server was at its limit then), when it is at least [`OBSERVED_MIN_ACCEPTED`].
fn limit_from_saturated_minutes(
    requests: &[Request],
    limited_idx: &std::collections::HashSet<usize>,
    on_host: &dyn Fn(&Request) -> bool,
    before_first: usize,
) -> Option<LimitInfo> {
    let mut minutes: std::collections::BTreeMap<i64, (usize, bool)> = Default::default();
    for (i, r) in requests.iter().enumerate() {
        let (Some(t), true) = (r.started, on_host(r)) else {
            continue;
        };
        let m = minutes.entry(t.timestamp().div_euclid(60)).or_default();
        if limited_idx.contains(&i) {
            m.1 = true;
        } else if r.status != 0 {
            m.0 += 1;
        }
    }
    let mut accepted: Vec<usize> = minutes
        .values()
        .filter(|(_, limited)| *limited)
        .map(|(n, _)| *n)
        .collect();
    accepted.sort_unstable();
    let median = *accepted.get(accepted.len().checked_sub(1)? / 2)?;
    if median < OBSERVED_MIN_ACCEPTED {
        return None;
    }
    let rate = median as f64 / 60.0;
    Some(LimitInfo {
        rate_per_second: rate,
        rate_per_minute: floor_sig(rate * 60.0),
        window_s: 60.0,
        source: LimitSource::Observed,
        detail: format!(
            "observed: the server accepted a median of {median} requests per minute in the {} minute{} that also had a 429 (more than twice what the {before_first} accepted before the first 429 suggested)",
            accepted.len(),
            if accepted.len() == 1 { "" } else { "s" }
        ),
    })
}

/// When the allowance is expected back: the latest 429 time + its reset (when that allowance is
/// spent) or Retry-After.
fn resume_time(limited: &[&crate::report::RateLimited]) -> Option<DateTime<Utc>> {
    limited
        .iter()
        .filter_map(|r| {
            let t = r.time?;
            // A reset matters only for a spent allowance: with `remaining` above zero the 429
            // came from another limit (e.g. a secondary burst limit), and its Retry-After says
            // when to come back, not the unspent allowance's reset an hour away.
            let reset = r
                .attribution
                .limits
                .as_ref()
                .filter(|l| l.remaining.is_none_or(|n| n <= 0.0))
                .and_then(|l| l.reset_seconds);
            let ra = r.retry_after.seconds;
            let s = match (reset, ra) {
                (Some(a), Some(b)) => a.max(b),
                (a, b) => a.or(b)?,
            };
            if !s.is_finite() || !(0.0..=crate::http::retry_after::MAX_REPRESENTABLE_S).contains(&s)
            {
                return None;
            }
            t.checked_add_signed(chrono::Duration::milliseconds((s * 1000.0) as i64))
        })
        .max()
}

/// The host's average start rate over the capture: (requests per second, span seconds).
fn average_rate(requests: &[Request], on_host: &dyn Fn(&Request) -> bool) -> Option<(f64, f64)> {
    let times: Vec<DateTime<Utc>> = requests
        .iter()
        .filter(|r| on_host(r))
        .filter_map(|r| r.started)
        .collect();
    let (a, b) = (times.iter().min()?, times.iter().max()?);
    let span = (*b - *a).num_milliseconds() as f64 / 1000.0;
    if span <= 0.0 {
        return None;
    }
    Some((times.len() as f64 / span, span))
}

fn avg_under_limit(avg: Option<(f64, f64)>, limit: Option<&LimitInfo>) -> bool {
    match (avg, limit) {
        (Some((a, _)), Some(l)) => a <= l.rate_per_second,
        // Nothing to compare with: the detectors' verdict stands.
        _ => true,
    }
}

#[cfg(test)]
mod tests;
