//! The analysis stage: normalized requests in, [`Report`] out. No I/O beyond its own temporary
//! files, no environment.
//!
//! The stages, each in its own module:
//! 1. [`event`]: on the ingest worker threads, each [`Request`] becomes a 64-byte [`Event`]
//!    (plus the full record only for rate-limited responses and the attribution baseline);
//! 2. [`collect`]: on the calling thread, in input order: ids, order-free counters, the kept
//!    records, and the events put in time order ([`order`]) into logs;
//! 3. attribution of the rate-limited responses against each host's baseline ([`limited`]);
//! 4. replays of the time-ordered events, per group of hosts on the thread pool, each lane
//!    on its own: a first pass (each operation's cadence, the overview's first pass; made
//!    while the log was written instead when one input's log is the whole merged order, see
//!    [`order::Early`]), then the detectors ([`crate::detect`]) with the recommendation's
//!    evidence and the overview's second pass, and a second look for detectors that need it.
//!    With fewer host groups than threads, a side lane takes the evidence, the overview and
//!    the biggest group's detectors that read no links, without linking;
//! 5. the Report: summary, rate-limited responses and their groups, findings, clients,
//!    recommendation.
//!
//! Memory follows the number of hosts, clients, credentials and active operations, never the
//! number of records; results never depend on the number of threads.

#[cfg(test)]
mod baseline_tests;
pub mod collect;
pub mod event;
pub mod limited;
pub mod live;
pub mod order;
#[cfg(test)]
mod tests;

use crate::attribute::{self, engine::Baseline, Attribution};
use crate::detect::clients::{self, ClientsSection};
use crate::detect::limit::{self, KnownLimit};
use crate::detect::link::{CadenceTable, Cadences, Linked, Linker, Logical};
use crate::detect::{Cx, Detected, Detector, Finding, Placed, Step};
use crate::ingest;
use crate::model::{Position, Request};
use crate::recommend::evidence::{self, HostEvidence};
use crate::report::{HostCount, InputSummary, RateLimited, Report, Summary, SCHEMA_VERSION};
use collect::Collector;
use event::{Event, Shared};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// Knobs of the analysis (typed, validated; the core never sees clap).
#[derive(Debug, Clone, Default)]
pub struct AnalyzeOptions {
    /// Known limits (`--limit 120/min`, `--limit api.example.com=120/min`).
    pub limit: crate::units::GivenLimits,
}

/// Read and analyse `paths` (one after another, each on the ingest worker threads), streaming.
/// Returns the report (its `inputs` say what was read from each, with their problems).
pub fn analyze_files(
    paths: &[String],
    ingest_opts: &ingest::Options,
    opts: &AnalyzeOptions,
    rec: &crate::recommend::Options,
) -> Report {
    let names: Vec<Arc<str>> = paths.iter().map(|p| Arc::from(p.as_str())).collect();
    let shared = Arc::new(Shared::default());
    let mut c = Collector::new(names, shared.clone());
    c.streaming = true;
    let mut summaries = Vec::with_capacity(paths.len());
    for (i, p) in paths.iter().enumerate() {
        let input = i.min(u16::MAX as usize) as u16;
        c.start_input(i);
        let map = |r: Request| event::map(r, input, &shared);
        let views = event::EventViews {
            input,
            shared: &shared,
        };
        let summary =
            ingest::stream_input_with(p, ingest_opts, &map, Some(&views), &mut |b| c.take(i, b));
        summaries.push(summary);
        // The last input's held events are let go while `finish` prepares (see there).
        if i + 1 < paths.len() {
            finish_input(&mut c, i, &mut summaries[i]);
        }
    }
    let last = paths.len().checked_sub(1);
    finish(c, summaries, last, opts, rec, &Attribute::Engine)
}

/// Input `i` is read: its held events go to its log, and its summary says what that met.
fn finish_input(c: &mut Collector, i: usize, summary: &mut InputSummary) {
    if let Err(e) = c.finish_input(i) {
        summary.error.get_or_insert(format!("temporary file: {e}"));
    }
    note_ordering(c, i, summary);
}

