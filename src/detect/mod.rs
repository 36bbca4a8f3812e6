//! Behaviour detectors: what the clients did wrong. Each detector is one file and adds findings.
//!
//! # How the detectors run
//!
//! Every detector reads the requests **once, in time order, with bounded state**: the
//! analysis replays the compact events ([`crate::model::event::Event`], 64 bytes, held
//! packed) of all inputs merged by time, and hands each timed request to every detector as a [`Step`]: the
//! event, its place in the merged order, and where it stands among its logical operation's
//! attempts ([`link::Linked`]: first attempt or retry, and the attempt before it). When a
//! logical operation can get no more attempts (its last attempt succeeded, or its retry window
//! passed) the detectors get it whole ([`Detector::closed`]). Global facts that need the whole
//! input (known limits, the clients, whole-second timestamps, each operation's poll cadence)
//! are computed before the replay and read from the [`Cx`].
//!
//! Detectors keep state per *active* key (host, credential, open operation, the requests in a
//! sliding window), never per request, so memory follows the number of keys and not the
//! number of records. The analysis may replay per group of hosts on several threads, so a
//! detector's findings must depend only on its hosts' requests and the [`Cx`].
//!
//! # Adding a detector
//!
//! 1. A file `src/detect/<kind>.rs` with a struct implementing [`Detector`]: `step` for each
//!    request (keep per-host or per-key state, bounded), optionally `closed` for whole logical
//!    operations, `second_look` + `step_again` when a decision needs a figure only known at the
//!    end (a second replay, e.g. burst's window extents; a detector that needs only a few of
//!    the requests again keeps them in a [`crate::model::event::log::Log`] instead, see
//!    synchronized_retries), and `finish` returning the findings,
//!    each with its sort key (host name, then a number) so the output never depends on how the
//!    hosts were split between threads.
//! 2. Register it in [`detectors`] (report order) and document the kind in
//!    docs/report-schema.md.
//! 3. Unit tests beside it with [`testkit`] scenarios (`testkit::run` runs the whole engine
//!    on a `Vec<Request>`), a held-out case in `tests/heldout/`, and the golden reports.
//!
//! Detectors never see clap and do no I/O of their own (a log they keep continues in the
//! analysis's temporary files past its memory budget), and their output depends only on the
//! merged order.

use crate::model::event::Event;
use crate::units::Rate;
use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;

pub mod burst;
pub mod clients;
pub mod concurrency_limit;
pub mod ignored_retry_after;
pub mod kept;
pub mod limit;
pub mod link;
pub mod logical;
pub mod nested_retries;
pub mod quota_exhausted;
pub mod retry_after_not_exposed;
pub mod retry_storm;
pub mod shared_key_contention;
pub mod synchronized_retries;
pub mod timeline;
pub mod unsafe_retry;

#[cfg(test)]
mod scenarios;
#[cfg(test)]
#[allow(dead_code)]
pub(crate) mod testkit;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Info,
    Warning,
    Critical,
}

/// Every kind of finding the detectors report: the one list the report, the docs and
/// `--fail-on finding:KIND` read (a kind is added here or nowhere).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Burst,
    RetryStorm,
    IgnoredRetryAfter,
    SynchronizedRetries,
    SharedKeyContention,
    UnsafeRetry,
    QuotaExhausted,
    ConcurrencyLimit,
    NestedRetries,
    RetryAfterNotExposed,
}

impl Kind {
    /// Every kind, in the order the report's detectors run.
    pub const ALL: [Kind; 10] = [
        Kind::Burst,
        Kind::RetryStorm,
        Kind::IgnoredRetryAfter,
        Kind::SynchronizedRetries,
        Kind::SharedKeyContention,
        Kind::UnsafeRetry,
        Kind::QuotaExhausted,
        Kind::ConcurrencyLimit,
        Kind::NestedRetries,
        Kind::RetryAfterNotExposed,
    ];

