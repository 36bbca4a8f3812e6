//! `toomany verify`: does a controlled batch follow the plan?
//!
//! The capture (the mock's log, a HAR, JSON lines) is read as the wire saw it: every record is
//! one attempt. Attempts are grouped into logical requests, counted (first attempts, retries,
//! successes, final failures apart), and measured against the plan (`toomany.toml`): start
//! spacing, requests in flight, waits after Retry-After, the attempt cap, the deadline,
//! synchronised retries and idempotency keys on retried writes. Each check is a plain
//! `{name, ok, detail}`; the verdict is `pass` only when every check is.
//!
//! Times are compared with a tolerance (`Options::tolerance_ms`, 20 ms by default): the log's
//! clock and the client's timers are different clocks, and a client process on a busy machine
//! starts a request a few milliseconds after its timer fired.

use crate::detect::clients::Clients;
use crate::detect::logical::{coarse_timestamps, idempotency_key, is_write};
use crate::http::retry_after;
use crate::model::Request;
use crate::recommend::config::Policy;
use serde::Serialize;
use std::collections::HashMap;

/// Version of the `verify --format json` output.
pub const VERIFY_SCHEMA_VERSION: u32 = 1;

/// Default slack for every time comparison, ms.
pub const DEFAULT_TOLERANCE_MS: f64 = 20.0;

/// Share of the plan's interval a first attempt may come early, on top of the tolerance: a
/// client's timer fires on time, but its request reaches the wire after tens of milliseconds
/// of its own work on a busy machine (measured: Python requests and Node fetch sent 28–46 ms
/// "early" relative to the previous, delayed, send under a load of 17 on 2 cores). The plan's
/// headroom is there to absorb exactly that; a burst or a sustained too-fast rate is far past it.
pub const JITTER_SHARE: f64 = 0.15;

