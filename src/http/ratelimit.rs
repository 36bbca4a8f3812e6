//! Rate-limit headers: IETF `RateLimit`/`RateLimit-Policy`, the older trio, `X-RateLimit-*` and
//! vendor forms, parsed into one shape.
//!
//! Vendors name their headers differently but almost all follow `<prefix>-<field>-<qualifiers>`
//! (`x-ratelimit-remaining-tokens`, `X-RateLimit-Limit-Minute`, `anthropic-ratelimit-requests-reset`,
//! `x-ratelimit-requests-limit`), so one name-driven parser groups them into *families* (one per
//! prefix + qualifiers) instead of a parser per vendor. Sources: fingerprints.md [S3, S4, P6, O1,
//! AN1, SH1, X1, H1, D1, SF1, J1, HS1, ZD1, P14, P17].

use super::date::{epoch_to_datetime, parse_http_date, parse_timestamp};
use crate::http::headers::Headers;
use chrono::{DateTime, Utc};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Limits {
    /// Requests (or tokens) allowed per window.
    pub limit: Option<f64>,
    pub remaining: Option<f64>,
    /// Seconds until the window resets, measured from the response.
    pub reset_seconds: Option<f64>,
    /// Length of the window in seconds, when stated.
    pub window_seconds: Option<f64>,
    /// Policy name or raw policy (`"burst";q=100;w=60`, `core`, ...).
    pub policy: Option<String>,
}

/// What a family counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    Requests,
    Tokens,
    Concurrency,
    Bytes,
    Unspecified,
}

/// One group of rate-limit headers (`x-ratelimit-*-tokens`, `RateLimit` item `"daily"`, …).
#[derive(Debug, Clone, PartialEq)]
pub struct Family {
    /// The header family as people would name it (`x-ratelimit-*-tokens`), for evidence.
    pub header: String,
    pub unit: Unit,
    pub limits: Limits,
}

/// Parse the rate-limit headers of a response. `now` is the response's time (its `Date` header
/// when present) for epoch-valued resets. When several families are present (requests and
/// tokens, minute and day) the binding one is returned: exhausted first, else the lowest share
/// remaining.
pub fn parse(headers: &Headers, now: Option<DateTime<Utc>>) -> Option<Limits> {
    let fams = parse_all(headers, now);
    binding(&fams).map(|f| f.limits.clone())
}

/// The family that limits the caller now: one with nothing remaining, else the smallest share
/// remaining, else the first. Among several exhausted families, the one that stays exhausted
/// longest binds (its reset, else its window: a spent day outlasts a spent second), and one that
/// says when it resets beats one that does not (Zendesk's `ratelimit-reset` next to
/// `x-rate-limit`).
pub fn binding(families: &[Family]) -> Option<&Family> {
    let exhausted: Vec<&Family> = families
        .iter()
        .filter(|f| f.limits.remaining == Some(0.0))
        .collect();
    if !exhausted.is_empty() {
        let lasts = |f: &Family| f.limits.reset_seconds.or(f.limits.window_seconds);
        let mut best = exhausted[0];
        for f in &exhausted[1..] {
            let better = match (lasts(f), lasts(best)) {
                (Some(a), Some(b)) => a > b,
                (Some(_), None) => true,
                _ => false,
            };
            if better {
                best = f;
            }
        }
        return Some(best);
    }
    let share = |f: &Family| match (f.limits.remaining, f.limits.limit) {
        (Some(r), Some(l)) if l > 0.0 => Some(r / l),
        _ => None,
    };
    families
        .iter()
        .filter_map(|f| share(f).map(|s| (s, f)))
        .min_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal))
        .map(|(_, f)| f)
        .or_else(|| families.first())
}

#[derive(Default, Clone)]
struct Acc {
    header: String,
    qualifiers: Vec<String>,
    limit: Option<f64>,
    remaining: Option<f64>,
    used: Option<f64>,
    reset: Option<f64>,
    window: Option<f64>,
    policy: Option<String>,
}

impl Acc {
    fn has_numbers(&self) -> bool {
        self.limit.is_some()
            || self.remaining.is_some()
            || self.used.is_some()
            || self.reset.is_some()
    }

    fn finish(self) -> Family {
        let unit = unit_of(&self.qualifiers);
        let remaining = self.remaining.or(match (self.limit, self.used) {
            (Some(l), Some(u)) => Some((l - u).max(0.0)),
            _ => None,
        });
        Family {
            header: self.header,
            unit,
            limits: Limits {
                limit: self.limit,
                remaining,
                reset_seconds: self.reset,
                window_seconds: self.window.or_else(|| window_of(&self.qualifiers)),
                policy: self.policy.or_else(|| named_policy(&self.qualifiers)),
            },
        }
    }
}

/// Header-name prefixes that start a family, longest first.
const PREFIXES: &[&str] = &[
    "anthropic-ratelimit-",
    "x-hubspot-ratelimit-",
    "x-ms-ratelimit-remaining-",
    "x-ai-ratelimit-",
    "x-beta-ratelimit-",
    "x-ratelimit-",
    "x-rate-limit-",
    "x-app-limit-",
    "x-user-limit-",
    "ratelimit-",
];

