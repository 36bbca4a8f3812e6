//! The engine on records already in memory (tests, library callers): the same stages as
//! [`super::analyze_files`], fed from a slice of requests instead of the ingest workers.

use super::collect::Collector;
use super::event::{self, Shared};
use super::prepare::prepare;
use super::replay::{cx_of, replay, run_detectors};
use super::{ranked, Attribute};
use crate::attribute::Attribution;
use crate::detect::clients;
use crate::detect::limit::KnownLimit;
use crate::detect::link::{CadenceTable, Cadences, Linked, Linker, Logical};
use crate::detect::Detected;
use crate::model::{Position, Request};
use crate::recommend::evidence::{self, HostEvidence};
use crate::report::RateLimitedRows;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// Feed records (in memory) through the first stage; `given`: attributions by request index
/// (those requests, and every 429, count as rate-limited; tests).
pub(super) fn collect_records(
    requests: &[Request],
    given: Option<&[(usize, Attribution)]>,
) -> Collector {
    collect_joined(requests, given, None)
}

/// [`collect_records`]; with `inputs` (what was read from each source, its format among it),
/// one request found in several inputs is counted once ([`super::join`]).
pub(super) fn collect_joined(
    requests: &[Request],
    given: Option<&[(usize, Attribution)]>,
    inputs: Option<&[crate::report::InputSummary]>,
) -> Collector {
    let mut names: Vec<Arc<str>> = Vec::new();
    let mut index: HashMap<Arc<str>, usize> = HashMap::new();
    for r in requests {
        if !index.contains_key(&r.location.source) {
            index.insert(r.location.source.clone(), names.len());
            names.push(r.location.source.clone());
        }
    }
    let shared = Arc::new(Shared::default());
    let mut c = Collector::new(names.clone(), shared.clone());
    for i in 0..names.len() {
        c.start_input(i);
    }
    if let Some(inputs) = inputs.filter(|_| names.len() > 1) {
        shared.set_joining();
        c.enable_join(false);
        for (i, name) in names.iter().enumerate() {
            let format = inputs.iter().find(|s| s.source == *name);
            if let Some(f) = format.and_then(|s| s.format.as_deref()) {
                c.set_format(i, f);
            }
        }
    }
    let marked: std::collections::HashSet<usize> =
        given.into_iter().flatten().map(|(i, _)| *i).collect();
    for (k, r) in requests.iter().enumerate() {
        let i = index[&r.location.source];
        let mut m = event::map(r.clone(), i.min(u16::MAX as usize) as u16, &shared);
        if given.is_some() {
            // The old contract of `detect::run`: the given ones and every 429 are limited.
            let limited = marked.contains(&k) || r.status == 429;
            // The record's reason to travel is read off the event (`Kept::of`).
            if limited {
                m.ev.flags |= event::flag::LIMITED;
                m.kept = Some(Box::new(r.clone()));
            } else {
                let was_limited = m.ev.limited();
                m.ev.flags &= !event::flag::LIMITED;
                if was_limited {
                    // Kept as rate-limited: now kept only as a failure.
                    m.kept = event::is_failure(r.status).then(|| Box::new(r.clone()));
                }
            }
        }
        c.take(i, &mut vec![m]);
    }
    for i in 0..names.len() {
        let _ = c.finish_input(i);
    }
    c
}

/// Run the detectors over `requests` (time-sorted) with the given attributions.
pub fn detect_records(
    requests: &[Request],
    limited: &[(usize, Attribution)],
    limit_option: Option<crate::units::Rate>,
) -> Detected {
    let mut c = collect_records(requests, Some(limited));
    let given = given_map(requests, limited);
    let p = prepare(
        &mut c,
        &Attribute::Given(given),
        &crate::units::GivenLimits::any(limit_option),
    );
    let coarse = c.coarse_time();
    let early = c.take_early();
    let findings = run_detectors(&c, &p, coarse, limit_option, early).findings;
    Detected {
        findings,
        clients: p.clients,
    }
}

fn given_map(
    requests: &[Request],
    limited: &[(usize, Attribution)],
) -> HashMap<(Arc<str>, Position), Attribution> {
    limited
        .iter()
        .filter_map(|(i, a)| {
            let r = requests.get(*i)?;
            Some(((r.location.source.clone(), r.location.position), a.clone()))
        })
        .collect()
}

/// Client numbers of time-sorted records, as the analysis numbers them.
pub fn identify_clients(requests: &[Request]) -> clients::Clients {
    let mut c = collect_records(requests, None);
    let p = prepare(
        &mut c,
        &Attribute::Given(HashMap::new()),
        &Default::default(),
    );
    let shared = Shared::default();
    let of_request = requests
        .iter()
        .map(|r| {
            let m = event::map(r.clone(), 0, &shared);
            c.clients
                .lookup(m.keys.client.max(1))
                .and_then(|a| p.remap.get(a as usize))
                .map(|&f| f as usize)
                .unwrap_or(0)
        })
        .collect();
    clients::Clients {
        of_request,
        list: p.labels,
        hints_seen: clients::hint_names(c.hints),
    }
}