/// Warnings about time order and temporary files, added to an input's summary.
fn note_ordering(c: &Collector, i: usize, s: &mut InputSummary) {
    let Some(o) = c.orderers.get(i) else { return };
    let mut notes = Vec::new();
    if o.late_count > 0 {
        notes.push(format!(
            "{} records were more than {} records out of time order: they were sorted apart and merged back in time order",
            o.late_count,
            order::REORDER
        ));
    }
    if let Some(e) = &o.log.spill_error {
        notes.push(format!(
            "{e}; the analysis kept its events in memory instead"
        ));
    }
    for n in notes {
        s.warning_count += 1;
        if s.warnings.len() < ingest::KEPT_WARNINGS {
            s.warnings.push(crate::model::Warning {
                source: s.source.clone(),
                position: None,
                message: n,
            });
        }
    }
}

/// How rate-limited responses get their attribution.
enum Attribute {
    /// The attribution engine, against each host's baseline.
    Engine,
    /// The same, every row attributed on its own (tests: the verdict cache changes nothing).
    #[cfg_attr(not(test), allow(dead_code))]
    EngineUncached,
    /// Given (tests): by record location; anything else is unknown.
    Given(HashMap<(Arc<str>, Position), Attribution>),
}

/// Analyse records already in memory (sorted by time, as [`merge_inputs`] sorts them), with
/// the default recommendation knobs (and the `--limit` of `opts`).
pub fn analyze(inputs: Vec<InputSummary>, requests: &[Request], opts: &AnalyzeOptions) -> Report {
    let rec = crate::recommend::Options {
        limit: opts.limit.clone(),
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
    let c = collect_records(requests, None);
    finish(c, inputs, None, opts, rec, &Attribute::Engine)
}

/// Feed records (in memory) through the first stage; `given`: attributions by request index
/// (those requests, and every 429, count as rate-limited; tests).
fn collect_records(requests: &[Request], given: Option<&[(usize, Attribution)]>) -> Collector {
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

/// Everything the replays and the report need, from the first stage and attribution.
struct Prepared {
    rate_limited: Vec<RateLimited>,
    limits: Vec<Option<KnownLimit>>,
    hosts: Vec<String>,
    labels: Vec<String>,
    creds: Vec<String>,
    endpoints: Vec<String>,
    cred_host: Vec<u32>,
    remap: Vec<u32>,
    clients: ClientsSection,
    /// Hosts busiest rate-limited first (the summary's order).
    host_order: Vec<String>,
    /// Position in the report's rate-limited list, by row id.
    listed: Vec<Option<u32>>,
}

fn prepare(
    c: &mut Collector,
    attribute: &Attribute,
    given: &crate::units::GivenLimits,
) -> Prepared {
    c.rows
        .sort(|t_us, t_ns, loc| event::sample_key(t_us, t_ns, loc, &c.ranks));
    let hosts: Vec<String> = (0..c.hosts.len() as u32)
        .map(|h| c.host_name(h).to_string())
        .collect();
    // Baselines of the hosts that sent rate-limited responses.
    let mut baselines: HashMap<u32, Arc<Baseline>> = HashMap::new();
    let limited_hosts: std::collections::BTreeSet<u32> = c.rows.limited().map(|r| r.host).collect();
    for h in limited_hosts {
        let samples = c.baseline_samples(h);
        let refs: Vec<&Request> = samples.iter().map(|b| &**b).collect();
        baselines.insert(h, Arc::new(Baseline::build(&hosts[h as usize], &refs)));
    }
    let rate_limited = match attribute {
        Attribute::Engine | Attribute::EngineUncached => {
            let cached = matches!(attribute, Attribute::Engine);
            // One request in two layers' access logs: the inner layer's verdict decides.
            let joined = c.rows.joined_layers();
            let key = |row: u32, r: &Request, host: u32| {
                if !cached || joined.contains_key(&row) {
                    return None;
                }
                // The host first: its baseline is part of the evidence.
                let b = baselines.get(&host)?;
                let mut k = host.to_le_bytes().to_vec();
                k.extend_from_slice(&attribute::engine::evidence_key(r, b));
                Some(k)
            };
            let verdict = |row: u32, r: &Request, host: u32| match baselines.get(&host) {
                Some(b) => match joined.get(&row) {
                    Some((inner, inner_host)) => {
                        attribute::joined(r, inner, baselines.get(inner_host).unwrap_or(b))
                    }
                    None => attribute::engine::attribute_one(r, b),
                },
                None => Attribution::unknown(),
            };
            c.rows.attribute(&limited::Verdicts {
                key: &key,
                attribute: &verdict,
            })
        }
        Attribute::Given(given) => c.rows.attribute(&limited::Verdicts {
            key: &|_, _, _| None,
            attribute: &|_, r, _| {
                let key = (r.location.source.clone(), r.location.position);
                given
                    .get(&key)
                    .cloned()
                    .unwrap_or_else(Attribution::unknown)
            },
        }),
    };

    // Known limits per host.
    let mut from_attr: Vec<Option<BTreeMap<(u64, u64), usize>>> = vec![None; hosts.len()];
    for row in c.rows.limited() {
        if let Some(l) = row.facts.as_ref().and_then(|f| f.limits()) {
            let m = from_attr[row.host as usize].get_or_insert_with(BTreeMap::new);
            if let Some(p) = limit::pair(l) {
                *m.entry(p).or_insert(0) += 1;
            }
        }
    }
    let host_order: Vec<String> = summary(c, &hosts)
        .hosts
        .into_iter()
        .map(|h| h.host)
        .collect();
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
    let limits = limit::compute(&inputs, given, principal.as_deref());

    // Clients, numbered by first appearance.
    let remap = c.client_order();
    let mut by_final: Vec<u32> = vec![0; remap.len()];
    for (arrival, &f) in remap.iter().enumerate() {
        by_final[f as usize] = arrival as u32;
    }
    let labels = clients::labels(by_final.iter().map(|&a| c.clients.get(a)));
    let creds: Vec<String> = (0..c.creds.len() as u32)
        .map(|i| c.creds.get(i).cloned().unwrap_or_default())
        .collect();
    let endpoints: Vec<String> = (0..c.endpoints.len() as u32)
        .map(|i| c.endpoints.get(i).cloned().unwrap_or_default())
        .collect();
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
    let clients = clients::section(c.hints, counted);

    // The host each credential was used with most (ties: the first by name).
    let mut cred_host = vec![event::NONE; creds.len()];
    let mut best: Vec<(usize, &str)> = vec![(0, ""); creds.len()];
    for (&(cred, host), &n) in &c.cred_hosts {
        let name = hosts[host as usize].as_str();
        let b = &mut best[cred as usize];
        if cred_host[cred as usize] == event::NONE || n > b.0 || (n == b.0 && name < b.1) {
            *b = (n, name);
            cred_host[cred as usize] = host;
        }
    }
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

/// Detector i of [`crate::detect::detectors`] with its finish order, in slot i, where a lane
/// runs it.
type Slots = Vec<Option<(Box<dyn Detector>, usize)>>;

/// `ev` linked to the attempts before it by its host's linker (made on first sight), with that
/// linker; operations it closed go to `closed`. `None` for a request no link is made of.
#[allow(clippy::too_many_arguments)]
fn link_in<'l>(
    linkers: &'l mut BTreeMap<u32, Linker>,
    ev: &Event,
    seq: u64,
    table: &CadenceTable,
    coarse: bool,
    cx: &Cx,
    closed: &mut Vec<Logical>,
) -> Option<(Linked, &'l mut Linker)> {
    let linker = linkers
        .entry(ev.host)
        .or_insert_with(|| Linker::new(coarse));
    let wait = cx.wait_s(ev).unwrap_or(0.0);
    let link = linker.step(ev, seq, table.stretch(ev.op, seq), wait, closed)?;
    Some((link, linker))
}

/// One step of the replay, to every detector a lane runs.
fn step_all(detectors: &mut Slots, ev: &Event, seq: u64, link: &Linked, cx: &Cx) {
    let s = Step { ev, seq, link };
    for (d, _) in detectors.iter_mut().flatten() {
        d.step(&s, cx);
    }
}

/// One group of hosts, replayed on one thread.
struct Partition {
    /// Host ids of this group (their cadences; their detectors, unless `side`).
    mine: Vec<bool>,
    /// Host ids whose requests this lane hands to its detectors (`mine`; for the side lane,
    /// the biggest group's, when it runs some of that group's detectors).
    detect: Vec<bool>,
    cadences: BTreeMap<u32, Cadences>,
    table: CadenceTable,
    evidence: BTreeMap<u32, HostEvidence>,
    linkers: BTreeMap<u32, Linker>,
    /// Slot i holds detector i of [`crate::detect::detectors`] (with its finish order) when
    /// this lane runs it.
    detectors: Slots,
    polls: usize,
    findings: Vec<(usize, Placed)>,
    /// The overview (one group builds it for all hosts), and each group's next attempts.
    overview: Option<crate::overview::Builder>,
    /// The side group: no hosts of its own, it builds every host's evidence (made when there
    /// are fewer host groups than threads, so a one-host log replays on two), and runs the
    /// biggest group's detectors that read no links beside it, without linking.
    side: bool,
    next: crate::overview::NextAttempts,
    /// This lane finds the next attempts of its `detect` hosts' rate-limited responses (for
    /// a group shared with the side lane, the side lane does).
    next_here: bool,
    error: Option<String>,
}

impl Partition {
    fn has(&self, host: u32) -> bool {
        self.mine.get(host as usize).copied().unwrap_or(false)
    }
}

/// Share the detectors of one group between its lane and the side lane: those that read no
/// links ([`Detector::reads_links`]) go to the side lane, which then replays without linking;
/// each detector sees the same steps whichever lane runs it, so the split changes nothing but
/// the time. (Splitting by cost instead had the side lane link every request again.)
fn split_detectors(all: Vec<(Box<dyn Detector>, usize)>) -> [Slots; 2] {
    let mut lanes: [Slots; 2] = [Vec::new(), Vec::new()];
    for d in all {
        let lane = usize::from(!d.0.reads_links());
        lanes[lane].push(Some(d));
        lanes[1 - lane].push(None);
    }
    lanes
}

/// Replay every timed event of `c` in merged time order (client ids final), with each one's
/// place in that order.
fn replay(c: &Collector, remap: &[u32], f: &mut dyn FnMut(&Event, u64)) -> std::io::Result<()> {
    let logs = c.orderers.iter().flat_map(|o| o.sequences());
    let mut m = order::Merge::new(logs, &c.ranks)?;
    let mut seq = 0u64;
    while let Some(mut ev) = m.next_event()? {
        if let Some(&f2) = remap.get(ev.client as usize) {
            ev.client = f2;
        }
        f(&ev, seq);
        seq += 1;
    }
    Ok(())
}

/// The replays: cadences and evidence, then the detectors (and their second look).
/// `early`: the first pass (cadences, the overview's) made while the first stage wrote the
/// only log (see [`Collector::take_early`]); then no lane replays for it.
fn run_detectors(
    c: &Collector,
    p: &Prepared,
    coarse: bool,
    limit_option: Option<crate::units::Rate>,
    early: Option<order::Early>,
) -> Replayed {
    let n_hosts = p.hosts.len();
    let threads = rayon::current_num_threads().max(1);
    // Balance hosts over groups by their number of requests (largest first).
    let mut order: Vec<u32> = (0..n_hosts as u32).collect();
    order.sort_by_key(|&h| (std::cmp::Reverse(c.host_counts[h as usize].requests), h));
    let groups = threads.min(n_hosts.max(1));
    let mut load = vec![0usize; groups];
    let mut mine = vec![vec![false; n_hosts]; groups];
    for h in order {
        let g = (0..groups).min_by_key(|&g| (load[g], g)).unwrap_or(0);
        load[g] += c.host_counts[h as usize].requests;
        mine[g][h as usize] = true;
    }
    let group = |mine: Vec<bool>, side: bool| Partition {
        detect: mine.clone(),
        mine,
        cadences: BTreeMap::new(),
        table: CadenceTable::default(),
        evidence: BTreeMap::new(),
        linkers: BTreeMap::new(),
        detectors: if side {
            Vec::new()
        } else {
            crate::detect::detectors().into_iter().map(Some).collect()
        },
        polls: 0,
        findings: Vec::new(),
        overview: None,
        next: crate::overview::NextAttempts::new(),
        next_here: true,
        side,
        error: None,
    };
    let mut parts: Vec<Partition> = mine.into_iter().map(|m| group(m, false)).collect();
    let split = groups < threads;
    if split {
        let mut side = group(vec![false; n_hosts], true);
        // The side lane also runs the biggest group's detectors that read no links.
        if let Some(first) = parts.first_mut() {
            let [a, b] = split_detectors(
                std::mem::take(&mut first.detectors)
                    .into_iter()
                    .flatten()
                    .collect(),
            );
            first.detectors = a;
            side.detectors = b;
            side.detect = first.mine.clone();
            first.next_here = false;
        }
        parts.push(side);
    }
    // The overview is built by the first group or, when the biggest group is split over two
    // lanes, by the side lane (the primary links and runs most detectors).
    let builder = if split {
        parts.last_mut()
    } else {
        parts.first_mut()
    };
    if let Some(builder) = builder {
        builder.overview = Some(crate::overview::Builder::new(p.host_order.clone()));
    }
    let precomputed = early.is_some();
    if let Some(mut early) = early {
        for part in parts.iter_mut().filter(|part| !part.side) {
            for (h, _) in part.mine.iter().enumerate().filter(|(_, &m)| m) {
                if let Some(cd) = early.cadences.remove(&(h as u32)) {
                    part.cadences.insert(h as u32, cd);
                }
            }
        }
        if let Some(b) = parts.iter_mut().find_map(|part| part.overview.as_mut()) {
            early.overview.set_host_order(p.host_order.clone());
            *b = early.overview;
        }
    }
    let mut cx = cx_of(c, p, coarse, limit_option);
    let cx_ref = &cx;

    // Each lane runs its phases back to back, without waiting for the others: no lane reads
    // another's results (the side lane does not link, so it needs no cadences).
    parts.par_iter_mut().for_each(|part| {
        // 1. Cadences (and the overview's first pass), unless made as the only log was
        // written.
        if !precomputed {
            let mut starts = event::Starts::default();
            let r = replay(c, &p.remap, &mut |ev, seq| {
                if part.has(ev.host) {
                    part.cadences
                        .entry(ev.host)
                        .or_insert_with(Cadences::new)
                        .observe(ev, seq);
                }
                if let Some(b) = &mut part.overview {
                    if let Some(t) = starts.of(ev) {
                        b.first_pass(t, ev.limited());
                    }
                }
            });
            if let Err(e) = r {
                part.error = Some(e.to_string());
            }
        }
        let cad = std::mem::take(&mut part.cadences);
        part.table = CadenceTable::merged(cad.into_values().map(Cadences::finish));
        if let Some(b) = &mut part.overview {
            b.start_timeline();
        }

        // 2. The detectors, then (3) a second look for those that need one.
        let mut closed: Vec<Logical> = Vec::new();
        let Partition {
            detect,
            table,
            linkers,
            detectors,
            overview,
            next,
            next_here,
            evidence,
            error,
            side,
            ..
        } = part;
        let primary = !*side;
        // The side lane's detectors read no links (`Detector::reads_links`): they get each
        // request the linker would link (every timed one) with a placeholder.
        let unlinked = Linked {
            logical: 0,
            attempt: 0,
            prev: None,
        };
        let mut overview = overview.as_mut();
        let mut starts = event::Starts::default();
        let r = replay(c, &p.remap, &mut |ev, seq| {
            let here = detect.get(ev.host as usize).copied().unwrap_or(false);
            // The recommendation's evidence: the side lane's for every host, else each
            // group's for its own (none of the groups when one is split).
            let evidence_here = !primary || (!split && here);
            // The start as a date only where it is read: the overview, the evidence, the next
            // attempts.
            let t = if overview.is_some() || evidence_here || (here && *next_here) {
                starts.of(ev)
            } else {
                None
            };
            if let Some(b) = overview.as_deref_mut() {
                overview_second_pass(b, ev, t, cx_ref);
            }
            if evidence_here {
                evidence
                    .entry(ev.host)
                    .or_insert_with(|| HostEvidence::new(Some(p.hosts[ev.host as usize].clone())))
                    .observe(evidence::Seen {
                        started: t,
                        status: ev.status,
                        duration_ms: ev.duration_ms(),
                        limited: ev.limited(),
                    });
            }
            if !here {
                return;
            }
            if let (true, Some(t)) = (*next_here, t) {
                let listed = (ev.limited() && ev.detail != event::NONE)
                    .then(|| p.listed.get(ev.detail as usize).copied().flatten())
                    .flatten()
                    .map(|pos| pos as usize);
                next.observe(t, ev.op, listed);
            }
            if !primary {
                if ev.timed() {
                    step_all(detectors, ev, seq, &unlinked, cx_ref);
                }
                return;
            }
            let Some((link, linker)) =
                link_in(linkers, ev, seq, table, coarse, cx_ref, &mut closed)
            else {
                return;
            };
            step_all(detectors, ev, seq, &link, cx_ref);
            for l in closed.drain(..) {
                for (d, _) in detectors.iter_mut().flatten() {
                    d.closed(&l, cx_ref);
                }
                linker.recycle(l);
            }
        });
        if let Err(e) = r {
            error.get_or_insert(e.to_string());
        }
        for linker in linkers.values_mut() {
            linker.finish(&mut closed);
        }
        for l in closed.drain(..) {
            for (d, _) in detectors.iter_mut().flatten() {
                d.closed(&l, cx_ref);
            }
        }
        part.polls = linkers.values().map(|l| l.polls_after_failure).sum();
        linkers.clear();

        // 3. The second look.
        let wants: Vec<usize> = part
            .detectors
            .iter_mut()
            .enumerate()
            .filter_map(|(i, d)| {
                d.as_mut()
                    .is_some_and(|(d, _)| d.second_look(cx_ref))
                    .then_some(i)
            })
            .collect();
        if wants.is_empty() {
            return;
        }
        let Partition {
            detect,
            table,
            detectors,
            error,
            ..
        } = part;
        let mut linkers: BTreeMap<u32, Linker> = BTreeMap::new();
        let mut closed = Vec::new();
        let r = replay(c, &p.remap, &mut |ev, seq| {
            if !detect.get(ev.host as usize).copied().unwrap_or(false) {
                return;
            }
            let s = if primary {
                let Some((link, linker)) =
                    link_in(&mut linkers, ev, seq, table, coarse, cx_ref, &mut closed)
                else {
                    return;
                };
                // Handed back for reuse: a fresh attempt list per operation was a third of
                // this replay's linking.
                for l in closed.drain(..) {
                    linker.recycle(l);
                }
                link
            } else if ev.timed() {
                unlinked
            } else {
                return;
            };
            let s: Step = Step { ev, seq, link: &s };
            for &i in &wants {
                if let Some((d, _)) = &mut detectors[i] {
                    d.step_again(&s, cx_ref);
                }
            }
        });
        if let Err(e) = r {
            error.get_or_insert(e.to_string());
        }
    });

    // 4. Findings, in finish order (a detector may read those finished before it).
    cx.polls_after_failure = parts.iter().map(|p| p.polls).sum();
    // The side lane's detectors back with their group, which finishes them all in order.
    if split && parts.len() > 1 {
        let side = parts.len() - 1;
        let moved = std::mem::take(&mut parts[side].detectors);
        for (slot, d) in parts[0].detectors.iter_mut().zip(moved) {
            if d.is_some() {
                *slot = d;
            }
        }
    }
    let cx_ref = &cx;
    parts.par_iter_mut().for_each(|part| {
        let mut order: Vec<(usize, usize)> = part
            .detectors
            .iter()
            .enumerate()
            .filter_map(|(i, d)| d.as_ref().map(|(_, f)| (*f, i)))
            .collect();
        order.sort_unstable();
        let mut earlier: Vec<Finding> = Vec::new();
        for (_, i) in order {
            let Some((d, _)) = part.detectors[i].as_mut() else {
                continue;
            };
            let placed = d.finish(cx_ref, &earlier);
            earlier.extend(placed.iter().map(|(_, f)| f.clone()));
            part.findings.extend(placed.into_iter().map(|p| (i, p)));
        }
    });

    let error = parts.iter().find_map(|p| p.error.clone());
    let mut all: Vec<(usize, Placed)> = Vec::new();
    let mut evidence: BTreeMap<u32, HostEvidence> = BTreeMap::new();
    let mut next_attempt = vec![None; p.rate_limited.len()];
    let mut builder = None;
    for part in parts {
        all.extend(part.findings);
        evidence.extend(part.evidence);
        for (pos, t) in part.next.found {
            if let Some(slot) = next_attempt.get_mut(pos) {
                *slot = Some(t);
            }
        }
        if part.overview.is_some() {
            builder = part.overview;
        }
    }
    let creds: Vec<crate::overview::CredentialCount> = c
        .cred_counts
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let time = |t: Option<(i64, u16)>| {
                t.and_then(|(us, ns)| {
                    chrono::DateTime::from_timestamp_micros(us)
                        .map(|d| d + chrono::Duration::nanoseconds(ns as i64))
                })
            };
            crate::overview::CredentialCount {
                fingerprint: p.creds[i].clone(),
                requests: k.requests,
                rate_limited: k.rate_limited,
                clients: k.clients.len(),
                first: time(k.first),
                last: time(k.last),
                first_seen: k.first_key,
            }
        })
        .collect();
    let mut overview = builder.unwrap_or_default().finish(creds, next_attempt);
    // Each rate-limited response's client, in the list's order (rows attribution kept).
    // Whole (a label cuts a long user agent short), one shared copy per client.
    let mut whole: HashMap<u32, Arc<str>> = HashMap::new();
    overview.clients = c
        .rows
        .limited()
        .filter(|row| row.facts.is_some())
        .map(|row| {
            whole
                .entry(row.client)
                .or_insert_with(|| clients::whole_label(c.clients.get(row.client)).into())
                .clone()
        })
        .collect();
    // Report order, the same in every format: most severe first, then detector, then each
    // detector's own order.
    all.sort_by(|a, b| {
        (b.1 .1.severity.cmp(&a.1 .1.severity))
            .then(a.0.cmp(&b.0))
            .then_with(|| a.1 .0.cmp(&b.1 .0))
    });
    Replayed {
        findings: all.into_iter().map(|(_, (_, f))| f).collect(),
        evidence,
        overview,
        error,
    }
}

