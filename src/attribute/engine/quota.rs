//! Step 6: the kind of limit and its scope. Every cue is collected with its tier; the lowest
//! tier wins, and in a tier the first found (fingerprints.md Part 1, Q1–Q6).

use super::super::catalogue::{self, Provider};
use super::super::matcher::Subject;
use super::super::rules::{Rule, CUES};
use super::super::{Layer, Quota, Role, Scope};
use super::verdict::{vendor_name, Verdict};
use crate::http::ratelimit::{self, Family, Unit};
use crate::http::retry_after::RetryAfter;
use crate::units::fmt_duration_ms;

/// What the verdict's quota kind is decided from.
pub(super) struct Inputs<'a> {
    pub subj: &'a Subject<'a>,
    pub fams: &'a [Family],
    pub ra: &'a RetryAfter,
    pub winner_rule: Option<&'static Rule>,
    pub vendor: Option<&'a str>,
    pub layer: Layer,
}

/// One cue: its tier, the kind it means, the signal and the note for the evidence.
struct Found {
    tier: u8,
    quota: Quota,
    signal: String,
    note: String,
}

#[derive(Default)]
struct Cues(Vec<Found>);

impl Cues {
    fn push(&mut self, tier: u8, quota: Quota, signal: impl Into<String>, note: impl Into<String>) {
        self.0.push(Found {
            tier,
            quota,
            signal: signal.into(),
            note: note.into(),
        });
    }
}

/// Quota type and scope, first cue wins by tier.
pub(super) fn classify(x: &Inputs, v: &mut Verdict) -> (Quota, Option<Scope>) {
    let mut cues = Cues::default();
    let provider = x.vendor.and_then(catalogue::find);
    let scope = stated_reasons(x.subj, provider, &mut cues);
    body_window(x.subj, &mut cues);
    binding_family(x.fams, &mut cues);
    wait_size(x, &mut cues);
    product_kind(x, provider, &mut cues);
    let mut found = cues.0;
    found.sort_by_key(|f| f.tier);
    match found.into_iter().next() {
        Some(f) => {
            v.ev(Role::Quota, f.signal, f.note);
            (f.quota, scope)
        }
        None => (Quota::Unknown, scope),
    }
}

/// Tiers 1 and 5: the verdict's own documented messages first (their meaning is the vendor's),
/// then the cue table. Returns the first scope a matching cue states.
fn stated_reasons(subj: &Subject, provider: Option<&Provider>, cues: &mut Cues) -> Option<Scope> {
    let mut scope = None;
    let own_cues = provider.map(|p| p.cues).unwrap_or(&[]);
    for cue in own_cues.iter().chain(CUES) {
        if let Some(sig) = cue.when.eval(subj) {
            if scope.is_none() {
                scope = cue.scope;
            }
            if let Some(q) = cue.quota {
                cues.push(
                    cue.tier,
                    q,
                    sig.join("; "),
                    format!("{} {}", cue.note, cue.source),
                );
            }
        }
    }
    scope
}

/// Tiers 2 and 3: what the binding rate-limit family counts, and its window.
fn binding_family(fams: &[Family], cues: &mut Cues) {
    let Some(b) = ratelimit::binding(fams) else {
        return;
    };
    let exhausted = b.limits.remaining == Some(0.0);
    if exhausted && b.limits.limit == Some(0.0) {
        // No window's allowance is zero requests; a ceiling of zero left of zero is how
        // services report requests in flight over their concurrency limit (Okta reports its
        // concurrent limit in the same X-Rate-Limit-* headers).
        cues.push(
            2,
            Quota::Concurrency,
            b.header.clone(),
            "a limit of 0 with 0 remaining: no window allows zero requests, so the ceiling is on requests in flight [Q3]",
        );
    }
    match b.unit {
        Unit::Tokens => cues.push(
            2,
            Quota::Tokens,
            b.header.clone(),
            "the binding rate-limit family counts tokens [Q2]",
        ),
        Unit::Concurrency => cues.push(
            2,
            Quota::Concurrency,
            b.header.clone(),
            "the binding policy counts concurrent requests [Q3]",
        ),
        _ => {}
    }
    let Some(w) = b.limits.window_seconds else {
        return;
    };
    if exhausted && w >= 86400.0 {
        cues.push(
            2,
            Quota::Daily,
            b.header.clone(),
            format!(
                "exhausted allowance over a {} window [Q2, Q3]",
                fmt_duration_ms(w * 1000.0)
            ),
        );
    } else if w <= 3600.0 {
        cues.push(
            3,
            Quota::Rate,
            b.header.clone(),
            format!("window of {} [Q2, Q3]", fmt_duration_ms(w * 1000.0)),
        );
    }
}

