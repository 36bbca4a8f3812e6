//! Trace exports as input: OTLP/JSON (the OpenTelemetry SDKs' and Collector's file exporters)
//! and Jaeger's JSON. Every HTTP attempt is its own span; the span tree says which layer sent
//! it and which attempts belong to one logical request (see [`tree`]).
//!
//! Streaming: the reader thread reads one batch at a time (an OTLP line, one resource's spans of
//! a single document, one Jaeger trace) and holds the spans of open traces only until they
//! close: when their root span has come and two more batches brought nothing for them, when
//! they sat idle for [`IDLE_BATCHES`] batches, or when the open spans pass [`OPEN_SPANS_MAX`]
//! (the oldest close first; a later span of a closed trace starts a new part, counted in
//! `split_traces`). Memory is bounded by that, not by the number of spans.
//!
//! Redaction: a span's attributes outside the HTTP conventions are dropped as they are read;
//! URLs, captured headers, span and service names are redacted before anything leaves here.

mod span;
mod tree;
pub mod wire;

use super::pipeline::{self, Done};
use super::{warn, Options, Tail};
use crate::model::trace::TraceFacts;
use crate::model::{Location, Position, Request, Warning};
use crate::redact::Redactor;
use chrono::{DateTime, Utc};
use span::Span;
use std::collections::{HashMap, HashSet};
use std::io::{BufRead, Read};
use std::sync::Arc;

/// Batches a trace may sit without a new span before it is closed.
pub const IDLE_BATCHES: u64 = 256;
/// Spans of open traces held at most; past it, the oldest traces close.
pub const OPEN_SPANS_MAX: usize = 200_000;
/// Batches after its root span came that a trace stays open for late spans.
const ROOT_GRACE: u64 = 2;
/// Closed trace ids remembered to count a trace split by the bounds.
const CLOSED_REMEMBERED: usize = 100_000;

pub(crate) fn status_of(s: &Span) -> u16 {
    s.first(&["http.response.status_code", "http.status_code"])
        .or_else(|| s.attr("error.type").filter(|e| e.len() == 3))
        .and_then(|v| v.trim().parse::<u16>().ok())
        .filter(|c| (100..600).contains(c))
        .unwrap_or(0)
}

pub(crate) fn method_of(s: &Span) -> String {
    s.first(&["http.request.method", "http.method"])
        .unwrap_or("")
        .trim()
        .to_ascii_uppercase()
}

pub(crate) fn resend_count(s: &Span) -> Option<u32> {
    s.first(&["http.request.resend_count", "http.resend_count"])
        .and_then(|v| v.trim().parse().ok())
}

pub(crate) fn time_of(ns: Option<i64>) -> Option<DateTime<Utc>> {
    ns.filter(|&n| n > 0).map(DateTime::from_timestamp_nanos)
}

/// The URL as the span recorded it (`url.full`, `http.url`), else built from the parts
/// (`url.scheme`, `server.address`/`net.peer.name`/`http.host`, `server.port`, `url.path` +
/// `url.query`/`http.target`).
pub(crate) fn raw_url(s: &Span) -> String {
    if let Some(u) = s.first(&["url.full", "http.url"]) {
        return u.trim().to_string();
    }
    let Some(host) = s.first(&["server.address", "net.peer.name", "http.host"]) else {
        return s
            .first(&["url.path", "http.target"])
            .unwrap_or("")
            .to_string();
    };
    let port = s.first(&["server.port", "net.peer.port"]);
    let scheme = s
        .first(&["url.scheme", "http.scheme"])
        .unwrap_or(if port == Some("443") { "https" } else { "http" });
    let mut url = format!("{scheme}://{host}");
    if let Some(p) = port.filter(|p| !matches!((scheme, *p), ("http", "80") | ("https", "443"))) {
        if !host.contains(':') {
            url.push(':');
            url.push_str(p);
        }
    }
    match s.first(&["http.target"]) {
        Some(t) => url.push_str(t),
        None => {
            url.push_str(s.first(&["url.path"]).unwrap_or("/"));
            if let Some(q) = s.first(&["url.query"]) {
                url.push('?');
                url.push_str(q);
            }
        }
    }
    url
}

