//! The allowance the target is taken from: `--limit`, else rate-limit headers, else the
//! throughput the server accepted.

use super::evidence::HostEvidence;
use super::target::{floor_sig, fmt_s};
use super::{OBSERVED_MIN_ACCEPTED, OBSERVED_MIN_WINDOW_S, SATURATED_OVER_EARLY};
use crate::units::{fmt_num, Rate};
use serde::{Deserialize, Serialize};

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

/// The first of `--limit`, the headers and the traffic that gives a limit.
pub fn limit_for(
    flag: Option<Rate>,
    ev: &HostEvidence,
    warnings: &mut Vec<String>,
) -> Option<LimitInfo> {
    limit_from_flag(flag)
        .or_else(|| limit_from_headers(ev))
        .or_else(|| limit_from_traffic(ev, warnings))
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
fn limit_from_headers(ev: &HostEvidence) -> Option<LimitInfo> {
    let (rate, limit, window, n) = ev.limited.tightest?;
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
fn limit_from_traffic(ev: &HostEvidence, warnings: &mut Vec<String>) -> Option<LimitInfo> {
    let first = ev.limited.first?;
    let (accepted, earliest) = ev.before_first_limited.get();
    // The reading before the first 429, per minute (0 when nothing was accepted before it).
    let early_per_minute = match earliest {
        Some(start) => {
            let span_s = (first - start).num_milliseconds().max(0) as f64 / 1000.0;
            accepted as f64 * 60.0 / span_s.max(OBSERVED_MIN_WINDOW_S)
        }
        None => 0.0,
    };
    // An early first 429 leaves too little to read a limit from (a dashboard whose second poll
    // was limited would be told 1/min): when the server went on to accept at least twice as
    // much per minute in the minutes it was refusing others, that is what it allows.
    if let Some(l) = limit_from_saturated_minutes(ev, accepted)
        .filter(|l| l.rate_per_minute >= SATURATED_OVER_EARLY * early_per_minute)
    {
        warnings.push(
            "the limit was estimated from the traffic the server accepted while it was rate-limiting, not stated by the server: confirm it in the provider's documentation and pass --limit".into(),
        );
        return Some(l);
    }
    let Some(start) = earliest else {
        warnings.push(
            "the very first request was already rate-limited: there is no throughput to learn the limit from; pass --limit".into(),
        );
        return None;
    };
    let n = accepted as f64;
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
fn limit_from_saturated_minutes(ev: &HostEvidence, before_first: usize) -> Option<LimitInfo> {
    let accepted = ev.minutes.saturated();
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