    /// The name in the report (`finding.kind`) and in `--fail-on finding:KIND`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Kind::Burst => "burst",
            Kind::RetryStorm => "retry_storm",
            Kind::IgnoredRetryAfter => "ignored_retry_after",
            Kind::SynchronizedRetries => "synchronized_retries",
            Kind::SharedKeyContention => "shared_key_contention",
            Kind::UnsafeRetry => "unsafe_retry",
            Kind::QuotaExhausted => "quota_exhausted",
            Kind::ConcurrencyLimit => "concurrency_limit",
            Kind::NestedRetries => "nested_retries",
            Kind::RetryAfterNotExposed => "retry_after_not_exposed",
        }
    }

    /// A kind by its report name (`-` read as `_`).
    pub fn parse(name: &str) -> Option<Kind> {
        let name = name.trim().replace('-', "_");
        Kind::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

/// One thing a client did wrong, with the numbers and locations to check it.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// `burst`, `retry_storm`, `ignored_retry_after`, ... (part of the report contract).
    pub kind: String,
    pub severity: Severity,
    /// One sentence with the numbers a person needs.
    pub summary: String,
    pub evidence: serde_json::Value,
}

impl Finding {
    pub(crate) fn new(kind: Kind, severity: Severity, summary: String, evidence: Value) -> Finding {
        Finding {
            kind: kind.as_str().to_string(),
            severity,
            summary,
            evidence,
        }
    }
}

/// A finding with where it goes in the report: detectors list theirs by host name, then by
/// a number of their own.
pub type Placed = ((String, u64), Finding);

/// What every detector may read besides the requests: facts of the whole input, computed
/// before the replay.
pub struct Cx<'a> {
    /// Timestamps are whole seconds only (see [`crate::analyze::collect::Collector::coarse_time`]).
    pub coarse_time: bool,
    /// `--limit`, when given.
    pub limit_option: Option<Rate>,
    /// Known limit per host id.
    pub limits: &'a [Option<limit::KnownLimit>],
    /// Host names by id (lower-cased, "" when the URL has none).
    pub hosts: &'a [String],
    /// Client labels by id (ids in order of first appearance).
    pub clients: &'a [String],
    /// Credential fingerprints by id.
    pub creds: &'a [String],
    /// Write endpoints (`POST /v1/orders/{id}`) by id.
    pub endpoints: &'a [String],
    /// Input names by input number.
    pub sources: &'a [Arc<str>],
    /// The rate-limited responses (and failures with a Retry-After): their Retry-After and
    /// what attribution said.
    pub rows: &'a [kept::Row],
    /// The host each credential was used with most (by credential id).
    pub cred_host: &'a [u32],
    /// Repeats after a failure read as the next poll of a cadence (all hosts; set before
    /// `finish`).
    pub polls_after_failure: usize,
}

impl Cx<'_> {
    pub fn host(&self, id: u32) -> &str {
        self.hosts
            .get(id as usize)
            .map(String::as_str)
            .unwrap_or("")
    }

    pub fn client_label(&self, id: u32) -> &str {
        self.clients
            .get(id as usize)
            .map(String::as_str)
            .unwrap_or("unidentified")
    }

    /// Evidence locator of one request: source, entry/line, time.
    pub fn at(&self, ev: &Event) -> Value {
        let source = self
            .sources
            .get(ev.input() as usize)
            .map(|s| s.to_string())
            .unwrap_or_default();
        let mut m = serde_json::Map::new();
        m.insert("source".into(), Value::String(source));
        let (k, n) = match ev.model_position() {
            crate::model::Position::Entry(n) => ("entry", n),
            crate::model::Position::Line(n) => ("line", n),
        };
        m.insert(k.into(), Value::from(n));
        m.insert("time".into(), time_str(ev.started()));
        Value::Object(m)
    }

    /// The kept row of a response (rate-limited, or a failure with a Retry-After).
    pub fn row(&self, ev: &Event) -> Option<&kept::Row> {
        (ev.detail != crate::model::event::NONE)
            .then(|| self.rows.get(ev.detail as usize))
            .flatten()
    }

    /// The Retry-After of a response in seconds, when it stated a usable one.
    pub fn wait_s(&self, ev: &Event) -> Option<f64> {
        self.row(ev).and_then(|r| r.retry_after.seconds)
    }

    /// What attribution said about a rate-limited response.
    pub fn facts(&self, ev: &Event) -> Option<&kept::Facts> {
        self.row(ev).and_then(|r| r.facts.as_deref())
    }

    pub fn limit(&self, host: u32) -> Option<&limit::KnownLimit> {
        self.limits.get(host as usize).and_then(Option::as_ref)
    }
}

