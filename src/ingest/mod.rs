//! Ingestion: bytes from files or stdin → normalized, redacted [`Request`]s.
//!
//! Each input is sniffed (HAR or JSON lines, gzip or not), read in a streaming way, and every
//! record is redacted before it leaves this module. Problems with single entries or lines are
//! counted warnings with their location; only an unreadable input becomes an error, and even
//! then the records read before the problem are kept.

pub mod access;
pub mod caps;
pub mod error;
pub mod fieldmap;
pub mod follow;
pub mod har;
pub mod jsonl;
pub mod lazy;
pub mod loose;
mod pipeline;
mod repeats;
pub mod scan;
mod skim;
pub mod skip;
pub mod source;
pub mod trace;

use crate::model::view::RecordView;
use crate::model::{InputSummary, Position, Request, Warning};
use crate::redact::Redactor;
use rayon::prelude::*;
use std::sync::Arc;

/// Input formats we can read (the command line names them in `cli::InputFormat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Har,
    Jsonl,
    /// nginx text logs: combined, main, ingress-nginx upstreaminfo (or --log-format).
    Nginx,
    /// Apache Common Log Format / combined.
    Clf,
    /// Envoy / Istio text logs, Envoy Gateway JSON.
    Envoy,
    /// AWS Application Load Balancer.
    Alb,
    /// CloudFront standard logs (W3C, TAB-separated).
    Cloudfront,
    /// W3C extended logs (IIS).
    W3c,
    /// HAProxy `option httplog`, with or without a syslog prefix.
    Haproxy,
    /// Cloudflare Logpush http_requests (JSON lines).
    Cloudflare,
    /// Kong log plugins (file-log, http-log, ...).
    Kong,
    /// Traefik access logs (JSON, or the default CLF).
    Traefik,
    /// Caddy JSON access logs.
    Caddy,
    /// Google Cloud HTTP(S) load balancing LogEntry JSON.
    GcpLb,
    /// OpenTelemetry traces in OTLP/JSON (file exporters: one `TracesData` per line).
    Otlp,
    /// Jaeger's JSON trace export (`{"data":[{traceID, spans, processes}]}`).
    Jaeger,
}

impl Format {
    pub fn as_str(&self) -> &'static str {
        match self {
            Format::Har => "har",
            Format::Jsonl => "jsonl",
            Format::Nginx => "nginx",
            Format::Clf => "clf",
            Format::Envoy => "envoy",
            Format::Alb => "alb",
            Format::Cloudfront => "cloudfront",
            Format::W3c => "w3c",
            Format::Haproxy => "haproxy",
            Format::Cloudflare => "cloudflare",
            Format::Kong => "kong",
            Format::Traefik => "traefik",
            Format::Caddy => "caddy",
            Format::GcpLb => "gcp-lb",
            Format::Otlp => "otlp",
            Format::Jaeger => "jaeger",
        }
    }

    /// An access-log format (read by `access`), not HAR or generic JSON lines.
    pub fn is_access_log(&self) -> bool {
        !matches!(self, Format::Har | Format::Jsonl) && !self.is_trace()
    }

    /// A trace export (read by `trace`).
    pub fn is_trace(&self) -> bool {
        matches!(self, Format::Otlp | Format::Jaeger)
    }
}

/// Called with an input's path and the number of (compressed) bytes just read from it, so the
/// command layer can show progress; ingestion itself never touches the terminal.
pub type Progress = std::sync::Arc<dyn Fn(&str, u64) + Send + Sync>;

/// Called with an input's path and its format once that is decided (before any record).
pub type FormatHook = std::sync::Arc<dyn Fn(&str, Format) + Send + Sync>;

