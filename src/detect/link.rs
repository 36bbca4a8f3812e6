//! Logical operations, in time order with bounded state: which requests are attempts of one
//! operation (see [`super::logical`] for the rule).
//!
//! Two replays. The first ([`Cadences`]) measures each operation key's cadence: a periodic
//! poll's next request after a failure is its next poll, not a retry, and telling the two apart
//! needs the key's whole history. The second ([`Linker`]) links attempts: each key holds only
//! its failed attempts still waiting for a retry, and an operation is handed to the detectors
//! (closed) as soon as it can get no more attempts: its last attempt succeeded, or its retry
//! window passed.
//!
//! State follows the keys that are active, never the number of records. The first replay keeps
//! a key while it is seen at least once every [`IDLE_S`] (a key idle for longer starts a new
//! stretch of its life: its cadence is measured anew), and past [`KEY_CAP`] keys forgets the
//! least recently seen. The second keeps a key only while it has a failed attempt that may still
//! be retried, and past [`KEY_CAP`] such keys closes the operations of the least recently seen.

use super::{median, sort_f64};
use crate::model::event::{is_failure, Event};
use std::cmp::Reverse;
use std::collections::hash_map::Entry;
use std::collections::{BinaryHeap, HashMap};

type Map<K, V> = HashMap<K, V, foldhash::fast::FixedState>;

/// The shortest time after a failure in which a repeat still counts as its retry, seconds.
pub const MIN_RETRY_WINDOW_S: f64 = 120.0;
/// The longest, whatever the Retry-After said.
pub const MAX_RETRY_WINDOW_S: f64 = 7200.0;
/// A repeat after a failure at ≥ this share of the poll cadence is the next poll.
const POLL_SHARE: f64 = 0.7;
/// Slack for logs that round times: a retry may appear to start this much before the end.
const END_SLACK_S: f64 = 0.05;
/// The same for logs with whole-second timestamps.
const COARSE_SLACK_S: f64 = 1.0;
/// Operation keys held at once (each a few dozen bytes).
pub const KEY_CAP: usize = 1 << 18;
/// Gaps kept exactly per key; past this the key keeps an even sample of them.
const GAPS_CAP: usize = 256;
/// A key not seen for this long (log time, seconds) starts a new stretch: three times the
/// longest retry window, so no retry or poll spans it.
pub const IDLE_S: f64 = 3.0 * MAX_RETRY_WINDOW_S;
/// The first replay looks for idle keys to forget after this many requests (or as many as it
/// holds keys, whichever is more): forgetting frees memory and never changes a result.
const SWEEP_EVERY: u64 = 4096;

/// The cadence recorded for a key whose repeats come at random, as independent reads of a
/// popular URL do: every repeat after a failure is the next read, none is a retry.
pub const INDEPENDENT_READS: f64 = 0.0;
/// Gaps after successes a key needs before its repeats can be read as independent.
const INDEPENDENT_MIN_SUCCESS_GAPS: usize = 8;
/// Gaps after failures it needs.
const INDEPENDENT_MIN_FAILURE_GAPS: usize = 3;
/// Repeats after failures come at least this share of the usual gap (median to median): the
/// failures did not make the key come back sooner. A retry loop comes back well before the
/// next independent read would (a 300 ms retry on a URL read every 3 s is 0.1); independent
/// reads come at the same pace either way (about 1, rarely under 0.3 by chance with ≥ 3 gaps).
const INDEPENDENT_SHARE: f64 = 0.3;
/// Gaps after failures kept per key (the first ones: enough for a median).
const FAILURE_GAPS_CAP: usize = 256;

/// Are a key's repeats independent reads rather than retries? Only for keys with no regular
/// cadence (a poll is handled by [`cadence`]): the gaps that follow its failures look like
/// the gaps that follow its successes (issue 11: "a repeat of the same URL is a retry only
/// when it follows a failure of that URL within the retry gap").
pub fn independent_reads(success_gaps: &mut [f64], failure_gaps: &mut [f64]) -> bool {
    if success_gaps.len() < INDEPENDENT_MIN_SUCCESS_GAPS
        || failure_gaps.len() < INDEPENDENT_MIN_FAILURE_GAPS
    {
        return false;
    }
    sort_f64(success_gaps);
    sort_f64(failure_gaps);
    let usual = median(success_gaps);
    usual > 0.0 && median(failure_gaps) >= INDEPENDENT_SHARE * usual
}

