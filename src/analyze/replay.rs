//! Step 4 of the analysis: the replays of the time-ordered events, per group of hosts on the
//! thread pool, each lane on its own (see the module above).

use super::collect::Collector;
use super::event::{self, Event};
use super::order;
use super::prepare::Prepared;
use crate::detect::link::{CadenceTable, Cadences, Linked, Linker, Logical};
use crate::detect::{Cx, Detector, Finding, Placed, Step};
use crate::recommend::evidence::{self, HostEvidence};
use rayon::prelude::*;
use std::collections::BTreeMap;

/// Detector i of [`crate::detect::detectors`] with its finish order, in slot i, where a lane
/// runs it.
pub(super) type Slots = Vec<Option<(Box<dyn Detector>, usize)>>;

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

/// Operations that ended, to every detector a lane runs.
fn close_all(detectors: &mut Slots, closed: &[Logical], cx: &Cx) {
    for l in closed {
        for (d, _) in detectors.iter_mut().flatten() {
            d.closed(l, cx);
        }
    }
}

/// The side lane's detectors read no links ([`Detector::reads_links`]): they get each request
/// the linker would link (every timed one) with this placeholder.
fn unlinked() -> Linked {
    Linked {
        logical: 0,
        attempt: 0,
        prev: None,
    }
}

/// One group of hosts, replayed on one thread.
pub(super) struct Partition {
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
    /// A lane for the hosts of `mine`: every detector, unless it is the side lane.
    fn new(mine: Vec<bool>, side: bool) -> Self {
        Partition {
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
        }
    }

    fn has(&self, host: u32) -> bool {
        self.mine.get(host as usize).copied().unwrap_or(false)
    }
}

