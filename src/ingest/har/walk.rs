//! The reader-thread half of HAR ingestion: walk the document with the bounded scanner and
//! read each entry of `log.entries` straight into the lenient raw model (only the fields
//! normalization reads).
//!
//! This is the one part that cannot run in parallel (where an entry ends is known only by
//! reading everything before it), so it does as little as it can: strings are searched with
//! memchr and copied raw, 2xx/3xx response bodies and every field no analysis reads (cookies,
//! query lists, `_initiator` stacks, WebSocket messages…) are skipped without being
//! materialised, over-long values are cut to their cap with a note, and request bodies are
//! hashed here so only their digest travels. Workers normalize the raw entries (no second
//! parse: the entries used to travel as re-serialized JSON that workers parsed again with
//! serde, 11 % of the CPU).

use super::{RawContent, RawEntry, RawHeader, RawRequest, RawResponse, RawTimings};
use crate::ingest::caps::{self, Cap};
use crate::ingest::loose::{LList, LNum, LObj, LStr, LText, Odd};
use crate::ingest::scan::{Event, Limits, Mark, ScanError, Scanner};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Entries per job, and the text bytes read after which a job is sent early.
const JOB_ENTRIES: usize = 512;
const JOB_BYTES: usize = 1024 * 1024;

/// What a request body was, for the write fingerprint (the body itself is not kept).
#[derive(Debug, Clone, Copy)]
pub(crate) struct PostBody {
    pub len: u64,
    pub digest: [u8; 32],
}

/// One item of `log.entries`.
pub(crate) enum EntryKind {
    /// Read into the lenient raw model.
    Read {
        entry: Box<RawEntry>,
        post: Option<PostBody>,
    },
    /// Taken whole by the reader (its bytes are `Job::raw[range]`), for a worker to read
    /// ([`read_taken`]).
    Taken { range: Range<usize>, mark: Mark },
    /// Not an object: what it was.
    NotObject(&'static str),
}

pub(crate) struct EntryRef {
    pub index: usize,
    pub kind: EntryKind,
    /// Located notes about the entry made while reading it (cut values, dropped items).
    pub notes: Vec<String>,
}

/// A batch of entries for one worker.
#[derive(Default)]
pub(crate) struct Job {
    /// Text bytes held by the entries (to send a job early).
    pub bytes: usize,
    pub entries: Vec<EntryRef>,
    /// Notes about the file (not one entry) that belong at this point of the input.
    pub file_notes: Vec<String>,
    /// The bytes of the entries taken whole.
    pub raw: Vec<u8>,
    /// Jobs fed before this one.
    pub seq: u64,
}

/// Why the walk stopped early.
pub(crate) enum Stop {
    Scan(ScanError),
    /// The document is JSON but not a HAR.
    NotHar(String),
    /// A worker met an error in an entry taken whole (it reports it).
    Halted,
}

/// What the walk learned about the file.
pub(crate) struct Walked {
    pub stop: Option<Stop>,
    /// Set when the walk stopped inside `log.entries`: the index of the entry being read.
    pub stopped_at_entry: Option<usize>,
    pub creator: Option<String>,
    pub version: Option<String>,
    /// Entries walked before `creator` / `version` were read (a worker that stops at an
    /// earlier entry means a sequential read would never have reached them).
    pub creator_at: usize,
    pub version_at: usize,
    /// Data after the document (not read): where it starts and how many bytes.
    pub trailing: Option<Trailing>,
}

/// Data after a HAR document.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Trailing {
    pub line: u64,
    pub column: u64,
    pub bytes: u64,
}

/// How the reader thread hands entries to workers.
pub(crate) struct Handoff<'a> {
    /// Take entries whole as bytes (workers read them) instead of reading them here.
    pub split: bool,
    /// Set by a worker that met an error: the walk stops (what it read after that is dropped).
    pub halt: &'a AtomicBool,
    /// Byte buffers of finished jobs, for reuse.
    pub pool: &'a Mutex<Vec<Vec<u8>>>,
}

