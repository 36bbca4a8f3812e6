//! Opening inputs (path or `-`), gzip by magic bytes, BOM skipping and format sniffing.

use super::error::SourceError;
use super::Format;
use flate2::read::MultiGzDecoder;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Cursor, Read};

/// How many bytes are read up front to decide the format.
const SNIFF_BYTES: usize = 64 * 1024;

/// An opened input with its first bytes already read (decompressed, BOM removed).
pub struct Opened {
    pub prefix: Vec<u8>,
    /// How many gzip layers were taken off (0: the file is not gzip; 2: a `.gz.gz`).
    pub gzip_layers: u8,
    /// A regular file's size when it was opened, to tell one truncated while it is read.
    pub watch: Option<SizeWatch>,
    rest: Box<dyn Read + Send>,
}

/// A regular file's size when it was opened, and a handle on the same file to ask again when
/// reading ends: a file truncated meanwhile (log rotation by copy-and-truncate, a file
/// overwritten) ends reading early, and a reader alone cannot tell that end from the real one.
pub struct SizeWatch {
    file: File,
    at_open: u64,
}

impl SizeWatch {
    fn of(file: &File) -> Option<SizeWatch> {
        let md = file.metadata().ok().filter(|m| m.is_file())?;
        Some(SizeWatch {
            file: file.try_clone().ok()?,
            at_open: md.len(),
        })
    }

    /// `(size when opened, size now)` when the file is shorter now.
    pub fn shrank(&self) -> Option<(u64, u64)> {
        let now = self.file.metadata().ok()?.len();
        (now < self.at_open).then_some((self.at_open, now))
    }
}

impl Opened {
    /// [`sniff`] of this input (knowing whether it was gzip, for the message on binary data).
    pub fn sniff(&self, path: &str) -> Result<Sniffed, SourceError> {
        sniff_with(&self.prefix, path, self.gzip_layers)
    }
}

impl Opened {
    /// Bytes already in memory (a followed file's new lines), all of them the prefix.
    pub fn from_bytes(bytes: Vec<u8>) -> Opened {
        Opened {
            prefix: bytes,
            gzip_layers: 0,
            watch: None,
            rest: Box::new(io::empty()),
        }
    }

    /// An unbuffered reader over the whole (decompressed) content, prefix included, for
    /// consumers with a buffer of their own (the JSON scanner).
    pub fn into_plain_reader(self) -> Box<dyn Read + Send> {
        Box::new(Cursor::new(self.prefix).chain(self.rest))
    }

    /// A reader over the whole (decompressed) content, prefix included.
    pub fn into_reader(self) -> Box<dyn BufRead + Send> {
        Box::new(BufReader::with_capacity(
            256 * 1024,
            Cursor::new(self.prefix).chain(self.rest),
        ))
    }
}

pub use super::repeats::{distinct_inputs, Repeat};

fn read_prefix(r: &mut dyn Read, n: usize) -> io::Result<Vec<u8>> {
    let mut buf = Vec::with_capacity(n.min(SNIFF_BYTES));
    r.take(n as u64).read_to_end(&mut buf)?;
    Ok(buf)
}

/// Counts the bytes read from the underlying input (before decompression).
struct Counted {
    inner: Box<dyn Read + Send>,
    on_read: Box<dyn FnMut(u64) + Send>,
}

impl Read for Counted {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        (self.on_read)(n as u64);
        Ok(n)
    }
}

/// A reader that stays at its end once it reached it. Sniffing reads a prefix to its end before
/// the reader reads the rest: on a terminal each read after the end waits for another Ctrl-D,
/// so stdin is read to its end once.
struct ToEof<R> {
    inner: R,
    ended: bool,
}

impl<R> ToEof<R> {
    fn new(inner: R) -> Self {
        ToEof {
            inner,
            ended: false,
        }
    }
}

impl<R: Read> Read for ToEof<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.ended || buf.is_empty() {
            return Ok(0);
        }
        let n = self.inner.read(buf)?;
        self.ended = n == 0;
        Ok(n)
    }
}

