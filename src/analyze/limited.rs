//! The rate-limited responses (and the failures that stated a Retry-After): one row each, with
//! the full record until attribution has read it. Rows are numbered in arrival order (the
//! events point at them) and listed in time order.
//!
//! Attribution runs once every input is read (a host's baseline is its earliest successes of
//! all inputs), so each rate-limited record waits until then: in a temporary file
//! ([`spill`]), not in memory, so that memory does not grow with the number of 429s (≈ 1 KB a
//! record). Records with an access log's own layer signal stay in memory: they are the ones
//! [`Rows::joined_layers`] reads all at once, and are rare.

use super::event::{Event, Kept, SampleKey};
use crate::attribute::{self, Attribution};
pub use crate::detect::kept::{Facts, Row};
use crate::http::retry_after::{self, RetryAfter};
use crate::model::Request;
use crate::report::{RateLimited, RateLimitedRows, RowsWriter};
use std::sync::Arc;

/// Maps of this module, keyed by row ids and evidence keys (hundreds of bytes): foldhash,
/// not SipHash, which was most of a cache lookup.
type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::FixedState>;

pub mod held;
pub mod pool;
pub mod spill;

use pool::Pool;

#[derive(Debug, Default)]
pub struct Rows {
    /// By row id (after [`Rows::sort`]; before, while rows are held, the rows from
    /// [`held::Held::written`] on).
    pub rows: Vec<Row>,
    /// Row ids of the rate-limited rows in the merged order (after [`Rows::sort`]).
    pub order: Vec<u32>,
    /// Each row's record until attribution has read it (rate-limited rows only), by row id;
    /// apart from the rows, which outlive it.
    records: Vec<spill::Stored>,
    /// The records waiting for attribution.
    spill: spill::Spill,
    /// The latest distinct Retry-Afters, shared by the rows that state the same: a long
    /// incident's 429s mostly say one of a few (each ≈ 150 bytes).
    retry_afters: Vec<Arc<RetryAfter>>,
    /// Rows written to a temporary file as they come (following a log: [`Rows::hold`]),
    /// read back by [`Rows::sort`].
    held: Option<held::Held>,
    /// What went wrong with the held rows' file, once they are read back.
    held_error: Option<String>,
}

/// Distinct Retry-Afters [`Rows`] keeps at hand to share (the least recent is let go).
const RETRY_AFTERS_SHARED: usize = 16;

impl Rows {
    /// From now on, rows go to a temporary file `chunk` at a time until [`Rows::sort`] (a
    /// followed log: its memory would grow with every 429 read). Set before any row is kept.
    pub fn hold(&mut self, chunk: usize) {
        debug_assert!(self.rows.is_empty(), "rows are held from the first one");
        self.held = Some(held::Held::new(chunk));
    }

    /// Keep a response; returns its row id for the event.
    pub fn push(&mut self, ev: &Event, kind: Kept, r: Box<Request>) -> u32 {
        let first = self.held.as_ref().map_or(0, |h| h.written);
        let id = first + self.rows.len() as u32;
        let retry_after = self.share(retry_after::from_headers(&r.response_headers, r.started));
        self.rows.push(Row {
            t_us: ev.t_us,
            t_ns: ev.t_ns,
            loc: ev.loc,
            host: ev.host,
            client: ev.client,
            op: ev.op,
            kind,
            retry_after,
            cors: attribute::cors::of(&r).map(Box::new),
            facts: None,
        });
        self.records.push(if kind == Kept::Limited {
            self.spill.store(r)
        } else {
            spill::Stored::None
        });
        if let Some(h) = self.held.as_mut() {
            h.offer(&mut self.rows, &mut self.records);
        }
        id
    }

    /// The held rows, back in memory before the ones kept since (in row-id order).
    fn read_back(&mut self) {
        let Some(mut h) = self.held.take() else {
            return;
        };
        let (mut rows, mut records) = h.read_back(&mut |ra| self.share(ra));
        rows.append(&mut self.rows);
        records.append(&mut self.records);
        (self.rows, self.records) = (rows, records);
        self.held_error = h.error.map(|e| match h.lost {
            0 => format!("{e}; the rate-limited rows were kept in memory instead"),
            n => format!(
                "{e}: {n} kept responses could not be read back and are missing from the list"
            ),
        });
    }

