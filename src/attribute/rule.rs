//! The shape of the fingerprint table's rows ([`super::rules`], [`super::catalogue`]): who can
//! produce a rate-limited response and how it looks ([`Rule`]), what a hit proves
//! ([`Proves`]), and the cues about the kind of limit ([`Cue`]). The types live below both
//! tables so that either can hold rows of the other's kind.

use super::matcher::M;
use super::{Layer, Quota, Scope};

/// What a rule's hit says about the layer it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Proves {
    /// A marker only the producing layer emits (its own error page, a generator-only header).
    Producer,
    /// A marker that points at the producer only when the host's successful responses lack it
    /// (e.g. `Server: AkamaiGHost` on the 429 but the origin's Server on every 200).
    ProducerIfNew,
    /// The layer was on the path; says nothing about who produced the response.
    Path,
    /// The layer forwarded the request and an upstream answered: the producer is behind it.
    Upstream,
}

#[derive(Debug)]
pub struct Rule {
    pub id: &'static str,
    pub vendor: &'static str,
    pub layer: Layer,
    pub proves: Proves,
    /// How much a hit counts toward the verdict, 0–1 (combined noisy-or per vendor).
    pub weight: f64,
    pub when: M,
    /// The product's limiter kind, used only when nothing more specific is said.
    pub quota: Option<Quota>,
    /// Short label for summaries ("1015", "limit_req default page").
    pub detail: &'static str,
    /// Source tags in fingerprints.md.
    pub source: &'static str,
    pub note: &'static str,
}

/// A cue about the kind of limit. Lower tiers win (fingerprints.md Part 1, Q1–Q6).
#[derive(Debug)]
pub struct Cue {
    pub id: &'static str,
    pub tier: u8,
    pub when: M,
    pub quota: Option<Quota>,
    pub scope: Option<Scope>,
    pub source: &'static str,
    pub note: &'static str,
}
