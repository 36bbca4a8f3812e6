//! Step 6: the kind of limit and its scope. Every cue is collected with its tier; the lowest
//! tier wins, and in a tier the first found (fingerprints.md Part 1, Q1–Q6).

use super::super::catalogue::{self, Provider};
use super::super::matcher::Subject;
use super::super::rules::{Rule, CUES};
use super::super::{Layer, Quota, Role, Scope};
use super::verdict::{vendor_name, Verdict};
use crate::http::ratelimit::{self, Family, Unit};
use crate::http::retry_after::RetryAfter;
use crate::units::fmt_duration_ms;

/// What the verdict's quota kind is decided from.
pub(super) struct Inputs<'a> {
    pub subj: &'a Subject<'a>,
    pub fams: &'a [Family],
    pub ra: &'a RetryAfter,
    pub winner_rule: Option<&'static Rule>,
    pub vendor: Option<&'a str>,
    pub layer: Layer,
}

/// One cue: its tier, the kind it means, the signal and the note for the evidence.
struct Found {
    tier: u8,
    quota: Quota,
    signal: String,
    note: String,
}

#[derive(Default)]
struct Cues(Vec<Found>);

impl Cues {
    fn push(&mut self, tier: u8, quota: Quota, signal: impl Into<String>, note: impl Into<String>) {
        self.0.push(Found {
            tier,
            quota,
            signal: signal.into(),
            note: note.into(),
        });
    }
}

/// Quota type and scope, first cue wins by tier.
pub(super) fn classify(x: &Inputs, v: &mut Verdict) -> (Quota, Option<Scope>) {
    let mut cues = Cues::default();
    let provider = x.vendor.and_then(catalogue::find);
    let scope = stated_reasons(x.subj, provider, &mut cues);
    binding_family(x.fams, &mut cues);
    wait_size(x, &mut cues);
    product_kind(x, provider, &mut cues);
    let mut found = cues.0;
    found.sort_by_key(|f| f.tier);
    match found.into_iter().next() {
        Some(f) => {
            v.ev(Role::Quota, f.signal, f.note);
            (f.quota, scope)
        }
        None => (Quota::Unknown, scope),
    }
}

/// Tiers 1 and 5: the verdict's own documented messages first (their meaning is the vendor's),
/// then the cue table. Returns the first scope a matching cue states.
fn stated_reasons(subj: &Subject, provider: Option<&Provider>, cues: &mut Cues) -> Option<Scope> {
    let mut scope = None;
    let own_cues = provider.map(|p| p.cues).unwrap_or(&[]);
    for cue in own_cues.iter().chain(CUES) {
        if let Some(sig) = cue.when.eval(subj) {
            if scope.is_none() {
                scope = cue.scope;
            }
            if let Some(q) = cue.quota {
                cues.push(
                    cue.tier,
                    q,
                    sig.join("; "),
                    format!("{} {}", cue.note, cue.source),
                );
            }
        }
    }
    scope
}

/// Tiers 2 and 3: what the binding rate-limit family counts, and its window.
fn binding_family(fams: &[Family], cues: &mut Cues) {
    let Some(b) = ratelimit::binding(fams) else {
        return;
    };
    let exhausted = b.limits.remaining == Some(0.0);
    match b.unit {
        Unit::Tokens => cues.push(
            2,
            Quota::Tokens,
            b.header.clone(),
            "the binding rate-limit family counts tokens [Q2]",
        ),
        Unit::Concurrency => cues.push(
            2,
            Quota::Concurrency,
            b.header.clone(),
            "the binding policy counts concurrent requests [Q3]",
        ),
        _ => {}
    }
    let Some(w) = b.limits.window_seconds else {
        return;
    };
    if exhausted && w >= 86400.0 {
        cues.push(
            2,
            Quota::Daily,
            b.header.clone(),
            format!(
                "exhausted allowance over a {} window [Q2, Q3]",
                fmt_duration_ms(w * 1000.0)
            ),
        );
    } else if w <= 3600.0 {
        cues.push(
            3,
            Quota::Rate,
            b.header.clone(),
            format!("window of {} [Q2, Q3]", fmt_duration_ms(w * 1000.0)),
        );
    }
}

/// Tier 4: the size of the wait (Retry-After, else the exhausted family's reset).
fn wait_size(x: &Inputs, cues: &mut Cues) {
    let wait = x.ra.seconds.or_else(|| {
        ratelimit::binding(x.fams)
            .filter(|b| b.limits.remaining == Some(0.0))
            .and_then(|b| b.limits.reset_seconds)
    });
    let Some(s) = wait else { return };
    let signal = format!("wait {}", fmt_duration_ms(s * 1000.0));
    if s > 3.0 * 3600.0 {
        cues.push(
            4,
            Quota::Daily,
            signal,
            "a wait of hours: an allowance, not a rate [Q4]",
        );
    } else if s > 0.0 && s <= 3600.0 {
        cues.push(
            4,
            Quota::Rate,
            signal,
            "a wait of seconds to minutes: a rate window [Q4]",
        );
    }
}

/// Tiers 6 and 7: the producing product's limiter kind, and RFC 6585's meaning of a 429 from
/// an identified layer when nothing more specific was said.
fn product_kind(x: &Inputs, provider: Option<&Provider>, cues: &mut Cues) {
    if let Some(q) = x.winner_rule.and_then(|r| r.quota.map(|q| (r, q))) {
        let (rule, q) = q;
        cues.push(
            6,
            q,
            rule.id,
            format!(
                "{}'s limiter is of this kind unless the response says otherwise {}",
                vendor_name(rule.vendor),
                rule.source
            ),
        );
    }
    if let (None, Some(p)) = (x.winner_rule, provider) {
        if x.layer == Layer::Api {
            cues.push(
                6,
                p.quota,
                format!("host {}", p.vendor),
                format!(
                    "{}'s limiter is of this kind unless the response says otherwise ({})",
                    p.name, p.source
                ),
            );
        }
    }
    if x.winner_rule.is_none() && x.layer != Layer::Unknown && x.subj.req.status == 429 {
        cues.push(7, Quota::Rate, "status 429", "RFC 6585: too many requests in a given amount of time; nothing more specific was stated [S1]");
    }
}
