//! The reader-thread half of HAR ingestion: walk the document with the bounded scanner and
//! project each entry of `log.entries` into a small JSON object holding only the fields
//! normalization reads.
//!
//! This is the one part that cannot run in parallel (where an entry ends is known only by
//! reading everything before it), so it does as little as it can: strings are searched with
//! memchr and copied raw, 2xx/3xx response bodies and every field no analysis reads (cookies,
//! query lists, `_initiator` stacks, WebSocket messages…) are skipped without being
//! materialised, over-long values are cut to their cap with a note, and request bodies are
//! hashed here so only their digest travels. Workers parse the projections with serde.

use crate::ingest::caps::{self, Cap};
use crate::ingest::scan::{Event, Limits, ScanError, Scanner};
use sha2::{Digest, Sha256};
use std::io::Read;

/// Entries per job, and the projected bytes after which a job is sent early.
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
    /// Projected into `Job::buf[start..end]`.
    Projected {
        start: usize,
        end: usize,
        post: Option<PostBody>,
    },
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
    pub buf: Vec<u8>,
    pub entries: Vec<EntryRef>,
    /// Notes about the file (not one entry) that belong at this point of the input.
    pub file_notes: Vec<String>,
}

/// Why the walk stopped early.
pub(crate) enum Stop {
    Scan(ScanError),
    /// The document is JSON but not a HAR.
    NotHar(String),
}

/// What the walk learned about the file.
pub(crate) struct Walked {
    pub stop: Option<Stop>,
    /// Set when the walk stopped inside `log.entries`: the index of the entry being read.
    pub stopped_at_entry: Option<usize>,
    pub creator: Option<String>,
    pub version: Option<String>,
}

/// Walk a HAR document from `reader`, feeding jobs of projected entries.
pub(crate) fn walk<R: Read>(reader: R, feed: &mut dyn FnMut(Job)) -> Walked {
    let mut w = Walker {
        sc: Scanner::with_limits(reader, Limits::default()),
        feed,
        job: Job::default(),
        creator: None,
        version: None,
        next_entry: 0,
        in_entries: false,
    };
    let stop = w.root().err();
    w.flush();
    Walked {
        stopped_at_entry: (stop.is_some() && w.in_entries).then_some(w.next_entry),
        stop,
        creator: w.creator,
        version: w.version,
    }
}

struct Walker<'f, R> {
    sc: Scanner<R>,
    feed: &'f mut dyn FnMut(Job),
    job: Job,
    creator: Option<String>,
    version: Option<String>,
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

impl<R: Read> Walker<'_, R> {
    fn flush(&mut self) {
        if self.job.entries.is_empty() && self.job.file_notes.is_empty() {
            return;
        }
        let job = std::mem::replace(
            &mut self.job,
            Job {
                buf: Vec::with_capacity(JOB_BYTES + JOB_BYTES / 4),
                ..Job::default()
            },
        );
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
            let ev = self.sc.next()?;
            let kind = match ev {
                Event::EndArray => break,
                Event::StartObject => {
                    let start = self.job.buf.len();
                    let mut p = Proj {
                        buf: &mut self.job.buf,
                        start,
                        notes: Vec::new(),
                        post: None,
                    };
                    match entry(&mut self.sc, &mut p) {
                        Ok(()) => {}
                        Err(e) => {
                            self.job.buf.truncate(start);
                            return Err(e.into());
                        }
                    }
                    let (notes, post) = (p.notes, p.post);
                    let end = self.job.buf.len();
                    self.job.entries.push(EntryRef {
                        index,
                        kind: EntryKind::Projected { start, end, post },
                        notes,
                    });
                    None
                }
                other => {
                    let what = kind_of(&other);
                    if other == Event::StartArray {
                        self.sc.skip_container()?;
                    }
                    Some(what)
                }
            };
            if let Some(what) = kind {
                self.job.entries.push(EntryRef {
                    index,
                    kind: EntryKind::NotObject(what),
                    notes: Vec::new(),
                });
            }
            self.next_entry += 1;
            if self.job.entries.len() >= JOB_ENTRIES || self.job.buf.len() >= JOB_BYTES {
                self.flush();
            }
        }
        self.in_entries = false;
        Ok(())
    }
}

/// The projection of one entry being written.
struct Proj<'b> {
    buf: &'b mut Vec<u8>,
    /// Where this entry starts in `buf` (for the size budget).
    start: usize,
    notes: Vec<String>,
    post: Option<PostBody>,
}

