//! The action (slow down, stop or reschedule, fix the client), the retry deadline it implies,
//! and the warnings other findings add to it.
//!
//! One action per host, and every number under it follows from it: a spent allowance or a wait
//! too long for a retry loop means stop until the resume time (the target is then how to
//! spread the allowance after it); otherwise the plan paces, and its deadline is never shorter
//! than the waits the server stated unless it says to stop for those.

use super::backoff::Backoff;
use super::evidence::{HostEvidence, Span};
use super::limit::LimitInfo;
use super::target::{ceil, fmt_rate, fmt_s};
use super::Action;
use crate::detect::Finding;
use crate::units::fmt_duration_ms;
use chrono::{DateTime, Utc};

/// The longest Retry-After a retry loop waits out (the deadline is raised to fit it); a longer
/// typical wait means stop and reschedule.
pub const MAX_RETRY_WAIT_S: f64 = 120.0;

/// The action for one host.
pub(crate) struct Decided {
    pub action: Action,
    pub resume_at: Option<DateTime<Utc>>,
    /// The longest wait the server stated that the retry deadline was sized to cover, s.
    pub stated_wait_s: Option<f64>,
}

/// The server's stated waits, sorted (infinite: too large to represent).
struct Waits(Vec<f64>);

impl Waits {
    fn of(ev: &HostEvidence) -> Waits {
        let mut w = ev.limited.waits.clone();
        w.sort_by(f64::total_cmp);
        Waits(w)
    }

    /// The typical (median) wait: with a fixed window, the 429s near its start ask for nearly
    /// the whole window while most ask for less, and one long wait should not decide.
    fn median(&self) -> Option<f64> {
        self.0.get(self.0.len() / 2).copied()
    }

    /// The longest wait a retry loop can take ([`MAX_RETRY_WAIT_S`] at most).
    fn longest_loopable(&self) -> Option<f64> {
        self.0
            .iter()
            .rev()
            .copied()
            .find(|s| *s <= MAX_RETRY_WAIT_S)
    }

    fn longer_than(&self, s: f64) -> usize {
        self.0.iter().filter(|w| **w > s).count()
    }
}

fn wait_text(s: f64) -> String {
    if s.is_finite() {
        fmt_s(s)
    } else {
        "longer than can be represented".into()
    }
}

/// Decide the action, and size the retry deadline to it (`deadline_given`: the user chose it
/// with `--retry-deadline`, so it is kept and the longer waits are told to stop instead).
pub(crate) fn decide(
    ev: &HostEvidence,
    findings: &[Finding],
    limit: Option<&LimitInfo>,
    b: &mut Backoff,
    deadline_given: bool,
    rationale: &mut Vec<String>,
    warnings: &mut Vec<String>,
) -> Decided {
    let finding = |k: &str| findings.iter().any(|f| f.kind == k);
    let daily = ev.limited.daily;
    let exhausted = daily || finding("quota_exhausted");
    let waits = Waits::of(ev);
    let long_wait = waits.median().is_some_and(|m| m > MAX_RETRY_WAIT_S);
    let resume_at = ev.limited.resume_at;
    let avg = average_rate(&ev.starts);
    let client_fault = finding("burst") || finding("retry_storm");
    // A burst or retry storm whose average stays under the limit is fixed by pacing the client,
    // even when the window's Retry-After is long (a fixed window refuses the tail of a burst
    // until the window ends): the long waits are a consequence, not the fix.
    let fix_first = !exhausted && client_fault && avg_under_limit(avg, limit);

    if exhausted || (long_wait && !fix_first) {
        if exhausted {
            rationale.push(format!(
                "The allowance is exhausted ({}): slowing down does not bring it back, and a retry before it resets is refused again; stop and run the rest after it resets{}. The target below is how to spread the allowance once it is back.",
                if daily { "a daily/long-window quota" } else { "quota_exhausted finding" },
                resume_at
                    .map(|t| format!(" (expected at {} UTC)", t.format("%Y-%m-%d %H:%M:%S")))
                    .unwrap_or_default()
            ));
        } else {
            rationale.push(format!(
                "The server typically asked to wait {} (median Retry-After), longer than a retry loop should wait ({} at most): do not wait in a loop and do not shorten the wait; stop and reschedule{}.",
                wait_text(waits.median().unwrap_or(f64::INFINITY)),
                fmt_s(MAX_RETRY_WAIT_S),
                resume_at
                    .map(|t| format!(" for {} UTC", t.format("%Y-%m-%d %H:%M:%S")))
                    .unwrap_or_default()
            ));
        }
        return Decided {
            action: Action::StopOrReschedule,
            resume_at,
            stated_wait_s: None,
        };
    }

    let stated_wait_s = fit_deadline(&waits, b, deadline_given, rationale, warnings);
    let action = if fix_first {
        let kinds: Vec<&str> = ["burst", "retry_storm"]
            .into_iter()
            .filter(|k| finding(k))
            .collect();
        rationale.push(format!(
            "The clients averaged {} over the capture{}, but the 429s come from {}: pace request starts at the target and cap retries instead of sending in bursts.",
            avg.map(|(r, _)| fmt_rate(r)).unwrap_or_else(|| "an unknown rate".into()),
            limit.map(|l| format!(", under the {} limit", fmt_rate(l.rate_per_second))).unwrap_or_default(),
            kinds.join(" and ")
        ));
        Action::FixClient
    } else {
        if let (Some((a, _)), Some(l)) = (avg, limit) {
            if a > l.rate_per_second {
                rationale.push(format!(
                    "The clients averaged {}, above the {} limit: slow down to the target.",
                    fmt_rate(a),
                    fmt_rate(l.rate_per_second)
                ));
            }
        }
        Action::SlowDown
    };
    Decided {
        action,
        resume_at: None,
        stated_wait_s,
    }
}