/// Open `path` (`-` = stdin), transparently gunzipping, and read the sniffing prefix.
pub fn open(path: &str) -> Result<Opened, SourceError> {
    open_counted(path, None)
}

/// [`open`], calling `on_read` with the number of raw bytes each read returns.
pub fn open_counted(
    path: &str,
    on_read: Option<Box<dyn FnMut(u64) + Send>>,
) -> Result<Opened, SourceError> {
    let mut watch = None;
    let raw: Box<dyn Read + Send> = if path == "-" {
        Box::new(ToEof::new(io::stdin()))
    } else {
        match File::open(path) {
            Ok(f) => {
                if f.metadata().map(|m| m.is_dir()).unwrap_or(false) {
                    return Err(SourceError::Directory);
                }
                watch = SizeWatch::of(&f);
                Box::new(f)
            }
            Err(e) => return Err(SourceError::Open(e)),
        }
    };
    let raw: Box<dyn Read + Send> = match on_read {
        Some(on_read) => Box::new(Counted {
            inner: raw,
            on_read,
        }),
        None => raw,
    };
    // A gzip inside a gzip (`.gz.gz`, a shipper that compresses what it is given) is taken
    // apart too, so a real gzip file is always read as one.
    let mut reader = raw;
    let mut gzip_layers = 0u8;
    loop {
        let magic = read_prefix(&mut reader, 2).map_err(|e| match gzip_layers {
            0 => SourceError::Read(e),
            _ => SourceError::ReadDecompressed(e),
        })?;
        let gzip = magic == GZIP_MAGIC && gzip_layers < MAX_GZIP_LAYERS;
        let again = Cursor::new(magic).chain(reader);
        if !gzip {
            reader = Box::new(again);
            break;
        }
        reader = Box::new(MultiGzDecoder::new(again));
        gzip_layers += 1;
    }
    let mut prefix =
        read_prefix(&mut reader, SNIFF_BYTES).map_err(SourceError::ReadDecompressed)?;
    if prefix.starts_with(&[0xEF, 0xBB, 0xBF]) {
        prefix.drain(..3);
    }
    Ok(Opened {
        prefix,
        gzip_layers,
        watch,
        rest: reader,
    })
}

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
/// Gzip layers taken off at most (a third would be a gzip bomb's shape, not a log's).
const MAX_GZIP_LAYERS: u8 = 2;

/// What sniffing decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sniffed {
    pub format: Format,
    /// The HAR is wrapped in a JSONP/HARP callback: `onInputData({...});`.
    pub jsonp: bool,
}

/// Decide the format from content first, the file extension only as a tie-breaker (an input
/// that was not gzip; [`Opened::sniff`] knows).
pub fn sniff(prefix: &[u8], path: &str) -> Result<Sniffed, SourceError> {
    sniff_with(prefix, path, 0)
}

