//! Time order with bounded memory.
//!
//! Each input's events pass a reorder buffer of [`REORDER`] events (inputs are usually in time
//! order, or nearly: HAR entries by start, logs by completion). What comes out is appended to
//! the input's [`EventLog`]: sorted. An event older than one already written (the input is
//! further out of order than the buffer) is *late*: it goes to sorted runs of their own,
//! spilled like the logs, and the input gets a warning. Replaying merges every log and run by
//! time (k-way), so the analyses see one time-ordered stream whatever the inputs looked like,
//! while memory holds only the buffers.
//!
//! Logs stay in memory up to [`MEMORY_BYTES`] each and continue in an anonymous temporary file
//! after that (removed when the analysis ends). Events are held packed (see
//! [`super::event::pack`]: ~22 bytes a plain log line instead of 64).

use super::event::Event;
pub use crate::model::event::log::{Codec, EventLog, Log, LogReader, Packed, MEMORY_BYTES};
use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, VecDeque};

/// Events the reorder buffer holds before it must let the earliest go.
pub const REORDER: usize = 1 << 17;

/// The merged time order: start, then input rank (by name), then entry/line.
pub type Key = (i64, u16, u16, u64);

/// Input ranks by source name: ties at one instant across inputs go by name, as a sort of all
/// records by (time, source, position) would put them.
pub fn ranks(names: &[&str]) -> Vec<u16> {
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by(|&a, &b| names[a].cmp(names[b]).then(a.cmp(&b)));
    let mut ranks = vec![0u16; names.len()];
    for (rank, i) in order.into_iter().enumerate() {
        ranks[i] = rank.min(u16::MAX as usize) as u16;
    }
    ranks
}

/// The overview's first pass over one log, in the order it is written. (The cadences, the
/// replays' other first pass, are not made here: they are kept only for operations that fail,
/// which a log written in time order cannot know yet; see `replay::first_pass`.)
#[derive(Default)]
pub struct Early {
    /// Its host order is set when the overview is built (the first pass does not read it).
    pub overview: crate::overview::Builder,
    starts: super::event::Starts,
}

impl Early {
    /// The next event of the log.
    fn observe(&mut self, ev: &Event) {
        if let Some(t) = self.starts.of(ev) {
            self.overview.first_pass(t, ev.limited());
        }
    }
}

/// An event's place in its own input's order: `(t_us, t_ns, loc)`. One [`Orderer`] holds the
/// events of one input only, so the input's rank is the same for all of them and this is the
/// [`Key`] order without the rank: an orderer needs no ranks at all (a copy of every input's
/// rank in each input's orderer made memory grow with the square of the inputs: 20,000 files
/// took 856 MB).
type InputKey = (i64, u16, u64);

fn input_key(e: &Event) -> InputKey {
    (e.t_us, e.t_ns, e.loc)
}

/// A held event, ordered by [`InputKey`]: 64 bytes a held event instead of 88 with the key
/// (fewer fresh pages for the buffer).
#[derive(Clone, Copy)]
struct Held(Event);

impl Held {
    fn rank_free(&self) -> InputKey {
        input_key(&self.0)
    }
}

impl PartialEq for Held {
    fn eq(&self, o: &Self) -> bool {
        self.rank_free() == o.rank_free()
    }
}
impl Eq for Held {}
impl PartialOrd for Held {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Held {
    fn cmp(&self, o: &Self) -> Ordering {
        self.rank_free().cmp(&o.rank_free())
    }
}

/// Held events let go at once when an input ends ([`Orderer::finish`]).
const DRAIN_BATCH: usize = 1 << 13;

/// The in-order queue grows by doubling up to this many events, then straight to the buffer's
/// capacity (no more copies of a large queue into fresh memory).
const RUN_DOUBLING: usize = 1 << 10;

/// One input's events put in time order: a reorder buffer in front of a sorted log, and sorted
/// runs for events that came later than the buffer could wait.
///
/// The buffer is a heap plus `run`, a queue of held events that arrived in key order: an input
/// already in time order (the usual case) passes through the queue at O(1) per event instead
/// of sifting a 131,072-entry heap. What is held, and so what leaves and when, is the same as
/// with the heap alone (the earliest of both leaves first).
pub struct Orderer {
    capacity: usize,
    heap: BinaryHeap<Reverse<Held>>,
    /// Held events in increasing key order (each later than every one before it here).
    run: VecDeque<Held>,
    last: Option<InputKey>,
    /// The input whose events these are (one orderer per input).
    input: Option<u16>,
    pub log: EventLog,
    /// Late events, collected into a run until it is full, then sorted into `runs`.
    late: Vec<Event>,
    pub runs: Vec<EventLog>,
    /// Events that arrived later than the buffer could wait.
    pub late_count: u64,
    /// The replays' first pass, made as events reach the log (set for the only input): when
    /// the log ends up the whole merged order (no late runs), the replays skip it (see
    /// `analyze::replay::run_detectors`).
    pub early: Option<Early>,
}

impl Default for Orderer {
    fn default() -> Orderer {
        Orderer::with_capacity(REORDER)
    }
}

impl Orderer {
    pub fn with_capacity(capacity: usize) -> Orderer {
        Orderer {
            capacity: capacity.max(1),
            heap: BinaryHeap::new(),
            run: VecDeque::new(),
            last: None,
            input: None,
            log: EventLog::new(),
            late: Vec::new(),
            runs: Vec::new(),
            late_count: 0,
            early: None,
        }
    }

