//! Streaming, tolerant HAR reader (HAR 1.1, 1.2, 1.3 as real exporters write them).
//!
//! A reader thread walks the document with the bounded scanner ([`walk`]) and reads each entry,
//! down to the fields normalization reads, into a lenient raw model (every field optional, any
//! JSON type accepted and noted), so one odd entry never fails the file; batches of them go to
//! workers, which normalize and redact them. 2xx/3xx response bodies are skipped unread; other
//! bodies travel as a bounded head.

mod walk;

use super::loose::{LList, LNum, LObj, LStr, LText, Odd};
use super::pipeline::{self, Done};
use super::scan::{Limits, ScanError, Scanner};
use super::{warn, Options, ReadOutcome, Tail, ViewMap};
use crate::http::stated::is_limit_header;
use crate::model::view::{self, RecordView};
use crate::model::{ClientHints, Headers, Location, Position, Request, Warning};
use crate::redact::Redactor;
use base64::Engine;
use std::collections::BTreeMap;
use std::io::{BufRead, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Bytes of a non-2xx/3xx response body kept (after redaction) in the record.
pub const BODY_EXCERPT: usize = 4096;

#[derive(Default)]
struct RawEntry {
    started: LStr,
    time: LNum,
    request: LObj<RawRequest>,
    response: LObj<RawResponse>,
    timings: LObj<RawTimings>,
    pageref: LStr,
}

#[derive(Default)]
struct RawRequest {
    method: LStr,
    url: LStr,
    headers: LList<RawHeader>,
}

#[derive(Default)]
struct RawResponse {
    status: LNum,
    headers: LList<RawHeader>,
    content: LObj<RawContent>,
}

#[derive(Default)]
struct RawContent {
    text: LText,
    encoding: LStr,
    mime: LStr,
    /// The body's length in bytes (HAR 1.2 `content.size`, required): above zero with no text,
    /// the body was there but not recorded.
    size: LNum,
}

#[derive(Default)]
struct RawTimings {
    wait: LNum,
    blocked: LNum,
    dns: LNum,
    connect: LNum,
    send: LNum,
    receive: LNum,
}

#[derive(Default)]
pub(crate) struct RawHeader {
    pub name: LStr,
    pub value: LStr,
}

/// Byte buffers of finished jobs kept for the reader to reuse.
const POOL_MAX: usize = 16;

/// Read a HAR from `reader` into a `Vec` (see [`stream`]).
pub fn read(
    reader: Box<dyn BufRead + Send>,
    source: &Arc<str>,
    opts: &Options,
    jsonp: bool,
) -> ReadOutcome {
    super::collect(super::Format::Har, |sink| {
        stream(Box::new(reader), source, opts, jsonp, &|r| r, None, sink)
    })
}

/// Skip a JSONP/HARP `callback(` prefix (a few bytes, read one at a time).
fn skip_jsonp_prefix(reader: &mut dyn Read) -> std::io::Result<()> {
    let mut byte = [0u8; 1];
    loop {
        if reader.read(&mut byte)? == 0 || byte[0] == b'(' {
            return Ok(());
        }
    }
}

/// Stream a HAR from `reader`: a reader thread walks the document ([`walk`]); workers read,
/// normalize, redact and map the entries; `sink` gets them in entry order. With more than one
/// worker the reader only finds where each entry ends and hands its bytes on (finding the end
/// is the one part that cannot be split; reading the entry is most of the work); with one, it
/// reads the entries itself. `jsonp`: skip a `callback(` prefix (HARP files). With `view`, an
/// entry that needs no full record (see [`event::map_view`]) goes through it, normalized
/// "lite": only the headers its view reads are redacted and kept.
#[allow(clippy::too_many_arguments)]
pub(crate) fn stream<T: Send>(
    mut reader: Box<dyn Read + Send>,
    source: &Arc<str>,
    opts: &Options,
    jsonp: bool,
    map: &(dyn Fn(Request) -> T + Sync),
    view: Option<ViewMap<'_, T>>,
    sink: &mut dyn FnMut(&mut Done<T>),
) -> Tail {
    if jsonp {
        if let Err(e) = skip_jsonp_prefix(&mut reader) {
            return Tail {
                error: Some(format!("cannot read: {e}")),
                ..Tail::default()
            };
        }
        sink(&mut Done {
            warnings: vec![warn(
                source,
                None,
                "JSONP/HARP wrapper (callback(...)) around the HAR; read the HAR inside",
            )],
            ..Done::default()
        });
    }
    let workers = pipeline::workers(opts.threads);
    let halt = AtomicBool::new(false);
    let pool = Mutex::new(Vec::new());
    let handoff = walk::Handoff {
        split: workers > 1,
        halt: &halt,
        pool: &pool,
    };
    let stops = Mutex::new(BTreeMap::new());
    let jobs = Jobs {
        source,
        redactor: &opts.redactor,
        view,
        map,
        request_ids: opts.request_ids,
        stops: &stops,
        halt: &halt,
        pool: &pool,
    };
    let mut kept = 0usize;
    let mut seq = 0u64;
    let mut stopped: Option<(usize, ScanError)> = None;
    let walked = pipeline::run(
        workers,
        |feed| walk::walk(reader, &handoff, jsonp, feed),
        &|job, items| jobs.read(job, items),
        &mut |d: &mut Done<T>| {
            // After a worker's error, nothing the walk read later counts.
            if stopped.is_some() {
                return;
            }
            kept += d.items.len();
            sink(d);
            if let Ok(mut s) = stops.lock() {
                stopped = s.remove(&seq);
            }
            seq += 1;
        },
    );
    let walked = match stopped {
        Some((at, e)) => walk::Walked {
            stop: Some(walk::Stop::Scan(e)),
            stopped_at_entry: Some(at),
            creator: walked.creator.filter(|_| walked.creator_at <= at),
            version: walked.version.filter(|_| walked.version_at <= at),
            trailing: None,
            ..walked
        },
        None => walked,
    };
    tail(walked, kept, source, opts, sink)
}

/// What the workers share while they read a HAR's jobs.
struct Jobs<'a, T> {
    source: &'a Arc<str>,
    redactor: &'a Redactor,
    view: Option<ViewMap<'a, T>>,
    map: &'a (dyn Fn(Request) -> T + Sync),
    /// Views carry the request id (`ingest::Options::request_ids`).
    request_ids: bool,
    /// Errors met by workers in entries taken whole, by job: (entry index, error).
    stops: &'a Mutex<BTreeMap<u64, (usize, ScanError)>>,
    /// Set on such an error: the walk ends there, as reading the entry in place would end it.
    halt: &'a AtomicBool,
    /// Byte buffers of finished jobs, for the walk to reuse.
    pool: &'a Mutex<Vec<Vec<u8>>>,
}

