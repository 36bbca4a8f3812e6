//! The engine: evaluates the rule table on each rate-limited response against its host's
//! baseline, separates the producer from the path, and picks a verdict with its evidence.
//!
//! Why a baseline: most layer headers appear on *every* response crossing that layer, so only
//! the difference between the 429 and the host's successful responses is evidence
//! (fingerprints.md Part 1, step 0).

use super::catalogue;
use super::matcher::Subject;
use super::rules::{self, Proves, Rule, CUES};
use super::{Attribution, Evidence, Layer, Quota, Role, Scope};
use crate::http::date::parse_http_date;
use crate::http::ratelimit::{self, Unit};
use crate::http::retry_after;
use crate::model::{LayerSignal, Request, SignalVerdict};
use std::collections::{BTreeSet, HashMap};

/// A header on at least this share of a host's successful responses is "on every response".
const EVERY: f64 = 0.8;
/// Successful responses per host kept for the baseline (bounded work on huge captures).
pub const BASELINE_MAX: usize = 500;
/// Below this score no layer is named.
const DECIDE: f64 = 0.3;
/// A named API's own score needed before generic origin evidence counts toward it.
const NAMED_API: f64 = 0.5;
/// A documented API host, as origin evidence (below a JSON body, 0.35, or rate-limit headers,
/// 0.3, together; far below any vendor marker).
const HOST_WEIGHT: f64 = 0.3;

/// Headers every stack sends, which say nothing about who produced a response.
const GENERIC_HEADERS: &[&str] = &[
    "date",
    "content-type",
    "content-length",
    "content-encoding",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "cache-control",
    "expires",
    "pragma",
    "vary",
    "etag",
    "last-modified",
    "accept-ranges",
    "age",
    "server",
    "via",
    "alt-svc",
    "strict-transport-security",
    "x-content-type-options",
    "x-frame-options",
    "x-xss-protection",
    "content-security-policy",
    "referrer-policy",
    "permissions-policy",
    "set-cookie",
    "nel",
    "report-to",
    "timing-allow-origin",
    "server-timing",
    "x-cache",
    "x-cache-hits",
    "x-served-by",
    "x-timer",
    "retry-after",
    "location",
    "content-disposition",
    "content-language",
    "link",
    // Not `x-powered-by`: the origin's framework sets it (PHP, Express, ASP.NET), and an edge or
    // proxy answering on its own does not copy it, so on the 429 it is the origin's voice.
    "x-request-id",
    "cross-origin-opener-policy",
    "cross-origin-resource-policy",
    "cross-origin-embedder-policy",
    "priority",
    "x-robots-tag",
    "status",
    ":status",
    "x-firefox-spdy",
    "x-dns-prefetch-control",
];

/// What the host's successful responses look like.
pub struct Baseline {
    pub host: String,
    pub n: usize,
    /// Per rule (index into `rules::all()`): share of the successful responses it matches.
    rule_share: Vec<f64>,
    /// Header names on nearly every successful response that no layer rule claims: the origin's
    /// own headers.
    origin_names: Vec<String>,
    /// Share of successful responses that are JSON.
    json_share: f64,
    /// The documented owner of `host` when no catalogue pattern for it has a path part (then
    /// the path changes nothing): looked up once, not per rate-limited response.
    owner: Option<Owner>,
}

type Owner = Option<(&'static catalogue::Provider, &'static str)>;

/// [`catalogue::owner`] of `host` if it is the same for every path: no pattern whose host
/// glob matches `host` has a `/path` part.
fn owner_of_any_path(host: &str) -> Option<Owner> {
    let needs_path = catalogue::PROVIDERS.iter().any(|p| {
        p.hosts.iter().any(|pat| {
            pat.find('/')
                .is_some_and(|i| super::matcher::glob(&pat.as_bytes()[..i], host.as_bytes()))
        })
    });
    (!needs_path).then(|| catalogue::owner(host, ""))
}

impl Baseline {
    /// The documented owner of this host and URL path (the catalogue's answer).
    fn owner(&self, path: &str) -> Owner {
        match self.owner {
            Some(o) => o,
            None => catalogue::owner(&self.host, path),
        }
    }
}

fn is_layer_header(name: &str, layer_names: &[&'static str]) -> bool {
    layer_names.iter().any(|p| name.starts_with(p))
        || GENERIC_HEADERS.contains(&name)
        || name.starts_with("access-control-")
        || name.contains("ratelimit")
        || name.contains("rate-limit")
}

fn layer_header_names() -> Vec<&'static str> {
    let mut v = Vec::new();
    for r in rules::all().iter().filter(|r| r.layer != Layer::Api) {
        r.when.header_names(&mut v);
    }
    v
}