    pub fn push(&mut self, ev: Event) {
        let key = input_key(&ev);
        if self.last.is_some_and(|l| key < l) {
            self.late_count += 1;
            self.late.push(ev);
            if self.late.len() >= self.capacity {
                self.flush_late();
            }
            return;
        }
        debug_assert!(
            self.input.is_none_or(|i| i == ev.input()),
            "one orderer per input"
        );
        self.input = Some(ev.input());
        let new = Held(ev);
        if self.heap.len() + self.run.len() < self.capacity {
            self.hold(new);
            return;
        }
        // Full: the earliest of the held events and this one goes to the log.
        let heap_top = self.heap.peek().map(|t| t.0);
        let run_front = self.run.front().copied();
        let out = match (heap_top, run_front) {
            (Some(h), r) if h < new && r.is_none_or(|r| h < r) => {
                // Replacing the top in place when the newcomer belongs in the heap keeps the
                // heap at its size (a push first would double its buffer for one extra event:
                // 8 MB) and sifts once instead of twice.
                if self.run.back().is_none_or(|b| *b < new) {
                    let out = self.heap.pop().map(|t| t.0);
                    self.push_run(new);
                    out
                } else {
                    self.heap
                        .peek_mut()
                        .map(|mut top| std::mem::replace(&mut *top, Reverse(new)).0)
                }
            }
            (_, Some(r)) if r < new => {
                let out = self.run.pop_front();
                self.hold(new);
                out
            }
            _ => Some(new),
        };
        if let Some(out) = out {
            self.emit(out);
        }
    }

    fn emit(&mut self, out: Held) {
        self.last = Some(out.rank_free());
        self.log.push(&out.0);
        if let Some(e) = &mut self.early {
            e.observe(&out.0);
        }
    }

    /// The first pass made as the log was written, when the log is the whole merged order of
    /// the analysis (`only`: this is its only input) and nothing came late.
    pub fn take_early(&mut self, only: bool) -> Option<Early> {
        let e = self.early.take()?;
        (only && self.runs.is_empty() && self.late.is_empty()).then_some(e)
    }

    /// Hold an event: at the end of the in-order queue when it is later than all there.
    fn hold(&mut self, h: Held) {
        if self.run.back().is_none_or(|b| *b < h) {
            self.push_run(h);
        } else {
            self.heap.push(Reverse(h));
        }
    }

    fn push_run(&mut self, h: Held) {
        if self.run.len() == self.run.capacity() && self.run.len() >= RUN_DOUBLING {
            // It never holds more than the buffer's capacity.
            self.run
                .reserve_exact(self.capacity.saturating_sub(self.run.len()).max(1));
        }
        self.run.push_back(h);
    }

    /// The earliest held event, taken out.
    fn take_first(&mut self) -> Option<Held> {
        let heap_first = match (self.heap.peek(), self.run.front()) {
            (Some(h), Some(r)) => h.0 < *r,
            (Some(_), None) => true,
            (None, _) => false,
        };
        if heap_first {
            self.heap.pop().map(|t| t.0)
        } else {
            self.run.pop_front()
        }
    }

    fn flush_late(&mut self) {
        if self.late.is_empty() {
            return;
        }
        self.late.sort_by_key(input_key);
        let mut run = EventLog::new();
        for e in self.late.drain(..) {
            run.push(&e);
        }
        self.runs.push(run);
    }

