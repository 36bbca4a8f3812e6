//! Step 4: what the response says about the origin when set against its host's other answers —
//! the origin's own headers, the body's shape, rate-limit headers, the host's documented owner,
//! CDNs on the path that left no mark — and the one inference that names an unbranded edge.

use super::super::catalogue::Provider;
use super::super::rules::{self, AppLimiter, Proves};
use super::super::{Layer, Role};
use super::verdict::{vendor_name, Tag, Verdict};
use super::{is_html, is_json, is_xml, Ctx, Owner, HOST_WEIGHT};
use crate::http::ratelimit::Family;

/// The response's shape next to its host's baseline.
pub(super) struct Shape<'a> {
    /// A structured error body: JSON (or a JSON content type on a body not recorded), or an
    /// XML error document.
    pub json: bool,
    /// The baseline's origin headers that this response carries.
    pub present: Vec<&'a str>,
    /// The host always sends two or more origin headers and this response has none of them.
    pub origin_missing: bool,
    /// An HTML page on a host that answers JSON, and no application limiter's stock answer.
    pub mismatch: bool,
    /// Application rate limiters whose stock answer this is, with the signal.
    pub app_limiter: Vec<(&'static AppLimiter, String)>,
    /// A short plain-text message of the application's own (not markup, not a structured
    /// error, not the bare status phrase every HTTP stack writes).
    pub own_words: bool,
}

/// Longest body read as a short message of the application's.
const OWN_WORDS_MAX: usize = 400;
/// What a short plain-text message weighs for the origin: just over the threshold, so it
/// decides alone at low confidence and anything more specific outweighs it.
const OWN_WORDS: f64 = 0.32;

/// The body is a short plain-text message in words of its own: not markup, and not only the
/// status phrase or a limiter's stock token, which proxies write too (Go's `http.Error` in
/// Traefik, Envoy's `local_rate_limited`).
fn own_words(body_lc: &str) -> bool {
    let t = body_lc.trim();
    let bare = t
        .trim_start_matches(|c: char| c.is_ascii_digit() || c.is_whitespace())
        .trim_matches(|c: char| !c.is_ascii_alphanumeric());
    let stock = [
        "too many requests",
        "toomanyrequests",
        "local_rate_limited",
        "rate limited",
    ];
    !t.is_empty()
        && t.len() <= OWN_WORDS_MAX
        && !t.starts_with('<')
        && bare.chars().any(|c| c.is_ascii_alphabetic())
        && !stock.contains(&bare)
}

