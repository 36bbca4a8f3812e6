//! The attribution baseline is exactly each host's earliest [`BASELINE_MAX`] successes in the
//! merged time order, however the inputs are ordered and however far the workers map ahead of
//! the sink, while successes past a full baseline take the view path from the first input on.

use super::collect::Collector;
use super::event::{self, Mapped, Shared};
use crate::attribute::engine::BASELINE_MAX;
use crate::model::{Location, Position, Request};
use proptest::prelude::*;
use std::sync::Arc;

const HOST: &str = "https://api.example.com/v1/items";

fn success(source: &Arc<str>, line: usize, t_s: i64) -> Request {
    let mut r = Request::at(Location {
        source: source.clone(),
        position: Position::Line(line),
    });
    r.status = 200;
    r.method = "GET".into();
    r.url = format!("{HOST}/{line}");
    r.started = chrono::DateTime::from_timestamp(1_772_000_000 + t_s, 0);
    r
}

/// Feed `inputs` (each a list of start seconds, in input order) through a streaming collector
/// the way the ingest workers do: each batch of `ahead` records is mapped before the sink
/// takes any of it (so the sink's bound reaches the workers late). Returns the baseline as
/// (input, line) and the number of records that took the view path.
fn baseline_of(
    inputs: &[(&str, Vec<i64>)],
    ahead: usize,
    reorder: usize,
) -> (Vec<(String, usize)>, usize) {
    let names: Vec<Arc<str>> = inputs.iter().map(|(n, _)| Arc::from(*n)).collect();
    let shared = Arc::new(Shared::default());
    let mut c = Collector::with_reorder(names.clone(), shared.clone(), reorder);
    c.streaming = true;
    let mut views = 0;
    for (i, (_, times)) in inputs.iter().enumerate() {
        c.start_input(i);
        let recs: Vec<Request> = times
            .iter()
            .enumerate()
            .map(|(line, &t)| success(&names[i], line + 1, t))
            .collect();
        for batch in recs.chunks(ahead.max(1)) {
            let mut mapped: Vec<Mapped> = batch
                .iter()
                .map(|r| {
                    let v = event::RecordView::of(r);
                    if event::may_map_view(r.status, false, &r.url, &shared) {
                        if let Some(m) = event::map_view(&v, i as u16, &shared) {
                            views += 1;
                            return m;
                        }
                    }
                    event::map(r.clone(), i as u16, &shared)
                })
                .collect();
            c.take(i, &mut mapped);
        }
        c.finish_input(i).unwrap();
    }
    let host = (0..c.hosts.len() as u32)
        .find(|&h| c.host_name(h) == "api.example.com")
        .expect("the host was interned");
    let got = c
        .baseline_samples(host)
        .iter()
        .map(|r| match r.location.position {
            Position::Line(l) => (r.location.source.to_string(), l),
            Position::Entry(e) => (r.location.source.to_string(), e),
        })
        .collect();
    (got, views)
}

/// The earliest [`BASELINE_MAX`] of every success by (time, input name, line).
fn expected(inputs: &[(&str, Vec<i64>)]) -> Vec<(String, usize)> {
    let mut all: Vec<(i64, &str, usize)> = inputs
        .iter()
        .flat_map(|(n, ts)| ts.iter().enumerate().map(move |(l, &t)| (t, *n, l + 1)))
        .collect();
    all.sort();
    all.truncate(BASELINE_MAX);
    all.into_iter()
        .map(|(_, n, l)| (n.to_string(), l))
        .collect()
}

/// The bug this guards against: marking a host's baseline done once the reorder buffer has
/// written past its latest sample lets a success that arrives later but is earlier in time
/// (an input out of order by more than the buffer) take the view path and miss the baseline.
#[test]
fn an_out_of_order_success_still_enters_the_baseline() {
    let mut times: Vec<i64> = (0..700).map(|i| 1000 + i).collect();
    // Line 701: earlier than everything before it, far past a 4-event reorder buffer.
    times.push(5);
    times.extend((0..100).map(|i| 2000 + i));
    let inputs = [("a.jsonl", times)];
    let (got, views) = baseline_of(&inputs, 1, 4);
    assert!(
        got.contains(&("a.jsonl".to_string(), 701)),
        "{:?}",
        &got[..3]
    );
    assert_eq!(got, expected(&inputs));
    // Every success after the first BASELINE_MAX but the early one took the view path.
    assert_eq!(views, 801 - BASELINE_MAX - 1);
}

/// In a time-ordered input the view path starts right after the host's first BASELINE_MAX
/// successes (not only once the reorder buffer drains, at 131,072 events), and a second input
/// later in time takes it from its first record.
#[test]
fn the_view_path_starts_once_the_baseline_is_full() {
    let first: Vec<i64> = (0..2000).collect();
    let second: Vec<i64> = (5000..6000).collect();
    let inputs = [("a.jsonl", first), ("b.jsonl", second)];
    let (got, views) = baseline_of(&inputs, 64, super::order::REORDER);
    assert_eq!(got, expected(&inputs));
    // The workers map 64 ahead: at most that many more go the full way before the bound.
    assert!(views >= 3000 - BASELINE_MAX - 64, "{views}");
}

