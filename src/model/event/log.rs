//! The event log: an append-only sequence of items (events, or a detector's own records),
//! stored packed in memory and continued in an anonymous temporary file past a memory budget
//! (removed when the log is dropped). Read back in the order written, by any number of
//! independent readers.

use super::pack::{Packing, MAX_PACKED};
use super::Event;
use std::io::{BufWriter, Write};

/// Bytes of events a log keeps in memory before it continues on disk.
pub const MEMORY_BYTES: usize = 4 << 20;

/// How a [`Log`] stores its items: each one against the one before it (`State`), at most
/// `MAX` bytes an item.
pub trait Codec {
    type Item;
    type State: Default;
    /// The most bytes one stored item takes (less than a file read buffer, 64 KiB).
    const MAX: usize;
    /// Append `item`, stored against `prev` (which then describes this one).
    fn put(item: &Self::Item, prev: &mut Self::State, out: &mut Vec<u8>);
    /// The item stored at the start of `b` against `prev`, and its length; `None` when `b`
    /// does not hold a whole, well-formed item.
    fn get(b: &[u8], prev: &mut Self::State) -> Option<(Self::Item, usize)>;
}

/// Events packed ([`super::pack`]): what the event logs hold.
pub struct Packed;

impl Codec for Packed {
    type Item = Event;
    type State = Packing;
    const MAX: usize = MAX_PACKED;
    #[inline(always)]
    fn put(e: &Event, prev: &mut Packing, out: &mut Vec<u8>) {
        e.pack(prev, out);
    }
    #[inline(always)]
    fn get(b: &[u8], prev: &mut Packing) -> Option<(Event, usize)> {
        Event::unpack(b, prev)
    }
}

/// Append-only sequence of events: memory first, a temporary file past [`MEMORY_BYTES`].
pub type EventLog = Log<Packed>;

/// Append-only sequence of items stored by `C`: memory first, a temporary file past a memory
/// budget ([`MEMORY_BYTES`] unless given).
pub struct Log<C: Codec> {
    mem: Vec<u8>,
    file: Option<BufWriter<std::fs::File>>,
    on_disk: u64,
    len: u64,
    /// The last item pushed, which the next is stored against.
    packing: C::State,
    /// Bytes kept in memory before they go to the file.
    memory: usize,
    /// Set when the temporary file could not be written: the log then stays in memory.
    pub spill_error: Option<String>,
}

impl<C: Codec> Default for Log<C> {
    fn default() -> Log<C> {
        Log::with_memory(MEMORY_BYTES)
    }
}

impl<C: Codec> Log<C> {
    pub fn new() -> Log<C> {
        Log::default()
    }

    /// A log that keeps `memory` bytes in memory before it continues on disk.
    pub fn with_memory(memory: usize) -> Log<C> {
        Log {
            mem: Vec::new(),
            file: None,
            on_disk: 0,
            len: 0,
            packing: C::State::default(),
            memory: memory.max(1),
            spill_error: None,
        }
    }

    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Has part of the log gone to its temporary file?
    pub fn spilled(&self) -> bool {
        self.on_disk > 0
    }

    pub fn push(&mut self, item: &C::Item) {
        self.len += 1;
        C::put(item, &mut self.packing, &mut self.mem);
        if self.mem.len() >= self.memory && self.spill_error.is_none() {
            self.spill();
        }
    }

    fn spill(&mut self) {
        if self.file.is_none() {
            match tempfile::tempfile() {
                Ok(f) => self.file = Some(BufWriter::with_capacity(1 << 16, f)),
                Err(e) => {
                    self.spill_error = Some(format!("cannot create a temporary file: {e}"));
                    return;
                }
            }
        }
        if let Some(f) = &mut self.file {
            match f.write_all(&self.mem) {
                Ok(()) => {
                    self.on_disk += self.mem.len() as u64;
                    self.mem.clear();
                }
                Err(e) => self.spill_error = Some(format!("cannot write a temporary file: {e}")),
            }
        }
    }