/// `http.request.header.x_rate_limit` → `x-rate-limit` (the Python and Java instrumentations
/// write `_` for `-`).
fn header_name(attr: &str, prefix: &str) -> Option<String> {
    let n = attr.strip_prefix(prefix)?;
    (!n.is_empty()).then(|| n.replace('_', "-"))
}

/// One attempt span as a record: redacted, with its span and chain.
fn request_of(s: &Span, chain: u64, source: &Arc<str>, r: &Redactor) -> Request {
    let mut q = Request::at(Location {
        source: source.clone(),
        position: s.position,
    });
    q.started = time_of(s.start_ns);
    q.duration_ms = s.duration_ms();
    q.method = r.method(&method_of(s));
    let raw = raw_url(s);
    q.url = r.url(&raw);
    q.status = status_of(s);
    let mut raw_req: Vec<(String, &str)> = Vec::new();
    for (k, v) in &s.attrs {
        if let Some(n) = header_name(k, "http.request.header.") {
            q.request_headers.push(&n, r.header(&n, v));
            raw_req.push((n, v));
        } else if let Some(n) = header_name(k, "http.response.header.") {
            q.response_headers.push(&n, r.header(&n, v));
        }
    }
    q.credential = r.credential(raw_req.iter().map(|(n, v)| (n.as_str(), *v)), &raw);
    if !q.request_headers.contains("user-agent") {
        q.client.user_agent = s.attr("user_agent.original").map(|u| r.text(u));
    }
    q.client.client = s.service.as_deref().map(|c| r.text(c));
    // A trace never holds a response body.
    q.body_not_captured = !(200..400).contains(&q.status);
    q.span = Some(Box::new(crate::model::trace::SpanRef {
        trace_id: s.trace_id.clone(),
        span_id: s.span_id.clone(),
        chain,
    }));
    q
}

struct Open {
    spans: Vec<Span>,
    touched: u64,
    root_at: Option<u64>,
}

/// The open traces of one input and what was learned from the closed ones.
struct Assembler<'a> {
    source: &'a Arc<str>,
    redactor: &'a Redactor,
    open: HashMap<String, Open>,
    open_spans: usize,
    closed: HashSet<String>,
    split: HashSet<String>,
    clock: u64,
    facts: TraceFacts,
    out: Vec<Request>,
}

impl<'a> Assembler<'a> {
    fn new(source: &'a Arc<str>, redactor: &'a Redactor) -> Self {
        Assembler {
            source,
            redactor,
            open: HashMap::new(),
            open_spans: 0,
            closed: HashSet::new(),
            split: HashSet::new(),
            clock: 0,
            facts: TraceFacts::default(),
            out: Vec::new(),
        }
    }

    fn add(&mut self, s: Span) {
        self.facts.spans += 1;
        if let Some(svc) = &s.service {
            TraceFacts::note_name(&mut self.facts.services, &self.redactor.text(svc));
        }
        if self.closed.contains(&s.trace_id) && self.split.insert(s.trace_id.clone()) {
            self.facts.split_traces += 1;
        }
        let clock = self.clock;
        let o = self.open.entry(s.trace_id.clone()).or_insert_with(|| Open {
            spans: Vec::new(),
            touched: clock,
            root_at: None,
        });
        o.touched = clock;
        if tree_root(&s) {
            o.root_at = Some(clock);
        }
        o.spans.push(s);
        self.open_spans += 1;
    }

    /// After a batch: close what is done, and the oldest when over the bound.
    fn tick(&mut self) {
        self.clock += 1;
        let clock = self.clock;
        let done: Vec<String> = self
            .open
            .iter()
            .filter(|(_, o)| {
                o.root_at.is_some() && clock - o.touched >= ROOT_GRACE
                    || clock - o.touched >= IDLE_BATCHES
            })
            .map(|(k, _)| k.clone())
            .collect();
        for k in done {
            self.close(&k);
        }
        if self.open_spans > OPEN_SPANS_MAX {
            let mut by_age: Vec<(u64, String)> = self
                .open
                .iter()
                .map(|(k, o)| (o.touched, k.clone()))
                .collect();
            by_age.sort();
            for (_, k) in by_age {
                if self.open_spans <= OPEN_SPANS_MAX / 2 {
                    break;
                }
                self.close(&k);
            }
        }
    }