impl<T> Jobs<'_, T> {
    /// One job: its entries (those taken whole read from its bytes first) normalized, redacted
    /// and mapped; its bytes back to the pool.
    fn read(&self, mut job: walk::Job, items: Vec<T>) -> Done<T> {
        let source = self.source;
        let mut done = Done {
            items,
            ..Done::default()
        };
        for note in job.file_notes {
            done.warnings.push(warn(source, None, note));
        }
        let mut sc = (!job.raw.is_empty())
            .then(|| Scanner::over_bytes(std::mem::take(&mut job.raw), Limits::default()));
        for e in job.entries {
            let pos = Some(Position::Entry(e.index));
            let (kind, notes) = match (e.kind, sc.as_mut()) {
                (walk::EntryKind::Taken { range, mark }, Some(sc)) => {
                    match walk::read_taken(sc, range, &mark) {
                        Ok((entry, post, notes)) => (walk::EntryKind::Read { entry, post }, notes),
                        Err(err) => {
                            if let Ok(mut s) = self.stops.lock() {
                                s.insert(job.seq, (e.index, err));
                            }
                            self.halt.store(true, Ordering::Relaxed);
                            break;
                        }
                    }
                }
                (kind, _) => (kind, e.notes),
            };
            done.warnings
                .extend(notes.into_iter().map(|n| warn(source, pos, n)));
            self.entry(e.index, kind, &mut done);
        }
        if let Some(sc) = sc {
            let mut bytes = sc.into_bytes();
            bytes.clear();
            if let Ok(mut p) = self.pool.lock() {
                if p.len() < POOL_MAX {
                    p.push(bytes);
                }
            }
        }
        done
    }

    /// One entry of a job, read or not an object, into `done`.
    fn entry(&self, index: usize, kind: walk::EntryKind, done: &mut Done<T>) {
        let view = self.view;
        let may_view =
            |status: u16, url: &str| view.is_some_and(|v| v.may_view(status, false, url));
        match kind {
            walk::EntryKind::Read { entry, post } => {
                let at = EntryAt {
                    index,
                    source: self.source,
                    redactor: self.redactor,
                    request_ids: self.request_ids,
                };
                read_entry(&at, &entry, post, (&may_view, view, self.map), done);
            }
            walk::EntryKind::NotObject(what) => {
                done.skipped += 1;
                done.warnings.push(warn(
                    self.source,
                    Some(Position::Entry(index)),
                    format!("entry is {what}, not an object; skipped"),
                ));
            }
            // Taken entries were read above (a job with them has its bytes).
            walk::EntryKind::Taken { .. } => done.skipped += 1,
        }
    }
}