/// Room a new job buffer starts with: a job is sent once past [`JOB_BYTES`], and one more entry
/// taken whole is at most a scanner buffer long. Grown from empty instead, every new buffer
/// went through a dozen reallocations (copies, and fresh pages each time): 28 % of the reader
/// thread's instructions on a 10 MB HAR, where the pool is still warming up.
const JOB_BUFFER: usize = JOB_BYTES + 256 * 1024;

impl Handoff<'_> {
    fn buffer(&self) -> Vec<u8> {
        self.pool
            .lock()
            .ok()
            .and_then(|mut p| p.pop())
            .unwrap_or_else(|| Vec::with_capacity(JOB_BUFFER))
    }
}

/// An entry read by a worker: the raw entry, its request body and its notes.
pub(crate) type Taken = (Box<RawEntry>, Option<PostBody>, Vec<String>);

/// Read an entry the reader took whole ([`EntryKind::Taken`]), with `sc` over the job's bytes:
/// the same entry, notes and errors as reading it in place would give.
pub(crate) fn read_taken(
    sc: &mut Scanner<std::io::Empty>,
    range: Range<usize>,
    mark: &Mark,
) -> Result<Taken, ScanError> {
    sc.seek_object(range, mark);
    let ev = sc.next()?;
    debug_assert_eq!(ev, Event::StartObject);
    let mut p = Proj {
        size: 0,
        notes: Vec::new(),
        post: None,
    };
    let entry = Box::new(entry(sc, &mut p)?);
    Ok((entry, p.post, p.notes))
}

/// Walk a HAR document from `reader`, feeding jobs of projected entries; then read what
/// follows it (whitespace, and the callback's `);` when `jsonp`) to tell data after it.
pub(crate) fn walk<R: Read>(
    reader: R,
    handoff: &Handoff<'_>,
    jsonp: bool,
    feed: &mut dyn FnMut(Job),
) -> Walked {
    let mut w = Walker {
        sc: Scanner::with_limits(reader, Limits::default()),
        feed,
        job: Job::default(),
        handoff,
        seq: 0,
        creator: None,
        version: None,
        creator_at: 0,
        version_at: 0,
        next_entry: 0,
        in_entries: false,
    };
    w.job.raw = handoff.buffer();
    let mut stop = w.root().err();
    w.flush();
    let mut trailing = None;
    if stop.is_none() {
        match w.sc.trailing(jsonp) {
            Ok(t) => {
                trailing = t.map(|(at, bytes)| Trailing {
                    line: at.line,
                    column: at.column,
                    bytes,
                })
            }
            Err(e) => stop = Some(Stop::Scan(e)),
        }
    }
    Walked {
        stopped_at_entry: (stop.is_some() && w.in_entries).then_some(w.next_entry),
        trailing,
        stop,
        creator: w.creator,
        version: w.version,
        creator_at: w.creator_at,
        version_at: w.version_at,
    }
}

struct Walker<'f, 'h, R> {
    sc: Scanner<R>,
    feed: &'f mut dyn FnMut(Job),
    job: Job,
    handoff: &'h Handoff<'h>,
    seq: u64,
    creator: Option<String>,
    version: Option<String>,
    creator_at: usize,
    version_at: usize,
    next_entry: usize,
    in_entries: bool,
}

impl From<ScanError> for Stop {
    fn from(e: ScanError) -> Self {
        Stop::Scan(e)
    }
}

