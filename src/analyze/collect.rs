//! The first stage after ingestion: every mapped request passes here once, in input order, on
//! the calling thread. It interns the keys, keeps the counters that do not depend on order
//! (summary, clients, stated limits, credentials per host), keeps the full record of each
//! rate-limited response and the attribution baseline's samples, and puts the events in time
//! order ([`Orderer`]) for the replays that follow.
//!
//! Memory: a few entries per distinct host, client, credential and endpoint, one row per
//! rate-limited response, at most [`BASELINE_MAX`] samples per host, and the reorder buffers.

use super::event::{
    flag, is_failure, ClientKey, Event, Join, Kept, Keys, Mapped, Names, SampleKey, Shared, NONE,
};
use super::join::{Joiner, Probe};
use super::limited::Rows;
use super::order::{Key, Orderer};
use crate::attribute::engine::BASELINE_MAX;
use crate::model::Request;
use crate::recommend::evidence::{self, HostEvidence};
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap};
use std::sync::Arc;

type Map<K, V> = HashMap<K, V, foldhash::fast::FixedState>;

/// Hash → dense id, numbered in order of first arrival, with the strings behind them.
#[derive(Debug)]
pub struct Interner<T> {
    ids: Map<u64, u32>,
    pub names: Vec<Option<T>>,
}

impl<T> Default for Interner<T> {
    fn default() -> Self {
        Interner {
            ids: Map::default(),
            names: Vec::new(),
        }
    }
}

impl<T> Interner<T> {
    pub fn id(&mut self, h: u64) -> u32 {
        if h == 0 {
            return NONE;
        }
        let next = self.names.len() as u32;
        let id = *self.ids.entry(h).or_insert(next);
        if id == next {
            self.names.push(None);
        }
        id
    }

