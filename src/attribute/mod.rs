//! Which layer sent each rate-limited response (CDN/WAF, proxy/gateway, API origin), which
//! vendor, what kind of limit, with the evidence that decided it.
//!
//! The contract types live here; the rule table (`rules.rs`, data) and the engine (`engine.rs`)
//! fill them in. Sources: `shared/reference/fingerprints.md`; every rule is listed with its
//! source in docs/attribution.md.

pub mod catalogue;
pub mod engine;
pub mod matcher;
pub mod rules;
#[cfg(test)]
mod tests;

use crate::http::ratelimit::Limits;
use crate::model::Request;
use serde::Serialize;
use std::collections::HashMap;

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
    /// Short label of the deciding rule for summaries ("1015", "limit_req default page").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
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
            detail: None,
        }
    }
}

/// Body wording that marks a 403/503 as a rate limit rather than an auth error or an outage.
const RATE_LIMIT_WORDS: &[&str] = &[
    "rate limit",
    "ratelimit",
    "rate_limit",
    "too many requests",
    "request_limit_exceeded",
    "quota",
    "throttl",
    "resource_exhausted",
    "limitexceeded",
    "local_rate_limited",
    "error code: 1015",
    "spike arrest",
    "policies.ratelimit",
    "max connections reached",
];

/// Is this response a rate-limit signal? Every 429; a 503 or 403 carrying rate-limit evidence
/// (Retry-After, an exhausted rate-limit header, throttle wording or a limiter's own page);
/// legacy Apigee's 500 spike-arrest fault; and AWS WAF's CAPTCHA (405) and Challenge (202)
/// interstitials, which a rate-based rule answers with instead of a 429 and which carry
/// `x-amzn-waf-action` [W5].
pub fn is_rate_limited(r: &Request) -> bool {
    let h = &r.response_headers;
    let body = || r.body_excerpt.as_deref().unwrap_or("").to_lowercase();
    match r.status {
        429 => true,
        503 | 403 => {
            if h.contains("retry-after")
                || h.contains("retry-after-ms")
                || h.contains("x-ms-retry-after-ms")
            {
                return true;
            }
            if h.contains("x-envoy-ratelimited")
                || h.contains("x-retry-in")
                || h.get("x-amzn-errortype")
                    .map(|v| v.contains("TooManyRequests") || v.contains("LimitExceeded"))
                    .unwrap_or(false)
            {
                return true;
            }
            let fams = crate::http::ratelimit::parse_all(h, None);
            if fams.iter().any(|f| f.limits.remaining == Some(0.0)) {
                return true;
            }
            let b = body();
            // nginx's default 503 page is what limit_req/limit_conn send [P1, P2].
            RATE_LIMIT_WORDS.iter().any(|w| b.contains(w))
                || (r.status == 503 && b.contains("<center>nginx"))
        }
        500 => body().contains("policies.ratelimit"),
        202 | 405 => h
            .get("x-amzn-waf-action")
            .map(|v| {
                let v = v.trim();
                v.eq_ignore_ascii_case("captcha") || v.eq_ignore_ascii_case("challenge")
            })
            .unwrap_or(false),
        _ => false,
    }
}

/// Attribute every rate-limited response in `requests` (indices in `targets`), using the other
/// responses of the same host as the baseline.
pub fn attribute(requests: &[Request], targets: &[usize]) -> Vec<Attribution> {
    let mut by_host: HashMap<String, Vec<usize>> = HashMap::new();
    for &t in targets {
        if let Some(r) = requests.get(t) {
            by_host.entry(r.host()).or_default();
        }
    }
    let mut ok: HashMap<String, Vec<&Request>> = HashMap::new();
    for r in requests {
        if (200..400).contains(&r.status) {
            let host = r.host();
            if by_host.contains_key(&host) {
                let v = ok.entry(host).or_default();
                if v.len() < engine::BASELINE_MAX {
                    v.push(r);
                }
            }
        }
    }
    let baselines: HashMap<String, engine::Baseline> = by_host
        .keys()
        .map(|h| {
            (
                h.clone(),
                engine::Baseline::build(h, ok.get(h).map(Vec::as_slice).unwrap_or(&[])),
            )
        })
        .collect();
    targets
        .iter()
        .map(|&t| match requests.get(t) {
            Some(r) => match baselines.get(&r.host()) {
                Some(b) => engine::attribute_one(r, b),
                None => Attribution::unknown(),
            },
            None => Attribution::unknown(),
        })
        .collect()
}

/// The rule table as Markdown (docs/attribution.md is this text; a test keeps them in sync).
pub fn rules_markdown() -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "| id | vendor | layer | proves | weight | matches | source | meaning |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|");
    for r in rules::RULES {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {:?} | {} | {} | {} | {} |",
            r.id,
            r.vendor,
            r.layer.as_str(),
            r.proves,
            r.weight,
            r.when.describe(),
            r.source,
            r.note.replace('|', "\\|")
        );
    }
    let _ = writeln!(out, "\n### Provider catalogue\n");
    let _ = writeln!(
        out,
        "{} providers. A host match is origin evidence naming the vendor when the API answered; \
         markers and messages are producer evidence (layer `api`); each message is also a quota \
         cue for that vendor's verdicts.\n",
        catalogue::PROVIDERS.len()
    );
    let _ = writeln!(
        out,
        "| vendor | provider | category | hosts | rate-limit headers | markers | documented messages → kind | default kind | source |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|---|");
    let esc = |s: &str| s.replace('|', "\\|");
    for p in catalogue::PROVIDERS {
        let hosts = p
            .hosts
            .iter()
            .map(|h| format!("`{h}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let markers = p
            .markers
            .iter()
            .filter(|m| !p.messages.iter().any(|msg| msg.id == m.id))
            .map(|m| format!("`{}` ({}): {}", m.id, m.weight, m.when.describe()))
            .collect::<Vec<_>>()
            .join("; ");
        let messages = p
            .messages
            .iter()
            .map(|m| {
                let kind = m.quota.map(|q| q.as_str()).unwrap_or("—");
                let scope = m
                    .scope
                    .map(|s| format!(", per {}", format!("{s:?}").to_lowercase()))
                    .unwrap_or_default();
                format!("`{}`: \"{}\" → {kind}{scope}", m.id, esc(m.text))
            })
            .collect::<Vec<_>>()
            .join("; ");
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            p.vendor,
            esc(p.name),
            p.category.as_str(),
            hosts,
            esc(p.family),
            if markers.is_empty() {
                "—".into()
            } else {
                markers
            },
            if messages.is_empty() {
                "—".into()
            } else {
                messages
            },
            p.quota.as_str(),
            p.source
        );
    }
    let _ = writeln!(out, "\n### Quota cues\n");
    let _ = writeln!(
        out,
        "| id | tier | matches | quota | scope | source | meaning |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|");
    for c in rules::CUES {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} | {} | {} |",
            c.id,
            c.tier,
            c.when.describe(),
            c.quota.map(|q| q.as_str()).unwrap_or("—"),
            c.scope
                .map(|s| format!("{s:?}").to_lowercase())
                .unwrap_or_else(|| "—".into()),
            c.source,
            c.note.replace('|', "\\|")
        );
    }
    out
}