/// The logical operations of time-sorted records, as the analysis links them.
pub fn link_records(requests: &[Request]) -> crate::detect::logical::Attempts {
    let mut c = collect_records(requests, None);
    let p = prepare(
        &mut c,
        &Attribute::Given(HashMap::new()),
        &Default::default(),
    );
    let coarse = c.coarse_time();
    let mut by_loc: HashMap<(u16, u64), usize> = HashMap::new();
    let mut inputs: HashMap<Arc<str>, u16> = HashMap::new();
    for (i, r) in requests.iter().enumerate() {
        let n = inputs.len() as u16;
        let input = *inputs.entry(r.location.source.clone()).or_insert(n);
        let pos = match r.location.position {
            Position::Entry(p) | Position::Line(p) => p as u64,
        };
        by_loc.insert((input, pos), i);
    }
    let mut cadences: BTreeMap<u32, Cadences> = BTreeMap::new();
    let _ = replay(&c, &p.remap, &mut |ev, seq| {
        cadences.entry(ev.host).or_default().observe(ev, seq);
    });
    let table = CadenceTable::merged(cadences.into_values().map(Cadences::finish));
    let cx = cx_of(&c, &p, coarse, None);
    let mut linkers: BTreeMap<u32, Linker> = BTreeMap::new();
    let mut closed: Vec<Logical> = Vec::new();
    let mut linked: Vec<(usize, Linked)> = Vec::new();
    let _ = replay(&c, &p.remap, &mut |ev, seq| {
        let linker = linkers
            .entry(ev.host)
            .or_insert_with(|| Linker::new(coarse));
        let wait = cx.wait_s(ev).unwrap_or(0.0);
        if let Some(l) = linker.step(ev, seq, table.stretch(ev.op, seq), wait, &mut closed) {
            if let Some(&i) = by_loc.get(&(ev.input(), ev.position())) {
                linked.push((i, l));
            }
        }
    });
    let mut polls = 0;
    for l in linkers.values_mut() {
        l.finish(&mut closed);
        polls += l.polls_after_failure;
    }
    closed.sort_by_key(|l| l.order);
    let number: HashMap<u64, usize> = closed.iter().enumerate().map(|(n, l)| (l.id, n)).collect();
    let mut of_request = vec![None; requests.len()];
    for (i, l) in &linked {
        of_request[*i] = number.get(&l.logical).map(|&n| (n, l.attempt as usize));
    }
    let logical = closed
        .iter()
        .map(|l| crate::detect::logical::Logical {
            attempts: l
                .attempts
                .iter()
                .filter_map(|a| by_loc.get(&(a.ev.input(), a.ev.position())).copied())
                .collect(),
            client: l.client as usize,
        })
        .collect();
    crate::detect::logical::Attempts {
        logical,
        of_request,
        polls_after_failure: polls,
        poll_cadences: table.cadences(),
    }
}

/// The known limit per host name, for time-sorted records with the given attributions.
pub fn known_limits(
    requests: &[Request],
    limited: &[(usize, Attribution)],
    limit_option: Option<crate::units::Rate>,
) -> BTreeMap<String, KnownLimit> {
    let mut c = collect_records(requests, Some(limited));
    let given = given_map(requests, limited);
    let p = prepare(
        &mut c,
        &Attribute::Given(given),
        &crate::units::GivenLimits::any(limit_option),
    );
    p.hosts
        .into_iter()
        .zip(p.limits)
        .filter_map(|(h, l)| Some((h, l?)))
        .collect()
}

/// A hand-edited report keeps no operation keys: the method and URL stand in for one.
fn caller_key(method: &str, url: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (method, url).hash(&mut h);
    h.finish()
}

/// What the recommendation reads, per host (busiest rate-limited host first) and for all
/// traffic, from time-sorted records and their rate-limited rows (the analysis gathers the
/// same while it streams; this serves callers holding a hand-edited report).
pub fn recommend_evidence(
    requests: &[Request],
    rate_limited: &RateLimitedRows,
) -> (Vec<HostEvidence>, HostEvidence) {
    let limited: std::collections::HashSet<(Arc<str>, Position)> = rate_limited
        .iter()
        .map(|r| (r.source.clone(), r.position))
        .collect();
    let mut by_host: BTreeMap<String, HostEvidence> = BTreeMap::new();
    for r in requests {
        let host = r.host();
        by_host
            .entry(host.clone())
            .or_insert_with(|| HostEvidence::new(Some(host)))
            .observe(evidence::Seen {
                started: r.started,
                status: r.status,
                duration_ms: r.duration_ms,
                limited: limited.contains(&(r.location.source.clone(), r.location.position)),
            });
    }
    for rl in rate_limited {
        let host = crate::http::url::host_key(&rl.url).into_owned();
        if let Some(h) = by_host.get_mut(&host) {
            // The report's row keeps the attribution's limits, not the response.
            let stated = rl.attribution.limits.as_ref().and_then(|l| {
                Some(crate::http::ratelimit::Stated {
                    count: l.limit?,
                    window_s: l.window_seconds,
                    by: "rate-limit headers".into(),
                })
            });
            h.limited.observe(evidence::Limited {
                time: rl.time,
                quota: rl.attribution.quota,
                limits: rl.attribution.limits.as_ref(),
                stated: stated.as_ref(),
                retry_after: &rl.retry_after,
                caller: caller_key(&rl.method, &rl.url),
                layer: rl.attribution.layer,
                vendor: rl.attribution.vendor.as_deref(),
                same_site: false,
            });
        }
    }
    ranked(by_host.into_values().collect())
}
