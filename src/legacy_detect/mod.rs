//! Behaviour detectors: what the clients did wrong. Each detector is one file and adds findings.
//!
//! Shared groundwork, computed once per analysis and read by every detector:
//! - [`clients`]: how one caller is told apart from another;
//! - [`logical`]: which requests are attempts of one logical operation (retries), and which are
//!   periodic polls that merely repeat;
//! - [`timeline`]: start rates over sliding windows and requests in flight;
//! - [`limit`]: the known limit per host, from `--limit` or rate-limit headers.
//!
//! Detectors never see clap, do no I/O, and their output depends only on the request order
//! (which `analyze::merge_inputs` makes deterministic).

use crate::attribute::Attribution;
use crate::model::Request;
use crate::units::Rate;
use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::Value;
use std::collections::HashMap;

pub mod burst;
pub mod clients;
pub mod concurrency_limit;
pub mod ignored_retry_after;
pub mod limit;
pub mod logical;
pub mod overview;
pub mod quota_exhausted;
pub mod retry_storm;
pub mod shared_key_contention;
pub mod synchronized_retries;
pub mod timeline;
pub mod unsafe_retry;

pub use crate::detect::{Finding, Severity};

/// Everything the detectors read: the requests (time-sorted), the attribution of each
/// rate-limited one, the known limit, and the shared groundwork.
pub struct Context<'a> {
    pub requests: &'a [Request],
    /// Attribution per request index (`None` for requests that were not rate-limited).
    pub attribution: Vec<Option<&'a Attribution>>,
    /// `--limit`, when given.
    pub limit_option: Option<Rate>,
    pub clients: clients::Clients,
    pub attempts: logical::Attempts,
    /// Host per request index (lower-cased, "" when the URL has none).
    pub hosts: HostIndex,
    /// Rate-limited per request index.
    pub limited: Vec<bool>,
    /// Timed request indices per host (time order), hosts sorted by name.
    pub by_host: Vec<(String, Vec<usize>)>,
    /// Timestamps are whole seconds only (see [`logical::coarse_timestamps`]).
    pub coarse_time: bool,
    /// Known limit per host.
    pub limits: std::collections::BTreeMap<String, limit::KnownLimit>,
}

impl<'a> Context<'a> {
    /// `limited` pairs a rate-limited request's index with its attribution.
    pub fn new(
        requests: &'a [Request],
        limited: &'a [(usize, Attribution)],
        limit_option: Option<Rate>,
    ) -> Context<'a> {
        let mut attribution = vec![None; requests.len()];
        for (i, a) in limited {
            if let Some(slot) = attribution.get_mut(*i) {
                *slot = Some(a);
            }
        }
        let clients = clients::Clients::identify(requests);
        let attempts = logical::Attempts::build(requests, &clients);
        let hosts = HostIndex::build(requests);
        let limited: Vec<bool> = requests
            .iter()
            .zip(&attribution)
            .map(|(r, a)| a.is_some() || r.status == 429)
            .collect();
        let mut index: std::collections::BTreeMap<&str, Vec<usize>> = Default::default();
        for (i, r) in requests.iter().enumerate() {
            if r.started.is_some() {
                index.entry(hosts.get(i)).or_default().push(i);
            }
        }
        let by_host = index.into_iter().map(|(h, v)| (h.to_string(), v)).collect();
        let limits = limit::compute(requests, &hosts, &limited, &attribution, limit_option);
        Context {
            requests,
            attribution,
            limit_option,
            clients,
            attempts,
            hosts,
            limited,
            by_host,
            limits,
            coarse_time: logical::coarse_timestamps(requests),
        }
    }

    /// Is request `i` a rate-limit signal (429, or a 503/403 the attribution stage counted)?
    pub fn is_limited(&self, i: usize) -> bool {
        self.limited.get(i).copied().unwrap_or(false)
    }

    pub fn host(&self, i: usize) -> &str {
        self.hosts.get(i)
    }
}

/// Host of each request, each distinct host stored once (a `String` per request cost more than
/// the rest of the per-request indexes together on large captures).
#[derive(Debug, Clone, Default)]
pub struct HostIndex {
    ids: Vec<u32>,
    names: Vec<String>,
}

impl HostIndex {
    pub fn build(requests: &[Request]) -> HostIndex {
        let mut seen: HashMap<String, u32> = HashMap::new();
        let mut hi = HostIndex::default();
        for r in requests {
            let h = r.host();
            let id = match seen.get(&h) {
                Some(&id) => id,
                None => {
                    let id = hi.names.len() as u32;
                    hi.names.push(h.clone());
                    seen.insert(h, id);
                    id
                }
            };
            hi.ids.push(id);
        }
        hi
    }

