//! The report's list of rate-limited responses ([`Report::rate_limited`]): in memory while it is
//! short, else in an unnamed temporary file ([`Log`], the event logs' store), so that a report
//! of millions of 429s does not hold millions of rows. Renderers read it in order, as many
//! times as they like ([`RateLimitedRows::iter`]).
//!
//! A row is written as its own fields and the indexes of its shared parts (source, Retry-After,
//! attribution: a long incident repeats a few of each), which stay in memory once each. A row
//! read back is equal to the one written (tests below), so every format renders the same bytes
//! whether the list was spilled or not.
//!
//! [`Report::rate_limited`]: super::Report::rate_limited

use super::RateLimited;
use crate::attribute::Attribution;
use crate::http::retry_after::RetryAfter;
use crate::model::event::log::{Codec, Log};
use crate::model::trace::SpanRef;
use crate::model::Position;
use serde::ser::{Serialize, SerializeSeq, Serializer};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Rows kept as they are before the list continues in a temporary file.
pub const IN_MEMORY_ROWS: usize = 8192;

/// Bytes of encoded rows the spilled list keeps in memory before its file.
const LOG_MEMORY: usize = 1 << 20;

/// The rate-limited responses, in time order.
#[derive(Clone, Default)]
pub struct RateLimitedRows {
    store: Store,
}

#[derive(Clone)]
enum Store {
    Memory(Vec<RateLimited>),
    Spilled(Arc<Spilled>),
}

impl Default for Store {
    fn default() -> Store {
        Store::Memory(Vec::new())
    }
}

/// A list that went to its temporary file.
struct Spilled {
    log: Log<Bytes>,
    shared: Shared,
    /// Rows too long for the log's items, by their place in the list.
    long: HashMap<usize, RateLimited>,
    len: usize,
    /// The first failure to read the file back (the readers stop there).
    error: Mutex<Option<String>>,
}

/// The parts rows share, once each, and the index of each by its pointer.
#[derive(Default)]
struct Shared {
    sources: Vec<Arc<str>>,
    retry_afters: Vec<Arc<RetryAfter>>,
    attributions: Vec<Arc<Attribution>>,
    /// Each part's index by its address (the tables keep every part alive, so an address is
    /// never reused for another).
    source_ix: HashMap<usize, u32>,
    retry_after_ix: HashMap<usize, u32>,
    attribution_ix: HashMap<usize, u32>,
}

fn index_of<T: ?Sized>(
    table: &mut Vec<Arc<T>>,
    ix: &mut HashMap<usize, u32>,
    part: &Arc<T>,
) -> u32 {
    let address = Arc::as_ptr(part) as *const u8 as usize;
    *ix.entry(address).or_insert_with(|| {
        table.push(part.clone());
        (table.len() - 1) as u32
    })
}

impl std::fmt::Debug for RateLimitedRows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.store {
            Store::Memory(v) => f.debug_list().entries(v).finish(),
            Store::Spilled(s) => write!(f, "[{} rate-limited rows in a temporary file]", s.len),
        }
    }
}

impl From<Vec<RateLimited>> for RateLimitedRows {
    fn from(v: Vec<RateLimited>) -> RateLimitedRows {
        RateLimitedRows {
            store: Store::Memory(v),
        }
    }
}

impl RateLimitedRows {
    pub fn len(&self) -> usize {
        match &self.store {
            Store::Memory(v) => v.len(),
            Store::Spilled(s) => s.len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Has the list gone to a temporary file?
    pub fn spilled(&self) -> bool {
        matches!(self.store, Store::Spilled(_))
    }

    /// The rows in order. A row that cannot be read back from the temporary file ends the
    /// iteration early; [`RateLimitedRows::read_error`] then says why.
    pub fn iter(&self) -> Rows<'_> {
        let inner = match &self.store {
            Store::Memory(v) => Inner::Memory(v.iter()),
            Store::Spilled(s) => match s.log.reader() {
                Ok(r) => Inner::Spilled(s, r),
                Err(e) => {
                    s.failed(&e);
                    Inner::Done
                }
            },
        };
        Rows { inner, at: 0 }
    }

    /// The first `n` rows.
    pub fn first(&self, n: usize) -> Vec<RateLimited> {
        self.iter().take(n).collect()
    }

    /// Why a reader stopped early (the temporary file could not be read back), if one did.
    pub fn read_error(&self) -> Option<String> {
        match &self.store {
            Store::Memory(_) => None,
            Store::Spilled(s) => s.error.lock().ok().and_then(|e| e.clone()),
        }
    }

    /// The rows as a vector to change (read back into memory if spilled).
    pub fn make_mut(&mut self) -> &mut Vec<RateLimited> {
        if let Store::Spilled(_) = self.store {
            self.store = Store::Memory(self.iter().collect());
        }
        match &mut self.store {
            Store::Memory(v) => v,
            Store::Spilled(_) => unreachable!("read back into memory above"),
        }
    }

    /// The same rows, each passed through `f` (with its place in the list) on the way.
    pub fn map(self, mut f: impl FnMut(usize, &mut RateLimited)) -> RateLimitedRows {
        match self.store {
            Store::Memory(mut v) => {
                for (i, r) in v.iter_mut().enumerate() {
                    f(i, r);
                }
                RateLimitedRows::from(v)
            }
            Store::Spilled(_) => {
                let mut w = RowsWriter::default();
                for (i, mut r) in self.iter().enumerate() {
                    f(i, &mut r);
                    w.push(r);
                }
                let mut out = w.finish();
                if let (Some(e), Store::Spilled(s)) = (self.read_error(), &mut out.store) {
                    s.failed(&std::io::Error::other(e));
                }
                out
            }
        }
    }
}

impl Spilled {
    fn failed(&self, e: &std::io::Error) {
        if let Ok(mut slot) = self.error.lock() {
            slot.get_or_insert_with(|| format!("cannot read a temporary file back: {e}"));
        }
    }
}

impl<'a> IntoIterator for &'a RateLimitedRows {
    type Item = RateLimited;
    type IntoIter = Rows<'a>;
    fn into_iter(self) -> Rows<'a> {
        self.iter()
    }
}

