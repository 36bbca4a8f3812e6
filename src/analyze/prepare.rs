//! Step 3 of the analysis and what the replays read: the rate-limited responses attributed,
//! the known limits, the clients numbered and labelled, each credential's host.

use super::collect::Collector;
use super::event;
use super::join::JoinedBy;
use super::{limited, summary, Attribute};
use crate::attribute::{self, engine::Baseline, Attribution};
use crate::detect::clients::{self, ClientsSection};
use crate::detect::limit::{self, KnownLimit};
use crate::model::Request;
use crate::report::RateLimitedRows;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// Everything the replays and the report need, from the first stage and attribution.
pub(super) struct Prepared {
    pub(super) rate_limited: RateLimitedRows,
    pub(super) limits: Vec<Option<KnownLimit>>,
    pub(super) hosts: Vec<String>,
    pub(super) labels: Vec<String>,
    pub(super) creds: Vec<String>,
    pub(super) endpoints: Vec<String>,
    pub(super) cred_host: Vec<u32>,
    pub(super) remap: Vec<u32>,
    pub(super) clients: ClientsSection,
    /// Hosts busiest rate-limited first (the summary's order).
    pub(super) host_order: Vec<String>,
    /// Position in the report's rate-limited list, by row id.
    pub(super) listed: Vec<Option<u32>>,
}

pub(super) fn prepare(
    c: &mut Collector,
    attribute: &Attribute,
    given: &crate::units::GivenLimits,
) -> Prepared {
    c.rows
        .sort(|t_us, t_ns, loc| event::sample_key(t_us, t_ns, loc, &c.ranks));
    let hosts: Vec<String> = (0..c.hosts.len() as u32)
        .map(|h| c.host_name(h).to_string())
        .collect();
    let rate_limited = attribute_rows(c, attribute, &hosts);
    let host_order: Vec<String> = summary(c, &hosts)
        .hosts
        .into_iter()
        .map(|h| h.host)
        .collect();
    let limits = known_limits(c, &hosts, &host_order, given);
    let remap = c.client_order();
    let creds: Vec<String> = (0..c.creds.len() as u32)
        .map(|i| c.creds.get(i).cloned().unwrap_or_default())
        .collect();
    let endpoints: Vec<String> = (0..c.endpoints.len() as u32)
        .map(|i| c.endpoints.get(i).cloned().unwrap_or_default())
        .collect();
    let (labels, clients) = clients_of(c, &remap, &creds);
    let cred_host = credential_hosts(c, &hosts, creds.len());
    let mut listed = vec![None; c.rows.rows.len()];
    for (pos, &row) in c.rows.order.iter().enumerate() {
        listed[row as usize] = Some(pos as u32);
    }
    Prepared {
        host_order,
        listed,
        rate_limited,
        limits,
        hosts,
        labels,
        creds,
        endpoints,
        cred_host,
        remap,
        clients,
    }
}

/// The rate-limited rows attributed, in the report's order: by the engine against each host's
/// baseline (one verdict per distinct evidence, unless uncached), or as given.
fn attribute_rows(c: &mut Collector, attribute: &Attribute, hosts: &[String]) -> RateLimitedRows {
    let baselines = baselines(c, hosts);
    match attribute {
        Attribute::Engine | Attribute::EngineUncached => {
            let cached = matches!(attribute, Attribute::Engine);
            // One request in two layers' access logs: the inner layer's verdict decides.
            let joined = c.rows.joined_layers();
            let key = |row: u32, seen: &limited::Seen<'_>, host: u32| {
                if !cached || joined.contains_key(&row) || seen.other.is_some() {
                    return None;
                }
                // The host first: its baseline is part of the evidence.
                let b = baselines.get(&host)?;
                let mut k = host.to_le_bytes().to_vec();
                k.extend_from_slice(&attribute::engine::evidence_key(seen.record, b));
                Some(k)
            };
            let verdict = |row: u32, seen: &limited::Seen<'_>, host: u32| {
                let r = seen.record;
                let Some(b) = baselines.get(&host) else {
                    return Attribution::unknown();
                };
                if let Some(o) = seen.other {
                    // One request: the listed record's host's baseline serves both.
                    let by_id = o.by == JoinedBy::RequestId;
                    return attribute::seen_twice(r, o.record, by_id, b, b);
                }
                match joined.get(&row) {
                    Some((inner, inner_host)) => attribute::joined(
                        r,
                        inner,
                        baselines.get(inner_host).unwrap_or(b),
                        true,
                        inner,
                    ),
                    None => attribute::engine::attribute_one(r, b),
                }
            };
            c.rows.attribute(&limited::Verdicts {
                key: &key,
                attribute: &verdict,
            })
        }
        Attribute::Given(given) => c.rows.attribute(&limited::Verdicts {
            key: &|_, _, _| None,
            attribute: &|_, seen, _| {
                let r = seen.record;
                let key = (r.location.source.clone(), r.location.position);
                given
                    .get(&key)
                    .cloned()
                    .unwrap_or_else(Attribution::unknown)
            },
        }),
    }
}

