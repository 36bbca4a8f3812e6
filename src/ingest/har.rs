//! Streaming, tolerant HAR reader (HAR 1.1, 1.2, 1.3 as real exporters write them).
//!
//! The document is walked with serde visitors: `log.entries` is read one entry at a time into a
//! lenient raw model (every field optional, any JSON type accepted and noted), so one odd entry
//! never fails the file and memory holds only the normalized records plus one batch of raw
//! entries. Bodies are read into a bounded head; 2xx/3xx bodies are dropped at normalization.

use super::loose::{LBody, LList, LNum, LObj, LStr, Odd};
use super::pipeline::{self, Done};
use super::{warn, Options, ReadOutcome, Tail};
use crate::model::{ClientHints, Headers, Location, Position, Request, Warning};
use crate::redact::Redactor;
use base64::Engine;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::fmt;
use std::io::BufRead;
use std::sync::Arc;

/// Bytes of a non-2xx/3xx response body kept (after redaction) in the record.
pub const BODY_EXCERPT: usize = 4096;
/// Raw entries normalized together on the thread pool.
const BATCH: usize = 512;

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawEntry {
    #[serde(rename = "startedDateTime")]
    started: LStr,
    time: LNum,
    request: LObj<RawRequest>,
    response: LObj<RawResponse>,
    timings: LObj<RawTimings>,
    pageref: LStr,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawRequest {
    method: LStr,
    url: LStr,
    headers: LList<RawHeader>,
    #[serde(rename = "postData")]
    post_data: LObj<RawPostData>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawPostData {
    text: LBody,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawResponse {
    status: LNum,
    headers: LList<RawHeader>,
    content: LObj<RawContent>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawContent {
    text: LBody,
    encoding: LStr,
    #[serde(rename = "mimeType")]
    mime: LStr,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawTimings {
    wait: LNum,
    blocked: LNum,
    dns: LNum,
    connect: LNum,
    send: LNum,
    receive: LNum,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(crate) struct RawHeader {
    pub name: LStr,
    pub value: LStr,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawCreator {
    name: LStr,
    version: LStr,
}

/// One item of `log.entries` as read by the reader thread. Held by value in a batch: boxing
/// the large variant would cost an allocation per entry for the rare small one.
#[allow(clippy::large_enum_variant)]
enum Item {
    Entry(RawEntry),
    /// Not an object: what it was.
    NotObject(&'static str),
}

/// A batch of entries for one worker, plus warnings about the file that belong here in order.
struct Job {
    items: Vec<(usize, Item)>,
    notes: Vec<Warning>,
}

/// The reader thread's state while serde walks the document.
struct State<'a, 'f> {
    source: &'a Arc<str>,
    feed: &'f mut dyn FnMut(Job),
    batch: Vec<(usize, Item)>,
    creator: Option<String>,
    version: Option<String>,
    /// Index of the entry being read (for error locations).
    next_entry: usize,
    in_entries: bool,
    saw_entries: bool,
}

impl State<'_, '_> {
    fn flush(&mut self) {
        if self.batch.is_empty() {
            return;
        }
        let items = std::mem::take(&mut self.batch);
        (self.feed)(Job {
            items,
            notes: Vec::new(),
        });
    }

    fn note(&mut self, w: Warning) {
        self.flush();
        (self.feed)(Job {
            items: Vec::new(),
            notes: vec![w],
        });
    }
}

struct RootSeed<'s, 'a, 'f>(&'s mut State<'a, 'f>);

impl<'de> DeserializeSeed<'de> for RootSeed<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(LogVisitor {
            st: self.0,
            root: true,
        })
    }
}

struct LogSeed<'s, 'a, 'f>(&'s mut State<'a, 'f>);

impl<'de> DeserializeSeed<'de> for LogSeed<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(LogVisitor {
            st: self.0,
            root: false,
        })
    }
}

/// Visits the root object and `log`. The root may also be the log itself (some tools write
/// `{"version":…, "entries":[…]}` without the `log` wrapper).
struct LogVisitor<'s, 'a, 'f> {
    st: &'s mut State<'a, 'f>,
    root: bool,
}

impl<'de> Visitor<'de> for LogVisitor<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(if self.root {
            "a HAR document (a JSON object with \"log\")"
        } else {
            "the HAR log object"
        })
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "log" if self.root => map.next_value_seed(LogSeed(self.st))?,
                "entries" => map.next_value_seed(EntriesSeed(self.st))?,
                "version" => {
                    self.st.version = map.next_value::<LStr>()?.as_str().map(str::to_string);
                }
                "creator" => {
                    if let LObj::Val(c) = map.next_value::<LObj<RawCreator>>()? {
                        let name = c.name.as_str().unwrap_or("").trim().to_string();
                        let version = c.version.as_str().unwrap_or("").trim().to_string();
                        let both = format!("{name} {version}").trim().to_string();
                        if !both.is_empty() {
                            self.st.creator = Some(both);
                        }
                    }
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
    // `"log": null` or another non-object: nothing to read; reported as "no entries".
    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(())
    }
}

