//! Streaming the document into a [`Checker`] through the bounded scanner
//! ([`crate::ingest::scan`]): the top level and `log` are walked event by event, and each page,
//! entry and other `log` member is built as a `Value` one at a time (dropped once checked).
//!
//! Memory is bounded by construction, whatever the file holds: the scanner cuts every string at
//! [`STRING_CAP`] (and every member name at [`KEY_CAP`]) while still reading it to its end, and
//! one unit (a page, an entry, a `log` member) holds at most [`UNIT_BUDGET`] bytes of values; what
//! lies beyond is read, validated as JSON and counted, but not kept. Either is reported as a
//! located warning that names the field and the sizes, never the value. serde_json could not do
//! this: it materialises every string whole before a visitor sees it (a 1 GiB `request.url` cost
//! 1 GiB).

use super::Checker;
use crate::ingest::scan::{ErrorKind, Event, Limits, ScanError, Scanner};
use serde_json::Value;
use std::cell::Cell;
use std::io::{self, BufRead, Read};
use std::rc::Rc;

/// Longest string value kept for checking (decoded bytes). Far above any rule's need (dates,
/// versions and labels are short; a cut string is still a string), and above every string of
/// the shared corpus, bodies included (the longest is 248 KB), so real files are held whole.
pub const STRING_CAP: usize = 1024 * 1024;
/// Longest member name kept.
pub const KEY_CAP: usize = 1024;
/// Most bytes of values (strings, plus a fixed cost per value and member) one unit may hold.
pub const UNIT_BUDGET: usize = 16 * 1024 * 1024;
/// What one value or member counts against the budget besides its text.
const VALUE_COST: usize = 48;

/// Why a document could not be walked to its end.
pub enum ReadError {
    Scan(ScanError),
    /// Something other than `)`, `;` or whitespace after a JSONP callback's document.
    Tail,
}

impl From<ScanError> for ReadError {
    fn from(e: ScanError) -> Self {
        ReadError::Scan(e)
    }
}

/// Where [`Utf8Checked`] notes the offset of the first byte that is not UTF-8; shared with the
/// caller because the reader itself ends up inside the scanner.
pub type BadUtf8 = Rc<Cell<Option<u64>>>;

/// A reader that fails at the first byte that is not UTF-8, remembering its offset (a HAR must
/// be UTF-8 throughout; the scanner locates bad bytes inside strings only).
pub struct Utf8Checked<R> {
    inner: R,
    /// Bytes passed on so far.
    offset: u64,
    /// The start of a sequence cut by the end of the last read.
    carry: Vec<u8>,
    bad_at: BadUtf8,
}

impl<R: Read> Utf8Checked<R> {
    pub fn new(inner: R) -> Self {
        Utf8Checked {
            inner,
            offset: 0,
            carry: Vec::new(),
            bad_at: Rc::new(Cell::new(None)),
        }
    }

    /// A handle on the offset of the first invalid byte, once one was met.
    pub fn bad_utf8(&self) -> BadUtf8 {
        Rc::clone(&self.bad_at)
    }

    fn fail(&mut self, at: u64) -> io::Error {
        self.bad_at.set(Some(at));
        io::Error::new(io::ErrorKind::InvalidData, "invalid UTF-8")
    }
}

impl<R: Read> Read for Utf8Checked<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(at) = self.bad_at.get() {
            return Err(self.fail(at));
        }
        let n = self.inner.read(buf)?;
        let start = self.offset - self.carry.len() as u64;
        if n == 0 {
            if !self.carry.is_empty() {
                return Err(self.fail(start));
            }
            return Ok(0);
        }
        let joined;
        let data: &[u8] = if self.carry.is_empty() {
            &buf[..n]
        } else {
            joined = [self.carry.as_slice(), &buf[..n]].concat();
            &joined
        };
        match std::str::from_utf8(data) {
            Ok(_) => self.carry.clear(),
            Err(e) => match e.error_len() {
                Some(_) => {
                    let at = start + e.valid_up_to() as u64;
                    return Err(self.fail(at));
                }
                None => self.carry = data[e.valid_up_to()..].to_vec(),
            },
        }
        self.offset += n as u64;
        Ok(n)
    }
}

