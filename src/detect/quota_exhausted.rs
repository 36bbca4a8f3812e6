//! `quota_exhausted`: a daily, monthly or credit allowance is spent. Slowing down will not bring
//! it back; the client should stop and reschedule after the reset (or raise the quota).
//!
//! Signals on a rate-limited response, any one of which counts: the attribution's quota type is
//! `daily`; rate-limit headers show `remaining: 0` on a window of ≥ 1 h (or with a reset ≥ 1 h
//! away); Retry-After ≥ 1 h; the body says so (`insufficient_quota`, "exceeded your current
//! quota", a spent credit balance, or a daily/monthly limit or quota, unless the same response
//! gives a Retry-After or reset under an hour: then the body only mentions the long limit).

use super::{r3, time_str, Cx, Detector, Finding, Placed, Severity, Step};
use crate::attribute::{Attribution, Quota};
use crate::http::ratelimit;
use crate::http::retry_after::RetryAfter;
use crate::model::event::Event;
use crate::model::Request;
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

/// The signals on one rate-limited response that its long-window allowance is spent, and when
/// it should be back (`a`: its attribution, `ra`: its Retry-After).
pub fn signals(
    r: &Request,
    a: &Attribution,
    ra: &RetryAfter,
) -> (Vec<String>, Option<DateTime<Utc>>) {
    let mut s = Vec::new();
    let mut wait: Option<f64> = None;
    let a = Some(a);
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
        return (s, None);
    }
    let resume = match (r.started, wait) {
        (Some(t), Some(w)) if w.is_finite() && w < 4e8 => {
            t.checked_add_signed(Duration::milliseconds((w * 1000.0) as i64))
        }
        _ => None,
    };
    (s, resume)
}

#[derive(Default)]
struct Host {
    timed: usize,
    limited: usize,
    /// Timed requests (and rate-limited ones) before the current start time.
    at: (i64, u16),
    before_at: (usize, usize),
    /// At the first response with signals: requests (and rate-limited ones) before its time.
    before_first: Option<(usize, usize)>,
    first: Option<Event>,
    hits: usize,
    kinds: BTreeMap<String, usize>,
    resume: Option<DateTime<Utc>>,
    signals: Vec<String>,
    examples: Vec<(Event, Vec<String>)>,
}

/// `quota_exhausted` (see the module doc).
#[derive(Default)]
pub struct QuotaExhausted {
    hosts: BTreeMap<u32, Host>,
}

impl Detector for QuotaExhausted {
    /// Reads only the requests and their attribution: runs beside the linking lane.
    fn reads_links(&self) -> bool {
        false
    }

    fn step(&mut self, s: &Step, cx: &Cx) {
        if !s.ev.timed() {
            return;
        }
        let t = (s.ev.t_us, s.ev.t_ns);
        let h = self.hosts.entry(s.ev.host).or_default();
        if h.timed == 0 || t != h.at {
            h.at = t;
            h.before_at = (h.timed, h.limited);
        }
        h.timed += 1;
        if !s.ev.limited() {
            return;
        }
        h.limited += 1;
        let Some(f) = cx.facts(s.ev) else { return };
        if f.quota_signals.is_empty() {
            return;
        }
        if h.first.is_none() {
            h.first = Some(*s.ev);
            h.before_first = Some(h.before_at);
        }
        h.hits += 1;
        for sg in &f.quota_signals {
            let kind = sg.split([' ', ':']).next().unwrap_or("").to_string();
            *h.kinds.entry(kind).or_insert(0) += 1;
            if !h.signals.contains(sg) && h.signals.len() < 3 {
                h.signals.push(sg.clone());
            }
        }
        if let Some(r) = f.quota_resume {
            h.resume = Some(h.resume.map_or(r, |m| m.max(r)));
        }
        if h.examples.len() < 5 {
            h.examples.push((*s.ev, f.quota_signals.clone()));
        }
    }