/// The end of the walk: why it stopped, an unexpected `log.version` (a warning to `sink`),
/// data after the document, the creator.
fn tail<T>(
    walked: walk::Walked,
    kept: usize,
    source: &Arc<str>,
    opts: &Options,
    sink: &mut dyn FnMut(&mut Done<T>),
) -> Tail {
    let error = stop_message(&walked, kept);
    if let Some(v) = &walked.version {
        if !matches!(v.trim(), "1.1" | "1.2" | "1.3") {
            sink(&mut Done {
                warnings: vec![warn(
                    source,
                    None,
                    format!(
                        "log.version is {} (expected 1.1, 1.2 or 1.3); read anyway",
                        opts.redactor.quote(v)
                    ),
                )],
                ..Done::default()
            });
        }
    }
    let incomplete = walked.trailing.map(|t| crate::model::Incomplete {
        kind: crate::model::IncompleteKind::TrailingData,
        message: format!(
            "{} bytes of data follow the HAR document, from line {}, column {} (a second document, or something appended to the file?); they were not read",
            t.bytes, t.line, t.column
        ),
    });
    Tail {
        unwrapped: None,
        creator: walked.creator.map(|c| opts.redactor.text(&c)),
        error,
        incomplete,
        traces: None,
    }
}

/// Where an entry is: its index, its file, the run's redactor.
struct EntryAt<'a> {
    index: usize,
    source: &'a Arc<str>,
    redactor: &'a Redactor,
    request_ids: bool,
}

/// One entry read whole: normalized (lite when the caller may take its view), then its view
/// or `map` of its full record into `done`.
fn read_entry<T>(
    at: &EntryAt,
    entry: &RawEntry,
    post: Option<walk::PostBody>,
    (may_view, view, map): (
        MayView<'_>,
        Option<ViewMap<'_, T>>,
        &(dyn Fn(Request) -> T + Sync),
    ),
    done: &mut Done<T>,
) {
    let (index, source, redactor) = (at.index, at.source, at.redactor);
    let lite_view = Some((may_view, at.request_ids));
    let (req, ws, lite) = normalize(index, entry, post, source, redactor, lite_view);
    done.warnings.extend(ws);
    match req {
        Some(r) if lite => match view.and_then(|v| v.view(&lite_view_of(&r, at.request_ids))) {
            Some(item) => done.items.push(item),
            None => {
                // The caller wants the full record after all (a baseline sample): build it.
                let full = normalize(index, entry, post, source, redactor, None);
                if let Some(r) = full.0 {
                    done.items.push(map(r));
                }
            }
        },
        Some(r) => done.items.push(map(r)),
        None => done.skipped += 1,
    }
}

/// The view of a lite record: [`RecordView::of`], with the request id when the analysis joins
/// inputs by it (a HAR and a log of the same requests are joined by id, successes too).
fn lite_view_of(r: &Request, request_ids: bool) -> RecordView<'_> {
    RecordView {
        request_id: match request_ids {
            true => crate::model::view::request_id(&r.request_headers),
            false => None,
        },
        ..RecordView::of(r)
    }
}

/// Why the walk stopped, if it did, and how many entries were read before.
fn stop_message(walked: &walk::Walked, kept: usize) -> Option<String> {
    walked.stop.as_ref().map(|stop| {
        let what = match stop {
            walk::Stop::Scan(e) => e.to_string(),
            walk::Stop::NotHar(m) => format!("not a HAR document: {m}"),
            walk::Stop::Halted => "an entry could not be read".to_string(),
        };
        match walked.stopped_at_entry {
            Some(i) => format!(
                "stopped at entry {i} of log.entries: {what}; the {kept} entries before it were read"
            ),
            None => what,
        }
    })
}

fn odd_note(field: &str, got: &str) -> String {
    format!("{field} is {got}; ignored")
}

/// Longest request header value kept: identity hints and idempotency keys are short, cookies
/// and long referers are not needed whole (the credential is fingerprinted before the cut).
pub(crate) const REQUEST_HEADER_VALUE_MAX: usize = 512;
/// Longest header value kept for responses that are not errors (see [`Headers::push_capped`]).
pub(crate) const SUCCESS_HEADER_VALUE_MAX: usize = 256;

