//! Rate-limit headers: IETF `RateLimit`/`RateLimit-Policy`, the older trio, `X-RateLimit-*` and
//! vendor forms, parsed into one shape.

use crate::model::Headers;
use chrono::{DateTime, Utc};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Limits {
    /// Requests (or tokens) allowed per window.
    pub limit: Option<f64>,
    pub remaining: Option<f64>,
    /// Seconds until the window resets, measured from the response.
    pub reset_seconds: Option<f64>,
    /// Length of the window in seconds, when stated.
    pub window_seconds: Option<f64>,
    /// Policy name or raw policy (`"burst";q=100;w=60`, `core`, ...).
    pub policy: Option<String>,
}

/// Parse the rate-limit headers of a response. `now` is the response's time (its `Date` header
/// when present) for epoch-valued resets.
pub fn parse(headers: &Headers, now: Option<DateTime<Utc>>) -> Option<Limits> {
    let _ = (headers, now);
    None
}