/// Consume `callback(` of a JSONP/HARP wrapper (the name was vetted by `not_a_har`).
pub fn skip_callback_name(input: &mut impl BufRead) -> Result<(), ReadError> {
    let mut name = Vec::new();
    input
        .take(64 * 1024)
        .read_until(b'(', &mut name)
        .map_err(|e| ReadError::Scan(io_error(e)))?;
    if name.last() == Some(&b'(') {
        Ok(())
    } else {
        Err(ReadError::Tail)
    }
}

fn io_error(e: io::Error) -> ScanError {
    ScanError {
        kind: ErrorKind::Io(e.to_string()),
        pos: Default::default(),
    }
}

/// Bytes kept back from the end of a JSONP document, where its `)` and `;` must be.
const TAIL_HOLD: usize = 4096;

/// Passes a JSONP callback's argument through and drops the `)` (and optional `;`) that close
/// it, keeping only the last [`TAIL_HOLD`] bytes back. When the input does not end that way,
/// everything is passed on and `bad` is set: the scanner then fails on the first byte after
/// the document (or finds the document itself broken first, which it reports).
struct JsonpTail<R> {
    inner: R,
    held: Vec<u8>,
    /// Bytes of `held` that are ready to be handed out (the rest may be the tail).
    ready: usize,
    eof: bool,
    bad: Rc<Cell<bool>>,
}

impl<R: Read> Read for JsonpTail<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.ready == 0 && !(self.eof && self.held.is_empty()) {
            if self.eof {
                // The input ended: settle the tail.
                let t = &self.held;
                let mut end = t.len();
                while end > 0 && t[end - 1].is_ascii_whitespace() {
                    end -= 1;
                }
                if end > 0 && t[end - 1] == b';' {
                    end -= 1;
                }
                while end > 0 && t[end - 1].is_ascii_whitespace() {
                    end -= 1;
                }
                if end > 0 && t[end - 1] == b')' {
                    self.held.truncate(end - 1);
                } else {
                    self.bad.set(true);
                }
                self.ready = self.held.len();
                break;
            }
            let had = self.held.len();
            self.held.resize(had + 64 * 1024, 0);
            let n = self.inner.read(&mut self.held[had..])?;
            self.held.truncate(had + n);
            if n == 0 {
                self.eof = true;
            } else {
                self.ready = self.held.len().saturating_sub(TAIL_HOLD);
            }
        }
        let n = self.ready.min(out.len());
        out[..n].copy_from_slice(&self.held[..n]);
        self.held.drain(..n);
        self.ready -= n;
        Ok(n)
    }
}

/// Walk one document from `input` into `c`; then only whitespace (or, after a callback's
/// document, `)` and an optional `;`) may follow. `input` is positioned after the callback's
/// `(` when `jsonp`.
pub fn walk_reader<'r>(
    input: impl Read + 'r,
    c: &mut Checker,
    jsonp: bool,
) -> Result<(), ReadError> {
    let limits = Limits {
        string_cap: STRING_CAP,
        key_cap: KEY_CAP,
        ..Limits::default()
    };
    let bad_tail = Rc::new(Cell::new(false));
    let reader: Box<dyn Read + 'r> = if jsonp {
        Box::new(JsonpTail {
            inner: input,
            held: Vec::new(),
            ready: 0,
            eof: false,
            bad: Rc::clone(&bad_tail),
        })
    } else {
        Box::new(input)
    };
    let mut sc = Scanner::with_limits(reader, limits);
    top(&mut sc, c)?;
    // Only `End` can follow a complete value; a callback's document must also have been
    // closed by its `)`.
    let after = sc.next().map(|_| ());
    if bad_tail.get() {
        return Err(ReadError::Tail);
    }
    after.map_err(ReadError::from)
}

type Sc<'r> = Scanner<Box<dyn Read + 'r>>;