/// `USED/LIMIT` (Shopify's call limit, each of Salesforce's limits): one family.
fn used_of_limit(
    header: String,
    v: &str,
    window_seconds: Option<f64>,
    policy: String,
) -> Option<Family> {
    let (used, limit) = v.split_once('/')?;
    let (u, l) = (num(used)?, num(limit)?);
    Some(Family {
        header,
        unit: Unit::Requests,
        limits: Limits {
            limit: Some(l),
            remaining: Some((l - u).max(0.0)),
            reset_seconds: None,
            window_seconds,
            policy: Some(policy),
        },
    })
}

/// Zendesk's `Zendesk-RateLimit-NAME: total=…; remaining=…; resets=…`.
fn zendesk(n: &str, v: &str) -> Option<Family> {
    let mut acc = Acc {
        header: n.to_string(),
        ..Acc::default()
    };
    for kv in v.split(';') {
        let Some((k, x)) = kv.trim().split_once('=') else {
            continue;
        };
        match k.trim() {
            "total" => acc.limit = num(x),
            "remaining" => acc.remaining = num(x),
            "resets" => acc.reset = num(x),
            _ => {}
        }
    }
    acc.policy = n.strip_prefix("zendesk-ratelimit-").map(str::to_string);
    acc.has_numbers().then(|| acc.finish())
}

/// Every family of rate-limit headers on a response, in header order.
pub fn parse_all(headers: &Headers, now: Option<DateTime<Utc>>) -> Vec<Family> {
    let mut accs: Vec<(String, Acc)> = Vec::new();
    let mut meta: Vec<(String, String)> = Vec::new();
    let mut out: Vec<Family> = Vec::new();
    for (name, value) in headers.iter() {
        let n = name.trim().to_ascii_lowercase();
        let v = value.trim();
        if !vendor_header(&n, v, &mut accs, &mut out) {
            prefixed_header(&n, v, now, &mut accs, &mut meta);
        }
    }
    // Metadata headers name the policy of the prefix's base family.
    for (prefix, value) in meta {
        let base = prefix.trim_end_matches('-');
        if let Some((_, acc)) = accs.iter_mut().find(|(k, _)| k == base) {
            if acc.policy.is_none() {
                acc.policy = Some(value);
            }
        }
    }
    let mut fams: Vec<Family> = accs
        .into_iter()
        .map(|(_, a)| a)
        .filter(Acc::has_numbers)
        .map(Acc::finish)
        .collect();
    fams.extend(ietf(headers, "ratelimit", "ratelimit-policy"));
    fams.extend(ietf(headers, "beta-ratelimit", "beta-ratelimit-policy"));
    fams.extend(out);
    share_views_of_one_limit(&mut fams);
    fams
}

/// A header with a name of its own (`n` lower-cased): the IETF fields (read apart, by
/// [`ietf`]), Shopify's and Salesforce's used/limit pairs, Zendesk's. False when `n` is none
/// of them.
fn vendor_header(n: &str, v: &str, accs: &mut Vec<(String, Acc)>, out: &mut Vec<Family>) -> bool {
    match n {
        "ratelimit-policy" | "ratelimit" | "beta-ratelimit-policy" | "beta-ratelimit" => {}
        "x-shopify-shop-api-call-limit" => {
            out.extend(used_of_limit(
                "x-shopify-shop-api-call-limit".into(),
                v,
                None,
                "leaky bucket".into(),
            ));
        }
        "sforce-limit-info" => {
            for part in v.split(',') {
                let Some((k, val)) = part.trim().split_once('=') else {
                    continue;
                };
                let val = val.split('(').next().unwrap_or(val);
                out.extend(used_of_limit(
                    format!("sforce-limit-info {}", k.trim()),
                    val,
                    Some(86400.0),
                    k.trim().to_string(),
                ));
            }
        }
        "x-rate-limit" => {
            // Zendesk: the bare name is the limit.
            let acc = entry(accs, "x-rate-limit", &[]);
            acc.limit = acc.limit.or(num(v));
        }
        _ if n.starts_with("zendesk-ratelimit-") => out.extend(zendesk(n, v)),
        _ => return false,
    }
    true
}