    /// The input is done: everything held goes to the log (or the late runs).
    pub fn finish(&mut self) -> std::io::Result<()> {
        // What is held leaves in order, as `emit` would send it, but the log and the first
        // pass take it on two threads, a batch at a time: this drain (up to REORDER events)
        // ran alone on one core after the last line was read, the other idle.
        let mut batch: Vec<Event> =
            Vec::with_capacity(DRAIN_BATCH.min(self.heap.len() + self.run.len()));
        loop {
            batch.clear();
            while batch.len() < DRAIN_BATCH {
                match self.take_first() {
                    Some(h) => batch.push(h.0),
                    None => break,
                }
            }
            let Some(last) = batch.last() else { break };
            self.last = Some(input_key(last));
            let (log, early, batch) = (&mut self.log, &mut self.early, &batch);
            rayon::join(
                || batch.iter().for_each(|ev| log.push(ev)),
                || {
                    if let Some(e) = early {
                        batch.iter().for_each(|ev| e.observe(ev));
                    }
                },
            );
        }
        (self.heap, self.run) = (BinaryHeap::new(), VecDeque::new());
        self.flush_late();
        self.log.finish()?;
        for r in &mut self.runs {
            r.finish()?;
        }
        Ok(())
    }

    /// Every sorted sequence this input left: its log and its late runs.
    pub fn sequences(&self) -> impl Iterator<Item = &EventLog> {
        std::iter::once(&self.log).chain(self.runs.iter())
    }
}

/// k-way merge of sorted event logs into one time-ordered stream.
pub struct Merge<'a> {
    ranks: &'a [u16],
    readers: Vec<LogReader<'a>>,
    heap: BinaryHeap<Reverse<(Key, usize)>>,
    heads: Vec<Option<Event>>,
    /// One sequence only (one input in time order, the usual case): read straight through,
    /// with no keys to compute and no heap.
    single: Option<LogReader<'a>>,
}