    /// Host of request `i` ("" when out of range or the URL has none).
    pub fn get(&self, i: usize) -> &str {
        self.ids
            .get(i)
            .and_then(|&id| self.names.get(id as usize))
            .map(String::as_str)
            .unwrap_or("")
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
}

/// What the detectors produced: findings in a fixed order, and the client section.
#[derive(Debug, Clone)]
pub struct Detected {
    pub findings: Vec<Finding>,
    pub clients: clients::ClientsSection,
}

/// Run every detector. Findings come in detector order, then in each detector's own order
/// (hosts and clients sorted), so the output never depends on thread count.
pub fn run(
    requests: &[Request],
    limited: &[(usize, Attribution)],
    limit_option: Option<Rate>,
) -> Detected {
    let cx = Context::new(requests, limited, limit_option);
    let mut findings = Vec::new();
    findings.extend(burst::detect(&cx));
    findings.extend(retry_storm::detect(&cx));
    findings.extend(ignored_retry_after::detect(&cx));
    findings.extend(synchronized_retries::detect(&cx));
    findings.extend(shared_key_contention::detect(&cx));
    findings.extend(unsafe_retry::detect(&cx));
    findings.extend(quota_exhausted::detect(&cx));
    findings.extend(concurrency_limit::detect(&cx));
    Detected {
        findings,
        clients: cx.clients.section(requests, &cx),
    }
}

// ---- small helpers shared by the detectors ----

/// Seconds since the Unix epoch, as a float (microsecond precision).
pub(crate) fn secs(t: DateTime<Utc>) -> f64 {
    t.timestamp_micros() as f64 / 1e6
}

pub(crate) fn start_s(r: &Request) -> Option<f64> {
    r.started.map(secs)
}

/// End of the response in epoch seconds; the start when the duration is unknown.
pub(crate) fn end_s(r: &Request) -> Option<f64> {
    let s = start_s(r)?;
    match r.duration_ms {
        Some(d) if d.is_finite() && d >= 0.0 => Some(s + d / 1000.0),
        _ => Some(s),
    }
}

pub(crate) fn time_str(t: Option<DateTime<Utc>>) -> Value {
    match t {
        Some(t) => Value::String(t.to_rfc3339_opts(SecondsFormat::Millis, true)),
        None => Value::Null,
    }
}

/// Evidence locator of one request: source, entry/line, time.
pub(crate) fn at(r: &Request) -> Value {
    let mut v = serde_json::to_value(&r.location).unwrap_or(Value::Null);
    if let Value::Object(m) = &mut v {
        m.insert("time".into(), time_str(r.started));
    }
    v
}

/// Status classes that make a following attempt a retry.
pub(crate) fn is_failure(status: u16) -> bool {
    status == 0 || status == 408 || status == 429 || status >= 500
}

/// `p` in 0..=1 of sorted values (nearest rank).
pub(crate) fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

pub(crate) fn median(sorted: &[f64]) -> f64 {
    percentile(sorted, 0.5)
}

pub(crate) fn sort_f64(v: &mut [f64]) {
    v.sort_by(|a, b| a.total_cmp(b));
}

/// Round to 3 decimals for evidence figures.
pub(crate) fn r3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// `58.8/s` or `1.5/min` style rate text.
pub(crate) fn rate_text(per_s: f64) -> String {
    use crate::units::fmt_num;
    if per_s >= 1.0 || per_s == 0.0 {
        format!("{}/s", fmt_num((per_s * 10.0).round() / 10.0))
    } else {
        format!("{}/min", fmt_num((per_s * 600.0).round() / 10.0))
    }
}

pub(crate) fn seconds_text(s: f64) -> String {
    crate::units::fmt_duration_ms(s * 1000.0)
}

// ---- the batch analysis as it was, for comparing the streaming engine with (tests only) ----

use crate::analyze::AnalyzeOptions;
use crate::attribute;
use crate::http::retry_after;
use crate::recommend::evidence::{self, HostEvidence};
use crate::report::{HostCount, InputSummary, RateLimited, Report, Summary, SCHEMA_VERSION};
use std::collections::BTreeMap;

pub fn summarize(requests: &[Request], rate_limited: &[usize]) -> Summary {
    let mut by_status = BTreeMap::new();
    let mut hosts: HashMap<String, (usize, usize)> = HashMap::new();
    for r in requests {
        *by_status.entry(r.status.to_string()).or_insert(0) += 1;
        hosts.entry(r.host()).or_insert((0, 0)).0 += 1;
    }
    for &i in rate_limited {
        hosts.entry(requests[i].host()).or_insert((0, 0)).1 += 1;
    }
    let mut hosts: Vec<HostCount> = hosts
        .into_iter()
        .map(|(host, (requests, rate_limited))| HostCount {
            host,
            requests,
            rate_limited,
        })
        .collect();
    hosts.sort_by(|a, b| {
        b.rate_limited
            .cmp(&a.rate_limited)
            .then(b.requests.cmp(&a.requests))
            .then(a.host.cmp(&b.host))
    });
    Summary {
        requests: requests.len(),
        by_status,
        rate_limited: rate_limited.len(),
        first: requests.iter().filter_map(|r| r.started).min(),
        last: requests.iter().filter_map(|r| r.started).max(),
        hosts,
    }
}

/// Run every analysis over the merged requests, with the default recommendation knobs (and the
/// `--limit` of `opts`).
pub fn analyze_legacy(
    inputs: Vec<InputSummary>,
    requests: &[Request],
    opts: &AnalyzeOptions,
) -> Report {
    let rec = crate::recommend::Options {
        limit: opts.limit,
        ..Default::default()
    };
    analyze_with(inputs, requests, opts, &rec)
}

/// [`analyze`] with explicit recommendation knobs (headroom, latency, backoff).
pub fn analyze_with(
    inputs: Vec<InputSummary>,
    requests: &[Request],
    opts: &AnalyzeOptions,
    rec: &crate::recommend::Options,
) -> Report {
    let targets: Vec<usize> = (0..requests.len())
        .filter(|&i| attribute::is_rate_limited(&requests[i]))
        .collect();
    let verdicts = attribute::attribute(requests, &targets);
    let rate_limited: Vec<RateLimited> = targets
        .iter()
        .zip(verdicts)
        .map(|(&i, attribution)| {
            let r = &requests[i];
            RateLimited {
                request_index: i,
                source: r.location.source.clone(),
                position: r.location.position,
                time: r.started,
                method: r.method.clone(),
                url: r.url.clone(),
                status: r.status,
                retry_after: retry_after::from_headers(&r.response_headers, r.started),
                attribution,
            }
        })
        .collect();
    let limited: Vec<(usize, attribute::Attribution)> = rate_limited
        .iter()
        .map(|r| (r.request_index, r.attribution.clone()))
        .collect();
    let detected = crate::legacy_detect::run(requests, &limited, opts.limit);
    let mut report = Report {
        schema_version: SCHEMA_VERSION,
        generated_by: format!("toomany {}", env!("CARGO_PKG_VERSION")),
        summary: summarize(requests, &targets),
        inputs,
        rate_limited,
        findings: detected.findings,
        clients: detected.clients,
        recommendation: None,
        recommendations: Vec::new(),
        overview: Default::default(),
    };
    let (hosts, all) = recommend_evidence(requests, &report.rate_limited);
    let limited: Vec<&HostEvidence> = hosts.iter().filter(|h| h.rate_limited > 0).collect();
    report.recommendations = crate::recommend::recommend_all(&limited, &all, &report.findings, rec);
    report.recommendation = report.recommendations.first().cloned();
    let host_order: Vec<String> = report
        .summary
        .hosts
        .iter()
        .map(|h| h.host.clone())
        .collect();
    report.overview = overview::build(requests, &report.rate_limited, &host_order);
    report
}

/// What the recommendation reads, per host (busiest rate-limited host first, as in the
/// summary), and for all traffic together. `rate_limited` in time order.
pub fn recommend_evidence(
    requests: &[Request],
    rate_limited: &[RateLimited],
) -> (Vec<HostEvidence>, HostEvidence) {
    let mut by_host: HashMap<String, HostEvidence> = HashMap::new();
    let limited: std::collections::HashSet<usize> =
        rate_limited.iter().map(|r| r.request_index).collect();
    for (i, r) in requests.iter().enumerate() {
        let host = r.host();
        by_host
            .entry(host.clone())
            .or_insert_with(|| HostEvidence::new(Some(host)))
            .observe(evidence::Seen {
                started: r.started,
                status: r.status,
                duration_ms: r.duration_ms,
                limited: limited.contains(&i),
            });
    }
    for rl in rate_limited {
        let Some(r) = requests.get(rl.request_index) else {
            continue;
        };
        if let Some(h) = by_host.get_mut(&r.host()) {
            h.limited.observe(evidence::Limited {
                time: rl.time,
                quota: rl.attribution.quota,
                limits: rl.attribution.limits.as_ref(),
                retry_after: &rl.retry_after,
            });
        }
    }
    let mut hosts: Vec<HostEvidence> = by_host.into_values().collect();
    hosts.sort_by(|a, b| {
        b.rate_limited
            .cmp(&a.rate_limited)
            .then(b.requests.cmp(&a.requests))
            .then(a.host.cmp(&b.host))
    });
    let mut all = HostEvidence::new(None);
    for h in &hosts {
        all.merge(h);
    }
    (hosts, all)
}
