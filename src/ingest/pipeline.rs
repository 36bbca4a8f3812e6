//! The ingestion pipeline: one reader thread → N workers → the calling thread, in input order.
//!
//! The reader thread does only what cannot be split (decompressing, finding where one record
//! ends and the next begins) and hands *jobs* (a chunk of whole lines, a batch of HAR entries)
//! to workers, which parse, normalize, redact and run the caller's `map`. The calling thread
//! receives each job's result in the order the jobs were read, so everything downstream sees
//! records in input order whatever the thread count.
//!
//! Memory is bounded: the reader may run at most [`IN_FLIGHT_PER_WORKER`] × workers jobs ahead
//! of the sink (a permit is taken per job and returned when its result has been sunk), so a
//! slow consumer slows the reader instead of piling up results.
//!
//! A job's item buffer comes back to the workers once its items are sunk ([`Spares`]): a
//! fresh one per job was the access log's main source of page faults (two thirds of ~50k on
//! the 4M-line log, each a page the VM must back and the kernel zero).

use crate::model::Warning;
use std::collections::BTreeMap;
use std::sync::mpsc;
use std::sync::Mutex;

/// Jobs read ahead per worker before the reader waits for the sink.
pub(crate) const IN_FLIGHT_PER_WORKER: usize = 3;

/// What a worker makes of one job.
pub(crate) struct Done<T> {
    pub items: Vec<T>,
    /// Warnings in input order (by entry or line).
    pub warnings: Vec<Warning>,
    /// Records that could not be used at all.
    pub skipped: usize,
    /// Lines that gave no record, per reason (access logs).
    pub reasons: super::skip::Reasons,
}

impl<T> Default for Done<T> {
    fn default() -> Self {
        Done {
            items: Vec::new(),
            warnings: Vec::new(),
            skipped: 0,
            reasons: Default::default(),
        }
    }
}

/// Emptied item buffers, handed back to the workers. Bounded: at most [`Spares::MAX`] buffers,
/// none larger than [`Spares::MAX_BYTES`] (a job with far more items than usual keeps its own).
struct Spares<T>(Mutex<Vec<Vec<T>>>);

impl<T> Spares<T> {
    const MAX: usize = 4 * IN_FLIGHT_PER_WORKER;
    const MAX_BYTES: usize = 8 << 20;

    fn new() -> Spares<T> {
        Spares(Mutex::new(Vec::new()))
    }

    /// An empty buffer, with room if one came back.
    fn take(&self) -> Vec<T> {
        self.0
            .lock()
            .ok()
            .and_then(|mut s| s.pop())
            .unwrap_or_default()
    }

    /// Keep `items`' room for a later job (what the sink left in it is dropped).
    fn give(&self, mut items: Vec<T>) {
        items.clear();
        let bytes = items
            .capacity()
            .saturating_mul(std::mem::size_of::<T>().max(1));
        if items.capacity() == 0 || bytes > Self::MAX_BYTES {
            return;
        }
        if let Ok(mut s) = self.0.lock() {
            if s.len() < Self::MAX {
                s.push(items);
            }
        }
    }
}

/// How many workers to use: `threads` if set, else rayon's pool size (which follows
/// `--threads` and `RAYON_NUM_THREADS`).
pub(crate) fn workers(threads: Option<usize>) -> usize {
    threads.unwrap_or_else(rayon::current_num_threads).max(1)
}

