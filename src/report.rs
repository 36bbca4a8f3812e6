//! The Report: the contract between analysis and rendering. Renderers see only this; the JSON
//! form is a public API (`schema_version` first, documented in docs/report-schema.md).

use crate::attribute::Attribution;
use crate::detect::clients::ClientsSection;
use crate::detect::Finding;
use crate::http::retry_after::RetryAfter;
use crate::model::Position;
pub use crate::model::{Incomplete, IncompleteKind, InputSummary};
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;

pub mod rows;
pub use rows::{RateLimitedRows, RowsWriter};

pub const SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub schema_version: u32,
    /// `toomany <version>`.
    pub generated_by: String,
    pub inputs: Vec<InputSummary>,
    pub summary: Summary,
    /// Every 429, and every 503/403 carrying rate-limit evidence, in time order (in a
    /// temporary file when there are many: read it with [`RateLimitedRows::iter`]).
    pub rate_limited: RateLimitedRows,
    pub findings: Vec<Finding>,
    /// How clients were told apart, and who they are (see docs/report-schema.md).
    pub clients: ClientsSection,
    /// What the client should do instead (`null` when there was no 429 and no `--limit`).
    pub recommendation: Option<crate::recommend::Recommendation>,
    /// One plan per rate-limited host, busiest first (the first is `recommendation`); the plan
    /// for all traffic when no host was rate-limited but `--limit` was given; else empty.
    pub recommendations: Vec<crate::recommend::Recommendation>,
    /// What the human-facing reports draw beyond this contract (timeline, windows, credential
    /// talkers); not serialized, so the JSON stays the versioned contract.
    #[serde(skip)]
    pub overview: crate::overview::Overview,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    pub requests: usize,
    /// Count per status code, as strings ("0" = no response).
    pub by_status: BTreeMap<String, usize>,
    pub rate_limited: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first: Option<DateTime<Utc>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last: Option<DateTime<Utc>>,
    /// Requests per host, busiest first.
    pub hosts: Vec<HostCount>,
    /// Inputs the report covers only in part ([`InputSummary::incomplete`]), by source.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub partial_inputs: Vec<Arc<str>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct HostCount {
    pub host: String,
    pub requests: usize,
    pub rate_limited: usize,
}

/// One rate-limited response.
#[derive(Debug, Clone, Serialize)]
pub struct RateLimited {
    /// Index of the record in the analysed request list (not serialized).
    #[serde(skip)]
    pub request_index: usize,
    pub source: Arc<str>,
    #[serde(flatten)]
    pub position: Position,
    pub time: Option<DateTime<Utc>>,
    /// Shared between rows that repeat it, as `url`.
    pub method: Arc<str>,
    /// Redacted URL.
    pub url: Arc<str>,
    pub status: u16,
    /// The trace and span of a record read from a trace export.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span: Option<Box<crate::model::trace::SpanRef>>,
    /// Who sent it, whole (`clients.list` may cut a long user agent short in its `label`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client: Option<Arc<str>>,
    /// Shared with the analysis's kept row.
    pub retry_after: Arc<RetryAfter>,
    /// Shared between rows whose attribution is the same (a long incident repeats a few).
    #[serde(flatten)]
    pub attribution: Arc<Attribution>,
    /// The start of the same client's next attempt at the same operation (method + URL)
    /// within [`crate::overview::RETRY_LINK_MS`], if any (drawn in the timeline; not
    /// serialized).
    #[serde(skip)]
    pub next_attempt: Option<DateTime<Utc>>,
}
