//! The kept rows of a followed log, waiting for the report in an unnamed temporary file.
//!
//! `analyze` keeps one [`Row`] per rate-limited response (and per failure that stated a
//! Retry-After) until the report is built: ~80 bytes each, so a log followed for hours grew by
//! its 429s. While following, [`super::Rows`] writes its rows here a chunk at a time, and reads
//! them back, in row-id order, when the following stops and the report is made (the report is
//! the same). A row that cannot be written as bytes (a cross-origin reading, or a record kept
//! in memory: both rare) stays in memory, "pinned", and takes its place again when read back.
//! If the file cannot be created or written, rows stay in memory from then on (nothing is lost;
//! memory grows as it did before); a chunk that cannot be read back is counted in
//! [`Held::lost`] and said in [`Held::error`].

use super::spill::{put_opt_f64, put_opt_str, put_u32, put_u64, Cursor, Stored};
use super::Row;
use crate::http::retry_after::{Kind, RetryAfter};
use crate::model::event::Kept;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::sync::Arc;

/// Rows written to the file at once when following (~80 bytes each in memory, ~70 on disk):
/// at most this many wait in memory.
pub const CHUNK: usize = 256;

#[derive(Debug)]
pub struct Held {
    chunk: usize,
    writer: Option<BufWriter<File>>,
    /// Rows in the file (ids `0..written`); the rows in memory come after them.
    pub written: u32,
    /// Rows that are not written as bytes, by row id (in id order), with their record.
    pinned: Vec<(u32, Row, Stored)>,
    buf: Vec<u8>,
    /// Set once the file failed: from then on rows stay in memory.
    pub error: Option<String>,
    /// Rows that could not be read back (they come back as placeholders: not listed).
    pub lost: usize,
}

impl Held {
    /// Rows go to the file `chunk` at a time.
    pub fn new(chunk: usize) -> Held {
        Held {
            chunk: chunk.max(1),
            writer: None,
            written: 0,
            pinned: Vec::new(),
            buf: Vec::new(),
            error: None,
            lost: 0,
        }
    }

    /// The rows in memory (ids from [`Held::written`] on) and their records go to the file when
    /// there are a chunk of them (emptied, their room kept); they stay if the file failed.
    pub fn offer(&mut self, rows: &mut Vec<Row>, records: &mut Vec<Stored>) {
        if rows.len() < self.chunk || self.error.is_some() {
            return;
        }
        if self.writer.is_none() {
            match tempfile::tempfile() {
                Ok(f) => self.writer = Some(BufWriter::with_capacity(64 * 1024, f)),
                Err(e) => {
                    self.error = Some(format!("cannot create a temporary file: {e}"));
                    return;
                }
            }
        }
        self.buf.clear();
        put_u32(&mut self.buf, rows.len() as u32);
        let pins: Vec<bool> = rows
            .iter()
            .zip(records.iter())
            .map(|(row, stored)| encode(row, stored, &mut self.buf))
            .collect();
        let Some(w) = self.writer.as_mut() else {
            return;
        };
        let mut head = Vec::with_capacity(8);
        put_u64(&mut head, self.buf.len() as u64);
        if let Err(e) = w.write_all(&head).and_then(|()| w.write_all(&self.buf)) {
            self.error = Some(format!("cannot write a temporary file: {e}"));
            return;
        }
        let (first, n) = (self.written, rows.len() as u32);
        let moved = rows.drain(..).zip(records.drain(..)).zip(pins);
        for (k, ((row, stored), pin)) in moved.enumerate() {
            if pin {
                self.pinned.push((first + k as u32, row, stored));
            }
        }
        self.written += n;
    }

    /// Every row written, in id order (the pinned ones in their places), with its record's
    /// place; the file is closed (and so removed). `share` gives each Retry-After its shared
    /// copy. Rows that cannot be read back come as placeholders (a failure without a record:
    /// not listed), counted in [`Held::lost`].
    pub fn read_back(
        &mut self,
        share: &mut dyn FnMut(RetryAfter) -> Arc<RetryAfter>,
    ) -> (Vec<Row>, Vec<Stored>) {
        let n = self.written as usize;
        let (mut rows, mut records) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let mut pinned = std::mem::take(&mut self.pinned).into_iter().peekable();
        let mut reader = self.reader();
        'chunks: while rows.len() < n {
            let Some(Ok(())) = reader.as_mut().map(|r| read_chunk(r, &mut self.buf)) else {
                break;
            };
            let mut c = Cursor(&self.buf);
            let Some(count) = c.u32() else { break };
            for _ in 0..count {
                let id = rows.len() as u32;
                let entry = match c.u8() {
                    Some(0) => decode(&mut c, share),
                    Some(1) => pinned.next_if(|p| p.0 == id).map(|(_, row, st)| (row, st)),
                    _ => None,
                };
                let Some((row, stored)) = entry else {
                    break 'chunks;
                };
                rows.push(row);
                records.push(stored);
            }
        }
        while rows.len() < n {
            let id = rows.len() as u32;
            let (row, stored) = match pinned.next_if(|p| p.0 == id) {
                Some((_, row, stored)) => (row, stored),
                None => {
                    self.lost += 1;
                    (placeholder(share), Stored::None)
                }
            };
            rows.push(row);
            records.push(stored);
        }
        if self.lost > 0 {
            self.error
                .get_or_insert_with(|| "a temporary file was not read back whole".to_string());
        }
        self.buf = Vec::new();
        (rows, records)
    }

    /// The file, flushed and rewound for reading (`None`: there is none, or it failed).
    fn reader(&mut self) -> Option<BufReader<File>> {
        let flushed = self.writer.take()?.into_inner().map_err(|e| e.into_error());
        let rewound = flushed.and_then(|mut f| f.seek(SeekFrom::Start(0)).map(|_| f));
        match rewound {
            Ok(f) => Some(BufReader::with_capacity(64 * 1024, f)),
            Err(e) => {
                self.error
                    .get_or_insert_with(|| format!("cannot read a temporary file: {e}"));
                None
            }
        }
    }
}