/// [`sniff`] of an input that had `gzip_layers` of gzip taken off.
///
/// One document (a HAR, pretty or minified; a JSONP-wrapped HAR) is told by how it starts.
/// Line formats are told by a [`Sample`] of the first lines, not by the first line alone, so a
/// damaged first line (a changed byte, invalid UTF-8, a NUL, a record cut by `tail -c`) does not
/// decide: JSON lines are chosen when most sampled lines are JSON records, an access log when
/// its layout reads most of them ([`access_log`]); the readers then skip the bad line with a
/// located warning.
pub fn sniff_with(prefix: &[u8], path: &str, gzip_layers: u8) -> Result<Sniffed, SourceError> {
    let sample = Sample::of(prefix);
    if sample.is_empty() {
        return Err(SourceError::Empty);
    }
    if sample.binary() {
        return Err(SourceError::Binary { gzip_layers });
    }
    let text = String::from_utf8_lossy(prefix);
    let trimmed = text.trim_start();
    if let Some(doc) = one_document(trimmed) {
        return Ok(doc);
    }
    // A trace export, pretty or one batch per line, by the key that opens it.
    if let Some(format) = trimmed
        .strip_prefix('{')
        .and_then(|after| trace_export(after.trim_start()))
    {
        return Ok(Sniffed {
            format,
            jsonp: false,
        });
    }
    let records = sample.count(is_json_record);
    // OTLP JSON logs (the collector's file exporter): one export per line, maybe longer
    // than the sample.
    if super::access::opens_otlp_logs(trimmed) {
        return Ok(json_lines(&sample, prefix));
    }
    let first = sample.first_line();
    if records > 0 && records * 2 >= sample.len() {
        return Ok(json_lines(&sample, prefix));
    }
    match first.as_bytes().first() {
        Some(b'{') if opens_a_document(&sample) => {
            let ext_jsonl = [
                ".jsonl",
                ".ndjson",
                ".jsonl.gz",
                ".ndjson.gz",
                ".log",
                ".log.gz",
            ]
            .iter()
            .any(|e| path.to_ascii_lowercase().ends_with(e));
            let format = if ext_jsonl {
                Format::Jsonl
            } else {
                Format::Har
            };
            return Ok(Sniffed {
                format,
                jsonp: false,
            });
        }
        Some(b'[') => {
            // Envoy's default text starts `[2016-04-15T...`; a Kong http-log batch is an array
            // per line.
            if let Some(format) = super::access::sniff_json(first) {
                return Ok(Sniffed {
                    format,
                    jsonp: false,
                });
            }
            let after = first[1..].trim_start();
            let array = after.is_empty()
                || after.starts_with('{')
                || after.starts_with(']')
                || after.starts_with('"');
            if array && records == 0 {
                return Err(SourceError::JsonArray);
            }
        }
        _ => {}
    }
    // Lines that start like JSON records, damaged or cut, are still JSON lines.
    let braced = sample.count(|l| l.trim_start().starts_with('{'));
    match access_log(prefix) {
        Ok(s) => Ok(s),
        // Some lines are JSON records (or most start like one) and no access-log layout reads
        // more: JSON lines, whose reader names every line it cannot read.
        Err(_) if records > 0 || braced * 2 >= sample.len() => Ok(json_lines(&sample, prefix)),
        Err(e) => Err(e),
    }
}

/// The message for an input that is binary data, saying whether it was gzip.
pub fn binary_message(gzip_layers: u8) -> String {
    SourceError::Binary { gzip_layers }.to_string()
}

/// One JSON document, told by how it starts: `{"log"` (a HAR, pretty or minified) or a
/// JSONP/HARP callback `onInputData({...});`.
fn one_document(trimmed: &str) -> Option<Sniffed> {
    let b = trimmed.as_bytes();
    // `{"log": {` is a HAR; `{"log": "` is Docker's json-file driver.
    let log_object = b.first() == Some(&b'{')
        && trimmed[1..]
            .trim_start()
            .strip_prefix("\"log\"")
            .map(|r| r.trim_start().trim_start_matches(':').trim_start())
            .is_some_and(|r| !r.starts_with('"'));
    if log_object {
        return Some(Sniffed {
            format: Format::Har,
            jsonp: false,
        });
    }
    if b.first()
        .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_' || *c == b'$')
    {
        let ident_end = trimmed
            .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_' || ch == '$' || ch == '.'))
            .unwrap_or(trimmed.len());
        if trimmed[ident_end..].trim_start().starts_with('(') {
            return Some(Sniffed {
                format: Format::Har,
                jsonp: true,
            });
        }
    }
    None
}

/// JSON lines, or the JSON access log whose vendor the first record's keys name (Cloudflare,
/// Kong, ...), or a one-line (minified) HAR whose `log` is not its first key.
fn json_lines(sample: &Sample<'_>, prefix: &[u8]) -> Sniffed {
    let first_record = sample.lines().find(|l| is_json_record(l)).unwrap_or("");
    // Access logs in JSON: the vendor's keys say which (Cloudflare, Kong, ...), or nginx's
    // variable names, or a wrapper holding access-log lines (Docker json-file, a log shipper,
    // journald), judged on the first lines.
    // Not when most records are of layouts no access log writes (JSON lines mixing layouts).
    let vendor = super::access::sniff_json(first_record)
        .filter(|_| super::access::json_layouts_read_most(prefix));
    if let Some(format) = vendor.or_else(|| super::access::sniff_json_lines(prefix)) {
        return Sniffed {
            format,
            jsonp: false,
        };
    }
    let looks_har = sample.len() == 1
        && first_record.contains("\"entries\"")
        && first_record.contains("\"log\"");
    Sniffed {
        format: if looks_har {
            Format::Har
        } else {
            Format::Jsonl
        },
        jsonp: false,
    }
}

