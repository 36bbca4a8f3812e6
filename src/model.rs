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
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Headers(pub Vec<(String, String)>);

impl Headers {
    pub fn new() -> Self {
        Headers(Vec::new())
    }

    pub fn push(&mut self, name: impl Into<String>, value: impl Into<String>) {
        self.0.push((name.into(), value.into()));
    }

    /// The first value of `name` (case-insensitive).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Every value of `name`, in order.
    pub fn get_all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.0
            .iter()
            .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn contains(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(n, v)| (n.as_str(), v.as_str()))
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Hints that tell one caller from another (a service, a browser tab, a worker).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ClientHints {
    /// Explicit caller id from a log's `client` field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
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
    /// Response `Content-Type` (from headers, else the HAR `content.mimeType`).
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
