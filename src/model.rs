//! The one normalized record every analysis reads.
//!
//! Ingestion (HAR, JSON lines, ...) turns each raw entry into a [`Request`] *after* redaction, so
//! nothing downstream of this module can see a secret: URLs, headers and body excerpts held here
//! are already redacted, and credentials survive only as keyed fingerprints.

use chrono::{DateTime, Utc};
use serde::Serialize;
use std::fmt;
use std::sync::Arc;

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

/// HTTP header fields in their original order, duplicates kept; names compared case-insensitively.
///
/// Stored compactly (one text buffer plus a pair of lengths per field) because a large capture
/// holds millions of header fields: a `Vec<(String, String)>` costs two allocations per field,
/// and 32-bit offsets cost three times what 16-bit lengths do.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Headers {
    text: String,
    /// `(name length, value length)` of each field, in order; fields are laid end to end in
    /// `text`.
    lens: Vec<(u16, u16)>,
}

/// Longest header name or value stored (longer ones are cut at a char boundary): the 16-bit
/// lengths that keep a record small. Real header values are far shorter.
pub const HEADER_PART_MAX: usize = u16::MAX as usize;

fn cut_to(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut cut = max;
    while cut > 0 && !s.is_char_boundary(cut) {
        cut -= 1;
    }
    &s[..cut]
}

impl Headers {
    pub fn new() -> Self {
        Headers::default()
    }

    /// Empty, with room for `text` bytes of names and values and `fields` fields (a parser
    /// that knows roughly what it will push grows the buffers once, not field by field).
    pub fn with_capacity(text: usize, fields: usize) -> Self {
        Headers {
            text: String::with_capacity(text),
            lens: Vec::with_capacity(fields),
        }
    }

    /// Build from `(name, value)` pairs.
    pub fn from_pairs<N: AsRef<str>, V: AsRef<str>>(
        pairs: impl IntoIterator<Item = (N, V)>,
    ) -> Self {
        let mut h = Headers::new();
        for (n, v) in pairs {
            h.push(n.as_ref(), v.as_ref());
        }
        h
    }

    pub fn push(&mut self, name: impl AsRef<str>, value: impl AsRef<str>) {
        let name = cut_to(name.as_ref(), HEADER_PART_MAX);
        let value = cut_to(value.as_ref(), HEADER_PART_MAX);
        self.text.push_str(name);
        self.text.push_str(value);
        self.lens.push((name.len() as u16, value.len() as u16));
    }

    /// Push with the value cut to at most `max` bytes (at a char boundary, marked with `…`).
    /// Used for responses no analysis reads in full (2xx/3xx): their names and the start of
    /// their values are what baselines need, and browsers send multi-KB policy headers.
    pub fn push_capped(&mut self, name: impl AsRef<str>, value: impl AsRef<str>, max: usize) {
        let v = value.as_ref();
        if v.len() <= max {
            self.push(name, v);
            return;
        }
        let mut cut = max;
        while cut > 0 && !v.is_char_boundary(cut) {
            cut -= 1;
        }
        self.push(name, format!("{}…", &v[..cut]));
    }

    /// The value of field `i` (in push order).
    pub fn value_at(&self, i: usize) -> Option<&str> {
        self.iter().nth(i).map(|(_, v)| v)
    }

    /// The value of the field pushed last.
    pub fn last_value(&self) -> Option<&str> {
        let &(_, v) = self.lens.last()?;
        Some(&self.text[self.text.len() - v as usize..])
    }

    /// The first value of `name` (case-insensitive).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v)
    }

    /// Every value of `name`, in order.
    pub fn get_all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.iter()
            .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        let mut at = 0usize;
        self.lens.iter().map(move |&(n, v)| {
            let (n, v) = (n as usize, v as usize);
            let name = &self.text[at..at + n];
            let value = &self.text[at + n..at + n + v];
            at += n + v;
            (name, value)
        })
    }

    pub fn len(&self) -> usize {
        self.lens.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lens.is_empty()
    }

    /// Empty, keeping the room (a reader that fills one map line after line).
    pub fn clear(&mut self) {
        self.text.clear();
        self.lens.clear();
    }

    /// Make this map a copy of `other` in the room it has (a reader that fills one map line
    /// after line from a remembered one).
    pub fn copy_from(&mut self, other: &Headers) {
        self.text.clear();
        self.text.push_str(&other.text);
        self.lens.clear();
        self.lens.extend_from_slice(&other.lens);
    }

    /// Release spare capacity once a record is complete.
    pub fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.lens.shrink_to_fit();
    }
}

impl fmt::Debug for Headers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for Headers {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(self.len()))?;
        for (n, v) in self.iter() {
            seq.serialize_element(&[n, v])?;
        }
        seq.end()
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
    /// (the first non-blank [`crate::detect::logical::is_idempotency_header`]); 0 when none was
    /// read, or for a record no ingester made. Kept so retries are compared by key without a
    /// keyed fingerprint per request: the redacted header holds one, but idempotency keys are
    /// new on every operation, so computing it was an HMAC for every line of a log.
    #[serde(skip)]
    pub idem_hash: u32,
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
    pub logger_layer: crate::attribute::Layer,
    /// For `Generated`: who produced it — the logger itself, or the product acting inside it
    /// (`aws-waf` on an ALB, `google-cloud-armor` on a Google Cloud load balancer).
    pub producer: &'static str,
    pub producer_layer: crate::attribute::Layer,
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
            request_body_fingerprint: None,
            client: ClientHints::default(),
            credential: None,
            layer_signal: None,
            idem_hash: 0,
        }
    }

    /// Host part of the URL, lower-cased ("" when the URL has none).
    pub fn host(&self) -> String {
        crate::http::url::host(&self.url).to_ascii_lowercase()
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

/// How an input ended short of a whole, read input (`InputSummary::incomplete` of the report).
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oversized_parts_are_cut_not_wrapped() {
        let mut h = Headers::new();
        let big = "é".repeat(HEADER_PART_MAX);
        h.push("x", &big);
        h.push("y", "1");
        assert!(h.get("x").unwrap().len() <= HEADER_PART_MAX);
        assert_eq!(h.get("y"), Some("1"));
    }

    #[test]
    fn capped_values_cut_at_char_boundaries() {
        let mut h = Headers::new();
        h.push_capped("a", "ééé", 3);
        h.push_capped("b", "short", 10);
        assert_eq!(h.get("a"), Some("é…"));
        assert_eq!(h.get("b"), Some("short"));
    }

    #[test]
    fn headers_keep_order_and_duplicates() {
        let h = Headers::from_pairs([("Set-Cookie", "a"), ("X", "1"), ("set-cookie", "b")]);
        assert_eq!(h.get("SET-COOKIE"), Some("a"));
        assert_eq!(h.get_all("set-cookie").collect::<Vec<_>>(), vec!["a", "b"]);
        assert_eq!(
            h.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            vec!["Set-Cookie", "X", "set-cookie"]
        );
        assert_eq!(h.len(), 3);
        assert!(!h.contains("y"));
        assert_eq!(
            serde_json::to_string(&h).unwrap(),
            r#"[["Set-Cookie","a"],["X","1"],["set-cookie","b"]]"#
        );
    }
}