/// The overview's second pass over one event.
fn overview_second_pass(
    b: &mut crate::overview::Builder,
    ev: &Event,
    started: Option<chrono::DateTime<chrono::Utc>>,
    cx: &Cx,
) {
    let Some(t) = started else { return };
    let layer = ev
        .limited()
        .then(|| cx.facts(ev).map(|f| f.layer()))
        .flatten();
    b.second_pass(t, ev.host, cx.host(ev.host), layer, ev.duration_ms());
}

/// What the replays found.
struct Replayed {
    findings: Vec<Finding>,
    evidence: BTreeMap<u32, HostEvidence>,
    overview: crate::overview::Overview,
    #[allow(dead_code)]
    error: Option<String>,
}

/// From the first stage to the report: the report of everything collected. `unfinished`: an input whose held events have not
/// gone to its log yet ([`finish_input`]): that drain (up to [`order::REORDER`] events through
/// the first pass, one thread's work) runs beside [`prepare`], which reads none of it.
fn finish(
    mut c: Collector,
    inputs: Vec<InputSummary>,
    unfinished: Option<usize>,
    opts: &AnalyzeOptions,
    rec: &crate::recommend::Options,
    attribute: &Attribute,
) -> Report {
    let mut inputs = inputs;
    let p = match unfinished {
        Some(i) => {
            let mut orderers = std::mem::take(&mut c.orderers);
            let (p, drained) = rayon::join(
                || prepare(&mut c, attribute, &opts.limit),
                || orderers.get_mut(i).map_or(Ok(()), |o| o.finish()),
            );
            c.orderers = orderers;
            if let Some(s) = inputs.get_mut(i) {
                if let Err(e) = drained {
                    s.error.get_or_insert(format!("temporary file: {e}"));
                }
                note_ordering(&c, i, s);
            }
            p
        }
        None => prepare(&mut c, attribute, &opts.limit),
    };
    if let (Some(e), Some(first)) = (c.rows.spill_error(), inputs.first_mut()) {
        first.warning_count += 1;
        first.warnings.push(crate::model::Warning {
            source: first.source.clone(),
            position: None,
            message: e,
        });
    }
    let coarse = c.coarse_time();
    let early = c.take_early();
    let Replayed {
        mut findings,
        mut evidence,
        mut overview,
        ..
    } = run_detectors(&c, &p, coarse, opts.limit.any, early);
    crate::detect::nested_retries::apply_traces(&mut findings, &inputs);

    // What the recommendation reads: the timed requests (replayed), the untimed ones, and the
    // rate-limited responses in time order.
    for (h, ev) in std::mem::take(&mut c.untimed_evidence)
        .into_iter()
        .enumerate()
    {
        let h = h as u32;
        evidence
            .entry(h)
            .or_insert_with(|| HostEvidence::new(Some(p.hosts[h as usize].clone())))
            .merge(&ev);
    }
    for row in c.rows.limited() {
        let Some(f) = &row.facts else { continue };
        let e = evidence
            .entry(row.host)
            .or_insert_with(|| HostEvidence::new(Some(p.hosts[row.host as usize].clone())));
        e.limited.observe(evidence::Limited {
            time: row.started(),
            quota: f.quota(),
            limits: f.limits(),
            stated: f.stated.as_ref(),
            retry_after: &row.retry_after,
            caller: row.op,
            layer: f.layer(),
            vendor: f.vendor(),
            same_site: row.cors.as_deref().is_some_and(|c| c.same_site()),
        });
    }
    let mut summary = summary(&c, &p.hosts);
    summary.partial_inputs = inputs
        .iter()
        .filter(|i| i.incomplete.is_some())
        .map(|i| i.source.clone())
        .collect();
    let (hosts, all) = ranked(evidence.into_values().collect());
    let limited = planned_hosts(&hosts, rec);
    let recommendations = crate::recommend::recommend_all(&limited, &all, &findings, rec);
    let mut rate_limited = p.rate_limited;
    for (r, client) in rate_limited
        .iter_mut()
        .zip(std::mem::take(&mut overview.clients))
    {
        r.client = Some(client);
    }
    Report {
        schema_version: SCHEMA_VERSION,
        generated_by: format!("toomany {}", env!("CARGO_PKG_VERSION")),
        summary,
        inputs,
        rate_limited,
        findings,
        clients: p.clients,
        recommendation: recommendations.first().cloned(),
        recommendations,
        overview,
    }
}

