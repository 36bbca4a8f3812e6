//! Step 5: the candidates weighed into one verdict — parents folded into their products, the
//! generic origin evidence merged into the API it supports, the access log's own word first,
//! and the host's documented owner named when the API answered.

use super::super::catalogue;
use super::super::rules::Rule;
use super::super::Layer;
use super::verdict::{fold_parents, Cand, Verdict};
use super::{Ctx, Owner, DECIDE, NAMED_API};
use crate::model::SignalVerdict;

/// What a documented API host weighs for its owner being the API's vendor: more than a shared
/// error schema in the body (0.85 at most), less than a vendor-only header (0.95).
const HOST_IDENTITY: f64 = 0.9;

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
    /// The candidate that came second, for the report.
    pub runner_up: Option<RunnerUp>,
}

/// The second candidate of a verdict.
#[derive(Clone, Copy)]
pub(super) struct RunnerUp {
    pub layer: Layer,
    pub vendor: Option<&'static str>,
    pub score: f64,
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
    merge_generic_api(&mut v.cands);
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
        });
    let (winner, displaced) = match winner {
        Some(w) => {
            let (w, d) = host_owner_names_api(w, host_owner, &v.cands);
            (Some(w), d)
        }
        None => (None, None),
    };
    let runner_up = runner_up(v, winner, displaced);
    Decision {
        winner,
        runner: v.cands.get(1).map(|c| c.score()).unwrap_or(0.0),
        forced: forced.is_some(),
        runner_up,
    }
}

/// The candidate that came second: the vendor the host's catalogue entry displaced, else the
/// next candidate in score order.
fn runner_up(
    v: &Verdict,
    winner: Option<Winner>,
    displaced: Option<(Option<&'static str>, f64)>,
) -> Option<RunnerUp> {
    let w = winner?;
    if let Some((vendor, score)) = displaced {
        return Some(RunnerUp {
            layer: Layer::Api,
            vendor,
            score,
        });
    }
    v.cands
        .iter()
        .skip(1)
        .find(|c| !(c.layer == w.layer && c.vendor == w.vendor))
        .map(|c| RunnerUp {
            layer: c.layer,
            vendor: c.vendor,
            score: c.score(),
        })
}

/// API candidates merge: the generic origin evidence supports the named API whose own markers
/// already point at it (≥ [`NAMED_API`]); generic evidence says "an origin", not which one, so
/// a weak shared marker (the x-rate-limit-* trio that X, Okta and IBM SVA all send) must not
/// inherit it; with no such API, weak markers join the origin in general.
fn merge_generic_api(cands: &mut Vec<Cand>) {
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
        Some(best_api) => best_api.miss *= api_generic_miss,
        None => {
            // No vendor's markers name the API: weaker ones still say an API answered, and
            // count toward the origin in general, not toward their vendor.
            cands.retain(|c| {
                let weak = c.layer == Layer::Api && c.vendor.is_some();
                if weak {
                    api_generic_miss *= c.miss;
                }
                !weak
            });
            if api_generic_miss < 1.0 {
                cands.push(Cand {
                    vendor: None,
                    layer: Layer::Api,
                    miss: api_generic_miss,
                    own_miss: api_generic_miss,
                    top_weight: 0.0,
                    top_rule: None,
                });
            }
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

/// When the API answered, the vendor is the API's owner. On a documented API host the host's
/// catalogue entry weighs [`HOST_IDENTITY`] (with its owner's own markers) for the owner; it
/// and one of its products (Gemini on Google's host) are one. Another vendor names the API only
/// when its own markers outweigh that: a vendor-only header can, a shared error schema alone
/// cannot (a relay answering in its upstream's format is still the relay's limit). Returns the
/// winner and what it outweighed, with that one's score.
fn host_owner_names_api(
    w: Winner,
    host_owner: Owner,
    cands: &[Cand],
) -> (Winner, Option<(Option<&'static str>, f64)>) {
    let Some((p, _)) = host_owner.filter(|_| w.layer == Layer::Api) else {
        return (w, None);
    };
    let is_owner =
        |vd: Option<&str>| vd == Some(p.vendor) || vd.and_then(catalogue::parent) == Some(p.vendor);
    if is_owner(w.vendor) {
        return (w, None);
    }
    let own = |vd: Option<&str>| {
        cands
            .iter()
            .find(|c| c.layer == Layer::Api && c.vendor == vd)
            .map(Cand::own_score)
            .unwrap_or(0.0)
    };
    let host = 1.0 - (1.0 - HOST_IDENTITY) * (1.0 - own(Some(p.vendor)));
    let other = own(w.vendor);
    if w.vendor.is_some() && other > host {
        return (w, Some((Some(p.vendor), host)));
    }
    let displaced = w.vendor.map(|vd| (Some(vd), other));
    let w = Winner {
        vendor: Some(p.vendor),
        top_rule: None,
        ..w
    };
    (w, displaced)
}