impl Proj<'_> {
    fn key(&mut self, first: &mut bool, key: &str) {
        if !*first {
            self.buf.push(b',');
        }
        *first = false;
        self.buf.push(b'"');
        self.buf.extend_from_slice(key.as_bytes());
        self.buf.extend_from_slice(b"\":");
    }

    fn over_budget(&self) -> bool {
        self.buf.len() - self.start > caps::ENTRY_MAX
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

/// Copy one value capped at `cap`; a container where a scalar belongs becomes an empty one of
/// its type (normalization only reports what it was). Returns the full length of a cut string.
fn value<R: Read>(
    sc: &mut Scanner<R>,
    p: &mut Proj<'_>,
    cap: usize,
) -> Result<Option<u64>, ScanError> {
    set_cap(sc, cap);
    let mut cut = None;
    match sc.next()? {
        Event::Str(t) => {
            match t.raw {
                Some(raw) => {
                    p.buf.push(b'"');
                    p.buf.extend_from_slice(raw);
                    p.buf.push(b'"');
                }
                None => {
                    // Writing a &str into a Vec cannot fail.
                    let _ = serde_json::to_writer(&mut *p.buf, t.value);
                }
            }
            if t.is_cut() {
                cut = Some(t.len);
            }
        }
        Event::Num(n) => p.buf.extend_from_slice(n.as_bytes()),
        Event::Bool(true) => p.buf.extend_from_slice(b"true"),
        Event::Bool(false) => p.buf.extend_from_slice(b"false"),
        Event::Null => p.buf.extend_from_slice(b"null"),
        Event::StartObject => {
            sc.skip_container()?;
            p.buf.extend_from_slice(b"{}");
        }
        Event::StartArray => {
            sc.skip_container()?;
            p.buf.extend_from_slice(b"[]");
        }
        _ => p.buf.extend_from_slice(b"null"),
    }
    Ok(cut)
}

/// [`value`] with a note when the value was cut.
fn field<R: Read>(
    sc: &mut Scanner<R>,
    p: &mut Proj<'_>,
    cap: Cap,
    name: &str,
) -> Result<(), ScanError> {
    if let Some(len) = value(sc, p, cap.max)? {
        p.notes.push(caps::cut_note(name, len, cap.max));
    }
    Ok(())
}

/// Read the next value; when it is an object, call `each` for every key with the key's name
/// (the callback writes key and value, or skips); anything else is copied as a placeholder.
/// Keys seen twice: the first is read, later ones skipped.
fn object<R: Read>(
    sc: &mut Scanner<R>,
    p: &mut Proj<'_>,
    keys: &[&str],
    mut each: impl FnMut(&mut Scanner<R>, &mut Proj<'_>, usize, &mut bool) -> Result<(), ScanError>,
) -> Result<(), ScanError> {
    match sc.next()? {
        Event::StartObject => {}
        Event::StartArray => {
            sc.skip_container()?;
            p.buf.extend_from_slice(b"[]");
            return Ok(());
        }
        Event::Str(_) => {
            p.buf.extend_from_slice(b"\"\"");
            return Ok(());
        }
        Event::Num(_) => {
            p.buf.push(b'0');
            return Ok(());
        }
        Event::Bool(_) => {
            p.buf.extend_from_slice(b"true");
            return Ok(());
        }
        _ => {
            p.buf.extend_from_slice(b"null");
            return Ok(());
        }
    }
    p.buf.push(b'{');
    let mut first = true;
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
                each(sc, p, i, &mut first)?;
            }
            _ => sc.skip_value()?,
        }
    }
    p.buf.push(b'}');
    Ok(())
}

/// An entry whose `{` has been read.
fn entry<R: Read>(sc: &mut Scanner<R>, p: &mut Proj<'_>) -> Result<(), ScanError> {
    const KEYS: &[&str] = &[
        "startedDateTime",
        "time",
        "request",
        "response",
        "timings",
        "pageref",
    ];
    p.buf.push(b'{');
    let mut first = true;
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
        p.key(&mut first, KEYS[i]);
        match i {
            0 => field(sc, p, caps::TIME, "startedDateTime")?,
            1 => field(sc, p, caps::OTHER, "time")?,
            2 => request(sc, p)?,
            3 => response(sc, p)?,
            4 => object(sc, p, TIMINGS, |sc, p, i, first| {
                p.key(first, TIMINGS[i]);
                field(sc, p, caps::OTHER, "timings")
            })?,
            _ => field(sc, p, caps::PAGEREF, "pageref")?,
        }
    }
    p.buf.push(b'}');
    Ok(())
}