    fn close_all(&mut self) {
        let mut keys: Vec<(u64, String)> = self
            .open
            .iter()
            .map(|(k, o)| (o.touched, k.clone()))
            .collect();
        keys.sort();
        for (_, k) in keys {
            self.close(&k);
        }
    }

    fn close(&mut self, trace_id: &str) {
        let Some(o) = self.open.remove(trace_id) else {
            return;
        };
        self.open_spans -= o.spans.len();
        if self.closed.len() >= CLOSED_REMEMBERED {
            self.closed.clear();
        }
        if self.closed.insert(trace_id.to_string()) {
            self.facts.traces += 1;
        }
        let closed = tree::close(&o.spans, &mut self.facts);
        for &(i, chain) in &closed.attempts {
            let q = request_of(&o.spans[i], chain, self.source, self.redactor);
            self.note(&o.spans[i], &q);
            self.out.push(q);
        }
        let r = self.redactor;
        for c in &closed.nested {
            let ev = tree::evidence(c, &o.spans, &|n| r.text(n), &|u| r.url(u));
            let host = crate::http::url::host_key(&ev.url).into_owned();
            self.facts.nested.entry(host).or_default().add(ev);
        }
    }

    fn note(&mut self, s: &Span, q: &Request) {
        self.facts.http_spans += 1;
        if resend_count(s).is_some_and(|n| n >= 1) {
            self.facts.resends_recorded += 1;
        }
        for (n, _) in q.response_headers.iter() {
            TraceFacts::note_name(&mut self.facts.response_headers, n);
        }
    }
}

fn tree_root(s: &Span) -> bool {
    s.parent_id.is_empty() || s.parent_id.bytes().all(|b| b == b'0')
}

/// A job for the workers: records to map, with the warnings and skips of their batches.
struct Job {
    requests: Vec<Request>,
    warnings: Vec<Warning>,
    skipped: usize,
}

/// Records handed to the workers per job.
const JOB_RECORDS: usize = 1024;

/// Stream one trace export (OTLP or Jaeger, told apart by its keys).
pub(crate) fn stream<T: Send>(
    reader: Box<dyn BufRead + Send>,
    source: &Arc<str>,
    opts: &Options,
    map: &(dyn Fn(Request) -> T + Sync),
    sink: &mut dyn FnMut(&mut Done<T>),
) -> Tail {
    let redactor = &opts.redactor;
    let (error, facts) = pipeline::run(
        pipeline::workers(opts.threads),
        |feed| read_all(reader, source, redactor, feed),
        &|job: Job, mut items| {
            items.extend(job.requests.into_iter().map(map));
            Done {
                items,
                warnings: job.warnings,
                skipped: job.skipped,
                ..Done::default()
            }
        },
        sink,
    );
    Tail {
        creator: None,
        error,
        traces: Some(Box::new(facts)),
        ..Tail::default()
    }
}

/// The reader thread: batches in, records out in jobs; the error that stopped reading, and the
/// facts.
fn read_all(
    mut reader: Box<dyn BufRead + Send>,
    source: &Arc<str>,
    redactor: &Redactor,
    feed: &mut dyn FnMut(Job),
) -> (Option<String>, TraceFacts) {
    let mut a = Assembler::new(source, redactor);
    let mut job = Job {
        requests: Vec::new(),
        warnings: Vec::new(),
        skipped: 0,
    };
    let mut flush = |a: &mut Assembler, job: &mut Job, force: bool| {
        job.requests.append(&mut a.out);
        if force || job.requests.len() >= JOB_RECORDS {
            feed(std::mem::replace(
                job,
                Job {
                    requests: Vec::new(),
                    warnings: Vec::new(),
                    skipped: 0,
                },
            ));
        }
    };
    let error = read_batches(&mut *reader, &mut |b, at| {
        match b {
            Ok(b) => take_batch(&mut a, b, at),
            Err(e) => {
                job.skipped += 1;
                job.warnings.push(warn(source, Some(at), e.to_string()));
            }
        }
        a.tick();
        flush(&mut a, &mut job, false);
    });
    a.close_all();
    flush(&mut a, &mut job, true);
    let mut facts = a.facts;
    finish_facts(&mut facts);
    (error, facts)
}

