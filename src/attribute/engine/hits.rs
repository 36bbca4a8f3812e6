//! The first steps of a verdict: the rule table's hits on the response, the access log's own
//! word, and what pass-through markers (present or missing) say about the layers in front.

use super::super::rules::{self, Proves, Rule};
use super::super::{Layer, Role};
use super::verdict::{vendor_name, Tag, Verdict};
use super::{Ctx, EVERY};
use crate::model::{LayerSignal, SignalVerdict};

/// Step 1: every rule that matches, as producer, path or pass-through evidence by what its hit
/// proves against the host's baseline. Returns the vendors that left producer evidence.
pub(super) fn rule_hits(cx: &Ctx, v: &mut Verdict) -> Vec<&'static str> {
    let mut producers = Vec::new();
    for (i, &rule) in rules::all().iter().enumerate() {
        let Some(signals) = rule.when.eval(&cx.subj) else {
            continue;
        };
        let signal = signals.join("; ");
        let share = cx.base.rule_share.get(i).copied().unwrap_or(0.0);
        let produced = match rule.proves {
            Proves::Producer => match foreign_wording(cx, rule, &signal) {
                Some(owner) => {
                    // Words, not a name: an API answered, and the host says whose.
                    v.add(None, Layer::Api, rule.weight, None);
                    v.ev_tag(
                        Role::Producer,
                        signal,
                        format!(
                            "{} wrote these words too ({}), but {} is not one of its hosts and names another owner ({owner}): the wording says an API answered, not whose",
                            vendor_name(rule.vendor),
                            rule.source,
                            cx.host
                        ),
                        Tag::Cand(None, Layer::Api),
                    );
                    false
                }
                None => {
                    v.add(Some(rule.vendor), rule.layer, rule.weight, Some(rule));
                    producer_hit(rule, signal, "", v);
                    true
                }
            },
            Proves::ProducerIfNew => producer_if_new_hit(cx, rule, signal, share, v),
            Proves::Path => {
                path_hit(cx, rule, signal, share, v);
                false
            }
            Proves::Upstream => {
                upstream_hit(rule, signal, v);
                false
            }
        };
        if produced {
            producers.push(rule.vendor);
        }
    }
    producers
}

/// Headers of a protocol that other servers implement as well as its author: every
/// S3-compatible store (MinIO, Ceph RGW, Cloudflare R2, Backblaze B2, Wasabi, DigitalOcean
/// Spaces) answers in the S3 API's format with `x-amz-request-id` and `x-amz-id-2`
/// (https://docs.aws.amazon.com/AmazonS3/latest/API/RESTCommonResponseHeaders.html). A marker
/// that reads only these and the body is the protocol's wording, not the vendor's name.
const PROTOCOL_HEADERS: &[&str] = &["x-amz-request-id", "x-amz-id-2"];

/// A catalogue vendor's wording on another owner's host: the registrable domain of the owner
/// named instead, or `None` when the hit names its vendor. A vendor's documented message or
/// error schema in the body (`"Request limit exceeded."`, `"code":"tooManyRequests"`) is
/// written by many APIs; on a host the catalogue does not give to that vendor, whose own
/// registrable domain names someone else, it names nobody. A marker that reads a header
/// (a vendor-only header is sent by that vendor wherever it runs), a body that names the
/// vendor itself (`platform.openai.com`), and software installed anywhere (rows without
/// hosts) still name their vendor; a protocol's headers ([`PROTOCOL_HEADERS`]) are wording.
fn foreign_wording(cx: &Ctx, rule: &'static Rule, signal: &str) -> Option<String> {
    use super::super::{catalogue, domain};
    if rule.layer != Layer::Api || rule.proves != Proves::Producer {
        return None;
    }
    let p = catalogue::find(rule.vendor)?;
    if p.hosts.is_empty() || p.markers.iter().all(|m| !std::ptr::eq(m, rule)) {
        return None;
    }
    let mut names = Vec::new();
    rule.when.header_names(&mut names);
    names.retain(|n| !PROTOCOL_HEADERS.contains(n));
    if !names.is_empty()
        || cx
            .base
            .owner(crate::http::url::split(&cx.req.url).path)
            .is_some()
    {
        return None;
    }
    let owner = domain::host_vendor(&cx.base.host)?;
    let vendor = |slug: &str| slug.replace('-', "");
    let named = |who: &str| {
        let who = vendor(who);
        who == vendor(&owner.slug)
            || signal
                .to_ascii_lowercase()
                .replace(['-', ' '], "")
                .contains(&who)
    };
    let parent = catalogue::parent(rule.vendor).unwrap_or(rule.vendor);
    if named(rule.vendor) || named(parent) || named(&p.name.to_ascii_lowercase()) {
        return None;
    }
    Some(owner.domain)
}

/// A producer marker: a candidate for the rule's vendor and layer.
fn producer_hit(rule: &'static Rule, signal: String, why: &str, v: &mut Verdict) {
    v.ev_tag(
        Role::Producer,
        signal,
        format!("{}{why} {}", rule.note, rule.source),
        Tag::Cand(Some(rule.vendor), rule.layer),
    );
}