/// Two inputs whose times tie, read in the opposite order of their names: ties go by name.
#[test]
fn ties_across_inputs_go_by_input_name() {
    let times: Vec<i64> = (0..400).map(|i| i / 2).collect();
    let inputs = [("z.jsonl", times.clone()), ("m.jsonl", times)];
    let (got, _) = baseline_of(&inputs, 7, 16);
    assert_eq!(got, expected(&inputs));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Any order (sorted, jittered, reversed, shuffled, a far-back straggler), one or two
    /// inputs, any worker lead, any reorder buffer: the baseline is the earliest successes.
    #[test]
    fn the_baseline_is_the_earliest_successes_for_any_order(
        n in 300usize..1300,
        shape in 0u8..5,
        seed in any::<u64>(),
        two in any::<bool>(),
        ahead in prop_oneof![Just(1usize), 1usize..200],
        reorder in prop_oneof![Just(1usize), Just(8), Just(4096)],
    ) {
        let mut rng = seed | 1;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let mut make = |n: usize, base: i64| -> Vec<i64> {
            let mut t: Vec<i64> = (0..n as i64).map(|i| base + i).collect();
            match shape {
                0 => {}
                1 => t.iter_mut().for_each(|x| *x += (next() % 50) as i64),
                2 => t.reverse(),
                3 => {
                    for i in (1..t.len()).rev() {
                        let j = (next() % (i as u64 + 1)) as usize;
                        t.swap(i, j);
                    }
                }
                _ => {
                    let last = t.len() - 1;
                    t[last] = base - 1;
                }
            }
            t
        };
        let mut inputs = vec![("b.jsonl", make(n, 0))];
        if two {
            inputs.push(("a.jsonl", make(n / 2 + 1, (n / 3) as i64)));
        }
        let (got, _) = baseline_of(&inputs, ahead, reorder);
        prop_assert_eq!(got, expected(&inputs));
    }
}

/// The real streaming path (reader, two workers, the view pre-check, the sink): a success far
/// back in time at the end of a sorted log still enters the baseline, and the records after
/// the first BASELINE_MAX take the view path.
#[test]
fn streaming_two_workers_keep_the_exact_baseline() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.jsonl");
    let mut text = String::new();
    // Long lines: the reader cuts 1 MiB jobs and runs a few jobs per worker ahead of the sink.
    let pad = "x".repeat(1000);
    let line = |t: i64, i: usize| {
        let ts = chrono::DateTime::from_timestamp(1_772_000_000 + t, 0).unwrap();
        format!(
            "{{\"ts\":\"{}\",\"method\":\"GET\",\"url\":\"{HOST}/{i}\",\"status\":200,\"note\":\"{}\"}}\n",
            ts.to_rfc3339(),
            pad
        )
    };
    const N: usize = 12_000;
    let mut times: Vec<i64> = (0..N as i64).map(|i| 100 + i).collect();
    times.push(1);
    for (i, t) in times.iter().enumerate() {
        text.push_str(&line(*t, i));
    }
    std::fs::write(&path, text).unwrap();
    let p = path.to_string_lossy().to_string();
    let names: Vec<Arc<str>> = vec![Arc::from(p.as_str())];
    let shared = Arc::new(Shared::default());
    let mut c = Collector::new(names, shared.clone());
    c.streaming = true;
    c.start_input(0);
    let mut opts = crate::ingest::Options::new(crate::redact::Redactor::from_key_material(
        b"baseline tests",
    ));
    opts.threads = Some(2);
    let views = std::sync::atomic::AtomicUsize::new(0);
    struct Counting<'a>(
        crate::analyze::event::EventViews<'a>,
        &'a std::sync::atomic::AtomicUsize,
    );
    impl crate::ingest::Views<Mapped> for Counting<'_> {
        fn may_view(&self, status: u16, layer: bool, url: &str) -> bool {
            self.0.may_view(status, layer, url)
        }
        fn view(&self, v: &event::RecordView<'_>) -> Option<Mapped> {
            let m = self.0.view(v)?;
            self.1.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Some(m)
        }
    }
    let counting = Counting(
        crate::analyze::event::EventViews {
            input: 0,
            shared: &shared,
        },
        &views,
    );
    let map = |r: Request| event::map(r, 0, &shared);
    let summary =
        crate::ingest::stream_input_with(&p, &opts, &map, Some(&counting), &mut |b| c.take(0, b));
    assert_eq!(summary.records, N + 1, "{:?}", summary.error);
    c.finish_input(0).unwrap();
    let host = (0..c.hosts.len() as u32)
        .find(|&h| c.host_name(h) == "api.example.com")
        .unwrap();
    let lines: Vec<usize> = c
        .baseline_samples(host)
        .iter()
        .map(|r| match r.location.position {
            Position::Line(l) | Position::Entry(l) => l,
        })
        .collect();
    let mut want = vec![N + 1];
    want.extend(1..BASELINE_MAX);
    assert_eq!(lines, want);
    let views = views.into_inner();
    // Two workers run a few jobs ahead of the sink; everything past them takes the view.
    assert!(
        views > N / 4,
        "{views} of {} records took the view path",
        N + 1
    );
}
