//! What a trace export says beyond its requests, handed from the trace readers
//! ([`crate::ingest::trace`]) to the analysis: how many spans were read and why some were not,
//! what the instrumentation recorded (resend counts, captured headers, the sampler), what a
//! trace cannot tell, and the nested retries its span tree shows exactly.

use chrono::{DateTime, Utc};
use serde::Serialize;
use std::collections::BTreeMap;

/// Where a record came from in a trace: its trace and span, and the logical request the span
/// tree puts it in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SpanRef {
    /// Lower-case hex, as the export wrote it.
    pub trace_id: String,
    pub span_id: String,
    /// The logical request this attempt belongs to (a hash of the trace, the span whose loop
    /// sent it and the target): every attempt the span tree links shares it, and the analysis
    /// links them by it instead of by timing. 0: the tree does not say (a span at the root of
    /// its trace, a server span).
    #[serde(skip)]
    pub chain: u64,
}

/// One span, named for evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SpanLabel {
    pub span_id: String,
    /// The span's name, redacted; empty when the span is not in the export.
    pub name: String,
}

/// One HTTP attempt of a nested chain.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Attempt {
    pub span_id: String,
    pub status: u16,
    /// `http.request.resend_count` as the instrumentation recorded it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resend_count: Option<u32>,
    pub time: Option<DateTime<Utc>>,
}

/// One run of the inner layer: the attempts one call of the inner layer (an SDK's call span,
/// or an HTTP client resending) made.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Round {
    /// The span the attempts hang under (the SDK's call; the outer span itself when the HTTP
    /// client's resends are what repeats).
    pub under: SpanLabel,
    pub attempts: Vec<Attempt>,
    /// Attempts of this round left out of `attempts` (past [`ATTEMPTS_LISTED`]).
    #[serde(skip_serializing_if = "is_zero")]
    pub more: usize,
}

/// Attempts listed per round of a chain's evidence.
pub const ATTEMPTS_LISTED: usize = 12;
/// Rounds listed per chain.
pub const ROUNDS_LISTED: usize = 12;
/// Chains kept as evidence per host (the ones with most attempts).
pub const CHAINS_KEPT: usize = 3;

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One logical request whose attempts the span tree shows in two layers: `outer` rounds (the
/// owner span's loop) of up to `inner` attempts each (the layer below it).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NestedChain {
    pub trace_id: String,
    /// The span whose loop made the rounds (the application's retry loop).
    pub owner: SpanLabel,
    pub method: String,
    /// Redacted.
    pub url: String,
    /// The calling service (`service.name`, with `service.instance.id` when recorded).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
    pub attempts: usize,
    pub inner: usize,
    pub outer: usize,
    pub first: Option<DateTime<Utc>>,
    pub rounds: Vec<Round>,
    /// Rounds left out of `rounds` (past [`ROUNDS_LISTED`]).
    #[serde(skip_serializing_if = "is_zero")]
    pub more_rounds: usize,
}

/// The nested chains of one host, bounded: counts of all, the longest few in full.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct NestedHost {
    /// Logical requests with a nested shape.
    pub chains: usize,
    pub attempts: usize,
    /// (inner, outer) → how many chains had it.
    #[serde(skip)]
    pub shapes: BTreeMap<(usize, usize), usize>,
    /// The chains with most attempts (ties: the earliest), at most [`CHAINS_KEPT`].
    pub worst: Vec<NestedChain>,
}

impl NestedHost {
    pub fn add(&mut self, c: NestedChain) {
        self.chains += 1;
        self.attempts += c.attempts;
        *self.shapes.entry((c.inner, c.outer)).or_default() += 1;
        self.worst.push(c);
        self.trim();
    }

    pub fn merge(&mut self, other: NestedHost) {
        self.chains += other.chains;
        self.attempts += other.attempts;
        for (k, n) in other.shapes {
            *self.shapes.entry(k).or_default() += n;
        }
        self.worst.extend(other.worst);
        self.trim();
    }

