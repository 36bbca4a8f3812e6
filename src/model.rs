//! The one normalized record every analysis reads.
//!
//! Ingestion (HAR, JSON lines, ...) turns each raw entry into a [`Request`] *after* redaction, so
//! nothing downstream of this module can see a secret: URLs, headers and body excerpts held here
//! are already redacted, and credentials survive only as keyed fingerprints.

use chrono::{DateTime, Utc};
use serde::Serialize;
use std::fmt;
use std::sync::Arc;

pub use crate::http::headers::{Headers, HEADER_PART_MAX};

pub mod event;
pub mod trace;
pub mod view;

/// Where a record came from: the source path as the user gave it, and the entry or line in it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Location {
    pub source: Arc<str>,
    #[serde(flatten)]
    pub position: Position,
}

/// `entry` is the 0-based index into a HAR's `log.entries`; `line` is the 1-based line of a log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Position {
    Entry(usize),
    Line(usize),
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Position::Entry(i) => write!(f, "{}: entry {}", self.source, i),
            Position::Line(n) => write!(f, "{}:{}", self.source, n),
        }
    }
}

/// Hints that tell one caller from another (a service, a browser tab, a worker).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ClientHints {
    /// Explicit caller id from a log's `client` field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
    /// Only when the request has no `User-Agent` header (a log's own field): read both through
    /// [`Request::user_agent`], so a capture does not hold every UA twice.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_agent: Option<String>,
    /// First address of `X-Forwarded-For`, or a log's client IP field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_ip: Option<String>,
    /// HAR `pageref`: one page or tab of a browser capture.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pageref: Option<String>,
    /// `Origin`, else `Referer` (origin part only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
}

/// One HTTP exchange, normalized and redacted.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Request {
    pub location: Location,
    /// Start of the request, UTC. `None` when the input had no usable time (the record is still
    /// counted, but time-based analyses skip it).
    pub started: Option<DateTime<Utc>>,
    pub method: String,
    /// Full URL, redacted (secret query values, userinfo and tokens replaced by fingerprints).
    pub url: String,
    /// HTTP status; 0 = no response (aborted, blocked, failed to connect).
    pub status: u16,
    /// Total time from start to the end of the response, milliseconds.
    pub duration_ms: Option<f64>,
    /// Time waiting for the server (HAR `timings.wait`, time to first byte), milliseconds.
    pub wait_ms: Option<f64>,
    pub request_headers: Headers,
    pub response_headers: Headers,
    /// The HAR `content.mimeType`, kept only when the response has no `Content-Type` header
    /// (no second copy per record); read both through [`Request::content_type`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_mime: Option<String>,
    /// First few KiB of a non-2xx/3xx response body, redacted. 2xx/3xx bodies are never kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body_excerpt: Option<String>,
    /// The response had a body the input did not record: a HAR entry whose `content.size` is
    /// above zero with no text, a log line with no body field, an access log (which never holds
    /// bodies). Its body is unknown, not empty; see [`Request::body_unknown`].
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub body_not_captured: bool,
    /// Keyed fingerprint of the request body (writes with the same body share it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_body_fingerprint: Option<String>,
    pub client: ClientHints,
    /// Keyed fingerprint of the credential the request carried (Authorization, API key header,
    /// key-like query parameter), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub credential: Option<String>,
    /// What an access-log line's own fields say about which layer produced the response
    /// (`upstream_status=-`, Envoy's `RL` flag, ALB `target_status_code=-`). Set by access-log
    /// readers on error responses only (boxed: absent on almost every record); the attribution
    /// engine consults it before any header or body fingerprint.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layer_signal: Option<Box<LayerSignal>>,
    /// [`crate::redact::Redactor::idem_hash`] of the raw idempotency key the request carried
    /// (the first non-blank [`crate::http::idempotency::is_idempotency_header`]); 0 when none was
    /// read, or for a record no ingester made. Kept so retries are compared by key without a
    /// keyed fingerprint per request: the redacted header holds one, but idempotency keys are
    /// new on every operation, so computing it was an HMAC for every line of a log.
    #[serde(skip)]
    pub idem_hash: u32,
    /// The span a trace reader read this record from (boxed: absent on every other record).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span: Option<Box<trace::SpanRef>>,
}

/// Which layer of the path sent a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Layer {
    /// CDN or WAF edge.
    Cdn,
    /// Reverse proxy, API gateway, service mesh, load balancer.
    Proxy,
    /// The origin application.
    Api,
    Unknown,
}