    pub fn name(&mut self, id: u32, name: Option<T>) {
        if let (Some(n), Some(slot)) = (name, self.names.get_mut(id as usize)) {
            if slot.is_none() {
                *slot = Some(n);
            }
        }
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// The id of a hash already interned.
    pub fn lookup(&self, h: u64) -> Option<u32> {
        self.ids.get(&h).copied()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    pub fn get(&self, id: u32) -> Option<&T> {
        self.names.get(id as usize).and_then(Option::as_ref)
    }
}

/// Per host, in id order.
#[derive(Debug, Clone, Default)]
pub struct HostCounts {
    pub requests: usize,
    pub rate_limited: usize,
    /// Rate-limit headers seen on any response: (limit × 1000, window × 1000) → responses.
    pub header_limits: BTreeMap<(u64, u64), usize>,
}

/// Per client, in (arrival) id order.
#[derive(Debug, Clone, Default)]
pub struct ClientCounts {
    pub requests: usize,
    pub rate_limited: usize,
    pub creds: BTreeSet<u32>,
    /// The credential last added to `creds` (a client sends one key line after line: one
    /// compare instead of a B-tree search per record).
    pub last_cred: Option<u32>,
    pub first: Option<Event>,
    pub last: Option<Event>,
    /// Where the client first appears in the merged order: timed requests by time, then the
    /// untimed ones by input and position.
    pub first_key: (bool, Key),
}

/// Per credential, in id order (for the overview's top talkers).
#[derive(Debug, Clone, Default)]
pub struct CredCounts {
    pub requests: usize,
    pub rate_limited: usize,
    /// Distinct clients (at most [`crate::overview::CLIENTS_COUNTED`]).
    pub clients: std::collections::HashSet<u32, foldhash::fast::FixedState>,
    pub first: Option<(i64, u16)>,
    pub last: Option<(i64, u16)>,
    pub first_key: (bool, Key),
}

/// A success kept for the attribution baseline, ordered by its place in time.
struct Sample {
    key: SampleKey,
    req: Box<Request>,
}

impl PartialEq for Sample {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl Eq for Sample {}
impl PartialOrd for Sample {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Sample {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.key.cmp(&o.key)
    }
}

/// What [`Collector::one`] does with a record: nothing (another input's record of the same
/// request was counted), or count it, with the probe to keep it by for the join.
enum Joining {
    Joined,
    Counted(Option<Probe>),
}

/// The first stage's state (see the module doc).
pub struct Collector {
    pub shared: Arc<Shared>,
    pub names: Vec<Arc<str>>,
    pub ranks: Vec<u16>,
    pub hosts: Interner<String>,
    pub host_hash: Vec<u64>,
    pub clients: Interner<ClientKey>,
    pub creds: Interner<String>,
    pub endpoints: Interner<String>,
    pub host_counts: Vec<HostCounts>,
    pub client_counts: Vec<ClientCounts>,
    /// Records per status code, indexed by the code (a counter per index, where a B-tree
    /// entry per record was a search per record); see [`Collector::statuses`].
    pub by_status: Vec<usize>,
    pub requests: usize,
    pub first: Option<Event>,
    pub last: Option<Event>,
    /// Timed requests, and whether all of them had whole-second times.
    pub timed: usize,
    pub all_whole_seconds: bool,
    /// Client hints the input had at all (`flag::HINT_*`).
    pub hints: u16,
    pub cred_counts: Vec<CredCounts>,
    /// Timed requests per (credential, host). (Read in any order: ties go by host name.)
    pub cred_hosts: Map<(u32, u32), usize>,
    pub rows: Rows,
    /// The earliest successes per host (a max-heap: the latest is dropped first).
    samples: Vec<BinaryHeap<Sample>>,
    pub orderers: Vec<Orderer>,
    /// Requests without a time.
    pub untimed: usize,
    /// Reading in parallel (workers may stop sending baseline samples); off for records
    /// already in memory.
    pub streaming: bool,
    /// What the recommendation reads from the untimed requests, per host (the timed ones are
    /// read in time order later).
    pub untimed_evidence: Vec<HostEvidence>,
    /// One request seen at two layers is counted once ([`super::join`]); `None`: no join
    /// (one input, or following).
    pub join: Option<Joiner>,
    /// Records of inputs numbered below this are kept for the join (inputs read one after
    /// another: every one but the last).
    join_keep_below: usize,
    /// Operation keys of the timed failures: the only keys whose cadence the first replay
    /// records (see [`crate::detect::link::Cadences::observe`]), so it holds only these.
    pub failed_ops: std::collections::HashSet<u64, foldhash::fast::FixedState>,
    reorder: usize,
}

impl Collector {
    /// `names`: the inputs, as the user gave them.
    pub fn new(names: Vec<Arc<str>>, shared: Arc<Shared>) -> Collector {
        Collector::with_reorder(names, shared, super::order::REORDER)
    }

    pub fn with_reorder(names: Vec<Arc<str>>, shared: Arc<Shared>, reorder: usize) -> Collector {
        let plain: Vec<&str> = names.iter().map(|n| &**n).collect();
        let ranks = super::order::ranks(&plain);
        shared.set_ranks(ranks.clone());
        Collector {
            shared,
            ranks,
            names,
            hosts: Interner::default(),
            host_hash: Vec::new(),
            clients: Interner::default(),
            creds: Interner::default(),
            endpoints: Interner::default(),
            host_counts: Vec::new(),
            client_counts: Vec::new(),
            by_status: Vec::new(),
            requests: 0,
            first: None,
            last: None,
            timed: 0,
            all_whole_seconds: true,
            hints: 0,
            cred_hosts: Map::default(),
            cred_counts: Vec::new(),
            rows: Rows::default(),
            samples: Vec::new(),
            orderers: Vec::new(),
            untimed: 0,
            streaming: false,
            untimed_evidence: Vec::new(),
            join: None,
            join_keep_below: 0,
            failed_ops: Default::default(),
            reorder,
        }
    }

    /// Join records of one request from several inputs ([`super::join`]). `sequential`:
    /// inputs are read one after another (the last one's records need not be kept), else
    /// interleaved in time order.
    pub fn enable_join(&mut self, sequential: bool) {
        if self.names.len() > 1 {
            self.join = Some(Joiner::default());
            self.join_keep_below = if sequential {
                self.names.len() - 1
            } else {
                usize::MAX
            };
        }
    }

    /// Input `input`'s format (two inputs of one format are one layer).
    pub fn set_format(&mut self, input: usize, format: &str) {
        if let Some(j) = &mut self.join {
            j.set_format(input, format);
        }
    }

    /// Whether `m` is a request already read from another input; then it is not counted, and
    /// a rate-limited record's full record goes to the earlier one's row as its other layer's
    /// evidence. Else the probe to keep it by, when it is kept for the join.
    fn joined(
        &mut self,
        input: usize,
        ev: &mut Event,
        keys: &Keys,
        kept: &mut Option<Box<Request>>,
    ) -> Joining {
        let join = Join::take(ev);
        let Some(j) = &mut self.join else {
            return Joining::Counted(None);
        };
        let p = Probe {
            input: input.min(u16::MAX as usize) as u16,
            t_us: ev.t_us,
            whole_second: super::join::coarse(
                ev.t_us,
                ev.flags & flag::WHOLE_SECOND != 0,
                ev.dur_ms,
            ),
            join,
            what: super::event::join_what(keys.host, ev.method() as u8, ev.status),
        };
        match j.find(&p) {
            Some(found) => {
                if let Some(r) = kept.take().filter(|_| ev.limited() && found.row != NONE) {
                    self.rows.attach(found.row, r, found.by);
                }
                Joining::Joined
            }
            None => Joining::Counted((input < self.join_keep_below).then_some(p)),
        }
    }

    /// Input number `i` starts (inputs are read one after another).
    pub fn start_input(&mut self, i: usize) {
        while self.orderers.len() <= i {
            let mut o = Orderer::with_capacity(self.reorder);
            // One input: its log is likely the whole merged order, so the replays' first
            // pass is made as it is written (a replay less; see `Orderer::take_early`).
            if self.names.len() == 1 {
                o.early = Some(super::order::Early::default());
            }
            self.orderers.push(o);
        }
    }

    /// The first pass made while the only input's log was written, when that log is the whole
    /// merged order (else the replays make it).
    pub fn take_early(&mut self) -> Option<super::order::Early> {
        let only = self.orderers.len() == 1;
        self.orderers.first_mut()?.take_early(only)
    }

    /// The input being read is done.
    pub fn finish_input(&mut self, i: usize) -> std::io::Result<()> {
        match self.orderers.get_mut(i) {
            Some(o) => o.finish(),
            None => Ok(()),
        }
    }

    /// Untimed records come after every timed one, by input name and position.
    fn key_of(&self, ev: &Event) -> SampleKey {
        super::event::sample_key(ev.t_us, ev.t_ns, ev.loc, &self.ranks)
    }

    fn intern(&mut self, keys: Keys, names: Option<Box<Names>>, ev: &mut Event) {
        ev.host = self.hosts.id(keys.host.max(1));
        if self.host_counts.len() < self.hosts.len() {
            self.host_counts
                .resize(self.hosts.len(), HostCounts::default());
            self.host_hash.resize(self.hosts.len(), 0);
            self.samples.resize_with(self.hosts.len(), BinaryHeap::new);
        }
        self.host_hash[ev.host as usize] = keys.host;
        ev.client = self.clients.id(keys.client.max(1));
        if self.client_counts.len() < self.clients.len() {
            self.client_counts
                .resize(self.clients.len(), ClientCounts::default());
        }
        ev.cred = self.creds.id(keys.cred);
        ev.endpoint = self.endpoints.id(keys.endpoint);
        // Most events carry no names (only a key's first event does): no empty `Names` is
        // made and taken apart for them.
        if let Some(names) = names {
            let Names {
                host,
                client,
                cred,
                endpoint,
            } = *names;
            self.hosts.name(ev.host, host);
            self.clients.name(ev.client, client);
            self.creds.name(ev.cred, cred);
            self.endpoints.name(ev.endpoint, endpoint);
        }
    }

    /// One batch of mapped requests of input `input`, in input order, taken out of `batch`
    /// (its room goes back to the ingest workers).
    pub fn take(&mut self, input: usize, batch: &mut Vec<Mapped>) {
        for m in batch.drain(..) {
            self.one(input, m);
        }
    }

    fn one(&mut self, input: usize, m: Mapped) {
        let Mapped {
            mut ev,
            keys,
            names,
            kept,
            header_limit,
        } = m;
        let mut kept = kept;
        let Joining::Counted(probe) = self.joined(input, &mut ev, &keys, &mut kept) else {
            return;
        };
        self.intern(keys, names, &mut ev);
        let key = self.key_of(&ev);
        let limited = ev.limited();

        self.requests += 1;
        let s = ev.status as usize;
        if self.by_status.len() <= s {
            self.by_status.resize(s + 1, 0);
        }
        self.by_status[s] += 1;
        self.hints |= ev.flags
            & (flag::HINT_CLIENT
                | flag::HINT_UA
                | flag::HINT_IP
                | flag::HINT_PAGE
                | flag::HINT_ORIGIN);
        let hc = &mut self.host_counts[ev.host as usize];
        hc.requests += 1;
        if limited {
            hc.rate_limited += 1;
        }
        if let Some(pair) = header_limit.get() {
            *hc.header_limits.entry(pair).or_insert(0) += 1;
        }
        let cc = &mut self.client_counts[ev.client as usize];
        if cc.requests == 0 || key < cc.first_key {
            cc.first_key = key;
        }
        cc.requests += 1;
        if limited {
            cc.rate_limited += 1;
        }
        if ev.cred != NONE {
            if cc.last_cred != Some(ev.cred) {
                cc.creds.insert(ev.cred);
                cc.last_cred = Some(ev.cred);
            }
            let i = ev.cred as usize;
            if self.cred_counts.len() <= i {
                self.cred_counts.resize_with(i + 1, CredCounts::default);
            }
            let k = &mut self.cred_counts[i];
            if k.requests == 0 || key < k.first_key {
                k.first_key = key;
            }
            k.requests += 1;
            if limited {
                k.rate_limited += 1;
            }
            if k.clients.len() < crate::overview::CLIENTS_COUNTED {
                k.clients.insert(ev.client);
            }
            if ev.timed() {
                let t = (ev.t_us, ev.t_ns);
                k.first = Some(k.first.map_or(t, |f| f.min(t)));
                k.last = Some(k.last.map_or(t, |l| l.max(t)));
            }
        }
        if ev.timed() {
            let t = (ev.t_us, ev.t_ns);
            if cc.first.is_none_or(|f| t < (f.t_us, f.t_ns)) {
                cc.first = Some(ev);
            }
            if cc.last.is_none_or(|l| t > (l.t_us, l.t_ns)) {
                cc.last = Some(ev);
            }
            if self.first.is_none_or(|f| t < (f.t_us, f.t_ns)) {
                self.first = Some(ev);
            }
            if self.last.is_none_or(|l| t > (l.t_us, l.t_ns)) {
                self.last = Some(ev);
            }
            self.timed += 1;
            if is_failure(ev.status) {
                self.failed_ops.insert(ev.op);
            }
            if ev.flags & flag::WHOLE_SECOND == 0 {
                self.all_whole_seconds = false;
            }
            if ev.cred != NONE {
                *self.cred_hosts.entry((ev.cred, ev.host)).or_insert(0) += 1;
            }
        } else {
            self.untimed += 1;
        }

        if let Some(r) = kept {
            match Kept::of(&ev) {
                kind @ (Kept::Limited | Kept::Failure) => {
                    // A rate-limited 202 (a WAF challenge) is also a success for the baseline.
                    if (200..400).contains(&ev.status) {
                        self.sample(key, &ev, keys.host, r.clone());
                    }
                    ev.detail = self.rows.push(&ev, kind, r);
                }
                Kept::Baseline => self.sample(key, &ev, keys.host, r),
            }
        }
        if let (Some(p), Some(j)) = (probe, &mut self.join) {
            let row = match Kept::of(&ev) {
                Kept::Limited if ev.detail != NONE => ev.detail,
                _ => NONE,
            };
            j.keep(&p, row);
        }
        if ev.timed() {
            if let Some(o) = self.orderers.get_mut(input) {
                o.push(ev);
            }
        } else {
            let host = ev.host as usize;
            if self.untimed_evidence.len() <= host {
                self.untimed_evidence
                    .resize_with(host + 1, HostEvidence::default);
            }
            self.untimed_evidence[host].observe(evidence::Seen {
                started: None,
                status: ev.status,
                duration_ms: ev.duration_ms(),
                limited,
            });
        }
    }

    /// A success that may be among the host's earliest [`BASELINE_MAX`].
    fn sample(&mut self, key: SampleKey, ev: &Event, host_hash: u64, r: Box<Request>) {
        let heap = &mut self.samples[ev.host as usize];
        if heap.len() >= BASELINE_MAX && heap.peek().is_none_or(|m| key >= m.key) {
            return;
        }
        heap.push(Sample { key, req: r });
        if heap.len() > BASELINE_MAX {
            heap.pop();
        }
        // Full: successes later than its latest sample can never enter it, from this input or
        // any other (see `Shared`); workers stop sending them.
        if self.streaming && heap.len() >= BASELINE_MAX {
            if let Some(latest) = heap.peek() {
                self.shared.baseline_bound(host_hash, latest.key);
            }
        }
    }

    /// The baseline samples of `host`, earliest first.
    pub fn baseline_samples(&mut self, host: u32) -> Vec<Box<Request>> {
        let Some(heap) = self.samples.get_mut(host as usize) else {
            return Vec::new();
        };
        let mut v = std::mem::take(heap).into_sorted_vec();
        v.truncate(BASELINE_MAX);
        v.into_iter().map(|s| s.req).collect()
    }

    /// Clients renumbered in order of first appearance in the merged order: `map[arrival id]`
    /// = final id.
    pub fn client_order(&self) -> Vec<u32> {
        let mut ids: Vec<u32> = (0..self.client_counts.len() as u32).collect();
        ids.sort_by_key(|&i| (self.client_counts[i as usize].first_key, i));
        let mut map = vec![0u32; ids.len()];
        for (final_id, &arrival) in ids.iter().enumerate() {
            map[arrival as usize] = final_id as u32;
        }
        map
    }

    /// Records per status code, in code order.
    pub fn statuses(&self) -> impl Iterator<Item = (u16, usize)> + '_ {
        self.by_status
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(s, &n)| (s as u16, n))
    }

    /// Whole-second timestamps only (common in server logs), with enough records to tell.
    pub fn coarse_time(&self) -> bool {
        self.all_whole_seconds && self.timed >= 10
    }

    pub fn host_name(&self, id: u32) -> &str {
        self.hosts.get(id).map(String::as_str).unwrap_or("")
    }
}
