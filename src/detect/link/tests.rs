//! The linker and the cadence table: operations linked as the analysis links them.

use super::*;

#[test]
fn repeats_at_the_usual_pace_after_failures_are_independent_reads() {
    let mut usual: Vec<f64> = (0..20).map(|i| 0.5 + (i % 7) as f64 * 0.6).collect();
    // After failures, the next request came at the same pace: independent reads.
    assert!(independent_reads(
        &mut usual.clone(),
        &mut [2.4, 0.9, 1.8, 3.1]
    ));
    // Much sooner: a retry loop.
    assert!(!independent_reads(
        &mut usual.clone(),
        &mut [0.3, 0.31, 0.29, 2.0]
    ));
    // Too few gaps to tell.
    assert!(!independent_reads(&mut usual.clone(), &mut [2.4, 0.9]));
    assert!(!independent_reads(&mut usual[..5], &mut [2.4, 0.9, 1.8]));
}

/// A long stream of short-lived operation keys: `per_hour` new keys an hour, each used for
/// a few minutes (one request a minute, a failure every fifth request, retried 2 s later)
/// and never again, over `hours`. Calls `f` with each event and its merged position.
fn rotating_keys(hours: u64, per_hour: u64, f: &mut dyn FnMut(&Event, u64)) -> u64 {
    let t0: i64 = 1_764_590_400_000_000;
    let mut evs: Vec<Event> = Vec::new();
    let mut seq = 0u64;
    for h in 0..hours {
        evs.clear();
        for k in 0..per_hour {
            let op = h * per_hour + k + 1;
            let start = t0 + (h * 3600 + (k * 3600) / per_hour) as i64 * 1_000_000;
            for i in 0..6i64 {
                let t = start + i * 60_000_000;
                let failed = (op + i as u64).is_multiple_of(5);
                evs.push(Event::for_test(t, 80.0, op, if failed { 429 } else { 200 }));
                if failed {
                    evs.push(Event::for_test(t + 2_000_000, 80.0, op, 200));
                }
            }
        }
        evs.sort_by_key(|e| (e.t_us, e.op));
        for e in &evs {
            f(e, seq);
            seq += 1;
        }
    }
    seq
}

#[test]
fn state_follows_the_active_keys_not_the_records() {
    // 4 days, 500 new keys an hour: 48,000 keys, ~350,000 requests.
    let (hours, per_hour) = (96u64, 500u64);
    let mut cad = Cadences::new();
    let mut most_cad = 0;
    let n = rotating_keys(hours, per_hour, &mut |e, seq| {
        cad.observe(e, seq);
        most_cad = most_cad.max(cad.live_keys());
    });
    assert!(n > 300_000, "{n} requests");
    // Keys seen within IDLE_S (6 h), plus what one sweep interval lets accumulate.
    let active = (IDLE_S / 3600.0) as usize * per_hour as usize + per_hour as usize;
    assert!(
        most_cad <= active + SWEEP_EVERY as usize,
        "first replay held {most_cad} keys at most; active ≤ {active}"
    );
    let table = cad.finish();
    // Every key failed once; each its own stretch.
    assert_eq!(table.len(), (hours * per_hour) as usize);

    let mut linker = Linker::new(false);
    let (mut most_keys, mut most_open, mut closed_total) = (0, 0, 0usize);
    let mut closed = Vec::new();
    rotating_keys(hours, per_hour, &mut |e, seq| {
        linker.step(e, seq, table.stretch(e.op, seq), 0.0, &mut closed);
        closed_total += closed.len();
        closed.clear();
        most_keys = most_keys.max(linker.live_keys());
        most_open = most_open.max(linker.open_operations());
    });
    linker.finish(&mut closed);
    closed_total += closed.len();
    // Only keys with a failure awaiting its retry are held: a handful at any time (a
    // failure is retried 2 s later), never a share of the 48,000.
    assert!(most_keys <= 20, "linker held {most_keys} keys at most");
    assert!(most_open <= 20, "{most_open} operations open at most");
    // Every request is in exactly one operation: the retries joined their failure.
    let retries = (n as usize) - (hours * per_hour * 6) as usize;
    assert_eq!(closed_total, n as usize - retries);
}

