//! Rate-limited records waiting for attribution, in an unnamed temporary file: each is written
//! once when it arrives and read back once, a chunk at a time, when attribution reaches it, so
//! the records of a long incident's tens of thousands of 429s are never all in memory. The file
//! has no name ([`tempfile::tempfile`]): the system removes it when it is closed, or when the
//! process ends however it ends. If it cannot be created or written, records stay in memory
//! (nothing is lost, memory grows as it did before).
//!
//! The encoding is this module's own (length-prefixed fields, floats by their bits, times as
//! seconds and nanoseconds): it is read back only by this process, and a record read back is
//! equal to the one written ([`Request`]'s `PartialEq`; tests below).

use crate::model::{ClientHints, Headers, Location, Position, Request};
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::sync::Arc;

/// Where a rate-limited row's record is until attribution takes it.
#[derive(Debug, Default)]
pub enum Stored {
    /// None kept (not rate-limited, or already attributed).
    #[default]
    None,
    Memory(Box<Request>),
    /// In the temporary file: offset and length.
    Disk {
        at: u64,
        len: u32,
    },
}

impl Stored {
    /// The record, when it is kept in memory.
    pub fn in_memory(&self) -> Option<&Request> {
        match self {
            Stored::Memory(r) => Some(r),
            _ => None,
        }
    }
}

/// The temporary file and what is needed to read it back.
#[derive(Debug, Default)]
pub struct Spill {
    writer: Option<BufWriter<File>>,
    reader: Option<File>,
    /// Bytes written so far (the next record's offset).
    written: u64,
    buf: Vec<u8>,
    /// Input names, written as an index (records share the input's `Arc`).
    sources: Vec<Arc<str>>,
    /// Set once the file failed: from then on records stay in memory.
    pub error: Option<String>,
    /// Records that could not be read back.
    pub lost: usize,
}

/// Longest record written (a body excerpt and headers are bounded far below this).
const RECORD_MAX: usize = u32::MAX as usize;

/// [`Spill::load_many`] reads records in one run across gaps up to this (records of other
/// chunks, read and ignored, cost less than a seek and a read of their own).
const RUN_GAP: u64 = 16 * 1024;

/// The longest run read at once (the buffer it needs stays this small).
const RUN_BYTES: u64 = 4 * 1024 * 1024;

impl Spill {
    /// Keep `r` until attribution: on disk, or in memory when it has an access log's layer
    /// signal (see the parent module) or the file is unusable.
    pub fn store(&mut self, r: Box<Request>) -> Stored {
        if r.layer_signal.is_some() || self.error.is_some() || self.reader.is_some() {
            return Stored::Memory(r);
        }
        if self.writer.is_none() {
            match tempfile::tempfile() {
                Ok(f) => self.writer = Some(BufWriter::with_capacity(64 * 1024, f)),
                Err(e) => {
                    self.error = Some(format!("cannot create a temporary file: {e}"));
                    return Stored::Memory(r);
                }
            }
        }
        self.buf.clear();
        let source = self.source_index(&r.location.source);
        encode(&r, source, &mut self.buf);
        if self.buf.len() > RECORD_MAX {
            return Stored::Memory(r);
        }
        let Some(w) = self.writer.as_mut() else {
            return Stored::Memory(r);
        };
        if let Err(e) = w.write_all(&self.buf) {
            self.error = Some(format!("cannot write a temporary file: {e}"));
            return Stored::Memory(r);
        }
        let at = self.written;
        self.written += self.buf.len() as u64;
        Stored::Disk {
            at,
            len: self.buf.len() as u32,
        }
    }

    fn source_index(&mut self, s: &Arc<str>) -> u32 {
        if let Some(i) = self
            .sources
            .iter()
            .rposition(|k| Arc::ptr_eq(k, s) || **k == **s)
        {
            return i as u32;
        }
        self.sources.push(s.clone());
        (self.sources.len() - 1) as u32
    }

    /// The record `stored` stands for (`None`: none kept, or it could not be read back; that
    /// is counted in [`Spill::lost`] and said in [`Spill::error`]).
    #[cfg(test)]
    pub fn load(&mut self, stored: Stored) -> Option<Box<Request>> {
        self.load_many(vec![(0, stored)]).pop().map(|(_, r)| r)
    }

