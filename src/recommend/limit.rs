//! The allowance the target is taken from: `--limit`, else rate-limit headers, else the
//! throughput the server accepted.

use super::evidence::{HostEvidence, WindowCount, CANDIDATE_WINDOWS_S};
use super::target::{floor_sig, fmt_s};
use super::{OBSERVED_MIN_ACCEPTED, OBSERVED_MIN_WINDOW_S, SATURATED_OVER_EARLY};
use crate::units::{fmt_num, Rate};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LimitSource {
    /// `--limit`.
    Flag,
    /// Stated by the server: rate-limit headers, or a 429 body's "120 requests per minute"
    /// (`stated_by` names which).
    Stated,
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
    /// How sure an estimate from the traffic is (absent for `--limit` and headers, which state
    /// the limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<Sureness>,
    /// For a stated limit: the header or body phrase that stated it (`X-RateLimit-Limit: 120
    /// and the body: "120 requests per minute"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stated_by: Option<String>,
}

/// How sure a limit read from the traffic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Sureness {
    /// One window length fits how the server accepted and refused; the others are ruled out.
    High,
    /// Several window lengths fit; the slowest reading is used.
    Medium,
    /// None fits (other callers share the allowance, or it is not a count per window), or the
    /// capture is shorter than the window: a reading, not a measurement.
    Low,
}

impl Sureness {
    pub fn as_str(&self) -> &'static str {
        match self {
            Sureness::High => "high",
            Sureness::Medium => "medium",
            Sureness::Low => "low",
        }
    }
}

/// The first of `--limit`, the headers and the traffic that gives a limit.
pub fn limit_for(
    flag: Option<(Rate, String)>,
    ev: &HostEvidence,
    warnings: &mut Vec<String>,
) -> Option<LimitInfo> {
    limit_from_flag(flag)
        .or_else(|| limit_from_stated(ev))
        .or_else(|| limit_from_traffic(ev, warnings))
}

fn limit_from_flag(given: Option<(Rate, String)>) -> Option<LimitInfo> {
    let (r, flag) = given?;
    Some(LimitInfo {
        rate_per_second: r.per_second,
        rate_per_minute: floor_sig(r.per_minute()),
        window_s: r.window_s,
        source: LimitSource::Flag,
        detail: format!("given with {flag}"),
        confidence: None,
        stated_by: None,
    })
}

/// The tightest request allowance the server stated (rate-limit headers, a 429 body's "120
/// requests per minute"), with what stated it. A count stated without any window takes the
/// window length in which the traffic shows that same count (the server accepted about that
/// many in one and refused past it); with none, it is not a rate (5000 may be per hour), and
/// the traffic's own estimate stands.
fn limit_from_stated(ev: &HostEvidence) -> Option<LimitInfo> {
    let (s, window, window_from) = match (&ev.limited.tightest, &ev.limited.count_only) {
        (Some(s), _) => (s, s.window_s, None),
        (None, Some(s)) => (
            s,
            window_for_count(ev, s.count)?,
            Some("the window in which the traffic shows that count"),
        ),
        (None, None) => return None,
    };
    let rate = s.count / window;
    let n = s.responses;
    Some(LimitInfo {
        rate_per_second: rate,
        rate_per_minute: floor_sig(rate * 60.0),
        window_s: window,
        source: LimitSource::Stated,
        detail: match window_from {
            None => format!(
                "stated by the server: {} request{} per {} ({}, on {} response{})",
                fmt_num(s.count),
                if s.count == 1.0 { "" } else { "s" },
                per_unit(window),
                s.by,
                n,
                if n == 1 { "" } else { "s" },
            ),
            Some(from) => format!(
                "stated by the server: {} request{} ({}, on {} response{}); per {}: {from}",
                fmt_num(s.count),
                if s.count == 1.0 { "" } else { "s" },
                s.by,
                n,
                if n == 1 { "" } else { "s" },
                per_unit(window),
            ),
        },
        confidence: None,
        stated_by: Some(s.by.clone()),
    })
}