/// A JSON record on one line: an object with at least one member (`{}` says nothing of a
/// record), or an array of the records of a vendor that writes them so (a Kong http-log batch).
fn is_json_record(line: &str) -> bool {
    match serde_json::from_str::<serde_json::Value>(line) {
        Ok(serde_json::Value::Object(o)) => !o.is_empty(),
        Ok(serde_json::Value::Array(a)) => {
            !a.is_empty() && super::access::sniff_json(line).is_some()
        }
        _ => false,
    }
}

/// Does the sample start a JSON document written over several lines (`{` alone, or a first
/// line that opens a container, or lines after it that are a pretty-printer's `"key": …`)?
/// A one-line record that is damaged starts with `{` too, but is followed by records.
fn opens_a_document(sample: &Sample<'_>) -> bool {
    let mut lines = sample.lines();
    let first = lines.next().unwrap_or("").trim_end();
    if first == "{" || first.ends_with(['{', '[', ',', ':']) {
        return true;
    }
    match lines.next() {
        Some(next) => {
            let next = next.trim_start();
            next.starts_with('"') || next.starts_with('}') || next.starts_with(']')
        }
        None => true,
    }
}

/// Whole lines sniffing weighs (the rest of the prefix is read by the reader as usual).
const SAMPLE_LINES: usize = 64;

/// The first non-blank lines of an input's prefix, for weighing line formats against each
/// other: each format counts the lines it reads ([`Sample::count`]) and the one reading most
/// wins. A line cut by the end of the prefix is left out unless it is the only one (a
/// minified HAR, a long first record).
pub struct Sample<'a> {
    /// Each line's bytes (without its `\r\n`/`\n`) and whether it is text: UTF-8 without NUL
    /// (a cut line's incomplete last character does not count against it).
    lines: Vec<(&'a [u8], bool)>,
}

