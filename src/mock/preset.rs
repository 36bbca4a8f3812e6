//! Presets: the mock answers the way a real provider's limiter answers — its status, its header
//! family (names, units, reset format), its body, its limit model and default limits — each fact
//! cited to the provider's documentation.
//!
//! The table is data beside the attribution catalogue it must agree with: every preset names the
//! vendor slug attribution uses (`src/attribute/catalogue.rs` for APIs, `rules.rs` for edges and
//! gateways), the rule ids its 429 must trip, and the kind of limit each of its limits is; a
//! catalogue message is quoted from the catalogue itself (`{message}`), not copied. Tests hold the
//! two together: every preset's refusal, built by the code that serves it, is attributed by the
//! engine to the preset's vendor, layer and kind (`preset/tests.rs`), and a real burst against
//! the mock, read back by `analyze`, says the same (`tests/mock_presets.rs`).

use super::policy::{Limit, Outcome};
use crate::attribute::{Layer, Quota};
use crate::limiter::{headers::ceil_s, Decision, Nanos, Spec, NS_PER_MS, NS_PER_S};
use chrono::{DateTime, SecondsFormat};

/// How a preset writes its rate-limit headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// No rate-limit headers.
    None,
    /// GitHub: `x-ratelimit-limit/-remaining/-used/-reset` (epoch seconds) and
    /// `x-ratelimit-resource`, from the limit named `requests`.
    Github,
    /// OpenAI: `x-ratelimit-{limit,remaining,reset}-{requests,tokens}`, resets as Go durations
    /// (`1s`, `6m0s`) until the limit is back to full.
    OpenAi,
    /// Anthropic: `anthropic-ratelimit-{requests,input-tokens,output-tokens,tokens}-{limit,
    /// remaining,reset}`, resets as RFC 3339 instants.
    Anthropic,
    /// Shopify REST: `X-Shopify-Shop-Api-Call-Limit: used/bucket`.
    Shopify,
    /// Kong `rate-limiting`: `X-RateLimit-Limit-Minute`, `X-RateLimit-Remaining-Minute` (the
    /// window's name) and `RateLimit-Limit/-Remaining/-Reset` (seconds).
    Kong,
}

/// How a preset writes Retry-After on a refusal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryAfter {
    /// Delta-seconds, rounded up.
    Seconds,
    /// Seconds with one decimal (Shopify's `2.0`).
    Decimal,
    None,
}

/// One of a preset's limits.
#[derive(Debug)]
pub struct PresetLimit {
    /// `SPEC[,cost=…][,key=…]` ([`Limit::parse`]); the name is `name`.
    pub name: &'static str,
    pub spec: &'static str,
    /// The provider's words for this limit in its body (`{label}`), e.g. "tokens per min (TPM)".
    pub label: &'static str,
    /// The provider's type word (`{type}`), e.g. OpenAI's `"type":"tokens"`.
    pub kind_word: &'static str,
    /// What attribution must call a refusal by this limit.
    pub quota: Quota,
}

/// A documentation page and what it says that the preset relies on.
#[derive(Debug)]
pub struct Cite {
    pub url: &'static str,
    pub says: &'static str,
}

#[derive(Debug)]
pub struct Preset {
    pub name: &'static str,
    pub title: &'static str,
    /// The vendor slug attribution names.
    pub vendor: &'static str,
    pub layer: Layer,
    /// Rule ids (`rules.rs` or the catalogue's markers) the refusal must trip.
    pub rules: &'static [&'static str],
    /// A catalogue message id quoted as `{message}` in the body.
    pub message: Option<&'static str>,
    pub status: u16,
    pub limits: &'static [PresetLimit],
    pub family: Family,
    pub retry_after: RetryAfter,
    pub content_type: &'static str,
    /// The refusal's body, with `{placeholders}` ([`Fill`]).
    pub body: &'static str,
    /// Headers on every response (values may hold placeholders).
    pub every: &'static [(&'static str, &'static str)],
    /// Headers on refusals only.
    pub refusal: &'static [(&'static str, &'static str)],
    pub cites: &'static [Cite],
}

impl Preset {
    pub fn limits(&self) -> Vec<Limit> {
        self.limits
            .iter()
            .map(|l| {
                let mut limit = Limit::parse(l.spec)
                    .unwrap_or_else(|e| panic!("preset {} limit {}: {e}", self.name, l.name));
                limit.name = l.name.to_string();
                limit
            })
            .collect()
    }

    pub fn limit(&self, name: &str) -> Option<&PresetLimit> {
        self.limits.iter().find(|l| l.name == name)
    }
}

/// The preset called `name`.
pub fn find(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}