const TIMINGS: &[&str] = &["wait", "blocked", "dns", "connect", "send", "receive"];

fn request<R: Read>(sc: &mut Scanner<R>, p: &mut Proj<'_>) -> Result<(), ScanError> {
    const KEYS: &[&str] = &["method", "url", "headers", "postData"];
    object(sc, p, KEYS, |sc, p, i, first| match i {
        0 => {
            p.key(first, "method");
            field(sc, p, caps::METHOD, "request.method")
        }
        1 => {
            p.key(first, "url");
            field(sc, p, caps::URL, "request.url")
        }
        2 => {
            p.key(first, "headers");
            headers(sc, p, "request.headers")
        }
        _ => post_data(sc, p),
    })
}

/// `postData`: only `text` matters, and only its digest and length travel (hashed here, whole,
/// whatever its size); nothing is written into the projection.
fn post_data<R: Read>(sc: &mut Scanner<R>, p: &mut Proj<'_>) -> Result<(), ScanError> {
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

fn headers<R: Read>(sc: &mut Scanner<R>, p: &mut Proj<'_>, side: &str) -> Result<(), ScanError> {
    match sc.next()? {
        Event::StartArray => {}
        other => {
            // Not a list: a placeholder of its type, so normalization reports what it was.
            let placeholder: &[u8] = match other {
                Event::StartObject => b"{}",
                Event::Str(_) => b"\"\"",
                Event::Num(_) => b"0",
                Event::Bool(_) => b"true",
                _ => b"null",
            };
            if other == Event::StartObject {
                sc.skip_container()?;
            }
            p.buf.extend_from_slice(placeholder);
            return Ok(());
        }
    }
    p.buf.push(b'[');
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
        if index > 0 {
            p.buf.push(b',');
        }
        match ev {
            Event::StartObject => {
                p.buf.push(b'{');
                let mut first = true;
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
                    p.key(&mut first, key);
                    if let Some(len) = value(sc, p, cap.max)? {
                        let name = format!("{side}[{index}].{key}");
                        p.notes.push(caps::cut_note(&name, len, cap.max));
                    }
                }
                p.buf.push(b'}');
            }
            Event::StartArray => {
                sc.skip_container()?;
                p.buf.extend_from_slice(b"[]");
            }
            // Not an object: normalization counts it as an odd item.
            _ => p.buf.extend_from_slice(b"null"),
        }
        index += 1;
    }
    p.buf.push(b']');
    if dropped > 0 {
        p.notes.push(format!(
            "{side}: the entry is larger than {} MiB; its last {dropped} header(s) were dropped",
            caps::ENTRY_MAX >> 20
        ));
    }
    Ok(())
}

fn response<R: Read>(sc: &mut Scanner<R>, p: &mut Proj<'_>) -> Result<(), ScanError> {
    const KEYS: &[&str] = &["status", "headers", "content"];
    // The status, once read: a 2xx/3xx body is skipped unread (no analysis reads it).
    let mut status: Option<f64> = None;
    object(sc, p, KEYS, |sc, p, i, first| match i {
        0 => {
            p.key(first, "status");
            let at = p.buf.len();
            field(sc, p, caps::OTHER, "response.status")?;
            let written = std::str::from_utf8(&p.buf[at..]).unwrap_or("");
            let text = written.trim_matches('"').trim();
            status = text.parse::<f64>().ok().filter(|v| v.is_finite());
            Ok(())
        }
        1 => {
            p.key(first, "headers");
            headers(sc, p, "response.headers")
        }
        _ => {
            p.key(first, "content");
            let skip_text = status.is_some_and(|s| (200.0..400.0).contains(&s));
            object(sc, p, CONTENT, |sc, p, i, first| match i {
                0 if skip_text => sc.skip_value(),
                0 => {
                    p.key(first, "text");
                    // A body longer than its head is expected, not worth a note.
                    value(sc, p, caps::BODY_HEAD.max).map(|_| ())
                }
                1 => {
                    p.key(first, "encoding");
                    field(sc, p, caps::LABEL, "response.content.encoding")
                }
                _ => {
                    p.key(first, "mimeType");
                    field(sc, p, caps::LABEL, "response.content.mimeType")
                }
            })
        }
    })
}

const CONTENT: &[&str] = &["text", "encoding", "mimeType"];