impl<'a> Shape<'a> {
    pub(super) fn read(cx: &'a Ctx) -> Shape<'a> {
        let (req, base) = (cx.req, cx.base);
        let body_lc = cx.subj.body_lc();
        let shown = !cx.subj.body_is_empty() && !cx.subj.body_unknown();
        // An unrecorded body's content type still says what it was.
        let json = (shown || cx.subj.body_unknown()) && is_json(req, body_lc)
            || shown && is_xml(req, body_lc);
        let html = shown && is_html(req, body_lc) && !is_xml(req, body_lc);
        let present: Vec<&str> = base
            .origin_names
            .iter()
            .filter(|n| req.response_headers.contains(n))
            .map(String::as_str)
            .collect();
        let origin_missing = base.origin_names.len() >= 2 && present.is_empty();
        // The stock answer of a rate limiter inside the application: the API itself answered,
        // in its middleware's format rather than its usual JSON.
        let app_limiter: Vec<(&AppLimiter, String)> = rules::APP_LIMITERS
            .iter()
            .filter_map(|a| a.when.eval(&cx.subj).map(|sig| (a, sig.join("; "))))
            .collect();
        let mismatch = html && base.n > 0 && base.json_share >= 0.5 && app_limiter.is_empty();
        let own_words = shown && !json && app_limiter.is_empty() && own_words(body_lc);
        Shape {
            json,
            present,
            origin_missing,
            mismatch,
            app_limiter,
            own_words,
        }
    }
}

/// What step 4 found that later steps read.
pub(super) struct Found {
    pub host_owner: Owner,
    /// A CDN or proxy candidate already scores ≥ 0.5 (before the origin evidence).
    pub intermediary_producer: bool,
}

/// Step 4: the origin evidence, weighed together. Generic signals (a JSON body, rate-limit
/// headers, the host's owner, a CDN that left no mark) are damped when the response looks like
/// an intermediary's; the origin's own headers, its stack's markers and an application
/// limiter's stock answer are direct evidence and are not.
pub(super) fn origin_evidence(
    cx: &Ctx,
    shape: &Shape,
    fams: &[Family],
    producers: &[&'static str],
    v: &mut Verdict,
) -> Found {
    not_captured(cx, v);
    let origin_voice = origin_headers(cx, shape, v);
    let mut generic = body_and_limit_headers(cx, shape, fams, v);
    let host_owner = host_owner_evidence(cx, v);
    if host_owner.is_some() {
        generic.push(HOST_WEIGHT);
    }
    let intermediary_producer = v
        .cands
        .iter()
        .any(|c| c.layer != Layer::Api && c.score() >= 0.5);
    let cdn_forwarded = unmarked_cdns(producers, v);
    if cdn_forwarded && !intermediary_producer && !shape.mismatch && !shape.origin_missing {
        generic.push(0.25);
    }
    // Counter-evidence weakens the generic origin signals: an HTML page on a JSON host, or a
    // response without any of the headers the origin always sends.
    let damp = if shape.mismatch {
        0.3
    } else if shape.origin_missing {
        0.5
    } else {
        1.0
    };
    for w in generic {
        v.add(None, Layer::Api, w * damp, None);
    }
    if origin_voice > 0.0 {
        v.add(None, Layer::Api, origin_voice, None);
    } else {
        origin_markers(cx, v);
    }
    app_limiters(shape, v);
    Found {
        host_owner,
        intermediary_producer,
    }
}

/// A body that was not recorded is unknown, not empty: said in the evidence when a rule that
/// needs an empty body was set aside for it, or when the record shows there was a body (a HAR
/// entry's content size, a Content-Length above zero). A log that never records bodies says
/// nothing more on every line.
fn not_captured(cx: &Ctx, v: &mut Verdict) {
    if !cx.subj.body_unknown() {
        return;
    }
    let as_empty = cx.subj.as_if_empty();
    let set_aside: Vec<&str> = rules::all()
        .iter()
        .filter(|r| r.when.needs_empty_body() && r.when.eval(&as_empty).is_some())
        .map(|r| r.id)
        .chain(
            rules::APP_LIMITERS
                .iter()
                .filter(|a| a.when.needs_empty_body() && a.when.eval(&as_empty).is_some())
                .map(|a| a.id),
        )
        .collect();
    let har = matches!(cx.req.location.position, crate::model::Position::Entry(_));
    let sized = cx
        .req
        .response_headers
        .get("content-length")
        .is_some_and(|n| n.trim() != "0");
    if set_aside.is_empty() && !har && !sized {
        return;
    }
    let aside = if set_aside.is_empty() {
        String::new()
    } else {
        format!(" ({} set aside)", set_aside.join(", "))
    };
    v.ev(
        Role::RuledOut,
        super::NOT_CAPTURED,
        format!("the response had a body that the input did not record (HAR content.size or Content-Length above zero with no text, or a log without bodies): unknown, not empty, so no rule that needs an empty body applies{aside}; the headers decide"),
    );
}

/// The origin's own headers on the response are direct evidence that it answered; all of them
/// missing speaks against it. Returns the weight for the origin (0 when they did not speak).
fn origin_headers(cx: &Ctx, shape: &Shape, v: &mut Verdict) -> f64 {
    let base = cx.base;
    let host = &cx.host;
    // A body shape that differs from the host's usual one is indirect, so it does not weaken
    // the origin's own headers.
    if !shape.present.is_empty() && shape.present.len() * 2 >= base.origin_names.len() {
        v.ev_tag(
            Role::Producer,
            shape.present.iter().take(4).cloned().collect::<Vec<_>>().join(", "),
            format!("on every successful response from {host} and on this one: the origin's own headers, so the origin answered"),
            Tag::Cand(None, Layer::Api),
        );
        return 0.5;
    }
    if shape.origin_missing {
        v.ev_tag(
            Role::Producer,
            format!("no {}", base.origin_names.iter().take(4).cloned().collect::<Vec<_>>().join(", ")),
            format!("every successful response from {host} has these origin headers and this one has none: an intermediary likely answered"),
            Tag::AgainstApi,
        );
    }
    0.0
}

/// The body's shape and rate-limit headers as generic origin evidence; returns their weights.
fn body_and_limit_headers(cx: &Ctx, shape: &Shape, fams: &[Family], v: &mut Verdict) -> Vec<f64> {
    let mut generic = Vec::new();
    if shape.mismatch {
        v.ev(
            Role::RuledOut,
            format!("content-type: {}", cx.req.content_type().unwrap_or("text/html")),
            format!("{} answers JSON but this response is HTML: not the API's own error format, an intermediary produced it", cx.host),
        );
    } else if shape.json {
        generic.push(0.35);
        let xml = cx.subj.body_lc().trim_start().starts_with('<');
        let signal = match (cx.subj.body_unknown(), cx.req.content_type()) {
            (true, Some(ct)) => format!("content-type: {ct}"),
            _ if xml => "body: XML error".to_string(),
            _ => "body: JSON".to_string(),
        };
        let note = if xml {
            "an XML error document, a service's own error format (S3, Azure Storage); edges and proxies answer with their own pages unless configured"
        } else {
            "a JSON error body, the API's style; edges and proxies answer with their own pages unless configured"
        };
        v.ev_tag(Role::Producer, signal, note, Tag::Cand(None, Layer::Api));
    } else if shape.own_words && !v.cands.iter().any(|c| c.layer != Layer::Api) {
        generic.push(OWN_WORDS);
        v.ev_tag(
            Role::Producer,
            "body: a short message in plain text",
            "the application's own words (not a page, not the bare status phrase), and no proxy or CDN marker: an origin answered (low confidence)",
            Tag::Cand(None, Layer::Api),
        );
    }
    let own_names = if fams.is_empty() {
        own_limit_headers(&cx.req.response_headers)
    } else {
        Vec::new()
    };
    if !fams.is_empty() || !own_names.is_empty() {
        generic.push(0.3);
        let names: Vec<&str> = fams
            .iter()
            .map(|f| f.header.as_str())
            .chain(own_names.iter().map(String::as_str))
            .take(3)
            .collect();
        v.ev_tag(Role::Producer, names.join(", "), "rate-limit headers: the server counts this client's requests (an API, or a gateway in front of it)", Tag::Cand(None, Layer::Api));
    }
    generic
}

/// Rate-limit headers under a service's own names, which no family parser knows
/// (`X-Discogs-Ratelimit-Remaining`, Xero's `X-MinLimit-Remaining` and `X-Rate-Limit-Problem`):
/// a name whose `…limit` part is followed by what the server counts (`remaining`, `used`,
/// `reset`, `problem`). Lower-cased, at most three.
fn own_limit_headers(h: &crate::http::headers::Headers) -> Vec<String> {
    h.iter()
        .map(|(n, _)| n.trim().to_ascii_lowercase())
        .filter(|n| {
            let tokens: Vec<&str> = n.split('-').collect();
            tokens.windows(2).any(|w| {
                w[0].ends_with("limit")
                    && matches!(w[1], "remaining" | "used" | "reset" | "problem")
            })
        })
        .take(3)
        .collect()
}

/// A documented API host: if the API answered, it is this vendor's API. Origin evidence,
/// weaker than the vendor's own headers or body, and damped like the rest when the response
/// looks like an intermediary's (a CDN's page on the API's host is still the CDN).
fn host_owner_evidence(cx: &Ctx, v: &mut Verdict) -> Owner {
    let url_path = crate::http::url::split(&cx.req.url).path;
    let host_owner = cx.base.owner(url_path);
    if let Some((p, pattern)) = host_owner {
        let p: &Provider = p;
        v.ev_tag(
            Role::Producer,
            format!("host {}", cx.base.host),
            format!(
                "a documented API host of {} (`{pattern}`): when the API answered, the vendor is {}; weaker than a vendor header or body ({})",
                p.name, p.name, p.source
            ),
            Tag::Cand(Some(p.vendor), Layer::Api),
        );
    }
    host_owner
}

/// CDNs on the path that left no mark of their own: their docs say such 4xx come from the
/// origin [C6]. Returns whether there was one.
fn unmarked_cdns(producers: &[&'static str], v: &mut Verdict) -> bool {
    let mut cdn_path: Vec<&'static str> = Vec::new();
    for r in rules::all() {
        let on_path = r.layer == Layer::Cdn
            && r.proves == Proves::Path
            && v.path.iter().any(|p| p == r.vendor);
        if on_path && !producers.contains(&r.vendor) && !cdn_path.contains(&r.vendor) {
            cdn_path.push(r.vendor);
        }
    }
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
    !cdn_path.is_empty()
}

/// The application stack's own headers (framework, app server) when no baseline spoke for the
/// origin: an edge or proxy answering itself does not carry them.
fn origin_markers(cx: &Ctx, v: &mut Verdict) {
    for m in rules::ORIGIN_MARKERS {
        if let Some(sig) = m.when.eval(&cx.subj) {
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

/// An application rate limiter's stock answer: the API itself answered.
fn app_limiters(shape: &Shape, v: &mut Verdict) {
    for (a, signal) in &shape.app_limiter {
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
}

/// Unbranded edge rule: no origin headers, one intermediary on the path, nothing else (L).
pub(super) fn unbranded_edge(shape: &Shape, found: &Found, v: &mut Verdict) {
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
    let applies = (shape.origin_missing || (shape.mismatch && shape.present.is_empty()))
        && !shape.json
        && intermediaries.len() == 1
        && !vendor_api
        && !found.intermediary_producer;
    if !applies {
        return;
    }
    let Some(rule) = rules::all()
        .iter()
        .copied()
        .find(|r| r.vendor == intermediaries[0].as_str() && r.proves == Proves::Path)
    else {
        return;
    };
    v.add(Some(rule.vendor), rule.layer, 0.4, None);
    v.ev_tag(
        Role::Producer,
        vendor_name(rule.vendor),
        format!(
            "the only intermediary on the path, and the response lacks the origin's headers: most likely an unbranded custom rule at {} (low confidence) [C1]",
            vendor_name(rule.vendor)
        ),
        Tag::Cand(Some(rule.vendor), rule.layer),
    );
}