/// A header of a prefixed family (`x-ratelimit-remaining`, `x-ratelimit-limit-minute`, …):
/// its field into the family's accumulator; a metadata header (`…-policy`, `…-scope`) into
/// `meta`.
fn prefixed_header(
    n: &str,
    v: &str,
    now: Option<DateTime<Utc>>,
    accs: &mut Vec<(String, Acc)>,
    meta: &mut Vec<(String, String)>,
) {
    let Some(prefix) = PREFIXES.iter().find(|p| n.starts_with(**p)) else {
        return;
    };
    let rest = &n[prefix.len()..];
    let tokens: Vec<&str> = rest.split('-').filter(|t| !t.is_empty()).collect();
    if *prefix == "x-ms-ratelimit-remaining-" {
        let acc = entry(accs, n, &[]);
        acc.remaining = num(v);
        acc.policy = Some(rest.to_string());
        return;
    }
    if matches!(
        rest,
        "resource" | "bucket" | "scope" | "name" | "reason" | "policy"
    ) {
        meta.push((prefix.to_string(), v.to_string()));
        return;
    }
    let (field, quals) = split_field(prefix, &tokens);
    let Some(field) = field else { return };
    let base = prefix.trim_end_matches('-');
    let acc = entry(accs, base, &quals);
    match field {
        Field::Limit => {
            acc.limit = acc.limit.or(num(v));
            if acc.window.is_none() {
                acc.window = param_w(v);
            }
        }
        Field::LimitPerSecond => {
            // Akamai's extra per-second limit is its own family.
            let acc = entry(accs, base, &["per", "second"]);
            acc.limit = num(v);
            acc.window = Some(1.0);
        }
        Field::Remaining => acc.remaining = acc.remaining.or(num(v)),
        Field::Used => acc.used = acc.used.or(num(v)),
        Field::Reset => {
            if acc.reset.is_none() {
                acc.reset = reset_value(v, now);
            }
        }
        Field::ResetAfter => acc.reset = num_signed(v).filter(|x| *x >= 0.0),
        Field::WindowMs => acc.window = num(v).map(|ms| ms / 1000.0),
    }
}

/// Services often state one limit twice (Kong: `RateLimit-*` with the reset and
/// `X-RateLimit-*-Minute` with the window; Zendesk: `X-Rate-Limit` and `RateLimit-*`). Two
/// families with the same unit, limit and remaining are two views of one limit: each fills in
/// the reset or window the other states.
fn share_views_of_one_limit(fams: &mut [Family]) {
    for i in 0..fams.len() {
        for j in 0..fams.len() {
            if i == j {
                continue;
            }
            let (a, b) = (&fams[i], &fams[j]);
            let same = a.unit == b.unit
                && a.limits.limit.is_some()
                && a.limits.limit == b.limits.limit
                && a.limits.remaining.is_some()
                && a.limits.remaining == b.limits.remaining;
            if !same {
                continue;
            }
            let (reset, window) = (b.limits.reset_seconds, b.limits.window_seconds);
            let a = &mut fams[i].limits;
            if a.reset_seconds.is_none() {
                a.reset_seconds = reset;
            }
            if a.window_seconds.is_none() {
                a.window_seconds = window;
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Field {
    Limit,
    LimitPerSecond,
    Remaining,
    Used,
    Reset,
    ResetAfter,
    WindowMs,
}

/// Find the field word in a header name's tokens; the other tokens qualify the family.
fn split_field<'a>(prefix: &str, tokens: &[&'a str]) -> (Option<Field>, Vec<&'a str>) {
    let mut field = None;
    let mut quals = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i];
        let next = tokens.get(i + 1).copied();
        let f = match t {
            "limit" if next == Some("per") && tokens.get(i + 2) == Some(&"second") => {
                i += 2;
                Some(Field::LimitPerSecond)
            }
            "limit" | "max" => Some(Field::Limit),
            "remaining" => Some(Field::Remaining),
            "used" | "observed" => Some(Field::Used),
            "reset" if next == Some("after") => {
                i += 1;
                Some(Field::ResetAfter)
            }
            "reset" | "resettime" | "resets" => Some(Field::Reset),
            "interval" if next == Some("milliseconds") => {
                i += 1;
                Some(Field::WindowMs)
            }
            _ => None,
        };
        match (f, field) {
            (Some(f), None) => field = Some(f),
            _ => quals.push(t),
        }
        i += 1;
    }
    // HubSpot: `X-HubSpot-RateLimit-Daily` / `-Secondly` are the limits of those families.
    if field.is_none()
        && prefix == "x-hubspot-ratelimit-"
        && matches!(tokens, ["daily"] | ["secondly"])
    {
        field = Some(Field::Limit);
    }
    (field, quals)
}

fn entry<'m>(accs: &'m mut Vec<(String, Acc)>, base: &str, quals: &[&str]) -> &'m mut Acc {
    let mut q: Vec<String> = quals.iter().map(|s| s.to_string()).collect();
    q.sort();
    let key = if q.is_empty() {
        base.to_string()
    } else {
        format!("{base}-*-{}", q.join("-"))
    };
    let idx = match accs.iter().position(|(k, _)| *k == key) {
        Some(i) => i,
        None => {
            accs.push((
                key.clone(),
                Acc {
                    header: key.clone(),
                    qualifiers: q,
                    ..Acc::default()
                },
            ));
            accs.len() - 1
        }
    };
    &mut accs[idx].1
}

fn unit_of(quals: &[String]) -> Unit {
    if quals
        .iter()
        .any(|q| q == "tokens" || q == "input" || q == "output")
    {
        Unit::Tokens
    } else if quals.iter().any(|q| q == "requests") {
        Unit::Requests
    } else if quals
        .iter()
        .any(|q| q == "concurrent" || q == "concurrency")
    {
        Unit::Concurrency
    } else {
        Unit::Unspecified
    }
}