impl Layer {
    pub fn as_str(&self) -> &'static str {
        match self {
            Layer::Cdn => "cdn",
            Layer::Proxy => "proxy",
            Layer::Api => "api",
            Layer::Unknown => "unknown",
        }
    }
}

/// What the line says about the response's producer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SignalVerdict {
    /// The layer that wrote the log line produced the response itself.
    Generated,
    /// The layer that wrote the line relayed its upstream's response.
    PassedThrough,
    /// The format has no field that tells (stock `combined`): the layer is unknown, not guessed.
    NoSignal,
}

/// A log line's own attribution evidence.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LayerSignal {
    pub verdict: SignalVerdict,
    /// Vendor slug of the layer that wrote the line (`nginx`, `envoy`, `aws-alb`, ...).
    pub logger: &'static str,
    pub logger_layer: Layer,
    /// For `Generated`: who produced it — the logger itself, or the product acting inside it
    /// (`aws-waf` on an ALB, `google-cloud-armor` on a Google Cloud load balancer).
    pub producer: &'static str,
    pub producer_layer: Layer,
    /// The deciding field and its value as logged, e.g. `upstream_status=-` (values are checked
    /// against the field's grammar before they are kept, so no free text reaches a report).
    pub field: String,
    /// What it means, with the source tag of docs/attribution.md, e.g. "nginx answered
    /// itself: no upstream was asked [N2, N5]".
    pub note: String,
    /// Short label for summaries (`limit_req`, `RL`, `waf`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<&'static str>,
    /// How strongly the field decides (0–1), the engine's weight for this verdict.
    pub weight: f64,
    /// The field itself says the response was a rate limit (Envoy `RL`, nginx
    /// `$limit_req_status=REJECTED`, IIS 403.502): a 503 or 403 with it counts as rate limiting.
    pub rate_limit: bool,
}

impl Request {
    /// An empty record at `location`; ingesters fill in what their input has.
    pub fn at(location: Location) -> Self {
        Request {
            location,
            started: None,
            method: String::new(),
            url: String::new(),
            status: 0,
            duration_ms: None,
            wait_ms: None,
            request_headers: Headers::new(),
            response_headers: Headers::new(),
            response_mime: None,
            body_excerpt: None,
            body_not_captured: false,
            request_body_fingerprint: None,
            client: ClientHints::default(),
            credential: None,
            layer_signal: None,
            idem_hash: 0,
            span: None,
        }
    }

    /// Whether the response's body is unknown rather than empty or shown: the input did not
    /// record it ([`Request::body_not_captured`]), or a `Content-Length` above zero came with no
    /// text (a HEAD response's length describes a body never sent, so it does not count).
    pub fn body_unknown(&self) -> bool {
        if self.body_excerpt.as_deref().is_some_and(|b| !b.is_empty()) {
            return false;
        }
        self.body_not_captured
            || (!self.method.eq_ignore_ascii_case("HEAD")
                && self
                    .response_headers
                    .get("content-length")
                    .and_then(|v| v.trim().parse::<u64>().ok())
                    .is_some_and(|n| n > 0))
    }

    /// The host the report groups this record under ([`crate::http::url::host_key`]: lower-cased,
    /// `(no host)` when the URL has none).
    pub fn host(&self) -> String {
        crate::http::url::host_key(&self.url).into_owned()
    }

    /// End of the response, when both start and duration are known.
    pub fn finished(&self) -> Option<DateTime<Utc>> {
        let start = self.started?;
        let d = self.duration_ms?;
        if !d.is_finite() || d < 0.0 {
            return None;
        }
        Some(start + chrono::Duration::microseconds((d * 1000.0) as i64))
    }

    pub fn is_rate_limit_status(&self) -> bool {
        self.status == 429
    }

    /// The caller's user agent: the `User-Agent` header, else a log's user-agent field.
    pub fn user_agent(&self) -> Option<&str> {
        self.request_headers
            .get("user-agent")
            .filter(|u| !u.is_empty())
            .or(self.client.user_agent.as_deref())
    }

    /// Response content type: the `Content-Type` header, else the HAR `content.mimeType`.
    pub fn content_type(&self) -> Option<&str> {
        self.response_headers
            .get("content-type")
            .or(self.response_mime.as_deref())
    }

    /// Release spare capacity once the record is complete: a capture holds millions of them.
    pub fn shrink_to_fit(&mut self) {
        self.method.shrink_to_fit();
        self.url.shrink_to_fit();
        self.request_headers.shrink_to_fit();
        self.response_headers.shrink_to_fit();
    }
}

