//! `toomany redact IN -o OUT`: a sanitized copy that keeps everything else, exporter `_fields`
//! included. Entries are handled as untyped JSON and only what the policy names is rewritten;
//! the copy streams (`redact::stream`), so memory follows one batch of entries, not the file.

use super::{ingest_options, Error, Outcome};
use crate::cli::RedactArgs;
use crate::ingest::{source, Format};
use crate::output;
use crate::redact::parse::Limits;
use crate::redact::stream::{Copied, CopyError};
use crate::redact::Redactor;
use std::io::{BufRead, Write};
use std::path::Path;

pub fn run(args: RedactArgs, ui: crate::console::Notices) -> Outcome {
    let opts = ingest_options(&args.input_args, ui)?;
    // Checked before reading: never the input, a device or FIFO replaced, an existing file only
    // with --force (see `output`).
    let out_file = if output::is_stdout(Path::new(&args.output)) {
        None
    } else {
        let inputs = [args.input.clone()];
        let rules = output::Rules {
            flag: "-o",
            inputs: &inputs,
            force: args.force,
        };
        Some(output::prepare(Path::new(&args.output), &rules).map_err(Error::fatal)?)
    };
    let opened =
        source::open(&args.input).map_err(|e| Error::fatal(format!("{}: {e}", args.input)))?;
    let (format, jsonp) = copy_format(&args.input, opts.format, opened.sniff(&args.input))?;
    let reader = opened.into_reader();
    let r = &opts.redactor;
    let gzip_out = args.output.to_ascii_lowercase().ends_with(".gz");
    // The copy is written as it is read. To a file it goes through a temp file that only an
    // error-free copy renames into place; to stdout the first MiB is held back, so an input
    // refused early (a pretty-printed document given as JSON lines) writes nothing at all.
    let copy = |out: &mut dyn Write| -> Result<Copied, CopyError> {
        if gzip_out {
            let mut enc = flate2::write::GzEncoder::new(out, flate2::Compression::default());
            let c = copy_into(r, format, jsonp, reader, &mut enc)?;
            enc.finish()?;
            Ok(c)
        } else {
            copy_into(r, format, jsonp, reader, out)
        }
    };
    let failed = |e: CopyError| {
        let what = match &e {
            CopyError::Fragment(_) => {
                format!("{e}; refusing to copy it as text (is this a HAR? drop --input-format)")
            }
            e => e.to_string(),
        };
        Error::fatal(format!("{}: {what}", args.input))
    };
    let copied = match &out_file {
        None => match to_stdout(copy, failed)? {
            Some(c) => c,
            // `| head`: the reader stopped listening, which is success.
            None => return Ok(0),
        },
        Some(f) => {
            let (c, bytes) = to_file(f, copy, failed, &args.output)?;
            ui.note(format_args!("wrote {} ({bytes} bytes)", args.output));
            c
        }
    };
    for w in copy_warnings(&copied) {
        ui.warn(format_args!("{}: {w}", args.input));
    }
    Ok(0)
}

/// The format the copy is made in, and whether the HAR is wrapped in JSONP: the sniffed one,
/// or the forced one when the content does not contradict it. Only HAR and JSON lines are
/// copied.
fn copy_format(
    input: &str,
    forced: Option<Format>,
    sniffed: Result<source::Sniffed, crate::ingest::error::SourceError>,
) -> Result<(Format, bool), Error> {
    let (format, jsonp) = match (forced, sniffed) {
        // A HAR copied line by line as text, or JSON lines parsed as one document, would not be
        // a sanitized copy: a forced format the content contradicts is refused.
        (Some(f), Ok(s)) if family(f) != family(s.format) => {
            return Err(Error::fatal(format!(
                "{}: --input-format {} but the content is {}; refusing to write a copy that \
                 could not be sanitized (drop --input-format)",
                input,
                f.as_str(),
                describe(s.format)
            )))
        }
        (Some(f), Ok(s)) => (f, s.jsonp),
        (Some(f), Err(_)) => (f, false),
        (None, Ok(s)) => (s.format, s.jsonp),
        (None, Err(e)) => return Err(Error::fatal(format!("{input}: {e}"))),
    };
    if !(format == Format::Har || is_json_lines(format)) {
        // Positional text logs hold secrets in unnamed fields (a logged API-key header):
        // only a reader that knows the layout could find them, so no copy is written.
        let what = if format.is_trace() {
            "trace export"
        } else {
            "access log"
        };
        return Err(Error::fatal(format!(
            "{}: a {} {what}; `redact` writes sanitized HAR and JSON-lines files only (analyze reads {what}s and redacts them on ingestion)",
            input,
            format.as_str()
        )));
    }
    Ok((format, jsonp))
}