/// The hosts that get a plan, the principal one first: every rate-limited host (busiest
/// first) and every host a `--limit HOST=RATE` names; with `--host`, that host alone.
fn planned_hosts<'a>(
    hosts: &'a [HostEvidence],
    rec: &crate::recommend::Options,
) -> Vec<&'a HostEvidence> {
    fn name(h: &HostEvidence) -> &str {
        h.host.as_deref().unwrap_or("")
    }
    if let Some(only) = &rec.host {
        return hosts
            .iter()
            .filter(|h| name(h).eq_ignore_ascii_case(only))
            .collect();
    }
    let mut out: Vec<&HostEvidence> = hosts.iter().filter(|h| h.rate_limited > 0).collect();
    out.extend(
        hosts
            .iter()
            .filter(|h| h.rate_limited == 0 && rec.limit.named(name(h)).is_some()),
    );
    out
}

fn summary(c: &Collector, hosts: &[String]) -> Summary {
    let by_status: BTreeMap<String, usize> =
        c.statuses().map(|(s, n)| (s.to_string(), n)).collect();
    let mut list: Vec<HostCount> = c
        .host_counts
        .iter()
        .enumerate()
        .filter(|(_, h)| h.requests > 0)
        .map(|(i, h)| HostCount {
            host: hosts[i].clone(),
            requests: h.requests,
            rate_limited: h.rate_limited,
        })
        .collect();
    list.sort_by(|a, b| {
        b.rate_limited
            .cmp(&a.rate_limited)
            .then(b.requests.cmp(&a.requests))
            .then(a.host.cmp(&b.host))
    });
    Summary {
        requests: c.requests,
        by_status,
        rate_limited: c.host_counts.iter().map(|h| h.rate_limited).sum(),
        first: c.first.and_then(|e| e.started()),
        last: c.last.and_then(|e| e.started()),
        hosts: list,
        partial_inputs: Vec::new(),
    }
}