/// The regular cadence of a key's repeats, from the gaps that follow successes.
pub fn cadence(gaps: &mut [f64]) -> Option<f64> {
    if gaps.len() < 3 {
        return None;
    }
    sort_f64(gaps);
    let m = median(gaps);
    if m < 0.5 {
        return None;
    }
    let regular = gaps.iter().filter(|g| (**g - m).abs() <= 0.25 * m).count();
    (regular as f64 >= 0.7 * gaps.len() as f64).then_some(m)
}

/// The gaps of one key that came back at least once (most keys are seen once: they hold none).
#[derive(Default)]
struct GapList {
    gaps: Vec<f64>,
    /// Gaps that follow failures (the first [`FAILURE_GAPS_CAP`]).
    failure_gaps: Vec<f64>,
    /// Keep one gap in `stride` (doubles each time `gaps` fills up).
    stride: u32,
    skipped: u32,
}

impl GapList {
    fn push_gap(&mut self, g: f64) {
        if self.skipped + 1 < self.stride {
            self.skipped += 1;
            return;
        }
        self.skipped = 0;
        self.gaps.push(g);
        if self.gaps.len() >= GAPS_CAP {
            // Keep every other gap (the even positions), in place.
            let mut i = 0usize;
            self.gaps.retain(|_| {
                i += 1;
                i % 2 == 1
            });
            self.stride = self.stride.saturating_mul(2);
        }
    }
}

/// The gap lists of the keys held, by index: a key gets one at its second request, and a key
/// forgotten frees its own for the next (no allocation per key once the slab is warm).
#[derive(Default)]
struct GapSlab {
    lists: Vec<GapList>,
    free: Vec<u32>,
}

/// A list's capacity kept for reuse when its key is forgotten (larger ones are freed).
const REUSE_CAP: usize = 32;

impl GapSlab {
    fn take(&mut self) -> u32 {
        if let Some(i) = self.free.pop() {
            return i;
        }
        self.lists.push(GapList {
            stride: 1,
            ..GapList::default()
        });
        (self.lists.len() - 1) as u32
    }

    fn release(&mut self, i: u32) {
        let Some(l) = self.lists.get_mut(i as usize) else {
            return;
        };
        for v in [&mut l.gaps, &mut l.failure_gaps] {
            if v.capacity() > REUSE_CAP {
                *v = Vec::new();
            } else {
                v.clear();
            }
        }
        l.stride = 1;
        l.skipped = 0;
        self.free.push(i);
    }
}

/// No gap list yet (the key was seen once).
const NO_GAPS: u32 = u32::MAX;

/// One key held by the first replay: a few words, its gaps apart in the [`GapSlab`].
struct KeyGaps {
    first_seq: u64,
    touched: u64,
    last_start: f64,
    /// Index of its [`GapList`], or [`NO_GAPS`].
    list: u32,
    last_failed: bool,
    failed_once: bool,
}

impl KeyGaps {
    fn new(seq: u64) -> KeyGaps {
        KeyGaps {
            first_seq: seq,
            touched: seq,
            last_start: f64::NAN,
            list: NO_GAPS,
            last_failed: true,
            failed_once: false,
        }
    }

    /// One more timed request of this key (time order).
    fn see(&mut self, t: f64, status: u16, seq: u64, slab: &mut GapSlab) {
        if !self.last_start.is_nan() {
            let g = t - self.last_start;
            if self.list == NO_GAPS {
                self.list = slab.take();
            }
            if let Some(l) = slab.lists.get_mut(self.list as usize) {
                if !self.last_failed {
                    l.push_gap(g);
                } else if l.failure_gaps.len() < FAILURE_GAPS_CAP {
                    l.failure_gaps.push(g);
                }
            }
        }
        let failed = is_failure(status);
        self.last_start = t;
        self.last_failed = failed;
        self.failed_once |= failed;
        self.touched = seq;
    }
}

/// A key's stretches, in order of `from`: nearly always one, held inline.
#[derive(Debug)]
enum Stretches {
    One((u64, Option<f64>)),
    Many(Vec<(u64, Option<f64>)>),
}

impl Stretches {
    fn as_slice(&self) -> &[(u64, Option<f64>)] {
        match self {
            Stretches::One(s) => std::slice::from_ref(s),
            Stretches::Many(v) => v,
        }
    }

    /// Add stretches, keeping the order of `from` (a stable sort, as one list would).
    fn extend(&mut self, more: &[(u64, Option<f64>)]) {
        let mut v = self.as_slice().to_vec();
        v.extend_from_slice(more);
        v.sort_by_key(|(from, _)| *from);
        *self = Stretches::Many(v);
    }
}