/// Reads a [`RateLimitedRows`] in order.
pub struct Rows<'a> {
    inner: Inner<'a>,
    at: usize,
}

enum Inner<'a> {
    Memory(std::slice::Iter<'a, RateLimited>),
    Spilled(&'a Spilled, crate::model::event::log::LogReader<'a, Bytes>),
    Done,
}

impl Iterator for Rows<'_> {
    type Item = RateLimited;

    fn next(&mut self) -> Option<RateLimited> {
        let at = self.at;
        self.at += 1;
        let (s, r) = match &mut self.inner {
            Inner::Memory(it) => return it.next().cloned(),
            Inner::Spilled(s, r) => (*s, r),
            Inner::Done => return None,
        };
        let got = match r.next_item() {
            Ok(Some(b)) if b.is_empty() => s.long.get(&at).cloned(),
            Ok(Some(b)) => decode(&b, &s.shared),
            Ok(None) => {
                self.inner = Inner::Done;
                return None;
            }
            Err(e) => {
                s.failed(&e);
                None
            }
        };
        if got.is_none() {
            s.failed(&std::io::Error::other("a row is cut or garbled"));
            self.inner = Inner::Done;
        }
        got
    }
}

impl Serialize for RateLimitedRows {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let mut seq = ser.serialize_seq(Some(self.len()))?;
        for r in self.iter() {
            seq.serialize_element(&r)?;
        }
        if let Some(e) = self.read_error() {
            return Err(serde::ser::Error::custom(e));
        }
        seq.end()
    }
}

/// Builds a [`RateLimitedRows`] one row at a time, in order.
#[derive(Default)]
pub struct RowsWriter {
    memory: Vec<RateLimited>,
    spilled: Option<Spilled>,
    buf: Vec<u8>,
}

impl RowsWriter {
    pub fn push(&mut self, r: RateLimited) {
        let Some(s) = self.spilled.as_mut() else {
            self.memory.push(r);
            if self.memory.len() > IN_MEMORY_ROWS {
                self.spill();
            }
            return;
        };
        self.buf.clear();
        encode(&r, &mut s.shared, &mut self.buf);
        if self.buf.len() > Bytes::MAX - 4 {
            // Stored apart; an empty item holds its place.
            s.long.insert(s.len, r);
            self.buf.clear();
        }
        s.log.push(&self.buf);
        s.len += 1;
    }

    fn spill(&mut self) {
        self.spilled = Some(Spilled {
            log: Log::with_memory(LOG_MEMORY),
            shared: Shared::default(),
            long: HashMap::new(),
            len: 0,
            error: Mutex::new(None),
        });
        for r in std::mem::take(&mut self.memory) {
            self.push(r);
        }
    }

    pub fn finish(self) -> RateLimitedRows {
        let store = match self.spilled {
            None => Store::Memory(self.memory),
            Some(mut s) => {
                if let Err(e) = s.log.finish() {
                    s.failed(&e);
                }
                Store::Spilled(Arc::new(s))
            }
        };
        RateLimitedRows { store }
    }
}

/// Log items that are byte strings: a length, then the bytes.
struct Bytes;

impl Codec for Bytes {
    type Item = Vec<u8>;
    type State = ();
    const MAX: usize = 60 * 1024;
    fn put(item: &Vec<u8>, _: &mut (), out: &mut Vec<u8>) {
        out.extend_from_slice(&(item.len() as u32).to_le_bytes());
        out.extend_from_slice(item);
    }
    fn get(b: &[u8], _: &mut ()) -> Option<(Vec<u8>, usize)> {
        let n = u32::from_le_bytes(b.get(..4)?.try_into().ok()?) as usize;
        Some((b.get(4..4 + n)?.to_vec(), 4 + n))
    }
}