/// The copy to stdout, its first MiB held back; `None` when the reader stopped listening.
fn to_stdout(
    copy: impl FnOnce(&mut dyn Write) -> Result<Copied, CopyError>,
    failed: impl FnOnce(CopyError) -> Error,
) -> Result<Option<Copied>, Error> {
    let mut held = HeldBack::new(std::io::stdout().lock());
    let res = copy(&mut held).and_then(|c| held.finish().map(|_| c).map_err(CopyError::Write));
    match res {
        Ok(c) => Ok(Some(c)),
        Err(CopyError::Write(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(None),
        Err(e) => {
            let written = held.written;
            let mut err = failed(e);
            if written > 0 {
                err.message
                    .push_str(&format!(" (stdout is incomplete: {written} bytes written)"));
            } else {
                err.message.push_str("; nothing written");
            }
            Err(err)
        }
    }
}

/// The copy to a file, renamed into place only when it is whole; with the bytes written.
fn to_file(
    f: &output::OutputFile,
    copy: impl FnOnce(&mut dyn Write) -> Result<Copied, CopyError>,
    failed: impl FnOnce(CopyError) -> Error,
    shown: &str,
) -> Result<(Copied, u64), Error> {
    let mut outcome = None;
    let wrote = f.write_with(|w| {
        let mut counted = Counted { inner: w, bytes: 0 };
        let res = copy(&mut counted).map(|c| (c, counted.bytes));
        let ok = res.is_ok();
        outcome = Some(res);
        if ok {
            Ok(())
        } else {
            Err(std::io::Error::other("copy failed"))
        }
    });
    match (outcome, wrote) {
        (Some(Ok(done)), Ok(())) => Ok(done),
        (Some(Err(e)), _) => {
            let mut err = failed(e);
            err.message.push_str(&format!("; {shown} not written"));
            Err(err)
        }
        (_, Err(e)) => Err(Error::fatal(e)),
        (None, Ok(())) => Err(Error::fatal("internal: copy did not run")),
    }
}

/// One sanitized copy of `reader` into `out`.
fn copy_into(
    r: &Redactor,
    format: Format,
    jsonp: bool,
    reader: Box<dyn BufRead + Send>,
    out: &mut dyn Write,
) -> Result<Copied, CopyError> {
    if format == Format::Har {
        r.copy_har(reader, jsonp, out)
    } else {
        r.copy_lines(reader, out)
    }
}

/// What the copy had to do beyond replacing values.
fn copy_warnings(c: &Copied) -> Vec<String> {
    let mut w = Vec::new();
    if c.dropped_bodies > 0 {
        w.push(format!(
            "{} base64 bod{} dropped: binary or not base64, with what looks like a secret \
             inside (marked in the body's comment)",
            c.dropped_bodies,
            if c.dropped_bodies == 1 { "y" } else { "ies" }
        ));
    }
    if c.cut_strings > 0 {
        let at = c
            .first_cut
            .map(|(line, byte)| format!(", the first at line {line}, byte {byte}"))
            .unwrap_or_default();
        w.push(format!(
            "{} string value(s) longer than {} MiB dropped (written as \"\"{at})",
            c.cut_strings,
            Limits::default().string_cap >> 20
        ));
    }
    if c.cut_lines > 0 {
        w.push(format!(
            "{} line(s) longer than {} MiB dropped (an empty line stands in place of each)",
            c.cut_lines,
            crate::redact::stream::LINE_CAP >> 20
        ));
    }
    if c.text_line_count > 0 {
        let lines: Vec<String> = c.text_lines.iter().map(u64::to_string).collect();
        let more = if c.text_line_count > c.text_lines.len() as u64 {
            ", …"
        } else {
            ""
        };
        w.push(format!(
            "{} line(s) not JSON, redacted as plain text (line {}{more})",
            c.text_line_count,
            lines.join(", ")
        ));
    }
    w
}

/// Holds back the first MiB written, then passes everything through; dropping it without
/// [`finish`](HeldBack::finish) discards whatever is still held.
struct HeldBack<W: Write> {
    inner: W,
    held: Vec<u8>,
    passing: bool,
    written: u64,
}

const HOLD: usize = 1 << 20;

impl<W: Write> HeldBack<W> {
    fn new(inner: W) -> Self {
        HeldBack {
            inner,
            held: Vec::new(),
            passing: false,
            written: 0,
        }
    }

    fn release(&mut self) -> std::io::Result<()> {
        self.inner.write_all(&self.held)?;
        self.written += self.held.len() as u64;
        self.held.clear();
        Ok(())
    }

    fn finish(&mut self) -> std::io::Result<()> {
        self.release()?;
        self.inner.flush()
    }
}

impl<W: Write> Write for HeldBack<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.held.extend_from_slice(buf);
        if self.held.len() >= HOLD {
            self.passing = true;
        }
        if self.passing && self.held.len() >= 64 * 1024 {
            self.release()?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Counts what passes through (for the "wrote N bytes" line).
struct Counted<'a> {
    inner: &'a mut dyn Write,
    bytes: u64,
}

impl Write for Counted<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// JSON lines, whatever service wrote them (one JSON object per line).
fn is_json_lines(f: Format) -> bool {
    matches!(
        f,
        Format::Jsonl
            | Format::Cloudflare
            | Format::Kong
            | Format::Traefik
            | Format::Caddy
            | Format::GcpLb
    )
}

/// How a copy is made: one JSON document, JSON lines, or not at all (text logs).
fn family(f: Format) -> u8 {
    match f {
        Format::Har => 0,
        f if is_json_lines(f) => 1,
        f if f.is_trace() => 3,
        _ => 2,
    }
}

fn describe(f: Format) -> &'static str {
    match family(f) {
        0 => "a HAR document",
        1 => "JSON lines",
        3 => "a trace export",
        _ => "a text access log",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_back_output_is_discarded_on_error_and_passed_on_success() {
        let mut sink = Vec::new();
        {
            let mut h = HeldBack::new(&mut sink);
            h.write_all(b"partial").unwrap();
        }
        assert!(sink.is_empty(), "dropped without finish: nothing written");
        let mut h = HeldBack::new(&mut sink);
        h.write_all(&vec![b'x'; HOLD + 10]).unwrap();
        h.write_all(&vec![b'y'; 70 * 1024]).unwrap();
        assert!(h.written > 0, "past the hold it streams");
        h.finish().unwrap();
        assert_eq!(sink.len(), HOLD + 10 + 70 * 1024);
    }
}
