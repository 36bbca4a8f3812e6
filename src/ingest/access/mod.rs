//! Access logs: nginx / Apache / ingress-nginx / Traefik CLF text, Envoy and Istio text, AWS
//! ALB, CloudFront and IIS W3C, HAProxy `httplog`, and the JSON logs of Cloudflare Logpush,
//! Kong, Traefik, Caddy, Google Cloud load balancing and Envoy Gateway.
//!
//! Every line becomes the same normalized, redacted [`Request`] as a HAR entry, with one
//! addition: the line's own verdict about who produced the response ([`LayerSignal`]), which
//! the attribution engine reads before any fingerprint. Parsers are pure functions from a line
//! to a borrowed [`record::Fields`]; [`Parser::parse_line`] is the per-line entry point a
//! streaming reader calls on worker threads, and [`read`] is the whole-file reader used today.
//!
//! Reference: `shared/reference/logformats.md`; source tags in comments are its.
//!
//! [`LayerSignal`]: crate::model::LayerSignal

pub mod alb;
pub mod envoy;
pub mod escape;
pub mod format;
pub mod haproxy;
pub mod jsonlogs;
pub mod nginx;
pub mod record;
pub mod signal;
pub mod time;
pub mod w3c;

use super::error::{Closest, LineError, SourceError};
use super::pipeline::{self, Done};
use super::{warn, Format, Options, ReadOutcome, Tail, ViewMap};
use crate::model::Warning;
use crate::model::{Position, Request};
use format::LogFormat;
use record::{Convert, Fields};
use signal::{rule, LogRule};
use std::io::BufRead;
use std::sync::Arc;

/// Longest line read; longer lines are skipped with a warning, not loaded.
pub const MAX_LINE: usize = 4 * 1024 * 1024;
/// Bytes handed to one worker at once.
const BLOCK_BYTES: usize = 1024 * 1024;
/// Lines looked at to decide a layout.
const SNIFF_LINES: usize = 20;

/// Which text family a compiled format belongs to (decides its signal rule).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    Nginx,
    Apache,
    Envoy,
    TraefikClf,
}

/// How one input's lines are read.
#[derive(Debug, Clone)]
pub enum Kind {
    Text {
        format: Arc<LogFormat>,
        family: Family,
    },
    Alb,
    Haproxy,
    /// W3C extended: the `#Fields:` directive in effect (CloudFront or IIS).
    W3c(Arc<w3c::Header>),
    Json(jsonlogs::Vendor),
}

/// A chosen layout: how to read a line, and what to call it in the report.
#[derive(Debug, Clone)]
pub struct Parser {
    pub kind: Kind,
    /// The `--input-format` name this layout belongs to.
    pub format: Format,
    /// The layout, for the report ("ingress-nginx upstreaminfo").
    pub label: String,
}

impl Parser {
    /// A parser for a compiled `--log-format`.
    pub fn custom(format: Arc<LogFormat>) -> Parser {
        let (family, fmt) = match format.syntax {
            format::Syntax::Nginx => (Family::Nginx, Format::Nginx),
            format::Syntax::Envoy => (Family::Envoy, Format::Envoy),
            format::Syntax::Apache => (Family::Apache, Format::Clf),
        };
        Parser {
            label: format.label.clone(),
            kind: Kind::Text { format, family },
            format: fmt,
        }
    }

    fn text(format: LogFormat, family: Family, fmt: Format) -> Parser {
        Parser {
            label: format.label.clone(),
            kind: Kind::Text {
                format: Arc::new(format),
                family,
            },
            format: fmt,
        }
    }