/// One chunk's bytes (after their length) into `buf`.
fn read_chunk(r: &mut impl Read, buf: &mut Vec<u8>) -> std::io::Result<()> {
    let mut head = [0u8; 8];
    r.read_exact(&mut head)?;
    let len = u64::from_le_bytes(head);
    if len > u32::MAX as u64 {
        return Err(std::io::Error::other("a chunk longer than any written"));
    }
    buf.clear();
    buf.resize(len as usize, 0);
    r.read_exact(buf)
}

/// `row` and its record's place as bytes; `true` when it cannot be (then only a mark is written,
/// and the row is pinned in memory).
fn encode(row: &Row, stored: &Stored, b: &mut Vec<u8>) -> bool {
    // Every field named: a field added to Row must be added here too (or this fails to
    // compile), or it would be lost on the way through the file.
    let Row {
        t_us,
        t_ns,
        loc,
        host,
        client,
        op,
        kind,
        retry_after,
        facts,
        cors,
    } = row;
    if cors.is_some() || facts.is_some() || matches!(stored, Stored::Memory(_)) {
        b.push(1);
        return true;
    }
    b.push(0);
    put_u64(b, *t_us as u64);
    b.extend_from_slice(&t_ns.to_le_bytes());
    put_u64(b, *loc);
    put_u32(b, *host);
    put_u32(b, *client);
    put_u64(b, *op);
    b.push(match kind {
        Kept::Limited => 0,
        Kept::Failure => 1,
        Kept::Baseline => 2,
    });
    match stored {
        Stored::Disk { at, len } => {
            b.push(1);
            put_u64(b, *at);
            put_u32(b, *len);
        }
        _ => b.push(0),
    }
    let RetryAfter {
        raw,
        seconds,
        kind,
        header,
        note,
    } = &**retry_after;
    put_opt_str(b, raw);
    put_opt_f64(b, *seconds);
    b.push(match kind {
        Kind::Delta => 0,
        Kind::Date => 1,
        Kind::Invalid => 2,
        Kind::Absent => 3,
    });
    put_opt_str(b, header);
    put_opt_str(b, note);
    false
}

/// A row [`encode`] wrote (after its mark), with its record's place.
fn decode(
    c: &mut Cursor,
    share: &mut dyn FnMut(RetryAfter) -> Arc<RetryAfter>,
) -> Option<(Row, Stored)> {
    let t_us = c.u64()? as i64;
    let t_ns = c.u16()?;
    let loc = c.u64()?;
    let host = c.u32()?;
    let client = c.u32()?;
    let op = c.u64()?;
    let kind = match c.u8()? {
        0 => Kept::Limited,
        1 => Kept::Failure,
        2 => Kept::Baseline,
        _ => return None,
    };
    let stored = match c.u8()? {
        0 => Stored::None,
        1 => Stored::Disk {
            at: c.u64()?,
            len: c.u32()?,
        },
        _ => return None,
    };
    let raw = c.opt_string()?;
    let seconds = c.opt_f64()?;
    let ra_kind = match c.u8()? {
        0 => Kind::Delta,
        1 => Kind::Date,
        2 => Kind::Invalid,
        3 => Kind::Absent,
        _ => return None,
    };
    let retry_after = share(RetryAfter {
        raw,
        seconds,
        kind: ra_kind,
        header: c.opt_string()?,
        note: c.opt_string()?,
    });
    let row = Row {
        t_us,
        t_ns,
        loc,
        host,
        client,
        op,
        kind,
        retry_after,
        facts: None,
        cors: None,
    };
    Some((row, stored))
}

/// What stands for a row that could not be read back: a failure without a record, which the
/// report does not list.
fn placeholder(share: &mut dyn FnMut(RetryAfter) -> Arc<RetryAfter>) -> Row {
    Row {
        t_us: 0,
        t_ns: 0,
        loc: 0,
        host: 0,
        client: 0,
        op: 0,
        kind: Kept::Failure,
        retry_after: share(RetryAfter::absent()),
        facts: None,
        cors: None,
    }
}

#[cfg(test)]
mod tests;