#[derive(Debug, Clone)]
pub struct Options {
    pub tolerance_ms: f64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            tolerance_ms: DEFAULT_TOLERANCE_MS,
        }
    }
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Counts {
    pub logical_requests: usize,
    pub first_attempts: usize,
    pub retries: usize,
    pub successes: usize,
    pub final_failures: usize,
    /// Why the failed ones ended: `attempt_cap`, `deadline`, `retry_after_beyond_deadline`,
    /// `not_retryable` (status not retried, or a write without a key), `gave_up` (anything else).
    pub failures_by_reason: std::collections::BTreeMap<String, usize>,
    /// Most attempts one logical request made.
    pub max_attempts_seen: usize,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Spacing {
    /// Gaps between consecutive first attempts (all clients together), ms.
    pub min_ms: Option<f64>,
    pub p50_ms: Option<f64>,
    /// The plan's `min_interval_ms`.
    pub target_ms: u64,
    /// First attempts per second over the batch (first to last start).
    pub first_attempt_rate_per_s: Option<f64>,
    /// Every attempt (retries included) per second over the batch.
    pub attempt_rate_per_s: Option<f64>,
    pub target_rate_per_s: f64,
    /// Furthest a first attempt came ahead of a one-per-`target_ms` schedule (GCRA's
    /// theoretical arrival time), ms; 0 when none was early.
    pub max_ahead_ms: Option<f64>,
    /// How far ahead is allowed: the tolerance plus `JITTER_SHARE` of the interval.
    pub allowance_ms: f64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct InFlight {
    pub max: usize,
    /// Time-weighted mean over the batch (first start to last end).
    pub mean: f64,
    /// The plan's `max_in_flight`.
    pub limit: u32,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Check {
    pub name: &'static str,
    pub ok: bool,
    pub detail: String,
}

#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Pass,
    Fail,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Verification {
    pub attempts: usize,
    pub counts: Counts,
    pub spacing: Spacing,
    pub in_flight: InFlight,
    pub checks: Vec<Check>,
    pub verdict: Verdict,
    pub tolerance_ms: f64,
}

/// One attempt, in milliseconds since the batch's first start.
#[derive(Debug, Clone)]
struct Attempt {
    index: usize,
    start: f64,
    end: f64,
    status: u16,
    /// Retry-After the response asked for, ms.
    retry_after_ms: Option<f64>,
    key: Option<String>,
}

/// One logical request's attempts, in time order.
#[derive(Debug, Clone)]
struct Logical {
    method: String,
    attempts: Vec<Attempt>,
}

fn is_success(status: u16) -> bool {
    (200..400).contains(&status)
}

/// A failure a client may retry (429, 408, 5xx, no response).
fn is_failure(status: u16) -> bool {
    status == 0 || status == 408 || status == 429 || status >= 500
}

/// Why the batch cannot be judged at all (exit 2).
#[derive(Debug, Clone, PartialEq)]
pub struct Insufficient(pub String);

/// Judge `requests` (one capture, any order) against `plan`.
pub fn verify(
    requests: &[Request],
    plan: &Policy,
    opts: &Options,
) -> Result<Verification, Insufficient> {
    let timed: Vec<usize> = (0..requests.len())
        .filter(|&i| requests[i].started.is_some())
        .collect();
    if timed.is_empty() {
        return Err(Insufficient(
            "no record has a start time: nothing to measure".into(),
        ));
    }
    if coarse_timestamps(requests) {
        return Err(Insufficient(
            "the timestamps carry whole seconds only: spacing, waits and requests in flight cannot be measured; capture with millisecond times (the mock's log, a HAR)".into(),
        ));
    }
    let tol = opts.tolerance_ms.max(0.0);
    let clients = crate::analyze::identify_clients(requests);
    let origin = timed
        .iter()
        .filter_map(|&i| requests[i].started)
        .min()
        .map(|t| t.timestamp_micros())
        .unwrap_or(0);
    let ms = |r: &Request| -> f64 {
        r.started
            .map(|t| (t.timestamp_micros() - origin) as f64 / 1000.0)
            .unwrap_or(0.0)
    };
    let mut order = timed.clone();
    order.sort_by(|&a, &b| {
        ms(&requests[a])
            .total_cmp(&ms(&requests[b]))
            .then(a.cmp(&b))
    });

    let logical = group(requests, &order, &clients, plan, tol, &ms);
    let attempts: Vec<&Attempt> = {
        let mut v: Vec<&Attempt> = logical.iter().flat_map(|l| l.attempts.iter()).collect();
        v.sort_by(|a, b| a.start.total_cmp(&b.start).then(a.index.cmp(&b.index)));
        v
    };

    let counts = count(&logical, plan, tol);
    let spacing = spacing(&logical, &attempts, plan, tol);
    let in_flight = in_flight(&attempts, plan, tol);
    let checks = vec![
        check_start_rate(&spacing),
        check_concurrency(&in_flight),
        check_retry_after(&logical, plan, tol),
        check_attempt_cap(&logical, plan),
        check_deadline(&logical, plan, tol),
        check_jitter(&logical, plan, tol),
        check_idempotency(&logical, plan),
    ];
    let verdict = if checks.iter().all(|c| c.ok) {
        Verdict::Pass
    } else {
        Verdict::Fail
    };
    Ok(Verification {
        attempts: attempts.len(),
        counts,
        spacing,
        in_flight,
        checks,
        verdict,
        tolerance_ms: tol,
    })
}

/// Attempts of one operation share the client, the method, the URL and (for writes) the body
/// fingerprint; an attempt is a retry when it follows a failed attempt of that operation that
/// had ended, and comes within twice the plan's deadline (plus the Retry-After) of it — so a
/// client that overruns its deadline is still seen retrying. A batch whose logical requests all
/// hit one URL cannot be told apart this way: give each its own URL (`/items/1`, `/items/2`).
fn group(
    requests: &[Request],
    order: &[usize],
    clients: &Clients,
    plan: &Policy,
    tol: f64,
    ms: &dyn Fn(&Request) -> f64,
) -> Vec<Logical> {
    struct Open {
        logical: usize,
        ready_at: f64,
        until: f64,
        key: Option<String>,
    }
    let window = 2.0 * plan.retry.deadline_ms as f64;
    let mut out: Vec<Logical> = Vec::new();
    let mut open: HashMap<(usize, String, String, Option<String>), Vec<Open>> = HashMap::new();
    for &i in order {
        let r = &requests[i];
        let start = ms(r);
        let end = start
            + r.duration_ms
                .filter(|d| d.is_finite() && *d >= 0.0)
                .unwrap_or(0.0);
        let method = r.method.to_ascii_uppercase();
        let body = is_write(&method)
            .then(|| r.request_body_fingerprint.clone())
            .flatten();
        let client = clients.of_request.get(i).copied().unwrap_or(0);
        let op = (
            client,
            method.clone(),
            crate::http::url::normalize(&r.url),
            body,
        );
        let key = idempotency_key(&r.request_headers).map(|(_, v)| v.to_string());
        let ra = retry_after::from_headers(&r.response_headers, r.started)
            .seconds
            .map(|s| s * 1000.0);
        let attempt = Attempt {
            index: i,
            start,
            end,
            status: r.status,
            retry_after_ms: ra,
            key: key.clone(),
        };
        let waiting = open.entry(op).or_default();
        waiting.retain(|o| start <= o.until);
        // The waiting operation with the same key, else the one waiting longest.
        let pick = waiting
            .iter()
            .position(|o| o.ready_at <= start + tol && key.is_some() && o.key == key)
            .or_else(|| waiting.iter().position(|o| o.ready_at <= start + tol));
        let l = match pick {
            Some(p) => waiting.remove(p).logical,
            None => {
                out.push(Logical {
                    method: method.clone(),
                    attempts: Vec::new(),
                });
                out.len() - 1
            }
        };
        out[l].attempts.push(attempt);
        if is_failure(r.status) {
            waiting.push(Open {
                logical: l,
                ready_at: end,
                until: end + window + ra.unwrap_or(0.0),
                key,
            });
        }
    }
    out
}

fn retryable(l: &Logical, plan: &Policy) -> bool {
    let method_ok = plan
        .retry
        .retry_methods
        .iter()
        .any(|m| m.eq_ignore_ascii_case(&l.method));
    let keyed = l.attempts.first().and_then(|a| a.key.as_ref()).is_some();
    method_ok || keyed
}

fn count(logical: &[Logical], plan: &Policy, tol: f64) -> Counts {
    let mut c = Counts {
        logical_requests: logical.len(),
        first_attempts: logical.len(),
        retries: 0,
        successes: 0,
        final_failures: 0,
        failures_by_reason: Default::default(),
        max_attempts_seen: 0,
    };
    for l in logical {
        c.retries += l.attempts.len() - 1;
        c.max_attempts_seen = c.max_attempts_seen.max(l.attempts.len());
        let (Some(first), Some(last)) = (l.attempts.first(), l.attempts.last()) else {
            continue;
        };
        if is_success(last.status) {
            c.successes += 1;
            continue;
        }
        c.final_failures += 1;
        let deadline = plan.retry.deadline_ms as f64;
        let left = deadline - (last.end - first.start);
        let reason = if !plan.retry.retry_on_status.contains(&last.status) || !retryable(l, plan) {
            "not_retryable"
        } else if l.attempts.len() >= plan.retry.max_attempts as usize {
            "attempt_cap"
        } else if last.retry_after_ms.is_some_and(|ra| ra > left + tol) {
            "retry_after_beyond_deadline"
        } else if left <= tol + plan.retry.windows_ms.first().copied().unwrap_or(0) as f64 {
            "deadline"
        } else {
            "gave_up"
        };
        *c.failures_by_reason.entry(reason.to_string()).or_default() += 1;
    }
    c
}

fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

fn r1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

fn rate(starts: &[f64]) -> Option<f64> {
    let (first, last) = (starts.first()?, starts.last()?);
    let span = last - first;
    (starts.len() >= 2 && span > 0.0)
        .then(|| ((starts.len() - 1) as f64 / span * 1e6).round() / 1000.0)
}

/// First attempts against a one-per-`interval` schedule, GCRA's virtual scheduling: each start
/// is due at the theoretical arrival time `tat`; the furthest any came before it. Conforming
/// within an allowance `j` means no burst and no sustained excess: k consecutive gaps always
/// add up to at least k × interval − j.
fn max_ahead(firsts: &[f64], interval: f64) -> Option<f64> {
    let mut tat = *firsts.first()?;
    let mut ahead: f64 = 0.0;
    for &s in firsts {
        ahead = ahead.max(tat - s);
        tat = tat.max(s) + interval;
    }
    Some(r1(ahead))
}

fn spacing(logical: &[Logical], attempts: &[&Attempt], plan: &Policy, tol: f64) -> Spacing {
    let mut firsts: Vec<f64> = logical
        .iter()
        .filter_map(|l| l.attempts.first().map(|a| a.start))
        .collect();
    firsts.sort_by(f64::total_cmp);
    let mut gaps: Vec<f64> = firsts.windows(2).map(|w| w[1] - w[0]).collect();
    gaps.sort_by(f64::total_cmp);
    let all: Vec<f64> = attempts.iter().map(|a| a.start).collect();
    Spacing {
        min_ms: gaps.first().copied().map(r1),
        p50_ms: percentile(&gaps, 0.5).map(r1),
        target_ms: plan.rate.min_interval_ms,
        first_attempt_rate_per_s: rate(&firsts),
        attempt_rate_per_s: rate(&all),
        target_rate_per_s: plan.rate.rate_per_second,
        max_ahead_ms: max_ahead(&firsts, plan.rate.min_interval_ms as f64),
        allowance_ms: r1(tol + JITTER_SHARE * plan.rate.min_interval_ms as f64),
    }
}

/// Sweep over (start, end) of every attempt. An attempt that starts within the tolerance of
/// another's end is not counted as overlapping it (the log's clock and the client's differ).
fn in_flight(attempts: &[&Attempt], plan: &Policy, tol: f64) -> InFlight {
    let mut events: Vec<(f64, i32)> = Vec::with_capacity(attempts.len() * 2);
    let mut busy = 0.0;
    for a in attempts {
        let end = (a.end - tol).max(a.start);
        events.push((a.start, 1));
        events.push((end, -1));
        busy += a.end - a.start;
    }
    // Ends before starts at the same instant.
    events.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
    let (mut now, mut max) = (0i32, 0i32);
    for (_, d) in &events {
        now += d;
        max = max.max(now);
    }
    let span = attempts.iter().map(|a| a.end).fold(0.0f64, f64::max)
        - attempts.first().map(|a| a.start).unwrap_or(0.0);
    InFlight {
        max: max.max(0) as usize,
        mean: if span > 0.0 {
            (busy / span * 100.0).round() / 100.0
        } else {
            0.0
        },
        limit: plan.concurrency.max_in_flight,
    }
}

fn check_start_rate(s: &Spacing) -> Check {
    let (Some(min), Some(ahead)) = (s.min_ms, s.max_ahead_ms) else {
        return Check {
            name: "start_rate",
            ok: true,
            detail: "fewer than two first attempts: no spacing to measure".into(),
        };
    };
    let ok = ahead <= s.allowance_ms;
    Check {
        name: "start_rate",
        ok,
        detail: format!(
            "first attempts {} apart at the least (median {}), at most {} ahead of a one-per-{} ms schedule (allowed {}){}",
            ms_text(min),
            s.p50_ms.map(ms_text).unwrap_or_default(),
            ms_text(ahead),
            s.target_ms,
            ms_text(s.allowance_ms),
            if ok {
                ""
            } else {
                ": faster than the plan (a burst, or a rate above the target)"
            }
        ),
    }
}

fn check_concurrency(f: &InFlight) -> Check {
    let ok = f.max <= f.limit as usize;
    Check {
        name: "concurrency",
        ok,
        detail: format!(
            "at most {} in flight (mean {}), plan: at most {}",
            f.max, f.mean, f.limit
        ),
    }
}

/// Retries that waited after a response: (logical index, retry, the attempt before it).
fn retries(logical: &[Logical]) -> impl Iterator<Item = (usize, &Attempt, &Attempt)> {
    logical
        .iter()
        .enumerate()
        .flat_map(|(li, l)| l.attempts.windows(2).map(move |w| (li, &w[1], &w[0])))
}

/// Pairs of retries of different logical requests that were told to come back at the same
/// moment (cues within the tolerance) and did (starts within the tolerance): (pairs cued
/// together, of them resumed together).
fn in_step(cued: &[(usize, f64, f64)], tol: f64) -> (usize, usize) {
    let (mut together, mut resumed) = (0, 0);
    for (i, a) in cued.iter().enumerate() {
        for b in &cued[i + 1..] {
            if a.0 != b.0 && (a.1 - b.1).abs() <= tol {
                together += 1;
                if (a.2 - b.2).abs() <= tol {
                    resumed += 1;
                }
            }
        }
    }
    (together, resumed)
}

fn check_retry_after(logical: &[Logical], plan: &Policy, tol: f64) -> Check {
    let mut n = 0;
    let mut early: Vec<(f64, f64)> = Vec::new();
    let mut extra: Vec<f64> = Vec::new();
    let mut cued: Vec<(usize, f64, f64)> = Vec::new();
    for (li, retry, prev) in retries(logical) {
        let Some(ra) = prev.retry_after_ms else {
            continue;
        };
        n += 1;
        let waited = retry.start - prev.end;
        if waited + tol < ra {
            early.push((waited, ra));
        }
        extra.push(waited - ra);
        cued.push((li, prev.end + ra, retry.start));
    }
    if n == 0 {
        return Check {
            name: "retry_after_honoured",
            ok: true,
            detail: "no retry followed a response with Retry-After".into(),
        };
    }
    extra.sort_by(f64::total_cmp);
    let (together, resumed) = in_step(&cued, tol);
    let spread_missing =
        plan.retry.retry_after_spread_ms > 0 && together > 0 && resumed * 2 > together;
    let mut detail = format!(
        "{n} retries after a Retry-After; waited {} to {} beyond it",
        ms_text(extra[0]),
        ms_text(extra[extra.len() - 1])
    );
    if let Some((waited, ra)) = early.first() {
        detail.push_str(&format!(
            "; {} came early (first: after {} of a {} Retry-After)",
            early.len(),
            ms_text(*waited),
            ms_text(*ra)
        ));
    }
    if together > 0 {
        detail.push_str(&format!(
            "; of {together} pairs of workers told to return at the same moment, {resumed} returned together (plan: spread 0–{} ms)",
            plan.retry.retry_after_spread_ms
        ));
    }
    Check {
        name: "retry_after_honoured",
        ok: early.is_empty() && !spread_missing,
        detail,
    }
}

fn check_attempt_cap(logical: &[Logical], plan: &Policy) -> Check {
    let cap = plan.retry.max_attempts as usize;
    let over = logical.iter().filter(|l| l.attempts.len() > cap).count();
    let most = logical.iter().map(|l| l.attempts.len()).max().unwrap_or(0);
    Check {
        name: "attempt_cap",
        ok: over == 0,
        detail: format!(
            "at most {most} attempts for one request (every layer together), plan: at most {cap}{}",
            if over > 0 {
                format!("; {over} requests went over")
            } else {
                String::new()
            }
        ),
    }
}

fn check_deadline(logical: &[Logical], plan: &Policy, tol: f64) -> Check {
    let deadline = plan.retry.deadline_ms as f64;
    let mut longest: f64 = 0.0;
    let mut late = 0;
    for l in logical {
        let (Some(first), Some(last)) = (l.attempts.first(), l.attempts.last()) else {
            continue;
        };
        // A new attempt must not start after the deadline.
        let span = last.start - first.start;
        longest = longest.max(span);
        if span > deadline + tol {
            late += 1;
        }
    }
    Check {
        name: "deadline",
        ok: late == 0,
        detail: format!(
            "last attempt at most {} after the first, plan: within {} ms{}",
            ms_text(longest),
            plan.retry.deadline_ms,
            if late > 0 {
                format!("; {late} requests started an attempt past it")
            } else {
                String::new()
            }
        ),
    }
}

/// Retries closer than this are in step, whatever the tolerance: timers of one process firing
/// together, a few ms apart at most (measured: six threads of one Python client, refused within
/// 2 ms and waiting the same delay, resumed within 1 ms); full jitter over a one-second window
/// puts two given retries this close 1 % of the time.
pub const IN_STEP_MS: f64 = 5.0;

/// One retry: its logical request, when the failure before it ended, when it started.
#[derive(Debug, Clone, Copy)]
struct Resume {
    logical: usize,
    refused: f64,
    resumed: f64,
}

/// Retries answering one wave of refusals (failures of other logical requests that ended within
/// `wave` of each other) that resumed within `step` of one of them: (retries in a wave, of them
/// in step). Whatever the refusals' own spread: workers refused 300 ms apart and resuming at one
/// instant are synchronised as much as workers refused together.
fn in_waves(resumes: &[Resume], wave: f64, step: f64) -> (usize, usize) {
    let mut by_refusal: Vec<&Resume> = resumes.iter().collect();
    by_refusal.sort_by(|a, b| a.refused.total_cmp(&b.refused));
    let (mut in_wave, mut in_step) = (0, 0);
    for (i, a) in by_refusal.iter().enumerate() {
        let near = |b: &&&Resume| b.logical != a.logical && (b.refused - a.refused).abs() <= wave;
        let before = by_refusal[..i]
            .iter()
            .rev()
            .take_while(|b| a.refused - b.refused <= wave);
        let after = by_refusal[i + 1..]
            .iter()
            .take_while(|b| b.refused - a.refused <= wave);
        let partners: Vec<&&Resume> = before.chain(after).filter(near).collect();
        if partners.is_empty() {
            continue;
        }
        in_wave += 1;
        if partners
            .iter()
            .any(|b| (b.resumed - a.resumed).abs() <= step)
        {
            in_step += 1;
        }
    }
    (in_wave, in_step)
}

/// Workers refused together must not come back together: retries without a Retry-After whose
/// refusals and resumes both fall within the tolerance of another worker's, and any retries
/// (Retry-After or not) answering one wave of refusals (within the plan's first backoff window)
/// that resume within [`IN_STEP_MS`] of each other. Either, for most of the retries concerned,
/// fails the check.
fn check_jitter(logical: &[Logical], plan: &Policy, tol: f64) -> Check {
    let mut cued: Vec<(usize, f64, f64)> = Vec::new();
    let mut resumes: Vec<Resume> = Vec::new();
    let mut waits: Vec<f64> = Vec::new();
    for (li, retry, prev) in retries(logical) {
        resumes.push(Resume {
            logical: li,
            refused: prev.end,
            resumed: retry.start,
        });
        waits.push(retry.start - prev.end);
        if prev.retry_after_ms.is_none() {
            cued.push((li, prev.end, retry.start));
        }
    }
    if resumes.is_empty() {
        return Check {
            name: "jitter",
            ok: true,
            detail: "no retry to judge".into(),
        };
    }
    let (together, resumed) = in_step(&cued, tol);
    let wave = (plan.retry.windows_ms.first().copied())
        .unwrap_or(plan.retry.base_ms)
        .max(1) as f64;
    let wave = wave.max(tol);
    let (in_wave, stepped) = in_waves(&resumes, wave, IN_STEP_MS);
    let backoff_ok = together == 0 || resumed * 2 <= together;
    let waves_ok = stepped < 2 || stepped * 2 <= in_wave;
    let ok = backoff_ok && waves_ok;
    waits.sort_by(f64::total_cmp);
    let mut detail = format!(
        "{} retries (waits {} to {})",
        resumes.len(),
        ms_text(waits[0]),
        ms_text(waits[waits.len() - 1])
    );
    if together > 0 {
        detail.push_str(&format!(
            "; of {together} pairs of workers refused together without a Retry-After, {resumed} retried together"
        ));
    }
    if in_wave == 0 {
        detail.push_str(&format!(
            "; no two workers were refused within {} of each other",
            ms_text(wave)
        ));
    } else {
        detail.push_str(&format!(
            "; of {in_wave} retries answering a wave of refusals (within {}), {stepped} resumed within {} of another worker's",
            ms_text(wave),
            ms_text(IN_STEP_MS)
        ));
    }
    if !ok {
        detail.push_str(": synchronised retries (no jitter)");
    }
    Check {
        name: "jitter",
        ok,
        detail,
    }
}

fn check_idempotency(logical: &[Logical], plan: &Policy) -> Check {
    let unsafe_method = |m: &str| {
        !plan
            .retry
            .retry_methods
            .iter()
            .any(|x| x.eq_ignore_ascii_case(m))
    };
    let (mut retried, mut keyless, mut changed) = (0, 0, 0);
    for l in logical.iter().filter(|l| l.attempts.len() > 1) {
        if !unsafe_method(&l.method) {
            continue;
        }
        retried += 1;
        let first = l.attempts[0].key.as_ref();
        if l.attempts.iter().any(|a| a.key.is_none()) {
            keyless += 1;
        } else if l.attempts.iter().any(|a| a.key.as_ref() != first) {
            changed += 1;
        }
    }
    let ok = keyless == 0 && changed == 0;
    Check {
        name: "idempotency",
        ok,
        detail: if retried == 0 {
            "no write (a method outside the plan's retry_methods) was retried".into()
        } else if ok {
            format!("{retried} retried writes, each with one stable idempotency key")
        } else {
            format!(
                "{retried} retried writes: {keyless} without an idempotency key, {changed} with a new key on a retry (the server sees a new operation)"
            )
        },
    }
}

/// `667 ms`, `1.25 s`.
pub fn ms_text(ms: f64) -> String {
    if ms.abs() >= 10_000.0 {
        format!("{} s", (ms / 100.0).round() / 10.0)
    } else if ms.abs() >= 1000.0 {
        format!("{} s", (ms / 10.0).round() / 100.0)
    } else {
        format!("{} ms", r1(ms))
    }
}

#[cfg(test)]
mod tests;