/// Baselines of the hosts that sent rate-limited responses.
fn baselines(c: &mut Collector, hosts: &[String]) -> HashMap<u32, Arc<Baseline>> {
    let mut baselines: HashMap<u32, Arc<Baseline>> = HashMap::new();
    let limited_hosts: std::collections::BTreeSet<u32> = c.rows.limited().map(|r| r.host).collect();
    for h in limited_hosts {
        let samples = c.baseline_samples(h);
        let refs: Vec<&Request> = samples.iter().map(|b| &**b).collect();
        baselines.insert(h, Arc::new(Baseline::build(&hosts[h as usize], &refs)));
    }
    baselines
}

/// Known limits per host: from the attributions, the headers and `--limit`.
fn known_limits(
    c: &Collector,
    hosts: &[String],
    host_order: &[String],
    given: &crate::units::GivenLimits,
) -> Vec<Option<KnownLimit>> {
    let mut from_attr: Vec<Option<BTreeMap<(u64, u64), usize>>> = vec![None; hosts.len()];
    for row in c.rows.limited() {
        if let Some(l) = row.facts.as_ref().and_then(|f| f.limits()) {
            let m = from_attr[row.host as usize].get_or_insert_with(BTreeMap::new);
            if let Some(p) = limit::pair(l) {
                *m.entry(p).or_insert(0) += 1;
            }
        }
    }
    // The host a `--limit` without one is for: the busiest rate-limited one (the summary's
    // first), as the principal plan.
    let principal = host_order
        .first()
        .filter(|h| {
            let id = hosts.iter().position(|n| n == *h);
            id.is_some_and(|i| c.host_counts[i].rate_limited > 0)
        })
        .cloned();
    let inputs: Vec<limit::HostLimits> = (0..hosts.len())
        .map(|h| limit::HostLimits {
            name: &hosts[h],
            limited: c.host_counts[h].rate_limited > 0,
            from_attribution: from_attr[h].take(),
            from_headers: Some(&c.host_counts[h].header_limits),
        })
        .collect();
    limit::compute(&inputs, given, principal.as_deref())
}

/// Clients, numbered by first appearance (`remap`: arrival id to that number): their labels
/// and the report's section.
fn clients_of(c: &Collector, remap: &[u32], creds: &[String]) -> (Vec<String>, ClientsSection) {
    let mut by_final: Vec<u32> = vec![0; remap.len()];
    for (arrival, &f) in remap.iter().enumerate() {
        by_final[f as usize] = arrival as u32;
    }
    let labels = clients::labels(by_final.iter().map(|&a| c.clients.get(a)));
    let counted: Vec<clients::Counted> = by_final
        .iter()
        .zip(&labels)
        .map(|(&a, label)| {
            let cc = &c.client_counts[a as usize];
            clients::Counted {
                key: c.clients.get(a).cloned(),
                label: label.clone(),
                requests: cc.requests,
                rate_limited: cc.rate_limited,
                credentials: cc
                    .creds
                    .iter()
                    .map(|&i| creds[i as usize].clone())
                    .collect(),
                first: cc.first.and_then(|e| e.started()),
                last: cc.last.and_then(|e| e.started()),
            }
        })
        .collect();
    let section = clients::section(c.hints, counted);
    (labels, section)
}

/// The host each credential was used with most (ties: the first by name).
fn credential_hosts(c: &Collector, hosts: &[String], n_creds: usize) -> Vec<u32> {
    let mut cred_host = vec![event::NONE; n_creds];
    let mut best: Vec<(usize, &str)> = vec![(0, ""); n_creds];
    for (&(cred, host), &n) in &c.cred_hosts {
        let name = hosts[host as usize].as_str();
        let b = &mut best[cred as usize];
        if cred_host[cred as usize] == event::NONE || n > b.0 || (n == b.0 && name < b.1) {
            *b = (n, name);
            cred_host[cred as usize] = host;
        }
    }
    cred_host
}
