//! Which layer sent each rate-limited response (CDN/WAF, proxy/gateway, API origin), which
//! vendor, what kind of limit, with the evidence that decided it.
//!
//! The contract types live here; the rule table and engine fill them in.

use crate::http::ratelimit::Limits;
use crate::model::Request;
use serde::Serialize;

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

/// What kind of allowance was exhausted. Different problems: a slower queue never brings back
/// an exhausted daily quota.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Quota {
    /// Requests per second/minute/hour window.
    Rate,
    /// Requests in flight at once.
    Concurrency,
    /// Any allowance over a long window: daily, monthly, billing credit.
    Daily,
    /// Token budget (LLM APIs).
    Tokens,
    Unknown,
}

impl Quota {
    pub fn as_str(&self) -> &'static str {
        match self {
            Quota::Rate => "rate",
            Quota::Concurrency => "concurrency",
            Quota::Daily => "daily",
            Quota::Tokens => "tokens",
            Quota::Unknown => "unknown",
        }
    }
}

/// What the limit is keyed on, when the response says so.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    Ip,
    User,
    App,
    Key,
    Resource,
}

/// How a piece of evidence bears on the verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Proves (or strongly suggests) who produced the response.
    Producer,
    /// Shows a layer the response passed through, not who produced it.
    Path,
    /// Considered and set aside, with the reason.
    RuledOut,
    /// Bears on the kind of limit, not the layer.
    Quota,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Evidence {
    pub role: Role,
    /// The header (`cf-ray: 8a1b…`) or body feature (`body: "error code: 1015"`) observed.
    pub signal: String,
    /// What it means, in a sentence.
    pub note: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Attribution {
    pub layer: Layer,
    pub vendor: Option<String>,
    /// 0–1.
    pub confidence: f64,
    pub evidence: Vec<Evidence>,
    /// Layers the response passed through (from path-only headers), outermost first.
    pub path: Vec<String>,
    pub quota: Quota,
    pub scope: Option<Scope>,
    pub limits: Option<Limits>,
}

impl Attribution {
    pub fn unknown() -> Self {
        Attribution {
            layer: Layer::Unknown,
            vendor: None,
            confidence: 0.0,
            evidence: Vec::new(),
            path: Vec::new(),
            quota: Quota::Unknown,
            scope: None,
            limits: None,
        }
    }
}

/// Is this response a rate-limit signal? Every 429, and a 503 or 403 that carries rate-limit
/// evidence (Retry-After or rate-limit headers).
pub fn is_rate_limited(r: &Request) -> bool {
    match r.status {
        429 => true,
        503 | 403 => {
            let h = &r.response_headers;
            h.contains("retry-after")
                || h.iter().any(|(n, _)| {
                    let n = n.to_ascii_lowercase();
                    n.starts_with("x-ratelimit")
                        || n.starts_with("ratelimit")
                        || n.starts_with("x-rate-limit")
                })
        }
        _ => false,
    }
}

/// Attribute every rate-limited response in `requests` (indices in `targets`), using the other
/// responses of the same host as the baseline.
pub fn attribute(requests: &[Request], targets: &[usize]) -> Vec<Attribution> {
    let _ = requests;
    targets.iter().map(|_| Attribution::unknown()).collect()
}
