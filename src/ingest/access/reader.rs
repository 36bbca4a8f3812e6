//! Reading a whole input: the reader thread cuts blocks of whole lines (a W3C `#Fields:`
//! directive also cuts, and changes the layout for what follows; the parts of a CRI line stay
//! in one block), workers unwrap, parse, normalize and redact them.

use super::super::pipeline::{self, Done};
use super::super::{warn, Format, Options, ReadOutcome, Tail, ViewMap};
use super::{record, sniff, wrap, Fallback, LineCtx, Reader, MAX_LINE};
use crate::ingest::error::SourceError;
use crate::ingest::skip::Miss;
use crate::model::{Position, Request, Warning};
use std::borrow::Cow;
use std::io::BufRead;
use std::sync::Arc;

/// Bytes handed to one worker at once.
pub(super) const BLOCK_BYTES: usize = 1024 * 1024;

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

/// One job for a worker: lines read with one reader, or a problem the reader found.
enum Job {
    Lines {
        reader: Arc<Reader>,
        text: Vec<u8>,
        first_line: usize,
    },
    /// A located warning; `skips` lines were lost with it.
    Note(Warning, usize),
}

/// The parts of a CRI line read so far (`P` records), joined when its `F` record comes.
#[derive(Default)]
struct Partial {
    text: String,
    first_line: usize,
    time: Option<i64>,
}

fn work<T>(
    job: Job,
    items: Vec<T>,
    source: &Arc<str>,
    opts: &Options,
    map: &(dyn Fn(Request) -> T + Sync),
    view: Option<ViewMap<'_, T>>,
    pool: &BlockPool,
) -> Done<T> {
    let (reader, text, first_line) = match job {
        Job::Note(w, skips) => {
            return Done {
                items,
                warnings: vec![w],
                skipped: skips,
                ..Done::default()
            }
        }
        Job::Lines {
            reader,
            text,
            first_line,
        } => (reader, text, first_line),
    };
    let mut done = Done {
        items,
        ..Done::default()
    };
    done.items.reserve(text.len() / 160 + 1);
    let agents = record::AgentCache::default();
    // What every line of the block is read with; each read sets its own line number.
    let cx = LineCtx {
        line_no: first_line,
        source,
        opts,
        agents: Some(&agents),
        map,
        view,
    };
    let stateful = reader.first.is_stateful();
    let mut partial: Option<Partial> = None;
    for (n, raw) in (first_line..).zip(lines(&text)) {
        let Some(text) = line_text(raw, stateful) else {
            continue;
        };
        let line = text.trim_start_matches('\u{FEFF}');
        if reader.wrapper == Some(OTLP) {
            read_records(&reader, line, n, &cx, &mut done);
            continue;
        }
        let unwrapped = reader.wrapper.and_then(|w| w.unwrap(line));
        let (inner, fallback_time, host, at) = match unwrapped {
            Some(u) if u.partial => {
                let p = partial.get_or_insert_with(|| Partial {
                    first_line: n,
                    time: u.time,
                    ..Partial::default()
                });
                p.text.push_str(&u.line);
                continue;
            }
            Some(u) => match partial.take() {
                Some(mut p) => {
                    p.text.push_str(&u.line);
                    (Cow::Owned(p.text), p.time.or(u.time), u.host, p.first_line)
                }
                None => (u.line, u.time, u.host, n),
            },
            // A line without the wrapper is read as it is.
            None => (Cow::Borrowed(line), None, None, n),
        };
        let fallback = Fallback {
            time: fallback_time,
            host: host.as_deref(),
        };
        read_one(&reader, &inner, &fallback, at, &cx, &mut done);
    }
    if let Some(p) = partial {
        // A line whose last part the input did not have: read what there is.
        let fallback = Fallback {
            time: p.time,
            host: None,
        };
        let at = p.first_line;
        read_one(&reader, &p.text, &fallback, at, &cx, &mut done);
    }
    pool.give(text);
    done
}

const OTLP: wrap::Wrapper = wrap::Wrapper::Json(wrap::JsonKind::Otlp);

/// An OTLP export line: each record's line is read on its own, at the export's line number,
/// with the record's time and the resource's host as fallbacks.
fn read_records<T>(reader: &Reader, line: &str, n: usize, cx: &LineCtx<'_, T>, done: &mut Done<T>) {
    let carried = OTLP.each(line, &mut |u| {
        let fallback = Fallback {
            time: u.time,
            host: u.host.as_deref(),
        };
        read_one(reader, &u.line, &fallback, n, cx, done);
    });
    if !carried {
        let fallback = Fallback {
            time: None,
            host: None,
        };
        read_one(reader, line, &fallback, n, cx, done);
    }
}

