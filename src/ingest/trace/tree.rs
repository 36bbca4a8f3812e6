//! Closing one trace: which spans are HTTP attempts, how the span tree links them into
//! logical requests, and where it shows two retry layers (nested retries).
//!
//! - An HTTP CLIENT span is one attempt, unless other HTTP CLIENT spans hang under it (then it
//!   is a library's logical call and its attempts are read instead).
//! - An HTTP SERVER span is read only when no HTTP CLIENT span of the export is its parent (a
//!   gateway's or a service's own view of callers that are not traced); otherwise the exchange
//!   is read once, from the client's side.
//! - Attempts under one parent span, to one target, are one *round*: the retry loop of the
//!   layer that parent span belongs to (an SDK's call). Rounds under one grandparent span, to
//!   the same target, each after the previous one failed, are the outer loop's retries (the
//!   application's): when there are two or more rounds and a round has two or more attempts,
//!   the attempts multiply, and the chain is exact evidence (span ids), not a guess from timing.
//! - Every attempt gets the chain it belongs to ([`crate::model::trace::SpanRef::chain`]), so the
//!   analysis links attempts by the tree.

use super::span::{Kind, Span};
use crate::model::trace::{
    Attempt, NestedChain, Round, SpanLabel, TraceFacts, ATTEMPTS_LISTED, ROUNDS_LISTED,
};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// What closing one trace makes of its spans: the attempts (span indices, with their chain),
/// and the nested chains (raw: URLs and names are redacted by the caller).
pub struct Closed {
    pub attempts: Vec<(usize, u64)>,
    pub nested: Vec<RawChain>,
}

/// A nested chain before redaction: span indices.
pub struct RawChain {
    pub owner: usize,
    /// Round parent span (index), and its attempts (indices, in time order).
    pub rounds: Vec<(usize, Vec<usize>)>,
}

fn is_root_id(id: &str) -> bool {
    id.is_empty() || id.bytes().all(|b| b == b'0')
}

pub(super) fn failed(status: u16) -> bool {
    status == 0 || status == 429 || status >= 500
}

/// `METHOD url-without-query`: what "the same request" means for a round.
fn target(s: &Span) -> String {
    let url = super::raw_url(s);
    let path = url.split(['?', '#']).next().unwrap_or("");
    format!("{} {path}", super::method_of(s))
}

fn chain_id(trace: &str, owner: &str, target: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (trace, owner, target).hash(&mut h);
    h.finish().max(1)
}

/// The spans of one trace, found by id.
struct Tree<'a> {
    spans: &'a [Span],
    by_id: HashMap<&'a str, usize>,
    http: Vec<bool>,
}

impl<'a> Tree<'a> {
    fn new(spans: &'a [Span]) -> Self {
        Tree {
            spans,
            by_id: spans
                .iter()
                .enumerate()
                .map(|(i, s)| (s.span_id.as_str(), i))
                .collect(),
            http: spans.iter().map(Span::is_http).collect(),
        }
    }

    fn parent(&self, i: usize) -> Option<usize> {
        let p = &self.spans[i].parent_id;
        (!is_root_id(p)).then(|| self.by_id.get(p.as_str()).copied())?
    }

    fn client(&self, i: usize) -> bool {
        self.http[i] && self.spans[i].kind == Kind::Client
    }
}

/// A round: the attempts of one parent span to one target.
type RoundSpans = (Option<usize>, String, Vec<usize>);

/// Decide what the spans of one trace are (see the module doc); counts go to `facts`.
pub fn close(spans: &[Span], facts: &mut TraceFacts) -> Closed {
    let tree = Tree::new(spans);
    let attempts = attempt_spans(&tree, facts);
    // Rounds: attempts of one parent span to one target.
    let mut rounds: Vec<RoundSpans> = Vec::new();
    let mut round_of: HashMap<(Option<usize>, String), usize> = HashMap::new();
    for &i in &attempts {
        if spans[i].kind != Kind::Client {
            continue;
        }
        let key = (tree.parent(i), target(&spans[i]));
        let r = *round_of.entry(key.clone()).or_insert_with(|| {
            rounds.push((key.0, key.1, Vec::new()));
            rounds.len() - 1
        });
        rounds[r].2.push(i);
    }
    let trace = spans.first().map_or("", |s| s.trace_id.as_str());
    let (chain_of, nested) = nested_chains(&tree, &rounds, trace);
    let attempts = attempts
        .into_iter()
        .map(|i| {
            let chain = chain_of.get(&i).copied().unwrap_or_else(|| {
                match (spans[i].kind, tree.parent(i)) {
                    (Kind::Client, Some(p)) => {
                        chain_id(trace, &spans[p].span_id, &target(&spans[i]))
                    }
                    _ => 0,
                }
            });
            (i, chain)
        })
        .collect();
    Closed { attempts, nested }
}