/// Tier 4: the size of the wait (Retry-After, else the exhausted family's reset).
fn wait_size(x: &Inputs, cues: &mut Cues) {
    let wait = x.ra.seconds.or_else(|| {
        ratelimit::binding(x.fams)
            .filter(|b| b.limits.remaining == Some(0.0))
            .and_then(|b| b.limits.reset_seconds)
    });
    let Some(s) = wait else { return };
    let signal = format!("wait {}", fmt_duration_ms(s * 1000.0));
    if s > 3.0 * 3600.0 {
        cues.push(
            4,
            Quota::Daily,
            signal,
            "a wait of hours: an allowance, not a rate [Q4]",
        );
    } else if s > 0.0 && s <= 3600.0 {
        cues.push(
            4,
            Quota::Rate,
            signal,
            "a wait of seconds to minutes: a rate window [Q4]",
        );
    }
}

/// Tiers 6 and 7: the producing product's limiter kind, and RFC 6585's meaning of a 429 from
/// an identified layer when nothing more specific was said.
fn product_kind(x: &Inputs, provider: Option<&Provider>, cues: &mut Cues) {
    if let Some(q) = x.winner_rule.and_then(|r| r.quota.map(|q| (r, q))) {
        let (rule, q) = q;
        cues.push(
            6,
            q,
            rule.id,
            format!(
                "{}'s limiter is of this kind unless the response says otherwise {}",
                vendor_name(rule.vendor),
                rule.source
            ),
        );
    }
    if let (None, Some(p)) = (x.winner_rule, provider) {
        if x.layer == Layer::Api {
            cues.push(
                6,
                p.quota,
                format!("host {}", p.vendor),
                format!(
                    "{}'s limiter is of this kind unless the response says otherwise ({})",
                    p.name, p.source
                ),
            );
        }
    }
    // A throttling code that spells "too many requests" or "rate limit exceeded" says at any
    // status what a 429 says.
    let says_429 = x.subj.req.status == 429
        || super::super::limited::spelled_throttle_code(x.subj.req).is_some();
    if x.winner_rule.is_none() && x.layer != Layer::Unknown && says_429 {
        if x.subj.words().contains("quota") {
            // Google says "quota" of per-minute limits, others of daily ones: the word alone
            // states no kind, and a guess would flip the advice.
            cues.push(7, Quota::Unknown, "body: \"quota\"", "the body speaks of a quota but states neither its window nor its kind: not guessed (a per-minute quota and a daily one need opposite advice) [Q5]");
        } else {
            match super::super::limited::spelled_throttle_code(x.subj.req) {
                Some(c) if x.subj.req.status != 429 => cues.push(7, Quota::Rate, format!("code {c}"), "the code says what a 429 says (RFC 6585): too many requests in a given amount of time; nothing more specific was stated [S1]"),
                _ => cues.push(7, Quota::Rate, "status 429", "RFC 6585: too many requests in a given amount of time; nothing more specific was stated [S1]"),
            }
        }
    }
}