/// One raw line as text, lossy where it is not UTF-8; `None` for a blank line and, in W3C
/// logs (`stateful`), for directives and comments.
#[inline]
fn line_text(raw: &[u8], stateful: bool) -> Option<Cow<'_, str>> {
    let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
    if raw.is_empty() || raw.iter().all(u8::is_ascii_whitespace) || (raw[0] == b'#' && stateful) {
        return None;
    }
    Some(match std::str::from_utf8(raw) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => Cow::Owned(String::from_utf8_lossy(raw).into_owned()),
    })
}

/// One unwrapped line into `done`: its records, or its reason counted (and, when it could not
/// be read, a located warning).
fn read_one<T>(
    reader: &Reader,
    line: &str,
    fallback: &Fallback<'_>,
    n: usize,
    block: &LineCtx<'_, T>,
    done: &mut Done<T>,
) {
    if line.trim().is_empty() || (line.starts_with('#') && reader.first.is_stateful()) {
        return;
    }
    let cx = LineCtx {
        line_no: n,
        ..*block
    };
    match reader.push_items(line, fallback, &cx, &mut done.items) {
        Ok(()) => {}
        Err(Miss::NotRequest(k)) => done.reasons.add(k.describe(), n, true),
        Err(Miss::Unreadable(e)) => {
            let reason = format!("not {}: {e}", reader.first.label);
            done.skipped += 1;
            done.warnings.push(warn(
                cx.source,
                Some(Position::Line(n)),
                format!("{reason}; skipped"),
            ));
            done.reasons.add(&reason, n, false);
        }
    }
}

/// The lines of a block (split at `\n`, as `split` would: a final newline yields one empty
/// line), found with memchr rather than byte by byte.
pub(super) fn lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
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

/// Where to cut a block so that no CRI line is split between two blocks: before the run of
/// `P` records at its end (0 when the whole block is one).
fn cut_before_partials(block: &[u8], cut: usize, wrapper: Option<wrap::Wrapper>) -> usize {
    let Some(w) = wrapper.filter(|w| *w == wrap::Wrapper::Cri) else {
        return cut;
    };
    let mut cut = cut;
    while cut > 0 {
        let start = memchr::memrchr(b'\n', &block[..cut - 1]).map_or(0, |i| i + 1);
        let line = &block[start..cut - 1];
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if !w.is_partial(line) {
            break;
        }
        cut = start;
    }
    cut
}

/// The reader side: cut the input into blocks of whole lines (a W3C `#Fields:` directive
/// also cuts, and changes the layout for what follows). Returns a read error, if any.
fn produce(
    input: &mut dyn BufRead,
    mut reader: Arc<Reader>,
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
        match fill_block(input, &mut block, &mut skipping_long, &mut line_no) {
            Ok(end) => eof = end,
            Err(e) => {
                error = Some(e);
                eof = true;
            }
        }
        let last_newline = if eof {
            Some(block.len())
        } else {
            memchr::memrchr(b'\n', &block)
                .map(|i| cut_before_partials(&block, i + 1, reader.wrapper))
                .filter(|c| *c > 0)
        };
        let Some(cut) = last_newline else {
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
        };
        carry.extend_from_slice(&block[cut..]);
        block.truncate(cut);
        let lines = memchr::memchr_iter(b'\n', &block).count();
        if reader.first.is_stateful() && block.contains(&b'#') {
            reader = feed_directives(block, reader, line_no, source, feed);
        } else {
            feed(Job::Lines {
                reader: reader.clone(),
                text: block,
                first_line: line_no,
            });
        }
        line_no += lines;
    }
    error
}

/// Fill `block` from `input` up to [`BLOCK_BYTES`], skipping the rest of an over-long line
/// first (`skipping_long`); `Ok(true)` at the end of the input.
fn fill_block(
    input: &mut dyn BufRead,
    block: &mut Vec<u8>,
    skipping_long: &mut bool,
    line_no: &mut usize,
) -> Result<bool, String> {
    while block.len() < BLOCK_BYTES {
        let buf = input
            .fill_buf()
            .map_err(|e| format!("read error after line {line_no}: {e}"))?;
        if buf.is_empty() {
            return Ok(true);
        }
        let n = buf.len();
        if *skipping_long {
            match memchr::memchr(b'\n', buf) {
                Some(i) => {
                    input.consume(i + 1);
                    *skipping_long = false;
                    *line_no += 1;
                }
                None => input.consume(n),
            }
            continue;
        }
        block.extend_from_slice(buf);
        input.consume(n);
    }
    Ok(false)
}

