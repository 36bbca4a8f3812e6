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
                unwrapped: None,
                creator: None,
                error: Some(format!("cannot read: {e}")),
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
    let redactor = &opts.redactor;
    let workers = pipeline::workers(opts.threads);
    let halt = AtomicBool::new(false);
    let pool = Mutex::new(Vec::new());
    let handoff = walk::Handoff {
        split: workers > 1,
        halt: &halt,
        pool: &pool,
    };
    // Errors met by workers in entries taken whole, by job: (entry index, error).
    let stops: Mutex<BTreeMap<u64, (usize, ScanError)>> = Mutex::new(BTreeMap::new());
    let may_view = |status: u16, url: &str| view.is_some_and(|v| v.may_view(status, false, url));
    let work = |mut job: walk::Job, items: Vec<T>| {
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
                            // The walk ends here, as reading the entry in place would end it.
                            if let Ok(mut s) = stops.lock() {
                                s.insert(job.seq, (e.index, err));
                            }
                            halt.store(true, Ordering::Relaxed);
                            break;
                        }
                    }
                }
                (kind, _) => (kind, e.notes),
            };
            done.warnings
                .extend(notes.into_iter().map(|n| warn(source, pos, n)));
            match kind {
                walk::EntryKind::Read { entry, post } => {
                    let (req, ws, lite) =
                        normalize(e.index, &entry, post, source, redactor, Some(&may_view));
                    done.warnings.extend(ws);
                    match req {
                        Some(r) if lite => match view.and_then(|v| v.view(&RecordView::of(&r))) {
                            Some(item) => done.items.push(item),
                            None => {
                                // The caller wants the full record after all (a baseline
                                // sample): build it.
                                let full = normalize(e.index, &entry, post, source, redactor, None);
                                if let Some(r) = full.0 {
                                    done.items.push(map(r));
                                }
                            }
                        },
                        Some(r) => done.items.push(map(r)),
                        None => done.skipped += 1,
                    }
                }
                walk::EntryKind::NotObject(what) => {
                    done.skipped += 1;
                    done.warnings.push(warn(
                        source,
                        pos,
                        format!("entry is {what}, not an object; skipped"),
                    ));
                }
                // Taken entries were read above (a job with them has its bytes).
                walk::EntryKind::Taken { .. } => done.skipped += 1,
            }
        }
        if let Some(sc) = sc {
            let mut bytes = sc.into_bytes();
            bytes.clear();
            if let Ok(mut p) = pool.lock() {
                if p.len() < POOL_MAX {
                    p.push(bytes);
                }
            }
        }
        done
    };
    let mut kept = 0usize;
    let mut seq = 0u64;
    let mut stopped: Option<(usize, ScanError)> = None;
    let walked = pipeline::run(
        workers,
        |feed| walk::walk(reader, &handoff, feed),
        &work,
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
            ..walked
        },
        None => walked,
    };
    let error = walked.stop.as_ref().map(|stop| {
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
    });
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
    Tail {
        unwrapped: None,
        creator: walked.creator.map(|c| opts.redactor.text(&c)),
        error,
    }
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
    may_view: Option<MayView<'_>>,
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
    let lite = view::view_suffices(status, false) && may_view.is_some_and(|f| f(status, &url));
    let (keep_request, keep_response): (NameFilter, NameFilter) = if lite {
        (view::is_view_request_header, is_limit_header)
    } else {
        (every_name, every_name)
    };
    if let LObj::Odd(o) = &e.request {
        warns.push(odd_note("request", o.describe()));
    }
    if let LObj::Odd(o) = &e.response {
        warns.push(odd_note("response", o.describe()));
    }

    match &e.started {
        LStr::Str(s) | LStr::Coerced(s) => match crate::http::date::parse_timestamp(s) {
            Some(t) => r.started = Some(t),
            None => warns.push(format!(
                "startedDateTime {} is not a date; the record has no time",
                redactor.quote(s)
            )),
        },
        LStr::Missing | LStr::Null => {
            warns.push("no startedDateTime; the record has no time".into())
        }
        LStr::Odd(o) => warns.push(odd_note("startedDateTime", o.describe())),
    }

    let mut raw_req_headers = Vec::new();
    r.url = url;
    if let Some(req) = req {
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
            keep_request,
            &mut warns,
        );
        if let Some(body) = post.filter(|b| b.len > 0) {
            let hex: String = body.digest.iter().map(|b| format!("{b:02x}")).collect();
            r.request_body_fingerprint = Some(redactor.fingerprint(&hex));
        }
    }

    if let Some(resp) = resp {
        match num_field(&resp.status, "response.status", &mut warns) {
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
            keep_response,
            &mut warns,
        );
        debug_assert_eq!(r.status, status);
        if let Some(c) = resp.content.get().filter(|_| !lite) {
            // Only when the headers lack it: `Request::content_type` reads the header first.
            if !r.response_headers.contains("content-type") {
                r.response_mime = c
                    .mime
                    .as_str()
                    .filter(|m| !m.is_empty())
                    .map(str::to_string);
            }
            let keep_body = !(200..400).contains(&r.status);
            if keep_body {
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
                r.body_not_captured =
                    r.body_excerpt.is_none() && c.size.value().is_some_and(|n| n > 0.0);
            }
        }
    }

    // Durations: `time` is the total; `-1` and missing mean unknown.
    if let Some(t) = num_field(&e.time, "time", &mut warns) {
        if t >= 0.0 && t.is_finite() {
            r.duration_ms = Some(t);
        }
    }
    match &e.timings {
        LObj::Val(t) => {
            let wait = num_field(&t.wait, "timings.wait", &mut warns);
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
mod tests {
    use super::*;
    use std::io::Cursor;

    fn opts() -> Options {
        Options::new(Redactor::from_key_material(b"k"))
    }

    fn read_str(s: &str) -> ReadOutcome {
        let src: Arc<str> = Arc::from("t.har");
        read(
            Box::new(Cursor::new(s.as_bytes().to_vec())),
            &src,
            &opts(),
            false,
        )
    }

    #[test]
    fn reads_entries_in_any_key_order() {
        let har = r#"{"log":{"entries":[
            {"request":{"method":"GET","url":"https://a.com/x?token=SECRET","headers":[{"name":"Authorization","value":"Bearer SECRET"}]},
             "response":{"status":429,"headers":[{"name":"Retry-After","value":"12"}],"content":{"text":"slow down","mimeType":"text/plain"}},
             "startedDateTime":"2024-01-01T00:00:00.000Z","time":12.5,"timings":{"wait":10}}
        ],"version":"1.2","creator":{"name":"T","version":"1"}}}"#;
        let o = read_str(har);
        assert!(o.error.is_none(), "{:?}", o.error);
        assert_eq!(o.requests.len(), 1);
        let r = &o.requests[0];
        assert_eq!(r.status, 429);
        assert_eq!(r.method, "GET");
        assert!(!r.url.contains("SECRET"));
        assert!(r.credential.is_some());
        assert_eq!(r.response_headers.get("retry-after"), Some("12"));
        assert_eq!(r.body_excerpt.as_deref(), Some("slow down"));
        assert_eq!(r.wait_ms, Some(10.0));
        assert_eq!(o.creator.as_deref(), Some("T 1"));
    }

    #[test]
    fn tolerates_odd_fields() {
        let har = r#"{"log":{"version":"1.1","entries":[
            {"startedDateTime":"2024-01-01T00:00:00Z","request":{"method":"GET","url":"u"},"response":{"status":"429","headers":null},"timings":{},"time":null},
            42,
            {"request":"oops","response":{"status":200,"headers":[{"name":"x","value":null}]}}
        ]}}"#;
        let o = read_str(har);
        assert!(o.error.is_none());
        assert_eq!(o.requests.len(), 2);
        assert_eq!(o.skipped, 1);
        assert_eq!(o.requests[0].status, 429);
        assert!(o.warnings.count >= 3);
        assert!(o
            .warnings
            .kept
            .iter()
            .any(|w| w.position == Some(Position::Entry(1))));
    }

    #[test]
    fn truncated_keeps_earlier_entries() {
        let har = r#"{"log":{"entries":[{"request":{"url":"a"},"response":{"status":200}},{"request":{"url":"b"},"resp"#;
        let o = read_str(har);
        assert_eq!(o.requests.len(), 1);
        let e = o.error.unwrap();
        assert!(e.contains("entry 1") && e.contains("truncated"), "{e}");
    }

    /// A HAR saved without content keeps `content.size` and drops `text`: that body is
    /// unknown, not empty (HAR 1.2: size is the length of the returned content).
    #[test]
    fn a_sized_body_without_text_was_not_captured() {
        let har = r#"{"log":{"entries":[
            {"request":{"url":"u"},"response":{"status":429,"content":{"size":118,"mimeType":"application/json"}}},
            {"request":{"url":"u"},"response":{"status":429,"content":{"size":0,"mimeType":"text/plain"}}},
            {"request":{"url":"u"},"response":{"status":429,"content":{"size":12,"text":"slow down   "}}},
            {"request":{"url":"u"},"response":{"status":200,"content":{"size":99}}}]}}"#;
        let o = read_str(har);
        let flags: Vec<bool> = o.requests.iter().map(|r| r.body_not_captured).collect();
        assert_eq!(flags, [true, false, false, false]);
        assert!(o.requests[0].body_unknown() && !o.requests[1].body_unknown());
    }

    #[test]
    fn success_bodies_are_dropped() {
        let har = r#"{"log":{"entries":[{"request":{"url":"a"},"response":{"status":200,"content":{"text":"big body"}}}]}}"#;
        assert!(read_str(har).requests[0].body_excerpt.is_none());
    }

    fn entry(extra_request: &str, status: u32, text: &str) -> String {
        format!(
            r#"{{"startedDateTime":"2024-01-01T00:00:00Z","request":{{"method":"POST","url":"https://a.example/p"{extra_request}}},"response":{{"status":{status},"content":{{"text":{}}}}}}}"#,
            serde_json::to_string(text).unwrap()
        )
    }

    #[test]
    fn log_less_root_and_fields_nobody_reads_are_skipped() {
        let har = format!(
            r#"{{"version":"1.2","pages":[{{"id":"p","title":"t"}}],"entries":[{}],"_extra":{{"deep":[1,2,{{"x":"y"}}]}}}}"#,
            entry(
                r#","cookies":[{"name":"a","value":"b"}],"_initiator":{"stack":{"callFrames":[]}}"#,
                429,
                "busy"
            )
        );
        let o = read_str(&har);
        assert!(o.error.is_none(), "{:?}", o.error);
        assert_eq!(o.requests.len(), 1);
        assert_eq!(o.requests[0].body_excerpt.as_deref(), Some("busy"));
    }

    #[test]
    fn entries_as_an_object_is_a_warning() {
        let o = read_str(r#"{"log":{"entries":{"a":1}}}"#);
        assert!(o.warnings.kept[0]
            .message
            .contains("an object, not an array"));
        assert!(o.error.unwrap().contains("no entries"));
    }

    #[test]
    fn duplicate_keys_read_the_first() {
        let har = r#"{"log":{"entries":[{"request":{"url":"https://first.example/"},"request":{"url":"https://second.example/"},"response":{"status":200,"status":429}}]}}"#;
        let o = read_str(har);
        assert_eq!(o.requests[0].url, "https://first.example/");
        assert_eq!(o.requests[0].status, 200);
    }

    #[test]
    fn a_body_before_its_status_is_kept_only_when_not_a_success() {
        let har = r#"{"log":{"entries":[
            {"request":{"url":"u"},"response":{"content":{"text":"late status"},"status":429}},
            {"request":{"url":"u"},"response":{"content":{"text":"late status"},"status":200}}]}}"#;
        let o = read_str(har);
        assert_eq!(o.requests[0].body_excerpt.as_deref(), Some("late status"));
        assert!(o.requests[1].body_excerpt.is_none());
    }

    #[test]
    fn an_over_long_url_is_cut_with_a_located_warning() {
        let long = format!(
            "https://a.example/{}",
            "x".repeat(crate::ingest::caps::URL.max + 10)
        );
        let har = format!(
            r#"{{"log":{{"entries":[{{"request":{{"url":"{long}"}},"response":{{"status":429}}}}]}}}}"#
        );
        let o = read_str(&har);
        assert_eq!(o.requests.len(), 1);
        assert!(o.requests[0].url.len() <= crate::ingest::caps::URL.max);
        let w = &o.warnings.kept[0];
        assert_eq!(w.position, Some(Position::Entry(0)));
        assert!(
            w.message.contains("request.url") && w.message.contains("cut"),
            "{}",
            w.message
        );
        assert!(w.message.len() < 120, "{}", w.message);
    }

    #[test]
    fn request_bodies_are_fingerprinted_whole() {
        let big = "b".repeat(3 << 20);
        let mut big2 = big.clone();
        big2.push('!');
        let pd = |t: &str| {
            format!(
                r#","postData":{{"mimeType":"text/plain","text":{}}}"#,
                serde_json::to_string(t).unwrap()
            )
        };
        let har = format!(
            r#"{{"log":{{"entries":[{},{},{},{}]}}}}"#,
            entry(&pd(&big), 429, ""),
            entry(&pd(&big), 429, ""),
            entry(&pd(&big2), 429, ""),
            entry(&pd(""), 429, "")
        );
        let o = read_str(&har);
        let fp: Vec<_> = o
            .requests
            .iter()
            .map(|r| r.request_body_fingerprint.clone())
            .collect();
        assert!(fp[0].is_some());
        assert_eq!(fp[0], fp[1]);
        assert_ne!(fp[0], fp[2], "bodies differing after the first MiB differ");
        assert!(fp[3].is_none(), "an empty body has no fingerprint");
    }

    /// Views as their Debug text; every third one declined (as a host wanting baseline samples
    /// does): the entry is then normalized again in full.
    struct EveryThirdDeclined<'a>(&'a std::sync::atomic::AtomicUsize);

    impl super::super::Views<String> for EveryThirdDeclined<'_> {
        fn may_view(&self, _: u16, _: bool, _: &str) -> bool {
            true
        }
        fn view(&self, v: &RecordView<'_>) -> Option<String> {
            let n = self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            (!n.is_multiple_of(3)).then(|| format!("{v:?}"))
        }
    }

    /// Every HAR we have (samples, fixtures, the real exporter corpus), read with and without
    /// the view path: the same events' views and the same warnings, and some entries did take
    /// the view path.
    #[test]
    fn the_view_path_reads_every_har_as_the_full_path() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let files = har_files();
        assert!(!files.is_empty());
        let o = opts();
        let src: Arc<str> = Arc::from("t.har");
        let viewed = AtomicUsize::new(0);
        let mut entries = 0;
        for f in &files {
            let (bytes, jsonp) = har_bytes(f);
            let run = |with_view: bool| {
                let mut items = Vec::new();
                let mut warnings = Vec::new();
                let view = EveryThirdDeclined(&viewed);
                let tail = stream(
                    Box::new(Cursor::new(bytes.clone())),
                    &src,
                    &o,
                    jsonp,
                    &|r| format!("{:?}", RecordView::of(&r)),
                    with_view.then_some(&view as ViewMap<'_, String>),
                    &mut |d| {
                        items.append(&mut d.items);
                        warnings.extend(d.warnings.drain(..).map(|w| w.message));
                    },
                );
                (items, warnings, tail.error)
            };
            let before = viewed.load(Ordering::Relaxed);
            let full = run(false);
            assert_eq!(
                viewed.load(Ordering::Relaxed),
                before,
                "no view without one"
            );
            let lite = run(true);
            assert!(full == lite, "{}", f.display());
            entries += full.0.len();
        }
        let viewed = viewed.into_inner();
        assert!(viewed > 0 && viewed < entries, "{viewed} of {entries}");
    }

    /// Every record (its full Debug text), warning, error and creator `stream` gives with
    /// `threads` workers.
    fn read_with(bytes: &[u8], jsonp: bool, threads: usize) -> (Vec<String>, Vec<String>, Tail) {
        let mut o = opts();
        o.threads = Some(threads);
        let src: Arc<str> = Arc::from("t.har");
        let (mut items, mut warnings) = (Vec::new(), Vec::new());
        let tail = stream(
            Box::new(Cursor::new(bytes.to_vec())),
            &src,
            &o,
            jsonp,
            &|r| format!("{r:?}"),
            None,
            &mut |d| {
                items.append(&mut d.items);
                warnings.extend(d.warnings.drain(..).map(|w| format!("{w:?}")));
            },
        );
        (items, warnings, tail)
    }

    fn assert_split_reads_as_in_place(name: &str, bytes: &[u8], jsonp: bool) {
        let one = read_with(bytes, jsonp, 1);
        for threads in [2, 3] {
            let many = read_with(bytes, jsonp, threads);
            assert!(
                one.0 == many.0,
                "{name}: records differ with {threads} workers"
            );
            assert_eq!(one.1, many.1, "{name}: warnings, {threads} workers");
            assert_eq!(
                one.2.error, many.2.error,
                "{name}: error, {threads} workers"
            );
            assert_eq!(one.2.creator, many.2.creator, "{name}: creator");
        }
    }

    /// A HAR file's bytes without a UTF-8 BOM, and whether it is JSONP-wrapped (starts with
    /// neither `{` nor `[`).
    fn har_bytes(f: &std::path::Path) -> (Vec<u8>, bool) {
        let mut bytes = std::fs::read(f).unwrap();
        if bytes.starts_with(b"\xEF\xBB\xBF") {
            bytes.drain(..3);
        }
        let jsonp = bytes
            .iter()
            .find(|b| !b.is_ascii_whitespace())
            .is_some_and(|&b| b != b'{' && b != b'[');
        (bytes, jsonp)
    }

    fn har_files() -> Vec<std::path::PathBuf> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        for d in ["samples", "tests/fixtures", "tests/corpus/real-har"] {
            let Ok(rd) = std::fs::read_dir(root.join(d)) else {
                continue;
            };
            files.extend(
                rd.flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "har")),
            );
        }
        files
    }

    /// Entries handed to workers as bytes (more than one worker) read exactly as entries read
    /// in place (one): every HAR we have.
    #[test]
    fn entries_read_by_workers_read_as_in_place_on_every_har() {
        let files = har_files();
        assert!(!files.is_empty());
        for f in &files {
            let (bytes, jsonp) = har_bytes(f);
            assert_split_reads_as_in_place(&f.display().to_string(), &bytes, jsonp);
        }
    }

    /// The same over broken documents: the error (its entry, what, byte, line and column), the
    /// entries before it, and nothing after it; big entries (read in place by the reader)
    /// among small ones; several jobs.
    #[test]
    fn entries_read_by_workers_fail_as_in_place() {
        let small = |i: usize| {
            format!(
                "{{\"startedDateTime\":\"2024-01-01T00:00:{:02}Z\",\n \"request\":{{\"method\":\"GET\",\"url\":\"https://a.example/{i}?token=s{i}\",\"headers\":[{{\"name\":\"Authorization\",\"value\":\"Bearer t{i}\"}}]}},\"response\":{{\"status\":{},\"headers\":[],\"content\":{{\"text\":\"{{\\\"e\\\":\\\"x\\\"}}\"}}}}}}",
                i % 60,
                if i.is_multiple_of(7) { 429 } else { 200 }
            )
        };
        let big = |i: usize| {
            format!(
                "{{\"request\":{{\"url\":\"https://b.example/{i}\",\"postData\":{{\"text\":\"{}\"}}}},\"response\":{{\"status\":503,\"content\":{{\"text\":\"{}\"}}}}}}",
                "p".repeat(300 * 1024),
                "q\\n".repeat(100 * 1024)
            )
        };
        let doc = |entries: Vec<String>, sep: &str| {
            format!(
                "{{\"log\":{{\"version\":\"1.2\",\"entries\":[\n{}\n],\"creator\":{{\"name\":\"after\"}}}}}}",
                entries.join(sep)
            )
        };
        let many = |n: usize| (0..n).map(small).collect::<Vec<_>>();
        let with = |n: usize, at: usize, bad: &str| {
            let mut v = many(n);
            v[at] = bad.to_string();
            v
        };
        let mut cases: Vec<(&str, Vec<u8>)> = vec![
            ("clean, several jobs", doc(many(1500), ",").into_bytes()),
            ("pretty separators", doc(many(40), " ,\n\t ").into_bytes()),
            (
                "big entries among small",
                doc(
                    (0..30)
                        .map(|i| if i % 9 == 4 { big(i) } else { small(i) })
                        .collect(),
                    ",",
                )
                .into_bytes(),
            ),
            (
                "bad escape",
                doc(with(1200, 1100, r#"{"request":{"url":"a\qb"}}"#), ",").into_bytes(),
            ),
            (
                "control character",
                doc(with(50, 3, "{\"request\":{\"url\":\"a\u{1}b\"}}"), ",").into_bytes(),
            ),
            (
                "missing colon",
                doc(with(50, 20, r#"{"request" {"url":"a"}}"#), ",").into_bytes(),
            ),
            (
                "wrong closer",
                doc(with(50, 20, r#"{"request":{"url":"a"]}"#), ",").into_bytes(),
            ),
            (
                "bad literal",
                doc(with(50, 20, r#"{"time":tru}"#), ",").into_bytes(),
            ),
            (
                "bad number",
                doc(with(50, 20, r#"{"time":1.}"#), ",").into_bytes(),
            ),
            (
                "trailing comma in entry",
                doc(with(50, 20, r#"{"time":1,}"#), ",").into_bytes(),
            ),
            (
                "too deep",
                doc(
                    with(
                        50,
                        20,
                        &format!("{{\"x\":{}{}}}", "[".repeat(600), "]".repeat(600)),
                    ),
                    ",",
                )
                .into_bytes(),
            ),
            ("missing comma", doc(many(30), "\n").into_bytes()),
            (
                "trailing comma",
                doc(many(30), ",").replace("\n]", ",]").into_bytes(),
            ),
            (
                "non-objects among entries",
                doc(
                    (0..30)
                        .map(|i| match i % 5 {
                            1 => "42".to_string(),
                            2 => "[1,{\"a\":2}]".to_string(),
                            3 => "null".to_string(),
                            _ => small(i),
                        })
                        .collect(),
                    ",",
                )
                .into_bytes(),
            ),
            (
                "error after a big entry",
                doc(
                    vec![
                        small(0),
                        big(1),
                        r#"{"request":{"url":"a\qb"}}"#.into(),
                        small(3),
                    ],
                    ",",
                )
                .into_bytes(),
            ),
            (
                "error inside a big entry",
                doc(
                    vec![small(0), big(1).replace("\"q", "\"\\q"), small(2)],
                    ",",
                )
                .into_bytes(),
            ),
        ];
        // Invalid UTF-8 and truncation.
        let mut utf8 = doc(many(700), ",").into_bytes();
        let at = utf8.len() * 2 / 3;
        let q = at + utf8[at..].iter().position(|&b| b == b'a').unwrap();
        utf8[q] = 0xff;
        cases.push(("invalid UTF-8", utf8));
        let full = doc(many(700), ",").into_bytes();
        for cut in [full.len() / 2, full.len() - 60, full.len() - 2] {
            cases.push(("truncated", full[..cut].to_vec()));
        }
        for (name, bytes) in &cases {
            assert_split_reads_as_in_place(name, bytes, false);
        }
        // The cases do test something: errors are reported, clean documents read whole.
        let (items, _, tail) = read_with(&cases[0].1, false, 2);
        assert_eq!(items.len(), 1500);
        assert_eq!(tail.creator.as_deref(), Some("after"));
        let (items, _, tail) = read_with(&cases[3].1, false, 2);
        assert_eq!(items.len(), 1100);
        let e = tail.error.unwrap();
        assert!(
            e.contains("entry 1100") && e.contains("escape") && e.contains("line"),
            "{e}"
        );
        assert!(
            tail.creator.is_none(),
            "the creator after the error is not read"
        );
    }

    #[test]
    fn structural_errors_are_located() {
        let o = read_str("[1,2]");
        assert!(o.error.unwrap().contains("not a HAR document"));
        let src: Arc<str> = Arc::from("t.har");
        let bytes = b"{\"log\":{\"entries\":[{\"request\":{\"url\":\"a\"},\"response\":{\"status\":200}},{\"request\":{\"url\":\"b\xff\"}}]}}";
        let o = read(Box::new(Cursor::new(bytes.to_vec())), &src, &opts(), false);
        let e = o.error.unwrap();
        assert!(
            e.contains("entry 1") && e.contains("UTF-8") && e.contains("byte 89"),
            "{e}"
        );
        assert_eq!(o.requests.len(), 1);
    }
}