struct EntriesSeed<'s, 'a, 'f>(&'s mut State<'a, 'f>);

impl<'de> DeserializeSeed<'de> for EntriesSeed<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(EntriesVisitor(self.0))
    }
}

struct EntriesVisitor<'s, 'a, 'f>(&'s mut State<'a, 'f>);

impl<'de> Visitor<'de> for EntriesVisitor<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("the log.entries array")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let st = self.0;
        st.in_entries = true;
        st.saw_entries = true;
        loop {
            let index = st.next_entry;
            match seq.next_element::<LObj<RawEntry>>()? {
                None => break,
                Some(LObj::Val(e)) => st.batch.push((index, Item::Entry(e))),
                Some(other) => {
                    let what = match other {
                        LObj::Null => "null",
                        LObj::Odd(o) => o.describe(),
                        _ => "not an object",
                    };
                    st.batch.push((index, Item::NotObject(what)));
                }
            }
            if st.batch.len() >= BATCH {
                st.flush();
            }
            st.next_entry += 1;
        }
        st.in_entries = false;
        Ok(())
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        self.0.saw_entries = true;
        let w = warn(
            self.0.source,
            None,
            "log.entries is an object, not an array; no entries read",
        );
        self.0.note(w);
        Ok(())
    }
    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
}

/// Read a HAR from `reader` into a `Vec` (see [`stream`]).
pub fn read(
    reader: Box<dyn BufRead + Send>,
    source: &Arc<str>,
    opts: &Options,
    jsonp: bool,
) -> ReadOutcome {
    super::collect(super::Format::Har, |sink| {
        stream(reader, source, opts, jsonp, &|r| r, sink)
    })
}

/// What the reader thread reports when the document is consumed.
struct Walked {
    result: Result<(), serde_json::Error>,
    in_entries: bool,
    at_entry: usize,
    creator: Option<String>,
    version: Option<String>,
}