    /// The records `stored` stand for, by the row id given with each, for a chunk of
    /// attribution: the file's records are read in offset order, neighbours in one read (a
    /// chunk in time order is mostly one stretch of the file: one read, not a seek and a read per
    /// record), then decoded on the thread pool. A record that is not there (none kept, or not
    /// read back) is left out and counted as [`Spill::load`] counts it.
    pub fn load_many(&mut self, stored: Vec<(u32, Stored)>) -> Vec<(u32, Box<Request>)> {
        use rayon::prelude::*;
        let mut out = Vec::with_capacity(stored.len());
        let mut disk: Vec<(u32, u64, usize)> = Vec::new();
        for (i, s) in stored {
            match s {
                Stored::None => {}
                Stored::Memory(r) => out.push((i, r)),
                Stored::Disk { at, len } => disk.push((i, at, len as usize)),
            }
        }
        if disk.is_empty() {
            return out;
        }
        self.open_reader();
        disk.sort_unstable_by_key(|&(_, at, _)| at);
        let mut k = 0;
        while k < disk.len() {
            // One run: records whose gaps are small, up to RUN_BYTES.
            let start = disk[k].1;
            let mut end = start + disk[k].2 as u64;
            let mut j = k + 1;
            while j < disk.len() {
                let (_, at, len) = disk[j];
                if at > end + RUN_GAP || at + len as u64 - start > RUN_BYTES {
                    break;
                }
                end = end.max(at + len as u64);
                j += 1;
            }
            let run = &disk[k..j];
            k = j;
            let read = |f: &mut File, buf: &mut Vec<u8>| -> std::io::Result<()> {
                buf.resize((end - start) as usize, 0);
                f.seek(SeekFrom::Start(start))?;
                f.read_exact(buf)
            };
            let got = match self.reader.as_mut() {
                Some(f) => read(f, &mut self.buf).map_err(|e| e.to_string()),
                None => Err(String::new()),
            };
            if let Err(e) = got {
                if !e.is_empty() {
                    self.error
                        .get_or_insert_with(|| format!("cannot read a temporary file: {e}"));
                }
                self.lost += run.len();
                self.error
                    .get_or_insert_with(|| "a temporary file was not read back whole".to_string());
                continue;
            }
            let (buf, sources) = (&self.buf, &self.sources);
            let decoded: Vec<(u32, Option<Request>)> = run
                .par_iter()
                .map(|&(i, at, len)| {
                    let from = (at - start) as usize;
                    (i, decode(&buf[from..from + len], sources))
                })
                .collect();
            for (i, r) in decoded {
                match r {
                    Some(r) => out.push((i, Box::new(r))),
                    None => {
                        self.lost += 1;
                        self.error.get_or_insert_with(|| {
                            "a temporary file was not read back whole".to_string()
                        });
                    }
                }
            }
        }
        out
    }

    /// Writing is over: what was written is flushed and the file kept for reading.
    fn open_reader(&mut self) {
        if let Some(w) = self.writer.take() {
            match w.into_inner() {
                Ok(f) => self.reader = Some(f),
                Err(e) => {
                    self.error = Some(format!("cannot write a temporary file: {}", e.error()));
                }
            }
        }
    }

    /// Attribution is over: the file is closed (and so removed).
    pub fn close(&mut self) {
        self.writer = None;
        self.reader = None;
        self.buf = Vec::new();
    }
}

pub(super) fn put_u32(b: &mut Vec<u8>, v: u32) {
    b.extend_from_slice(&v.to_le_bytes());
}

pub(super) fn put_u64(b: &mut Vec<u8>, v: u64) {
    b.extend_from_slice(&v.to_le_bytes());
}

pub(super) fn put_str(b: &mut Vec<u8>, s: &str) {
    put_u64(b, s.len() as u64);
    b.extend_from_slice(s.as_bytes());
}

pub(super) fn put_opt_str(b: &mut Vec<u8>, s: &Option<String>) {
    match s {
        None => b.push(0),
        Some(s) => {
            b.push(1);
            put_str(b, s);
        }
    }
}