impl<'a> Sample<'a> {
    pub fn of(prefix: &'a [u8]) -> Sample<'a> {
        let complete = prefix.last() == Some(&b'\n') || prefix.len() < SNIFF_BYTES;
        let mut pieces: Vec<&[u8]> = prefix.split(|&b| b == b'\n').collect();
        let cut = if complete { None } else { pieces.pop() };
        let mut lines: Vec<(&[u8], bool)> = pieces
            .into_iter()
            .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
            .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
            .take(SAMPLE_LINES)
            .map(|l| (l, is_text(l, false)))
            .collect();
        if lines.is_empty() {
            if let Some(l) = cut.filter(|l| !l.iter().all(u8::is_ascii_whitespace)) {
                lines.push((l, is_text(l, true)));
            }
        }
        Sample { lines }
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Binary data: most sampled lines (or the only one) are not text. One damaged line among
    /// text lines is a damaged line, not binary data.
    pub fn binary(&self) -> bool {
        let bad = self.lines.iter().filter(|(_, text)| !text).count();
        bad * 2 > self.lines.len()
    }

    /// The text lines, in order (lines that are not text are left out).
    pub fn lines(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.lines
            .iter()
            .filter(|(_, text)| *text)
            .filter_map(|(l, _)| std::str::from_utf8(l).ok())
            .map(|l| l.trim_start_matches('\u{feff}'))
    }

    /// The first text line, trimmed at its start.
    pub fn first_line(&self) -> &'a str {
        self.lines().next().map(str::trim_start).unwrap_or("")
    }

    /// How many sampled lines `reads` accepts (a line that is not text is read by none).
    pub fn count(&self, reads: impl Fn(&str) -> bool) -> usize {
        self.lines().filter(|l| reads(l)).count()
    }
}

/// Text: no NUL byte, and UTF-8 but for a few stray bytes (at most 8, or 1 % of the line: a
/// damaged character is a damaged line, which its reader reports; binary data has many).
/// `cut`: the line was cut by the end of the prefix, so an incomplete last character is not
/// counted.
fn is_text(line: &[u8], cut: bool) -> bool {
    if memchr::memchr(0, line).is_some() {
        return false;
    }
    let allowed = (line.len() / 100).max(8);
    let mut bad = 0;
    let mut rest = line;
    while let Err(e) = std::str::from_utf8(rest) {
        match e.error_len() {
            Some(n) => {
                bad += 1;
                if bad > allowed {
                    return false;
                }
                rest = &rest[e.valid_up_to() + n..];
            }
            None => return cut || bad < allowed,
        }
    }
    true
}

/// A trace export, from the key that opens its first object (`after` follows the `{`): OTLP's
/// `resourceSpans`, or Jaeger's `data` holding objects with `traceID` and `spans`.
fn trace_export(after: &str) -> Option<Format> {
    if after.starts_with("\"resourceSpans\"") || after.starts_with("\"resource_spans\"") {
        return Some(Format::Otlp);
    }
    let rest = after.strip_prefix("\"data\"")?.trim_start();
    let rest = rest.strip_prefix(':')?.trim_start().strip_prefix('[')?;
    let rest = rest.trim_start();
    let jaeger = rest.starts_with(']')
        || (rest.starts_with('{') && rest.contains("\"traceID\"") && rest.contains("\"spans\""));
    jaeger.then_some(Format::Jaeger)
}

/// An access log (nginx, Envoy, ALB, W3C, HAProxy, JSON with a syslog prefix ...), or an
/// error that says which formats were tried.
fn access_log(prefix: &[u8]) -> Result<Sniffed, SourceError> {
    super::access::sniff_text(prefix).map(|format| Sniffed {
        format,
        jsonp: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A terminal's reads: a line, an end (Ctrl-D), then more if asked again.
    struct Terminal(Vec<&'static [u8]>);

    impl Read for Terminal {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let Some(next) = self.0.first().copied() else {
                panic!("read again after the end: a second Ctrl-D would be needed");
            };
            self.0.remove(0);
            buf[..next.len()].copy_from_slice(next);
            Ok(next.len())
        }
    }

    #[test]
    fn stdin_is_read_to_its_end_once() {
        let mut r = ToEof::new(Terminal(vec![b"line\n", b""]));
        let mut all = Vec::new();
        r.read_to_end(&mut all).unwrap();
        assert_eq!(all, b"line\n");
        // Sniffing and the reader both asked after the end: no further read of the terminal.
        assert_eq!(r.read(&mut [0u8; 8]).unwrap(), 0);
        assert_eq!(r.read(&mut [0u8; 8]).unwrap(), 0);
    }

    /// JSON lines mixing layouts, some of them nginx `escape=json` records: JSON lines (the
    /// JSON-lines reader reads every layout), not an nginx log that skips the rest; a file of
    /// nginx records alone is nginx's.
    #[test]
    fn mixed_json_lines_with_some_nginx_records_are_json_lines() {
        let gateway = r#"{"time":"2024-05-01T00:00:00Z","method":"GET","url":"https://api.example.com/v1/a","status":200,"client":"c1","response_headers":{"X-Request-Id":"1"}}"#;
        let ecs = r#"{"@timestamp":"2024-05-01T00:00:01Z","url":{"full":"https://api.example.com/v1/b"},"http":{"request":{"method":"GET"},"response":{"status_code":429}}}"#;
        let nginx = r#"{"ts":1714521602.5,"remote_addr":"10.0.0.1","host":"api.example.com","request_method":"GET","request_uri":"/v1/c","status":"200","request_time":"0.010","body_bytes_sent":"12","http_user_agent":"curl/8"}"#;
        let mut mixed = String::new();
        for i in 0..30 {
            let line = match i % 5 {
                0 => nginx,
                1 | 2 => ecs,
                _ => gateway,
            };
            mixed.push_str(line);
            mixed.push('\n');
        }
        assert_eq!(
            sniff(mixed.as_bytes(), "x.jsonl").unwrap().format,
            Format::Jsonl
        );
        let nginx_only = format!("{nginx}\n").repeat(30);
        assert_ne!(
            sniff(nginx_only.as_bytes(), "x.jsonl").unwrap().format,
            Format::Jsonl
        );
        // Starting with an nginx record decides nothing either.
        let nginx_first = format!("{nginx}\n{mixed}");
        assert_eq!(
            sniff(nginx_first.as_bytes(), "x.jsonl").unwrap().format,
            Format::Jsonl
        );
    }

    #[test]
    fn sniffs() {
        assert_eq!(
            sniff(br#"{"log":{"entries":[]}}"#, "x").unwrap().format,
            Format::Har
        );
        assert_eq!(sniff(b"{\n  \"log\": {", "x").unwrap().format, Format::Har);
        assert_eq!(
            sniff(b"{\"time\":1,\"status\":429}\n{\"time\":2}", "x.har")
                .unwrap()
                .format,
            Format::Jsonl
        );
        assert!(sniff(b"onInputData({\"log\":{}});", "x").unwrap().jsonp);
        assert!(sniff(b"", "x").unwrap_err().to_string().contains("empty"));
        assert!(sniff(b"   \n", "x")
            .unwrap_err()
            .to_string()
            .contains("empty"));
        assert!(sniff(b"\x00\x01\x02junk", "x")
            .unwrap_err()
            .to_string()
            .contains("binary"));
        assert!(sniff(b"[{\"a\":1}]", "x")
            .unwrap_err()
            .to_string()
            .contains("array"));
        assert_eq!(sniff(b"{}\n", "x").unwrap().format, Format::Har);
        assert!(sniff(b"hello world\nthis is prose\n", "x")
            .unwrap_err()
            .to_string()
            .contains("--log-format"));
        assert_eq!(
            sniff(b"{\"resourceSpans\":[{\"resource\":{}}]}\n", "x")
                .unwrap()
                .format,
            Format::Otlp
        );
        assert_eq!(
            sniff(
                b"{\n  \"data\": [\n    {\n      \"traceID\": \"a\", \"spans\": []",
                "x"
            )
            .unwrap()
            .format,
            Format::Jaeger
        );
        assert_eq!(
            sniff(b"{\"data\":[{\"id\":1}]}\n", "x").unwrap().format,
            Format::Jsonl
        );
        assert_eq!(
            sniff(b"127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] \"GET /apache_pb.gif HTTP/1.0\" 200 2326\n", "x")
                .unwrap()
                .format,
            Format::Clf
        );
    }

    const RECORD: &str =
        r#"{"time":"2024-01-01T00:00:00Z","url":"https://a.example/x","status":429}"#;

    fn lines_after(first: &[u8], n: usize) -> Vec<u8> {
        let mut out = first.to_vec();
        out.push(b'\n');
        for _ in 0..n {
            out.extend_from_slice(RECORD.as_bytes());
            out.push(b'\n');
        }
        out
    }

    /// A damaged first line does not decide: the lines after it do.
    #[test]
    fn a_bad_first_line_is_outvoted() {
        let mut changed = RECORD.as_bytes().to_vec();
        for (at, byte) in [(0, b'X'), (1, b'}'), (10, b'\x00'), (5, 0xff), (20, b'\n')] {
            changed[at] = byte;
            let input = lines_after(&changed, 4);
            assert_eq!(sniff(&input, "x").unwrap().format, Format::Jsonl, "{at}");
            changed = RECORD.as_bytes().to_vec();
        }
        // `tail -c`: the first record cut anywhere.
        for cut in 1..RECORD.len() {
            let input = lines_after(&RECORD.as_bytes()[cut..], 3);
            assert_eq!(
                sniff(&input, "x").unwrap().format,
                Format::Jsonl,
                "cut at {cut}"
            );
        }
        // Invalid UTF-8 and NUL bytes in line 1 are a bad line, not binary data.
        let input = lines_after(b"\xff\xfe\x00\x00garbage", 3);
        assert_eq!(sniff(&input, "x").unwrap().format, Format::Jsonl);
        // An access log with a damaged first line is still one.
        let clf = "127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] \"GET /a HTTP/1.0\" 429 2326";
        let input = format!("{{garbage\n{clf}\n{clf}\n{clf}\n");
        assert_eq!(sniff(input.as_bytes(), "x").unwrap().format, Format::Clf);
    }

    #[test]
    fn documents_and_binary_data() {
        // A pretty-printed document whose first key is not `log` is still one document.
        let doc = b"{\n  \"version\": 1,\n  \"log\": {\"entries\": []}\n}\n";
        assert_eq!(sniff(doc, "x").unwrap().format, Format::Har);
        let doc = b"{\"a\": {\n  \"b\": 1}}\n";
        assert_eq!(sniff(doc, "x").unwrap().format, Format::Har);
        // A minified HAR longer than the prefix (cut mid-character) is text.
        let mut big = br#"{"x":1,"log":{"entries":[{"comment":""#.to_vec();
        while big.len() < SNIFF_BYTES - 1 {
            big.extend_from_slice("é".as_bytes());
        }
        big.truncate(SNIFF_BYTES);
        assert!(Sample::of(&big).len() == 1 && !Sample::of(&big).binary());
        // Mostly not text: binary, said differently when it came out of gzip.
        let bin = b"\x00\x01\n\xff\xfe\x00\nok\n";
        assert!(sniff_with(bin, "x", 0)
            .unwrap_err()
            .to_string()
            .contains("and not gzip"));
        let e = sniff_with(bin, "x", 1).unwrap_err().to_string();
        assert!(e.contains("inside gzip") && !e.contains("not gzip"), "{e}");
    }

    fn gzip(data: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    /// A gzip inside a gzip is read; binary data inside gzip is never "not gzip".
    #[test]
    fn gzip_layers_are_taken_off() {
        let dir = tempfile::tempdir().unwrap();
        let text = lines_after(RECORD.as_bytes(), 2);
        for (layers, bytes) in [(1, gzip(&text)), (2, gzip(&gzip(&text)))] {
            let p = dir.path().join(format!("l{layers}.jsonl.gz"));
            std::fs::write(&p, bytes).unwrap();
            let o = open(p.to_str().unwrap()).unwrap();
            assert_eq!(o.gzip_layers, layers);
            assert_eq!(o.sniff("x").unwrap().format, Format::Jsonl);
        }
        let p = dir.path().join("bin.gz");
        std::fs::write(&p, gzip(&[0u8, 1, 2, 3, 255, 254, 0, 9])).unwrap();
        let e = open(p.to_str().unwrap())
            .unwrap()
            .sniff("x")
            .unwrap_err()
            .to_string();
        assert!(e.contains("inside gzip") && !e.contains("not gzip"), "{e}");
    }

    /// A file truncated after it was opened is told; one that grew, or stayed, is not.
    #[test]
    fn a_file_truncated_after_opening_is_told() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("grow.jsonl");
        std::fs::write(&p, lines_after(RECORD.as_bytes(), 50)).unwrap();
        let o = open(p.to_str().unwrap()).unwrap();
        let w = o.watch.as_ref().expect("a regular file is watched");
        assert_eq!(w.shrank(), None);
        let size = std::fs::metadata(&p).unwrap().len();
        std::fs::OpenOptions::new()
            .append(true)
            .open(&p)
            .unwrap()
            .set_len(size + 10)
            .unwrap();
        assert_eq!(w.shrank(), None);
        std::fs::OpenOptions::new()
            .write(true)
            .open(&p)
            .unwrap()
            .set_len(100)
            .unwrap();
        assert_eq!(w.shrank(), Some((size, 100)));
    }
}