/// The cadence of every operation key that failed at least once, per stretch of its life
/// (a key forgotten and seen again starts a new stretch at that request).
#[derive(Debug, Default)]
pub struct CadenceTable {
    map: Map<u64, Stretches>,
}

impl CadenceTable {
    fn push(&mut self, key: u64, s: (u64, Option<f64>)) {
        match self.map.entry(key) {
            Entry::Vacant(v) => {
                v.insert(Stretches::One(s));
            }
            Entry::Occupied(mut o) => o.get_mut().extend(&[s]),
        }
    }

    /// The tables of several groups of keys together.
    pub fn merged(parts: impl Iterator<Item = CadenceTable>) -> CadenceTable {
        let mut t = CadenceTable::default();
        for p in parts {
            if t.map.is_empty() {
                // Each list is in order already: the first table is taken whole.
                t = p;
                continue;
            }
            for (k, v) in p.map {
                match t.map.entry(k) {
                    Entry::Vacant(e) => {
                        e.insert(v);
                    }
                    Entry::Occupied(mut e) => e.get_mut().extend(v.as_slice()),
                }
            }
        }
        t
    }

    /// Every cadence found, by key then stretch (keys in hash order: for counting only).
    pub fn cadences(&self) -> Vec<f64> {
        self.map
            .values()
            .flat_map(|v| v.as_slice().iter().filter_map(|(_, c)| *c))
            .filter(|c| *c != INDEPENDENT_READS)
            .collect()
    }

    /// The cadence that applies to key `op` at merged position `seq`.
    pub fn get(&self, op: u64, seq: u64) -> Option<f64> {
        self.stretch(op, seq).and_then(|s| s.cadence)
    }

    /// The stretch of key `op`'s life that merged position `seq` falls in (keys that failed
    /// at least once only).
    pub fn stretch(&self, op: u64, seq: u64) -> Option<Stretch> {
        let v = self.map.get(&op)?.as_slice();
        let i = v.partition_point(|(from, _)| *from <= seq);
        v.get(i.checked_sub(1)?)
            .map(|&(from, cadence)| Stretch { from, cadence })
    }

