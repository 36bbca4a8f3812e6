//! The action (slow down, stop or reschedule, fix the client) and the warnings other findings
//! add to it.

use super::backoff::Backoff;
use super::evidence::{HostEvidence, Span};
use super::limit::LimitInfo;
use super::target::{fmt_rate, fmt_s, round6};
use super::Action;
use crate::detect::Finding;
use crate::units::fmt_duration_ms;
use chrono::{DateTime, Utc};

/// The action for one host, with the sentences and warnings that explain it.
pub(crate) struct Decided {
    pub action: Action,
    pub resume_at: Option<DateTime<Utc>>,
}

pub(crate) fn decide(
    ev: &HostEvidence,
    findings: &[Finding],
    limit: Option<&LimitInfo>,
    concurrency: Option<u32>,
    b: &Backoff,
    rationale: &mut Vec<String>,
    warnings: &mut Vec<String>,
) -> Decided {
    // 5. The action.
    let finding = |k: &str| findings.iter().any(|f| f.kind == k);
    let daily = ev.limited.daily;
    let exhausted = daily || finding("quota_exhausted");
    let deadline_s = b.deadline_ms as f64 / 1000.0;
    // The typical (median) Retry-After decides: with a fixed window, the 429s near its start ask
    // for nearly the whole window while most ask for less, and one long wait should not turn
    // "slow down" into "stop". A value too large to represent counts as infinite.
    let mut ras: Vec<f64> = ev.limited.waits.clone();
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
    let resume_at = ev.limited.resume_at;
    let avg = average_rate(&ev.starts);
    let client_fault = finding("burst") || finding("retry_storm");

    // A burst or retry storm whose average stays under the limit is fixed by pacing the client,
    // even when the window's Retry-After is longer than the deadline (a fixed window refuses the
    // tail of a burst until the window ends): the long waits are a consequence, not the fix.
    let fix_first = !exhausted && client_fault && avg_under_limit(avg, limit);
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
            limit.map(|l| format!(", under the {} limit", fmt_rate(l.rate_per_second))).unwrap_or_default(),
            kinds.join(" and ")
        ));
        Action::FixClient
    } else {
        if let (Some((a, _)), Some(l)) = (avg, limit) {
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
    if finding("concurrency_limit") || ev.limited.concurrency {
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

    Decided { action, resume_at }
}

/// The host's average start rate over the capture: (requests per second, span seconds).
fn average_rate(starts: &Span) -> Option<(f64, f64)> {
    let (a, b) = (starts.first?, starts.last?);
    let span = (b - a).num_milliseconds() as f64 / 1000.0;
    if span <= 0.0 {
        return None;
    }
    Some((starts.count as f64 / span, span))
}

fn avg_under_limit(avg: Option<(f64, f64)>, limit: Option<&LimitInfo>) -> bool {
    match (avg, limit) {
        (Some((a, _)), Some(l)) => a <= l.rate_per_second,
        // Nothing to compare with: the detectors' verdict stands.
        _ => true,
    }
}