fn is_json(r: &Request, body_lc: &str) -> bool {
    r.content_type()
        .map(|m| m.to_ascii_lowercase().contains("json"))
        .unwrap_or(false)
        || body_lc.trim_start().starts_with('{')
        || body_lc.trim_start().starts_with('[')
}

/// Markup, not merely a text/html label: frameworks (express-rate-limit) send plain sentences
/// as text/html, and that is still the origin talking.
fn is_html(_r: &Request, body_lc: &str) -> bool {
    body_lc.trim_start().starts_with('<')
}

impl Baseline {
    pub fn build(host: &str, ok: &[&Request]) -> Baseline {
        let n = ok.len();
        let subjects: Vec<Subject> = ok.iter().map(|r| Subject::new(r)).collect();
        let rule_share = rules::all()
            .iter()
            .map(|rule| {
                if n == 0 || matches!(rule.proves, Proves::Producer) {
                    return 0.0;
                }
                subjects
                    .iter()
                    .filter(|s| rule.when.eval(s).is_some())
                    .count() as f64
                    / n as f64
            })
            .collect();
        let layer_names = layer_header_names();
        let mut counts: HashMap<String, usize> = HashMap::new();
        for r in ok {
            let names: BTreeSet<String> = r
                .response_headers
                .iter()
                .map(|(k, _)| k.trim().to_ascii_lowercase())
                .collect();
            for k in names {
                *counts.entry(k).or_insert(0) += 1;
            }
        }
        let mut origin_names: Vec<String> = counts
            .into_iter()
            .filter(|(k, c)| {
                n > 0 && *c as f64 / n as f64 >= EVERY && !is_layer_header(k, &layer_names)
            })
            .map(|(k, _)| k)
            .collect();
        origin_names.sort();
        let json_share = if n == 0 {
            0.0
        } else {
            ok.iter().filter(|r| is_json(r, "")).count() as f64 / n as f64
        };
        Baseline {
            host: host.to_string(),
            n,
            rule_share,
            origin_names,
            json_share,
            owner: owner_of_any_path(host),
        }
    }
}

/// One candidate producer.
struct Cand {
    vendor: Option<&'static str>,
    layer: Layer,
    /// Product of (1 − weight) over its hits: score = 1 − miss.
    miss: f64,
    top_weight: f64,
    top_rule: Option<&'static Rule>,
}

impl Cand {
    fn score(&self) -> f64 {
        1.0 - self.miss
    }
}

/// What an evidence line speaks for, so lines for a losing candidate can be marked as ruled out.
#[derive(Clone, Copy, PartialEq)]
enum Tag {
    Neutral,
    /// Supports this (vendor, layer) as the producer; `None` vendor = the origin in general.
    Cand(Option<&'static str>, Layer),
    /// A path header of this vendor.
    PathOf(&'static str),
    /// Speaks against the origin having answered.
    AgainstApi,
}

#[derive(Default)]
struct Verdict {
    cands: Vec<Cand>,
    evidence: Vec<Evidence>,
    /// Which candidate each evidence line speaks for, parallel to `evidence`.
    tags: Vec<Tag>,
    path: Vec<String>,
    forwarded: Vec<&'static str>,
}

impl Verdict {
    fn add(
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
                    top_weight: 0.0,
                    top_rule: None,
                });
                self.cands.last_mut().expect("just pushed")
            }
        };
        c.miss *= 1.0 - w;
        if w > c.top_weight && rule.is_some() {
            c.top_weight = w;
            c.top_rule = rule;
        }
    }

    fn ev(&mut self, role: Role, signal: impl Into<String>, note: impl Into<String>) {
        self.ev_tag(role, signal, note, Tag::Neutral);
    }

    fn ev_tag(&mut self, role: Role, signal: impl Into<String>, note: impl Into<String>, tag: Tag) {
        self.evidence.push(Evidence {
            role,
            signal: signal.into(),
            note: note.into(),
        });
        self.tags.push(tag);
    }

    fn on_path(&mut self, vendor: &str) {
        if !self.path.iter().any(|p| p == vendor) {
            self.path.push(vendor.to_string());
        }
    }
}