/// A marker that proves the producer only when the host's successes lack it; otherwise path.
/// Returns whether it counted as producer evidence.
fn producer_if_new_hit(
    cx: &Ctx,
    rule: &'static Rule,
    signal: String,
    share: f64,
    v: &mut Verdict,
) -> bool {
    let base = cx.base;
    if base.n > 0 && share >= EVERY {
        v.on_path(rule.vendor);
        v.ev(
            Role::RuledOut,
            signal,
            format!(
                "also on {:.0} % of the {} successful responses from {}: path, not producer {}",
                share * 100.0,
                base.n,
                cx.host,
                rule.source
            ),
        );
        return false;
    }
    let (w, why) = if base.n == 0 {
        (
            rule.weight * 0.7,
            " (no successful responses from this host to compare)",
        )
    } else {
        (rule.weight, " and not on this host's successful responses")
    };
    v.add(Some(rule.vendor), rule.layer, w, Some(rule));
    producer_hit(rule, signal, why, v);
    true
}

/// A header on every response crossing the layer: it was on the path.
fn path_hit(cx: &Ctx, rule: &'static Rule, signal: String, share: f64, v: &mut Verdict) {
    let base = cx.base;
    v.on_path(rule.vendor);
    let seen = if base.n > 0 && share >= EVERY {
        format!(
            "on every response from {} ({}/{})",
            cx.host,
            (share * base.n as f64).round(),
            base.n
        )
    } else {
        rule.note.to_string()
    };
    v.ev_tag(
        Role::Path,
        signal,
        format!("{seen}: path, not producer {}", rule.source),
        Tag::PathOf(rule.vendor),
    );
}

/// A pass-through marker: the layer forwarded the request and something behind it answered.
fn upstream_hit(rule: &'static Rule, signal: String, v: &mut Verdict) {
    v.on_path(rule.vendor);
    v.forwarded.push(rule.vendor);
    v.ev(
        Role::Path,
        signal,
        format!(
            "{}: the producer is behind {} {}",
            rule.note,
            vendor_name(rule.vendor),
            rule.source
        ),
    );
}

/// The access log's own verdict as evidence and a candidate (docs/attribution.md, "Access
/// logs"): generated names the producer; passed through rules the logging layer out and speaks
/// for its upstream; no signal says the line cannot tell.
pub(super) fn apply_log_signal(sig: &LayerSignal, v: &mut Verdict) {
    let logger = vendor_name(sig.logger);
    match sig.verdict {
        SignalVerdict::Generated => {
            v.add(Some(sig.producer), sig.producer_layer, sig.weight, None);
            v.ev_tag(
                Role::Producer,
                sig.field.clone(),
                format!("{} (from {logger}'s access log)", sig.note),
                Tag::Cand(Some(sig.producer), sig.producer_layer),
            );
        }
        SignalVerdict::PassedThrough => {
            v.on_path(sig.logger);
            v.add(None, Layer::Api, sig.weight * 0.7, None);
            v.ev_tag(
                Role::Producer,
                sig.field.clone(),
                format!(
                    "{}: {logger} relayed it, so its upstream produced the response, not {logger} (from {logger}'s access log)",
                    sig.note
                ),
                Tag::Cand(None, Layer::Api),
            );
        }
        SignalVerdict::NoSignal => {
            v.ev(
                Role::RuledOut,
                sig.field.clone(),
                format!(
                    "{}: layer not decided by the log (from {logger}'s access log)",
                    sig.note
                ),
            );
        }
    }
}

/// Step 2: pass-through markers rule out the layer that forwarded, unless it left a strong
/// generator-only marker of its own (an inner Envoy behind an outer one) or its own access log
/// says it answered.
pub(super) fn rule_out_forwarders(cx: &Ctx, v: &mut Verdict) {
    for fwd in v.forwarded.clone() {
        let name = vendor_name(fwd);
        let generated = cx
            .log
            .is_some_and(|s| s.verdict == SignalVerdict::Generated && s.producer == fwd);
        if generated {
            v.ev(
                Role::RuledOut,
                name.clone(),
                format!(
                    "a pass-through header of {name}, but its own access log says it answered itself: the log decides"
                ),
            );
            continue;
        }
        let strong = v
            .cands
            .iter()
            .any(|c| c.vendor == Some(fwd) && c.top_weight >= 0.9);
        if !strong && v.cands.iter().any(|c| c.vendor == Some(fwd)) {
            v.cands.retain(|c| c.vendor != Some(fwd));
            v.ev(
                Role::RuledOut,
                name.clone(),
                format!("{name} forwarded this request upstream, so it did not generate the 429"),
            );
        }
        v.add(None, Layer::Api, 0.4, None);
    }
}

/// Step 3: a pass-through marker on nearly every success but missing here, while that layer is
/// on the path: the layer answered without asking its upstream.
pub(super) fn missing_pass_through(cx: &Ctx, v: &mut Verdict) {
    if cx.base.n == 0 {
        return;
    }
    for (i, &rule) in rules::all().iter().enumerate() {
        if rule.proves != Proves::Upstream {
            continue;
        }
        let share = cx.base.rule_share.get(i).copied().unwrap_or(0.0);
        if share >= EVERY
            && rule.when.eval(&cx.subj).is_none()
            && v.path.iter().any(|p| p == rule.vendor)
        {
            let mut names = Vec::new();
            rule.when.header_names(&mut names);
            v.add(Some(rule.vendor), rule.layer, 0.6, Some(rule));
            v.ev_tag(
                Role::Producer,
                format!("no {}", names.join("/")),
                format!(
                    "on {:.0} % of successful responses from {} but not on this one: {} answered without asking the upstream {}",
                    share * 100.0,
                    cx.host,
                    vendor_name(rule.vendor),
                    rule.source
                ),
                Tag::Cand(Some(rule.vendor), rule.layer),
            );
        }
    }
}