    /// The rule for lines whose own fields do not decide.
    fn no_signal(&self) -> Option<&'static LogRule> {
        match &self.kind {
            Kind::Text { family, .. } => Some(rule(match family {
                Family::Nginx => "nginx.no-field",
                Family::Apache => "apache.no-field",
                Family::Envoy => "envoy.no-field",
                Family::TraefikClf => "traefik.no-field",
            })),
            Kind::Json(v) => v.no_signal(),
            Kind::Alb | Kind::Haproxy | Kind::W3c(_) => None,
        }
    }

    /// Do directive lines (`#Fields:`) change how later lines are read?
    pub fn is_stateful(&self) -> bool {
        matches!(self.kind, Kind::W3c(_))
    }

    /// A directive line: the parser that reads the lines after it. `None`: not a directive of
    /// this format (a comment, or not a W3C log).
    pub fn directive(&self, line: &str) -> Option<Result<Parser, LineError>> {
        let Kind::W3c(_) = &self.kind else {
            return None;
        };
        let rest = line.strip_prefix("#Fields:")?;
        Some(w3c::Header::parse(rest).map(|h| {
            let format = if h.is_cloudfront() {
                Format::Cloudfront
            } else {
                Format::W3c
            };
            Parser {
                label: h.label().to_string(),
                kind: Kind::W3c(Arc::new(h)),
                format,
            }
        }))
    }

    /// Parse one line into borrowed records (one, or several for a JSON array line);
    /// `trailing` = the line went on past the layout's end.
    pub fn parse_fields<'a>(
        &'a self,
        line: &'a str,
        each: &mut dyn FnMut(Fields<'a>, bool),
    ) -> Result<(), LineError> {
        match &self.kind {
            Kind::Text { format, family } => {
                let m = format.parse(line).map_err(|m| m.reason)?;
                let mut f = m.fields;
                f.signal = text_signal(*family, f.status, &m.signal);
                each(f, m.trailing);
                Ok(())
            }
            Kind::Alb => alb::parse(line).map(|(f, t)| each(f, t)),
            Kind::Haproxy => haproxy::parse(line).map(|f| each(f, false)),
            Kind::W3c(h) => h.parse_line(line).map(|f| each(f, false)),
            Kind::Json(v) => v.parse(line, each),
        }
    }

    /// Does every line give exactly one record (all layouts but JSON, whose array lines give
    /// several)?
    pub fn one_record_per_line(&self) -> bool {
        !matches!(self.kind, Kind::Json(_))
    }

    /// One line of a one-record layout as the caller's item: through `view` when the record
    /// needs no full [`Request`] (see [`Fields::map_view`]), else through `map`.
    #[allow(clippy::too_many_arguments)]
    pub fn item_of_line<T>(
        &self,
        line: &str,
        line_no: usize,
        source: &Arc<str>,
        opts: &Options,
        agents: &record::AgentCache,
        map: &(dyn Fn(Request) -> T + Sync),
        view: ViewMap<'_, T>,
    ) -> Result<T, LineError> {
        let cv = Convert {
            source,
            redactor: &opts.redactor,
            no_signal: self.no_signal(),
            agents: Some(agents),
        };
        if let Kind::Text { format, family } = &self.kind {
            // The common layouts, parsed in place: no callback, and the record is not moved
            // (it is several hundred bytes) on its way to the view.
            let mut f = Fields::default();
            let mut sig = format::SignalInputs::default();
            format
                .parse_into(line, &mut f, &mut sig)
                .map_err(|m| m.reason)?;
            f.signal = text_signal(*family, f.status, &sig);
            return match f.map_view(line_no, &cv, view) {
                Some(item) => Ok(item),
                None => f.into_request(line_no, &cv).map(map),
            };
        }
        let mut out = None;
        self.parse_fields(line, &mut |f, _| {
            if out.is_some() {
                return; // one record per line: never reached
            }
            out = Some(match f.map_view(line_no, &cv, view) {
                Some(item) => Ok(item),
                None => f.into_request(line_no, &cv).map(map),
            });
        })?;
        out.unwrap_or(Err(LineError::Layout("no record on the line")))
    }

    /// Parse one line into normalized, redacted requests (pushed to `out`).
    pub fn parse_line(
        &self,
        line: &str,
        line_no: usize,
        source: &Arc<str>,
        opts: &Options,
        out: &mut Vec<Request>,
    ) -> Result<(), LineError> {
        self.parse_line_with(line, line_no, source, opts, None, out)
    }

    /// [`Parser::parse_line`] with a worker's cache of redacted user agents.
    pub fn parse_line_with(
        &self,
        line: &str,
        line_no: usize,
        source: &Arc<str>,
        opts: &Options,
        agents: Option<&record::AgentCache>,
        out: &mut Vec<Request>,
    ) -> Result<(), LineError> {
        let cv = Convert {
            source,
            redactor: &opts.redactor,
            no_signal: self.no_signal(),
            agents,
        };
        let mut err = None;
        self.parse_fields(line, &mut |f, _| match f.into_request(line_no, &cv) {
            Ok(r) => out.push(r),
            Err(e) => err = Some(e),
        })?;
        match err {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// A text line's own verdict about who answered, from its signal fields (errors only).
fn text_signal(
    family: Family,
    status: Option<u16>,
    sig: &format::SignalInputs<'_>,
) -> Option<crate::model::LayerSignal> {
    let status = status.filter(|s| *s >= 400)?;
    match family {
        Family::Nginx => nginx::signal(status, sig),
        Family::Envoy => envoy::signal_text(sig),
        Family::Apache | Family::TraefikClf => None,
    }
}

// ------------------------------------------------------------------------------------------
// Choosing a layout from content.

/// The candidate layouts of a family (or of every family), most specific first.
fn candidates(hint: Option<Format>) -> Vec<Parser> {
    let mut v = Vec::new();
    let want = |f: Format| hint.is_none() || hint == Some(f);
    if want(Format::Alb) {
        v.push(Parser {
            kind: Kind::Alb,
            format: Format::Alb,
            label: "AWS ALB".into(),
        });
    }
    if want(Format::Haproxy) {
        v.push(Parser {
            kind: Kind::Haproxy,
            format: Format::Haproxy,
            label: "HAProxy httplog".into(),
        });
    }
    if want(Format::Envoy) {
        v.push(Parser::text(envoy::istio(), Family::Envoy, Format::Envoy));
        v.push(Parser::text(envoy::default(), Family::Envoy, Format::Envoy));
    }
    if want(Format::Nginx) {
        v.push(Parser::text(
            nginx::upstreaminfo(),
            Family::Nginx,
            Format::Nginx,
        ));
        v.push(Parser::text(nginx::main(), Family::Nginx, Format::Nginx));
        v.push(Parser::text(
            nginx::combined(),
            Family::Nginx,
            Format::Nginx,
        ));
    }
    if want(Format::Traefik) {
        v.push(Parser::text(
            nginx::traefik_clf(),
            Family::TraefikClf,
            Format::Traefik,
        ));
    }
    if want(Format::Clf) {
        // A combined line reads the same either way; unasked, it is called nginx (the larger
        // installed base), and `--input-format clf` says Apache.
        if hint == Some(Format::Clf) {
            v.push(Parser::text(
                nginx::apache_combined(),
                Family::Apache,
                Format::Clf,
            ));
        }
        v.push(Parser::text(
            nginx::apache_common(),
            Family::Apache,
            Format::Clf,
        ));
    }
    for vendor in jsonlogs::Vendor::ALL {
        if want(vendor.format()) {
            v.push(Parser {
                kind: Kind::Json(*vendor),
                format: vendor.format(),
                label: vendor.label().into(),
            });
        }
    }
    v
}

/// What the formats were tried as, for the message when none fits.
pub const TRIED: &str = "nginx (combined, main, ingress-nginx upstreaminfo), Apache (common, combined), Envoy (default, Istio), AWS ALB, HAProxy httplog, W3C (CloudFront, IIS), Traefik (CLF, JSON), and the JSON logs of Cloudflare Logpush, Kong, Caddy, Google Cloud load balancing and Envoy Gateway";

fn sample_lines(prefix: &[u8]) -> Vec<String> {
    // The prefix may end mid-line: drop the partial last line unless it is all there is.
    let text = String::from_utf8_lossy(prefix);
    let mut lines: Vec<&str> = text.split('\n').collect();
    if lines.len() > 1 && !text.ends_with('\n') {
        lines.pop();
    }
    lines
        .into_iter()
        .map(|l| l.trim_end_matches('\r').trim_start_matches('\u{FEFF}'))
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .take(SNIFF_LINES)
        .map(str::to_string)
        .collect()
}

/// Decide the layout from the first bytes. `hint` = `--input-format` (a family) when given.
pub fn sniff_layout(prefix: &[u8], hint: Option<Format>) -> Result<Parser, SourceError> {
    // W3C logs announce their fields.
    let text = String::from_utf8_lossy(&prefix[..prefix.len().min(64 * 1024)]);
    if hint.is_none() || matches!(hint, Some(Format::W3c | Format::Cloudfront)) {
        if let Some(line) = text.lines().find(|l| l.starts_with("#Fields:")) {
            let seed = Parser {
                kind: Kind::W3c(Arc::new(w3c::Header::empty())),
                format: Format::W3c,
                label: "W3C".into(),
            };
            if let Some(p) = seed.directive(line.trim_end_matches('\r')) {
                return p.map_err(SourceError::FieldsDirective);
            }
        }
        if matches!(hint, Some(Format::W3c | Format::Cloudfront)) {
            return Err(SourceError::NoFieldsDirective);
        }
    }
    let lines = sample_lines(prefix);
    if lines.is_empty() {
        return Err(SourceError::NoLogLines);
    }
    let mut best: Option<(usize, usize, usize, Parser)> = None;
    let mut closest: Option<(usize, String, usize, LineError)> = None;
    for cand in candidates(hint) {
        let (mut ok, mut exact) = (0, 0);
        let mut first_err = None;
        for (i, l) in lines.iter().enumerate() {
            let mut trailing_any = false;
            match cand.parse_fields(l, &mut |f, trailing| {
                trailing_any |= trailing || f.status.is_none();
            }) {
                Ok(()) => {
                    ok += 1;
                    if !trailing_any {
                        exact += 1;
                    }
                }
                Err(e) => {
                    if first_err.is_none() {
                        first_err = Some((i + 1, e));
                    }
                }
            }
        }
        if let Some((line, e)) = first_err {
            if ok > 0 && closest.as_ref().is_none_or(|(n, ..)| ok > *n) {
                closest = Some((ok, cand.label.clone(), line, e));
            }
        }
        let richness = match &cand.kind {
            Kind::Text { format, .. } => format.field_count(),
            _ => 100,
        };
        let better = match &best {
            None => true,
            Some((bo, be, br, _)) => (exact, ok, richness) > (*be, *bo, *br),
        };
        if ok > 0 && better {
            best = Some((ok, exact, richness, cand));
        }
    }
    match best {
        Some((ok, _, _, p)) if ok * 2 >= lines.len() => Ok(p),
        _ => {
            let closest = Closest(closest.map(|(_, label, line, e)| (label, line, e)));
            Err(match hint {
                Some(f) => SourceError::NoLayoutOf {
                    format: f.as_str(),
                    closest,
                },
                None => SourceError::NoLayout {
                    tried: TRIED,
                    closest,
                },
            })
        }
    }
}

/// Does a `--log-format` fit this input (at least half its first lines)? Inputs it does not
/// fit are sniffed as usual, so one run can read an nginx log with a custom format and an
/// Envoy log beside it.
pub fn custom_fits(prefix: &[u8], format: &Arc<LogFormat>) -> bool {
    let lines = sample_lines(prefix);
    if lines.is_empty() {
        return false;
    }
    let ok = lines.iter().filter(|l| format.parse(l).is_ok()).count();
    ok * 2 >= lines.len()
}

/// For the top-level sniffer: the access-log format of a text prefix, if any.
pub fn sniff_text(prefix: &[u8]) -> Result<Format, SourceError> {
    sniff_layout(prefix, None).map(|p| p.format)
}

/// For the top-level sniffer: the vendor of a one-line JSON object, if its keys say so.
pub fn sniff_json(first_line: &str) -> Option<Format> {
    jsonlogs::Vendor::sniff(first_line).map(|v| v.format())
}

// ------------------------------------------------------------------------------------------
// Reading a whole input.

/// Block buffers handed back by the workers for the reader to fill again: a fresh 1 MiB
/// buffer per block costs page faults (the allocator returns freed memory to the system at
/// once) and regrowth copies, more than reading the block itself.
#[derive(Default)]
struct BlockPool(std::sync::Mutex<Vec<Vec<u8>>>);

impl BlockPool {
    /// Buffers kept at most (the pipeline has a few jobs in flight per worker).
    const KEEP: usize = 16;

    /// An empty buffer with room for a block and the carried partial line.
    fn take(&self) -> Vec<u8> {
        let got = self.0.lock().ok().and_then(|mut v| v.pop());
        match got {
            Some(mut b) => {
                b.clear();
                b
            }
            None => Vec::with_capacity(BLOCK_BYTES + BLOCK_BYTES / 2),
        }
    }

    fn give(&self, b: Vec<u8>) {
        if let Ok(mut v) = self.0.lock() {
            if v.len() < Self::KEEP && b.capacity() >= BLOCK_BYTES {
                v.push(b);
            }
        }
    }
}

/// One job for a worker: lines read with one parser, or a problem the reader found.
enum Job {
    Lines {
        parser: Arc<Parser>,
        text: Vec<u8>,
        first_line: usize,
    },
    /// A located warning; `skips` lines were lost with it.
    Note(Warning, usize),
}

fn work<T>(
    job: Job,
    mut items: Vec<T>,
    source: &Arc<str>,
    opts: &Options,
    map: &(dyn Fn(Request) -> T + Sync),
    view: Option<ViewMap<'_, T>>,
    pool: &BlockPool,
) -> Done<T> {
    let (parser, text, first_line) = match job {
        Job::Note(w, skips) => {
            return Done {
                items,
                warnings: vec![w],
                skipped: skips,
            }
        }
        Job::Lines {
            parser,
            text,
            first_line,
        } => (parser, text, first_line),
    };
    items.reserve(text.len() / 160 + 1);
    let mut done = Done {
        items,
        ..Done::default()
    };
    let mut reqs = Vec::with_capacity(1);
    let agents = record::AgentCache::default();
    for (n, raw) in (first_line..).zip(lines(&text)) {
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if raw.is_empty() || raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if raw[0] == b'#' && parser.is_stateful() {
            continue; // directives and comments of W3C logs
        }
        let lossy;
        let line = match std::str::from_utf8(raw) {
            Ok(s) => s,
            Err(_) => {
                lossy = String::from_utf8_lossy(raw).into_owned();
                lossy.as_str()
            }
        };
        let line = line.trim_start_matches('\u{FEFF}');
        if let Some(view) = view.filter(|_| parser.one_record_per_line()) {
            // One record per line, so the item is final once made: a success that needs no
            // full record becomes its item straight from the fields, the rest a `Request`.
            match parser.item_of_line(line, n, source, opts, &agents, map, view) {
                Ok(item) => done.items.push(item),
                Err(e) => {
                    done.skipped += 1;
                    done.warnings.push(warn(
                        source,
                        Some(Position::Line(n)),
                        format!("not {}: {e}; skipped", parser.label),
                    ));
                }
            }
            continue;
        }
        match parser.parse_line_with(line, n, source, opts, Some(&agents), &mut reqs) {
            Ok(()) => done.items.extend(reqs.drain(..).map(map)),
            Err(e) => {
                reqs.clear();
                done.skipped += 1;
                done.warnings.push(warn(
                    source,
                    Some(Position::Line(n)),
                    format!("not {}: {e}; skipped", parser.label),
                ));
            }
        }
    }
    pool.give(text);
    done
}

/// The lines of a block (split at `\n`, as `split` would: a final newline yields one empty
/// line), found with memchr rather than byte by byte.
fn lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let r = rest?;
        match memchr::memchr(b'\n', r) {
            Some(i) => {
                rest = Some(&r[i + 1..]);
                Some(&r[..i])
            }
            None => {
                rest = None;
                Some(r)
            }
        }
    })
}

