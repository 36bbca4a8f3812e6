//! The candidates a response's evidence speaks for, the evidence lines with what each speaks
//! for, and the last pass that marks the lines of losing candidates as ruled out.

use super::super::catalogue;
use super::super::rules::Rule;
use super::super::{Evidence, Layer, Role};

/// One candidate producer.
pub(super) struct Cand {
    pub(super) vendor: Option<&'static str>,
    pub(super) layer: Layer,
    /// Product of (1 − weight) over its hits: score = 1 − miss.
    pub(super) miss: f64,
    /// The same over its own markers only, before generic origin evidence merged into it.
    pub(super) own_miss: f64,
    pub(super) top_weight: f64,
    pub(super) top_rule: Option<&'static Rule>,
}

impl Cand {
    pub(super) fn score(&self) -> f64 {
        1.0 - self.miss
    }

    /// What its own markers add up to.
    pub(super) fn own_score(&self) -> f64 {
        1.0 - self.own_miss
    }
}

/// What an evidence line speaks for, so lines for a losing candidate can be marked as ruled out.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Tag {
    Neutral,
    /// Supports this (vendor, layer) as the producer; `None` vendor = the origin in general.
    Cand(Option<&'static str>, Layer),
    /// A path header of this vendor.
    PathOf(&'static str),
    /// Speaks against the origin having answered.
    AgainstApi,
}

#[derive(Default)]
pub(super) struct Verdict {
    pub(super) cands: Vec<Cand>,
    pub(super) evidence: Vec<Evidence>,
    /// Which candidate each evidence line speaks for, parallel to `evidence`.
    pub(super) tags: Vec<Tag>,
    pub(super) path: Vec<String>,
    pub(super) forwarded: Vec<&'static str>,
}

impl Verdict {
    pub(super) fn add(
        &mut self,
        vendor: Option<&'static str>,
        layer: Layer,
        weight: f64,
        rule: Option<&'static Rule>,
    ) {
        let w = weight.clamp(0.0, 0.99);
        let c = match self
            .cands
            .iter_mut()
            .position(|c| c.vendor == vendor && c.layer == layer)
        {
            Some(i) => &mut self.cands[i],
            None => {
                self.cands.push(Cand {
                    vendor,
                    layer,
                    miss: 1.0,
                    own_miss: 1.0,
                    top_weight: 0.0,
                    top_rule: None,
                });
                self.cands.last_mut().expect("just pushed")
            }
        };
        c.miss *= 1.0 - w;
        c.own_miss *= 1.0 - w;
        if w > c.top_weight && rule.is_some() {
            c.top_weight = w;
            c.top_rule = rule;
        }
    }

    pub(super) fn ev(&mut self, role: Role, signal: impl Into<String>, note: impl Into<String>) {
        self.ev_tag(role, signal, note, Tag::Neutral);
    }

    pub(super) fn ev_tag(
        &mut self,
        role: Role,
        signal: impl Into<String>,
        note: impl Into<String>,
        tag: Tag,
    ) {
        self.evidence.push(Evidence {
            role,
            signal: signal.into(),
            note: note.into(),
        });
        self.tags.push(tag);
    }

    pub(super) fn on_path(&mut self, vendor: &str) {
        if !self.path.iter().any(|p| p == vendor) {
            self.path.push(vendor.to_string());
        }
    }
}

/// A vendor slug as evidence notes name it.
pub(super) fn vendor_name(slug: &str) -> String {
    match slug {
        "aws-waf" => "AWS WAF".into(),
        "aws-api-gateway" => "API Gateway".into(),
        "azure-front-door" => "Front Door".into(),
        "azure-apim" => "API Management".into(),
        "google-cloud-armor" => "Google's front end".into(),
        "cloudfront" => "CloudFront".into(),
        "haproxy" => "HAProxy".into(),
        "aws-alb" => "the ALB".into(),
        "nginx" => "nginx".into(),
        "google-cloud-lb" => "the Google Cloud load balancer".into(),
        "iis" => "IIS".into(),
        "github" => "GitHub".into(),
        "openai" => "OpenAI".into(),
        "krakend" => "KrakenD".into(),
        "apisix" => "APISIX".into(),
        s => {
            let mut c = s.chars();
            match c.next() {
                Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
                None => String::new(),
            }
        }
    }
}

/// Fold a parent vendor's candidate into its product's at the same layer.
pub(super) fn fold_parents(cands: &mut Vec<Cand>) {
    let mut i = 0;
    while i < cands.len() {
        let parent = cands[i].vendor.and_then(catalogue::parent);
        let found = parent.and_then(|p| {
            cands
                .iter()
                .position(|c| c.vendor == Some(p) && c.layer == cands[i].layer)
        });
        if let Some(j) = found {
            let (miss, own) = (cands[j].miss, cands[j].own_miss);
            cands[i].miss *= miss;
            cands[i].own_miss *= own;
            cands.remove(j);
            if j < i {
                i -= 1;
            }
        }
        i += 1;
    }
}

/// Mark the lines that spoke for a losing candidate as ruled out, and drop the winner's own path
/// headers (it produced the response; it was not merely on the path).
pub(super) fn settle(
    evidence: Vec<Evidence>,
    tags: Vec<Tag>,
    winner: Option<(Option<&'static str>, Layer)>,
) -> Vec<Evidence> {
    let name = |w: (Option<&'static str>, Layer)| match w.0 {
        Some(vd) => format!("{}/{}", w.1.as_str(), vd),
        None => w.1.as_str().to_string(),
    };
    let mut out = Vec::with_capacity(evidence.len());
    for (mut ev, tag) in evidence.into_iter().zip(tags) {
        let supports = match (tag, winner) {
            (Tag::Cand(vd, layer), Some((wv, wl))) => {
                layer == wl && (vd == wv || (vd.is_none() && wl == Layer::Api))
            }
            (Tag::Cand(..), None) => false,
            (Tag::PathOf(vd), Some((wv, _))) if wv == Some(vd) => continue,
            (Tag::AgainstApi, Some((_, wl))) => wl != Layer::Api,
            (Tag::AgainstApi, None) => true,
            _ => true,
        };
        if !supports && ev.role == Role::Producer {
            ev.role = Role::RuledOut;
            match winner {
                Some(w) => ev
                    .note
                    .push_str(&format!("; outweighed by the evidence for {}", name(w))),
                None => ev.note.push_str("; not enough to decide"),
            }
        }
        out.push(ev);
    }
    out
}

pub(super) fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}