/// Stream a HAR from `reader`: entries are read on a reader thread and normalized, redacted and
/// mapped on workers; `sink` gets them in entry order. `jsonp`: skip a `callback(` prefix
/// (HARP files).
pub(crate) fn stream<T: Send>(
    mut reader: Box<dyn BufRead + Send>,
    source: &Arc<str>,
    opts: &Options,
    jsonp: bool,
    map: &(dyn Fn(Request) -> T + Sync),
    sink: &mut dyn FnMut(Done<T>),
) -> Tail {
    if jsonp {
        let mut skipped = Vec::new();
        if let Err(e) = reader.read_until(b'(', &mut skipped) {
            return Tail {
                creator: None,
                error: Some(format!("cannot read: {e}")),
            };
        }
        sink(Done {
            warnings: vec![warn(
                source,
                None,
                "JSONP/HARP wrapper (callback(...)) around the HAR; read the HAR inside",
            )],
            ..Done::default()
        });
    }
    let redactor = &opts.redactor;
    let work = |job: Job| {
        let mut done = Done {
            warnings: job.notes,
            ..Done::default()
        };
        for (index, item) in job.items {
            match item {
                Item::Entry(e) => {
                    let (req, ws) = normalize(index, e, source, redactor);
                    done.warnings.extend(ws);
                    match req {
                        Some(r) => done.items.push(map(r)),
                        None => done.skipped += 1,
                    }
                }
                Item::NotObject(what) => {
                    done.skipped += 1;
                    done.warnings.push(warn(
                        source,
                        Some(Position::Entry(index)),
                        format!("entry is {what}, not an object; skipped"),
                    ));
                }
            }
        }
        done
    };
    let mut kept = 0usize;
    let walked = pipeline::run(
        pipeline::workers(opts.threads),
        |feed| {
            let mut st = State {
                source,
                feed,
                batch: Vec::new(),
                creator: None,
                version: None,
                next_entry: 0,
                in_entries: false,
                saw_entries: false,
            };
            let mut de = serde_json::Deserializer::from_reader(reader);
            let result = RootSeed(&mut st).deserialize(&mut de);
            st.flush();
            Walked {
                result,
                in_entries: st.in_entries,
                at_entry: st.next_entry,
                creator: st.creator,
                version: st.version,
            }
        },
        &work,
        &mut |d: Done<T>| {
            kept += d.items.len();
            sink(d)
        },
    );
    let error = walked
        .result
        .err()
        .map(|e| describe_error(&e, walked.in_entries, walked.at_entry, kept));
    if let Some(v) = &walked.version {
        if !matches!(v.trim(), "1.1" | "1.2" | "1.3") {
            sink(Done {
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
        creator: walked.creator.map(|c| opts.redactor.text(&c)),
        error,
    }
}

fn describe_error(e: &serde_json::Error, in_entries: bool, entry: usize, kept: usize) -> String {
    use serde_json::error::Category;
    let what = match e.classify() {
        Category::Eof => "the file ends in the middle of the JSON (truncated?)".to_string(),
        Category::Syntax => format!(
            "invalid JSON: {}",
            crate::redact::scrub_message(&e.to_string())
        ),
        Category::Data => format!(
            "not a HAR document: {}",
            crate::redact::scrub_message(&e.to_string())
        ),
        Category::Io => format!("read error: {e}"),
    };
    let what = if matches!(e.classify(), Category::Eof) {
        format!("{what} at line {} column {}", e.line(), e.column())
    } else {
        what
    };
    if in_entries {
        format!("stopped at entry {entry} of log.entries: {what}; the {kept} entries before it were read")
    } else {
        what
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

/// Redacted headers of one side. `raw` collects the unredacted pairs when the caller needs them
/// (request headers, for the credential fingerprint); `cap` bounds each value's length.
fn headers_from(
    list: &LList<RawHeader>,
    field: &str,
    redactor: &Redactor,
    mut raw: Option<&mut Vec<(String, String)>>,
    cap: Option<usize>,
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
            raw.push((name.to_string(), value.to_string()));
        }
        let redacted = redactor.header(name, value);
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

/// Turn one raw entry into a redacted [`Request`] plus its warnings.
fn normalize(
    index: usize,
    e: RawEntry,
    source: &Arc<str>,
    redactor: &Redactor,
) -> (Option<Request>, Vec<Warning>) {
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
        return (None, vec![w]);
    }
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
    let mut raw_url = String::new();
    if let Some(req) = req {
        r.method = redactor.method(req.method.as_str().unwrap_or(""));
        if r.method.is_empty() {
            warns.push("request.method is empty or missing".into());
        }
        raw_url = req.url.as_str().unwrap_or("").to_string();
        if raw_url.is_empty() {
            warns.push("request.url is empty or missing".into());
        }
        r.url = redactor.url(&raw_url);
        r.request_headers = headers_from(
            &req.headers,
            "request.headers",
            redactor,
            Some(&mut raw_req_headers),
            Some(REQUEST_HEADER_VALUE_MAX),
            &mut warns,
        );
        if let Some(pd) = req.post_data.get() {
            if let Some(d) = pd.text.digest {
                if pd.text.len > 0 {
                    let hex: String = d.iter().map(|b| format!("{b:02x}")).collect();
                    r.request_body_fingerprint = Some(redactor.fingerprint(&hex));
                }
            }
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
            cap,
            &mut warns,
        );
        if let Some(c) = resp.content.get() {
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
                if let Some(head) = &c.text.head {
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
    r.credential = redactor.credential(
        raw_req_headers
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str())),
        &raw_url,
    );

    r.shrink_to_fit();
    let ws = warns
        .into_iter()
        .map(|m| warn(source, Some(pos), m))
        .collect();
    (Some(r), ws)
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

    #[test]
    fn success_bodies_are_dropped() {
        let har = r#"{"log":{"entries":[{"request":{"url":"a"},"response":{"status":200,"content":{"text":"big body"}}}]}}"#;
        assert!(read_str(har).requests[0].body_excerpt.is_none());
    }
}