fn take_batch(a: &mut Assembler, b: wire::Batch, at: Position) {
    let mut spans = Vec::new();
    let jaeger = matches!(b, wire::Batch::Jaeger(_));
    match b {
        wire::Batch::Otlp(r) => {
            span::from_otlp(r, at, &mut spans);
        }
        wire::Batch::Jaeger(t) => {
            if a.facts.sampler.is_none() {
                a.facts.sampler = t
                    .processes
                    .values()
                    .find_map(span::jaeger_sampler)
                    .map(|s| a.redactor.text(&s));
            }
            // A span's place: its index among the export's spans.
            let n = a.facts.spans;
            for (k, s) in t.spans.into_iter().enumerate() {
                spans.push(span::from_jaeger(s, &t.processes, Position::Entry(n + k)));
            }
        }
    }
    let ids: HashSet<String> = spans.iter().map(|s| s.trace_id.clone()).collect();
    for s in spans {
        a.add(s);
    }
    // A Jaeger trace comes whole: close it at once.
    if jaeger {
        for id in ids {
            a.close(&id);
        }
    }
}

/// A line of an export that holds no batch: the parser's message, scrubbed of input text.
#[derive(Debug, thiserror::Error)]
#[error("not an OTLP or Jaeger JSON object: {0}")]
struct NotABatch(String);

/// Read the batches of an export: one object per line (JSON lines), or one document over many
/// lines. `each` gets every batch with where it was (the line, or the batch's number), or a
/// message for a line that could not be read; the error that stopped reading is returned.
fn read_batches(
    reader: &mut dyn BufRead,
    each: &mut dyn FnMut(Result<wire::Batch, NotABatch>, Position),
) -> Option<String> {
    let mut line = Vec::new();
    let mut n = 0usize;
    let mut first = true;
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) => return None,
            Ok(_) => {}
            Err(e) => return Some(format!("cannot read: {e}")),
        }
        n += 1;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let opens = std::mem::take(&mut first);
        let mut got = Vec::new();
        let mut d = serde_json::Deserializer::from_slice(&line);
        let res = wire::each_batch(&mut d, &mut |b| got.push(b)).and_then(|()| d.end());
        match res {
            Ok(()) => {
                for b in got {
                    each(Ok(b), Position::Line(n));
                }
            }
            Err(e) if e.is_eof() && opens => {
                // One document over many lines: read it whole from here, batch by batch.
                return read_document(std::mem::take(&mut line), reader, n, each);
            }
            Err(e) => each(
                Err(NotABatch(crate::redact::scrub_message(&e.to_string()))),
                Position::Line(n),
            ),
        }
    }
}

fn read_document(
    start: Vec<u8>,
    reader: &mut dyn BufRead,
    line: usize,
    each: &mut dyn FnMut(Result<wire::Batch, NotABatch>, Position),
) -> Option<String> {
    let joined = std::io::Cursor::new(start).chain(reader);
    let mut d = serde_json::Deserializer::from_reader(joined);
    let mut k = 0usize;
    let res = wire::each_batch(&mut d, &mut |b| {
        each(Ok(b), Position::Entry(k));
        k += 1;
    })
    .and_then(|()| d.end());
    res.err().map(|e| {
        format!(
            "the trace document that starts on line {line} stopped at line {}, column {}: {}",
            e.line() + line - 1,
            e.column(),
            crate::redact::scrub_message(&e.to_string())
        )
    })
}

/// What a trace cannot tell, for this input.
fn finish_facts(f: &mut TraceFacts) {
    f.lacks.push(
        "no response bodies: a trace records none, so which layer sent a 429 rests on captured headers and the host"
            .into(),
    );
    if f.response_headers.is_empty() {
        f.lacks.push("no response headers: the instrumentation captured none (Retry-After and rate-limit headers are unknown, not absent); capture them with OTEL_INSTRUMENTATION_HTTP_CAPTURE_HEADERS_CLIENT_RESPONSE".into());
    }
    f.lacks.push(match &f.sampler {
        Some(s) => format!("sampled: counts are of the spans the sampler kept ({s}), not of every request"),
        None => "counts are of the spans exported: if the services sample traces, requests that were not sampled are missing".into(),
    });
}

#[cfg(test)]
mod tests;