/// How to read inputs.
#[derive(Clone)]
pub struct Options {
    /// Force a format instead of sniffing.
    pub format: Option<Format>,
    /// `--map canonical=dotted.path` field mappings for JSON lines.
    pub field_map: Vec<(String, String)>,
    /// `--log-format`: a compiled access-log format (nginx, Envoy or Apache syntax).
    pub log_format: Option<Arc<access::format::LogFormat>>,
    pub redactor: Redactor,
    /// Progress hook (None = silent).
    pub progress: Option<Progress>,
    /// Worker threads per input (None = rayon's pool size, which follows `--threads` and
    /// `RAYON_NUM_THREADS`). 1 reads, parses and normalizes on the calling thread alone.
    pub threads: Option<usize>,
    /// This input is a piece of a followed stream (`analyze --follow`) whose first line is
    /// line N of the stream: line numbers go on from N, and a piece without records is no
    /// error (the stream as a whole is judged at its end).
    pub piece: Option<usize>,
    /// Told each input's format (None = nobody asks).
    pub on_format: Option<FormatHook>,
    /// Records' views carry their request ids (`RecordView::request_id`): the analysis joins
    /// several inputs by them. Off, views skip those headers.
    pub request_ids: bool,
}

impl Options {
    /// The number of the input's first line (1, or where a followed piece starts).
    pub fn first_line(&self) -> usize {
        self.piece.unwrap_or(1).max(1)
    }

    /// Sniffed format, no field map, silent, default thread count.
    pub fn new(redactor: Redactor) -> Options {
        Options {
            format: None,
            field_map: Vec::new(),
            log_format: None,
            redactor,
            progress: None,
            threads: None,
            piece: None,
            on_format: None,
            request_ids: false,
        }
    }
}

/// How many warnings of one input are kept with their text (all are counted).
pub const KEPT_WARNINGS: usize = 50;

/// Counted warnings of one input, the first few kept verbatim.
#[derive(Debug, Default)]
pub struct Warnings {
    pub count: usize,
    pub kept: Vec<Warning>,
}

impl Warnings {
    pub fn push(&mut self, w: Warning) {
        self.count += 1;
        if self.kept.len() < KEPT_WARNINGS {
            self.kept.push(w);
        }
    }

    pub fn merge(&mut self, other: Warnings) {
        self.count += other.count;
        for w in other.kept {
            if self.kept.len() < KEPT_WARNINGS {
                self.kept.push(w);
            }
        }
    }
}

/// Everything read from one input.
pub struct Ingested {
    pub summary: InputSummary,
    pub requests: Vec<Request>,
}

/// What a format reader hands back when collected into a `Vec` ([`har::read`],
/// [`jsonl::read`]): the records plus what [`InputSummary`] reports about them.
pub struct ReadOutcome {
    pub requests: Vec<Request>,
    pub skipped: usize,
    pub warnings: Warnings,
    pub creator: Option<String>,
    /// Set when reading stopped early; records before it are kept.
    pub error: Option<String>,
    /// Lines that gave no record, per reason.
    pub reasons: skip::Reasons,
    /// The wrapper removed from every line, if any.
    pub unwrapped: Option<String>,
}

/// What a streaming format reader knows once the input is consumed.
#[derive(Debug, Default)]
pub(crate) struct Tail {
    pub creator: Option<String>,
    /// The wrapper removed from every line (access logs: Docker json-file, CRI, syslog ...).
    pub unwrapped: Option<String>,
    /// Set when reading stopped early; records before it were streamed.
    pub error: Option<String>,
    /// The input ended short of a whole one without an error (a cut last record, data after
    /// a HAR).
    pub incomplete: Option<crate::model::Incomplete>,
    /// What a trace export held beyond its records.
    pub traces: Option<Box<crate::model::trace::TraceFacts>>,
}

pub(crate) fn warn(source: &Arc<str>, pos: Option<Position>, msg: impl Into<String>) -> Warning {
    Warning {
        source: source.clone(),
        position: pos,
        message: msg.into(),
    }
}

/// The error an input gets when it ended without a problem but yielded nothing usable.
fn empty_input_error(
    format: Format,
    records: usize,
    reasons: &skip::Reasons,
    skipped: usize,
) -> Option<String> {
    if records > 0 {
        return None;
    }
    let not_requests = reasons.not_requests();
    if not_requests > 0 && skipped == 0 {
        return Some(no_http_records(format, reasons));
    }
    let skipped = skipped + not_requests;
    match format {
        Format::Har if skipped == 0 => {
            Some("the HAR has no entries (log.entries is empty or missing)".to_string())
        }
        Format::Har => None,
        Format::Jsonl if skipped > 0 => Some(format!(
            "none of the {skipped} non-blank lines could be read as a request record"
        )),
        Format::Jsonl => Some("no records: the file has only blank lines".into()),
        Format::Otlp | Format::Jaeger => Some(format!(
            "no HTTP spans: the {} export holds no CLIENT or SERVER span with HTTP attributes{}",
            format.as_str(),
            if skipped > 0 { format!(" ({skipped} batches could not be read)") } else { String::new() }
        )),
        f if skipped > 0 => Some(format!(
            "none of the {skipped} lines could be read as a {} log; if its format is custom, pass it with --log-format '...'",
            f.as_str()
        )),
        _ => Some("no records: the file has no log lines".into()),
    }
}