#[test]
fn a_key_idle_past_the_horizon_starts_a_new_stretch_whenever_it_is_swept() {
    // Key 7 polls every 10 s for an hour, fails once, goes quiet for a day, comes back.
    // Key 8 keeps the replay busy (sweeps run) in one run and is absent in the other:
    // key 7's stretches must be the same.
    let t0: i64 = 1_764_590_400_000_000;
    let run = |busy: bool| {
        let mut evs = Vec::new();
        for i in 0..360i64 {
            let status = if i == 100 { 503 } else { 200 };
            evs.push(Event::for_test(t0 + i * 10_000_000, 50.0, 7, status));
            evs.push(Event::for_test(
                t0 + 86_400_000_000 + i * 10_000_000,
                50.0,
                7,
                status,
            ));
        }
        if busy {
            for i in 0..20_000i64 {
                evs.push(Event::for_test(t0 + i * 6_000_000, 50.0, 8, 200));
            }
        }
        evs.sort_by_key(|e| (e.t_us, e.op));
        let mut cad = Cadences::new();
        let mut seqs = Vec::new();
        for (seq, e) in evs.iter().enumerate() {
            cad.observe(e, seq as u64);
            if e.op == 7 {
                seqs.push(seq as u64);
            }
        }
        let table = cad.finish();
        let at = |k: usize| table.stretch(7, seqs[k]);
        (at(0), at(359), at(360), at(719), seqs[0], seqs[360])
    };
    for busy in [false, true] {
        let (a, b, c, d, first, again) = run(busy);
        assert_eq!(a, b, "busy={busy}");
        assert_eq!(c, d, "busy={busy}");
        let (a, c) = (a.unwrap(), c.unwrap());
        assert_eq!((a.from, c.from), (first, again), "busy={busy}");
        assert_eq!(a.cadence, Some(10.0));
        assert_eq!(c.cadence, Some(10.0));
    }
}

#[test]
fn past_the_cap_the_oldest_open_operations_are_closed() {
    let mut linker = Linker::with_cap(false, 8);
    let mut closed = Vec::new();
    let t0: i64 = 1_764_590_400_000_000;
    for op in 0..20u64 {
        let e = Event::for_test(t0 + op as i64 * 1_000_000, 10.0, op + 1, 429);
        linker.step(&e, op, None, 0.0, &mut closed);
        assert!(linker.live_keys() <= 8);
    }
    // Every closed operation is a whole one (its single failed attempt).
    assert!(!closed.is_empty());
    assert!(closed.iter().all(|l| l.attempts.len() == 1));
    linker.finish(&mut closed);
    assert_eq!(closed.len(), 20);
}

/// The first replay as it was before the gap slab (a map of whole key states, sorted
/// forgetting): the reference the property test compares with.
mod reference {
    use super::super::*;

    struct OldGaps {
        first_seq: u64,
        touched: u64,
        last_start: f64,
        last_failed: bool,
        failed_once: bool,
        gaps: Vec<f64>,
        failure_gaps: Vec<f64>,
        stride: u32,
        skipped: u32,
    }

    impl OldGaps {
        fn see(&mut self, t: f64, status: u16, seq: u64) {
            if !self.last_start.is_nan() {
                let g = t - self.last_start;
                if !self.last_failed {
                    self.push_gap(g);
                } else if self.failure_gaps.len() < FAILURE_GAPS_CAP {
                    self.failure_gaps.push(g);
                }
            }
            let failed = is_failure(status);
            self.last_start = t;
            self.last_failed = failed;
            self.failed_once |= failed;
            self.touched = seq;
        }

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

    pub struct OldCadences {
        keys: Map<u64, OldGaps>,
        pub table: Map<u64, Vec<(u64, Option<f64>)>>,
        cap: usize,
        since_sweep: u64,
    }

