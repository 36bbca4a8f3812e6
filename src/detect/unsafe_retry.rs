//! `unsafe_retry`: a non-idempotent write (POST, PATCH) retried with no idempotency key, or with
//! a different key on some attempt (a new key makes each attempt a separate operation). A write
//! retried with the same key on every attempt is fine.
//!
//! PUT and DELETE are idempotent by definition (RFC 9110 §9.2.2: the intended effect of
//! several identical requests is that of one, so a client may retry them): retried after 429s
//! only (each refused before processing) they are not reported at all, not even at `info`
//! (issue 11: findings only for what is wrong). Retried after a 5xx, timeout or lost response
//! an earlier attempt may have been applied, and a PUT or DELETE that is not idempotent in
//! practice (a server-side counter, a generated id) would then act twice: noted at `info`. POSTs
//! to a GraphQL endpoint are `info` too (a query is safe to repeat, a mutation is not, and only
//! the body's fingerprint is kept).
//!
//! Keys are recognised by header name (anything containing `idempoten`, and vendor forms such
//! as `PayPal-Request-Id`); values are compared as redacted fingerprints. A 429 usually means
//! the request was rejected before processing; a 5xx, timeout or lost response may follow
//! partial processing, which makes the retry riskier (`critical`).

use super::link::{Attempt, Logical};
use super::{Cx, Detector, Finding, Placed, Severity, Step};
use crate::model::event::{flag, Event, Method, NONE};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

#[cfg(test)]
use crate::model::event::path_template;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Problem {
    NoKey,
    KeyChanged,
}

/// An example operation (the first few in operation order are shown).
struct Example {
    order: (u64, u64),
    attempts: usize,
    problem: Problem,
    statuses: Vec<u16>,
    client: u32,
    first: Attempt,
    last: Attempt,
}

#[derive(Default)]
struct Group {
    cases: usize,
    no_key: usize,
    applied: usize,
    retries: usize,
    /// `METHOD /path/{id}` (endpoint id) → operations.
    ops: BTreeMap<u32, usize>,
    examples: Vec<Example>,
}

/// `unsafe_retry` (see the module doc).
#[derive(Default)]
pub struct UnsafeRetry {
    groups: BTreeMap<(u32, Class), Group>,
}