    /// Stretches held (one per key that failed, per stretch of its life).
    pub fn len(&self) -> usize {
        self.map.values().map(|v| v.as_slice().len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

/// One stretch of an operation key's life, as the first replay saw it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stretch {
    /// Merged position of the stretch's first request.
    pub from: u64,
    /// The key's regular cadence over the stretch, seconds ([`INDEPENDENT_READS`] when its
    /// repeats come at random whatever the responses).
    pub cadence: Option<f64>,
}

/// First replay: each key's cadence.
pub struct Cadences {
    keys: Map<u64, KeyGaps>,
    slab: GapSlab,
    table: CadenceTable,
    cap: usize,
    /// Requests since the last look for idle keys.
    since_sweep: u64,
}

impl Default for Cadences {
    fn default() -> Self {
        Cadences::new()
    }
}

/// A key's stretch is over: its cadence into the table (keys that failed only), its gap list
/// freed.
fn record(table: &mut CadenceTable, slab: &mut GapSlab, key: u64, g: &KeyGaps) {
    let list = slab.lists.get_mut(g.list as usize);
    if g.failed_once {
        let (gaps, failure_gaps): (&mut [f64], &mut [f64]) = match list {
            Some(l) => (&mut l.gaps, &mut l.failure_gaps),
            None => (&mut [], &mut []),
        };
        let c = cadence(gaps)
            .or_else(|| independent_reads(gaps, failure_gaps).then_some(INDEPENDENT_READS));
        table.push(key, (g.first_seq, c));
    }
    if g.list != NO_GAPS {
        slab.release(g.list);
    }
}

impl Cadences {
    pub fn new() -> Cadences {
        Cadences::with_cap(KEY_CAP)
    }

    pub fn with_cap(cap: usize) -> Cadences {
        Cadences {
            keys: Map::default(),
            slab: GapSlab::default(),
            table: CadenceTable::default(),
            cap: cap.max(1),
            since_sweep: 0,
        }
    }

    /// Keys held now.
    pub fn live_keys(&self) -> usize {
        self.keys.len()
    }

    /// One timed request (merged position `seq`), in time order.
    pub fn observe(&mut self, ev: &Event, seq: u64) {
        let Some(t) = ev.start_s() else { return };
        self.since_sweep += 1;
        if self.since_sweep >= SWEEP_EVERY.max(self.keys.len() as u64) {
            self.since_sweep = 0;
            self.forget_idle(t);
        }
        // Past the cap a new key first makes room (the extra lookup only then).
        if self.keys.len() >= self.cap && !self.keys.contains_key(&ev.op) {
            self.forget_oldest();
        }
        // One lookup whether the key is new or not.
        let k = match self.keys.entry(ev.op) {
            Entry::Occupied(o) => {
                let k = o.into_mut();
                // A key idle for longer than IDLE_S starts a new stretch (whether or not a
                // sweep forgot it already: the result must not depend on when sweeps run).
                if t - k.last_start > IDLE_S {
                    let old = std::mem::replace(k, KeyGaps::new(seq));
                    record(&mut self.table, &mut self.slab, ev.op, &old);
                }
                k
            }
            Entry::Vacant(v) => v.insert(KeyGaps::new(seq)),
        };
        k.see(t, ev.status, seq, &mut self.slab);
    }

    /// Forget the keys idle for longer than [`IDLE_S`] at time `t` (one pass over the keys;
    /// each key's stretches are its own, so the order they are recorded in changes nothing).
    fn forget_idle(&mut self, t: f64) {
        let (table, slab) = (&mut self.table, &mut self.slab);
        self.keys.retain(|&key, g| {
            let idle = t - g.last_start > IDLE_S;
            if idle {
                record(table, slab, key, g);
            }
            !idle
        });
    }

    /// Forget the least recently seen half of the keys: those up to the median age (a
    /// selection, not a sort), in one pass.
    fn forget_oldest(&mut self) {
        let n = self.cap.div_ceil(2);
        let mut by_age: Vec<(u64, u64)> = self.keys.iter().map(|(k, g)| (g.touched, *k)).collect();
        let Some(last) = n.checked_sub(1) else {
            return;
        };
        let threshold = if last < by_age.len() {
            *by_age.select_nth_unstable(last).1
        } else {
            (u64::MAX, u64::MAX)
        };
        drop(by_age);
        let (table, slab) = (&mut self.table, &mut self.slab);
        self.keys.retain(|&key, g| {
            let old = (g.touched, key) <= threshold;
            if old {
                record(table, slab, key, g);
            }
            !old
        });
    }

    /// The table. Each key held is recorded once, into its own list of stretches (kept in
    /// order of `from`), so the order keys are recorded in changes nothing: no sort of the
    /// (many, mostly never-failed) keys.
    pub fn finish(mut self) -> CadenceTable {
        let keys = std::mem::take(&mut self.keys);
        for (k, g) in keys {
            record(&mut self.table, &mut self.slab, k, &g);
        }
        self.table
    }
}

/// One attempt of a logical operation.
#[derive(Debug, Clone, Copy)]
pub struct Attempt {
    pub ev: Event,
    /// Place in the merged time order.
    pub seq: u64,
}

/// A logical operation and its attempts, in time order.
#[derive(Debug, Clone)]
pub struct Logical {
    pub id: u64,
    /// Order of operations as a batch numbering would give them: by the key's first request,
    /// then by the operation's first attempt.
    pub order: (u64, u64),
    pub client: u32,
    pub attempts: Vec<Attempt>,
}

impl Logical {
    pub fn retries(&self) -> usize {
        self.attempts.len().saturating_sub(1)
    }
}

/// Where one request stands among its operation's attempts.
#[derive(Debug, Clone, Copy)]
pub struct Linked {
    pub logical: u64,
    /// 0 for the first attempt.
    pub attempt: u32,
    /// The attempt before this one, when this is a retry.
    pub prev: Option<Attempt>,
}

struct Open {
    logical: u64,
    last_start: f64,
    last_end: f64,
    window: f64,
    idem: u32,
}

/// A key with failed attempts that may still be retried.
#[derive(Default)]
struct KeyLinks {
    touched: u64,
    open: Vec<Open>,
}

impl KeyLinks {
    /// The open failure a request at `t` retries, taken off the key: one with the same
    /// idempotency key (`idem`, 0 for none) first, else the first ready one (its last attempt
    /// ended by `t`, within `slack`). Failures whose retry window has passed go to `gone`; so
    /// does the one picked when `t` reads as the next poll of the key's `cadence` (then the
    /// answer is no operation, and true).
    fn take_open(
        &mut self,
        t: f64,
        slack: f64,
        idem: u32,
        cadence: Option<f64>,
        gone: &mut Vec<u64>,
    ) -> (Option<u64>, bool) {
        self.open.retain(|o| {
            let keep = t - o.last_end <= o.window;
            if !keep {
                gone.push(o.logical);
            }
            keep
        });
        let ready = |o: &Open| o.last_end <= t + slack;
        let pick = self
            .open
            .iter()
            .position(|o| ready(o) && idem != 0 && o.idem == idem)
            .or_else(|| self.open.iter().position(ready));
        let Some(p) = pick else {
            return (None, false);
        };
        let is_poll = cadence
            .map(|c| t - self.open[p].last_start >= POLL_SHARE * c)
            .unwrap_or(false);
        let o = self.open.remove(p);
        if is_poll {
            gone.push(o.logical);
            (None, true)
        } else {
            (Some(o.logical), false)
        }
    }
}

/// Second replay: link attempts, close operations as soon as they are complete.
pub struct Linker {
    slack: f64,
    keys: Map<u64, KeyLinks>,
    logical: Map<u64, Logical>,
    /// (last end + window, logical): when an open failure can no longer be retried.
    expiry: BinaryHeap<Reverse<(OrdF64, u64)>>,
    next_id: u64,
    cap: usize,
    /// Repeats after a failure that were read as the next poll of a regular cadence.
    pub polls_after_failure: usize,
    /// Emptied attempt lists handed back ([`Linker::recycle`]), reused for new operations.
    spare: Vec<Vec<Attempt>>,
}

use crate::stats::TotalF64 as OrdF64;

impl Linker {
    /// `coarse`: the input has whole-second times only.
    pub fn new(coarse: bool) -> Linker {
        Linker::with_cap(coarse, KEY_CAP)
    }

    pub fn with_cap(coarse: bool, cap: usize) -> Linker {
        Linker {
            slack: if coarse { COARSE_SLACK_S } else { END_SLACK_S },
            keys: Map::default(),
            logical: Map::default(),
            expiry: BinaryHeap::new(),
            next_id: 0,
            cap: cap.max(1),
            polls_after_failure: 0,
            spare: Vec::new(),
        }
    }

    /// Hand back a closed operation's attempt list for reuse (no allocation per operation).
    pub fn recycle(&mut self, l: Logical) {
        let mut v = l.attempts;
        if self.spare.len() < 64 {
            v.clear();
            self.spare.push(v);
        }
    }

    fn attempts(&mut self, first: Attempt) -> Vec<Attempt> {
        let mut v = self.spare.pop().unwrap_or_default();
        v.push(first);
        v
    }

    fn close(&mut self, id: u64, closed: &mut Vec<Logical>) {
        if let Some(l) = self.logical.remove(&id) {
            closed.push(l);
        }
    }

    /// Operations whose open failure has certainly outlived its retry window by time `t`.
    fn expire(&mut self, t: f64, closed: &mut Vec<Logical>) {
        while let Some(Reverse((OrdF64(at), id))) = self.expiry.peek().copied() {
            // A margin keeps float rounding from closing what the exact test would still link.
            if at + 1e-6 >= t {
                break;
            }
            self.expiry.pop();
            let Some(key) = self.logical.get(&id).map(|l| l.attempts[0].ev.op) else {
                continue;
            };
            // Only the operation's current open failure counts (an earlier one was retried).
            let Some(k) = self.keys.get_mut(&key) else {
                continue;
            };
            let before = k.open.len();
            k.open
                .retain(|o| !(o.logical == id && o.last_end + o.window == at));
            let emptied = k.open.is_empty();
            if k.open.len() < before {
                self.close(id, closed);
            }
            if emptied {
                self.keys.remove(&key);
            }
        }
    }

    /// Past the cap: the operations of the least recently seen half of the keys are closed
    /// (they get no more attempts), and the keys forgotten.
    fn forget_oldest(&mut self, closed: &mut Vec<Logical>) {
        let mut by_age: Vec<(u64, u64)> =
            self.keys.iter().map(|(op, k)| (k.touched, *op)).collect();
        by_age.sort_unstable();
        for (_, op) in by_age.into_iter().take(self.cap.div_ceil(2)) {
            if let Some(k) = self.keys.remove(&op) {
                for o in k.open {
                    self.close(o.logical, closed);
                }
            }
        }
    }

    /// Keys held now (those with a failed attempt that may still be retried).
    pub fn live_keys(&self) -> usize {
        self.keys.len()
    }

    /// Operations not closed yet.
    pub fn open_operations(&self) -> usize {
        self.logical.len()
    }

    /// Link one timed request (merged position `seq`); operations that became complete are
    /// appended to `closed`. `stretch`: the first replay's view of the key at `seq`
    /// ([`CadenceTable::stretch`]). `wait_s`: the Retry-After of a failed response, seconds.
    pub fn step(
        &mut self,
        ev: &Event,
        seq: u64,
        stretch: Option<Stretch>,
        wait_s: f64,
        closed: &mut Vec<Logical>,
    ) -> Option<Linked> {
        let t = ev.start_s()?;
        let end = ev.end_s()?;
        self.expire(t, closed);
        let failed = is_failure(ev.status);
        if !failed && !self.keys.contains_key(&ev.op) {
            // Nothing open to attach to, nothing to keep: a first attempt that succeeded.
            return Some(self.lone_success(ev, seq, stretch, closed));
        }
        if !self.keys.contains_key(&ev.op) && self.keys.len() >= self.cap {
            self.forget_oldest(closed);
        }
        let cadence = stretch.and_then(|s| s.cadence);
        // Batch numbering: operations of one key by the key's first request.
        let first_seq = stretch.map(|s| s.from).unwrap_or(seq);
        let slack = self.slack;
        let k = self.keys.entry(ev.op).or_default();
        k.touched = seq;
        let mut gone: Vec<u64> = Vec::new();
        let (attach, poll) = k.take_open(t, slack, ev.idem, cadence, &mut gone);
        if poll {
            self.polls_after_failure += 1;
        }
        if failed {
            let window = (1.5 * wait_s + 30.0).clamp(MIN_RETRY_WINDOW_S, MAX_RETRY_WINDOW_S);
            let id = attach.unwrap_or(self.next_id);
            k.open.push(Open {
                logical: id,
                last_start: t,
                last_end: end,
                window,
                idem: ev.idem,
            });
            self.expiry.push(Reverse((OrdF64(end + window), id)));
        }
        if k.open.is_empty() {
            self.keys.remove(&ev.op);
        }
        for id in gone {
            self.close(id, closed);
        }
        let linked = self.add_attempt(attach, Attempt { ev: *ev, seq }, first_seq);
        if !failed {
            // A success ends its operation: nothing can follow it as a retry.
            self.close(linked.logical, closed);
        }
        Some(linked)
    }

    /// A first attempt that succeeded with nothing open on its key: an operation of its own,
    /// closed at once.
    fn lone_success(
        &mut self,
        ev: &Event,
        seq: u64,
        stretch: Option<Stretch>,
        closed: &mut Vec<Logical>,
    ) -> Linked {
        let id = self.next_id;
        self.next_id += 1;
        let first_seq = stretch.map(|s| s.from).unwrap_or(seq);
        closed.push(Logical {
            id,
            order: (first_seq, seq),
            client: ev.client,
            attempts: self.attempts(Attempt { ev: *ev, seq }),
        });
        Linked {
            logical: id,
            attempt: 0,
            prev: None,
        }
    }

    /// `attempt` as the next of operation `attach`, or as the first of a new one (numbered
    /// in its batch by `first_seq`).
    fn add_attempt(&mut self, attach: Option<u64>, attempt: Attempt, first_seq: u64) -> Linked {
        if let Some(l) = attach.and_then(|id| self.logical.get_mut(&id)) {
            let prev = l.attempts.last().copied();
            l.attempts.push(attempt);
            return Linked {
                logical: l.id,
                attempt: (l.attempts.len() - 1) as u32,
                prev,
            };
        }
        let id = self.next_id;
        self.next_id += 1;
        let client = attempt.ev.client;
        let attempts = self.attempts(attempt);
        self.logical.insert(
            id,
            Logical {
                id,
                order: (first_seq, attempt.seq),
                client,
                attempts,
            },
        );
        Linked {
            logical: id,
            attempt: 0,
            prev: None,
        }
    }

    /// Every operation still open (the replay is over).
    pub fn finish(&mut self, closed: &mut Vec<Logical>) {
        let mut rest: Vec<Logical> = self.logical.drain().map(|(_, l)| l).collect();
        rest.sort_by_key(|l| l.id);
        closed.extend(rest);
        self.keys.clear();
        self.expiry.clear();
    }
}

#[cfg(test)]
mod tests;