/// Every preset's name, for error messages.
pub fn names() -> String {
    PRESETS
        .iter()
        .map(|p| p.name)
        .collect::<Vec<_>>()
        .join(", ")
}

mod table;
pub use table::PRESETS;

/// What a response's placeholders are filled with.
pub struct Fill<'a> {
    pub now: Nanos,
    pub outcome: &'a Outcome,
    pub limits: &'a [Limit],
    pub request_id: &'a str,
    pub client_ip: &'a str,
}

/// A Go duration as OpenAI writes it: `20ms`, `1s`, `1.146s`, `6m0s`, `1h2m3s`.
pub fn go_duration(ns: u64) -> String {
    if ns == 0 {
        return "0s".into();
    }
    if ns < NS_PER_S {
        return format!("{}ms", ns.div_ceil(NS_PER_MS));
    }
    let ms = ns.div_ceil(NS_PER_MS);
    let (h, m, s_ms) = (ms / 3_600_000, ms / 60_000 % 60, ms % 60_000);
    let secs = if s_ms % 1000 == 0 {
        format!("{}s", s_ms / 1000)
    } else {
        let t = format!("{}.{:03}", s_ms / 1000, s_ms % 1000);
        format!("{}s", t.trim_end_matches('0'))
    };
    match (h, m) {
        (0, 0) => secs,
        (0, m) => format!("{m}m{secs}"),
        (h, m) => format!("{h}h{m}m{secs}"),
    }
}

/// RFC 3339 to the second, UTC.
fn rfc3339_s(t: Nanos) -> String {
    DateTime::from_timestamp(ceil_s(t).min(i64::MAX as u64) as i64, 0)
        .map(|d| d.to_rfc3339_opts(SecondsFormat::Secs, true))
        .unwrap_or_default()
}

/// Time until a limit is back to its full allowance (buckets refill; windows end).
pub fn full_in(limit: &Limit, d: &Decision) -> u64 {
    match limit.spec {
        Spec::TokenBucket {
            count,
            period_ns,
            burst,
            ..
        }
        | Spec::Gcra {
            count,
            period_ns,
            burst,
        } => {
            let missing = burst.saturating_sub(d.quota.remaining) as u128;
            (missing * period_ns as u128 / count as u128).min(u64::MAX as u128) as u64
        }
        _ => d.quota.reset_ns.unwrap_or(0),
    }
}