/// One timed request, as the replay hands it to the detectors.
#[derive(Debug, Clone, Copy)]
pub struct Step<'a> {
    pub ev: &'a Event,
    /// Place in the merged time order (timed requests only).
    pub seq: u64,
    pub link: &'a link::Linked,
}

impl Step<'_> {
    pub fn is_retry(&self) -> bool {
        self.link.attempt > 0
    }
}

/// A streaming detector (see the module documentation).
pub trait Detector: Send {
    /// One timed request, in time order.
    fn step(&mut self, s: &Step, cx: &Cx);
    /// A logical operation that can get no more attempts.
    fn closed(&mut self, _l: &link::Logical, _cx: &Cx) {}
    /// After the replay: does this detector need to see every request once more?
    fn second_look(&mut self, _cx: &Cx) -> bool {
        false
    }
    /// The second replay's requests (only when [`Detector::second_look`] said so).
    fn step_again(&mut self, _s: &Step, _cx: &Cx) {}
    /// The findings. `earlier`: findings of the detectors finished before this one (see
    /// [`detectors`]).
    fn finish(&mut self, cx: &Cx, earlier: &[Finding]) -> Vec<Placed>;
    /// Does this detector read [`Step::link`] or [`Detector::closed`]? Those that do not may
    /// run on a lane that does not link (the analysis's side lane), with a placeholder link;
    /// they still get exactly the requests the linker links (every timed one).
    fn reads_links(&self) -> bool {
        true
    }
}

/// Every detector, in report order. The second value is the order they finish in (a detector
/// may read the findings of those finished before it).
pub fn detectors() -> Vec<(Box<dyn Detector>, usize)> {
    vec![
        (Box::new(burst::Burst::default()) as Box<dyn Detector>, 1),
        (Box::new(retry_storm::RetryStorm::default()), 2),
        (Box::new(ignored_retry_after::Ignored::default()), 3),
        (Box::new(synchronized_retries::Synchronized::default()), 4),
        (Box::new(shared_key_contention::SharedKey::default()), 5),
        (Box::new(unsafe_retry::UnsafeRetry::default()), 6),
        (Box::new(quota_exhausted::QuotaExhausted::default()), 7),
        (Box::new(nested_retries::NestedRetries::default()), 8),
        (Box::new(retry_after_not_exposed::NotExposed::default()), 9),
        // Finished first: shared_key_contention reads it.
        (Box::new(concurrency_limit::Concurrency::default()), 0),
    ]
}

/// What the detectors produced: findings in a fixed order, and the client section.
#[derive(Debug, Clone)]
pub struct Detected {
    pub findings: Vec<Finding>,
    pub clients: clients::ClientsSection,
}

// ---- small helpers shared by the detectors ----

/// Seconds since the Unix epoch, as a float (microsecond precision).
#[cfg(test)]
pub(crate) fn secs(t: DateTime<Utc>) -> f64 {
    t.timestamp_micros() as f64 / 1e6
}

pub(crate) fn time_str(t: Option<DateTime<Utc>>) -> Value {
    match t {
        Some(t) => Value::String(t.to_rfc3339_opts(SecondsFormat::Millis, true)),
        None => Value::Null,
    }
}

pub(crate) use crate::model::event::is_failure;

/// `p` in 0..=1 of sorted values (nearest rank).
pub(crate) fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

pub(crate) fn median(sorted: &[f64]) -> f64 {
    percentile(sorted, 0.5)
}

pub(crate) fn sort_f64(v: &mut [f64]) {
    v.sort_by(|a, b| a.total_cmp(b));
}

/// Round to 3 decimals for evidence figures.
pub(crate) fn r3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// `58.8/s` or `1.5/min` style rate text.
pub(crate) fn rate_text(per_s: f64) -> String {
    use crate::units::fmt_num;
    if per_s >= 1.0 || per_s == 0.0 {
        format!("{}/s", fmt_num((per_s * 10.0).round() / 10.0))
    } else {
        format!("{}/min", fmt_num((per_s * 600.0).round() / 10.0))
    }
}

pub(crate) fn seconds_text(s: f64) -> String {
    crate::units::fmt_duration_ms(s * 1000.0)
}