/// The spans that are attempts, in time order: HTTP client or server spans that are neither a
/// logical call (a client span with client children) nor the server side of a client span.
/// The others are counted in `facts`.
fn attempt_spans(tree: &Tree, facts: &mut TraceFacts) -> Vec<usize> {
    let spans = tree.spans;
    let mut has_client_child = vec![false; spans.len()];
    for i in 0..spans.len() {
        if tree.client(i) {
            if let Some(p) = tree.parent(i) {
                has_client_child[p] = true;
            }
        }
    }
    let mut attempts = Vec::new();
    for (i, s) in spans.iter().enumerate() {
        if !tree.http[i] || s.kind == Kind::Other {
            facts.not_http += 1;
            continue;
        }
        if s.kind == Kind::Client && has_client_child[i] {
            facts.logical_calls += 1;
            continue;
        }
        if s.kind == Kind::Server && tree.parent(i).is_some_and(|p| tree.client(p)) {
            facts.server_side += 1;
            continue;
        }
        attempts.push(i);
    }
    attempts.sort_by_key(|&i| (spans[i].start_ns, i));
    attempts
}

/// Outer loops: rounds whose parent spans share a parent, to the same target, that read as
/// two retry layers ([`is_nested`]): each attempt's chain id, and the chains.
fn nested_chains(
    tree: &Tree,
    rounds: &[RoundSpans],
    trace: &str,
) -> (HashMap<usize, u64>, Vec<RawChain>) {
    let spans = tree.spans;
    let mut outer: HashMap<(usize, &str), Vec<usize>> = HashMap::new();
    for (r, (p, t, _)) in rounds.iter().enumerate() {
        if let Some(owner) = p.and_then(|p| tree.parent(p)) {
            outer.entry((owner, t.as_str())).or_default().push(r);
        }
    }
    let mut chain_of: HashMap<usize, u64> = HashMap::new();
    let mut nested = Vec::new();
    for ((owner, t), mut rs) in outer {
        rs.sort_by_key(|&r| rounds[r].2.first().map(|&i| spans[i].start_ns));
        if !is_nested(&rs, rounds, spans) {
            continue;
        }
        let id = chain_id(trace, &spans[owner].span_id, t);
        for &r in &rs {
            for &i in &rounds[r].2 {
                chain_of.insert(i, id);
            }
        }
        nested.push(RawChain {
            owner,
            rounds: rs
                .iter()
                .map(|&r| (rounds[r].0.unwrap_or(owner), rounds[r].2.clone()))
                .collect(),
        });
    }
    (chain_of, nested)
}

/// Two layers: two rounds or more, one of them with two attempts or more, and every round but
/// the last ending in a failure (the outer loop retried because the inner one gave up).
fn is_nested(rs: &[usize], rounds: &[RoundSpans], spans: &[Span]) -> bool {
    if rs.len() < 2 || !rs.iter().any(|&r| rounds[r].2.len() >= 2) {
        return false;
    }
    rs[..rs.len() - 1].iter().all(|&r| {
        rounds[r]
            .2
            .last()
            .is_some_and(|&i| failed(super::status_of(&spans[i])))
    })
}

/// The evidence of a raw chain: span ids, statuses, resend counts, times (names and the URL
/// redacted by `redact`).
pub fn evidence(
    c: &RawChain,
    spans: &[Span],
    redact_name: &dyn Fn(&str) -> String,
    redact_url: &dyn Fn(&str) -> String,
) -> NestedChain {
    let label = |i: usize| SpanLabel {
        span_id: spans[i].span_id.clone(),
        name: redact_name(&spans[i].name),
    };
    let first_attempt = c.rounds.first().and_then(|r| r.1.first()).copied();
    let attempts: usize = c.rounds.iter().map(|r| r.1.len()).sum();
    let inner = c.rounds.iter().map(|r| r.1.len()).max().unwrap_or(0);
    let rounds = c
        .rounds
        .iter()
        .take(ROUNDS_LISTED)
        .map(|(under, at)| Round {
            under: label(*under),
            attempts: at
                .iter()
                .take(ATTEMPTS_LISTED)
                .map(|&i| Attempt {
                    span_id: spans[i].span_id.clone(),
                    status: super::status_of(&spans[i]),
                    resend_count: super::resend_count(&spans[i]),
                    time: super::time_of(spans[i].start_ns),
                })
                .collect(),
            more: at.len().saturating_sub(ATTEMPTS_LISTED),
        })
        .collect();
    let s = first_attempt.map(|i| &spans[i]);
    NestedChain {
        trace_id: spans[c.owner].trace_id.clone(),
        owner: label(c.owner),
        method: s.map(super::method_of).unwrap_or_default(),
        url: s
            .map(|s| redact_url(&super::raw_url(s)))
            .unwrap_or_default(),
        client: s.and_then(|s| s.service.as_deref().map(redact_name)),
        attempts,
        inner,
        outer: c.rounds.len(),
        first: s.and_then(|s| super::time_of(s.start_ns)),
        rounds,
        more_rounds: c.rounds.len().saturating_sub(ROUNDS_LISTED),
    }
}