fn put_u32(b: &mut Vec<u8>, v: u32) {
    b.extend_from_slice(&v.to_le_bytes());
}

fn put_u64(b: &mut Vec<u8>, v: u64) {
    b.extend_from_slice(&v.to_le_bytes());
}

fn put_str(b: &mut Vec<u8>, s: &str) {
    put_u64(b, s.len() as u64);
    b.extend_from_slice(s.as_bytes());
}

fn put_time(b: &mut Vec<u8>, t: Option<chrono::DateTime<chrono::Utc>>) {
    match t {
        None => b.push(0),
        Some(t) => {
            b.push(1);
            put_u64(b, t.timestamp() as u64);
            put_u32(b, t.timestamp_subsec_nanos());
        }
    }
}

/// `r` as bytes, its shared parts as indexes into `shared`.
fn encode(r: &RateLimited, shared: &mut Shared, b: &mut Vec<u8>) {
    // Every field named: a field added to RateLimited must be added here too (or this fails
    // to compile), or it would be lost on the way through the file.
    let RateLimited {
        request_index,
        source,
        position,
        time,
        method,
        url,
        status,
        span,
        retry_after,
        attribution,
        client,
        next_attempt,
    } = r;
    put_u64(b, *request_index as u64);
    put_u32(
        b,
        index_of(&mut shared.sources, &mut shared.source_ix, source),
    );
    let ra = index_of(
        &mut shared.retry_afters,
        &mut shared.retry_after_ix,
        retry_after,
    );
    put_u32(b, ra);
    let a = index_of(
        &mut shared.attributions,
        &mut shared.attribution_ix,
        attribution,
    );
    put_u32(b, a);
    match position {
        Position::Entry(i) => {
            b.push(0);
            put_u64(b, *i as u64);
        }
        Position::Line(n) => {
            b.push(1);
            put_u64(b, *n as u64);
        }
    }
    put_time(b, *time);
    put_time(b, *next_attempt);
    put_str(b, method);
    put_str(b, url);
    b.extend_from_slice(&status.to_le_bytes());
    match client {
        None => b.push(0),
        Some(c) => {
            b.push(1);
            put_str(b, c);
        }
    }
    match span {
        None => b.push(0),
        Some(s) => {
            b.push(1);
            put_str(b, &s.trace_id);
            put_str(b, &s.span_id);
            put_u64(b, s.chain);
        }
    }
}

/// Reads what [`encode`] wrote.
struct Cursor<'a>(&'a [u8]);

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (a, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(a)
    }
    fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }
    fn u32(&mut self) -> Option<u32> {
        self.take(4)?.try_into().ok().map(u32::from_le_bytes)
    }
    fn u64(&mut self) -> Option<u64> {
        self.take(8)?.try_into().ok().map(u64::from_le_bytes)
    }
    fn str(&mut self) -> Option<&'a str> {
        let n = usize::try_from(self.u64()?).ok()?;
        std::str::from_utf8(self.take(n)?).ok()
    }
    fn time(&mut self) -> Option<Option<chrono::DateTime<chrono::Utc>>> {
        match self.u8()? {
            0 => Some(None),
            1 => {
                let secs = self.u64()? as i64;
                let nanos = self.u32()?;
                Some(Some(chrono::DateTime::from_timestamp(secs, nanos)?))
            }
            _ => None,
        }
    }
}

/// The row [`encode`] wrote (`None` if the bytes are not one).
fn decode(bytes: &[u8], shared: &Shared) -> Option<RateLimited> {
    let mut c = Cursor(bytes);
    let request_index = usize::try_from(c.u64()?).ok()?;
    let source = shared.sources.get(c.u32()? as usize)?.clone();
    let retry_after = shared.retry_afters.get(c.u32()? as usize)?.clone();
    let attribution = shared.attributions.get(c.u32()? as usize)?.clone();
    let position = match c.u8()? {
        0 => Position::Entry(usize::try_from(c.u64()?).ok()?),
        1 => Position::Line(usize::try_from(c.u64()?).ok()?),
        _ => return None,
    };
    let time = c.time()?;
    let next_attempt = c.time()?;
    let method = Arc::from(c.str()?);
    let url = Arc::from(c.str()?);
    let status = u16::from_le_bytes(c.take(2)?.try_into().ok()?);
    let client = match c.u8()? {
        0 => None,
        1 => Some(Arc::from(c.str()?)),
        _ => return None,
    };
    let span = match c.u8()? {
        0 => None,
        1 => Some(Box::new(SpanRef {
            trace_id: c.str()?.to_string(),
            span_id: c.str()?.to_string(),
            chain: c.u64()?,
        })),
        _ => return None,
    };
    if !c.0.is_empty() {
        return None;
    }
    Some(RateLimited {
        request_index,
        source,
        position,
        time,
        method,
        url,
        status,
        span,
        retry_after,
        attribution,
        client,
        next_attempt,
    })
}

#[cfg(test)]
mod tests;