/// What the clients achieved before the first 429. First the candidate windows
/// ([`from_windows`]); when none fits, the minutes the server was refusing in
/// ([`limit_from_saturated_minutes`]), else the most accepted in one minute before the first
/// 429.
fn limit_from_traffic(ev: &HostEvidence, warnings: &mut Vec<String>) -> Option<LimitInfo> {
    let first = ev.limited.first?;
    if ev.limited.daily {
        return limit_from_spent_quota(ev, first, warnings);
    }
    if let Some(l) = from_windows(ev) {
        warnings.push(
            "the limit was estimated from the traffic (how the server accepted and refused it), not stated by the server: confirm it in the provider's documentation and pass --limit".into(),
        );
        return Some(l);
    }
    let (accepted, earliest) = ev.before_first_limited.get();
    // The most accepted in any one minute before the first 429 (0 when nothing was accepted
    // before it); a run shorter than a minute is all of it.
    let busiest_minute = ev.windows.per_window[MINUTE].most_before_refusals;
    let early_per_minute = if earliest.is_some() {
        busiest_minute as f64
    } else {
        0.0
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
    let n = busiest_minute.max(1) as f64;
    let span_s = (first - start).num_milliseconds().max(0) as f64 / 1000.0;
    let rate = n / OBSERVED_MIN_WINDOW_S;
    warnings.push(
        "the limit was estimated from the traffic before the first 429, not stated by the server: confirm it in the provider's documentation and pass --limit".into(),
    );
    Some(LimitInfo {
        rate_per_second: rate,
        rate_per_minute: floor_sig(rate * 60.0),
        window_s: OBSERVED_MIN_WINDOW_S,
        source: LimitSource::Observed,
        detail: format!(
            "observed: at most {} requests were accepted in any {} of the {} before the first 429 at {} UTC, read as {} per {}; low confidence: no window length fits how the server accepted and refused{}",
            n,
            fmt_s(OBSERVED_MIN_WINDOW_S),
            fmt_s(span_s),
            first.format("%H:%M:%S"),
            n,
            fmt_s(OBSERVED_MIN_WINDOW_S),
            if span_s < OBSERVED_MIN_WINDOW_S { "; the run was shorter than the minute assumed" } else { "" }
        ),
        confidence: Some(Sureness::Low),
        stated_by: None,
    })
}

/// A spent long-window allowance (daily, monthly): what was accepted before it ran out, as one
/// window of the quota's length (a day; an hour when the server asked to wait an hour or
/// less). A reading of at least what was left of it when the capture began.
fn limit_from_spent_quota(
    ev: &HostEvidence,
    first: chrono::DateTime<chrono::Utc>,
    warnings: &mut Vec<String>,
) -> Option<LimitInfo> {
    let (accepted, earliest) = ev.before_first_limited.get();
    if accepted == 0 {
        warnings.push(
            "the allowance was already spent when the capture began: there is no traffic to learn its size from; pass --limit (e.g. --limit 10000/day)".into(),
        );
        return None;
    }
    let mut waits: Vec<f64> = ev
        .limited
        .waits
        .iter()
        .copied()
        .filter(|s| s.is_finite())
        .collect();
    waits.sort_by(f64::total_cmp);
    let typical_wait = waits.get(waits.len() / 2).copied().unwrap_or(f64::INFINITY);
    let window = if typical_wait <= 3600.0 {
        3600.0
    } else {
        86400.0
    };
    let span_s = earliest
        .map(|e| (first - e).num_milliseconds().max(0) as f64 / 1000.0)
        .unwrap_or(0.0);
    warnings.push(
        "the allowance's size was estimated from what the server accepted before it ran out, not stated by the server: confirm it in the provider's documentation and pass --limit".into(),
    );
    let rate = accepted as f64 / window;
    Some(LimitInfo {
        rate_per_second: rate,
        rate_per_minute: floor_sig(rate * 60.0),
        window_s: window,
        source: LimitSource::Observed,
        detail: format!(
            "observed: {accepted} requests were accepted in the {} before the allowance ran out at {} UTC, read as {accepted} per {}; low confidence: the capture does not show what was used of it before it began",
            fmt_s(span_s),
            first.format("%H:%M:%S"),
            if window == 3600.0 { "hour" } else { "day" },
        ),
        confidence: Some(Sureness::Low),
        stated_by: None,
    })
}

/// The candidate window length over which the server accepted about `count` requests (within a
/// tenth) and refused past it ([`fits`]); of several, the longest (the slowest reading, as
/// [`from_windows`] takes).
fn window_for_count(ev: &HostEvidence, count: f64) -> Option<f64> {
    ev.limited.first?;
    CANDIDATE_WINDOWS_S
        .iter()
        .zip(ev.windows.per_window.iter())
        .rev()
        .find(|(_, c)| {
            let seen = c.most_before_refusals as f64;
            fits(c) && (seen - count).abs() <= (count / 10.0).max(1.0)
        })
        .map(|(s, _)| *s as f64)
}

/// "minute" for 60 s, "day" for 86400 s; other lengths as a duration ("10 s").
fn per_unit(window_s: f64) -> String {
    match window_s as u64 {
        1 if window_s == 1.0 => "second".into(),
        60 if window_s == 60.0 => "minute".into(),
        3600 if window_s == 3600.0 => "hour".into(),
        86400 if window_s == 86400.0 => "day".into(),
        _ => fmt_s(window_s),
    }
}

/// Index of the one-minute window in [`CANDIDATE_WINDOWS_S`].
const MINUTE: usize = 2;

/// Does "at most `most_before_refusals` per window" explain the traffic? It does when the
/// server refused only once a window held about that many (never with clearly fewer in the
/// window) and never let clearly more through in one fixed window, later refusals included. A
/// tenth of slack (at least one request) absorbs a fixed window's edges and the buckets.
fn fits(c: &WindowCount) -> bool {
    let l = c.most_before_refusals;
    let Some(fewest) = c.fewest_at_refusal else {
        return false;
    };
    let slack = l.div_ceil(10).max(1);
    l > 0 && fewest + slack > l && c.most_aligned < l + slack
}

/// The median wait the server asked for (s; 0 without one).
fn median_wait_s(ev: &HostEvidence) -> f64 {
    let mut waits: Vec<f64> = ev
        .limited
        .waits
        .iter()
        .copied()
        .filter(|s| s.is_finite())
        .collect();
    waits.sort_by(f64::total_cmp);
    waits.get(waits.len() / 2).copied().unwrap_or(0.0)
}

/// How sure the reading `window` of the `fitting` ones is, and why: low when the capture is
/// shorter than the window, high when no other length fits.
fn sureness(span_s: f64, window: f64, fitting: &[(f64, u64)]) -> (Sureness, String) {
    if span_s < window {
        (
            Sureness::Low,
            format!("the capture ({}) is shorter than the window", fmt_s(span_s)),
        )
    } else if fitting.len() == 1 {
        (
            Sureness::High,
            "the other window lengths do not fit".to_string(),
        )
    } else {
        let others: Vec<String> = fitting
            .iter()
            .filter(|(s, _)| *s != window)
            .map(|(s, n)| format!("{} per {}", n, fmt_s(*s)))
            .collect();
        (
            Sureness::Medium,
            format!(
                "{} would also fit; the slowest reading is used",
                others.join(", ")
            ),
        )
    }
}

/// The allowance read from the candidate windows: for each length, the most accepted in any
/// window of it before refusals began (not a short run read as one minute); of the lengths that
/// fit ([`fits`]), the slowest reading, with how sure it is.
fn from_windows(ev: &HostEvidence) -> Option<LimitInfo> {
    let w = &ev.windows;
    let first = ev.limited.first?;
    // An hour only when the server asked to wait that long: a limit counted over an hour sends
    // callers away for minutes, not seconds.
    let typical_wait = median_wait_s(ev);
    let candidates: Vec<(f64, &WindowCount)> = CANDIDATE_WINDOWS_S
        .iter()
        .zip(w.per_window.iter())
        .map(|(s, c)| (*s as f64, c))
        .filter(|(s, _)| *s <= OBSERVED_MIN_WINDOW_S || typical_wait > OBSERVED_MIN_WINDOW_S)
        .collect();
    let fitting: Vec<(f64, u64)> = candidates
        .iter()
        .filter(|(_, c)| fits(c))
        .map(|(s, c)| (*s, c.most_before_refusals))
        .collect();
    let (window, count) = fitting
        .iter()
        .copied()
        .min_by(|a, b| (a.1 as f64 / a.0).total_cmp(&(b.1 as f64 / b.0)))?;
    let span_s = match (w.span.first, w.span.last) {
        (Some(a), Some(b)) => (b - a).num_milliseconds().max(0) as f64 / 1000.0,
        _ => 0.0,
    };
    let (confidence, why) = sureness(span_s, window, &fitting);
    let ruled_out: Vec<String> = candidates
        .iter()
        .filter(|(_, c)| !fits(c))
        .map(|(s, _)| fmt_s(*s))
        .collect();
    let rate = count as f64 / window;
    Some(LimitInfo {
        rate_per_second: rate,
        rate_per_minute: floor_sig(rate * 60.0),
        window_s: window,
        source: LimitSource::Observed,
        detail: format!(
            "observed: at most {count} requests were accepted in any {} before the first 429 at {} UTC, and the server refused only once a {} window held about that many ({} rate-limited response{} checked{}), read as {count} per {}; {} confidence: {why}",
            fmt_s(window),
            first.format("%H:%M:%S"),
            fmt_s(window),
            w.refusals,
            if w.refusals == 1 { "" } else { "s" },
            if ruled_out.is_empty() { String::new() } else { format!("; ruled out: per {}", ruled_out.join(", per ")) },
            fmt_s(window),
            confidence.as_str(),
        ),
        confidence: Some(confidence),
        stated_by: None,
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
        ) + "; low confidence: no window length fits how the server accepted and refused",
        confidence: Some(Sureness::Low),
        stated_by: None,
    })
}