fn window_of(quals: &[String]) -> Option<f64> {
    quals.iter().find_map(|q| match q.as_str() {
        "second" | "secondly" => Some(1.0),
        "minute" => Some(60.0),
        "hour" => Some(3600.0),
        "day" | "daily" | "24hour" => Some(86400.0),
        "month" => Some(2_592_000.0),
        "year" => Some(31_536_000.0),
        _ => None,
    })
}

/// Qualifiers that are neither a window nor a unit name the limit (Kong response-ratelimiting
/// `X-RateLimit-Limit-Videos-Minute`, OpenAI `tokens_usage_based`).
fn named_policy(quals: &[String]) -> Option<String> {
    let named: Vec<&str> = quals
        .iter()
        .map(String::as_str)
        .filter(|q| window_of(&[q.to_string()]).is_none())
        .collect();
    if named.is_empty() {
        None
    } else {
        Some(named.join("-"))
    }
}

/// A non-negative number at the start of a value (`100`, `100, 100;w=10`, `2.0`).
fn num(v: &str) -> Option<f64> {
    num_signed(v).filter(|x| *x >= 0.0)
}

fn num_signed(v: &str) -> Option<f64> {
    let head = v.trim().split([',', ';', ' ']).next()?.trim();
    let x: f64 = head.parse().ok()?;
    x.is_finite().then_some(x)
}

/// `w=60` inside an older-draft limit value (`100, 100;w=60`).
fn param_w(v: &str) -> Option<f64> {
    v.split([',', ';'])
        .find_map(|p| p.trim().strip_prefix("w="))
        .and_then(num)
}

/// The smallest reset value read as an epoch (seconds or milliseconds), not a delta.
pub const EPOCH_FROM: f64 = 1e9;

/// Seconds until reset from a reset value: delta seconds, epoch seconds or milliseconds (told
/// apart by magnitude), a Go-style duration (`6m0s`), RFC 3339 / ISO 8601, or an HTTP-date.
pub fn reset_value(v: &str, now: Option<DateTime<Utc>>) -> Option<f64> {
    let v = v.trim();
    if v.is_empty() {
        return None;
    }
    let until =
        |t: DateTime<Utc>| now.map(|n| ((t - n).num_milliseconds() as f64 / 1000.0).max(0.0));
    if let Ok(x) = v.parse::<f64>() {
        if !x.is_finite() || x < 0.0 {
            return None;
        }
        if x >= EPOCH_FROM {
            // 10^9 s is 2001: a delta that large is not plausible, an epoch is.
            return epoch_to_datetime(x).and_then(until);
        }
        return Some(x);
    }
    if v.starts_with(|c: char| c.is_ascii_digit())
        && v.ends_with(|c: char| c.is_ascii_alphabetic())
        && !v.contains([' ', ':'])
    {
        if let Ok(ms) = crate::units::parse_duration_ms(v) {
            return Some(ms / 1000.0);
        }
    }
    if let Some(t) = parse_http_date(v) {
        return until(t);
    }
    parse_timestamp(v).and_then(until)
}

/// A tiny RFC 8941 list reader: members split on top-level commas, each an item and its
/// `;key=value` parameters. Quoted strings keep their commas and semicolons.
pub fn sf_list(v: &str) -> Vec<(String, Vec<(String, String)>)> {
    let mut members = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut parts: Vec<String> = Vec::new();
    for c in v.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                cur.push(c);
            }
            ',' if !quoted => parts.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    parts.push(cur);
    for p in parts {
        let p = p.trim();
        if p.is_empty() {
            continue;
        }
        let mut segs = split_unquoted(p, ';').into_iter();
        let item = segs
            .next()
            .unwrap_or_default()
            .trim()
            .trim_matches('"')
            .to_string();
        let params = segs
            .map(|s| {
                let (k, v) = s.split_once('=').unwrap_or((s.as_str(), "?1"));
                (
                    k.trim().to_ascii_lowercase(),
                    v.trim().trim_matches('"').to_string(),
                )
            })
            .collect();
        members.push((item, params));
    }
    members
}

fn split_unquoted(s: &str, sep: char) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in s.chars() {
        if c == '"' {
            quoted = !quoted;
        }
        if c == sep && !quoted {
            out.push(std::mem::take(&mut cur));
        } else {
            cur.push(c);
        }
    }
    out.push(cur);
    out
}

fn param<'a>(params: &'a [(String, String)], k: &str) -> Option<&'a str> {
    params.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str())
}