    fn finish(&mut self, cx: &Cx, _earlier: &[Finding]) -> Vec<Placed> {
        let mut out = Vec::new();
        for (&id, h) in &self.hosts {
            let Some(first) = &h.first else { continue };
            let host = cx.host(id);
            let (before, limited_before) = h.before_first.unwrap_or((0, 0));
            let after = h.timed - before - 1;
            let after_limited = h.limited - limited_before - 1;
            let resume = h.resume;
            let until = match resume {
                Some(t) => format!("stop and reschedule for after {} UTC (or raise the quota)", t.format("%Y-%m-%d %H:%M")),
                None => "stop until the allowance renews (the provider's daily or billing period) or raise the quota".to_string(),
            };
            let kept = if after == 0 {
                String::new()
            } else {
                format!("; the client sent {after} more requests after the first such response ({after_limited} rejected)")
            };
            let summary = format!(
                "The long-window allowance (daily, monthly or credit) for {host} is spent: {} rate-limited responses say so ({}); slowing down will not help, {until}{kept}.",
                h.hits,
                h.signals.join(", ")
            );
            let examples: Vec<Value> = h
                .examples
                .iter()
                .map(|(e, s)| json!({ "at": cx.at(e), "signals": s }))
                .collect();
            out.push((
                (host.to_string(), 0),
                Finding::new(
                    super::Kind::QuotaExhausted,
                    Severity::Critical,
                    summary,
                    json!({
                        "host": host,
                        "responses": h.hits,
                        "signals": h.kinds,
                        "first": cx.at(first),
                        "resume_after": time_str(resume),
                        "requests_after_first": after,
                        "rejected_after_first": after_limited,
                        "wasted_share": r3(if after == 0 { 0.0 } else { after_limited as f64 / after as f64 }),
                        "examples": examples,
                    }),
                ),
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::attribute::Quota;
    use crate::detect::testkit::*;

    #[test]
    fn credit_spent_and_client_keeps_going() {
        let mut sim = Sim::new(Limiter::Quota {
            allowance: 40,
            retry_after_s: 86400.0,
        });
        let mut w = Worker::new(
            "summarizer",
            "https://api.llm.example/v1/chat/completions",
            80,
        );
        w.method = "POST";
        w.spacing_s = 2.0;
        sim.workers.push(w);
        let reqs = sim.run();
        let d = crate::detect::testkit::run(&reqs, &unknown_attributions(&reqs), None);
        let f = d
            .findings
            .iter()
            .find(|f| f.kind == "quota_exhausted")
            .expect("quota");
        assert!(
            f.summary.contains("slowing down will not help"),
            "{}",
            f.summary
        );
        assert!(f.summary.contains("2026-03-03"), "{}", f.summary);
        assert_eq!(f.evidence["responses"], 40);
    }

    #[test]
    fn remaining_zero_on_a_daily_window_via_attribution() {
        let mut s = Scenario::new();
        for k in 0..5 {
            s.at(k as f64 * 10.0)
                .client("c")
                .get("https://api.x.com/v1/geo", 429);
        }
        let reqs = s.build();
        let lim: Vec<_> = (0..5)
            .map(|i| {
                (
                    i,
                    attribution(Quota::Rate, Some(limits(10000.0, 0.0, 86400.0, 3600.0))),
                )
            })
            .collect();
        let f = findings_of("quota_exhausted", &reqs, &lim, None);
        assert_eq!(f.len(), 1);
        assert!(
            f[0].summary.contains("remaining 0 on a 24 h window"),
            "{}",
            f[0].summary
        );
    }

    #[test]
    fn remaining_zero_with_a_far_reset() {
        let mut s = Scenario::new();
        s.at(0.0).client("c").get("https://api.x.com/v1/geo", 429);
        let reqs = s.build();
        let lim = vec![(
            0,
            attribution(
                Quota::Unknown,
                Some(crate::http::ratelimit::Limits {
                    limit: Some(5000.0),
                    remaining: Some(0.0),
                    reset_seconds: Some(7200.0),
                    window_seconds: None,
                    policy: None,
                }),
            ),
        )];
        let f = findings_of("quota_exhausted", &reqs, &lim, None);
        assert!(
            f[0].summary.contains("remaining 0 until a reset 2 h away"),
            "{}",
            f[0].summary
        );
        assert!(
            f[0].summary.contains("after 2026-03-02 11:00 UTC"),
            "{}",
            f[0].summary
        );
    }

    #[test]
    fn body_says_daily() {
        let mut s = Scenario::new();
        s.at(0.0)
            .client("c")
            .excerpt("{\"message\":\"You have reached your daily request limit\"}")
            .get("https://api.x.com/v1/geo", 429);
        let reqs = s.build();
        assert_eq!(kinds(&reqs, None), vec!["quota_exhausted"]);
    }

    #[test]
    fn body_phrases() {
        let sign = |b: &str| super::long_period_limit().is_match(&b.to_ascii_lowercase());
        assert!(sign(
            "Quota exceeded for quota metric 'Queries' and limit 'Queries per day' of service"
        ));
        assert!(sign("Monthly quota reached"));
        assert!(!sign("Rate limit exceeded: 60 per minute"));
        assert!(!sign(
            "Daily report failed. Too many requests, limit is 10/s"
        ));
    }

    #[test]
    fn near_miss_per_minute_limit_is_not_quota() {
        let mut s = Scenario::new();
        for k in 0..5 {
            s.at(k as f64 * 10.0)
                .client("c")
                .ra("60")
                .excerpt("{\"error\":\"Rate limit exceeded: 60 per minute\"}")
                .get("https://api.x.com/v1/geo", 429);
        }
        let reqs = s.build();
        let lim: Vec<_> = (0..5)
            .map(|i| {
                (
                    i,
                    attribution(Quota::Rate, Some(limits(60.0, 0.0, 60.0, 30.0))),
                )
            })
            .collect();
        assert!(findings_of("quota_exhausted", &reqs, &lim, None).is_empty());
    }

    #[test]
    fn a_daily_cap_mentioned_beside_a_short_retry_after_is_not_exhaustion() {
        let body = r#"{"error":"rate_limited","message":"60 per minute allowed on the free plan (daily cap 10000)."}"#;
        let build = |ra: Option<&str>| {
            let mut s = Scenario::new();
            for k in 0..20 {
                let b = s.at(k as f64 * 3.0).client("c").excerpt(body);
                let b = match ra {
                    Some(v) => b.ra(v),
                    None => b,
                };
                b.get(&format!("https://api.x.com/v1/obs/{k}"), 429);
            }
            s.build()
        };
        // Retry-After: 10 on the same response: the per-minute limit's 429.
        assert!(!kinds(&build(Some("10")), None).contains(&"quota_exhausted".to_string()));
        // Nothing says the wait is short: the daily cap is what the body reports.
        assert!(kinds(&build(None), None).contains(&"quota_exhausted".to_string()));
    }
}