impl<'a> Merge<'a> {
    pub fn new(
        logs: impl IntoIterator<Item = &'a EventLog>,
        ranks: &'a [u16],
    ) -> std::io::Result<Merge<'a>> {
        let mut m = Merge {
            ranks,
            readers: Vec::new(),
            heap: BinaryHeap::new(),
            heads: Vec::new(),
            single: None,
        };
        let logs: Vec<&EventLog> = logs.into_iter().collect();
        if let [log] = logs[..] {
            m.single = Some(log.reader()?);
            return Ok(m);
        }
        for log in logs {
            let mut r = log.reader()?;
            let head = r.next_event()?;
            let i = m.readers.len();
            if let Some(e) = &head {
                m.heap.push(Reverse((e.order_key(ranks), i)));
            }
            m.readers.push(r);
            m.heads.push(head);
        }
        Ok(m)
    }

    // Inline (with the reader's and the unpacking): an event handed back through memory was
    // stored field by field and copied 16 bytes at a time, a store-forwarding stall per event.
    #[inline(always)]
    pub fn next_event(&mut self) -> std::io::Result<Option<Event>> {
        if let Some(r) = &mut self.single {
            return r.next_event();
        }
        let Some(Reverse((_, i))) = self.heap.pop() else {
            return Ok(None);
        };
        let out = self.heads[i].take();
        let next = self.readers[i].next_event()?;
        if let Some(e) = &next {
            self.heap.push(Reverse((e.order_key(self.ranks), i)));
        }
        self.heads[i] = next;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::event::{pack_loc, EVENT_BYTES, NONE};

    fn ev(input: u16, pos: usize, t: i64) -> Event {
        let mut b = [0u8; EVENT_BYTES];
        Event::decode(&b).encode(&mut b);
        let mut e = Event::decode(&b);
        e.t_us = t;
        e.loc = pack_loc(input, pos);
        e.host = NONE;
        e
    }

    fn drain(m: &mut Merge) -> Vec<(i64, u16, u64)> {
        let mut out = vec![];
        while let Some(e) = m.next_event().unwrap() {
            out.push((e.t_us, e.input(), e.position()));
        }
        out
    }

    #[test]
    fn nearly_sorted_input_comes_out_sorted_without_late_runs() {
        let ranks = ranks(&["a"]);
        let mut o = Orderer::with_capacity(4);
        for (i, t) in [3, 1, 2, 5, 4, 6, 8, 7].into_iter().enumerate() {
            o.push(ev(0, i, t));
        }
        // A full buffer replaces its earliest event in place: it never outgrows its capacity.
        assert!(o.heap.capacity() <= 4, "{}", o.heap.capacity());
        o.finish().unwrap();
        assert!(o.runs.is_empty());
        let mut m = Merge::new(o.sequences(), &ranks).unwrap();
        let times: Vec<i64> = drain(&mut m).into_iter().map(|x| x.0).collect();
        assert_eq!(times, vec![1, 2, 3, 4, 5, 6, 7, 8]);
    }

    #[test]
    fn the_in_order_queue_grows_to_the_capacity_and_no_further() {
        let capacity = 3 * RUN_DOUBLING + 5;
        let mut o = Orderer::with_capacity(capacity);
        for i in 0..capacity * 3 {
            o.push(ev(0, i, i as i64));
        }
        assert_eq!(o.run.len(), capacity);
        assert!(o.run.capacity() <= capacity, "{}", o.run.capacity());
        o.finish().unwrap();
        let times: Vec<i64> = read_all(&o.log).into_iter().map(|x| x.0).collect();
        assert_eq!(times, (0..capacity as i64 * 3).collect::<Vec<_>>());
    }

    fn read_all(log: &EventLog) -> Vec<(i64, u64)> {
        let mut r = log.reader().unwrap();
        let mut out = vec![];
        while let Some(e) = r.next_event().unwrap() {
            out.push((e.t_us, e.position()));
        }
        out
    }

    proptest::proptest! {
        /// The in-order queue changes nothing: the log, the late runs and the late count are
        /// those of the reorder heap alone (the buffer before the queue), for any input order.
        #[test]
        fn the_in_order_queue_keeps_the_heaps_output(
            times in proptest::collection::vec(0i64..60, 0..300),
            sorted_prefix in 0usize..300,
            capacity in 1usize..12,
        ) {
            let mut times = times;
            let k = sorted_prefix.min(times.len());
            times[..k].sort_unstable();
            let ranks = ranks(&["a"]);
            let mut o = Orderer::with_capacity(capacity);
            // The heap-only buffer, as it was.
            let (mut heap, mut last, mut log, mut late, mut late_count) =
                (BinaryHeap::new(), None, vec![], vec![], 0u64);
            for (i, &t) in times.iter().enumerate() {
                o.push(ev(0, i, t));
                let e = ev(0, i, t);
                let key = e.order_key(&ranks);
                if last.is_some_and(|l| key < l) {
                    late_count += 1;
                    late.push((t, i as u64));
                    continue;
                }
                heap.push(Reverse((key, (t, i as u64))));
                if heap.len() > capacity {
                    let Reverse((k, x)) = heap.pop().unwrap();
                    last = Some(k);
                    log.push(x);
                }
            }
            while let Some(Reverse((_, x))) = heap.pop() {
                log.push(x);
            }
            o.finish().unwrap();
            proptest::prop_assert_eq!(read_all(&o.log), log);
            proptest::prop_assert_eq!(o.late_count, late_count);
            let mut got_late: Vec<(i64, u64)> = o.runs.iter().flat_map(read_all).collect();
            got_late.sort_unstable();
            late.sort_unstable();
            proptest::prop_assert_eq!(got_late, late);
            proptest::prop_assert!(o.heap.len() + o.run.len() == 0);
        }
    }

    #[test]
    fn far_out_of_order_input_is_merged_from_late_runs() {
        let ranks = ranks(&["a"]);
        let mut o = Orderer::with_capacity(2);
        let times: Vec<i64> = (0..50).rev().collect();
        for (i, t) in times.iter().enumerate() {
            o.push(ev(0, i, *t));
        }
        o.finish().unwrap();
        assert!(o.late_count > 0);
        let mut m = Merge::new(o.sequences(), &ranks).unwrap();
        let got: Vec<i64> = drain(&mut m).into_iter().map(|x| x.0).collect();
        assert_eq!(got, (0..50).collect::<Vec<_>>());
    }

    #[test]
    fn ties_go_by_input_name_then_position() {
        let names = ["b.jsonl", "a.jsonl"];
        let ranks = ranks(&names);
        let mut logs = vec![];
        for input in 0..2u16 {
            let mut o = Orderer::with_capacity(8);
            o.push(ev(input, 2, 10));
            o.push(ev(input, 1, 10));
            o.finish().unwrap();
            logs.push(o);
        }
        let mut m = Merge::new(logs.iter().flat_map(|o| o.sequences()), &ranks).unwrap();
        assert_eq!(
            drain(&mut m),
            vec![(10, 1, 1), (10, 1, 2), (10, 0, 1), (10, 0, 2)]
        );
    }
}