/// The IETF structured fields: `RateLimit-Policy: "burst";q=100;w=60` and
/// `RateLimit: "burst";r=50;t=30` joined by policy name; also the draft-07 dictionary form
/// `RateLimit: limit=100, remaining=50, reset=5`.
fn ietf(headers: &Headers, state_name: &str, policy_name: &str) -> Vec<Family> {
    let policies: Vec<_> = headers.get_all(policy_name).flat_map(sf_list).collect();
    let states: Vec<_> = headers.get_all(state_name).flat_map(sf_list).collect();
    let mut out = Vec::new();
    if policies.is_empty() && states.is_empty() {
        return out;
    }
    if let Some(f) = ietf_dictionary(headers, state_name, policy_name, &states, &policies) {
        out.push(f);
        return out;
    }
    let mut used_states = vec![false; states.len()];
    for (pname, pparams) in &policies {
        out.push(ietf_policy(
            policy_name,
            pname,
            pparams,
            &policies,
            &states,
            &mut used_states,
        ));
    }
    for (i, (sname, sparams)) in states.iter().enumerate() {
        if used_states[i] {
            continue;
        }
        out.push(Family {
            header: state_name.to_string(),
            unit: Unit::Unspecified,
            limits: Limits {
                limit: None,
                remaining: param(sparams, "r").and_then(num),
                reset_seconds: param(sparams, "t").and_then(num),
                window_seconds: None,
                policy: (!sname.is_empty()).then(|| sname.clone()),
            },
        });
    }
    out
}

/// A structured-field list member: the item and its parameters.
type SfMember = (String, Vec<(String, String)>);

/// The dictionary form (draft-07): items like `limit=100`; `None` when the state is not one.
fn ietf_dictionary(
    headers: &Headers,
    state_name: &str,
    policy_name: &str,
    states: &[SfMember],
    policies: &[SfMember],
) -> Option<Family> {
    let dict: Vec<(String, String)> = states
        .iter()
        .filter_map(|(item, _)| {
            item.split_once('=')
                .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        })
        .collect();
    if dict.is_empty() {
        return None;
    }
    let get = |k: &str| dict.iter().find(|(n, _)| n == k).and_then(|(_, v)| num(v));
    Some(Family {
        header: state_name.to_string(),
        unit: Unit::Unspecified,
        limits: Limits {
            limit: get("limit"),
            remaining: get("remaining"),
            reset_seconds: get("reset"),
            // The companion policy (`RateLimit-Policy: 100;w=900`) states the window.
            window_seconds: policies
                .first()
                .and_then(|(_, p)| param(p, "w"))
                .and_then(num),
            policy: headers.get(policy_name).map(|v| v.trim().to_string()),
        },
    })
}

/// One policy's family, with the state of the same name (or the only state, beside the only
/// policy), which is marked used.
fn ietf_policy(
    policy_name: &str,
    pname: &String,
    pparams: &[(String, String)],
    policies: &[SfMember],
    states: &[SfMember],
    used_states: &mut [bool],
) -> Family {
    let unit_of_qu = |qu: Option<&str>| match qu {
        Some("concurrent-requests") => Unit::Concurrency,
        Some("content-bytes") => Unit::Bytes,
        Some("requests") => Unit::Requests,
        _ => Unit::Unspecified,
    };
    // Old drafts: the item is the quota itself (`100;w=60`).
    let q = param(pparams, "q").and_then(num).or_else(|| num(pname));
    let named = num(pname).is_none();
    let si = states
        .iter()
        .position(|(s, _)| named && s == pname)
        .or((policies.len() == 1 && states.len() == 1).then_some(0));
    let (r, t) = match si {
        Some(i) => {
            used_states[i] = true;
            (
                param(&states[i].1, "r").and_then(num),
                param(&states[i].1, "t").and_then(num),
            )
        }
        None => (None, None),
    };
    Family {
        header: format!("{policy_name} {}", if named { pname.as_str() } else { "" })
            .trim()
            .to_string(),
        unit: unit_of_qu(param(pparams, "qu")),
        limits: Limits {
            limit: q,
            remaining: r,
            reset_seconds: t,
            window_seconds: param(pparams, "w").and_then(num),
            policy: if named {
                Some(pname.clone())
            } else {
                q.map(crate::units::fmt_num)
            },
        },
    }
}

/// A request allowance one response states: how many, over what window when it says, and
/// which header or body phrase said so (for the report: a stated limit names its source).
#[derive(Debug, Clone, PartialEq)]
pub struct Stated {
    pub count: f64,
    pub window_s: Option<f64>,
    /// `X-RateLimit-Limit: 120`, `the body: "120 requests per minute"`, or both.
    pub by: String,
}

