//! The analysis stage: normalized requests in, [`Report`] out. No I/O, no environment.

use crate::attribute;
use crate::http::retry_after;
use crate::ingest::Ingested;
use crate::model::Request;
use crate::recommend::evidence::{self, HostEvidence};
use crate::report::{HostCount, InputSummary, RateLimited, Report, Summary, SCHEMA_VERSION};
use std::collections::{BTreeMap, HashMap};

/// Knobs of the analysis (typed, validated; the core never sees clap).
#[derive(Debug, Clone, Default)]
pub struct AnalyzeOptions {
    /// A known limit (`--limit 120/min`).
    pub limit: Option<crate::units::Rate>,
}

/// All requests of all inputs, in time order (records without a time keep input order, last).
pub fn merge_inputs(inputs: Vec<Ingested>) -> (Vec<InputSummary>, Vec<Request>) {
    let mut summaries = Vec::with_capacity(inputs.len());
    let total: usize = inputs.iter().map(|i| i.requests.len()).sum();
    let mut all: Vec<Request> = Vec::new();
    for i in inputs {
        summaries.push(i.summary);
        if all.is_empty() && i.requests.len() == total {
            all = i.requests; // one input: no copy
        } else {
            all.reserve_exact(total - all.len());
            all.extend(i.requests);
        }
    }
    // Unstable sort on a total key (time, source, entry/line): deterministic whatever the
    // thread count, and unlike a stable sort it needs no buffer of half the records.
    all.sort_unstable_by(|a, b| {
        let by_time = match (a.started, b.started) {
            (Some(x), Some(y)) => x.cmp(&y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        };
        by_time.then_with(|| a.location.cmp(&b.location))
    });
    (summaries, all)
}

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
pub fn analyze(inputs: Vec<InputSummary>, requests: &[Request], opts: &AnalyzeOptions) -> Report {
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
    let detected = crate::detect::run(requests, &limited, opts.limit);
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
    report.overview = crate::overview::build(requests, &report.rate_limited, &host_order);
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