impl Fill<'_> {
    fn named(&self, name: &str) -> Option<(&Limit, &Decision)> {
        let i = self.limits.iter().position(|l| l.name == name)?;
        Some((&self.limits[i], &self.outcome.decisions[i]))
    }

    fn binding(&self) -> (&Limit, &Decision, u64) {
        let i = self.outcome.binding;
        (
            &self.limits[i],
            &self.outcome.decisions[i],
            self.outcome.costs[i],
        )
    }

    /// Replace the placeholders of `template`.
    pub fn text(&self, p: &Preset, template: &str) -> String {
        if !template.contains('{') {
            return template.to_string();
        }
        let (limit, d, cost) = self.binding();
        let pl = p.limit(&limit.name);
        let wait = self.outcome.retry_after_ns.unwrap_or(0);
        let message = p
            .message
            .and_then(message_text)
            .unwrap_or("rate limit exceeded");
        let used = d.quota.limit.saturating_sub(d.quota.remaining);
        let ray = format!("{}-SJC", &self.request_id[..16.min(self.request_id.len())]);
        [
            ("{retry_after}", ceil_s(wait).max(1).to_string()),
            ("{retry_after_go}", go_duration(wait)),
            ("{limit}", d.quota.limit.to_string()),
            ("{used}", used.to_string()),
            ("{requested}", cost.to_string()),
            (
                "{label}",
                pl.map_or(limit.name.as_str(), |l| l.label).to_string(),
            ),
            ("{type}", pl.map_or("requests", |l| l.kind_word).to_string()),
            ("{client_ip}", self.client_ip.to_string()),
            ("{request_id}", self.request_id.to_string()),
            ("{ray_id}", ray),
            ("{message}", message.to_string()),
        ]
        .iter()
        .fold(template.to_string(), |t, (k, v)| t.replace(k, v))
    }

    /// The preset's rate-limit headers (every response), then its fixed headers.
    pub fn headers(&self, p: &Preset, out: &mut Vec<(String, String)>) {
        match p.family {
            Family::None => {}
            Family::Github => self.github(out),
            Family::OpenAi => self.openai(out),
            Family::Anthropic => self.anthropic(out),
            Family::Shopify => self.shopify(out),
            Family::Kong => self.kong(out),
        }
        for (n, v) in p.every {
            out.push((n.to_string(), self.text(p, v)));
        }
    }

    fn github(&self, out: &mut Vec<(String, String)>) {
        let Some((_, d)) = self.named("requests") else {
            return;
        };
        let q = &d.quota;
        let reset = ceil_s(self.now.saturating_add(q.reset_ns.unwrap_or(0)));
        for (n, v) in [
            ("x-ratelimit-limit", q.limit.to_string()),
            ("x-ratelimit-remaining", q.remaining.to_string()),
            ("x-ratelimit-reset", reset.to_string()),
            ("x-ratelimit-used", (q.limit - q.remaining).to_string()),
            ("x-ratelimit-resource", "core".to_string()),
        ] {
            out.push((n.into(), v));
        }
    }

    fn openai(&self, out: &mut Vec<(String, String)>) {
        for what in ["requests", "tokens"] {
            let Some((l, d)) = self.named(what) else {
                continue;
            };
            out.push((
                format!("x-ratelimit-limit-{what}"),
                d.quota.limit.to_string(),
            ));
            out.push((
                format!("x-ratelimit-remaining-{what}"),
                d.quota.remaining.to_string(),
            ));
            out.push((
                format!("x-ratelimit-reset-{what}"),
                go_duration(full_in(l, d)),
            ));
        }
    }

    fn anthropic(&self, out: &mut Vec<(String, String)>) {
        let mut tokens: Option<(u64, u64, u64)> = None;
        for what in ["requests", "input-tokens", "output-tokens"] {
            let Some((l, d)) = self.named(what) else {
                continue;
            };
            let full = full_in(l, d);
            let p = format!("anthropic-ratelimit-{what}");
            out.push((format!("{p}-limit"), d.quota.limit.to_string()));
            out.push((format!("{p}-remaining"), d.quota.remaining.to_string()));
            out.push((
                format!("{p}-reset"),
                rfc3339_s(self.now.saturating_add(full)),
            ));
            if what != "requests" {
                // The tokens family is the most restrictive of the token limits.
                let t = (d.quota.limit, d.quota.remaining, full);
                tokens = Some(match tokens {
                    Some(o) if o.1 <= t.1 => o,
                    _ => t,
                });
            }
        }
        if let Some((limit, remaining, full)) = tokens {
            out.push(("anthropic-ratelimit-tokens-limit".into(), limit.to_string()));
            out.push((
                "anthropic-ratelimit-tokens-remaining".into(),
                remaining.to_string(),
            ));
            out.push((
                "anthropic-ratelimit-tokens-reset".into(),
                rfc3339_s(self.now.saturating_add(full)),
            ));
        }
    }

    fn shopify(&self, out: &mut Vec<(String, String)>) {
        let (_, d, _) = self.binding();
        let bucket = d.quota.burst.unwrap_or(d.quota.limit);
        let used = bucket.saturating_sub(d.quota.remaining);
        out.push((
            "X-Shopify-Shop-Api-Call-Limit".into(),
            format!("{used}/{bucket}"),
        ));
    }

    fn kong(&self, out: &mut Vec<(String, String)>) {
        let (_, d, _) = self.binding();
        let q = &d.quota;
        let period = match q.window_s {
            Some(1) => "Second",
            Some(60) => "Minute",
            Some(3600) => "Hour",
            Some(86_400) => "Day",
            _ => "Minute",
        };
        let reset = ceil_s(q.reset_ns.unwrap_or(0)).to_string();
        out.push((format!("X-RateLimit-Limit-{period}"), q.limit.to_string()));
        out.push((
            format!("X-RateLimit-Remaining-{period}"),
            q.remaining.to_string(),
        ));
        out.push(("RateLimit-Limit".into(), q.limit.to_string()));
        out.push(("RateLimit-Remaining".into(), q.remaining.to_string()));
        out.push(("RateLimit-Reset".into(), reset));
    }

    /// The Retry-After value the preset writes on a refusal.
    pub fn retry_after(&self, p: &Preset) -> Option<String> {
        let wait = self.outcome.retry_after_ns?;
        match p.retry_after {
            RetryAfter::Seconds => Some(ceil_s(wait).to_string()),
            RetryAfter::Decimal => Some(format!("{:.1}", wait.div_ceil(NS_PER_MS) as f64 / 1000.0)),
            RetryAfter::None => None,
        }
    }
}

/// The stock wording of a catalogue message.
pub fn message_text(id: &str) -> Option<&'static str> {
    crate::attribute::catalogue::PROVIDERS
        .iter()
        .flat_map(|p| p.messages.iter())
        .find(|m| m.id == id)
        .map(|m| m.text)
}

#[cfg(test)]
mod tests;