/// An input whose every line is a record known not to be an HTTP request (an NLB TLS log, an
/// IIS FTP log, an error log): what its lines are, instead of a complaint about each.
fn no_http_records(format: Format, reasons: &skip::Reasons) -> String {
    let kinds: Vec<String> = reasons
        .reasons
        .iter()
        .filter(|r| r.not_request)
        .map(|r| {
            let s = if r.lines == 1 { "" } else { "s" };
            format!("{} line{s} of {}", r.lines, r.reason)
        })
        .collect();
    format!(
        "no HTTP request records found in this {} log: {}; the file logs no HTTP requests, so there is nothing to analyze",
        format.as_str(),
        kinds.join(", ")
    )
}

/// Counts what passes from a format reader to the caller's sink.
struct Tally<'s, T> {
    sink: &'s mut dyn FnMut(&mut Vec<T>),
    records: usize,
    skipped: usize,
    warnings: Warnings,
    reasons: skip::Reasons,
}

impl<'s, T> Tally<'s, T> {
    fn new(sink: &'s mut dyn FnMut(&mut Vec<T>)) -> Self {
        Tally {
            sink,
            records: 0,
            skipped: 0,
            warnings: Warnings::default(),
            reasons: skip::Reasons::default(),
        }
    }

    fn take(&mut self, done: &mut pipeline::Done<T>) {
        for w in done.warnings.drain(..) {
            self.warnings.push(w);
        }
        self.reasons.merge(std::mem::take(&mut done.reasons));
        self.skipped += done.skipped;
        self.records += done.items.len();
        if !done.items.is_empty() {
            (self.sink)(&mut done.items);
        }
    }
}

/// Stream one input (a path, or `-` for stdin).
///
/// Records are normalized and redacted on worker threads; `map` runs there too (turn a
/// [`Request`] into whatever the caller keeps), and `sink` receives the mapped records in
/// batches on the calling thread, in input order (entry order for a HAR, line order for
/// JSON lines); it takes them out of the batch (`drain`, `append`), whose room goes back to
/// the workers. Memory stays bounded by a few jobs in flight, whatever the input's size.
/// Problems are in the returned summary: counted warnings with their locations, and `error`
/// when reading stopped early (everything before it was streamed).
pub fn stream_input<T: Send>(
    path: &str,
    opts: &Options,
    map: &(dyn Fn(Request) -> T + Sync),
    sink: &mut dyn FnMut(&mut Vec<T>),
) -> InputSummary {
    stream_input_with(path, opts, map, None, sink)
}

/// What a reader may call instead of building a [`Request`] (see
/// [`crate::analyze::event::map_view`]).
pub trait Views<T>: Sync {
    /// A cheap pre-check, before the view is built: `false` when a record of this status,
    /// layer signal and URL will want its full record anyway (then build that at once). The
    /// URL is the redacted one, or the raw one in a reader's skim before it redacts anything
    /// (then a "yes" is asked again of the redacted URL's host when the two hosts differ).
    fn may_view(&self, status: u16, layer_signal: bool, url: &str) -> bool;
    /// The caller's item straight from a record's borrowed view, or `None` when the caller
    /// wants the full record after all (then the reader builds it and calls `map`).
    fn view(&self, v: &RecordView<'_>) -> Option<T>;
    /// [`Views::may_view`], handing back what it learned for [`Views::view_hinted`] (`None`
    /// where `may_view` says `false`).
    fn may_view_hinted(&self, status: u16, layer_signal: bool, url: &str) -> Option<ViewHint> {
        self.may_view(status, layer_signal, url)
            .then(ViewHint::default)
    }
    /// [`Views::view`], given the hint `may_view_hinted` returned for this record's status,
    /// layer signal and URL.
    fn view_hinted(&self, v: &RecordView<'_>, _hint: ViewHint) -> Option<T> {
        self.view(v)
    }
}

pub use crate::model::view::ViewHint;

/// The views a reader is given (`None`: build every record).
pub type ViewMap<'f, T> = &'f dyn Views<T>;

/// The caller's views, noting (as `map` does) whether any record had a status or a time.
struct Watched<'a, T> {
    inner: ViewMap<'a, T>,
    any_status: &'a std::sync::atomic::AtomicBool,
    any_time: &'a std::sync::atomic::AtomicBool,
}

