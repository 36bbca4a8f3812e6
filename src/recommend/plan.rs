//! `toomany plan`: N requests under an allowance, with headroom: how fast, how many in flight,
//! how long, and whether it fits a deadline.

use super::{
    backoff, concurrency_for, explain_core, fmt_precise, latency, target, Backoff, BackoffOptions,
    Latency, LatencySource, LimitInfo, LimitSource, ASSUMED_LATENCY_MS,
};
use crate::units::{fmt_duration_ms, fmt_num, Rate};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq)]
pub struct PlanInput {
    pub requests: u64,
    pub limit: Rate,
    pub headroom: f64,
    /// Mean response time, ms (`--latency`).
    pub latency_ms: Option<f64>,
    /// The job's deadline, ms (`--deadline`).
    pub deadline_ms: Option<f64>,
    pub backoff: BackoffOptions,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    pub requests: u64,
    pub limit: LimitInfo,
    pub headroom: f64,
    /// For an allowance over an hour or more (a quota): what one window of it holds for the
    /// job (count × headroom).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowance_per_window: Option<f64>,
    /// The job fits in one window of a quota: the allowance sets no pace, and the rate,
    /// spacing, concurrency and duration below are `null` (the pace is other limits').
    pub fits_one_window: bool,
    pub rate_per_second: Option<f64>,
    pub rate_per_minute: Option<f64>,
    /// Spacing between request starts, ms (rounded up).
    pub min_interval_ms: Option<u64>,
    /// requests ÷ rate: the least time the job takes, not counting the response time of the
    /// last requests and any retries, s.
    pub duration_s: Option<f64>,
    /// The same at the full allowance (no headroom): nothing can be faster, s.
    pub duration_at_full_allowance_s: Option<f64>,
    pub latency: Latency,
    pub concurrency: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadline_s: Option<f64>,
    /// `null` without `--deadline`.
    pub fits_deadline: Option<bool>,
    /// Most requests that fit in the deadline at the target rate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_requests_in_deadline: Option<u64>,
    /// Allowance needed (before headroom) to finish within the deadline, per minute.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit_needed_per_minute: Option<f64>,
    pub backoff: Backoff,
    pub rationale: Vec<String>,
    pub warnings: Vec<String>,
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

pub fn plan(input: &PlanInput) -> Plan {
    let mut rationale = Vec::new();
    let mut warnings = Vec::new();
    let limit = given_limit(input.limit);
    let lat = latency(input.latency_ms, &super::evidence::Durations::default());
    let b = backoff(&input.backoff, lat.mean_ms);
    let quota = input.limit.window_s >= 3600.0;
    let budget = (input.limit.count_per_window() * input.headroom).floor();
    if quota && input.requests as f64 <= budget {
        return fits_one_window(input, limit, budget, lat, b);
    }
    let t = target(input.limit, input.headroom);
    if lat.source == LatencySource::Assumed {
        warnings.push(format!(
            "no --latency given: concurrency assumes a mean response time of {}",
            fmt_duration_ms(ASSUMED_LATENCY_MS)
        ));
    }
    let concurrency = concurrency_for(t.rate_per_second, lat.mean_ms);
    let n = input.requests as f64;
    // Exact rates for the arithmetic; the rounded ones are for display.
    let exact_rps = input.limit.per_second * input.headroom;
    let duration_s = round3(n / exact_rps);
    let full_s = round3(n / input.limit.per_second);
    rationale.push(limit_line(input.limit, &limit));
    explain_core(
        &limit,
        input.headroom,
        &t,
        &lat,
        concurrency,
        &b,
        &mut rationale,
    );
    rationale.push(format!(
        "Duration ≥ requests ÷ rate = {} ÷ {}/s = {} s ({}), plus the response time of the last requests and any retries; even at the full allowance ({}/s) it takes at least {}.",
        input.requests,
        fmt_precise(t.rate_per_second),
        fmt_num(duration_s),
        fmt_duration_ms(duration_s * 1000.0),
        fmt_num(input.limit.per_second),
        fmt_duration_ms(full_s * 1000.0)
    ));
    if quota {
        warnings.push(spans_windows(input, budget));
    }
    let pace = Pace {
        duration_s,
        full_s,
        exact_rps,
        per_minute: t.rate_per_minute,
    };
    let deadline = input
        .deadline_ms
        .map(|d_ms| against_deadline(input, d_ms, &pace, &mut rationale, &mut warnings));
    Plan {
        requests: input.requests,
        limit,
        headroom: input.headroom,
        allowance_per_window: quota.then_some(budget),
        fits_one_window: false,
        rate_per_second: Some(t.rate_per_second),
        rate_per_minute: Some(t.rate_per_minute),
        min_interval_ms: Some(t.min_interval_ms),
        duration_s: Some(duration_s),
        duration_at_full_allowance_s: Some(full_s),
        latency: lat,
        concurrency: Some(concurrency),
        deadline_s: input.deadline_ms.map(|d| d / 1000.0),
        fits_deadline: deadline.as_ref().map(|d| d.fits),
        max_requests_in_deadline: deadline.as_ref().map(|d| d.max_requests),
        limit_needed_per_minute: deadline.map(|d| d.needed_per_minute),
        backoff: b,
        rationale,
        warnings,
    }
}

/// The limit as `--limit` gave it.
fn given_limit(given: Rate) -> LimitInfo {
    LimitInfo {
        rate_per_second: given.per_second,
        rate_per_minute: given.per_minute(),
        window_s: given.window_s,
        source: LimitSource::Flag,
        detail: format!("given with --limit {given}"),
        confidence: None,
        stated_by: None,
    }
}

/// "Limit: …": the limit as written, then per minute and per second, each form once.
fn limit_line(given: Rate, limit: &LimitInfo) -> String {
    let mut forms = vec![given.to_string()];
    for f in [
        format!("{}/min", fmt_precise(limit.rate_per_minute)),
        format!("{}/s", fmt_precise(limit.rate_per_second)),
    ] {
        if !forms.contains(&f) {
            forms.push(f);
        }
    }
    format!("Limit: {} ({}).", forms.join(" = "), limit.detail)
}

/// The warning for a job over more than one window of a quota: each window's budget is spread.
fn spans_windows(input: &PlanInput, budget: f64) -> String {
    let n = input.requests as f64;
    format!(
        "{} requests are more than {} × {} = {} allowed per {}: the job spans {} windows of the allowance, so the plan spreads each window's {} evenly over it",
        input.requests,
        fmt_num(input.limit.count_per_window()),
        fmt_num(input.headroom),
        fmt_num(budget),
        fmt_duration_ms(input.limit.window_s * 1000.0).replace("24 h", "day"),
        (n / budget.max(1.0)).ceil(),
        fmt_num(budget)
    )
}

/// The job's pace: its least duration at the target rate and at the full allowance (s), the
/// exact target rate (per second) and the displayed one (per minute).
struct Pace {
    duration_s: f64,
    full_s: f64,
    exact_rps: f64,
    per_minute: f64,
}

/// What `--deadline` says of the job.
struct DeadlineFit {
    fits: bool,
    /// Most requests that fit in the deadline at the target rate.
    max_requests: u64,
    /// Allowance needed (before headroom) to finish within it, per minute.
    needed_per_minute: f64,
}

/// The job against its deadline `d_ms`: a line of rationale when it fits, else a warning with
/// what would work.
fn against_deadline(
    input: &PlanInput,
    d_ms: f64,
    at: &Pace,
    rationale: &mut Vec<String>,
    warnings: &mut Vec<String>,
) -> DeadlineFit {
    let n = input.requests as f64;
    let Pace {
        duration_s,
        full_s,
        exact_rps,
        per_minute,
    } = *at;
    let d_s = d_ms / 1000.0;
    let ok = duration_s <= d_s + 1e-9;
    let fit_n = (exact_rps * d_s + 1e-9).floor() as u64;
    let need_pm = round3(n / d_s / input.headroom * 60.0);
    if ok {
        rationale.push(format!(
            "Fits the {} deadline: {} ≤ {}.",
            fmt_duration_ms(d_ms),
            fmt_duration_ms(duration_s * 1000.0),
            fmt_duration_ms(d_ms)
        ));
    } else {
        let runs = (duration_s / d_s - 1e-9).ceil();
        warnings.push(format!(
            "the deadline cannot be met: {} requests at {}/min need {}, more than {}{}. What would work: at most {} requests in {} at this rate; or an allowance of at least {} (at headroom {}); or reschedule: split the job into {} runs of about {} requests",
            input.requests,
            fmt_precise(per_minute),
            fmt_duration_ms(duration_s * 1000.0),
            fmt_duration_ms(d_ms),
            if full_s > d_s { format!(" (even the full allowance needs {})", fmt_duration_ms(full_s * 1000.0)) } else { String::new() },
            fit_n,
            fmt_duration_ms(d_ms),
            Rate::new((n / d_s / input.headroom * input.limit.window_s - 1e-9).ceil(), input.limit.window_s),
            fmt_num(input.headroom),
            runs,
            (n / runs).ceil()
        ));
    }
    DeadlineFit {
        fits: ok,
        max_requests: fit_n,
        needed_per_minute: need_pm,
    }
}

/// A job that fits in one window of a quota (600 requests under 10000/day): the allowance is a
/// budget, not a pace, so nothing is paced by it (no 600 starts one every 11.5 s).
fn fits_one_window(
    input: &PlanInput,
    limit: LimitInfo,
    budget: f64,
    lat: Latency,
    b: Backoff,
) -> Plan {
    let window = fmt_duration_ms(input.limit.window_s * 1000.0).replace("24 h", "day");
    let mut rationale = vec![format!(
        "Allowance: {} × headroom {} = {} per {window} for this job; {} requests use {} of it ({} %), so the job fits in one window and this allowance sets no pace: send them at the pace the per-second or per-minute limits allow (give that limit with --limit to plan it), and leave the rest for other work.",
        input.limit,
        fmt_num(input.headroom),
        fmt_num(budget),
        input.requests,
        input.requests,
        fmt_num((input.requests as f64 / budget * 100.0).round())
    )];
    super::explain_backoff(&b, &mut rationale);
    let mut warnings = Vec::new();
    if let Some(d) = input.deadline_ms {
        warnings.push(format!(
            "--deadline {}: this allowance does not bound how long the job takes (it is a budget, not a pace); the per-second or per-minute limit does",
            fmt_duration_ms(d)
        ));
    }
    Plan {
        requests: input.requests,
        limit,
        headroom: input.headroom,
        allowance_per_window: Some(budget),
        fits_one_window: true,
        rate_per_second: None,
        rate_per_minute: None,
        min_interval_ms: None,
        duration_s: None,
        duration_at_full_allowance_s: None,
        latency: lat,
        concurrency: None,
        deadline_s: input.deadline_ms.map(|d| d / 1000.0),
        fits_deadline: None,
        max_requests_in_deadline: None,
        limit_needed_per_minute: None,
        backoff: b,
        rationale,
        warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(
        requests: u64,
        limit: &str,
        latency: Option<&str>,
        deadline: Option<&str>,
    ) -> PlanInput {
        PlanInput {
            requests,
            limit: Rate::parse(limit).unwrap(),
            headroom: 0.75,
            latency_ms: latency.map(|l| crate::units::parse_duration_ms(l).unwrap()),
            deadline_ms: deadline.map(|d| crate::units::parse_duration_ms(d).unwrap()),
            backoff: BackoffOptions::default(),
        }
    }

    #[test]
    fn the_brief_example() {
        let p = plan(&input(600, "120/min", Some("2s"), None));
        assert_eq!(p.rate_per_minute, Some(90.0));
        assert_eq!(p.rate_per_second, Some(1.5));
        assert_eq!(p.min_interval_ms, Some(667));
        assert_eq!(p.duration_s, Some(400.0));
        assert_eq!(p.duration_at_full_allowance_s, Some(300.0));
        assert_eq!(p.concurrency, Some(3));
        assert_eq!(p.fits_deadline, None);
        assert!(
            p.rationale.iter().any(|r| r.contains("1.5/s × 2 s = 3")),
            "{:?}",
            p.rationale
        );
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    }

    #[test]
    fn deadline_missed_says_what_would_fit() {
        let p = plan(&input(600, "120/min", Some("2s"), Some("5m")));
        assert_eq!(p.fits_deadline, Some(false));
        assert_eq!(p.max_requests_in_deadline, Some(450));
        // 600 / 300 s / 0.75 = 2.667/s = 160/min.
        assert_eq!(p.limit_needed_per_minute, Some(160.0));
        let w = p.warnings.join("\n");
        assert!(w.contains("at most 450 requests"), "{w}");
        assert!(w.contains("160/min"), "{w}");
        assert!(w.contains("2 runs"), "{w}");
        let ok = plan(&input(600, "120/min", Some("2s"), Some("10m")));
        assert_eq!(ok.fits_deadline, Some(true));
        assert!(ok.warnings.is_empty());
    }

    #[test]
    fn assumed_latency_is_said() {
        let p = plan(&input(10, "2/s", None, None));
        assert_eq!(p.latency.source, LatencySource::Assumed);
        assert_eq!(p.concurrency, Some(2)); // 1.5/s × 1 s → 2
        assert!(!p.warnings.is_empty());
    }

    #[test]
    fn daily_allowance_spanning_windows_warns() {
        let p = plan(&input(20_000, "10000/day", Some("200ms"), None));
        assert_eq!(p.rate_per_minute, Some(5.20833333)); // 7500/day
        assert!(
            p.warnings.iter().any(|w| w.contains("spans 3 windows")),
            "{:?}",
            p.warnings
        );
    }

    #[test]
    fn a_job_that_fits_a_daily_allowance_is_not_paced_by_it() {
        // 600 requests under 10000/day were paced one per 11.5 s.
        let p = plan(&input(600, "10000/day", Some("200ms"), Some("10m")));
        assert!(p.fits_one_window);
        assert_eq!(p.allowance_per_window, Some(7500.0));
        assert_eq!((p.rate_per_second, p.min_interval_ms), (None, None));
        assert_eq!(
            (p.concurrency, p.duration_s, p.fits_deadline),
            (None, None, None)
        );
        assert!(p.rationale[0].contains("sets no pace"), "{:?}", p.rationale);
        assert!(crate::recommend::config::Policy::from_plan(&p).is_err());
    }
}
