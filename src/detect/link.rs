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
//! State follows the keys that are active: past [`KEY_CAP`] keys the least recently seen are
//! forgotten (an operation seen again after that starts afresh: its cadence is measured anew).

use super::{median, sort_f64};
use crate::analyze::event::{is_failure, Event};
use std::cmp::Reverse;
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
const GAPS_CAP: usize = 4096;

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

struct KeyGaps {
    first_seq: u64,
    touched: u64,
    last_start: f64,
    last_failed: bool,
    failed_once: bool,
    gaps: Vec<f64>,
    /// Keep one gap in `stride` (doubles each time `gaps` fills up).
    stride: u32,
    skipped: u32,
}

impl KeyGaps {
    fn push_gap(&mut self, g: f64) {
        if self.skipped + 1 < self.stride {
            self.skipped += 1;
            return;
        }
        self.skipped = 0;
        self.gaps.push(g);
        if self.gaps.len() >= GAPS_CAP {
            let kept: Vec<f64> = self.gaps.iter().copied().step_by(2).collect();
            self.gaps = kept;
            self.stride = self.stride.saturating_mul(2);
        }
    }
}

/// The cadence of every operation key that failed at least once, per stretch of its life
/// (a key forgotten and seen again starts a new stretch at that request).
#[derive(Debug, Default)]
pub struct CadenceTable {
    map: Map<u64, Vec<(u64, Option<f64>)>>,
}

impl CadenceTable {
    /// The tables of several groups of keys together.
    pub fn merged(parts: impl Iterator<Item = CadenceTable>) -> CadenceTable {
        let mut t = CadenceTable::default();
        for p in parts {
            for (k, mut v) in p.map {
                let e = t.map.entry(k).or_default();
                e.append(&mut v);
                e.sort_by_key(|(from, _)| *from);
            }
        }
        t
    }

    /// Every cadence found, by key then stretch (keys in hash order: for counting only).
    pub fn cadences(&self) -> Vec<f64> {
        self.map
            .values()
            .flat_map(|v| v.iter().filter_map(|(_, c)| *c))
            .collect()
    }

    /// The cadence that applies to key `op` at merged position `seq`.
    pub fn get(&self, op: u64, seq: u64) -> Option<f64> {
        let v = self.map.get(&op)?;
        let i = v.partition_point(|(from, _)| *from <= seq);
        v.get(i.checked_sub(1)?).and_then(|(_, c)| *c)
    }
}

/// First replay: each key's cadence.
pub struct Cadences {
    keys: Map<u64, KeyGaps>,
    table: CadenceTable,
    cap: usize,
}

impl Default for Cadences {
    fn default() -> Self {
        Cadences::new()
    }
}

impl Cadences {
    pub fn new() -> Cadences {
        Cadences::with_cap(KEY_CAP)
    }

    pub fn with_cap(cap: usize) -> Cadences {
        Cadences {
            keys: Map::default(),
            table: CadenceTable::default(),
            cap: cap.max(1),
        }
    }

    pub fn observe(&mut self, ev: &Event, seq: u64) {
        let Some(t) = ev.start_s() else { return };
        if !self.keys.contains_key(&ev.op) && self.keys.len() >= self.cap {
            self.forget_oldest();
        }
        let k = self.keys.entry(ev.op).or_insert_with(|| KeyGaps {
            first_seq: seq,
            touched: seq,
            last_start: f64::NAN,
            last_failed: true,
            failed_once: false,
            gaps: Vec::new(),
            stride: 1,
            skipped: 0,
        });
        if !k.last_start.is_nan() && !k.last_failed {
            let g = t - k.last_start;
            k.push_gap(g);
        }
        let failed = is_failure(ev.status);
        k.last_start = t;
        k.last_failed = failed;
        k.failed_once |= failed;
        k.touched = seq;
    }

    fn forget_oldest(&mut self) {
        let mut by_age: Vec<(u64, u64)> = self.keys.iter().map(|(k, g)| (g.touched, *k)).collect();
        by_age.sort_unstable();
        for (_, key) in by_age.into_iter().take(self.cap.div_ceil(2)) {
            if let Some(g) = self.keys.remove(&key) {
                self.record(key, g);
            }
        }
    }