/// Which header names a record keeps.
type NameFilter = fn(&str) -> bool;

/// Every header name (a full record).
fn every_name(_: &str) -> bool {
    true
}

/// Redacted headers of one side, those `keep` wants (the warnings count them all). `raw`
/// collects the unredacted pairs the credential fingerprint may read (request headers);
/// `idem` gets [`Redactor::idem_hash`] of the first idempotency key (request headers);
/// `cap` bounds each value's length.
#[allow(clippy::too_many_arguments)]
fn headers_from<'a>(
    list: &'a LList<RawHeader>,
    field: &str,
    redactor: &Redactor,
    mut raw: Option<&mut Vec<(&'a str, &'a str)>>,
    mut idem: Option<&mut u32>,
    cap: Option<usize>,
    keep: NameFilter,
    warns: &mut Vec<String>,
) -> Headers {
    if let Some(o) = list.odd {
        warns.push(odd_note(field, o.describe()));
    }
    if list.odd_items > 0 {
        warns.push(format!(
            "{field}: {} item(s) not objects; skipped",
            list.odd_items
        ));
    }
    let mut h = Headers::new();
    let mut null_values = 0;
    for item in &list.items {
        let Some(name) = item.name.as_str() else {
            continue;
        };
        let value = match &item.value {
            LStr::Str(s) | LStr::Coerced(s) => s.as_str(),
            _ => {
                null_values += 1;
                ""
            }
        };
        if let Some(raw) = raw.as_deref_mut() {
            if Redactor::may_carry_credential(name) {
                raw.push((name, value));
            }
        }
        if let Some(idem) = idem.as_deref_mut() {
            // As `logical::idempotency_key` picks from the stored headers: the first not blank.
            if *idem == 0
                && !value.trim().is_empty()
                && crate::http::idempotency::is_idempotency_header(name)
            {
                *idem = redactor.idem_hash_named(name, value, cap.unwrap_or(usize::MAX));
            }
        }
        if !keep(name) {
            continue;
        }
        let redacted = redactor.header_cow(name, value);
        match cap {
            Some(max) => h.push_capped(name, redacted, max),
            None => h.push(name, redacted),
        }
    }
    if null_values > 0 {
        warns.push(format!(
            "{field}: {null_values} header value(s) null or not text; read as empty"
        ));
    }
    h
}

fn num_field(n: &LNum, field: &str, warns: &mut Vec<String>) -> Option<f64> {
    match n {
        LNum::Num(v) => Some(*v),
        LNum::FromStr(v) => {
            warns.push(format!("{field} is a string; read as {v}"));
            Some(*v)
        }
        LNum::Odd(o) => {
            warns.push(odd_note(field, o.describe()));
            None
        }
        LNum::Missing | LNum::Null => None,
    }
}

/// The status code a `response.status` value is read as (see the warnings in [`normalize`]).
fn status_code(v: Option<f64>) -> u16 {
    match v {
        Some(s) if (1.0..1000.0).contains(&s) => s as u16,
        _ => 0,
    }
}

/// [`super::Views::may_view`] for a status and redacted URL (no layer signal in a HAR).
type MayView<'a> = &'a dyn Fn(u16, &str) -> bool;

/// The request headers a lite record keeps when the analysis joins inputs by request id.
fn view_or_id_header(name: &str) -> bool {
    view::is_view_request_header(name) || view::is_request_id_header(name)
}

