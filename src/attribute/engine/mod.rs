//! The engine: evaluates the rule table on each rate-limited response against its host's
//! baseline, separates the producer from the path, and picks a verdict with its evidence.
//!
//! Why a baseline: most layer headers appear on *every* response crossing that layer, so only
//! the difference between the 429 and the host's successful responses is evidence
//! (fingerprints.md Part 1, step 0).

mod context;
mod decide;
mod hits;
mod quota;
mod verdict;

use super::catalogue;
use super::matcher::Subject;
use super::rules::{self, Proves};
use super::{Attribution, Layer, Role};
use crate::http::date::parse_http_date;
use crate::http::ratelimit;
use crate::http::retry_after;
use crate::model::{LayerSignal, Request, SignalVerdict};
use std::collections::{BTreeSet, HashMap};
use verdict::{round2, settle, Verdict};

#[cfg(test)]
pub(crate) use quota::stated_window as stated_window_for_tests;

/// A header on at least this share of a host's successful responses is "on every response".
pub(super) const EVERY: f64 = 0.8;
/// Successful responses per host kept for the baseline (bounded work on huge captures).
pub const BASELINE_MAX: usize = 500;
/// Below this score no layer is named.
pub(super) const DECIDE: f64 = 0.3;
/// A named API's own score needed before generic origin evidence counts toward it.
pub(super) const NAMED_API: f64 = 0.5;
/// A documented API host, as origin evidence (below a JSON body, 0.35, or rate-limit headers,
/// 0.3, together; far below any vendor marker).
pub(super) const HOST_WEIGHT: f64 = 0.3;
/// A vendor derived from the host (not documented by the catalogue) keeps this share of the
/// verdict's confidence.
const HOST_DERIVED: f64 = 0.85;
/// The signal of the evidence line that says the body was not recorded.
pub(super) const NOT_CAPTURED: &str = "body: not captured";

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
    pub(super) rule_share: Vec<f64>,
    /// Header names on nearly every successful response that no layer rule claims: the origin's
    /// own headers.
    pub(super) origin_names: Vec<String>,
    /// Share of successful responses that are JSON.
    pub(super) json_share: f64,
    /// The documented owner of `host` when no catalogue pattern for it has a path part (then
    /// the path changes nothing): looked up once, not per rate-limited response.
    owner: Option<Owner>,
}