    fn trim(&mut self) {
        self.worst.sort_by(|a, b| {
            b.attempts
                .cmp(&a.attempts)
                .then(a.first.cmp(&b.first))
                .then(a.trace_id.cmp(&b.trace_id))
        });
        self.worst.truncate(CHAINS_KEPT);
    }
}

/// Distinct names kept in the lists of [`TraceFacts`].
pub const NAMES_KEPT: usize = 32;

/// What one trace export held and what the readers made of it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TraceFacts {
    /// Spans read.
    pub spans: usize,
    /// Distinct traces (a trace split by the reader's memory bound counts once per part).
    pub traces: usize,
    /// HTTP spans read as records.
    pub http_spans: usize,
    /// Spans without HTTP attributes: counted and skipped.
    pub not_http: usize,
    /// SERVER spans whose CLIENT span is in the export too: the exchange is read once, from
    /// the client's span.
    pub server_side: usize,
    /// HTTP CLIENT spans around other HTTP CLIENT spans (a library's logical call): its
    /// attempts are read instead.
    pub logical_calls: usize,
    /// Attempts whose instrumentation recorded `http.request.resend_count` ≥ 1.
    pub resends_recorded: usize,
    /// Calling services (`service.name`), sorted, at most [`NAMES_KEPT`].
    pub services: Vec<String>,
    /// Response header names the instrumentation captured, sorted, at most [`NAMES_KEPT`].
    pub response_headers: Vec<String>,
    /// The sampler, when the data shows it (Jaeger clients' `sampler.type`/`sampler.param`,
    /// an OpenTelemetry `ot=th:` threshold in the trace state).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampler: Option<String>,
    /// Traces closed before their last span came (the reader holds open traces in bounded
    /// memory): their parts are linked apart.
    #[serde(skip_serializing_if = "is_zero")]
    pub split_traces: usize,
    /// What a trace cannot tell, said plainly for this input.
    pub lacks: Vec<String>,
    /// Nested retries the span tree shows, per host.
    #[serde(skip)]
    pub nested: BTreeMap<String, NestedHost>,
}

impl TraceFacts {
    /// Note a name in a bounded, sorted list.
    pub fn note_name(list: &mut Vec<String>, name: &str) {
        if let Err(i) = list.binary_search_by(|n| n.as_str().cmp(name)) {
            if list.len() < NAMES_KEPT {
                list.insert(i, name.to_string());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(attempts: usize, trace: &str) -> NestedChain {
        NestedChain {
            trace_id: trace.into(),
            owner: SpanLabel {
                span_id: "a".into(),
                name: "loop".into(),
            },
            method: "GET".into(),
            url: "https://api.example/x".into(),
            client: None,
            attempts,
            inner: 3,
            outer: attempts / 3,
            first: None,
            rounds: Vec::new(),
            more_rounds: 0,
        }
    }

    #[test]
    fn nested_host_keeps_the_longest_chains_and_counts_all() {
        let mut a = NestedHost::default();
        for (n, t) in [(6, "t1"), (9, "t2"), (3, "t3"), (12, "t4")] {
            a.add(chain(n, t));
        }
        let mut b = NestedHost::default();
        b.add(chain(9, "t0"));
        a.merge(b);
        assert_eq!(a.chains, 5);
        assert_eq!(a.attempts, 39);
        let kept: Vec<&str> = a.worst.iter().map(|c| c.trace_id.as_str()).collect();
        assert_eq!(kept, ["t4", "t0", "t2"]);
        assert_eq!(a.shapes.values().sum::<usize>(), 5);
    }

    #[test]
    fn names_are_kept_sorted_and_bounded() {
        let mut l = Vec::new();
        for i in (0..40).rev() {
            TraceFacts::note_name(&mut l, &format!("s{i:02}"));
            TraceFacts::note_name(&mut l, &format!("s{i:02}"));
        }
        assert_eq!(l.len(), NAMES_KEPT);
        assert!(l.windows(2).all(|w| w[0] < w[1]));
    }
}