    /// Read the items back in the order they were pushed ([`Log::finish`] first). Readers
    /// are independent: several may read one log at once.
    pub fn reader(&self) -> std::io::Result<LogReader<'_, C>> {
        let file = match &self.file {
            Some(w) if !w.buffer().is_empty() => {
                return Err(std::io::Error::other(
                    "temporary log read before it was finished",
                ))
            }
            Some(w) => Some(FileReader {
                file: w.get_ref(),
                pos: 0,
                end: self.on_disk,
                buf: vec![0; 1 << 16],
                at: 0,
                filled: 0,
            }),
            None => None,
        };
        Ok(LogReader {
            file,
            mem: &self.mem,
            at: 0,
            packing: C::State::default(),
        })
    }

    /// Make everything pushed readable (the writer's buffer reaches the file).
    pub fn finish(&mut self) -> std::io::Result<()> {
        if let Some(f) = &mut self.file {
            f.flush()?;
        }
        Ok(())
    }
}

/// Reads a file part by position (no shared file offset), a buffer at a time.
struct FileReader<'a> {
    file: &'a std::fs::File,
    pos: u64,
    end: u64,
    buf: Vec<u8>,
    at: usize,
    filled: usize,
}

impl FileReader<'_> {
    /// The unread bytes, at least `whole` of them (one whole stored item, see [`Codec::MAX`])
    /// while the file has more (items are written whole but may straddle the read buffer's
    /// end).
    #[inline(always)]
    fn bytes(&mut self, whole: usize) -> std::io::Result<&[u8]> {
        if self.filled - self.at < whole && self.pos < self.end {
            self.buf.copy_within(self.at..self.filled, 0);
            self.filled -= self.at;
            self.at = 0;
            let want = ((self.end - self.pos) as usize).min(self.buf.len() - self.filled);
            read_at(
                self.file,
                &mut self.buf[self.filled..self.filled + want],
                self.pos,
            )?;
            self.pos += want as u64;
            self.filled += want;
        }
        Ok(&self.buf[self.at..self.filled])
    }
}

#[cfg(unix)]
fn read_at(f: &std::fs::File, buf: &mut [u8], pos: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(f, buf, pos)
}

#[cfg(windows)]
fn read_at(f: &std::fs::File, mut buf: &mut [u8], mut pos: u64) -> std::io::Result<()> {
    while !buf.is_empty() {
        let n = std::os::windows::fs::FileExt::seek_read(f, buf, pos)?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        buf = &mut buf[n..];
        pos += n as u64;
    }
    Ok(())
}

/// Reads a [`Log`]: its file part, then its memory part.
pub struct LogReader<'a, C: Codec = Packed> {
    file: Option<FileReader<'a>>,
    mem: &'a [u8],
    at: usize,
    packing: C::State,
}

impl<C: Codec> LogReader<'_, C> {
    /// The next item, `None` at the end.
    #[inline(always)]
    pub fn next_item(&mut self) -> std::io::Result<Option<C::Item>> {
        if let Some(f) = &mut self.file {
            let b = f.bytes(C::MAX)?;
            if !b.is_empty() {
                let (e, n) = C::get(b, &mut self.packing).ok_or_else(garbled)?;
                f.at += n;
                return Ok(Some(e));
            }
            self.file = None;
        }
        let Some(b) = self.mem.get(self.at..).filter(|b| !b.is_empty()) else {
            return Ok(None);
        };
        let (e, n) = C::get(b, &mut self.packing).ok_or_else(garbled)?;
        self.at += n;
        Ok(Some(e))
    }
}

impl LogReader<'_, Packed> {
    #[inline(always)]
    pub fn next_event(&mut self) -> std::io::Result<Option<Event>> {
        self.next_item()
    }
}

fn garbled() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        "temporary log holds a cut or garbled item",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::event::{pack_loc, NONE};

    fn ev(input: u16, pos: usize, t: i64) -> Event {
        Event {
            t_us: t,
            loc: pack_loc(input, pos),
            status: 200,
            cred: NONE,
            endpoint: NONE,
            detail: NONE,
            ..Event::at(t, 0)
        }
    }

    #[test]
    fn logs_continue_on_disk_and_read_back_whole() {
        let mut log = EventLog::new();
        // At most 64 bytes an event, at least 13: this spills several times over.
        let n = MEMORY_BYTES / 13 * 2 + 17;
        for i in 0..n {
            log.push(&ev(0, i, i as i64));
        }
        log.finish().unwrap();
        assert!(log.on_disk > 0);
        let mut r = log.reader().unwrap();
        let mut k = 0;
        while let Some(e) = r.next_event().unwrap() {
            assert_eq!(e.t_us, k as i64);
            k += 1;
        }
        assert_eq!(k, n);
        // A second reader starts from the beginning again.
        assert_eq!(log.reader().unwrap().next_event().unwrap().unwrap().t_us, 0);
    }
}