/// The request allowance a response states in its rate-limit headers (the binding family of
/// requests) and its body ("120 requests per minute"); the body fills in a window the headers
/// leave out when both give the same count.
pub fn stated(headers: &Headers, body: Option<&str>, now: Option<DateTime<Utc>>) -> Option<Stated> {
    let fams = parse_all(headers, now);
    let fam = binding(&fams)
        .filter(|f| {
            matches!(f.unit, Unit::Requests | Unit::Unspecified) && f.limits.limit.is_some()
        })
        .or_else(|| {
            fams.iter().find(|f| {
                matches!(f.unit, Unit::Requests | Unit::Unspecified) && f.limits.limit.is_some()
            })
        });
    let from_body = body.and_then(stated_in_text);
    let from_headers = fam.and_then(|f| {
        let count = f.limits.limit.filter(|c| *c > 0.0 && c.is_finite())?;
        // The header line that carries the count, as written.
        let line = headers
            .iter()
            .find(|(n, v)| {
                let n = n.trim().to_ascii_lowercase();
                n.starts_with(f.header.split(' ').next().unwrap_or(""))
                    && n.contains("limit")
                    && num(v) == Some(count)
            })
            .map(|(n, v)| format!("{}: {}", n.trim(), v.trim()))
            .unwrap_or_else(|| f.header.clone());
        Some(Stated {
            count,
            window_s: f
                .limits
                .window_seconds
                .filter(|w| *w > 0.0 && w.is_finite()),
            by: line,
        })
    });
    match (from_headers, from_body) {
        (Some(mut h), Some((c, w, phrase))) if h.count == c => {
            if h.window_s.is_none() {
                h.window_s = Some(w);
            }
            h.by = format!("{} and the body: \"{phrase}\"", h.by);
            Some(h)
        }
        (Some(h), _) => Some(h),
        (None, Some((c, w, phrase))) => Some(Stated {
            count: c,
            window_s: Some(w),
            by: format!("the body: \"{phrase}\""),
        }),
        (None, None) => None,
    }
}

