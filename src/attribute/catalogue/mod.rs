//! The provider catalogue: the public APIs and platforms people call most, one row each, with
//! the hosts they answer on, their rate-limit header family, the markers only they send, the
//! documented 429 (or rate-limit 403) wording and the kind of limit each message means, and the
//! source every fact was taken from (the vendor's documentation or the producer's source).
//!
//! Why a catalogue and not more rules: when the layer that answered is the API, the vendor is
//! the API's owner, and for most APIs the host says who that is. A known host is evidence, but
//! weaker than a vendor header or body: a CDN's own error page on `api.example.com` is still the
//! CDN (the engine weighs it; see docs/attribution.md, "Provider catalogue").
//!
//! Rows are data. `markers` are rules like those of `rules.rs` (layer `api`, this vendor);
//! `messages` are the documented stock wording, matched case-insensitively, each both a marker
//! and a tier-1 quota cue that applies when this vendor is the verdict.

use super::matcher::glob;
use super::matcher::M::{self, *};
use super::rule::{Cue, Proves, Rule};
use super::{Layer, Quota, Scope};

/// What kind of service a provider is, for the docs table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Category {
    SourceHosting,
    Chat,
    Payments,
    Commerce,
    Ai,
    Cloud,
    Crm,
    Social,
    Media,
    Registry,
    Certificates,
    Messaging,
    Maps,
    Productivity,
    Identity,
    Observability,
    Finance,
    Data,
    Platform,
    SelfHosted,
}

impl Category {
    pub fn as_str(&self) -> &'static str {
        match self {
            Category::SourceHosting => "source hosting",
            Category::Chat => "chat",
            Category::Payments => "payments",
            Category::Commerce => "commerce",
            Category::Ai => "AI",
            Category::Cloud => "cloud APIs",
            Category::Crm => "CRM and support",
            Category::Social => "social",
            Category::Media => "media",
            Category::Registry => "registries",
            Category::Certificates => "certificates",
            Category::Messaging => "messaging",
            Category::Maps => "maps and geocoding",
            Category::Productivity => "productivity",
            Category::Identity => "identity",
            Category::Observability => "observability",
            Category::Finance => "finance and crypto",
            Category::Data => "data and reference",
            Category::Platform => "platform edges",
            Category::SelfHosted => "self-hosted server software",
        }
    }
}

/// One documented message: the stock wording (as the vendor writes it; matched
/// case-insensitively, JSON spacing ignored) and the kind of limit it means.
#[derive(Debug)]
pub struct Message {
    pub id: &'static str,
    pub text: &'static str,
    pub quota: Option<Quota>,
    pub scope: Option<Scope>,
    pub note: &'static str,
}

#[derive(Debug)]
pub struct Provider {
    /// Slug (NOTES.md "VENDOR SLUG CONVENTION").
    pub vendor: &'static str,
    pub name: &'static str,
    pub category: Category,
    /// Host patterns: `api.stripe.com` exactly, `*` for any run of characters
    /// (`*.slack.com`, `*-aiplatform.googleapis.com`), and an optional path prefix after the
    /// host (`www.googleapis.com/youtube/`). The most specific matching pattern wins.
    pub hosts: &'static [&'static str],
    /// The rate-limit header family the API sends (for the docs and the reader of a verdict).
    pub family: &'static str,
    /// The API's limiter kind when the response says nothing more specific (tier 6).
    pub quota: Quota,
    /// Where the row's facts come from.
    pub source: &'static str,
    /// Vendor-only markers and the messages, as rules (layer `api`, proves `Producer`).
    pub markers: &'static [Rule],
    /// The documented messages, as written.
    pub messages: &'static [Message],
    /// The messages as tier-1 quota cues.
    pub cues: &'static [Cue],
}

/// One catalogue row. `markers: [(id, weight, matcher, detail, note), ...]` are vendor-only headers or
/// bodies; `messages: [(id, weight, "stock wording", quota, scope, note), ...]` are documented
/// messages, each a marker and a quota cue.
macro_rules! provider {
    (
        vendor: $vendor:literal, name: $name:literal, category: $cat:ident, quota: $quota:ident,
        hosts: [$($host:literal),* $(,)?],
        family: $family:literal,
        source: $source:literal,
        markers: [$(($id:literal, $w:literal, $when:expr, $detail:literal, $note:literal)),* $(,)?],
        messages: [$(($mid:literal, $mw:literal, $text:literal, $mq:expr, $ms:expr, $mnote:literal)),* $(,)?] $(,)?
    ) => {
        Provider {
            vendor: $vendor,
            name: $name,
            category: Category::$cat,
            hosts: &[$($host),*],
            family: $family,
            quota: Quota::$quota,
            source: $source,
            markers: &[
                $(Rule {
                    id: $id, vendor: $vendor, layer: Layer::Api, proves: Proves::Producer,
                    weight: $w, when: $when, quota: Some(Quota::$quota), detail: $detail,
                    source: $source, note: $note,
                },)*
                $(Rule {
                    id: $mid, vendor: $vendor, layer: Layer::Api, proves: Proves::Producer,
                    weight: $mw, when: Text($text), quota: Some(Quota::$quota), detail: "",
                    source: $source, note: $mnote,
                },)*
            ],
            messages: &[$(Message { id: $mid, text: $text, quota: $mq, scope: $ms, note: $mnote },)*],
            cues: &[$(Cue {
                id: $mid, tier: 1, when: Text($text), quota: $mq, scope: $ms,
                source: $source, note: $mnote,
            },)*],
        }
    };
}