impl<T> Views<T> for Watched<'_, T> {
    fn may_view(&self, status: u16, layer_signal: bool, url: &str) -> bool {
        self.inner.may_view(status, layer_signal, url)
    }
    fn view(&self, v: &RecordView<'_>) -> Option<T> {
        self.view_hinted(v, ViewHint::default())
    }
    fn may_view_hinted(&self, status: u16, layer_signal: bool, url: &str) -> Option<ViewHint> {
        self.inner.may_view_hinted(status, layer_signal, url)
    }
    fn view_hinted(&self, v: &RecordView<'_>, hint: ViewHint) -> Option<T> {
        use std::sync::atomic::Ordering::Relaxed;
        let t = self.inner.view_hinted(v, hint)?;
        if v.status != 0 && !self.any_status.load(Relaxed) {
            self.any_status.store(true, Relaxed);
        }
        if v.started.is_some() && !self.any_time.load(Relaxed) {
            self.any_time.store(true, Relaxed);
        }
        Some(t)
    }
}

/// [`stream_input`], with `view` for readers that can describe a record without building it
/// (see [`crate::analyze::event::map_view`]; JSON lines do today).
pub fn stream_input_with<T: Send>(
    path: &str,
    opts: &Options,
    map: &(dyn Fn(Request) -> T + Sync),
    view: Option<ViewMap<'_, T>>,
    sink: &mut dyn FnMut(&mut Vec<T>),
) -> InputSummary {
    let counter = opts.progress.clone().map(|p| {
        let path = path.to_string();
        Box::new(move |n: u64| p(&path, n)) as Box<dyn FnMut(u64) + Send>
    });
    let opened = source::open_counted(path, counter);
    stream_opened(path, opened, opts, map, view, sink)
}

