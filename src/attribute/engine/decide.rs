//! Step 5: the candidates weighed into one verdict — parents folded into their products, the
//! generic origin evidence merged into the API it supports, the access log's own word first,
//! and the host's documented owner named when the API answered.

use super::super::catalogue;
use super::super::rules::Rule;
use super::super::Layer;
use super::verdict::{fold_parents, Cand, Verdict};
use super::{Ctx, Owner, DECIDE, NAMED_API};
use crate::model::SignalVerdict;

/// The winning candidate.
#[derive(Clone, Copy)]
pub(super) struct Winner {
    pub score: f64,
    pub layer: Layer,
    pub vendor: Option<&'static str>,
    pub top_rule: Option<&'static Rule>,
}

/// The verdict the candidates add up to, and the runner-up's score; `None` below [`DECIDE`].
/// `forced` says the access log named the winner.
pub(super) struct Decision {
    pub winner: Option<Winner>,
    pub runner: f64,
    pub forced: bool,
}

pub(super) fn decide(cx: &Ctx, host_owner: Owner, v: &mut Verdict) -> Decision {
    // A layer whose log says it passed the response through did not produce it, whatever its
    // headers suggested.
    if let Some(sig) = cx.log.filter(|s| s.verdict == SignalVerdict::PassedThrough) {
        v.cands.retain(|c| c.vendor != Some(sig.logger));
    }
    // A product and its parent vendor at the same layer are one candidate (a Gemini quota error
    // also carries Google's RESOURCE_EXHAUSTED).
    fold_parents(&mut v.cands);
    let merged_into = merge_generic_api(&mut v.cands);
    rank(&mut v.cands);
    // A log line that says its layer generated the response names the producer outright.
    let forced = cx
        .log
        .filter(|s| s.verdict == SignalVerdict::Generated)
        .and_then(|s| {
            v.cands
                .iter()
                .position(|c| c.vendor == Some(s.producer) && c.layer == s.producer_layer)
        });
    if let Some(i) = forced {
        let c = v.cands.remove(i);
        v.cands.insert(0, c);
    }
    let winner = v
        .cands
        .first()
        .filter(|c| c.score() >= DECIDE)
        .map(|c| Winner {
            score: c.score(),
            layer: c.layer,
            vendor: c.vendor,
            top_rule: c.top_rule,
        })
        .map(|w| host_owner_names_api(w, host_owner, merged_into));
    Decision {
        winner,
        runner: v.cands.get(1).map(|c| c.score()).unwrap_or(0.0),
        forced: forced.is_some(),
    }
}

/// API candidates merge: the generic origin evidence supports the named API whose own markers
/// already point at it (≥ [`NAMED_API`]); generic evidence says "an origin", not which one, so
/// a weak shared marker (the x-rate-limit-* trio that X, Okta and IBM SVA all send) must not
/// inherit it. Returns the vendor it merged into.
fn merge_generic_api(cands: &mut Vec<Cand>) -> Option<&'static str> {
    let mut api_generic_miss = 1.0;
    cands.retain(|c| {
        if c.layer == Layer::Api && c.vendor.is_none() {
            api_generic_miss *= c.miss;
            false
        } else {
            true
        }
    });
    match cands
        .iter_mut()
        .filter(|c| c.layer == Layer::Api && c.score() >= NAMED_API)
        .max_by(|a, b| a.score().total_cmp(&b.score()))
    {
        Some(best_api) => {
            best_api.miss *= api_generic_miss;
            best_api.vendor
        }
        None => {
            if api_generic_miss < 1.0 {
                cands.push(Cand {
                    vendor: None,
                    layer: Layer::Api,
                    miss: api_generic_miss,
                    top_weight: 0.0,
                    top_rule: None,
                });
            }
            None
        }
    }
}

/// Highest score first; ties go to the outer layer, as in the reference's rule order.
fn rank(cands: &mut [Cand]) {
    let order = |l: Layer| match l {
        Layer::Cdn => 0,
        Layer::Proxy => 1,
        Layer::Api => 2,
        Layer::Unknown => 3,
    };
    cands.sort_by(|a, b| {
        b.score()
            .total_cmp(&a.score())
            .then(order(a.layer).cmp(&order(b.layer)))
    });
}

/// When the API answered, the vendor is the API's owner: the host names it unless a vendor that
/// earned the origin evidence (its own markers ≥ NAMED_API) says otherwise — or that vendor is
/// the host owner's parent (Google's RESOURCE_EXHAUSTED on the Maps host is Maps).
fn host_owner_names_api(w: Winner, host_owner: Owner, merged_into: Option<&str>) -> Winner {
    match host_owner {
        Some((p, _))
            if w.layer == Layer::Api
                && w.vendor != Some(p.vendor)
                && (w.vendor.is_none()
                    || merged_into != w.vendor
                    || w.vendor == catalogue::parent(p.vendor)) =>
        {
            Winner {
                vendor: Some(p.vendor),
                top_rule: None,
                ..w
            }
        }
        _ => w,
    }
}