const RATE: Option<Quota> = Some(Quota::Rate);
const CONC: Option<Quota> = Some(Quota::Concurrency);
const DAILY: Option<Quota> = Some(Quota::Daily);
const TOKENS: Option<Quota> = Some(Quota::Tokens);
const NOQ: Option<Quota> = None;
/// The message says what happened, and it is no kind of quota (a cache warming up).
const UNKNOWN: Option<Quota> = Some(Quota::Unknown);
const NOS: Option<Scope> = None;
const IP: Option<Scope> = Some(Scope::Ip);
const USER: Option<Scope> = Some(Scope::User);
const APP: Option<Scope> = Some(Scope::App);
const KEY: Option<Scope> = Some(Scope::Key);
const RESOURCE: Option<Scope> = Some(Scope::Resource);

/// Does `pattern` (host glob, optional `/path-prefix`) match this host and path? Returns its
/// specificity (literal characters), the most specific match naming the owner.
fn pattern_match(pattern: &str, host: &str, path: &str) -> Option<usize> {
    let (hp, pp) = match pattern.find('/') {
        Some(i) => (&pattern[..i], &pattern[i..]),
        None => (pattern, ""),
    };
    if !glob(hp.as_bytes(), host.as_bytes()) {
        return None;
    }
    if !pp.is_empty() && !path.to_ascii_lowercase().starts_with(pp) {
        return None;
    }
    Some(pattern.bytes().filter(|&c| c != b'*').count())
}

/// Hosts on a vendor's domain that serve its customers' own APIs (a gateway, CDN or load
/// balancer name): they name no API owner.
pub static NOT_OWNED: &[&str] = &[
    "*.execute-api.*.amazonaws.com",
    "*.elb.amazonaws.com",
    "*.lambda-url.*.on.aws",
    "*.cloudfront.net",
    "*.azure-api.net",
    "*.azurefd.net",
    "*.azurewebsites.net",
    "*.azurecontainerapps.io",
    "*.apigee.net",
    "*.run.app",
    "*.appspot.com",
    "*.cloudfunctions.net",
    "*.herokuapp.com",
    "*.vercel.app",
    "*.netlify.app",
    "*.workers.dev",
    "*.pages.dev",
    "*.fly.dev",
    "*.onrender.com",
    "*.up.railway.app",
];

/// The provider whose documented API host this is (most specific pattern wins), with the
/// pattern that matched.
pub fn owner(host: &str, path: &str) -> Option<(&'static Provider, &'static str)> {
    if host.is_empty()
        || NOT_OWNED
            .iter()
            .any(|p| glob(p.as_bytes(), host.as_bytes()))
    {
        return None;
    }
    let mut best: Option<(usize, &'static Provider, &'static str)> = None;
    for p in PROVIDERS.iter().copied() {
        for pat in p.hosts {
            if let Some(score) = pattern_match(pat, host, path) {
                if best.is_none_or(|(b, _, _)| score > b) {
                    best = Some((score, p, pat));
                }
            }
        }
    }
    best.map(|(_, p, pat)| (p, pat))
}

/// Products of a larger vendor whose generic markers they share: when both score at the same
/// layer, the product's evidence absorbs the parent's (a Gemini quota error is also a Google API
/// error; it is not a second candidate).
pub static PARENTS: &[(&str, &str)] = &[
    ("google-gemini", "google"),
    ("google-vertex-ai", "google"),
    ("google-maps", "google"),
    ("youtube", "google"),
    ("aws-bedrock", "aws"),
    ("github-packages", "github"),
];

/// The parent vendor of a product, if it has one.
pub fn parent(vendor: &str) -> Option<&'static str> {
    PARENTS.iter().find(|(c, _)| *c == vendor).map(|(_, p)| *p)
}

/// The catalogue row of a vendor slug.
pub fn find(vendor: &str) -> Option<&'static Provider> {
    PROVIDERS.iter().copied().find(|p| p.vendor == vendor)
}

// The rows, one file per family of services (the macro above is in scope in each).
mod ai;
mod cloud_and_social;
mod code_and_commerce;
mod identity_data_platforms;
mod registries_and_tools;
mod servers;
pub(crate) use servers::KUBE_INFLIGHT;
#[cfg(test)]
mod tests;

/// Every provider, in the order of the families below (the docs table keeps it).
pub static PROVIDERS: std::sync::LazyLock<Vec<&'static Provider>> =
    std::sync::LazyLock::new(|| {
        [
            code_and_commerce::PROVIDERS,
            ai::PROVIDERS,
            cloud_and_social::PROVIDERS,
            registries_and_tools::PROVIDERS,
            identity_data_platforms::PROVIDERS,
            servers::PROVIDERS,
        ]
        .iter()
        .flat_map(|f| f.iter())
        .collect()
    });