/// [`stream_input_with`] over an input already opened (or that failed to open), named `path`:
/// a followed file's new lines are streamed this way, chunk by chunk
/// ([`source::Opened::from_bytes`]).
pub fn stream_opened<T: Send>(
    path: &str,
    opened: Result<source::Opened, error::SourceError>,
    opts: &Options,
    map: &(dyn Fn(Request) -> T + Sync),
    view: Option<ViewMap<'_, T>>,
    sink: &mut dyn FnMut(&mut Vec<T>),
) -> InputSummary {
    let source: Arc<str> = Arc::from(path);
    let failed = |format: Option<Format>, msg: String| InputSummary {
        source: source.clone(),
        format: format.map(|f| f.as_str().to_string()),
        creator: None,
        records: 0,
        skipped: 0,
        warning_count: 0,
        warnings: Vec::new(),
        error: Some(msg),
        incomplete: None,
        no_status: None,
        traces: None,
        not_requests: 0,
        skipped_reasons: Vec::new(),
        unwrapped: None,
        counted_twice: None,
    };
    let mut opened = match opened {
        Ok(o) => o,
        Err(e) => return failed(None, e.to_string()),
    };
    let watch = opened.watch.take();
    let sniffed = opened.sniff(path);
    // A `--log-format` that fits this input decides its format (the format the syntax belongs
    // to); inputs it does not fit are sniffed as usual.
    let forced = opts.format.or_else(|| {
        opts.log_format
            .as_ref()
            .filter(|f| access::custom_fits(&opened.prefix, f))
            .map(|f| access::Parser::custom(f.clone()).format)
    });
    let (format, jsonp) = match (forced, sniffed) {
        (Some(f), Ok(s)) => (f, s.jsonp && f == Format::Har),
        (Some(f), Err(_)) => (f, false),
        (None, Ok(s)) => (s.format, s.jsonp),
        (None, Err(e)) => return failed(None, e.to_string()),
    };
    if let Some(hook) = &opts.on_format {
        hook(path, format);
    }
    let mut tally = Tally::new(sink);
    // --map checked against the first bytes (once per input); JSON lines keep them for the
    // message when nothing maps to a status. Whether any record had a status or a time is
    // watched on the workers (a read-mostly flag each, so no contention).
    for m in fieldmap::map_warnings(format, &opts.field_map, &opened.prefix) {
        tally.warnings.push(warn(&source, None, m));
    }
    let first_bytes = (format == Format::Jsonl).then(|| opened.prefix.clone());
    let any_status = std::sync::atomic::AtomicBool::new(false);
    let any_time = std::sync::atomic::AtomicBool::new(false);
    let watched = |r: Request| {
        use std::sync::atomic::Ordering::Relaxed;
        if r.status != 0 && !any_status.load(Relaxed) {
            any_status.store(true, Relaxed);
        }
        if r.started.is_some() && !any_time.load(Relaxed) {
            any_time.store(true, Relaxed);
        }
        map(r)
    };
    let map: &(dyn Fn(Request) -> T + Sync) = &watched;
    let watched_view = view.map(|inner| Watched {
        inner,
        any_status: &any_status,
        any_time: &any_time,
    });
    let view: Option<ViewMap<'_, T>> = watched_view.as_ref().map(|w| w as &dyn Views<T>);
    let tail = {
        let mut take = |d: &mut pipeline::Done<T>| tally.take(d);
        match format {
            Format::Har => har::stream(
                opened.into_plain_reader(),
                &source,
                opts,
                jsonp,
                map,
                view,
                &mut take,
            ),
            Format::Jsonl => {
                jsonl::stream(opened.into_reader(), &source, opts, map, view, &mut take)
            }
            Format::Otlp | Format::Jaeger => {
                trace::stream(opened.into_reader(), &source, opts, map, &mut take)
            }
            f => access::stream(opened.into_reader(), &source, opts, f, map, view, &mut take),
        }
    };
    let not_requests = tally.reasons.not_requests();
    not_request_warnings(&tally.reasons, &mut tally.warnings, &source);
    let error = tail.error.or_else(|| match opts.piece {
        Some(_) => None,
        None => empty_input_error(format, tally.records, &tally.reasons, tally.skipped),
    });
    // A file shorter now than when it was opened was truncated while it was read: that says
    // more than a last line cut short, which it usually causes.
    let incomplete = watch
        .and_then(|w| w.shrank())
        .map(|(at_open, now)| crate::model::Incomplete {
            kind: crate::model::IncompleteKind::Shrank,
            message: format!(
                "the file was truncated while it was read ({at_open} bytes when opened, {now} when reading ended: rotated by copy-and-truncate, or overwritten?); the report covers only what was read before"
            ),
        })
        .or(tail.incomplete);
    let no_status = match &first_bytes {
        Some(prefix) if tally.records > 0 && !any_status.into_inner() => Some(
            fieldmap::no_status_error(tally.records, any_time.into_inner(), prefix),
        ),
        _ => None,
    };
    InputSummary {
        source: source.clone(),
        format: Some(format.as_str().to_string()),
        creator: tail.creator,
        records: tally.records,
        skipped: tally.skipped,
        warning_count: tally.warnings.count,
        warnings: tally.warnings.kept,
        error,
        incomplete,
        no_status,
        traces: tail.traces,
        not_requests,
        skipped_reasons: tally
            .reasons
            .reasons
            .into_iter()
            .map(|r| crate::model::SkipReason {
                reason: r.reason,
                lines: r.lines,
                first_line: r.first,
                not_request: r.not_request,
            })
            .collect(),
        unwrapped: tail.unwrapped,
        counted_twice: None,
    }
}