    impl OldCadences {
        pub fn with_cap(cap: usize) -> OldCadences {
            OldCadences {
                keys: Map::default(),
                table: Map::default(),
                cap: cap.max(1),
                since_sweep: 0,
            }
        }

        pub fn observe(&mut self, ev: &Event, seq: u64) {
            let Some(t) = ev.start_s() else { return };
            self.since_sweep += 1;
            if self.since_sweep >= SWEEP_EVERY.max(self.keys.len() as u64) {
                self.since_sweep = 0;
                let mut idle: Vec<(u64, u64)> = self
                    .keys
                    .iter()
                    .filter(|(_, g)| t - g.last_start > IDLE_S)
                    .map(|(k, g)| (g.first_seq, *k))
                    .collect();
                idle.sort_unstable();
                for (_, key) in idle {
                    if let Some(g) = self.keys.remove(&key) {
                        self.record(key, g);
                    }
                }
            }
            if let Some(k) = self.keys.get_mut(&ev.op) {
                if t - k.last_start > IDLE_S {
                    if let Some(g) = self.keys.remove(&ev.op) {
                        self.record(ev.op, g);
                    }
                } else {
                    k.see(t, ev.status, seq);
                    return;
                }
            }
            if self.keys.len() >= self.cap {
                let mut by_age: Vec<(u64, u64)> =
                    self.keys.iter().map(|(k, g)| (g.touched, *k)).collect();
                by_age.sort_unstable();
                for (_, key) in by_age.into_iter().take(self.cap.div_ceil(2)) {
                    if let Some(g) = self.keys.remove(&key) {
                        self.record(key, g);
                    }
                }
            }
            self.keys
                .entry(ev.op)
                .or_insert_with(|| OldGaps {
                    first_seq: seq,
                    touched: seq,
                    last_start: f64::NAN,
                    last_failed: true,
                    failed_once: false,
                    gaps: Vec::new(),
                    failure_gaps: Vec::new(),
                    stride: 1,
                    skipped: 0,
                })
                .see(t, ev.status, seq);
        }

        fn record(&mut self, key: u64, mut g: OldGaps) {
            if g.failed_once {
                let c = cadence(&mut g.gaps).or_else(|| {
                    independent_reads(&mut g.gaps, &mut g.failure_gaps).then_some(INDEPENDENT_READS)
                });
                let v = self.table.entry(key).or_default();
                v.push((g.first_seq, c));
                v.sort_by_key(|(from, _)| *from);
            }
        }