    /// A temporary file (of records, or of held rows) failed: what happened, and what it cost
    /// (kept in memory instead, or rows that could not be read back and are missing from the
    /// list).
    pub fn spill_error(&self) -> Option<String> {
        let records = self.spill.error.as_deref().map(|e| match self.spill.lost {
            0 => format!("{e}; the rate-limited records were kept in memory instead"),
            n => format!(
                "{e}: {n} rate-limited responses could not be read back and are missing from the list"
            ),
        });
        match (records, self.held_error.clone()) {
            (Some(a), Some(b)) => Some(format!("{a}; {b}")),
            (a, b) => a.or(b),
        }
    }

    /// One copy of `ra` for every row that states the same.
    fn share(&mut self, ra: RetryAfter) -> Arc<RetryAfter> {
        if let Some(i) = self.retry_afters.iter().rposition(|a| **a == ra) {
            return self.retry_afters[i].clone();
        }
        let a = Arc::new(ra);
        if self.retry_afters.len() >= RETRY_AFTERS_SHARED {
            self.retry_afters.remove(0);
        }
        self.retry_afters.push(a.clone());
        a
    }

    pub fn get(&self, id: u32) -> Option<&Row> {
        self.rows.get(id as usize)
    }

    /// Order the rate-limited rows by `key` (the merged order, untimed last). Every row is in:
    /// the spare room of the grown vectors is given back (a quarter of it on average, for the
    /// rest of the run).
    pub fn sort(&mut self, key: impl Fn(i64, u16, u64) -> SampleKey) {
        self.read_back();
        self.rows.shrink_to_fit();
        self.records.shrink_to_fit();
        let mut order: Vec<u32> = (0..self.rows.len() as u32)
            .filter(|&i| self.rows[i as usize].kind == Kept::Limited)
            .collect();
        order.sort_by_cached_key(|&i| {
            let r = &self.rows[i as usize];
            key(r.t_us, r.t_ns, r.loc)
        });
        self.order = order;
    }

    /// Rate-limited rows in time order.
    pub fn limited(&self) -> impl Iterator<Item = &Row> {
        self.order.iter().map(|&i| &self.rows[i as usize])
    }

    /// Pairs of rate-limited rows that are one request seen in two layers' access logs
    /// (outer row id → the inner row's record and host), from
    /// [`attribute::inner_layer_pairs`]. The inner records are copied: attribution releases
    /// each record as it reads it.
    pub fn joined_layers(&self) -> std::collections::HashMap<u32, (Box<Request>, u32)> {
        // Only records with a layer signal can pair (attribute::inner_layer_pairs), and those
        // stay in memory.
        let ids: Vec<u32> = self
            .order
            .iter()
            .copied()
            .filter(|&i| self.records[i as usize].in_memory().is_some())
            .collect();
        let refs: Vec<&Request> = ids
            .iter()
            .filter_map(|&i| self.records[i as usize].in_memory())
            .collect();
        attribute::inner_layer_pairs(&refs)
            .into_iter()
            .map(|(outer, inner)| {
                let row = &self.rows[ids[inner] as usize];
                (ids[outer], (Box::new(refs[inner].clone()), row.host))
            })
            .collect()
    }