/// Turn one raw entry into a redacted [`Request`] plus its warnings. With a status
/// [`event::view_suffices`] for and `may_view` (the caller's [`super::Views::may_view`]) true
/// for its status and redacted URL, only the headers a [`RecordView`] reads are redacted and
/// kept: the record is then good for `RecordView::of` and nothing else, which the returned
/// flag says.
fn normalize(
    index: usize,
    e: &RawEntry,
    post: Option<walk::PostBody>,
    source: &Arc<str>,
    redactor: &Redactor,
    may_view: Option<(MayView<'_>, bool)>,
) -> (Option<Request>, Vec<Warning>, bool) {
    let pos = Position::Entry(index);
    let mut warns: Vec<String> = Vec::new();
    let mut r = Request::at(Location {
        source: source.clone(),
        position: pos,
    });

    let (req, resp) = (e.request.get(), e.response.get());
    if req.is_none() && resp.is_none() {
        let w = warn(
            source,
            Some(pos),
            "entry has neither request nor response; skipped",
        );
        return (None, vec![w], false);
    }
    let status = status_code(resp.and_then(|r| r.status.value()));
    let raw_url: &str = req.and_then(|q| q.url.as_str()).unwrap_or("");
    let url = if req.is_some() {
        redactor.url(raw_url)
    } else {
        String::new()
    };
    let lite = view::view_suffices(status, false) && may_view.is_some_and(|(f, _)| f(status, &url));
    let ids = may_view.is_some_and(|(_, ids)| ids);
    let (keep_request, keep_response): (NameFilter, NameFilter) = match (lite, ids) {
        (true, false) => (view::is_view_request_header, is_limit_header),
        (true, true) => (view_or_id_header, is_limit_header),
        (false, _) => (every_name, every_name),
    };
    if let LObj::Odd(o) = &e.request {
        warns.push(odd_note("request", o.describe()));
    }
    if let LObj::Odd(o) = &e.response {
        warns.push(odd_note("response", o.describe()));
    }

    r.started = started(&e.started, redactor, &mut warns);

    r.url = url;
    let raw_req_headers = match req {
        Some(req) => request(
            &mut r,
            req,
            raw_url,
            post,
            redactor,
            keep_request,
            &mut warns,
        ),
        None => Vec::new(),
    };

    if let Some(resp) = resp {
        response(&mut r, resp, redactor, (lite, keep_response), &mut warns);
        debug_assert_eq!(r.status, status);
    }

    durations(&mut r, e, &mut warns);

    let pageref = e.pageref.as_str().map(|p| redactor.text(p));
    r.client = client_hints(&r, pageref.as_deref());
    r.credential = redactor.credential(raw_req_headers.iter().copied(), raw_url);

    if !lite {
        r.shrink_to_fit();
    }
    let ws = warns
        .into_iter()
        .map(|m| warn(source, Some(pos), m))
        .collect();
    (Some(r), ws, lite)
}

/// The request's method, headers and body fingerprint into `r`; the raw header pairs (for the
/// credential) returned.
fn request<'e>(
    r: &mut Request,
    req: &'e RawRequest,
    raw_url: &str,
    post: Option<walk::PostBody>,
    redactor: &Redactor,
    keep: NameFilter,
    warns: &mut Vec<String>,
) -> Vec<(&'e str, &'e str)> {
    let mut raw_req_headers = Vec::new();
    r.method = redactor.method(req.method.as_str().unwrap_or(""));
    if r.method.is_empty() {
        warns.push("request.method is empty or missing".into());
    }
    if raw_url.is_empty() {
        warns.push("request.url is empty or missing".into());
    }
    r.request_headers = headers_from(
        &req.headers,
        "request.headers",
        redactor,
        Some(&mut raw_req_headers),
        Some(&mut r.idem_hash),
        Some(REQUEST_HEADER_VALUE_MAX),
        keep,
        warns,
    );
    if let Some(body) = post.filter(|b| b.len > 0) {
        let hex: String = body.digest.iter().map(|b| format!("{b:02x}")).collect();
        r.request_body_fingerprint = Some(redactor.fingerprint(&hex));
    }
    raw_req_headers
}

/// `startedDateTime` as a time, or why the record has none.
fn started(
    v: &LStr,
    redactor: &Redactor,
    warns: &mut Vec<String>,
) -> Option<chrono::DateTime<chrono::Utc>> {
    match v {
        LStr::Str(s) | LStr::Coerced(s) => {
            let t = crate::http::date::parse_timestamp(s);
            if t.is_none() {
                warns.push(format!(
                    "startedDateTime {} is not a date; the record has no time",
                    redactor.quote(s)
                ));
            }
            t
        }
        LStr::Missing | LStr::Null => {
            warns.push("no startedDateTime; the record has no time".into());
            None
        }
        LStr::Odd(o) => {
            warns.push(odd_note("startedDateTime", o.describe()));
            None
        }
    }
}