/// The JSON type of a value that starts with `ev`, for messages.
fn kind_of(ev: &Event<'_>) -> &'static str {
    match ev {
        Event::StartObject => "an object",
        Event::StartArray => "an array",
        Event::Str(_) => "a string",
        Event::Num(_) => "a number",
        Event::Bool(_) => "a boolean",
        Event::Null => "null",
        _ => "not a value",
    }
}

/// A string, number or boolean read as text (numbers as serde formats them), like the lenient
/// `LStr` does.
fn scalar_text(ev: &Event<'_>) -> Option<String> {
    match ev {
        Event::Str(t) => Some(t.value.to_string()),
        Event::Num(n) => Some(match n.parse::<f64>() {
            Ok(v) if !n.contains(['.', 'e', 'E']) && v.fract() == 0.0 && v.abs() < 9e15 => {
                format!("{}", v as i64)
            }
            Ok(v) => v.to_string(),
            Err(_) => n.to_string(),
        }),
        Event::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

impl<R: Read> Walker<'_, '_, R> {
    fn flush(&mut self) {
        if self.job.entries.is_empty() && self.job.file_notes.is_empty() {
            return;
        }
        let mut job = std::mem::take(&mut self.job);
        job.seq = self.seq;
        self.seq += 1;
        if self.handoff.split {
            self.job.raw = self.handoff.buffer();
        }
        (self.feed)(job);
    }

    fn cap(&mut self, cap: usize) {
        let l = self.sc.limits();
        if l.string_cap != cap {
            self.sc.set_limits(Limits {
                string_cap: cap,
                ..l
            });
        }
    }

    /// Skip the rest of a value whose first event opened a container (`ev_opens`).
    fn skip_rest(&mut self, ev_opens: bool) -> Result<(), ScanError> {
        if ev_opens {
            self.sc.skip_container()?;
        }
        Ok(())
    }

    fn root(&mut self) -> Result<(), Stop> {
        let ev = self.sc.next()?;
        if ev != Event::StartObject {
            return Err(Stop::NotHar(format!(
                "the top level is {}, not an object with \"log\"",
                kind_of(&ev)
            )));
        }
        self.log_object(true)
    }

    /// The root object, or `log` (some tools write the log's fields at the root).
    fn log_object(&mut self, root: bool) -> Result<(), Stop> {
        loop {
            #[derive(PartialEq)]
            enum K {
                Log,
                Entries,
                Version,
                Creator,
                Other,
            }
            let k = match self.sc.next()? {
                Event::EndObject => return Ok(()),
                Event::Key(k) => match k.value {
                    "log" if root => K::Log,
                    "entries" => K::Entries,
                    "version" => K::Version,
                    "creator" => K::Creator,
                    _ => K::Other,
                },
                _ => return Ok(()), // the scanner only hands out keys here
            };
            match k {
                K::Log => {
                    let ev = self.sc.next()?;
                    match ev {
                        Event::StartObject => self.log_object(false)?,
                        // `"log": null` or another non-object: nothing to read; reported as
                        // "no entries".
                        Event::StartArray => self.sc.skip_container()?,
                        _ => {}
                    }
                }
                K::Entries => self.entries()?,
                K::Version => {
                    self.cap(caps::CREATOR.max);
                    let ev = self.sc.next()?;
                    let opens = matches!(ev, Event::StartObject | Event::StartArray);
                    self.version = scalar_text(&ev);
                    self.version_at = self.next_entry;
                    self.skip_rest(opens)?;
                }
                K::Creator => self.creator()?,
                K::Other => self.sc.skip_value()?,
            }
        }
    }

    fn creator(&mut self) -> Result<(), Stop> {
        let ev = self.sc.next()?;
        if ev != Event::StartObject {
            // A scalar creator is ignored; an array is skipped whole.
            if ev == Event::StartArray {
                self.sc.skip_container()?;
            }
            return Ok(());
        }
        let (mut name, mut version) = (String::new(), String::new());
        loop {
            let which = match self.sc.next()? {
                Event::EndObject => break,
                Event::Key(k) => match k.value {
                    "name" => 1,
                    "version" => 2,
                    _ => 0,
                },
                _ => break,
            };
            if which == 0 {
                self.sc.skip_value()?;
                continue;
            }
            self.cap(caps::CREATOR.max);
            let ev = self.sc.next()?;
            let opens = matches!(ev, Event::StartObject | Event::StartArray);
            let text = scalar_text(&ev).unwrap_or_default();
            self.skip_rest(opens)?;
            if which == 1 {
                name = text;
            } else {
                version = text;
            }
        }
        let both = format!("{} {}", name.trim(), version.trim())
            .trim()
            .to_string();
        if !both.is_empty() {
            self.creator = Some(both);
            self.creator_at = self.next_entry;
        }
        Ok(())
    }

    fn entries(&mut self) -> Result<(), Stop> {
        match self.sc.next()? {
            Event::StartArray => {}
            Event::StartObject => {
                self.sc.skip_container()?;
                self.flush();
                self.job
                    .file_notes
                    .push("log.entries is an object, not an array; no entries read".into());
                self.flush();
                return Ok(());
            }
            _ => return Ok(()),
        }
        self.in_entries = true;
        loop {
            let index = self.next_entry;
            if self.handoff.split {
                if self.handoff.halt.load(Ordering::Relaxed) {
                    return Err(Stop::Halted);
                }
                if self.take_whole(index)? {
                    continue;
                }
            }
            if !self.read_in_place(index)? {
                break;
            }
        }
        self.in_entries = false;
        Ok(())
    }

    /// The next entry's bytes taken whole into the job, for a worker to read (when it is an
    /// object; false, nothing taken, otherwise).
    fn take_whole(&mut self, index: usize) -> Result<bool, Stop> {
        let from = self.job.raw.len();
        let Some(mark) = self.sc.take_object(&mut self.job.raw)? else {
            return Ok(false);
        };
        let range = from..self.job.raw.len();
        self.job.bytes += range.len();
        self.job.entries.push(EntryRef {
            index,
            kind: EntryKind::Taken { range, mark },
            notes: Vec::new(),
        });
        self.entry_done();
        Ok(true)
    }

    /// The next entry read here (or noted as not an object); false at the end of the array.
    fn read_in_place(&mut self, index: usize) -> Result<bool, Stop> {
        let ev = self.sc.next()?;
        let kind = match ev {
            Event::EndArray => return Ok(false),
            Event::StartObject => {
                let mut p = Proj {
                    size: 0,
                    notes: Vec::new(),
                    post: None,
                };
                let entry = Box::new(entry(&mut self.sc, &mut p)?);
                self.job.bytes += p.size;
                EntryRef {
                    index,
                    kind: EntryKind::Read {
                        entry,
                        post: p.post,
                    },
                    notes: p.notes,
                }
            }
            other => {
                let what = kind_of(&other);
                if other == Event::StartArray {
                    self.sc.skip_container()?;
                }
                EntryRef {
                    index,
                    kind: EntryKind::NotObject(what),
                    notes: Vec::new(),
                }
            }
        };
        self.job.entries.push(kind);
        self.entry_done();
        Ok(true)
    }

    /// One more entry in the job: the job goes to the workers when it is full.
    fn entry_done(&mut self) {
        self.next_entry += 1;
        if self.job.entries.len() >= JOB_ENTRIES || self.job.bytes >= JOB_BYTES {
            self.flush();
        }
    }
}

/// What reading one entry gathers besides the entry itself.
struct Proj {
    /// Text bytes kept so far for this entry (for the size budget).
    size: usize,
    notes: Vec<String>,
    post: Option<PostBody>,
}

impl Proj {
    fn over_budget(&self) -> bool {
        self.size > caps::ENTRY_MAX
    }
}

fn set_cap<R: Read>(sc: &mut Scanner<R>, cap: usize) {
    let l = sc.limits();
    if l.string_cap != cap {
        sc.set_limits(Limits {
            string_cap: cap,
            ..l
        });
    }
}

/// The JSON type of a non-scalar or unwanted value, for the lenient types.
fn odd_of(ev: &Event<'_>) -> Odd {
    match ev {
        Event::StartObject => Odd::Object,
        Event::StartArray => Odd::Array,
        Event::Str(_) => Odd::String,
        Event::Bool(_) => Odd::Bool,
        _ => Odd::Number,
    }
}

/// Skip what is left of a value whose first event was `ev`.
fn finish<R: Read>(sc: &mut Scanner<R>, ev_opens: bool) -> Result<(), ScanError> {
    if ev_opens {
        sc.skip_container()?;
    }
    Ok(())
}

/// A number's raw text as text, formatted as a JSON reader hands it out: an integer as written
/// (without a sign on zero), anything else as the nearest `f64`.
fn number_text(n: &str) -> String {
    if let Ok(v) = n.parse::<u64>() {
        return v.to_string();
    }
    if let Ok(v) = n.parse::<i64>() {
        return v.to_string();
    }
    n.parse::<f64>()
        .map_or_else(|_| n.to_string(), |v| v.to_string())
}

/// Read the next value as text, capped at `cap`; returns it and the full length of a cut string.
fn lstr<R: Read>(
    sc: &mut Scanner<R>,
    p: &mut Proj,
    cap: usize,
) -> Result<(LStr, Option<u64>), ScanError> {
    set_cap(sc, cap);
    let ev = sc.next()?;
    let opens = matches!(ev, Event::StartObject | Event::StartArray);
    let (v, cut) = match ev {
        Event::Str(t) => {
            p.size += t.value.len();
            let cut = t.is_cut().then_some(t.len);
            (LStr::Str(t.value.to_string()), cut)
        }
        Event::Num(n) => (LStr::Coerced(number_text(n)), None),
        Event::Bool(b) => (LStr::Coerced(b.to_string()), None),
        Event::Null => (LStr::Null, None),
        other => (LStr::Odd(odd_of(&other)), None),
    };
    finish(sc, opens)?;
    Ok((v, cut))
}

/// [`lstr`] with a note when the value was cut.
fn text_field<R: Read>(
    sc: &mut Scanner<R>,
    p: &mut Proj,
    cap: Cap,
    name: &str,
) -> Result<LStr, ScanError> {
    let (v, cut) = lstr(sc, p, cap.max)?;
    if let Some(len) = cut {
        p.notes.push(caps::cut_note(name, len, cap.max));
    }
    Ok(v)
}

/// Read the next value as a number (a numeric string is read and flagged).
fn num_field<R: Read>(
    sc: &mut Scanner<R>,
    p: &mut Proj,
    cap: Cap,
    name: &str,
) -> Result<LNum, ScanError> {
    set_cap(sc, cap.max);
    let ev = sc.next()?;
    let opens = matches!(ev, Event::StartObject | Event::StartArray);
    let v = match ev {
        Event::Num(n) => match n.parse::<f64>() {
            Ok(v) if v.is_finite() => LNum::Num(v),
            _ => LNum::Odd(Odd::Number),
        },
        Event::Str(t) => {
            if t.is_cut() {
                p.notes.push(caps::cut_note(name, t.len, cap.max));
            }
            match t.value.trim().parse::<f64>() {
                Ok(v) if v.is_finite() => LNum::FromStr(v),
                _ => LNum::Odd(Odd::String),
            }
        }
        Event::Null => LNum::Null,
        other => LNum::Odd(odd_of(&other)),
    };
    finish(sc, opens)?;
    Ok(v)
}

/// Read the next value; when it is an object, call `each` for every wanted key (by its index
/// in `keys`), which reads the value; other keys are skipped, and a key seen twice is read the
/// first time only. Anything else than an object is recorded as what it was.
fn object<R: Read, T: Default>(
    sc: &mut Scanner<R>,
    p: &mut Proj,
    keys: &[&str],
    mut each: impl FnMut(&mut Scanner<R>, &mut Proj, &mut T, usize) -> Result<(), ScanError>,
) -> Result<LObj<T>, ScanError> {
    let ev = sc.next()?;
    match ev {
        Event::StartObject => {}
        Event::Null => return Ok(LObj::Null),
        other => {
            let (odd, opens) = (odd_of(&other), other == Event::StartArray);
            finish(sc, opens)?;
            return Ok(LObj::Odd(odd));
        }
    }
    let mut out = T::default();
    let mut seen = 0u64;
    loop {
        let which = match sc.next()? {
            Event::EndObject => break,
            Event::Key(k) => keys.iter().position(|&want| want == k.value),
            _ => None,
        };
        match which {
            Some(i) if seen & (1 << i) == 0 => {
                seen |= 1 << i;
                each(sc, p, &mut out, i)?;
            }
            _ => sc.skip_value()?,
        }
    }
    Ok(LObj::Val(out))
}

/// An entry whose `{` has been read.
fn entry<R: Read>(sc: &mut Scanner<R>, p: &mut Proj) -> Result<RawEntry, ScanError> {
    const KEYS: &[&str] = &[
        "startedDateTime",
        "time",
        "request",
        "response",
        "timings",
        "pageref",
    ];
    let mut e = RawEntry::default();
    let mut seen = 0u64;
    loop {
        let which = match sc.next()? {
            Event::EndObject => break,
            Event::Key(k) => KEYS.iter().position(|&want| want == k.value),
            _ => None,
        };
        let i = match which {
            Some(i) if seen & (1 << i) == 0 => i,
            _ => {
                sc.skip_value()?;
                continue;
            }
        };
        seen |= 1 << i;
        match i {
            0 => e.started = text_field(sc, p, caps::TIME, "startedDateTime")?,
            1 => e.time = num_field(sc, p, caps::OTHER, "time")?,
            2 => e.request = request(sc, p)?,
            3 => e.response = response(sc, p)?,
            4 => {
                e.timings = object(sc, p, TIMINGS, |sc, p, t: &mut RawTimings, i| {
                    let v = num_field(sc, p, caps::OTHER, "timings")?;
                    match i {
                        0 => t.wait = v,
                        1 => t.blocked = v,
                        2 => t.dns = v,
                        3 => t.connect = v,
                        4 => t.send = v,
                        _ => t.receive = v,
                    }
                    Ok(())
                })?
            }
            _ => e.pageref = text_field(sc, p, caps::PAGEREF, "pageref")?,
        }
    }
    Ok(e)
}

const TIMINGS: &[&str] = &["wait", "blocked", "dns", "connect", "send", "receive"];

fn request<R: Read>(sc: &mut Scanner<R>, p: &mut Proj) -> Result<LObj<RawRequest>, ScanError> {
    const KEYS: &[&str] = &["method", "url", "headers", "postData"];
    object(sc, p, KEYS, |sc, p, r: &mut RawRequest, i| {
        match i {
            0 => r.method = text_field(sc, p, caps::METHOD, "request.method")?,
            1 => r.url = text_field(sc, p, caps::URL, "request.url")?,
            2 => r.headers = headers(sc, p, "request.headers")?,
            _ => post_data(sc, p)?,
        }
        Ok(())
    })
}

/// `postData`: only `text` matters, and only its digest and length travel (hashed here, whole,
/// whatever its size).
fn post_data<R: Read>(sc: &mut Scanner<R>, p: &mut Proj) -> Result<(), ScanError> {
    let ev = sc.next()?;
    if ev != Event::StartObject {
        // Not an object: no body to fingerprint.
        if ev == Event::StartArray {
            sc.skip_container()?;
        }
        return Ok(());
    }
    loop {
        let is_text = match sc.next()? {
            Event::EndObject => break,
            Event::Key(k) => k.value == "text",
            _ => false,
        };
        if !is_text {
            sc.skip_value()?;
            continue;
        }
        set_cap(sc, 0);
        let mut hasher = Sha256::new();
        let ev = sc.next_observed(&mut |b| hasher.update(b))?;
        match ev {
            Event::Str(t) => {
                let len = t.len;
                if p.post.is_none() {
                    p.post = Some(PostBody {
                        len,
                        digest: hasher.finalize().into(),
                    });
                }
            }
            Event::StartObject | Event::StartArray => sc.skip_container()?,
            _ => {}
        }
    }
    Ok(())
}

fn headers<R: Read>(
    sc: &mut Scanner<R>,
    p: &mut Proj,
    side: &str,
) -> Result<LList<RawHeader>, ScanError> {
    let mut list = LList::default();
    match sc.next()? {
        Event::StartArray => {}
        Event::Null => return Ok(list),
        other => {
            // Not a list: normalization reports what it was.
            list.odd = Some(odd_of(&other));
            let opens = other == Event::StartObject;
            finish(sc, opens)?;
            return Ok(list);
        }
    }
    let mut index = 0usize;
    let mut dropped = 0usize;
    loop {
        let ev = sc.next()?;
        if ev == Event::EndArray {
            break;
        }
        if p.over_budget() {
            if matches!(ev, Event::StartObject | Event::StartArray) {
                sc.skip_container()?;
            }
            dropped += 1;
            index += 1;
            continue;
        }
        match ev {
            Event::StartObject => {
                if list.items.is_empty() {
                    // Exporters write a handful to a few dozen: skip the 1-2-4 growth steps.
                    list.items.reserve(8);
                }
                list.items.push(header(sc, p, side, index)?);
            }
            // Not an object: counted as an odd item.
            other => {
                let opens = other == Event::StartArray;
                finish(sc, opens)?;
                list.odd_items += 1;
            }
        }
        index += 1;
    }
    if dropped > 0 {
        p.notes.push(format!(
            "{side}: the entry is larger than {} MiB; its last {dropped} header(s) were dropped",
            caps::ENTRY_MAX >> 20
        ));
    }
    Ok(list)
}

/// One header object (after its `{`): its first `name` and `value`, each capped (a cut noted
/// under `side[index]`); other members skipped.
fn header<R: Read>(
    sc: &mut Scanner<R>,
    p: &mut Proj,
    side: &str,
    index: usize,
) -> Result<RawHeader, ScanError> {
    let mut h = RawHeader::default();
    let mut seen = 0u8;
    loop {
        let which = match sc.next()? {
            Event::EndObject => break,
            Event::Key(k) => match k.value {
                "name" => 1u8,
                "value" => 2,
                _ => 0,
            },
            _ => 0,
        };
        if which == 0 || seen & which != 0 {
            sc.skip_value()?;
            continue;
        }
        seen |= which;
        let (key, cap) = if which == 1 {
            ("name", caps::HEADER_NAME)
        } else {
            ("value", caps::HEADER_VALUE)
        };
        let (v, cut) = lstr(sc, p, cap.max)?;
        if let Some(len) = cut {
            let name = format!("{side}[{index}].{key}");
            p.notes.push(caps::cut_note(&name, len, cap.max));
        }
        if which == 1 {
            h.name = v;
        } else {
            h.value = v;
        }
    }
    Ok(h)
}

fn response<R: Read>(sc: &mut Scanner<R>, p: &mut Proj) -> Result<LObj<RawResponse>, ScanError> {
    const KEYS: &[&str] = &["status", "headers", "content"];
    object(sc, p, KEYS, |sc, p, r: &mut RawResponse, i| {
        match i {
            0 => r.status = num_field(sc, p, caps::OTHER, "response.status")?,
            1 => r.headers = headers(sc, p, "response.headers")?,
            _ => {
                // The status, once read: a 2xx/3xx body is skipped unread (no analysis reads it).
                let skip_text = r
                    .status
                    .value()
                    .is_some_and(|s| (200.0..400.0).contains(&s));
                r.content = object(sc, p, CONTENT, |sc, p, c: &mut RawContent, i| {
                    match i {
                        0 if skip_text => sc.skip_value()?,
                        0 => {
                            // A body longer than its head is expected, not worth a note.
                            c.text = match lstr(sc, p, caps::BODY_HEAD.max)?.0 {
                                LStr::Str(s) => LText(Some(s)),
                                _ => LText(None),
                            };
                        }
                        1 => {
                            c.encoding =
                                text_field(sc, p, caps::LABEL, "response.content.encoding")?
                        }
                        2 => c.mime = text_field(sc, p, caps::LABEL, "response.content.mimeType")?,
                        _ => c.size = num_field(sc, p, caps::OTHER, "response.content.size")?,
                    }
                    Ok(())
                })?;
            }
        }
        Ok(())
    })
}

const CONTENT: &[&str] = &["text", "encoding", "mimeType", "size"];