/// A pacing plan waits out the server's Retry-After: the deadline is raised to the longest
/// stated wait (up to [`MAX_RETRY_WAIT_S`]) plus the spread, unless the user chose it; every
/// wait still longer than the deadline is a "stop" for that request. Returns the wait the
/// deadline was sized to.
fn fit_deadline(
    waits: &Waits,
    b: &mut Backoff,
    deadline_given: bool,
    rationale: &mut Vec<String>,
    warnings: &mut Vec<String>,
) -> Option<f64> {
    let longest = waits.longest_loopable()?;
    if b.retries() == 0 {
        return None;
    }
    let needed_ms =
        (ceil((longest * 1000.0 + b.retry_after_spread_ms as f64) / 1000.0) * 1000.0) as u64;
    if needed_ms > b.deadline_ms && !deadline_given {
        rationale.push(format!(
            "Deadline: {} instead of {}, so the longest Retry-After the server stated ({}) plus the spread (0–{}) fits: with a shorter one the client would give up at once on every such 429 instead of waiting as told.",
            fmt_duration_ms(needed_ms as f64),
            fmt_duration_ms(b.deadline_ms as f64),
            fmt_s(longest),
            fmt_duration_ms(b.retry_after_spread_ms as f64)
        ));
        b.deadline_ms = needed_ms;
    }
    // A wait plus the spread past the deadline makes the client give up at once.
    let deadline_s = b.deadline_ms as f64 / 1000.0;
    let room_s = (b.deadline_ms as f64 - b.retry_after_spread_ms as f64) / 1000.0;
    let over = waits.longer_than(room_s);
    if over > 0 {
        let most = waits.0.last().copied().unwrap_or(f64::INFINITY);
        warnings.push(format!(
            "{over} of {} rate-limited responses asked to wait longer than the {} retry deadline{} leaves after the 0–{} spread (up to {}): stop retrying those and reschedule them, do not shorten the wait",
            waits.0.len(),
            fmt_duration_ms(b.deadline_ms as f64),
            if deadline_given { " you chose" } else { "" },
            fmt_duration_ms(b.retry_after_spread_ms as f64),
            wait_text(most)
        ));
    }
    Some(longest.min(deadline_s))
}

/// The warnings the other findings add to the plan.
pub(crate) fn finding_warnings(
    ev: &HostEvidence,
    findings: &[Finding],
    concurrency: Option<u32>,
    warnings: &mut Vec<String>,
) {
    let finding = |k: &str| findings.iter().any(|f| f.kind == k);
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