fn vendor_name(slug: &str) -> String {
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

/// Attribute one rate-limited response.
///
/// What it reads of `req` is listed in [`evidence_key`] (the analysis attributes each distinct
/// key once): a step or rule that reads another field must add it there.
pub fn attribute_one(req: &Request, base: &Baseline) -> Attribution {
    let subj = Subject::new(req);
    let mut v = Verdict::default();
    let host = if base.host.is_empty() {
        "this host".to_string()
    } else {
        base.host.clone()
    };

    // 1. Rule hits.
    let mut hit_vendors_producer: Vec<&'static str> = Vec::new();
    for (i, &rule) in rules::all().iter().enumerate() {
        let Some(signals) = rule.when.eval(&subj) else {
            continue;
        };
        let signal = signals.join("; ");
        let share = base.rule_share.get(i).copied().unwrap_or(0.0);
        match rule.proves {
            Proves::Producer => {
                v.add(Some(rule.vendor), rule.layer, rule.weight, Some(rule));
                v.ev_tag(
                    Role::Producer,
                    signal,
                    format!("{} {}", rule.note, rule.source),
                    Tag::Cand(Some(rule.vendor), rule.layer),
                );
                hit_vendors_producer.push(rule.vendor);
            }
            Proves::ProducerIfNew => {
                if base.n > 0 && share >= EVERY {
                    v.on_path(rule.vendor);
                    v.ev(
                        Role::RuledOut,
                        signal,
                        format!(
                            "also on {:.0} % of the {} successful responses from {host}: path, not producer {}",
                            share * 100.0,
                            base.n,
                            rule.source
                        ),
                    );
                } else {
                    let (w, why) = if base.n == 0 {
                        (
                            rule.weight * 0.7,
                            " (no successful responses from this host to compare)",
                        )
                    } else {
                        (rule.weight, " and not on this host's successful responses")
                    };
                    v.add(Some(rule.vendor), rule.layer, w, Some(rule));
                    v.ev_tag(
                        Role::Producer,
                        signal,
                        format!("{}{why} {}", rule.note, rule.source),
                        Tag::Cand(Some(rule.vendor), rule.layer),
                    );
                    hit_vendors_producer.push(rule.vendor);
                }
            }
            Proves::Path => {
                v.on_path(rule.vendor);
                let seen = if base.n > 0 && share >= EVERY {
                    format!(
                        "on every response from {host} ({}/{})",
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
            Proves::Upstream => {
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
        }
    }

    // 1b. The access log's own verdict: its field decides first (issue 10).
    let log = req.layer_signal.as_deref();
    if let Some(sig) = log {
        apply_log_signal(sig, &mut v);
    }

    // 2. Pass-through markers rule out the layer that forwarded, unless it left a strong
    //    generator-only marker of its own (an inner Envoy behind an outer one).
    for fwd in v.forwarded.clone() {
        if log.is_some_and(|s| s.verdict == SignalVerdict::Generated && s.producer == fwd) {
            v.ev(
                Role::RuledOut,
                vendor_name(fwd),
                format!(
                    "a pass-through header of {}, but its own access log says it answered itself: the log decides",
                    vendor_name(fwd)
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
                vendor_name(fwd),
                format!(
                    "{} forwarded this request upstream, so it did not generate the 429",
                    vendor_name(fwd)
                ),
            );
        }
        v.add(None, Layer::Api, 0.4, None);
    }

    // 3. A pass-through marker on nearly every success but missing here: the proxy answered.
    for (i, &rule) in rules::all().iter().enumerate() {
        if rule.proves != Proves::Upstream || base.n == 0 {
            continue;
        }
        let share = base.rule_share.get(i).copied().unwrap_or(0.0);
        if share >= EVERY
            && rule.when.eval(&subj).is_none()
            && v.path.iter().any(|p| p == rule.vendor)
        {
            let mut names = Vec::new();
            rule.when.header_names(&mut names);
            v.add(Some(rule.vendor), rule.layer, 0.6, Some(rule));
            v.ev_tag(
                Role::Producer,
                format!("no {}", names.join("/")),
                format!(
                    "on {:.0} % of successful responses from {host} but not on this one: {} answered without asking the upstream {}",
                    share * 100.0,
                    vendor_name(rule.vendor),
                    rule.source
                ), Tag::Cand(Some(rule.vendor), rule.layer));
        }
    }

    // 4. Cross-response context: the origin's own headers, and the body's shape.
    let body_lc = subj.body_lc();
    let json = !subj.body_is_empty() && is_json(req, body_lc);
    let html = !subj.body_is_empty() && is_html(req, body_lc);
    let present: Vec<&str> = base
        .origin_names
        .iter()
        .filter(|n| req.response_headers.contains(n))
        .map(String::as_str)
        .collect();
    let origin_missing = base.origin_names.len() >= 2 && present.is_empty();
    // The stock answer of a rate limiter inside the application: the API itself answered,
    // in its middleware's format rather than its usual JSON.
    let app_limiter: Vec<(&rules::AppLimiter, String)> = rules::APP_LIMITERS
        .iter()
        .filter_map(|a| a.when.eval(&subj).map(|sig| (a, sig.join("; "))))
        .collect();
    let mismatch = html && base.n > 0 && base.json_share >= 0.5 && app_limiter.is_empty();
    let mut generic_api = Vec::new();
    // The origin's own headers on the 429 are direct evidence; a body shape that differs from
    // the host's usual one (below) is indirect, so it does not weaken them.
    let mut origin_voice = 0.0;
    if !present.is_empty() && present.len() * 2 >= base.origin_names.len() {
        origin_voice = 0.5;
        v.ev_tag(
            Role::Producer,
            present.iter().take(4).cloned().collect::<Vec<_>>().join(", "),
            format!("on every successful response from {host} and on this one: the origin's own headers, so the origin answered"), Tag::Cand(None, Layer::Api));
    } else if origin_missing {
        v.ev_tag(
            Role::Producer,
            format!("no {}", base.origin_names.iter().take(4).cloned().collect::<Vec<_>>().join(", ")),
            format!("every successful response from {host} has these origin headers and this one has none: an intermediary likely answered"), Tag::AgainstApi);
    }
    if mismatch {
        v.ev(
            Role::RuledOut,
            format!("content-type: {}", req.content_type().unwrap_or("text/html")),
            format!("{host} answers JSON but this response is HTML: not the API's own error format, an intermediary produced it"),
        );
    } else if json {
        generic_api.push(0.35);
        v.ev_tag(Role::Producer, "body: JSON", "a JSON error body, the API's style; edges and proxies answer with their own pages unless configured", Tag::Cand(None, Layer::Api));
    }
    let fams = ratelimit::parse_all(&req.response_headers, response_time(req));
    if !fams.is_empty() {
        generic_api.push(0.3);
        let names: Vec<&str> = fams.iter().map(|f| f.header.as_str()).take(3).collect();
        v.ev_tag(Role::Producer, names.join(", "), "rate-limit headers: the server counts this client's requests (an API, or a gateway in front of it)", Tag::Cand(None, Layer::Api));
    }

    // A documented API host: if the API answered, it is this vendor's API. Origin evidence,
    // weaker than the vendor's own headers or body, and damped like the rest when the response
    // looks like an intermediary's (a CDN's page on the API's host is still the CDN).
    let url_path = crate::http::url::split(&req.url).path;
    let host_owner = base.owner(url_path);
    if let Some((p, pattern)) = host_owner {
        generic_api.push(HOST_WEIGHT);
        v.ev_tag(
            Role::Producer,
            format!("host {}", base.host),
            format!(
                "a documented API host of {} (`{pattern}`): when the API answered, the vendor is {}; weaker than a vendor header or body ({})",
                p.name, p.name, p.source
            ),
            Tag::Cand(Some(p.vendor), Layer::Api),
        );
    }

    // CDNs on the path that left no mark of their own: their docs say such 4xx come from the
    // origin [C6].
    let intermediary_producer = v
        .cands
        .iter()
        .any(|c| c.layer != Layer::Api && c.score() >= 0.5);
    let cdn_path: Vec<&'static str> = rules::all()
        .iter()
        .filter(|r| {
            r.layer == Layer::Cdn
                && r.proves == Proves::Path
                && v.path.iter().any(|p| p == r.vendor)
        })
        .map(|r| r.vendor)
        .filter(|vd| !hit_vendors_producer.contains(vd))
        .fold(Vec::new(), |mut acc, vd| {
            if !acc.contains(&vd) {
                acc.push(vd);
            }
            acc
        });
    for vd in &cdn_path {
        v.ev(
            Role::RuledOut,
            vendor_name(vd),
            format!(
                "{} was on the path but left none of its own error markers (error page, generator-only header): it forwarded this response [C6, C7]",
                vendor_name(vd)
            ),
        );
    }
    if !cdn_path.is_empty() && !intermediary_producer && !mismatch && !origin_missing {
        generic_api.push(0.25);
    }
    // Counter-evidence weakens the generic origin signals: an HTML page on a JSON host, or a
    // response without any of the headers the origin always sends.
    let damp = if mismatch {
        0.3
    } else if origin_missing {
        0.5
    } else {
        1.0
    };
    for w in generic_api {
        v.add(None, Layer::Api, w * damp, None);
    }
    if origin_voice > 0.0 {
        v.add(None, Layer::Api, origin_voice, None);
    }
    // The application stack's own headers (framework, app server) when no baseline spoke for
    // the origin: an edge or proxy answering itself does not carry them.
    if origin_voice == 0.0 {
        for m in rules::ORIGIN_MARKERS {
            if let Some(sig) = m.when.eval(&subj) {
                v.add(None, Layer::Api, m.weight, None);
                v.ev_tag(
                    Role::Producer,
                    sig.join("; "),
                    format!(
                        "{}: {} wrote this response, so the application answered ({})",
                        m.note, m.name, m.source
                    ),
                    Tag::Cand(None, Layer::Api),
                );
            }
        }
    }
    for (a, signal) in &app_limiter {
        v.add(None, Layer::Api, a.weight, None);
        v.ev_tag(
            Role::Producer,
            signal.clone(),
            format!(
                "{}: a rate limiter inside the application, so the API itself answered ({})",
                a.note, a.source
            ),
            Tag::Cand(None, Layer::Api),
        );
    }

    // Unbranded edge rule: no origin headers, one intermediary on the path, nothing else (L).
    let intermediaries: Vec<&String> = v
        .path
        .iter()
        .filter(|p| {
            rules::all()
                .iter()
                .any(|r| r.vendor == p.as_str() && r.layer != Layer::Api)
        })
        .collect();
    let vendor_api = v
        .cands
        .iter()
        .any(|c| c.layer == Layer::Api && c.vendor.is_some());
    if (origin_missing || (mismatch && present.is_empty()))
        && !json
        && intermediaries.len() == 1
        && !vendor_api
        && !intermediary_producer
    {
        if let Some(rule) = rules::all()
            .iter()
            .copied()
            .find(|r| r.vendor == intermediaries[0].as_str() && r.proves == Proves::Path)
        {
            v.add(Some(rule.vendor), rule.layer, 0.4, None);
            v.ev_tag(
                Role::Producer,
                vendor_name(rule.vendor),
                format!(
                    "the only intermediary on the path, and the response lacks the origin's headers: most likely an unbranded custom rule at {} (low confidence) [C1]",
                    vendor_name(rule.vendor)
                ), Tag::Cand(Some(rule.vendor), rule.layer));
        }
    }

    // A layer whose log says it passed the response through did not produce it, whatever its
    // headers suggested.
    if let Some(sig) = log.filter(|s| s.verdict == SignalVerdict::PassedThrough) {
        v.cands.retain(|c| c.vendor != Some(sig.logger));
    }

    // 5. Decide. A product and its parent vendor at the same layer are one candidate (a Gemini
    //    quota error also carries Google's RESOURCE_EXHAUSTED).
    fold_parents(&mut v.cands);
    // API candidates merge: generic origin evidence supports the named API.
    let mut api_generic_miss = 1.0;
    v.cands.retain(|c| {
        if c.layer == Layer::Api && c.vendor.is_none() {
            api_generic_miss *= c.miss;
            false
        } else {
            true
        }
    });
    // A named API takes the generic origin evidence only when its own markers already point at
    // it (≥ NAMED_API): generic evidence says "an origin", not which one, so a weak shared
    // marker (the x-rate-limit-* trio that X, Okta and IBM SVA all send) must not inherit it.
    let mut merged_into: Option<&'static str> = None;
    match v
        .cands
        .iter_mut()
        .filter(|c| c.layer == Layer::Api && c.score() >= NAMED_API)
        .max_by(|a, b| a.score().total_cmp(&b.score()))
    {
        Some(best_api) => {
            best_api.miss *= api_generic_miss;
            merged_into = best_api.vendor;
        }
        None if api_generic_miss < 1.0 => v.cands.push(Cand {
            vendor: None,
            layer: Layer::Api,
            miss: api_generic_miss,
            top_weight: 0.0,
            top_rule: None,
        }),
        None => {}
    }
    let order = |l: Layer| match l {
        Layer::Cdn => 0,
        Layer::Proxy => 1,
        Layer::Api => 2,
        Layer::Unknown => 3,
    };
    v.cands.sort_by(|a, b| {
        b.score()
            .total_cmp(&a.score())
            .then(order(a.layer).cmp(&order(b.layer)))
    });

    let mut att = Attribution::unknown();
    att.limits = ratelimit::binding(&fams).map(|f| f.limits.clone());
    let ra = retry_after::from_headers(&req.response_headers, req.started);
    // A log line that says its layer generated the response names the producer outright.
    let forced = log
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
        .map(|c| (c.score(), c.layer, c.vendor, c.top_rule));
    // When the API answered, the vendor is the API's owner: the host names it unless a vendor
    // that earned the origin evidence (its own markers ≥ NAMED_API) says otherwise — or that
    // vendor is the host owner's parent (Google's RESOURCE_EXHAUSTED on the Maps host is Maps).
    let winner = winner.map(|(score, layer, vendor, top_rule)| match host_owner {
        Some((p, _))
            if layer == Layer::Api
                && vendor != Some(p.vendor)
                && (vendor.is_none()
                    || merged_into != vendor
                    || vendor == catalogue::parent(p.vendor)) =>
        {
            (score, layer, Some(p.vendor), None)
        }
        _ => (score, layer, vendor, top_rule),
    });
    match winner {
        Some((score, layer, vendor, top_rule)) => {
            let runner = v.cands.get(1).map(|c| c.score()).unwrap_or(0.0);
            att.layer = layer;
            att.vendor = vendor.map(str::to_string);
            let mut confidence = score * (1.0 - 0.5 * runner);
            if let Some(sig) = log.filter(|s| s.verdict != SignalVerdict::NoSignal) {
                // The log's field is direct evidence: competing fingerprints lower it only so far.
                confidence = confidence.max(sig.weight * 0.85);
            }
            att.confidence = round2(confidence.clamp(0.05, 0.99));
            att.detail = top_rule
                .map(|r| r.detail)
                .filter(|d| !d.is_empty())
                .map(str::to_string)
                .or_else(|| {
                    log.filter(|s| forced.is_some() || s.verdict == SignalVerdict::Generated)
                        .and_then(|s| s.detail)
                        .map(str::to_string)
                });
        }
        None => {
            att.confidence = if v.evidence.is_empty() { 0.05 } else { 0.1 };
            v.ev(
                Role::RuledOut,
                "no producer marker",
                if v.path.is_empty() {
                    "no header or body identifies who sent this response; not guessing".to_string()
                } else {
                    "only path headers: the origin or an unbranded custom edge rule sent it; not guessing".to_string()
                },
            );
        }
    }

    // 6. Kind of limit and scope.
    let (quota, scope) = classify(
        &subj,
        &fams,
        &ra,
        winner.and_then(|w| w.3),
        att.vendor.as_deref(),
        att.layer,
        &mut v,
    );
    att.quota = quota;
    att.scope = scope;
    att.evidence = settle(v.evidence, v.tags, winner.map(|w| (w.2, w.1)));
    // The path is where the response went through; the producer is reported separately.
    att.path = v
        .path
        .into_iter()
        .filter(|p| Some(p.as_str()) != att.vendor.as_deref())
        .collect();
    att
}

/// Fold a parent vendor's candidate into its product's at the same layer.
fn fold_parents(cands: &mut Vec<Cand>) {
    let mut i = 0;
    while i < cands.len() {
        let parent = cands[i].vendor.and_then(catalogue::parent);
        let found = parent.and_then(|p| {
            cands
                .iter()
                .position(|c| c.vendor == Some(p) && c.layer == cands[i].layer)
        });
        if let Some(j) = found {
            let miss = cands[j].miss;
            cands[i].miss *= miss;
            cands.remove(j);
            if j < i {
                i -= 1;
            }
        }
        i += 1;
    }
}

/// The access log's own verdict as evidence and a candidate (docs/attribution.md, "Access
/// logs"): generated names the producer; passed through rules the logging layer out and speaks
/// for its upstream; no signal says the line cannot tell.
fn apply_log_signal(sig: &LayerSignal, v: &mut Verdict) {
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

/// Mark the lines that spoke for a losing candidate as ruled out, and drop the winner's own path
/// headers (it produced the response; it was not merely on the path).
fn settle(
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

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Everything [`attribute_one`] reads of a response, as bytes: against one baseline, two
/// responses with equal keys get equal attributions, so a long incident's thousands of alike
/// 429s are attributed once (`analyze::limited` caches verdicts by this key). The fields: the
/// status, the URL's host (host rules), the documented owner of the baseline host and URL path
/// (all the path is read for), the access log's own signal, every response header in order, the
/// body excerpt, and what the response's time makes of the headers (rate-limit resets against
/// the Date header or the record's time, a Retry-After date against the record's time): the
/// time itself is read nowhere else. Parts are length-prefixed, so no two keys run together.
pub fn evidence_key(req: &Request, base: &Baseline) -> Vec<u8> {
    fn part(k: &mut Vec<u8>, b: &[u8]) {
        k.extend_from_slice(&(b.len() as u64).to_le_bytes());
        k.extend_from_slice(b);
    }
    let mut k = Vec::with_capacity(512);
    let url = crate::http::url::split(&req.url);
    let owner = base
        .owner(url.path)
        .map(|(p, pattern)| (std::ptr::from_ref(p) as usize, pattern));
    part(&mut k, &req.status.to_le_bytes());
    part(&mut k, crate::http::url::host(&req.url).as_bytes());
    part(&mut k, format!("{owner:?}").as_bytes());
    part(&mut k, format!("{:?}", req.layer_signal).as_bytes());
    for (name, value) in req.response_headers.iter() {
        part(&mut k, name.as_bytes());
        part(&mut k, value.as_bytes());
    }
    part(&mut k, b"");
    part(&mut k, req.body_excerpt.as_deref().unwrap_or("").as_bytes());
    // The parsed values as bytes, not their Debug text: formatting floats was most of the
    // key's cost. Bits tell apart at least what Debug did, so no two keys merge that did.
    let fams = ratelimit::parse_all(&req.response_headers, response_time(req));
    // Counted first: every part after it is tagged or length-prefixed.
    part(&mut k, &(fams.len() as u64).to_le_bytes());
    for f in &fams {
        part(&mut k, f.header.as_bytes());
        part(&mut k, &[f.unit as u8]);
        let l = &f.limits;
        for x in [l.limit, l.remaining, l.reset_seconds, l.window_seconds] {
            opt_f64(&mut k, x);
        }
        opt_text(&mut k, l.policy.as_deref());
    }
    let ra = retry_after::from_headers(&req.response_headers, req.started);
    opt_text(&mut k, ra.raw.as_deref());
    opt_f64(&mut k, ra.seconds);
    part(&mut k, &[ra.kind as u8]);
    opt_text(&mut k, ra.header.as_deref());
    opt_text(&mut k, ra.note.as_deref());
    k
}

/// An optional number in an evidence key: a tag, then its bits.
fn opt_f64(k: &mut Vec<u8>, x: Option<f64>) {
    match x {
        None => k.push(0),
        Some(x) => {
            k.push(1);
            k.extend_from_slice(&x.to_bits().to_le_bytes());
        }
    }
}

/// An optional text in an evidence key: a tag, then its length and bytes.
fn opt_text(k: &mut Vec<u8>, t: Option<&str>) {
    match t {
        None => k.push(0),
        Some(t) => {
            k.push(1);
            k.extend_from_slice(&(t.len() as u64).to_le_bytes());
            k.extend_from_slice(t.as_bytes());
        }
    }
}

/// The response's own time: its Date header, else when the record was taken.
fn response_time(req: &Request) -> Option<chrono::DateTime<chrono::Utc>> {
    req.response_headers
        .get("date")
        .and_then(parse_http_date)
        .or(req.started)
}

/// Quota type and scope, first cue wins by tier (fingerprints.md Part 1, Q1–Q6).
fn classify(
    subj: &Subject,
    fams: &[ratelimit::Family],
    ra: &retry_after::RetryAfter,
    winner_rule: Option<&'static Rule>,
    vendor: Option<&str>,
    layer: Layer,
    v: &mut Verdict,
) -> (Quota, Option<Scope>) {
    let mut found: Vec<(u8, Quota, String, String)> = Vec::new();
    let mut scope = None;
    // The verdict's own documented messages first: their meaning is the vendor's.
    let provider = vendor.and_then(catalogue::find);
    let own_cues = provider.map(|p| p.cues).unwrap_or(&[]);
    for cue in own_cues.iter().chain(CUES) {
        if let Some(sig) = cue.when.eval(subj) {
            if scope.is_none() {
                scope = cue.scope;
            }
            if let Some(q) = cue.quota {
                found.push((
                    cue.tier,
                    q,
                    sig.join("; "),
                    format!("{} {}", cue.note, cue.source),
                ));
            }
        }
    }
    if let Some(b) = ratelimit::binding(fams) {
        let exhausted = b.limits.remaining == Some(0.0);
        match b.unit {
            Unit::Tokens => found.push((
                2,
                Quota::Tokens,
                b.header.clone(),
                "the binding rate-limit family counts tokens [Q2]".into(),
            )),
            Unit::Concurrency => found.push((
                2,
                Quota::Concurrency,
                b.header.clone(),
                "the binding policy counts concurrent requests [Q3]".into(),
            )),
            _ => {}
        }
        if let Some(w) = b.limits.window_seconds {
            if exhausted && w >= 86400.0 {
                found.push((
                    2,
                    Quota::Daily,
                    b.header.clone(),
                    format!(
                        "exhausted allowance over a {} window [Q2, Q3]",
                        crate::units::fmt_duration_ms(w * 1000.0)
                    ),
                ));
            } else if w <= 3600.0 {
                found.push((
                    3,
                    Quota::Rate,
                    b.header.clone(),
                    format!(
                        "window of {} [Q2, Q3]",
                        crate::units::fmt_duration_ms(w * 1000.0)
                    ),
                ));
            }
        }
    }
    let wait = ra.seconds.or_else(|| {
        ratelimit::binding(fams)
            .filter(|b| b.limits.remaining == Some(0.0))
            .and_then(|b| b.limits.reset_seconds)
    });
    if let Some(s) = wait {
        if s > 3.0 * 3600.0 {
            found.push((
                4,
                Quota::Daily,
                format!("wait {}", crate::units::fmt_duration_ms(s * 1000.0)),
                "a wait of hours: an allowance, not a rate [Q4]".into(),
            ));
        } else if s > 0.0 && s <= 3600.0 {
            found.push((
                4,
                Quota::Rate,
                format!("wait {}", crate::units::fmt_duration_ms(s * 1000.0)),
                "a wait of seconds to minutes: a rate window [Q4]".into(),
            ));
        }
    }
    if let Some(rule) = winner_rule {
        if let Some(q) = rule.quota {
            found.push((
                6,
                q,
                rule.id.to_string(),
                format!(
                    "{}'s limiter is of this kind unless the response says otherwise {}",
                    vendor_name(rule.vendor),
                    rule.source
                ),
            ));
        }
    }
    if let (None, Some(p)) = (winner_rule, provider) {
        if layer == Layer::Api {
            found.push((
                6,
                p.quota,
                format!("host {}", p.vendor),
                format!(
                    "{}'s limiter is of this kind unless the response says otherwise ({})",
                    p.name, p.source
                ),
            ));
        }
    }
    if winner_rule.is_none() && layer != Layer::Unknown && subj.req.status == 429 {
        found.push((7, Quota::Rate, "status 429".into(), "RFC 6585: too many requests in a given amount of time; nothing more specific was stated [S1]".into()));
    }
    found.sort_by_key(|f| f.0);
    match found.into_iter().next() {
        Some((_, q, sig, note)) => {
            v.ev(Role::Quota, sig, note);
            (q, scope)
        }
        None => (Quota::Unknown, scope),
    }
}

#[cfg(test)]
mod owner_tests {
    use super::*;

    /// The owner looked up once per host is the catalogue's for every path.
    #[test]
    fn owner_of_any_path_is_the_owner_of_each_path() {
        let key = |o: Owner| o.map(|(p, pat)| (p.vendor, pat));
        let mut hosts: Vec<String> = vec!["api.example.com".into(), "".into()];
        let mut paths: Vec<String> = vec!["/".into(), "".into(), "/v1/x".into()];
        for p in catalogue::PROVIDERS {
            for pat in p.hosts {
                let (h, path) = match pat.find('/') {
                    Some(i) => (&pat[..i], &pat[i..]),
                    None => (*pat, ""),
                };
                hosts.push(h.replace('*', "acme"));
                paths.push(path.to_string());
                paths.push(path.to_ascii_uppercase());
                paths.push(format!("{path}/more"));
            }
        }
        let mut fixed = 0;
        for h in &hosts {
            let Some(once) = owner_of_any_path(h) else {
                continue;
            };
            fixed += 1;
            for path in &paths {
                assert_eq!(key(once), key(catalogue::owner(h, path)), "{h} {path}");
            }
        }
        assert!(fixed > 10, "{fixed}");
    }
}
