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
pub mod join;
pub mod limited;
pub mod live;
pub mod order;
mod prepare;
mod records;
mod replay;
#[cfg(test)]
mod tests;

pub use records::{
    detect_records, identify_clients, known_limits, link_records, recommend_evidence,
};

use crate::attribute::Attribution;
use crate::ingest;
use crate::model::{Position, Request};
use crate::recommend::evidence::{self, HostEvidence};
use crate::report::{HostCount, InputSummary, RateLimitedRows, Report, Summary, SCHEMA_VERSION};
use collect::Collector;
use event::Shared;
use prepare::{prepare, Prepared};
use records::collect_joined;
#[cfg(test)]
use records::collect_records;
use replay::{run_detectors, Replayed};
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
    c.enable_join(true);
    let joining = paths.len() > 1;
    if joining {
        shared.set_joining();
    }
    // The join tells layers apart by their inputs' formats, known before their records.
    let format: Arc<std::sync::Mutex<Option<ingest::Format>>> = Arc::default();
    let told = format.clone();
    let ingest_opts = &ingest::Options {
        on_format: Some(Arc::new(move |_: &str, f| {
            if let Ok(mut slot) = told.lock() {
                *slot = Some(f);
            }
        })),
        request_ids: joining,
        ..ingest_opts.clone()
    };
    let mut summaries = Vec::with_capacity(paths.len());
    for (i, p) in paths.iter().enumerate() {
        let input = i.min(u16::MAX as usize) as u16;
        c.start_input(i);
        let map = |r: Request| event::map(r, input, &shared);
        let views = event::EventViews {
            input,
            shared: &shared,
        };
        let summary = ingest::stream_input_with(p, ingest_opts, &map, Some(&views), &mut |b| {
            if let Some(f) = format.lock().ok().and_then(|mut f| f.take()) {
                c.set_format(i, f.as_str());
            }
            c.take(i, b)
        });
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
    if let Some(j) = c.join.as_ref().and_then(|j| j.counts.get(i).copied()) {
        if let Some(other) = j.with {
            notes.push(joined_note(&j, &c.names[other as usize]));
        }
        if let Some(like) = j.like.filter(|_| counted_twice(&j, s.records)) {
            let note = counted_twice_note(&j, s, &c.names[like as usize]);
            notes.push(format!("counted twice? {note}"));
            s.counted_twice = Some(note);
        }
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

/// What an input's records joined to another input's are ([`join`]).
fn joined_note(j: &join::Counts, other: &str) -> String {
    let (by_id, by_match) = (j.by_id, j.by_match);
    let n = by_id + by_match;
    let within = match j.within_second {
        0 => format!("within {} ms", join::TOLERANCE_US / 1000),
        _ => format!(
            "within {} ms, or within the second where a time is known to the second only",
            join::TOLERANCE_US / 1000
        ),
    };
    let how = match (by_id, by_match) {
        (_, 0) => "the same request id".to_string(),
        (0, _) => format!("the same host, method, path and status {within}, at another layer"),
        _ => format!("{by_id} by request id, {by_match} by host, method, path and status {within}"),
    };
    let (records, are) = if n == 1 {
        ("record is a request", "it is")
    } else {
        ("records are requests", "each is")
    };
    format!(
        "{n} {records} already read from {other} ({how}): {are} counted once, the record kept as evidence of who answered"
    )
}

/// Whether an input's look-alikes ([`join::Counts::look_alike`]) are enough to say that the
/// input may be another layer's log of the same requests: at least half its records (and 10).
fn counted_twice(j: &join::Counts, records: usize) -> bool {
    j.look_alike >= 10 && j.look_alike * 2 >= records
}

/// What the report says of an input whose records look like another's but were not joined:
/// what was seen, why they were not joined, and how to join them.
fn counted_twice_note(j: &join::Counts, s: &InputSummary, other: &str) -> String {
    let format = s.format.as_deref().unwrap_or("unknown");
    format!(
        "{} of {} records of {} look like requests of {other} (same host, method, path and status at the same time) but were not joined: both are {format} logs, taken for two replicas. If they are two layers' logs of the same requests, every count and rate here is doubled: log a request id in both (nginx `$request_id`, Envoy `%REQ(X-REQUEST-ID)%`) and pass a custom format with --log-format",
        j.look_alike, s.records, s.source,
    )
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
    let c = collect_joined(requests, None, Some(&inputs));
    finish(c, inputs, None, opts, rec, &Attribute::Engine)
}

/// From the first stage to the report: the report of everything collected. `unfinished`: an
/// input whose held events have not gone to its log yet ([`finish_input`]): that drain (up to
/// [`order::REORDER`] events through the first pass, one thread's work) runs beside
/// [`prepare`], which reads none of it.
fn finish(
    mut c: Collector,
    inputs: Vec<InputSummary>,
    unfinished: Option<usize>,
    opts: &AnalyzeOptions,
    rec: &crate::recommend::Options,
    attribute: &Attribute,
) -> Report {
    let mut inputs = inputs;
    let mut p = prepare_beside_drain(&mut c, &mut inputs, unfinished, attribute, &opts.limit);
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
        overview,
        next_attempt,
        ..
    } = run_detectors(&c, &p, coarse, opts.limit.any, early);
    crate::detect::nested_retries::apply_traces(&mut findings, &inputs);
    add_evidence(&mut c, &p, &mut evidence);
    let mut summary = summary(&c, &p.hosts);
    summary.partial_inputs = inputs
        .iter()
        .filter(|i| i.incomplete.is_some())
        .map(|i| i.source.clone())
        .collect();
    let (hosts, all) = ranked(evidence.into_values().collect());
    let limited = planned_hosts(&hosts, rec);
    let recommendations = crate::recommend::recommend_all(&limited, &all, &findings, rec);
    let rate_limited = with_clients_and_retries(&c, &mut p, next_attempt);
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

/// [`prepare`], with the unfinished input's drain (if any) beside it; what the drain met goes
/// to that input's summary.
fn prepare_beside_drain(
    c: &mut Collector,
    inputs: &mut [InputSummary],
    unfinished: Option<usize>,
    attribute: &Attribute,
    given: &crate::units::GivenLimits,
) -> Prepared {
    let Some(i) = unfinished else {
        return prepare(c, attribute, given);
    };
    let mut orderers = std::mem::take(&mut c.orderers);
    let (p, drained) = rayon::join(
        || prepare(c, attribute, given),
        || orderers.get_mut(i).map_or(Ok(()), |o| o.finish()),
    );
    c.orderers = orderers;
    if let Some(s) = inputs.get_mut(i) {
        if let Err(e) = drained {
            s.error.get_or_insert(format!("temporary file: {e}"));
        }
        note_ordering(c, i, s);
    }
    p
}

/// What the recommendation reads besides the replayed (timed) requests: the untimed ones, and
/// the rate-limited responses in time order.
fn add_evidence(c: &mut Collector, p: &Prepared, evidence: &mut BTreeMap<u32, HostEvidence>) {
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
}

/// The report's rate-limited rows with each one's client (rows attribution kept, in the list's
/// order) and next attempt, read and written once more.
fn with_clients_and_retries(
    c: &Collector,
    p: &mut Prepared,
    next_attempt: Vec<(usize, chrono::DateTime<chrono::Utc>)>,
) -> RateLimitedRows {
    // Whole (a label cuts a long user agent short), one shared copy per client.
    let mut whole: HashMap<u32, Arc<str>> = HashMap::new();
    let mut clients = c
        .rows
        .limited()
        .filter(|row| row.facts.is_some())
        .map(|row| {
            whole
                .entry(row.client)
                .or_insert_with(|| {
                    crate::detect::clients::whole_label(c.clients.get(row.client)).into()
                })
                .clone()
        });
    let mut next = next_attempt.into_iter().peekable();
    std::mem::take(&mut p.rate_limited).map(|i, r| {
        r.client = clients.next();
        while let Some(&(pos, t)) = next.peek() {
            if pos > i {
                break;
            }
            if pos == i {
                r.next_attempt = Some(t);
            }
            next.next();
        }
    })
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
