//! Behaviour detectors: what the clients did wrong. Each detector is one file and adds findings.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Info,
    Warning,
    Critical,
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