/// A window stated in the body, in any of the spellings APIs use: `per minute`, `per_minute`,
/// `per-minute`, `PerMinute`, `PER_MINUTE`, `per 60 seconds`, `/min` after a count or a unit
/// (`100/min`, `requests/s`), RPS/RPM/RPD and QPS/QPD as written, `in the last hour`, `every
/// 10 seconds`, `within 24 hours`. Returns the words as found and the window in seconds; of
/// several, the first in the text.
pub(crate) fn stated_window(body: &str) -> Option<(String, f64)> {
    use regex::Regex;
    use std::sync::OnceLock;
    const UNIT: &str = r"(seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?)";
    static RES: OnceLock<Vec<Regex>> = OnceLock::new();
    let res = RES.get_or_init(|| {
        [
            // per minute, per_minute, per-minute, per 60 seconds, REQUESTS_PER_MINUTE
            format!(r"(?i)(?:^|[^a-z])(per[ _-]?(?:(\d+)[ _-]?)?{UNIT})\b"),
            // RequestsPerMinute, perMinute, PerDay
            r"(?:^|[^A-Z])([Pp]er(\d+)?(Second|Minute|Hour|Day|Week|Month|Year)s?)(?:[^a-z]|$)"
                .to_string(),
            // 100/min, requests/s, calls / day
            r"(?i)((?:\d|\b(?:requests?|reqs?|calls?|quer(?:y|ies)|tokens?|messages?|ops|operations?|hits?|points?))\s*/\s*(?:(\d+)\s*)?(s|sec|second|m|min|minute|h|hr|hour|d|day|wk|week|mo|month)\b)"
                .to_string(),
            // in the last hour, every 10 seconds, within 24 hours, over the past 5 minutes
            format!(
                r"(?i)\b((?:in|within|over|during|every)\s+(?:the\s+)?(?:(?:last|past|previous|current)\s+)?(?:(\d+)\s*)?{UNIT})\b"
            ),
            // RPS, RPM, RPH, RPD, QPS, QPM, QPD, as written
            r"\b((?:RP|QP)(S|M|H|D))\b".to_string(),
            // Minutely, hourly, daily limits (Open-Meteo's "Minutely API request limit")
            r"(?i)\b((secondly|minutely|hourly|daily|weekly|monthly|yearly|annual|annually))\b"
                .to_string(),
            // one minute, an hour, each day ("a second" is as often the ordinal: not read)
            r"(?i)\b((?:one|an?|each)\s+(minute|hour|day|week|month|year))\b".to_string(),
        ]
        .iter()
        .map(|p| Regex::new(p).expect("a valid window pattern"))
        .collect()
    });
    res.iter()
        .filter_map(|re| {
            let c = re.captures(body)?;
            let whole = c.get(1)?;
            let n: f64 = c
                .get(2)
                .and_then(|m| m.as_str().parse().ok())
                .unwrap_or(1.0);
            let unit = c.get(c.len() - 1)?.as_str();
            Some((
                whole.start(),
                whole.as_str().to_string(),
                n * unit_seconds(unit)?,
            ))
        })
        .min_by_key(|(at, _, _)| *at)
        .map(|(_, words, secs)| (words, secs))
}

/// Seconds in a window unit as APIs write it (`min`, `Minute`, `hrs`, `D` of RPD).
fn unit_seconds(unit: &str) -> Option<f64> {
    let u = unit.to_ascii_lowercase();
    let s = match u.trim_end_matches('s') {
        "" | "sec" | "second" | "secondly" => 1.0,
        "m" | "min" | "minute" | "minutely" => 60.0,
        "h" | "hr" | "hour" | "hourly" => 3600.0,
        "d" | "day" | "daily" => 86_400.0,
        "wk" | "week" | "weekly" => 7.0 * 86_400.0,
        "mo" | "month" | "monthly" => 30.0 * 86_400.0,
        "year" | "yearly" | "annual" | "annually" => 365.0 * 86_400.0,
        _ => return None,
    };
    Some(s)
}

/// Tier 5: the window the body states: up to three hours a rate window, longer an allowance
/// (the same line the size of a wait draws).
fn body_window(subj: &Subject, cues: &mut Cues) {
    let Some(body) = subj.req.body_excerpt.as_deref() else {
        return;
    };
    let Some((words, secs)) = stated_window(&super::super::matcher::without_urls(body)) else {
        return;
    };
    let span = fmt_duration_ms(secs * 1000.0);
    if secs > 3.0 * 3600.0 {
        cues.push(
            5,
            Quota::Daily,
            format!("body: \"{words}\""),
            format!("the body states a window of {span}: an allowance until it rolls over, not a rate [Q5]"),
        );
    } else {
        cues.push(
            5,
            Quota::Rate,
            format!("body: \"{words}\""),
            format!("the body states a window of {span}: a rate window [Q5]"),
        );
    }
}