/// What a value other than an object is, in [`super::schema::found`]'s words; containers are
/// skipped (counting an array's items).
fn found_other(sc: &mut Sc<'_>, first: Owned) -> Result<String, ScanError> {
    let v = match first {
        Owned::Str { len: 0, .. } => Value::String(String::new()),
        Owned::Str { .. } => Value::String("x".into()),
        Owned::Num(_) => Value::from(0),
        Owned::Bool(b) => Value::Bool(b),
        Owned::Null => Value::Null,
        Owned::StartArray => {
            let mut n = 0usize;
            loop {
                match sc.next()? {
                    Event::EndArray => break,
                    Event::StartArray | Event::StartObject => sc.skip_container()?,
                    _ => {}
                }
                n += 1;
            }
            return Ok(match n {
                0 => "an empty array".into(),
                n => format!("an array of {n}"),
            });
        }
        Owned::StartObject => {
            sc.skip_container()?;
            return Ok("an object".into());
        }
        Owned::EndArray => unreachable!("a value is due"),
    };
    Ok(super::schema::found(&v))
}

/// The top level: `log` is walked, everything else skipped.
fn top(sc: &mut Sc<'_>, c: &mut Checker) -> Result<(), ReadError> {
    let first = own(sc.next()?);
    if !matches!(first, Owned::StartObject) {
        let found = found_other(sc, first)?;
        c.no_log(&format!("found {found}"));
        return Ok(());
    }
    let mut seen_log = false;
    loop {
        let is_log = match sc.next()? {
            Event::EndObject => break,
            Event::Key(k) => k.value == "log" && !k.is_cut(),
            _ => unreachable!("a key or `}}` is due"),
        };
        if is_log && !seen_log {
            seen_log = true;
            log(sc, c)?;
        } else {
            sc.skip_value()?;
        }
    }
    if !seen_log {
        c.no_log("found an object without it");
    }
    Ok(())
}

/// `log`: `pages` and `entries` arrays item by item, other members whole (bounded).
fn log(sc: &mut Sc<'_>, c: &mut Checker) -> Result<(), ReadError> {
    let first = own(sc.next()?);
    if !matches!(first, Owned::StartObject) {
        let found = found_other(sc, first)?;
        c.push(
            "log",
            None,
            String::new(),
            format!("should be an object, found {found}"),
        );
        return Ok(());
    }
    c.log_object();
    loop {
        let key = match sc.next()? {
            Event::EndObject => break,
            Event::Key(k) => {
                if k.is_cut() {
                    c.warn("log", None, String::new(), cut_key_note(k.len));
                }
                k.value.to_string()
            }
            _ => unreachable!("a key or `}}` is due"),
        };
        let first = own(sc.next()?);
        if (key == "pages" || key == "entries") && matches!(first, Owned::StartArray) {
            c.log_array(&key);
            let pages = key == "pages";
            let mut i = 0;
            loop {
                let item = own(sc.next()?);
                if matches!(item, Owned::EndArray) {
                    break;
                }
                let at = format!("log.{key}[{i}]");
                let entry = (!pages).then_some(i);
                let (v, partial) = Unit::new(c, &at, entry).build(sc, item, String::new())?;
                c.partial = partial;
                if pages {
                    c.page(i, &v);
                } else {
                    c.entry(i, &v);
                }
                c.partial = false;
                i += 1;
            }
        } else {
            let (v, partial) = Unit::new(c, "log", None).build(sc, first, key.clone())?;
            c.partial = partial;
            c.log_member(&key, &v);
            c.partial = false;
        }
    }
    Ok(())
}

/// An event detached from the scanner's buffer (strings already cut to their cap).
enum Owned {
    Str { value: String, len: u64 },
    Num(String),
    Bool(bool),
    Null,
    StartObject,
    StartArray,
    EndArray,
}

fn own(ev: Event<'_>) -> Owned {
    match ev {
        Event::Str(t) => Owned::Str {
            value: t.value.to_string(),
            len: t.len,
        },
        Event::Num(n) => Owned::Num(n.to_string()),
        Event::Bool(b) => Owned::Bool(b),
        Event::Null => Owned::Null,
        Event::StartObject => Owned::StartObject,
        Event::StartArray => Owned::StartArray,
        Event::EndArray => Owned::EndArray,
        // The scanner hands these out only where no value is due.
        Event::EndObject | Event::Key(_) | Event::End => unreachable!("a value is due"),
    }
}

fn cut_key_note(len: u64) -> String {
    format!(
        "a member name of {len} bytes, longer than check's {KEY_CAP}-byte cap; checked on its first {KEY_CAP} bytes"
    )
}

/// Builds one unit's value within [`UNIT_BUDGET`], warning about what it cut or left out.
struct Unit<'c> {
    c: &'c mut Checker,
    at: &'c str,
    entry: Option<usize>,
    left: usize,
    /// Values and members read but not kept once the budget was spent.
    skipped: u64,
}