/// Share the detectors of one group between its lane and the side lane: those that read no
/// links ([`Detector::reads_links`]) go to the side lane, which then replays without linking;
/// each detector sees the same steps whichever lane runs it, so the split changes nothing but
/// the time. (Splitting by cost instead had the side lane link every request again.)
pub(super) fn split_detectors(all: Vec<(Box<dyn Detector>, usize)>) -> [Slots; 2] {
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
pub(super) fn replay(
    c: &Collector,
    remap: &[u32],
    f: &mut dyn FnMut(&Event, u64),
) -> std::io::Result<()> {
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

/// What every lane reads alike.
#[derive(Clone, Copy)]
struct Run<'a> {
    c: &'a Collector,
    p: &'a Prepared,
    cx: &'a Cx<'a>,
    coarse: bool,
    /// The biggest group is shared with a side lane.
    split: bool,
}

/// The replays: cadences and evidence, then the detectors (and their second look).
/// `early`: the overview's first pass made while the first stage wrote the only log (see
/// [`Collector::take_early`]); then no lane makes it again.
pub(super) fn run_detectors(
    c: &Collector,
    p: &Prepared,
    coarse: bool,
    limit_option: Option<crate::units::Rate>,
    early: Option<order::Early>,
) -> Replayed {
    let threads = rayon::current_num_threads().max(1);
    let (mut parts, split) = partitions(c, p, threads);
    let precomputed = early.is_some();
    if let Some(early) = early {
        seed_early(&mut parts, early, p);
    }
    let mut cx = cx_of(c, p, coarse, limit_option);
    let run = Run {
        c,
        p,
        cx: &cx,
        coarse,
        split,
    };
    // Each lane runs its phases back to back, without waiting for the others: no lane reads
    // another's results (the side lane does not link, so it needs no cadences).
    parts.par_iter_mut().for_each(|part| {
        // 1. Cadences (and the overview's first pass, unless made as the only log was
        // written). A lane without hosts of its own and without the overview has none to make.
        let cadences = !c.failed_ops.is_empty() && part.mine.iter().any(|&m| m);
        if cadences || (!precomputed && part.overview.is_some()) {
            first_pass(part, c, &p.remap, precomputed);
        }
        let cad = std::mem::take(&mut part.cadences);
        part.table = CadenceTable::merged(cad.into_values().map(Cadences::finish));
        if let Some(b) = &mut part.overview {
            b.start_timeline();
        }
        // 2. The detectors, then (3) a second look for those that need one.
        detect_pass(part, run);
        second_look(part, run);
    });

    // 4. Findings, in finish order (a detector may read those finished before it).
    cx.polls_after_failure = parts.iter().map(|p| p.polls).sum();
    if split {
        rejoin_side(&mut parts);
    }
    let cx_ref = &cx;
    parts
        .par_iter_mut()
        .for_each(|part| finish_detectors(part, cx_ref));
    gather(parts, c, p)
}

/// The lanes: hosts balanced over groups by their number of requests (largest first), one
/// group per thread at most; with fewer groups than threads, a side lane beside the biggest
/// group (true when there is one). The overview is built by the first group or, when the
/// biggest group is split over two lanes, by the side lane (the primary links and runs most
/// detectors).
fn partitions(c: &Collector, p: &Prepared, threads: usize) -> (Vec<Partition>, bool) {
    let n_hosts = p.hosts.len();
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
    let mut parts: Vec<Partition> = mine.into_iter().map(|m| Partition::new(m, false)).collect();
    let split = groups < threads;
    if split {
        let mut side = Partition::new(vec![false; n_hosts], true);
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
    let builder = if split {
        parts.last_mut()
    } else {
        parts.first_mut()
    };
    if let Some(builder) = builder {
        builder.overview = Some(crate::overview::Builder::new(p.host_order.clone()));
    }
    (parts, split)
}

/// The overview's first pass made while the only log was written, to the lane that builds
/// the overview.
fn seed_early(parts: &mut [Partition], mut early: order::Early, p: &Prepared) {
    if let Some(b) = parts.iter_mut().find_map(|part| part.overview.as_mut()) {
        early.overview.set_host_order(p.host_order.clone());
        *b = early.overview;
    }
}

/// Step 1: each operation's cadence for the lane's own hosts, and the overview's first pass
/// (unless `overview_made`).
///
/// Only the operations that failed at least once are observed ([`Collector::failed_ops`]):
/// the table records no other key (a key that never fails has no cadence to look up), and
/// each key's record reads only its own requests, so the table is the one every key would
/// give. Memory then follows the failing operations, not the records: a log whose URLs carry
/// unique ids (cursors, request ids) made one key a record, held for the six hours a key
/// lives (docs/decisions.md).
fn first_pass(part: &mut Partition, c: &Collector, remap: &[u32], overview_made: bool) {
    let mut starts = event::Starts::default();
    let failed = &c.failed_ops;
    let r = replay(c, remap, &mut |ev, seq| {
        if part.has(ev.host) && failed.contains(&ev.op) {
            part.cadences.entry(ev.host).or_default().observe(ev, seq);
        }
        if let Some(b) = part.overview.as_mut().filter(|_| !overview_made) {
            if let Some(t) = starts.of(ev) {
                b.first_pass(t, ev.limited());
            }
        }
    });
    if let Err(e) = r {
        part.error = Some(e.to_string());
    }
}

/// Step 2: the detectors over the lane's requests (linked, on a primary lane), with the
/// recommendation's evidence, the overview's second pass and the next attempts beside them;
/// then every operation still open is closed.
fn detect_pass(part: &mut Partition, run: Run) {
    let Run {
        c, p, cx, coarse, ..
    } = run;
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
    let unlinked = unlinked();
    let mut overview = overview.as_mut();
    let mut starts = event::Starts::default();
    let r = replay(c, &p.remap, &mut |ev, seq| {
        let here = detect.get(ev.host as usize).copied().unwrap_or(false);
        // The recommendation's evidence: the side lane's for every host, else each
        // group's for its own (none of the groups when one is split).
        let evidence_here = !primary || (!run.split && here);
        // The start as a date only where it is read: the overview, the evidence, the next
        // attempts.
        let t = if overview.is_some() || evidence_here || (here && *next_here) {
            starts.of(ev)
        } else {
            None
        };
        if let Some(b) = overview.as_deref_mut() {
            overview_second_pass(b, ev, t, cx);
        }
        if evidence_here {
            observe_evidence(evidence, p, ev, t);
        }
        if !here {
            return;
        }
        if let (true, Some(t)) = (*next_here, t) {
            observe_next(next, p, ev, t);
        }
        if !primary {
            if ev.timed() {
                step_all(detectors, ev, seq, &unlinked, cx);
            }
            return;
        }
        let Some((link, linker)) = link_in(linkers, ev, seq, table, coarse, cx, &mut closed) else {
            return;
        };
        step_all(detectors, ev, seq, &link, cx);
        close_all(detectors, &closed, cx);
        for l in closed.drain(..) {
            linker.recycle(l);
        }
    });
    if let Err(e) = r {
        error.get_or_insert(e.to_string());
    }
    for linker in linkers.values_mut() {
        linker.finish(&mut closed);
    }
    close_all(detectors, &closed, cx);
    part.polls = part.linkers.values().map(|l| l.polls_after_failure).sum();
    part.linkers.clear();
}

/// One request seen by the recommendation's evidence of its host.
fn observe_evidence(
    evidence: &mut BTreeMap<u32, HostEvidence>,
    p: &Prepared,
    ev: &Event,
    t: Option<chrono::DateTime<chrono::Utc>>,
) {
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

/// One request as the next attempt of its operation (and, when it is a listed rate-limited
/// response, waiting for its own).
fn observe_next(
    next: &mut crate::overview::NextAttempts,
    p: &Prepared,
    ev: &Event,
    t: chrono::DateTime<chrono::Utc>,
) {
    let listed = (ev.limited() && ev.detail != event::NONE)
        .then(|| p.listed.get(ev.detail as usize).copied().flatten())
        .flatten()
        .map(|pos| pos as usize);
    next.observe(t, ev.op, listed);
}

/// Step 3: the second look, for the lane's detectors that ask for one: the same steps again
/// (linked afresh on a primary lane).
fn second_look(part: &mut Partition, run: Run) {
    let Run {
        c, p, cx, coarse, ..
    } = run;
    let wants: Vec<usize> = part
        .detectors
        .iter_mut()
        .enumerate()
        .filter_map(|(i, d)| {
            d.as_mut()
                .is_some_and(|(d, _)| d.second_look(cx))
                .then_some(i)
        })
        .collect();
    if wants.is_empty() {
        return;
    }
    let primary = !part.side;
    let unlinked = unlinked();
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
                link_in(&mut linkers, ev, seq, table, coarse, cx, &mut closed)
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
                d.step_again(&s, cx);
            }
        }
    });
    if let Err(e) = r {
        error.get_or_insert(e.to_string());
    }
}