/// All requests of all inputs, in time order (records without a time keep input order, last).
pub fn merge_inputs(inputs: Vec<ingest::Ingested>) -> (Vec<InputSummary>, Vec<Request>) {
    let mut summaries = Vec::with_capacity(inputs.len());
    let total: usize = inputs.iter().map(|i| i.requests.len()).sum();
    let mut all: Vec<Request> = Vec::with_capacity(total);
    for i in inputs {
        summaries.push(i.summary);
        all.extend(i.requests);
    }
    all.sort_by(|a, b| {
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

// ---- the engine on records in memory (tests, library callers) ----

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

fn cx_of<'a>(
    c: &'a Collector,
    p: &'a Prepared,
    coarse: bool,
    limit_option: Option<crate::units::Rate>,
) -> Cx<'a> {
    Cx {
        coarse_time: coarse,
        limit_option,
        limits: &p.limits,
        hosts: &p.hosts,
        clients: &p.labels,
        creds: &p.creds,
        endpoints: &p.endpoints,
        sources: &c.names,
        rows: &c.rows.rows,
        cred_host: &p.cred_host,
        polls_after_failure: 0,
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
    rate_limited: &[RateLimited],
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

/// Hosts most rate-limited first (then busiest, then by name), and their sum: the order and
/// the whole-capture evidence the recommendation reads, one rule for both callers.
fn ranked(mut hosts: Vec<HostEvidence>) -> (Vec<HostEvidence>, HostEvidence) {
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