/// Run `produce` (on a reader thread) feeding jobs to `work` (on `workers` threads); `sink`
/// gets each job's result on the calling thread in the order the jobs were fed. `work` gets
/// an empty item buffer to fill (room from an earlier job where there is one); `sink` takes
/// the items it wants out of the result, and the buffer goes back for another job.
///
/// With one worker everything runs inline on the calling thread (read, work, sink, read...):
/// one thread really means one thread, which is what `--threads 1` measures.
pub(crate) fn run<J, T, R>(
    workers: usize,
    produce: impl FnOnce(&mut dyn FnMut(J)) -> R + Send,
    work: &(dyn Fn(J, Vec<T>) -> Done<T> + Sync),
    sink: &mut dyn FnMut(&mut Done<T>),
) -> R
where
    J: Send,
    T: Send,
    R: Send,
{
    let spares = Spares::new();
    let spares = &spares;
    if workers <= 1 {
        return produce(&mut |job| {
            let mut done = work(job, spares.take());
            sink(&mut done);
            spares.give(done.items);
        });
    }
    let max_in_flight = workers * IN_FLIGHT_PER_WORKER;
    let (job_tx, job_rx) = mpsc::sync_channel::<(u64, J)>(workers);
    let job_rx = Mutex::new(job_rx);
    std::thread::scope(|s| {
        let (done_tx, done_rx) = mpsc::channel::<(u64, Done<T>)>();
        let (permit_tx, permit_rx) = mpsc::sync_channel::<()>(max_in_flight);

        let reader = s.spawn(move || {
            let mut seq = 0u64;
            produce(&mut |job| {
                // Both fail only when the receiving side is gone (a worker panicked); the
                // panic surfaces when the scope joins.
                if permit_tx.send(()).is_err() || job_tx.send((seq, job)).is_err() {
                    return;
                }
                seq += 1;
            })
        });
        for _ in 0..workers {
            let done_tx = done_tx.clone();
            let job_rx = &job_rx;
            s.spawn(move || loop {
                let next = match job_rx.lock() {
                    Ok(rx) => rx.recv(),
                    Err(_) => return,
                };
                let Ok((seq, job)) = next else { return };
                if done_tx.send((seq, work(job, spares.take()))).is_err() {
                    return;
                }
            });
        }
        drop(done_tx);

        // Reorder: results arrive in any order, leave in feed order.
        let mut pending: BTreeMap<u64, Done<T>> = BTreeMap::new();
        let mut next = 0u64;
        for (seq, done) in done_rx {
            pending.insert(seq, done);
            while let Some(mut d) = pending.remove(&next) {
                sink(&mut d);
                spares.give(d.items);
                next += 1;
                let _ = permit_rx.recv();
            }
        }
        match reader.join() {
            Ok(r) => r,
            Err(p) => std::panic::resume_unwind(p),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square_all(workers: usize, n: u64) -> (Vec<u64>, u64) {
        let mut got = Vec::new();
        let fed = run(
            workers,
            |feed| {
                let mut count = 0;
                for chunk in (0..n).collect::<Vec<_>>().chunks(7) {
                    feed(chunk.to_vec());
                    count += 1;
                }
                count
            },
            &|job: Vec<u64>, mut items: Vec<u64>| {
                // Uneven work so results finish out of order.
                if job[0].is_multiple_of(3) {
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
                assert!(items.is_empty(), "a spare buffer comes back empty");
                items.extend(job.iter().map(|x| x * x));
                Done {
                    items,
                    ..Done::default()
                }
            },
            &mut |d| got.append(&mut d.items),
        );
        (got, fed)
    }

    #[test]
    fn results_keep_feed_order_whatever_the_thread_count() {
        let expected: Vec<u64> = (0..500).map(|x| x * x).collect();
        for workers in [1, 2, 3, 8] {
            let (got, fed) = square_all(workers, 500);
            assert_eq!(got, expected, "{workers} workers");
            assert_eq!(fed, 72);
        }
    }

    #[test]
    fn reader_never_runs_unboundedly_ahead_of_the_sink() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let fed = AtomicUsize::new(0);
        let mut max_ahead = 0usize;
        let mut sunk = 0usize;
        run(
            2,
            |feed| {
                for i in 0..200usize {
                    fed.fetch_add(1, Ordering::SeqCst);
                    feed(i);
                }
            },
            &|i: usize, _| Done {
                items: vec![i],
                ..Done::default()
            },
            &mut |_| {
                std::thread::sleep(std::time::Duration::from_micros(200));
                sunk += 1;
                max_ahead = max_ahead.max(fed.load(Ordering::SeqCst) - sunk);
            },
        );
        assert_eq!(sunk, 200);
        assert!(max_ahead <= 2 * IN_FLIGHT_PER_WORKER + 1, "{max_ahead}");
    }

    #[test]
    fn item_buffers_come_back_to_the_workers_bounded() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let reused = AtomicUsize::new(0);
        for workers in [1, 2] {
            reused.store(0, Ordering::SeqCst);
            let mut got = 0usize;
            run(
                workers,
                |feed| (0..100usize).for_each(&mut *feed),
                &|i: usize, mut items: Vec<usize>| {
                    if items.capacity() >= 64 {
                        reused.fetch_add(1, Ordering::SeqCst);
                    }
                    items.extend((0..64).map(|k| i * 64 + k));
                    Done {
                        items,
                        ..Done::default()
                    }
                },
                // Takes some items and leaves the rest: they must not reach a later job.
                &mut |d| got += d.items.drain(..32).count(),
            );
            assert_eq!(got, 100 * 32);
            assert!(reused.load(Ordering::SeqCst) > 50, "{workers} workers");
        }
        let spares: Spares<u8> = Spares::new();
        spares.give(Vec::with_capacity(Spares::<u8>::MAX_BYTES + 1));
        for _ in 0..Spares::<u8>::MAX + 5 {
            spares.give(Vec::with_capacity(16));
        }
        assert_eq!(spares.0.lock().unwrap().len(), Spares::<u8>::MAX);
        assert!(spares.0.lock().unwrap().iter().all(|v| v.capacity() < 1024));
    }
}