/// The response's status, headers (only those `keep` names when the record is `lite`) and,
/// for an error, the head of its body.
fn response(
    r: &mut Request,
    resp: &RawResponse,
    redactor: &Redactor,
    (lite, keep): (bool, NameFilter),
    warns: &mut Vec<String>,
) {
    match num_field(&resp.status, "response.status", warns) {
        Some(s) if (100.0..1000.0).contains(&s) => r.status = s as u16,
        Some(s) if s <= 0.0 => r.status = 0, // -1 (Playwright, Charles) and 0: no response
        Some(s) if (1.0..100.0).contains(&s) => {
            warns.push(format!(
                "response.status {s} is not an HTTP status; kept as is"
            ));
            r.status = s as u16;
        }
        Some(s) => {
            warns.push(format!(
                "response.status {s} is out of range; read as 0 (no response)"
            ));
        }
        None => {}
    }
    let cap = (200..400)
        .contains(&r.status)
        .then_some(SUCCESS_HEADER_VALUE_MAX);
    r.response_headers = headers_from(
        &resp.headers,
        "response.headers",
        redactor,
        None,
        None,
        cap,
        keep,
        warns,
    );
    if let Some(c) = resp.content.get().filter(|_| !lite) {
        content(r, c, redactor);
    }
}

/// The response's MIME type (when no header says it) and, for an error, its body's head.
fn content(r: &mut Request, c: &RawContent, redactor: &Redactor) {
    // Only when the headers lack it: `Request::content_type` reads the header first.
    if !r.response_headers.contains("content-type") {
        r.response_mime = c
            .mime
            .as_str()
            .filter(|m| !m.is_empty())
            .map(str::to_string);
    }
    let keep_body = !(200..400).contains(&r.status);
    if !keep_body {
        return;
    }
    if let Some(head) = &c.text.0 {
        let base64 = c
            .encoding
            .as_str()
            .map(|s| s.eq_ignore_ascii_case("base64"))
            .unwrap_or(false);
        let text = if base64 {
            decode_base64_head(head)
        } else {
            Some(head.clone())
        };
        if let Some(t) = text.filter(|t| !t.is_empty()) {
            r.body_excerpt = Some(redactor.excerpt(&t, BODY_EXCERPT));
        }
    }
    r.body_not_captured = r.body_excerpt.is_none() && c.size.value().is_some_and(|n| n > 0.0);
}

/// Durations: `time` is the total; `-1` and missing mean unknown; else the sum of the
/// timings' known parts.
fn durations(r: &mut Request, e: &RawEntry, warns: &mut Vec<String>) {
    if let Some(t) = num_field(&e.time, "time", warns) {
        if t >= 0.0 && t.is_finite() {
            r.duration_ms = Some(t);
        }
    }
    match &e.timings {
        LObj::Val(t) => {
            let wait = num_field(&t.wait, "timings.wait", warns);
            r.wait_ms = wait.filter(|w| *w >= 0.0);
            if r.duration_ms.is_none() {
                let parts = [&t.blocked, &t.dns, &t.connect, &t.send, &t.wait, &t.receive];
                let sum: f64 = parts
                    .iter()
                    .filter_map(|n| n.value())
                    .filter(|v| *v > 0.0)
                    .sum();
                if sum > 0.0 {
                    r.duration_ms = Some(sum);
                }
            }
        }
        LObj::Odd(o) => warns.push(odd_note("timings", o.describe())),
        LObj::Missing | LObj::Null => {}
    }
}

/// Decode the head of a base64 body; the head may end mid-quantum, so cut to a multiple of 4.
fn decode_base64_head(head: &str) -> Option<String> {
    let clean: String = head.chars().filter(|c| !c.is_whitespace()).collect();
    let cut = clean.len() - clean.len() % 4;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(&clean[..cut])
        .ok()?;
    let text = String::from_utf8_lossy(&bytes);
    // Binary bodies (images, TLS bytes) are not worth an excerpt.
    let control = text
        .chars()
        .filter(|c| c.is_control() && !c.is_whitespace())
        .count();
    if control * 10 > text.chars().count().max(1) {
        return None;
    }
    Some(text.into_owned())
}

/// Client identity hints from the (already redacted) request.
pub(crate) fn client_hints(r: &Request, pageref: Option<&str>) -> ClientHints {
    let h = &r.request_headers;
    ClientHints {
        client: None,
        user_agent: None, // read from the header by Request::user_agent
        client_ip: h
            .get("x-forwarded-for")
            .and_then(|v| v.split(',').next())
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty()),
        pageref: pageref.filter(|p| !p.is_empty()).map(str::to_string),
        origin: h
            .get("origin")
            .filter(|o| !o.is_empty() && *o != "null")
            .map(str::to_string)
            .or_else(|| h.get("referer").and_then(crate::http::url::origin)),
    }
}

#[allow(dead_code)]
fn describe_odd(o: Odd) -> &'static str {
    o.describe()
}

#[cfg(test)]
mod tests;
