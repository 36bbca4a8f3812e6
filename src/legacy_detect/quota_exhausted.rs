//! `quota_exhausted`: a daily, monthly or credit allowance is spent. Slowing down will not bring
//! it back; the client should stop and reschedule after the reset (or raise the quota).
//!
//! Signals on a rate-limited response, any one of which counts: the attribution's quota type is
//! `daily`; rate-limit headers show `remaining: 0` on a window of ≥ 1 h (or with a reset ≥ 1 h
//! away); Retry-After ≥ 1 h; the body says so (`insufficient_quota`, "exceeded your current
//! quota", a spent credit balance, or a daily/monthly limit or quota, unless the same response
//! gives a Retry-After or reset under an hour: then the body only mentions the long limit).

use super::{at, r3, time_str, Context, Finding, Severity};
use crate::attribute::Quota;
use crate::http::{ratelimit, retry_after};
use chrono::{DateTime, Duration, Utc};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// Body phrases that mean a long-window allowance is spent (matched case-insensitively).
const BODY_SIGNS: &[&str] = &[
    "insufficient_quota",
    "exceeded your current quota",
    "quota_exhausted",
    "credit balance is too low",
    "out of credits",
];

/// A long period next to a limit word, in either order ("daily request limit", "limit 'Queries
/// per day'"), within one sentence.
fn long_period_limit() -> &'static regex::Regex {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(
            r"(?:daily|monthly|per day|per month|/day|/month)[^.!\n]{0,40}(?:limit|quota|allowance|cap)|(?:limit|quota|allowance|cap)[^.!\n]{0,40}(?:daily|monthly|per day|per month|/day|/month)",
        )
        .expect("valid regex")
    })
}

const LONG_S: f64 = 3600.0;

struct Hit {
    i: usize,
    signals: Vec<String>,
    /// When the allowance should be back, if the response said.
    resume: Option<DateTime<Utc>>,
}

fn signals(cx: &Context, i: usize) -> Option<Hit> {
    let r = &cx.requests[i];
    let mut s = Vec::new();
    let mut wait: Option<f64> = None;
    let a = cx.attribution.get(i).copied().flatten();
    if a.map(|a| a.quota == Quota::Daily).unwrap_or(false) {
        s.push("attribution: daily/monthly allowance".to_string());
    }
    let limits = a
        .and_then(|a| a.limits.clone())
        .or_else(|| ratelimit::parse(&r.response_headers, r.started));
    if let Some(l) = &limits {
        if l.remaining == Some(0.0) {
            if let Some(w) = l.window_seconds.filter(|&w| w >= LONG_S) {
                s.push(format!(
                    "remaining 0 on a {} window",
                    super::seconds_text(w)
                ));
                wait = l.reset_seconds;
            } else if let Some(r) = l.reset_seconds.filter(|&r| r >= LONG_S) {
                s.push(format!(
                    "remaining 0 until a reset {} away",
                    super::seconds_text(r)
                ));
                wait = Some(r);
            }
        }
    }
    let ra = retry_after::from_headers(&r.response_headers, r.started);
    if let Some(sec) = ra.seconds.filter(|&x| x >= LONG_S) {
        s.push(format!(
            "Retry-After {} ({})",
            ra.raw.as_deref().unwrap_or(""),
            super::seconds_text(sec)
        ));
        wait = Some(wait.map_or(sec, |w: f64| w.max(sec)));
    }
    // The same response saying the wait is short (a Retry-After or a reset under an hour)
    // outweighs a daily/monthly limit merely *mentioned* in its body ("60 per minute allowed
    // (daily cap 10000)"): that 429 is the short limit's.
    let short_wait = ra.seconds.is_some_and(|x| x < LONG_S)
        || limits
            .as_ref()
            .and_then(|l| l.reset_seconds)
            .is_some_and(|x| x < LONG_S);
    if let Some(b) = &r.body_excerpt {
        let lower = b.to_ascii_lowercase();
        if let Some(p) = BODY_SIGNS.iter().find(|p| lower.contains(*p)) {
            s.push(format!("body: \"{p}\""));
        } else if let Some(m) = long_period_limit().find(&lower).filter(|_| !short_wait) {
            s.push(format!("body: \"{}\"", m.as_str()));
        }
    }
    if s.is_empty() {
        return None;
    }
    let resume = match (r.started, wait) {
        (Some(t), Some(w)) if w.is_finite() && w < 4e8 => {
            t.checked_add_signed(Duration::milliseconds((w * 1000.0) as i64))
        }
        _ => None,
    };
    Some(Hit {
        i,
        signals: s,
        resume,
    })
}

pub fn detect(cx: &Context) -> Vec<Finding> {
    let mut out = Vec::new();
    for (host, idx) in &cx.by_host {
        let (host, idx) = (host.as_str(), idx.as_slice());
        let hits: Vec<Hit> = idx
            .iter()
            .copied()
            .filter(|&i| cx.is_limited(i))
            .filter_map(|i| signals(cx, i))
            .collect();
        let Some(first) = hits.first() else { continue };
        let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
        for h in &hits {
            for s in &h.signals {
                let kind = s.split([' ', ':']).next().unwrap_or("").to_string();
                *kinds.entry(kind).or_insert(0) += 1;
            }
        }
        let t0 = cx.requests[first.i].started;
        let after: Vec<usize> = idx
            .iter()
            .copied()
            .filter(|&i| i != first.i && cx.requests[i].started >= t0)
            .collect();
        let after_limited = after.iter().filter(|&&i| cx.is_limited(i)).count();
        let resume = hits.iter().filter_map(|h| h.resume).max();
        let mut sig: Vec<String> = Vec::new();
        for h in &hits {
            for s in &h.signals {
                if !sig.contains(s) && sig.len() < 3 {
                    sig.push(s.clone());
                }
            }
        }
        let until = match resume {
            Some(t) => format!("stop and reschedule for after {} UTC (or raise the quota)", t.format("%Y-%m-%d %H:%M")),
            None => "stop until the allowance renews (the provider's daily or billing period) or raise the quota".to_string(),
        };
        let kept = if after.is_empty() {
            String::new()
        } else {
            format!("; the client sent {} more requests after the first such response ({after_limited} rejected)", after.len())
        };
        let summary = format!(
            "The long-window allowance (daily, monthly or credit) for {host} is spent: {} rate-limited responses say so ({}); slowing down will not help, {until}{kept}.",
            hits.len(),
            sig.join(", ")
        );
        let examples: Vec<Value> = hits
            .iter()
            .take(5)
            .map(|h| json!({ "at": at(&cx.requests[h.i]), "signals": h.signals }))
            .collect();
        out.push(Finding::new(
            "quota_exhausted",
            Severity::Critical,
            summary,
            json!({
                "host": host,
                "responses": hits.len(),
                "signals": kinds,
                "first": at(&cx.requests[first.i]),
                "resume_after": time_str(resume),
                "requests_after_first": after.len(),
                "rejected_after_first": after_limited,
                "wasted_share": r3(if after.is_empty() { 0.0 } else { after_limited as f64 / after.len() as f64 }),
                "examples": examples,
            }),
        ));
    }
    out
}