/// A request allowance a server states in words, e.g. a 429 body's "Rate limit of 120
/// requests per minute exceeded": (requests, window in seconds, the phrase as written).
/// Only counts of requests (calls, queries) per a unit of time, or "limit of N per unit".
pub fn stated_in_text(text: &str) -> Option<(f64, f64, String)> {
    use std::sync::OnceLock;
    static RE: OnceLock<regex::Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        let unit = r"(seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|s|m|h|d)\b";
        regex::Regex::new(&format!(
            r"(?i)(?:\b(\d[\d,]*(?:\.\d+)?)\s*(?:api\s+)?(?:requests?|reqs?|calls?|queries|hits)\s*(?:per|/|every|an?|each)\s*(\d+\s*)?{unit}|\blimit(?:ed)?\s*(?:of|to|is|:)?\s*(\d[\d,]*(?:\.\d+)?)\s*(?:per|/)\s*(\d+\s*)?{unit})"
        ))
        .expect("valid pattern")
    });
    let c = re.captures(text)?;
    let (count, per, unit) = match (c.get(1), c.get(4)) {
        (Some(n), _) => (n, c.get(2), c.get(3)?),
        (None, Some(n)) => (n, c.get(5), c.get(6)?),
        _ => return None,
    };
    let count: f64 = count.as_str().replace(',', "").parse().ok()?;
    let per: f64 = match per {
        Some(p) => p.as_str().trim().parse().ok()?,
        None => 1.0,
    };
    let unit_s = match unit.as_str().to_ascii_lowercase().chars().next()? {
        's' => 1.0,
        'm' => 60.0,
        'h' => 3600.0,
        'd' => 86400.0,
        _ => return None,
    };
    let window = per * unit_s;
    if !(count > 0.0 && count.is_finite() && window > 0.0) {
        return None;
    }
    Some((count, window, c.get(0)?.as_str().trim().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_stated_in_words() {
        let s = |t: &str| stated_in_text(t).map(|(c, w, _)| (c, w));
        assert_eq!(
            s("Rate limit of 120 requests per minute exceeded. Retry after 12 seconds."),
            Some((120.0, 60.0))
        );
        assert_eq!(s("limit: 10 req/s"), Some((10.0, 1.0)));
        assert_eq!(
            s("You may make 1,000 API calls per day"),
            Some((1000.0, 86400.0))
        );
        assert_eq!(
            s("at most 100 requests per 10 seconds"),
            Some((100.0, 10.0))
        );
        assert_eq!(s("Rate limited to 5 per hour"), Some((5.0, 3600.0)));
        assert_eq!(s("Retry after 12 seconds."), None);
        assert_eq!(s("Too Many Requests"), None);
        assert_eq!(
            stated_in_text("x 120 requests per minute y").unwrap().2,
            "120 requests per minute"
        );
    }

    fn h(pairs: &[(&str, &str)]) -> Headers {
        let mut h = Headers::new();
        for (n, v) in pairs {
            h.push(*n, *v);
        }
        h
    }

    fn now() -> Option<DateTime<Utc>> {
        parse_http_date("Mon, 07 Aug 2023 12:00:00 GMT")
    }

    #[test]
    fn github_epoch_reset_and_resource() {
        let epoch = now().unwrap().timestamp() + 600;
        let l = parse(
            &h(&[
                ("x-ratelimit-limit", "5000"),
                ("x-ratelimit-remaining", "0"),
                ("x-ratelimit-used", "5000"),
                ("x-ratelimit-reset", &epoch.to_string()),
                ("x-ratelimit-resource", "core"),
            ]),
            now(),
        )
        .unwrap();
        assert_eq!(l.limit, Some(5000.0));
        assert_eq!(l.remaining, Some(0.0));
        assert_eq!(l.reset_seconds, Some(600.0));
        assert_eq!(l.policy.as_deref(), Some("core"));
    }

    #[test]
    fn epoch_millis_and_delta_told_apart() {
        let ms = (now().unwrap().timestamp() + 30) * 1000;
        assert_eq!(reset_value(&ms.to_string(), now()), Some(30.0));
        assert_eq!(reset_value("30", now()), Some(30.0));
        assert_eq!(reset_value("1470173023.5", None), None);
    }

    #[test]
    fn openai_binding_family_is_tokens() {
        let fams = parse_all(
            &h(&[
                ("x-ratelimit-limit-requests", "500"),
                ("x-ratelimit-limit-tokens", "30000"),
                ("x-ratelimit-remaining-requests", "499"),
                ("x-ratelimit-remaining-tokens", "0"),
                ("x-ratelimit-reset-requests", "120ms"),
                ("x-ratelimit-reset-tokens", "6m0s"),
            ]),
            now(),
        );
        assert_eq!(fams.len(), 2);
        let b = binding(&fams).unwrap();
        assert_eq!(b.unit, Unit::Tokens);
        assert_eq!(b.limits.reset_seconds, Some(360.0));
        assert_eq!(b.limits.limit, Some(30000.0));
    }

    #[test]
    fn the_longest_exhausted_family_binds() {
        // Zendesk: x-rate-limit has no reset, ratelimit-* says 41 s.
        let fams = parse_all(
            &h(&[
                ("x-rate-limit", "700"),
                ("x-rate-limit-remaining", "0"),
                ("ratelimit-limit", "700"),
                ("ratelimit-remaining", "0"),
                ("ratelimit-reset", "41"),
            ]),
            now(),
        );
        assert_eq!(binding(&fams).unwrap().limits.reset_seconds, Some(41.0));
        // Kong states one limit twice: the reset in RateLimit-*, the window in -Minute.
        let fams = parse_all(
            &h(&[
                ("ratelimit-limit", "60"),
                ("ratelimit-remaining", "0"),
                ("ratelimit-reset", "23"),
                ("x-ratelimit-limit-minute", "60"),
                ("x-ratelimit-remaining-minute", "0"),
            ]),
            now(),
        );
        let b = &binding(&fams).unwrap().limits;
        assert_eq!(
            (b.reset_seconds, b.window_seconds),
            (Some(23.0), Some(60.0))
        );
        // Requests (1 s) and tokens (6 min) both spent: the tokens keep the caller waiting.
        let fams = parse_all(
            &h(&[
                ("x-ratelimit-limit-requests", "500"),
                ("x-ratelimit-remaining-requests", "0"),
                ("x-ratelimit-reset-requests", "1s"),
                ("x-ratelimit-limit-tokens", "30000"),
                ("x-ratelimit-remaining-tokens", "0"),
                ("x-ratelimit-reset-tokens", "6m0s"),
            ]),
            now(),
        );
        let b = binding(&fams).unwrap();
        assert_eq!(
            (b.unit, b.limits.reset_seconds),
            (Unit::Tokens, Some(360.0))
        );
    }

    #[test]
    fn anthropic_rfc3339_reset() {
        let fams = parse_all(
            &h(&[
                ("anthropic-ratelimit-requests-limit", "50"),
                ("anthropic-ratelimit-requests-remaining", "0"),
                ("anthropic-ratelimit-requests-reset", "2023-08-07T12:00:20Z"),
                ("anthropic-ratelimit-input-tokens-limit", "40000"),
                ("anthropic-ratelimit-input-tokens-remaining", "39000"),
            ]),
            now(),
        );
        let b = binding(&fams).unwrap();
        assert_eq!(b.unit, Unit::Requests);
        assert_eq!(b.limits.reset_seconds, Some(20.0));
        assert!(fams.iter().any(|f| f.unit == Unit::Tokens));
    }

    #[test]
    fn kong_suffix_windows() {
        let fams = parse_all(
            &h(&[
                ("X-RateLimit-Limit-Minute", "10"),
                ("X-RateLimit-Remaining-Minute", "0"),
                ("X-RateLimit-Limit-Day", "1000"),
                ("X-RateLimit-Remaining-Day", "990"),
                ("RateLimit-Limit", "10"),
                ("RateLimit-Remaining", "0"),
                ("RateLimit-Reset", "42"),
            ]),
            now(),
        );
        let minute = fams
            .iter()
            .find(|f| f.limits.window_seconds == Some(60.0))
            .unwrap();
        assert_eq!(minute.limits.remaining, Some(0.0));
        assert!(fams
            .iter()
            .any(|f| f.limits.window_seconds == Some(86400.0)));
        let trio = fams.iter().find(|f| f.header == "ratelimit").unwrap();
        assert_eq!(trio.limits.reset_seconds, Some(42.0));
    }

    #[test]
    fn ietf_structured_fields() {
        let fams = parse_all(
            &h(&[
                (
                    "RateLimit-Policy",
                    "\"burst\";q=100;w=60,\"daily\";q=1000;w=86400",
                ),
                ("RateLimit", "\"daily\";r=0;t=3600"),
            ]),
            now(),
        );
        let b = binding(&fams).unwrap();
        assert_eq!(b.limits.policy.as_deref(), Some("daily"));
        assert_eq!(b.limits.window_seconds, Some(86400.0));
        assert_eq!(b.limits.reset_seconds, Some(3600.0));
        let old = parse(
            &h(&[("RateLimit", "limit=100, remaining=0, reset=5")]),
            None,
        )
        .unwrap();
        assert_eq!(old.reset_seconds, Some(5.0));
        let conc = parse_all(
            &h(&[("RateLimit-Policy", "\"c\";q=10;qu=\"concurrent-requests\"")]),
            None,
        );
        assert_eq!(conc[0].unit, Unit::Concurrency);
    }

    #[test]
    fn draft03_limit_with_window() {
        let l = parse(
            &h(&[
                ("x-ratelimit-limit", "10, 10;w=60"),
                ("x-ratelimit-remaining", "0"),
                ("x-ratelimit-reset", "7"),
            ]),
            None,
        )
        .unwrap();
        assert_eq!(l.limit, Some(10.0));
        assert_eq!(l.window_seconds, Some(60.0));
        assert_eq!(l.reset_seconds, Some(7.0));
    }

    #[test]
    fn vendor_forms() {
        let s = parse(&h(&[("X-Shopify-Shop-Api-Call-Limit", "40/40")]), None).unwrap();
        assert_eq!((s.limit, s.remaining), (Some(40.0), Some(0.0)));
        let sf = parse(&h(&[("Sforce-Limit-Info", "api-usage=5000/5000")]), None).unwrap();
        assert_eq!(sf.window_seconds, Some(86400.0));
        let x = parse_all(
            &h(&[
                ("x-rate-limit-limit", "900"),
                ("x-rate-limit-remaining", "0"),
                ("x-app-limit-24hour-limit", "500"),
                ("x-app-limit-24hour-remaining", "400"),
            ]),
            None,
        );
        assert!(x.iter().any(|f| f.limits.window_seconds == Some(86400.0)));
        let ms = parse(
            &h(&[("x-ms-ratelimit-remaining-subscription-reads", "11999")]),
            None,
        )
        .unwrap();
        assert_eq!(ms.remaining, Some(11999.0));
        assert_eq!(ms.policy.as_deref(), Some("subscription-reads"));
        let d = parse(
            &h(&[
                ("X-RateLimit-Remaining", "0"),
                ("X-RateLimit-Reset-After", "0.729"),
                ("X-RateLimit-Bucket", "abcd"),
            ]),
            None,
        )
        .unwrap();
        assert_eq!(d.reset_seconds, Some(0.729));
        assert_eq!(d.policy.as_deref(), Some("abcd"));
        let hs = parse_all(
            &h(&[
                ("X-HubSpot-RateLimit-Daily", "250000"),
                ("X-HubSpot-RateLimit-Daily-Remaining", "0"),
            ]),
            None,
        );
        assert_eq!(hs[0].limits.window_seconds, Some(86400.0));
        let z = parse(
            &h(&[(
                "zendesk-ratelimit-tickets-index",
                "total=100; remaining=0; resets=41",
            )]),
            None,
        )
        .unwrap();
        assert_eq!(z.reset_seconds, Some(41.0));
        assert!(parse(&h(&[("content-type", "text/plain")]), None).is_none());
        let neg = parse(
            &h(&[
                ("x-ratelimit-limit-requests", "-1"),
                ("x-ratelimit-remaining-requests", "-1"),
            ]),
            None,
        );
        assert!(neg.is_none());
    }
}

#[cfg(test)]
mod props {
    use super::*;
    use proptest::prelude::*;

    const NAMES: &[&str] = &[
        "x-ratelimit-",
        "ratelimit-",
        "x-rate-limit-",
        "anthropic-ratelimit-",
        "x-app-limit-",
        "x-hubspot-ratelimit-",
        "x-ms-ratelimit-remaining-",
        "ratelimit",
        "ratelimit-policy",
        "beta-ratelimit",
        "x-shopify-shop-api-call-limit",
        "sforce-limit-info",
        "zendesk-ratelimit-",
        "x-rate-limit",
    ];

    proptest! {
        #[test]
        fn never_panics(
            heads in prop::collection::vec(
                (prop::sample::select(NAMES.to_vec()), "[a-z0-9-]{0,20}", "\\PC{0,40}"), 0..8),
            secs in proptest::option::of(0i64..4_000_000_000),
        ) {
            let mut h = Headers::new();
            for (p, suffix, v) in heads {
                h.push(format!("{p}{suffix}"), v);
            }
            let now = secs.and_then(|s| DateTime::from_timestamp(s, 0));
            for f in parse_all(&h, now) {
                for x in [f.limits.limit, f.limits.remaining, f.limits.reset_seconds, f.limits.window_seconds].into_iter().flatten() {
                    prop_assert!(x.is_finite() && x >= 0.0);
                }
            }
            let _ = parse(&h, now);
        }

        #[test]
        fn structured_values_never_panic(v in "[\"a-z0-9;=, ]{0,60}") {
            let mut h = Headers::new();
            h.push("RateLimit-Policy", v.clone());
            h.push("RateLimit", v);
            let _ = parse_all(&h, None);
        }
    }
}