/// The reader side: cut the input into blocks of whole lines (a W3C `#Fields:` directive
/// also cuts, and changes the parser for what follows). Returns a read error, if any.
fn produce(
    reader: &mut dyn BufRead,
    mut parser: Arc<Parser>,
    source: &Arc<str>,
    first_line: usize,
    pool: &BlockPool,
    feed: &mut dyn FnMut(Job),
) -> Option<String> {
    let mut line_no = first_line;
    let mut carry: Vec<u8> = Vec::new();
    let mut skipping_long = false;
    let mut eof = false;
    let mut error = None;
    while !eof {
        // A long partial line is carried whole (not copied again for every block it spans).
        let mut block = if carry.len() >= BLOCK_BYTES {
            std::mem::take(&mut carry)
        } else {
            let mut b = pool.take();
            b.extend_from_slice(&carry);
            carry.clear();
            b
        };
        while block.len() < BLOCK_BYTES {
            let buf = match reader.fill_buf() {
                Ok(b) => b,
                Err(e) => {
                    error = Some(format!("read error after line {line_no}: {e}"));
                    eof = true;
                    break;
                }
            };
            if buf.is_empty() {
                eof = true;
                break;
            }
            let n = buf.len();
            if skipping_long {
                match memchr::memchr(b'\n', buf) {
                    Some(i) => {
                        reader.consume(i + 1);
                        skipping_long = false;
                        line_no += 1;
                    }
                    None => reader.consume(n),
                }
                continue;
            }
            block.extend_from_slice(buf);
            reader.consume(n);
        }
        let cut = if eof {
            block.len()
        } else {
            match memchr::memrchr(b'\n', &block) {
                Some(i) => i + 1,
                None => {
                    if block.len() > MAX_LINE {
                        feed(Job::Note(
                            warn(
                                source,
                                Some(Position::Line(line_no)),
                                format!(
                                    "line is longer than {} MiB; skipped",
                                    MAX_LINE / (1024 * 1024)
                                ),
                            ),
                            1,
                        ));
                        skipping_long = true;
                    } else {
                        carry = block;
                    }
                    continue;
                }
            }
        };
        carry.extend_from_slice(&block[cut..]);
        block.truncate(cut);
        let lines = memchr::memchr_iter(b'\n', &block).count();
        if parser.is_stateful() && block.contains(&b'#') {
            let mut start = 0;
            let mut ln = line_no;
            let mut pos = 0;
            while pos < block.len() {
                let end = memchr::memchr(b'\n', &block[pos..])
                    .map(|i| pos + i + 1)
                    .unwrap_or(block.len());
                if block[pos] == b'#' {
                    let text = String::from_utf8_lossy(&block[pos..end]);
                    if let Some(next) = parser.directive(text.trim_end()) {
                        feed(Job::Lines {
                            parser: parser.clone(),
                            text: block[start..pos].to_vec(),
                            first_line: ln,
                        });
                        ln += memchr::memchr_iter(b'\n', &block[start..end]).count();
                        start = end;
                        match next {
                            Ok(p) => parser = Arc::new(p),
                            Err(e) => feed(Job::Note(
                                warn(
                                    source,
                                    Some(Position::Line(ln - 1)),
                                    format!("#Fields: directive not read ({e}); the previous fields stay in effect"),
                                ),
                                0,
                            )),
                        }
                    }
                }
                pos = end;
            }
            feed(Job::Lines {
                parser: parser.clone(),
                text: block[start..].to_vec(),
                first_line: ln,
            });
        } else {
            feed(Job::Lines {
                parser: parser.clone(),
                text: block,
                first_line: line_no,
            });
        }
        line_no += lines;
    }
    error
}