        pub fn finish(mut self) -> Vec<super::Row> {
            let keys = std::mem::take(&mut self.keys);
            for (k, g) in keys {
                self.record(k, g);
            }
            let mut v: Vec<_> = self.table.into_iter().collect();
            v.sort_by_key(|(k, _)| *k);
            v
        }
    }
}

/// A key and its stretches (from, cadence).
type Row = (u64, Vec<(u64, Option<f64>)>);

fn table_rows(t: &CadenceTable) -> Vec<Row> {
    let mut v: Vec<_> = t
        .map
        .iter()
        .map(|(k, s)| (*k, s.as_slice().to_vec()))
        .collect();
    v.sort_by_key(|(k, _)| *k);
    v
}

/// Events of a few keys, in time order: gaps from regular to random, now and then an idle
/// spell past [`IDLE_S`], statuses mostly successes.
fn stream(steps: &[(u8, u8, u16, u8)]) -> Vec<Event> {
    let mut t: i64 = 1_764_590_400_000_000;
    steps
        .iter()
        .map(|&(op, status, gap, idle)| {
            t += i64::from(gap) * 10_000;
            if idle == 0 {
                t += (IDLE_S as i64 + 1) * 1_000_000;
            }
            let status = match status % 8 {
                0 => 429,
                1 => 503,
                _ => 200,
            };
            Event::for_test(t, 20.0, u64::from(op % 16), status)
        })
        .collect()
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
    /// The slab, the single lookup and the selection (instead of a sort) when forgetting
    /// give the old table exactly, at any cap, sweeps included.
    #[test]
    fn cadences_equal_the_reference(
        steps in proptest::collection::vec(
            (0u8..16, proptest::prelude::any::<u8>(), 0u16..1000, proptest::prelude::any::<u8>()),
            0..6000,
        ),
        cap in 1usize..20,
    ) {
        let evs = stream(&steps);
        let mut new = Cadences::with_cap(cap);
        let mut old = reference::OldCadences::with_cap(cap);
        for (seq, e) in evs.iter().enumerate() {
            new.observe(e, seq as u64);
            old.observe(e, seq as u64);
        }
        let want = old.finish();
        let got = table_rows(&new.finish());
        proptest::prop_assert_eq!(got, want);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
    /// The first replay observes only the keys that fail at least once (the analysis's
    /// `failed_ops`): below the cap, the table is the one every key gives, sweeps included.
    #[test]
    fn cadences_of_the_failing_keys_alone_are_the_table(
        steps in proptest::collection::vec(
            (0u8..16, proptest::prelude::any::<u8>(), 0u16..1000, proptest::prelude::any::<u8>()),
            0..6000,
        ),
    ) {
        // Keys 8 to 15 never fail.
        let steps: Vec<_> = steps
            .into_iter()
            .map(|(op, st, gap, idle)| (op, if op % 16 >= 8 { 2 } else { st }, gap, idle))
            .collect();
        let evs = stream(&steps);
        let failing: std::collections::HashSet<u64> = evs
            .iter()
            .filter(|e| e.timed() && crate::model::event::is_failure(e.status))
            .map(|e| e.op)
            .collect();
        let (mut all, mut some) = (Cadences::new(), Cadences::new());
        for (seq, e) in evs.iter().enumerate() {
            all.observe(e, seq as u64);
            if failing.contains(&e.op) {
                some.observe(e, seq as u64);
            }
        }
        let want = table_rows(&all.finish());
        proptest::prop_assert_eq!(table_rows(&some.finish()), want);
    }
}

#[test]
fn one_regular_key_past_the_gap_cap_equals_the_reference() {
    // A key polled every 5 s for 2,000 requests (the gap list halves three times), one
    // failure in the middle; a second key beside it with a random pace.
    let steps: Vec<(u8, u8, u16, u8)> = (0..4000u32)
        .map(|i| {
            let op = (i % 2) as u8;
            let status = if i == 2001 { 0 } else { 2 };
            let gap = if op == 0 {
                250
            } else {
                ((i * 37) % 500) as u16
            };
            (op, status, gap, 1)
        })
        .collect();
    let evs = stream(&steps);
    let mut new = Cadences::new();
    let mut old = reference::OldCadences::with_cap(KEY_CAP);
    for (seq, e) in evs.iter().enumerate() {
        new.observe(e, seq as u64);
        old.observe(e, seq as u64);
    }
    let want = old.finish();
    assert!(!want.is_empty());
    assert_eq!(table_rows(&new.finish()), want);
}

/// Recycled attempt lists change nothing: the same operations, attempts and order.
#[test]
fn recycled_attempt_lists_link_the_same() {
    let run = |recycle: bool| {
        let mut linker = Linker::new(false);
        let mut closed = Vec::new();
        type Seen = (u64, (u64, u64), u32, Vec<u64>);
        let mut seen: Vec<Seen> = Vec::new();
        let row = |l: &Logical| -> Seen {
            (
                l.id,
                l.order,
                l.client,
                l.attempts.iter().map(|a| a.seq).collect(),
            )
        };
        rotating_keys(2, 200, &mut |e, seq| {
            linker.step(e, seq, None, 0.0, &mut closed);
            for l in closed.drain(..) {
                seen.push(row(&l));
                if recycle {
                    linker.recycle(l);
                }
            }
        });
        linker.finish(&mut closed);
        seen.extend(closed.drain(..).map(|l| row(&l)));
        seen
    };
    assert_eq!(run(true), run(false));
}