/// What was read from one input.
#[derive(Debug, Clone, Serialize)]
pub struct InputSummary {
    pub source: Arc<str>,
    /// `har` or `jsonl`; `null` when the format could not be told.
    pub format: Option<String>,
    /// HAR `log.creator` name and version, when present.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub creator: Option<String>,
    /// Records read into the analysis.
    pub records: usize,
    /// Entries or lines that could not be used at all.
    pub skipped: usize,
    /// Count of warnings (odd or missing fields that became defaults, skipped lines...).
    pub warning_count: usize,
    /// The first warnings, each with its entry/line (bounded so a broken file cannot flood).
    pub warnings: Vec<Warning>,
    /// Set when reading stopped early (truncated or unreadable file): what and where.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The input did not end where it should have, though reading did not fail: the report
    /// covers only part of it (a log truncated while it was read, a last record cut short) or
    /// left part of it unread (data after a HAR document).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incomplete: Option<Incomplete>,
    /// A JSON-lines input in which no record had a status (nothing mapped to one): why, with
    /// the field names seen. The commands refuse such an input (a report on it would say
    /// "0 rate-limited" and mean nothing).
    #[serde(skip)]
    pub no_status: Option<String>,
    /// A trace export: its spans, what the instrumentation recorded and what traces lack.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub traces: Option<Box<trace::TraceFacts>>,
    /// Access logs: lines recognised as records that are not HTTP requests (TCP connection
    /// records, error-log lines, other programs' syslog messages), skipped.
    #[serde(skip_serializing_if = "is_zero")]
    pub not_requests: usize,
    /// Every line that gave no record, counted per reason.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped_reasons: Vec<SkipReason>,
    /// The wrapper removed from every line before it was read (`"Docker json-file"`, `"CRI
    /// container log"`, `"syslog"`, `"log shipper JSON"`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unwrapped: Option<String>,
    /// Records of this input that look like another input's requests (same host, method,
    /// path and status at the same time) but could not be joined to them: if the two inputs
    /// are two layers' logs of the same requests, those requests are counted twice. What was
    /// seen and how to join them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counted_twice: Option<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Lines of one input that gave no record for one reason.
#[derive(Debug, Clone, Serialize)]
pub struct SkipReason {
    pub reason: String,
    pub lines: usize,
    pub first_line: usize,
    /// The lines are records that are not HTTP requests (not unreadable ones).
    pub not_request: bool,
}

impl InputSummary {
    /// The format as the report shows it: with the wrapper removed, if any
    /// (`nginx in Docker json-file`).
    pub fn format_label(&self) -> String {
        let f = self.format.as_deref().unwrap_or("?");
        match &self.unwrapped {
            Some(w) => format!("{f} in {w}"),
            None => f.to_string(),
        }
    }
}

impl InputSummary {
    /// What went wrong reading it, for a report's input listing: why reading stopped, else how
    /// the input ended short.
    pub fn problem(&self) -> Option<&str> {
        self.error
            .as_deref()
            .or(self.incomplete.as_ref().map(|i| i.message.as_str()))
    }
}

/// A problem with one part of the input that did not stop the rest from being read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    pub source: Arc<str>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub position: Option<Position>,
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some(Position::Entry(i)) => write!(f, "{}: entry {}: {}", self.source, i, self.message),
            Some(Position::Line(n)) => write!(f, "{}:{}: {}", self.source, n, self.message),
            None => write!(f, "{}: {}", self.source, self.message),
        }
    }
}

/// How an input ended short of a whole, read input ([`InputSummary::incomplete`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Incomplete {
    pub kind: IncompleteKind,
    /// What happened and where, in a sentence (never quoting the input).
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IncompleteKind {
    /// The file was shorter when reading ended than when it was opened (truncated while it was
    /// read: log rotation by copy-and-truncate, a file overwritten).
    Shrank,
    /// The input ends inside a record: its last line has no end and is not a whole record.
    CutRecord,
    /// Data follows the HAR document (a second document, a file appended to it): not read.
    TrailingData,
}

impl IncompleteKind {
    /// For a summary line: what it means for the report.
    pub fn short(self) -> &'static str {
        match self {
            IncompleteKind::Shrank => "truncated while it was read",
            IncompleteKind::CutRecord => "ends inside a record",
            IncompleteKind::TrailingData => "data after the HAR not read",
        }
    }
}