    /// Attribute every rate-limited row, returning the report's rows in time order. Rows are
    /// taken [`ATTRIBUTE_CHUNK`] at a time; each distinct evidence key ([`Verdicts::key`]) of a
    /// host is attributed once (on the thread pool) and its verdict shared by every row with
    /// that key. A row's verdict depends on its record and its host's baseline only, so the
    /// result is the same on any number of threads; records are released chunk by chunk.
    pub fn attribute(&mut self, verdicts: &Verdicts) -> RateLimitedRows {
        use rayon::prelude::*;
        let order = self.order.clone();
        let mut out = RowsWriter::default();
        let mut shared = SharedAttributions::default();
        let mut cache: HashMap<Vec<u8>, Arc<Attribution>> = HashMap::default();
        let mut facts_pool: Pool<Facts> = Pool::new(SHARED_CAP);
        let mut strings: Pool<str> = Pool::new(SHARED_STRINGS);
        for chunk in order.chunks(ATTRIBUTE_CHUNK) {
            // The chunk's records, from memory or the temporary file, by row id.
            let stored: Vec<(u32, spill::Stored)> = chunk
                .iter()
                .map(|&i| (i, std::mem::take(&mut self.records[i as usize])))
                .collect();
            let records: HashMap<u32, Box<Request>> =
                self.spill.load_many(stored).into_iter().collect();
            let rows = &self.rows;
            let records = &records;
            let record = |i: u32| {
                let row = &rows[i as usize];
                records.get(&i).map(|r| (&**r, row.host))
            };
            // 1. Keys, on the workers.
            let keys: Vec<(u32, Option<Vec<u8>>)> = chunk
                .par_iter()
                .filter_map(|&i| {
                    let (r, host) = record(i)?;
                    Some((i, (verdicts.key)(i, r, host)))
                })
                .collect();
            // 2. What is not known yet: one row per new key, and every row without one.
            let mut slot: Vec<Slot> = Vec::with_capacity(keys.len());
            let mut todo: Vec<u32> = Vec::new();
            let mut pending: HashMap<&[u8], usize> = HashMap::default();
            for (i, key) in &keys {
                let Some(key) = key else {
                    slot.push(Slot::Todo(todo.len()));
                    todo.push(*i);
                    continue;
                };
                if let Some(a) = cache.get(key.as_slice()) {
                    slot.push(Slot::Known(a.clone()));
                } else if let Some(&t) = pending.get(key.as_slice()) {
                    slot.push(Slot::Todo(t));
                } else {
                    pending.insert(key.as_slice(), todo.len());
                    slot.push(Slot::Todo(todo.len()));
                    todo.push(*i);
                }
            }
            drop(pending);
            // 3. Those attributed, on the workers; equal verdicts shared.
            let fresh: Vec<(Attribution, u64)> = todo
                .par_iter()
                .map(|&i| {
                    let a = match record(i) {
                        Some((r, host)) => (verdicts.attribute)(i, r, host),
                        None => Attribution::unknown(),
                    };
                    let hash = SharedAttributions::hash(&a);
                    (a, hash)
                })
                .collect();
            let fresh: Vec<Arc<Attribution>> = fresh
                .into_iter()
                .map(|(a, hash)| shared.share(hash, Arc::new(a)))
                .collect();
            for ((_, key), s) in keys.iter().zip(&slot) {
                if let (Some(key), Slot::Todo(t)) = (key, s) {
                    if cache.len() < CACHED_KEYS && !cache.contains_key(key.as_slice()) {
                        cache.insert(key.clone(), fresh[*t].clone());
                    }
                }
            }
            // 4. Each row's facts, on the workers; then its listing, with the URL and method
            // shared.
            let done: Vec<(u32, Facts, Arc<Attribution>)> = keys
                .par_iter()
                .zip(slot.par_iter())
                .filter_map(|((i, _), s)| {
                    let (r, _) = record(*i)?;
                    let a = match s {
                        Slot::Known(a) => a.clone(),
                        Slot::Todo(t) => fresh[*t].clone(),
                    };
                    Some((*i, facts(r, &a, &rows[*i as usize].retry_after), a))
                })
                .collect();
            for (i, facts, attribution) in done {
                let Some(r) = records.get(&i) else { continue };
                let row = &mut self.rows[i as usize];
                row.facts = Some(facts_pool.share_owned(facts));
                out.push(RateLimited {
                    request_index: i as usize,
                    source: r.location.source.clone(),
                    position: r.location.position,
                    time: r.started,
                    method: strings.share(r.method.as_str()),
                    url: strings.share(r.url.as_str()),
                    status: r.status,
                    retry_after: row.retry_after.clone(),
                    span: r.span.clone(),
                    client: None,
                    attribution,
                    next_attempt: None,
                });
            }
        }
        self.spill.close();
        self.records = Vec::new();
        out.finish()
    }
}