    fn record(&mut self, key: u64, mut g: KeyGaps) {
        if g.failed_once {
            let c = cadence(&mut g.gaps);
            let v = self.table.map.entry(key).or_default();
            v.push((g.first_seq, c));
            v.sort_by_key(|(from, _)| *from);
        }
    }

    pub fn finish(mut self) -> CadenceTable {
        let keys = std::mem::take(&mut self.keys);
        let mut keys: Vec<(u64, KeyGaps)> = keys.into_iter().collect();
        keys.sort_by_key(|(k, g)| (g.first_seq, *k));
        for (k, g) in keys {
            self.record(k, g);
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

#[derive(Default)]
struct KeyLinks {
    first_seq: u64,
    touched: u64,
    open: Vec<Open>,
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
        }
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
            if k.open.len() < before {
                self.close(id, closed);
            }
        }
    }

    fn forget_idle(&mut self) {
        let mut idle: Vec<(u64, u64)> = self
            .keys
            .iter()
            .filter(|(_, k)| k.open.is_empty())
            .map(|(op, k)| (k.touched, *op))
            .collect();
        idle.sort_unstable();
        for (_, op) in idle.into_iter().take(self.cap.div_ceil(2)) {
            self.keys.remove(&op);
        }
    }

    /// Link one timed request (merged position `seq`); operations that became complete are
    /// appended to `closed`. `wait_s`: the Retry-After of a failed response, seconds.
    pub fn step(
        &mut self,
        ev: &Event,
        seq: u64,
        cadence: Option<f64>,
        wait_s: f64,
        closed: &mut Vec<Logical>,
    ) -> Option<Linked> {
        let t = ev.start_s()?;
        let end = ev.end_s()?;
        self.expire(t, closed);
        if !self.keys.contains_key(&ev.op) && self.keys.len() >= self.cap {
            self.forget_idle();
        }
        let k = self.keys.entry(ev.op).or_insert_with(|| KeyLinks {
            first_seq: seq,
            ..Default::default()
        });
        k.touched = seq;
        let first_seq = k.first_seq;
        let mut gone: Vec<u64> = Vec::new();
        k.open.retain(|o| {
            let keep = t - o.last_end <= o.window;
            if !keep {
                gone.push(o.logical);
            }
            keep
        });
        let slack = self.slack;
        let ready = |o: &Open| o.last_end <= t + slack;
        let idem = ev.idem;
        let pick = k
            .open
            .iter()
            .position(|o| ready(o) && idem != 0 && o.idem == idem)
            .or_else(|| k.open.iter().position(ready));
        let mut attach = None;
        if let Some(p) = pick {
            let is_poll = cadence
                .map(|c| t - k.open[p].last_start >= POLL_SHARE * c)
                .unwrap_or(false);
            let o = k.open.remove(p);
            if is_poll {
                self.polls_after_failure += 1;
                gone.push(o.logical);
            } else {
                attach = Some(o.logical);
            }
        }
        let failed = is_failure(ev.status);
        if failed {
            let window = (1.5 * wait_s + 30.0).clamp(MIN_RETRY_WINDOW_S, MAX_RETRY_WINDOW_S);
            let id = attach.unwrap_or(self.next_id);
            k.open.push(Open {
                logical: id,
                last_start: t,
                last_end: end,
                window,
                idem,
            });
            self.expiry.push(Reverse((OrdF64(end + window), id)));
        }
        for id in gone {
            self.close(id, closed);
        }
        let attempt = Attempt { ev: *ev, seq };
        let linked = match attach.and_then(|id| self.logical.get_mut(&id)) {
            Some(l) => {
                let prev = l.attempts.last().copied();
                l.attempts.push(attempt);
                Linked {
                    logical: l.id,
                    attempt: (l.attempts.len() - 1) as u32,
                    prev,
                }
            }
            None => {
                let id = self.next_id;
                self.next_id += 1;
                self.logical.insert(
                    id,
                    Logical {
                        id,
                        order: (first_seq, seq),
                        client: ev.client,
                        attempts: vec![attempt],
                    },
                );
                Linked {
                    logical: id,
                    attempt: 0,
                    prev: None,
                }
            }
        };
        if !failed {
            // A success ends its operation: nothing can follow it as a retry.
            self.close(linked.logical, closed);
        }
        Some(linked)
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