/// Stream an access log with a known format family (`--input-format`, or sniffed): the reader
/// thread cuts blocks of lines, workers parse, normalize, redact and `map` them.
pub(crate) fn stream<T: Send>(
    mut reader: Box<dyn BufRead + Send>,
    source: &Arc<str>,
    opts: &Options,
    format: Format,
    map: &(dyn Fn(Request) -> T + Sync),
    view: Option<ViewMap<'_, T>>,
    sink: &mut dyn FnMut(&mut Done<T>),
) -> Tail {
    let prefix = match reader.fill_buf() {
        Ok(b) => b.to_vec(),
        Err(e) => {
            return Tail {
                error: Some(format!("cannot read: {e}")),
                ..Tail::default()
            }
        }
    };
    let parser = match &opts.log_format {
        // Forced (`--input-format` with `--log-format`), or it fits this input.
        Some(f) if opts.format.is_some() || custom_fits(&prefix, f) => Parser::custom(f.clone()),
        _ => match sniff_layout(&prefix, Some(format)) {
            Ok(p) => p,
            Err(e) => {
                let hint = if opts.log_format.is_some() {
                    " (the --log-format given does not fit these lines either)"
                } else {
                    ""
                };
                return Tail {
                    error: Some(format!("{e}{hint}")),
                    ..Tail::default()
                };
            }
        },
    };
    if let Kind::Text { format: f, .. } = &parser.kind {
        if !f.has_time() {
            sink(&mut Done {
                warnings: vec![warn(
                    source,
                    None,
                    "the format logs no time; bursts, retries and rates need one (add $time_local, $msec, %t or %START_TIME%)",
                )],
                ..Done::default()
            });
        }
    }
    let creator = Some(parser.label.clone());
    let parser = Arc::new(parser);
    let pool = BlockPool::default();
    let error = pipeline::run(
        pipeline::workers(opts.threads),
        |feed| produce(&mut *reader, parser, source, opts.first_line(), &pool, feed),
        &|job, items| work(job, items, source, opts, map, view, &pool),
        sink,
    );
    Tail {
        creator,
        error,
        incomplete: None,
        traces: None,
    }
}

/// Read a whole access log into a `Vec` (tests, and callers holding an open reader).
pub fn read(
    reader: Box<dyn BufRead + Send>,
    source: &Arc<str>,
    opts: &Options,
    format: Format,
) -> ReadOutcome {
    super::collect(format, |take| {
        stream(reader, source, opts, format, &|r| r, None, take)
    })
}

#[cfg(test)]
mod tests;