/// How rate-limited rows get their verdicts: `key(row id, record, host id)` is the record's
/// evidence key (equal keys, equal verdicts: it names the host's baseline too; `None`:
/// attribute the row on its own),
/// `attribute(row id, record, host id)` the verdict.
pub struct Verdicts<'a> {
    pub key: &'a KeyFn<'a>,
    pub attribute: &'a VerdictFn<'a>,
}

/// `(row id, record, host id)` → evidence key.
pub type KeyFn<'a> = dyn Fn(u32, &Request, u32) -> Option<Vec<u8>> + Sync + 'a;
/// `(row id, record, host id)` → verdict.
pub type VerdictFn<'a> = dyn Fn(u32, &Request, u32) -> Attribution + Sync + 'a;

/// Where a row's verdict comes from in a chunk.
enum Slot {
    Known(Arc<Attribution>),
    /// Index into the chunk's rows to attribute.
    Todo(usize),
}

/// Distinct evidence keys remembered (a key is a response's headers and body excerpt: a few
/// hundred bytes); past this, new keys are attributed each time.
const CACHED_KEYS: usize = 4096;

/// Rate-limited rows attributed at once (their records are released after each chunk).
const ATTRIBUTE_CHUNK: usize = 2048;

/// Distinct attributions (and distinct facts) shared at most; past this, new ones are kept
/// unshared.
const SHARED_CAP: usize = 4096;

/// Distinct URLs and methods of the report's rows shared at most (≈ 100 bytes each with the
/// pool's entry); past this, new ones are kept unshared.
const SHARED_STRINGS: usize = 8192;

/// One copy of each distinct attribution: an incident's thousands of 429s from one layer carry
/// a handful of distinct verdicts, and the report lists every row (an attribution with its
/// evidence is ≈ 0.9 KB). Equal verdicts are found by the hash of their serialized form (what
/// the report writes), then compared whole.
#[derive(Default)]
struct SharedAttributions {
    seen: std::collections::HashMap<u64, Vec<Arc<Attribution>>, foldhash::fast::FixedState>,
    kept: usize,
}

impl SharedAttributions {
    /// The hash of `a`'s JSON form (computed on the workers; no string is built).
    fn hash(a: &Attribution) -> u64 {
        use std::hash::{BuildHasher, Hasher};
        struct HashWriter(foldhash::fast::FoldHasher<'static>);
        impl std::io::Write for HashWriter {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.write(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut w = HashWriter(foldhash::fast::FixedState::default().build_hasher());
        // Serializing into a hasher cannot fail on I/O; a value serde refuses just hashes short.
        let _ = serde_json::to_writer(&mut w, a);
        w.0.finish()
    }

    fn share(&mut self, hash: u64, a: Arc<Attribution>) -> Arc<Attribution> {
        let same = self.seen.entry(hash).or_default();
        if let Some(s) = same.iter().find(|s| ***s == *a) {
            return s.clone();
        }
        if self.kept < SHARED_CAP {
            same.push(a.clone());
            self.kept += 1;
        }
        a
    }
}

/// The quota signals and the concurrency wording of one rate-limited response.
fn facts(r: &Request, a: &Arc<Attribution>, ra: &RetryAfter) -> Facts {
    let (quota_signals, quota_resume) = crate::detect::quota_exhausted::signals(r, a, ra);
    Facts {
        attribution: a.clone(),
        says_concurrency: r
            .body_excerpt
            .as_deref()
            .map(|b| b.to_ascii_lowercase().contains("concurren"))
            .unwrap_or(false),
        quota_signals,
        quota_resume,
        stated: crate::http::ratelimit::stated(
            &r.response_headers,
            r.body_excerpt.as_deref(),
            r.started,
        ),
    }
}