pub(super) type Owner = Option<(&'static catalogue::Provider, &'static str)>;

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
    pub(super) fn owner(&self, path: &str) -> Owner {
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

pub(super) fn is_json(r: &Request, body_lc: &str) -> bool {
    r.content_type()
        .map(|m| m.to_ascii_lowercase().contains("json"))
        .unwrap_or(false)
        || body_lc.trim_start().starts_with('{')
        || body_lc.trim_start().starts_with('[')
}

/// An XML error document (`<?xml …?><Error><Code>…`, as S3 and Azure Storage answer, or any
/// element that is not a page's markup): a service's own structured error, like a JSON one;
/// not a page.
pub(super) fn is_xml(_r: &Request, body_lc: &str) -> bool {
    let b = body_lc.trim_start();
    b.starts_with("<?xml")
        || (b.starts_with('<')
            && b.as_bytes().get(1).is_some_and(u8::is_ascii_alphabetic)
            && !is_page_markup(b))
}

/// The tags of a web page (an error page of a server, proxy or CDN), looked for near the top.
fn is_page_markup(b: &str) -> bool {
    const PAGE: &[&str] = &[
        "<!doctype html",
        "<html",
        "<head",
        "<body",
        "<title",
        "<h1",
        "<h2",
        "<center",
        "<p>",
        "<p ",
        "<div",
        "<br",
        "<hr",
        "<pre",
        "<meta",
        "<style",
        "<script",
        "<b>",
        "<span",
    ];
    let end = (0..=b.len().min(1024))
        .rev()
        .find(|&i| b.is_char_boundary(i))
        .unwrap_or(0);
    let top = &b[..end];
    b.starts_with("<!") || PAGE.iter().any(|t| top.contains(t))
}

/// Markup, not merely a text/html label: frameworks (express-rate-limit) send plain sentences
/// as text/html, and that is still the origin talking.
pub(super) fn is_html(_r: &Request, body_lc: &str) -> bool {
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

/// One response as the steps read it: prepared for matching, with its host's baseline, the
/// host as evidence notes name it, and the access log's own signal.
pub(super) struct Ctx<'a> {
    pub req: &'a Request,
    pub subj: Subject<'a>,
    pub base: &'a Baseline,
    pub host: String,
    pub log: Option<&'a LayerSignal>,
}

/// Attribute one rate-limited response.
///
/// What it reads of `req` is listed in [`evidence_key`] (the analysis attributes each distinct
/// key once): a step or rule that reads another field must add it there.
pub fn attribute_one(req: &Request, base: &Baseline) -> Attribution {
    let cx = Ctx {
        req,
        subj: Subject::new(req),
        base,
        host: if base.host.is_empty() {
            "this host".to_string()
        } else {
            base.host.clone()
        },
        log: req.layer_signal.as_deref(),
    };
    let mut v = Verdict::default();
    // 0: why a status other than 429 counts as a rate limit.
    if req.status != 429 {
        if let Some(why) = super::why_rate_limited(req) {
            v.ev(
                Role::Limit,
                why.signal,
                format!(
                    "status {}: {}; counted as a rate limit",
                    req.status, why.note
                ),
            );
        }
    }
    // 1–3: the rule table, the access log's own word, pass-through markers.
    let producers = hits::rule_hits(&cx, &mut v);
    if let Some(sig) = cx.log {
        hits::apply_log_signal(sig, &mut v);
    }
    hits::rule_out_forwarders(&cx, &mut v);
    hits::missing_pass_through(&cx, &mut v);
    // 4: the origin's evidence against the host's baseline.
    let shape = context::Shape::read(&cx);
    let fams = ratelimit::parse_all(&req.response_headers, response_time(req));
    let found = context::origin_evidence(&cx, &shape, &fams, &producers, &mut v);
    context::unbranded_edge(&shape, &found, &mut v);
    // 5: the verdict; 6: the kind of limit.
    let decision = decide::decide(&cx, found.host_owner, &mut v);
    finish(&cx, decision, &fams, v)
}

/// The attribution from the decision: layer, vendor, confidence and detail, the kind of limit,
/// and the evidence with the losers' lines marked.
fn finish(
    cx: &Ctx,
    decision: decide::Decision,
    fams: &[ratelimit::Family],
    mut v: Verdict,
) -> Attribution {
    let mut att = Attribution::unknown();
    att.limits = ratelimit::binding(fams).map(|f| f.limits.clone());
    let ra = retry_after::from_headers(&cx.req.response_headers, cx.req.started);
    match decision.winner {
        Some(w) => name_winner(cx, &decision, w, &mut att, &mut v),
        None => {
            // What the response says about who sent it; not why it counts, nor what was not
            // recorded.
            let said = v
                .evidence
                .iter()
                .any(|e| e.role != Role::Limit && e.signal != NOT_CAPTURED);
            att.confidence = if said { 0.1 } else { 0.05 };
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
    let inputs = quota::Inputs {
        subj: &cx.subj,
        fams,
        ra: &ra,
        winner_rule: decision.winner.and_then(|w| w.top_rule),
        vendor: att.vendor.as_deref(),
        layer: att.layer,
    };
    let (q, scope) = quota::classify(&inputs, &mut v);
    att.quota = q;
    att.scope = scope;
    if let Some(r) = decision.runner_up.filter(|_| decision.winner.is_some()) {
        show_runner_up(r, &mut v);
        att.runner_up = Some(super::RunnerUp {
            layer: r.layer,
            vendor: r.vendor.map(str::to_string),
            score: round2(r.score),
        });
    }
    att.evidence = settle(
        v.evidence,
        v.tags,
        decision.winner.map(|w| (w.vendor, w.layer)),
    );
    // The path is where the response went through; the producer is reported separately.
    att.path = v
        .path
        .into_iter()
        .filter(|p| Some(p.as_str()) != att.vendor.as_deref())
        .collect();
    att
}

/// Layer, vendor, confidence (the winner's score reduced by the runner-up's; an access log's
/// field keeps it up) and the short detail of the deciding rule.
fn name_winner(
    cx: &Ctx,
    decision: &decide::Decision,
    w: decide::Winner,
    att: &mut Attribution,
    v: &mut Verdict,
) {
    att.layer = w.layer;
    att.vendor = w.vendor.map(str::to_string);
    let mut confidence = w.score * (1.0 - 0.5 * decision.runner);
    if w.layer == Layer::Api && w.vendor.is_none() {
        if let Some(hv) = super::domain::host_vendor(&cx.base.host) {
            host_derived_vendor(cx, &hv, v);
            att.vendor = Some(hv.slug);
            // A name read from the host, not a documented one: less sure than a catalogue
            // match on the same evidence (which adds its own weight besides).
            confidence *= HOST_DERIVED;
        }
    }
    if let Some(sig) = cx.log.filter(|s| s.verdict != SignalVerdict::NoSignal) {
        // The log's field is direct evidence: competing fingerprints lower it only so far.
        confidence = confidence.max(sig.weight * 0.85);
    }
    att.confidence = round2(confidence.clamp(0.05, 0.99));
    att.detail = w
        .top_rule
        .map(|r| r.detail)
        .filter(|d| !d.is_empty())
        .map(str::to_string)
        .or_else(|| {
            cx.log
                .filter(|s| decision.forced || s.verdict == SignalVerdict::Generated)
                .and_then(|s| s.detail)
                .map(str::to_string)
        });
}

/// The evidence line of a vendor read from the host.
fn host_derived_vendor(cx: &Ctx, hv: &super::domain::HostVendor, v: &mut Verdict) {
    let what = if hv.platform {
        format!(
            "a platform's shared domain ({}): the platform, {}, runs the API that answered",
            hv.domain, hv.slug
        )
    } else {
        format!("its registrable domain is {}", hv.domain)
    };
    v.ev(
        Role::Producer,
        format!("host {}", cx.base.host),
        format!(
            "not a host the catalogue documents; {what}, so the vendor is {} (derived from the host by the Public Suffix List; less sure than a catalogue match)",
            hv.slug
        ),
    );
}

/// The runner-up as a line of evidence: what the winner outweighed, and by how much.
fn show_runner_up(r: decide::RunnerUp, v: &mut Verdict) {
    let name = match r.vendor {
        Some(vd) => format!("{}/{vd}", r.layer.as_str()),
        None => r.layer.as_str().to_string(),
    };
    v.ev(
        Role::RuledOut,
        format!("runner-up: {name} ({:.2})", r.score),
        "second in the weighing of every cue (host, headers, body): its evidence is marked as outweighed above",
    );
}

/// Everything [`attribute_one`] reads of a response, as bytes: against one baseline, two
/// responses with equal keys get equal attributions, so a long incident's thousands of alike
/// 429s are attributed once (`analyze::limited` caches verdicts by this key). The fields: the
/// status, the URL's host (host rules), the documented owner of the baseline host and URL path
/// (all the path is read for), the access log's own signal, every response header in order, the
/// body excerpt and whether the body is unknown, and what the response's time makes of the headers (rate-limit resets against
/// the Date header or the record's time, a Retry-After date against the record's time): the
/// time itself is read nowhere else. A header whose value no step reads (a request or trace id:
/// [`value_unread`]) gives its name only, so that such ids do not make every response a new
/// key. Parts are length-prefixed, so no two keys run together.
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
        if value_unread(name) {
            // Its name only: a unique request or trace id must not make every 429 a new key.
            k.push(0xff);
        } else {
            part(&mut k, value.as_bytes());
        }
    }
    part(&mut k, b"");
    part(&mut k, req.body_excerpt.as_deref().unwrap_or("").as_bytes());
    // Whether that body is unknown rather than empty (the flag, Content-Length, HEAD).
    part(&mut k, &[u8::from(req.body_unknown())]);
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

/// Response headers that carry an identifier of one request or trace, whose values differ on
/// every response and say nothing about who sent it: W3C trace context, B3, the common
/// request, correlation and idempotency ids.
const IDENTIFIERS: &[&str] = &[
    "x-request-id",
    "request-id",
    "x-correlation-id",
    "correlation-id",
    "x-trace-id",
    "traceparent",
    "tracestate",
    "x-b3-traceid",
    "x-b3-spanid",
    "x-b3-parentspanid",
    "b3",
    "x-cloud-trace-context",
    "x-amzn-trace-id",
    "idempotency-key",
    "x-idempotency-key",
];

/// Whether no step of [`attribute_one`] reads this response header's value: one of
/// [`IDENTIFIERS`] that no rule, marker, cue or code header names (a rule's `Has` shows the
/// value in its evidence, so a header a rule names keeps its value in the key). The
/// [`evidence_key`] keeps such a header's name (its presence and place) but not its value.
fn value_unread(name: &str) -> bool {
    static UNREAD: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    let unread = UNREAD.get_or_init(|| {
        let read = read_header_names();
        IDENTIFIERS
            .iter()
            .copied()
            .filter(|id| !read.iter().any(|r| id.starts_with(r)))
            .collect()
    });
    unread.iter().any(|u| u.eq_ignore_ascii_case(name))
}

/// Every header name (or name prefix) a condition of the rule tables names, under `Not` too,
/// with the error-code headers and the names the other steps read by name (none of
/// [`IDENTIFIERS`] is a rate-limit header, which [`ratelimit::parse_all`] finds by prefix).
fn read_header_names() -> Vec<&'static str> {
    fn walk(m: &super::matcher::M, out: &mut Vec<&'static str>) {
        use super::matcher::M;
        match m {
            M::Has(n) | M::Value(n, _) | M::NamePrefix(n) => out.push(n),
            M::All(ms) | M::Any(ms) => ms.iter().for_each(|m| walk(m, out)),
            M::Not(m) => walk(m, out),
            M::Body(_)
            | M::Text(_)
            | M::Words(_)
            | M::Code(_)
            | M::BodyIs(_)
            | M::Layout(_)
            | M::BodyEmpty
            | M::Status(_)
            | M::Host(_)
            | M::LogField(_) => {}
        }
    }
    let mut out: Vec<&'static str> = super::limited::CODE_HEADERS.to_vec();
    out.extend(["date", "retry-after", "content-type", "content-length"]);
    for r in rules::all() {
        walk(&r.when, &mut out);
    }
    for a in rules::APP_LIMITERS {
        walk(&a.when, &mut out);
    }
    for o in rules::ORIGIN_MARKERS {
        walk(&o.when, &mut out);
    }
    for c in rules::CUES {
        walk(&c.when, &mut out);
    }
    for p in catalogue::PROVIDERS.iter() {
        p.cues.iter().for_each(|c| walk(&c.when, &mut out));
    }
    out
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

#[cfg(test)]
mod owner_tests {
    use super::*;

    /// The owner looked up once per host is the catalogue's for every path.
    #[test]
    fn owner_of_any_path_is_the_owner_of_each_path() {
        let key = |o: Owner| o.map(|(p, pat)| (p.vendor, pat));
        let mut hosts: Vec<String> = vec!["api.example.com".into(), "".into()];
        let mut paths: Vec<String> = vec!["/".into(), "".into(), "/v1/x".into()];
        for p in catalogue::PROVIDERS.iter() {
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

#[cfg(test)]
mod key_tests {
    use super::*;

    /// Identifiers no rule names leave the key; a header a rule names keeps its value (its
    /// `Has` shows the value in the evidence).
    #[test]
    fn only_identifiers_no_rule_names_lose_their_values() {
        assert!(value_unread("X-Request-Id"));
        assert!(value_unread("traceparent"));
        // Named by the AWS API Gateway rule.
        assert!(!value_unread("x-amzn-trace-id"));
        assert!(!value_unread("x-ratelimit-remaining"));
        for name in read_header_names() {
            assert!(!value_unread(name), "{name} is read by a rule");
        }
    }

    /// On every fixture of the rule tests, two 429s that differ only in the values of their
    /// request and trace ids get one key and one verdict.
    #[test]
    fn responses_that_differ_in_unread_ids_share_key_and_verdict() {
        let mut shared = 0;
        for fx in crate::attribute::tests::FIXTURES {
            let mut reqs = crate::attribute::tests::requests(fx);
            let limited = reqs.pop().expect("a fixture has its 429");
            let refs: Vec<&Request> = reqs.iter().collect();
            let base = Baseline::build(fx.host, &refs);
            let with_ids = |n: u32| {
                let mut r = limited.clone();
                for name in IDENTIFIERS.iter().filter(|n| value_unread(n)) {
                    r.response_headers.push(*name, format!("{n:08x}-{name}"));
                }
                r
            };
            let (a, b) = (with_ids(1), with_ids(2));
            assert_eq!(
                evidence_key(&a, &base),
                evidence_key(&b, &base),
                "{}",
                fx.name
            );
            assert_eq!(
                attribute_one(&a, &base),
                attribute_one(&b, &base),
                "{}",
                fx.name
            );
            // The rule that names a header would see its value: not left out.
            let mut c = a.clone();
            c.response_headers.push("x-amzn-trace-id", "Root=1-abc");
            let mut d = a.clone();
            d.response_headers.push("x-amzn-trace-id", "Root=1-def");
            assert_ne!(
                evidence_key(&c, &base),
                evidence_key(&d, &base),
                "{}",
                fx.name
            );
            shared += 1;
        }
        assert!(shared > 20, "{shared}");
    }
}
