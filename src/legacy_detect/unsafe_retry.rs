//! `unsafe_retry`: a non-idempotent write (POST, PATCH) retried with no idempotency key, or with
//! a different key on some attempt (a new key makes each attempt a separate operation). PUT and
//! DELETE are idempotent by definition (RFC 9110 §9.2.2) but often not in practice: noted at
//! `info`, and so are POSTs to a GraphQL endpoint (a query is safe to repeat, a mutation is not,
//! and only the body's fingerprint is kept). A write retried with the same key on every
//! attempt is fine.
//!
//! Keys are recognised by header name (anything containing `idempoten`, and vendor forms such
//! as `PayPal-Request-Id`); values are compared as redacted fingerprints. A 429 usually means
//! the request was rejected before processing; a 5xx, timeout or lost response may follow
//! partial processing, which makes the retry riskier (`critical`).

use super::logical::{idempotency_key, Logical};
use super::{at, Context, Finding, Severity};
use crate::http::url::split;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Problem {
    NoKey,
    KeyChanged,
}

struct Case<'l> {
    l: &'l Logical,
    problem: Problem,
    /// A failed attempt was not a 429 (5xx, 408, no response): it may have been applied.
    maybe_applied: bool,
}

/// A path with resource ids replaced by `{id}` (segments holding a digit, except `v1`-style
/// versions), so one endpoint's operations are counted together.
fn path_template(path: &str) -> String {
    path.split('/')
        .map(|seg| {
            let version = seg.len() <= 3
                && seg.starts_with('v')
                && seg[1..].bytes().all(|b| b.is_ascii_digit());
            if !version && seg.bytes().any(|b| b.is_ascii_digit()) {
                "{id}"
            } else {
                seg
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

fn judge<'l>(cx: &Context, l: &'l Logical) -> Option<Case<'l>> {
    if l.attempts.len() < 2 {
        return None;
    }
    let keys: Vec<Option<&str>> = l
        .attempts
        .iter()
        .map(|&i| idempotency_key(&cx.requests[i].request_headers).map(|(_, v)| v))
        .collect();
    let distinct: BTreeSet<Option<&str>> = keys.iter().copied().collect();
    let problem = if keys.iter().all(Option::is_none) {
        Problem::NoKey
    } else if distinct.len() > 1 {
        Problem::KeyChanged
    } else {
        return None;
    };
    let failed = &l.attempts[..l.attempts.len() - 1];
    let maybe_applied = failed.iter().any(|&i| cx.requests[i].status != 429);
    Some(Case {
        l,
        problem,
        maybe_applied,
    })
}

/// How much a keyless retry of this kind of request matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Class {
    /// POST, PATCH: not idempotent.
    Write,
    /// PUT, DELETE: idempotent by definition, often not in practice.
    Idempotent,
    /// POST to a GraphQL endpoint: a query (safe) or a mutation (not); the body tells, and only
    /// its fingerprint is kept.
    GraphQl,
}

impl Class {
    fn of(method: &str, path: &str) -> Option<Class> {
        match method {
            "POST"
                if path
                    .to_ascii_lowercase()
                    .trim_end_matches('/')
                    .ends_with("graphql") =>
            {
                Some(Class::GraphQl)
            }
            "POST" | "PATCH" => Some(Class::Write),
            "PUT" | "DELETE" => Some(Class::Idempotent),
            _ => None,
        }
    }

    fn label(self) -> &'static str {
        match self {
            Class::Write => "non-idempotent",
            Class::Idempotent => "PUT/DELETE",
            Class::GraphQl => "GraphQL",
        }
    }

    fn methods(self) -> &'static str {
        match self {
            Class::Write => "POST/PATCH",
            Class::Idempotent => "PUT/DELETE",
            Class::GraphQl => "POST (GraphQL)",
        }
    }
}

pub fn detect(cx: &Context) -> Vec<Finding> {
    let mut groups: BTreeMap<(String, Class), Vec<Case>> = BTreeMap::new();
    for l in &cx.attempts.logical {
        let Some(&first) = l.attempts.first() else {
            continue;
        };
        let r = &cx.requests[first];
        let Some(class) = Class::of(&r.method.to_ascii_uppercase(), split(&r.url).path) else {
            continue;
        };
        if let Some(c) = judge(cx, l) {
            groups
                .entry((cx.host(first).to_string(), class))
                .or_default()
                .push(c);
        }
    }
    let mut out = Vec::new();
    for ((host, class), cases) in groups {
        let no_key = cases.iter().filter(|c| c.problem == Problem::NoKey).count();
        let changed = cases.len() - no_key;
        let applied = cases.iter().filter(|c| c.maybe_applied).count();
        let retries: usize = cases.iter().map(|c| c.l.retries()).sum();
        let mut ops: BTreeMap<String, usize> = BTreeMap::new();
        for c in &cases {
            let r = &cx.requests[c.l.attempts[0]];
            *ops.entry(format!(
                "{} {}",
                r.method.to_ascii_uppercase(),
                path_template(split(&r.url).path)
            ))
            .or_insert(0) += 1;
        }
        let mut ops: Vec<(String, usize)> = ops.into_iter().collect();
        ops.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let op_text: Vec<&str> = ops.iter().take(3).map(|(o, _)| o.as_str()).collect();
        let how = match (no_key, changed) {
            (_, 0) => "without an idempotency key".to_string(),
            (0, _) => "with a different idempotency key on some attempt, so each attempt is a separate operation".to_string(),
            (n, m) => format!("without an idempotency key ({n}) or with a different key on some attempt ({m})"),
        };
        let mut summary = format!(
            "{} {} write{} to {host} ({}) {} retried {how} ({retries} retries)",
            cases.len(),
            class.label(),
            if cases.len() == 1 { "" } else { "s" },
            op_text.join(", "),
            if cases.len() == 1 { "was" } else { "were" },
        );
        if applied > 0 {
            summary.push_str(&format!(
                "; {applied} of them retried after a 5xx, timeout or lost response, so an earlier attempt may already have been applied"
            ));
        }
        if class == Class::GraphQl {
            summary.push_str(" (harmless for queries, a duplicate for mutations)");
        }
        summary.push('.');
        let severity = if class != Class::Write {
            Severity::Info
        } else if changed > 0 || applied > 0 {
            Severity::Critical
        } else {
            Severity::Warning
        };
        let examples: Vec<Value> = cases
            .iter()
            .take(5)
            .map(|c| {
                json!({
                    "attempts": c.l.attempts.len(),
                    "problem": match c.problem { Problem::NoKey => "no_key", Problem::KeyChanged => "key_changed" },
                    "statuses": c.l.attempts.iter().map(|&i| cx.requests[i].status).collect::<Vec<_>>(),
                    "client": cx.clients.label(c.l.client),
                    "first": at(&cx.requests[c.l.attempts[0]]),
                    "last": at(&cx.requests[*c.l.attempts.last().unwrap_or(&c.l.attempts[0])]),
                })
            })
            .collect();
        out.push(Finding::new(
            "unsafe_retry",
            severity,
            summary,
            json!({
                "host": host,
                "methods": class.methods(),
                "logical_requests": cases.len(),
                "retries": retries,
                "without_key": no_key,
                "key_changed": changed,
                "after_possible_processing": applied,
                "operations": ops.iter().take(10).map(|(o, n)| json!({"operation": o, "logical_requests": n})).collect::<Vec<_>>(),
                "examples": examples,
            }),
        ));
    }
    out
}