/// One located warning per kind of record that is not an HTTP request (they are counted, not
/// warned about one by one: a Caddy log holds more runtime messages than requests).
fn not_request_warnings(reasons: &skip::Reasons, warnings: &mut Warnings, source: &Arc<str>) {
    for r in reasons.reasons.iter().filter(|r| r.not_request) {
        let lines = if r.lines == 1 {
            "1 line is".to_string()
        } else {
            format!("{} lines are", r.lines)
        };
        warnings.push(warn(
            source,
            Some(Position::Line(r.first)),
            format!(
                "{lines} not HTTP requests ({}), from this line on; skipped",
                r.reason
            ),
        ));
    }
}

/// Read one input (a path, or `-` for stdin) into a `Vec`, for callers that want every record.
pub fn read_input(path: &str, opts: &Options) -> Ingested {
    let mut requests = Vec::new();
    let summary = stream_input(path, opts, &|r| r, &mut |batch| requests.append(batch));
    Ingested { summary, requests }
}

/// Read many inputs in parallel; results keep the order of `paths`.
pub fn read_inputs(paths: &[String], opts: &Options) -> Vec<Ingested> {
    paths.par_iter().map(|p| read_input(p, opts)).collect()
}

/// Collect a format reader's stream into a [`ReadOutcome`] (the `read` functions of the
/// format modules, for tests and callers that hold an open reader).
pub(crate) fn collect(
    format: Format,
    stream: impl FnOnce(&mut dyn FnMut(&mut pipeline::Done<Request>)) -> Tail,
) -> ReadOutcome {
    let mut requests = Vec::new();
    let mut sink = |batch: &mut Vec<Request>| requests.append(batch);
    let mut tally = Tally::new(&mut sink);
    let tail = stream(&mut |d| tally.take(d));
    let (records, skipped, warnings, reasons) =
        (tally.records, tally.skipped, tally.warnings, tally.reasons);
    let error = tail
        .error
        .or_else(|| empty_input_error(format, records, &reasons, skipped));
    ReadOutcome {
        requests,
        skipped,
        warnings,
        creator: tail.creator,
        error,
        reasons,
        unwrapped: tail.unwrapped,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn har_with(n: usize) -> tempfile::NamedTempFile {
        let mut f = tempfile::Builder::new().suffix(".har").tempfile().unwrap();
        let entries: Vec<String> = (0..n)
            .map(|i| {
                format!(
                    r#"{{"startedDateTime":"2024-01-01T00:00:{:02}Z","request":{{"method":"GET","url":"https://a.example/{i}"}},"response":{{"status":{}}}}}"#,
                    i % 60,
                    if i % 10 == 9 { 429 } else { 200 }
                )
            })
            .collect();
        write!(
            f,
            r#"{{"log":{{"version":"1.2","entries":[{}]}}}}"#,
            entries.join(",")
        )
        .unwrap();
        f
    }

    #[test]
    fn stream_maps_on_workers_and_sinks_in_input_order() {
        let f = har_with(3_000);
        let path = f.path().to_str().unwrap();
        let mut seen = Vec::new();
        for threads in [1, 2, 4] {
            let opts = Options {
                threads: Some(threads),
                ..Options::new(Redactor::from_key_material(b"k"))
            };
            let mut got: Vec<(usize, u16)> = Vec::new();
            let mut batches = 0;
            let summary = stream_input(
                path,
                &opts,
                &|r: Request| match r.location.position {
                    Position::Entry(i) => (i, r.status),
                    Position::Line(_) => unreachable!(),
                },
                &mut |batch| {
                    batches += 1;
                    got.append(batch)
                },
            );
            assert!(summary.error.is_none(), "{:?}", summary.error);
            assert_eq!(summary.records, 3_000);
            assert!(batches > 1, "streamed in batches");
            assert!(got.iter().enumerate().all(|(i, (e, _))| i == *e));
            assert_eq!(got.iter().filter(|(_, s)| *s == 429).count(), 300);
            seen.push(got);
        }
        assert!(seen.windows(2).all(|w| w[0] == w[1]));
    }

    #[test]
    fn read_input_collects_what_stream_input_streams() {
        let f = har_with(10);
        let opts = Options::new(Redactor::from_key_material(b"k"));
        let ing = read_input(f.path().to_str().unwrap(), &opts);
        assert_eq!(ing.requests.len(), 10);
        assert_eq!(ing.summary.records, 10);
        assert_eq!(ing.summary.format.as_deref(), Some("har"));
    }
}