pub(super) fn put_opt_f64(b: &mut Vec<u8>, v: Option<f64>) {
    match v {
        None => b.push(0),
        Some(v) => {
            b.push(1);
            put_u64(b, v.to_bits());
        }
    }
}

fn put_headers(b: &mut Vec<u8>, h: &Headers) {
    put_u64(b, h.len() as u64);
    for (name, value) in h.iter() {
        put_str(b, name);
        put_str(b, value);
    }
}

/// `r` as bytes (its layer signal is not written: such records stay in memory).
fn encode(r: &Request, source: u32, b: &mut Vec<u8>) {
    // Every field named: a field added to Request must be added here too (or this fails to
    // compile), or it would be lost on the way through the file.
    let Request {
        location: Location {
            source: _,
            position,
        },
        started,
        method,
        url,
        status,
        duration_ms,
        wait_ms,
        request_headers,
        response_headers,
        response_mime,
        body_excerpt,
        body_not_captured,
        request_body_fingerprint,
        client:
            ClientHints {
                client,
                user_agent,
                client_ip,
                pageref,
                origin,
            },
        credential,
        layer_signal: _,
        idem_hash,
        span,
    } = r;
    put_u32(b, source);
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
    match started {
        None => b.push(0),
        Some(t) => {
            b.push(1);
            put_u64(b, t.timestamp() as u64);
            put_u32(b, t.timestamp_subsec_nanos());
        }
    }
    put_str(b, method);
    put_str(b, url);
    b.extend_from_slice(&status.to_le_bytes());
    put_opt_f64(b, *duration_ms);
    put_opt_f64(b, *wait_ms);
    put_headers(b, request_headers);
    put_headers(b, response_headers);
    for s in [response_mime, body_excerpt, request_body_fingerprint] {
        put_opt_str(b, s);
    }
    for s in [client, user_agent, client_ip, pageref, origin] {
        put_opt_str(b, s);
    }
    put_opt_str(b, credential);
    put_u32(b, *idem_hash);
    b.push(u8::from(*body_not_captured));
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
pub(super) struct Cursor<'a>(pub(super) &'a [u8]);

impl<'a> Cursor<'a> {
    pub(super) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (a, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(a)
    }
    pub(super) fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }
    pub(super) fn u16(&mut self) -> Option<u16> {
        self.take(2)?.try_into().ok().map(u16::from_le_bytes)
    }
    pub(super) fn u32(&mut self) -> Option<u32> {
        self.take(4)?.try_into().ok().map(u32::from_le_bytes)
    }
    pub(super) fn u64(&mut self) -> Option<u64> {
        self.take(8)?.try_into().ok().map(u64::from_le_bytes)
    }
    pub(super) fn str(&mut self) -> Option<&'a str> {
        let n = usize::try_from(self.u64()?).ok()?;
        std::str::from_utf8(self.take(n)?).ok()
    }
    pub(super) fn string(&mut self) -> Option<String> {
        self.str().map(str::to_string)
    }
    pub(super) fn opt_string(&mut self) -> Option<Option<String>> {
        match self.u8()? {
            0 => Some(None),
            1 => Some(Some(self.string()?)),
            _ => None,
        }
    }
    pub(super) fn opt_f64(&mut self) -> Option<Option<f64>> {
        match self.u8()? {
            0 => Some(None),
            1 => Some(Some(f64::from_bits(self.u64()?))),
            _ => None,
        }
    }
    fn headers(&mut self) -> Option<Headers> {
        let n = self.u64()?;
        // Sized first (a look over the lengths), so the map is built in one allocation each
        // rather than grown by doubling and shrunk: decoding was most of a chunk's load.
        let (mut look, mut text) = (Cursor(self.0), 0usize);
        for _ in 0..n.saturating_mul(2) {
            let len = usize::try_from(look.u64()?).ok()?;
            look.take(len)?;
            text += len;
        }
        let mut h = Headers::with_capacity(text, usize::try_from(n).ok()?);
        for _ in 0..n {
            let name = self.str()?;
            let value = self.str()?;
            h.push(name, value);
        }
        Some(h)
    }
}

