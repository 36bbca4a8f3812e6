//! What the detectors read of a kept response (rate-limited, or a failure that stated a
//! Retry-After): its row, filled in by the analysis ([`crate::analyze::limited`]) and read
//! through [`super::Cx::row`].

use crate::attribute::{Attribution, Quota};
use crate::http::ratelimit::Limits;
use crate::http::retry_after::RetryAfter;
use crate::model::event::Kept;
use std::sync::Arc;

/// One kept response. Held until the report is built, one per 429, so only what is read of it
/// once the event itself has gone to the replays: its start and location (its place in the
/// merged order, computed when sorting), host, client and operation. The record is in
/// [`crate::analyze::limited::Rows`] until attribution.
#[derive(Debug)]
pub struct Row {
    /// The response's event's `t_us`, `t_ns` and `loc` ([`crate::model::event::Event`]).
    pub(crate) t_us: i64,
    pub(crate) t_ns: u16,
    pub(crate) loc: u64,
    pub host: u32,
    pub client: u32,
    /// [`crate::model::event::Event::op`].
    pub op: u64,
    pub kind: Kept,
    /// Shared with the report's row.
    pub retry_after: Arc<RetryAfter>,
    /// What attribution said (rate-limited rows, after
    /// [`crate::analyze::limited::Rows::attribute`]); shared by the rows whose facts are the
    /// same (most of an incident's).
    pub facts: Option<Arc<Facts>>,
    /// What a browser page could read of this response, when it was a cross-origin request.
    pub cors: Option<Box<crate::attribute::cors::Cors>>,
}

/// What the analyses read from a rate-limited response's attribution and content.
#[derive(Debug, Clone)]
pub struct Facts {
    /// The verdict (the report's row holds the same), for its quota, layer, limits and vendor.
    pub attribution: Arc<Attribution>,
    /// The body says the limit is on concurrent requests.
    pub says_concurrency: bool,
    /// Signals that a long-window allowance is spent, and when it should be back.
    pub quota_signals: Vec<String>,
    pub quota_resume: Option<chrono::DateTime<chrono::Utc>>,
    /// The request allowance the response states (headers, body), with what stated it.
    pub stated: Option<crate::http::ratelimit::Stated>,
}

/// Facts are the same when they hold the same shared verdict (the pointer: equal verdicts are
/// shared already, `SharedAttributions` in [`crate::analyze::limited`]) and the same readings of
/// the response; so the analysis's pool can share them without comparing or hashing verdicts.
impl PartialEq for Facts {
    fn eq(&self, o: &Self) -> bool {
        Arc::ptr_eq(&self.attribution, &o.attribution)
            && self.says_concurrency == o.says_concurrency
            && self.quota_signals == o.quota_signals
            && self.stated == o.stated
            && self.quota_resume == o.quota_resume
    }
}

impl Eq for Facts {}

impl std::hash::Hash for Facts {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        Arc::as_ptr(&self.attribution).hash(h);
        self.says_concurrency.hash(h);
        self.quota_signals.hash(h);
        self.quota_resume.hash(h);
        if let Some(st) = &self.stated {
            st.count.to_bits().hash(h);
            st.window_s.map(f64::to_bits).hash(h);
            st.by.hash(h);
        }
    }
}

impl Row {
    /// [`crate::model::event::Event::started`] of the response.
    pub fn started(&self) -> Option<chrono::DateTime<chrono::Utc>> {
        crate::model::event::started_at(self.t_us, self.t_ns)
    }
}

impl Facts {
    pub fn quota(&self) -> Quota {
        self.attribution.quota
    }

    /// The layer that sent it.
    pub fn layer(&self) -> crate::model::Layer {
        self.attribution.layer
    }

    pub fn limits(&self) -> Option<&Limits> {
        self.attribution.limits.as_ref()
    }

    pub fn vendor(&self) -> Option<&str> {
        self.attribution.vendor.as_deref()
    }
}