/// The side lane's detectors back with their group (the first), which finishes them all in
/// order.
fn rejoin_side(parts: &mut [Partition]) {
    if parts.len() < 2 {
        return;
    }
    let side = parts.len() - 1;
    let moved = std::mem::take(&mut parts[side].detectors);
    for (slot, d) in parts[0].detectors.iter_mut().zip(moved) {
        if d.is_some() {
            *slot = d;
        }
    }
}

/// A lane's detectors finished in finish order, each reading the findings of those before it.
fn finish_detectors(part: &mut Partition, cx: &Cx) {
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
        let placed = d.finish(cx, &earlier);
        earlier.extend(placed.iter().map(|(_, f)| f.clone()));
        part.findings.extend(placed.into_iter().map(|p| (i, p)));
    }
}

/// The lanes' results as one: findings in report order, every host's evidence, the overview.
fn gather(parts: Vec<Partition>, c: &Collector, p: &Prepared) -> Replayed {
    let error = parts.iter().find_map(|p| p.error.clone());
    let mut all: Vec<(usize, Placed)> = Vec::new();
    let mut evidence: BTreeMap<u32, HostEvidence> = BTreeMap::new();
    let mut next_attempt = Vec::new();
    let mut builder = None;
    for part in parts {
        all.extend(part.findings);
        evidence.extend(part.evidence);
        next_attempt.extend(part.next.found);
        if part.overview.is_some() {
            builder = part.overview;
        }
    }
    let overview = builder.unwrap_or_default().finish(credential_counts(c, p));
    // Stable: of two found for one row, the later part's stands.
    next_attempt.sort_by_key(|&(pos, _)| pos);
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
        next_attempt,
        error,
    }
}

/// The overview's line per credential.
fn credential_counts(c: &Collector, p: &Prepared) -> Vec<crate::overview::CredentialCount> {
    let time = |t: Option<(i64, u16)>| {
        t.and_then(|(us, ns)| {
            chrono::DateTime::from_timestamp_micros(us)
                .map(|d| d + chrono::Duration::nanoseconds(ns as i64))
        })
    };
    c.cred_counts
        .iter()
        .enumerate()
        .map(|(i, k)| crate::overview::CredentialCount {
            fingerprint: p.creds[i].clone(),
            requests: k.requests,
            rate_limited: k.rate_limited,
            clients: k.clients.len(),
            first: time(k.first),
            last: time(k.last),
            first_seen: k.first_key,
        })
        .collect()
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
pub(super) struct Replayed {
    pub(super) findings: Vec<Finding>,
    pub(super) evidence: BTreeMap<u32, HostEvidence>,
    pub(super) overview: crate::overview::Overview,
    /// Rate-limited responses' next attempts: (position in the report's list, start), by
    /// position.
    pub(super) next_attempt: Vec<(usize, chrono::DateTime<chrono::Utc>)>,
    #[allow(dead_code)]
    pub(super) error: Option<String>,
}

/// The facts of the whole input every detector reads.
pub(super) fn cx_of<'a>(
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