/// The record [`encode`] wrote (`None` if the bytes are not one).
fn decode(bytes: &[u8], sources: &[Arc<str>]) -> Option<Request> {
    let mut c = Cursor(bytes);
    let source = sources.get(c.u32()? as usize)?.clone();
    let position = match c.u8()? {
        0 => Position::Entry(usize::try_from(c.u64()?).ok()?),
        1 => Position::Line(usize::try_from(c.u64()?).ok()?),
        _ => return None,
    };
    let started = match c.u8()? {
        0 => None,
        1 => {
            let secs = c.u64()? as i64;
            let nanos = c.u32()?;
            Some(chrono::DateTime::from_timestamp(secs, nanos)?)
        }
        _ => return None,
    };
    let method = c.string()?;
    let url = c.string()?;
    let status = c.u16()?;
    let duration_ms = c.opt_f64()?;
    let wait_ms = c.opt_f64()?;
    let request_headers = c.headers()?;
    let response_headers = c.headers()?;
    let response_mime = c.opt_string()?;
    let body_excerpt = c.opt_string()?;
    let request_body_fingerprint = c.opt_string()?;
    let client = ClientHints {
        client: c.opt_string()?,
        user_agent: c.opt_string()?,
        client_ip: c.opt_string()?,
        pageref: c.opt_string()?,
        origin: c.opt_string()?,
    };
    let credential = c.opt_string()?;
    let idem_hash = c.u32()?;
    let body_not_captured = match c.u8()? {
        0 => false,
        1 => true,
        _ => return None,
    };
    let span = match c.u8()? {
        0 => None,
        1 => Some(Box::new(crate::model::trace::SpanRef {
            trace_id: c.string()?,
            span_id: c.string()?,
            chain: c.u64()?,
        })),
        _ => return None,
    };
    if !c.0.is_empty() {
        return None;
    }
    Some(Request {
        location: Location { source, position },
        started,
        method,
        url,
        status,
        duration_ms,
        wait_ms,
        request_headers,
        response_headers,
        response_mime,
        body_excerpt,
        body_not_captured,
        request_body_fingerprint,
        client,
        credential,
        layer_signal: None,
        idem_hash,
        span,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn options() -> crate::ingest::Options {
        crate::ingest::Options::new(crate::redact::Redactor::from_key_material(b"spill test"))
    }

    fn synthetic(url: &str, status: u16) -> Request {
        let mut r = Request::at(Location {
            source: Arc::from("t.jsonl"),
            position: Position::Line(1),
        });
        r.url = url.into();
        r.method = "GET".into();
        r.status = status;
        r
    }

    fn through_the_file(records: &[Request]) -> Vec<Option<Box<Request>>> {
        let mut spill = Spill::default();
        let stored: Vec<Stored> = records
            .iter()
            .map(|r| spill.store(Box::new(r.clone())))
            .collect();
        // Read back out of order, as attribution's time order may: the odd ones backwards one
        // by one, then the even ones as one chunk (runs across the gaps the odd ones left).
        let n = stored.len();
        let mut stored: Vec<Option<Stored>> = stored.into_iter().map(Some).collect();
        let mut out: Vec<Option<Box<Request>>> = (0..n).map(|_| None).collect();
        for i in (0..n).rev().filter(|i| i % 2 == 1) {
            out[i] = spill.load(stored[i].take().unwrap_or_default());
        }
        let evens: Vec<(u32, Stored)> = (0..n)
            .filter(|i| i % 2 == 0)
            .map(|i| (i as u32, stored[i].take().unwrap_or_default()))
            .collect();
        for (i, r) in spill.load_many(evens) {
            assert!(out[i as usize].is_none(), "row {i} twice");
            out[i as usize] = Some(r);
        }
        assert!(spill.error.is_none(), "{:?}", spill.error);
        assert_eq!(spill.lost, 0);
        out
    }

    #[test]
    fn every_sample_record_comes_back_equal() {
        let root = env!("CARGO_MANIFEST_DIR");
        let mut records = Vec::new();
        for name in [
            "api-incident.jsonl",
            "batch-burst.jsonl",
            "retry-storm.jsonl",
            "cdn-burst.har",
        ] {
            let path = format!("{root}/samples/{name}");
            let got = crate::ingest::read_input(&path, &options());
            assert!(!got.requests.is_empty(), "{name}");
            records.extend(
                got.requests
                    .into_iter()
                    .filter(|r| r.layer_signal.is_none()),
            );
        }
        let back = through_the_file(&records);
        for (r, b) in records.iter().zip(&back) {
            assert_eq!(Some(r), b.as_deref(), "{}", r.location);
        }
    }

    #[test]
    fn records_with_a_layer_signal_stay_in_memory() {
        let root = env!("CARGO_MANIFEST_DIR");
        let path = format!("{root}/samples/envoy-incident.log");
        let got = crate::ingest::read_input(&path, &options());
        let r = got
            .requests
            .into_iter()
            .find(|r| r.layer_signal.is_some())
            .expect("a record with a layer signal");
        let mut spill = Spill::default();
        let s = spill.store(Box::new(r.clone()));
        assert_eq!(s.in_memory(), Some(&r));
        assert_eq!(spill.load(s).as_deref(), Some(&r));
    }

    #[test]
    fn a_truncated_record_is_not_read_as_one() {
        let mut r = synthetic("https://api.example.com/v1/x?token=[redacted]", 429);
        r.body_excerpt = Some("{\"error\":\"slow down\"}".into());
        let mut b = Vec::new();
        encode(&r, 0, &mut b);
        let sources: Vec<Arc<str>> = vec![r.location.source.clone()];
        assert_eq!(decode(&b, &sources), Some(r));
        for cut in 0..b.len() {
            assert_eq!(decode(&b[..cut], &sources), None, "cut at {cut}");
        }
    }

    fn opt_text() -> impl Strategy<Value = Option<String>> {
        proptest::option::of(".{0,40}")
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn any_record_comes_back_equal(
            url in ".{0,80}",
            method in "[A-Z]{0,8}",
            status in any::<u16>(),
            secs in 0i64..4_000_000_000,
            nanos in 0u32..1_000_000_000,
            timed in any::<bool>(),
            line in any::<bool>(),
            pos in 0usize..usize::MAX,
            dur in proptest::option::of(any::<f64>()),
            wait in proptest::option::of(any::<f64>()),
            req_h in proptest::collection::vec((".{0,12}", ".{0,30}"), 0..6),
            resp_h in proptest::collection::vec((".{0,12}", ".{0,30}"), 0..6),
            texts in proptest::collection::vec(opt_text(), 9),
            idem_hash in any::<u32>(),
        ) {
            let mut r = synthetic(&url, status);
            r.method = method;
            r.started = timed.then(|| chrono::DateTime::from_timestamp(secs, nanos)).flatten();
            r.location.position = if line { Position::Line(pos) } else { Position::Entry(pos) };
            r.duration_ms = dur;
            r.wait_ms = wait;
            r.request_headers = Headers::from_pairs(req_h);
            r.response_headers = Headers::from_pairs(resp_h);
            r.response_mime = texts[0].clone();
            r.body_excerpt = texts[1].clone();
            r.request_body_fingerprint = texts[2].clone();
            r.client = ClientHints {
                client: texts[3].clone(),
                user_agent: texts[4].clone(),
                client_ip: texts[5].clone(),
                pageref: texts[6].clone(),
                origin: texts[7].clone(),
            };
            r.credential = texts[8].clone();
            r.idem_hash = idem_hash;
            let back = through_the_file(std::slice::from_ref(&r));
            // NaN durations are equal by bits, not by PartialEq.
            let b = back[0].as_deref().expect("read back");
            prop_assert_eq!(b.duration_ms.map(f64::to_bits), r.duration_ms.map(f64::to_bits));
            prop_assert_eq!(b.wait_ms.map(f64::to_bits), r.wait_ms.map(f64::to_bits));
            let (mut b, mut r) = (b.clone(), r);
            b.duration_ms = None; b.wait_ms = None; r.duration_ms = None; r.wait_ms = None;
            prop_assert_eq!(b, r);
        }
    }
}