/// The problem with a retried write, if any, and whether a failed attempt may have been
/// applied (it was not a 429).
fn judge(l: &Logical) -> Option<(Problem, bool)> {
    if l.attempts.len() < 2 {
        return None;
    }
    let distinct: BTreeSet<u32> = l.attempts.iter().map(|a| a.ev.idem).collect();
    let problem = if distinct.len() == 1 && distinct.contains(&0) {
        Problem::NoKey
    } else if distinct.len() > 1 {
        Problem::KeyChanged
    } else {
        return None;
    };
    let failed = &l.attempts[..l.attempts.len() - 1];
    let maybe_applied = failed.iter().any(|a| a.ev.status != 429);
    Some((problem, maybe_applied))
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
    fn of(ev: &Event) -> Option<Class> {
        match ev.method() {
            Method::Post if ev.flags & flag::GRAPHQL != 0 => Some(Class::GraphQl),
            Method::Post | Method::Patch => Some(Class::Write),
            Method::Put | Method::Delete => Some(Class::Idempotent),
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

impl Detector for UnsafeRetry {
    fn step(&mut self, _s: &Step, _cx: &Cx) {}

    fn closed(&mut self, l: &Logical, _cx: &Cx) {
        let (Some(first), Some(last)) = (l.attempts.first(), l.attempts.last()) else {
            return;
        };
        let Some(class) = Class::of(&first.ev) else {
            return;
        };
        let Some((problem, applied)) = judge(l) else {
            return;
        };
        if class == Class::Idempotent && !applied {
            return;
        }
        let g = self.groups.entry((first.ev.host, class)).or_default();
        g.cases += 1;
        if problem == Problem::NoKey {
            g.no_key += 1;
        }
        if applied {
            g.applied += 1;
        }
        g.retries += l.retries();
        *g.ops.entry(first.ev.endpoint).or_insert(0) += 1;
        let ex = Example {
            order: l.order,
            attempts: l.attempts.len(),
            problem,
            statuses: l.attempts.iter().map(|a| a.ev.status).collect(),
            client: l.client,
            first: *first,
            last: *last,
        };
        if g.examples.len() < 5 || g.examples.last().is_some_and(|e| ex.order < e.order) {
            let at = g.examples.partition_point(|e| e.order < ex.order);
            g.examples.insert(at, ex);
            g.examples.truncate(5);
        }
    }

    fn finish(&mut self, cx: &Cx, _earlier: &[Finding]) -> Vec<Placed> {
        let mut out = Vec::new();
        for (&(host_id, class), g) in &self.groups {
            let host = cx.host(host_id).to_string();
            let f = finding(cx, &host, class, g);
            out.push(((host, class as u64), f));
        }
        out
    }
}

fn finding(cx: &Cx, host: &str, class: Class, g: &Group) -> Finding {
    let (no_key, applied, retries) = (g.no_key, g.applied, g.retries);
    let changed = g.cases - no_key;
    let ops = operations(cx, g);
    let op_text: Vec<&str> = ops.iter().take(3).map(|(o, _)| o.as_str()).collect();
    let how = match (no_key, changed) {
        (_, 0) => "without an idempotency key".to_string(),
        (0, _) => "with a different idempotency key on some attempt, so each attempt is a separate operation".to_string(),
        (n, m) => format!("without an idempotency key ({n}) or with a different key on some attempt ({m})"),
    };
    let mut summary = format!(
        "{} {} write{} to {host} ({}) {} retried {how} ({retries} retries)",
        g.cases,
        class.label(),
        if g.cases == 1 { "" } else { "s" },
        op_text.join(", "),
        if g.cases == 1 { "was" } else { "were" },
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
    Finding::new(
        super::Kind::UnsafeRetry,
        severity,
        summary,
        json!({
            "host": host,
            "methods": class.methods(),
            "logical_requests": g.cases,
            "retries": retries,
            "without_key": no_key,
            "key_changed": changed,
            "after_possible_processing": applied,
            "operations": ops.iter().take(10).map(|(o, n)| json!({"operation": o, "logical_requests": n})).collect::<Vec<_>>(),
            "examples": examples(cx, g),
        }),
    )
}

/// The group's operations by name, most cases first (one endpoint under two ids, merged).
fn operations(cx: &Cx, g: &Group) -> Vec<(String, usize)> {
    let mut ops: Vec<(String, usize)> = g
        .ops
        .iter()
        .map(|(&e, &n)| {
            let name = if e == NONE {
                String::new()
            } else {
                cx.endpoints.get(e as usize).cloned().unwrap_or_default()
            };
            (name, n)
        })
        .collect();
    // One endpoint may have come in under two ids only if its name were missing: merge.
    ops.sort();
    ops.dedup_by(|b, a| {
        if a.0 == b.0 {
            a.1 += b.1;
            true
        } else {
            false
        }
    });
    ops.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    ops
}

/// The group's first cases, as the report shows them.
fn examples(cx: &Cx, g: &Group) -> Vec<Value> {
    g
        .examples
        .iter()
        .map(|c| {
            json!({
                "attempts": c.attempts,
                "problem": match c.problem { Problem::NoKey => "no_key", Problem::KeyChanged => "key_changed" },
                "statuses": c.statuses,
                "client": cx.client_label(c.client),
                "first": cx.at(&c.first.ev),
                "last": cx.at(&c.last.ev),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::detect::testkit::*;

    fn payments(idem: Idem, method: &'static str) -> Vec<crate::model::Request> {
        let mut sim = Sim::new(Limiter::Window {
            limit: 15,
            window_s: 30.0,
        });
        for k in 0..2 {
            let mut w = Worker::new(
                &format!("checkout-{k}"),
                "https://api.pay.example/v1/charges",
                25,
            );
            w.method = method;
            w.body = true;
            w.idem = idem;
            w.spacing_s = 0.4;
            w.max_attempts = 3;
            w.backoff = Backoff::Exp {
                base: 2.0,
                cap: 10.0,
            };
            sim.workers.push(w);
        }
        sim.run()
    }

    fn unsafe_findings(reqs: &[crate::model::Request]) -> Vec<crate::detect::Finding> {
        crate::detect::testkit::run(reqs, &unknown_attributions(reqs), None)
            .findings
            .into_iter()
            .filter(|f| f.kind == "unsafe_retry")
            .collect()
    }

    #[test]
    fn post_without_key() {
        let f = unsafe_findings(&payments(Idem::None, "POST"));
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].severity, crate::detect::Severity::Warning);
        assert!(
            f[0].summary.contains("without an idempotency key"),
            "{}",
            f[0].summary
        );
    }

    #[test]
    fn post_with_new_key_per_attempt() {
        let f = unsafe_findings(&payments(Idem::PerAttempt, "POST"));
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].severity, crate::detect::Severity::Critical);
        assert!(
            f[0].summary.contains("different idempotency key"),
            "{}",
            f[0].summary
        );
    }

    #[test]
    fn near_miss_post_with_the_same_key_is_fine() {
        let reqs = payments(Idem::Same, "POST");
        assert!(reqs.iter().any(|r| r.status == 429));
        assert!(unsafe_findings(&reqs).is_empty());
    }

    #[test]
    fn put_and_delete_retried_after_429s_and_get_are_not_reported() {
        for m in ["PUT", "DELETE", "GET"] {
            let reqs = payments(Idem::None, m);
            assert!(reqs.iter().any(|r| r.status == 429), "{m}");
            assert!(unsafe_findings(&reqs).is_empty(), "{m}");
        }
    }

    #[test]
    fn put_retried_after_a_503_is_info() {
        let mut s = Scenario::new();
        s.at(0.0).client("c").body("b1").dur(3000.0).req(
            "PUT",
            "https://api.pay.example/v1/carts/7",
            503,
        );
        s.at(4.0)
            .client("c")
            .body("b1")
            .req("PUT", "https://api.pay.example/v1/carts/7", 200);
        let f = unsafe_findings(&s.build());
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].severity, crate::detect::Severity::Info);
    }

    #[test]
    fn operations_are_grouped_by_endpoint() {
        assert_eq!(
            super::path_template("/v1/jobs/0-14/run"),
            "/v1/jobs/{id}/run"
        );
        assert_eq!(super::path_template("/v2/charges"), "/v2/charges");
        assert_eq!(super::path_template(""), "");
    }

    #[test]
    fn graphql_posts_are_info() {
        let mut s = Scenario::new();
        for k in 0..3 {
            s.at(k as f64 * 10.0)
                .client("spa")
                .body("q1")
                .post("https://app.x.com/api/graphql", 429);
            s.at(k as f64 * 10.0 + 2.0)
                .client("spa")
                .body("q1")
                .post("https://app.x.com/api/graphql", 200);
        }
        let f = unsafe_findings(&s.build());
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].severity, crate::detect::Severity::Info);
        assert!(f[0].summary.contains("GraphQL"), "{}", f[0].summary);
    }

    #[test]
    fn retry_after_a_503_may_duplicate() {
        let mut s = Scenario::new();
        s.at(0.0)
            .client("c")
            .body("b1")
            .dur(3000.0)
            .post("https://api.pay.example/v1/charges", 503);
        s.at(4.0)
            .client("c")
            .body("b1")
            .post("https://api.pay.example/v1/charges", 200);
        let f = unsafe_findings(&s.build());
        assert_eq!(f[0].severity, crate::detect::Severity::Critical);
        assert!(
            f[0].summary.contains("may already have been applied"),
            "{}",
            f[0].summary
        );
    }
}