/// A W3C block cut at its `#Fields:` directives, each part read with the fields in effect;
/// returns the reader for the lines after the block.
fn feed_directives(
    block: Vec<u8>,
    mut reader: Arc<Reader>,
    line_no: usize,
    source: &Arc<str>,
    feed: &mut dyn FnMut(Job),
) -> Arc<Reader> {
    let mut start = 0;
    let mut ln = line_no;
    let mut pos = 0;
    while pos < block.len() {
        let end = memchr::memchr(b'\n', &block[pos..])
            .map(|i| pos + i + 1)
            .unwrap_or(block.len());
        if block[pos] == b'#' {
            let text = String::from_utf8_lossy(&block[pos..end]);
            if let Some(next) = reader.first.directive(text.trim_end()) {
                feed(Job::Lines {
                    reader: reader.clone(),
                    text: block[start..pos].to_vec(),
                    first_line: ln,
                });
                ln += memchr::memchr_iter(b'\n', &block[start..end]).count();
                start = end;
                match next {
                    Ok(p) => reader = Arc::new(reader.after_directive(p)),
                    Err(e) => feed(Job::Note(
                        warn(
                            source,
                            Some(Position::Line(ln - 1)),
                            format!(
                                "#Fields: directive not read ({e}); the previous fields stay in effect"
                            ),
                        ),
                        0,
                    )),
                }
            }
        }
        pos = end;
    }
    feed(Job::Lines {
        reader: reader.clone(),
        text: block[start..].to_vec(),
        first_line: ln,
    });
    reader
}

/// How to read `prefix`'s input: `--log-format` when it is forced or fits, else sniffed.
fn choose(prefix: &[u8], opts: &Options, format: Format) -> Result<Reader, SourceError> {
    if let Some(f) = &opts.log_format {
        if let Some(wrapper) = sniff::custom_fit(prefix, f) {
            return Ok(Reader::custom(f.clone(), wrapper));
        }
        if opts.format.is_some() {
            return Ok(Reader::custom(f.clone(), None));
        }
    }
    sniff::sniff_reader(prefix, Some(format))
}

/// Stream an access log with a known format family (`--input-format`, or sniffed): the reader
/// thread cuts blocks of lines, workers parse, normalize, redact and `map` them.
pub(crate) fn stream<T: Send>(
    mut input: Box<dyn BufRead + Send>,
    source: &Arc<str>,
    opts: &Options,
    format: Format,
    map: &(dyn Fn(Request) -> T + Sync),
    view: Option<ViewMap<'_, T>>,
    sink: &mut dyn FnMut(&mut Done<T>),
) -> Tail {
    let prefix = match input.fill_buf() {
        Ok(b) => b.to_vec(),
        Err(e) => {
            return Tail {
                error: Some(format!("cannot read: {e}")),
                ..Tail::default()
            }
        }
    };
    let reader = match choose(&prefix, opts, format) {
        Ok(r) => r,
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
    };
    if let super::Kind::Text { format: f, .. } = &reader.first.kind {
        if !f.has_time() && reader.wrapper.is_none() {
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
    let creator = Some(reader.first.label.clone());
    let unwrapped = reader.wrapper.map(|w| w.label().to_string());
    let reader = Arc::new(reader);
    let pool = BlockPool::default();
    let error = pipeline::run(
        pipeline::workers(opts.threads),
        |feed| produce(&mut *input, reader, source, opts.first_line(), &pool, feed),
        &|job, items| work(job, items, source, opts, map, view, &pool),
        sink,
    );
    Tail {
        creator,
        unwrapped,
        error,
        ..Tail::default()
    }
}

/// Read a whole access log into a `Vec` (tests, and callers holding an open reader).
pub fn read(
    input: Box<dyn BufRead + Send>,
    source: &Arc<str>,
    opts: &Options,
    format: Format,
) -> ReadOutcome {
    super::super::collect(format, |take| {
        stream(input, source, opts, format, &|r| r, None, take)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_not_cut_inside_a_cri_line() {
        let text = b"2024-01-01T00:00:00Z stdout F a\n2024-01-01T00:00:00Z stdout P b\n2024-01-01T00:00:00Z stdout P c\n";
        let w = Some(wrap::Wrapper::Cri);
        let first_end = text.iter().position(|&c| c == b'\n').unwrap() + 1;
        assert_eq!(cut_before_partials(text, text.len(), w), first_end);
        assert_eq!(cut_before_partials(text, text.len(), None), text.len());
        assert_eq!(
            cut_before_partials(&text[first_end..], text.len() - first_end, w),
            0
        );
    }
}