impl<'c> Unit<'c> {
    fn new(c: &'c mut Checker, at: &'c str, entry: Option<usize>) -> Self {
        Unit {
            c,
            at,
            entry,
            left: UNIT_BUDGET,
            skipped: 0,
        }
    }

    /// The unit whose first event is `first`, at `path` inside `at`, and whether some of it
    /// was read but not kept.
    fn build(
        mut self,
        sc: &mut Sc<'_>,
        first: Owned,
        path: String,
    ) -> Result<(Value, bool), ScanError> {
        let v = self.value(sc, first, &path)?;
        if self.skipped > 0 {
            let problem = format!(
                "holds more than check's {UNIT_BUDGET}-byte budget for one object; {} later values were read but not checked (deviations in it may be missing or incomplete)",
                self.skipped
            );
            self.c.warn(self.at, self.entry, path, problem);
        }
        Ok((v, self.skipped > 0))
    }

    fn spend(&mut self, n: usize) -> bool {
        match self.left.checked_sub(n) {
            Some(rest) => {
                self.left = rest;
                true
            }
            None => {
                self.left = 0;
                false
            }
        }
    }

    fn value(&mut self, sc: &mut Sc<'_>, first: Owned, path: &str) -> Result<Value, ScanError> {
        Ok(match first {
            Owned::Str { value, len } => {
                if (value.len() as u64) < len {
                    let problem = format!(
                        "{len} bytes, longer than check's {STRING_CAP}-byte cap; checked on its first {} bytes",
                        value.len()
                    );
                    self.c.warn(self.at, self.entry, path.to_string(), problem);
                }
                Value::String(value)
            }
            // serde_json's own reading of the number, so streamed and in-memory checks agree.
            Owned::Num(n) => serde_json::from_str(&n).unwrap_or(Value::Null),
            Owned::Bool(b) => Value::Bool(b),
            Owned::Null => Value::Null,
            Owned::StartArray => {
                let mut items = Vec::new();
                loop {
                    let ev = sc.next()?;
                    if ev == Event::EndArray {
                        break;
                    }
                    let cost = VALUE_COST + event_text_len(&ev);
                    let item = own(ev);
                    if !self.spend(cost) {
                        self.skip_rest_of(sc, &item)?;
                        continue;
                    }
                    let p = format!("{path}[{}]", items.len());
                    items.push(self.value(sc, item, &p)?);
                }
                Value::Array(items)
            }
            Owned::StartObject => {
                let mut m = serde_json::Map::new();
                loop {
                    let key = match sc.next()? {
                        Event::EndObject => break,
                        Event::Key(k) => {
                            if !self.spend(VALUE_COST + k.value.len()) {
                                sc.skip_value()?;
                                self.skipped += 1;
                                continue;
                            }
                            if k.is_cut() {
                                self.c.warn(
                                    self.at,
                                    self.entry,
                                    path.to_string(),
                                    cut_key_note(k.len),
                                );
                            }
                            k.value.to_string()
                        }
                        _ => unreachable!("a key or `}}` is due"),
                    };
                    let ev = sc.next()?;
                    let cost = VALUE_COST + event_text_len(&ev);
                    let item = own(ev);
                    if !self.spend(cost) {
                        self.skip_rest_of(sc, &item)?;
                        continue;
                    }
                    let p = if path.is_empty() {
                        key.clone()
                    } else {
                        format!("{path}.{key}")
                    };
                    let v = self.value(sc, item, &p)?;
                    m.insert(key, v);
                }
                Value::Object(m)
            }
            Owned::EndArray => unreachable!("a value is due"),
        })
    }

    /// A value over budget whose first event was read: skip the rest of it and count it.
    fn skip_rest_of(&mut self, sc: &mut Sc<'_>, first: &Owned) -> Result<(), ScanError> {
        self.skipped += 1;
        if matches!(first, Owned::StartArray | Owned::StartObject) {
            sc.skip_container()?;
        }
        Ok(())
    }
}

fn event_text_len(ev: &Event<'_>) -> usize {
    match ev {
        Event::Str(t) => t.value.len(),
        Event::Num(n) => n.len(),
        _ => 0,
    }
}
