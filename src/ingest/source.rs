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
    rest: Box<dyn Read + Send>,
}

impl Opened {
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

/// Open `path` (`-` = stdin), transparently gunzipping, and read the sniffing prefix.
pub fn open(path: &str) -> Result<Opened, SourceError> {
    open_counted(path, None)
}

/// [`open`], calling `on_read` with the number of raw bytes each read returns.
pub fn open_counted(
    path: &str,
    on_read: Option<Box<dyn FnMut(u64) + Send>>,
) -> Result<Opened, SourceError> {
    let raw: Box<dyn Read + Send> = if path == "-" {
        Box::new(io::stdin())
    } else {
        match File::open(path) {
            Ok(f) => {
                if f.metadata().map(|m| m.is_dir()).unwrap_or(false) {
                    return Err(SourceError::Directory);
                }
                Box::new(f)
            }
            Err(e) => return Err(SourceError::Open(e)),
        }
    };
    let mut raw: Box<dyn Read + Send> = match on_read {
        Some(on_read) => Box::new(Counted {
            inner: raw,
            on_read,
        }),
        None => raw,
    };
    let magic = read_prefix(&mut raw, 2).map_err(SourceError::Read)?;
    let mut reader: Box<dyn Read + Send> = if magic == [0x1f, 0x8b] {
        Box::new(MultiGzDecoder::new(Cursor::new(magic).chain(raw)))
    } else {
        Box::new(Cursor::new(magic).chain(raw))
    };
    let mut prefix =
        read_prefix(&mut reader, SNIFF_BYTES).map_err(SourceError::ReadDecompressed)?;
    if prefix.starts_with(&[0xEF, 0xBB, 0xBF]) {
        prefix.drain(..3);
    }
    Ok(Opened {
        prefix,
        rest: reader,
    })
}

/// What sniffing decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sniffed {
    pub format: Format,
    /// The HAR is wrapped in a JSONP/HARP callback: `onInputData({...});`.
    pub jsonp: bool,
}

/// Decide the format from content first, the file extension only as a tie-breaker.
pub fn sniff(prefix: &[u8], path: &str) -> Result<Sniffed, SourceError> {
    let text = String::from_utf8_lossy(prefix);
    let trimmed = text.trim_start();
    if trimmed.is_empty() {
        return Err(SourceError::Empty);
    }
    let lower_path = path.to_ascii_lowercase();
    let ext_jsonl = [
        ".jsonl",
        ".ndjson",
        ".jsonl.gz",
        ".ndjson.gz",
        ".log",
        ".log.gz",
    ]
    .iter()
    .any(|e| lower_path.ends_with(e));
    let binary = prefix.iter().take(4096).filter(|&&b| b == 0).count() > 0
        || (std::str::from_utf8(&prefix[..prefix.len().min(4096)]).is_err()
            && text.chars().take(4096).filter(|&c| c == '\u{FFFD}').count() > 8);
    if binary {
        return Err(SourceError::Binary);
    }
    match trimmed.as_bytes()[0] {
        b'{' => {
            let after = trimmed[1..].trim_start();
            // `{"log": {` is a HAR; `{"log": "` is Docker's json-file driver.
            let log_object = after
                .strip_prefix("\"log\"")
                .map(|r| r.trim_start().trim_start_matches(':').trim_start())
                .is_some_and(|r| !r.starts_with('"'));
            if log_object {
                return Ok(Sniffed {
                    format: Format::Har,
                    jsonp: false,
                });
            }
            let first_line = trimmed.lines().next().unwrap_or("");
            // `{}` says nothing of a record: a one-line empty object is a (memberless) JSON
            // document, not a log of one record.
            let one_line_object = serde_json::from_str::<serde_json::Value>(first_line)
                .map(|v| v.as_object().is_some_and(|o| !o.is_empty()))
                .unwrap_or(false);
            if one_line_object {
                // Access logs in JSON: the vendor's keys say which (Cloudflare, Kong, ...), or
                // nginx's variable names, or a wrapper holding access-log lines (Docker
                // json-file, a log shipper, journald), judged on the first lines.
                if let Some(format) = super::access::sniff_json(first_line)
                    .or_else(|| super::access::sniff_json_lines(prefix))
                {
                    return Ok(Sniffed {
                        format,
                        jsonp: false,
                    });
                }
                // A one-line HAR (minified export) is still a HAR.
                let looks_har =
                    first_line.contains("\"entries\"") && first_line.contains("\"log\"");
                let format = if looks_har {
                    Format::Har
                } else {
                    Format::Jsonl
                };
                return Ok(Sniffed {
                    format,
                    jsonp: false,
                });
            }
            if ext_jsonl {
                return Ok(Sniffed {
                    format: Format::Jsonl,
                    jsonp: false,
                });
            }
            Ok(Sniffed {
                format: Format::Har,
                jsonp: false,
            })
        }
        b'[' => {
            // Envoy's default text starts `[2016-04-15T...`; a Kong http-log batch is an array
            // per line.
            let first_line = trimmed.lines().next().unwrap_or("");
            if let Some(format) = super::access::sniff_json(first_line) {
                return Ok(Sniffed {
                    format,
                    jsonp: false,
                });
            }
            let after = trimmed[1..].trim_start();
            if after.starts_with('{') || after.starts_with(']') || after.starts_with('"') {
                return Err(SourceError::JsonArray);
            }
            access_log(prefix)
        }
        c if c.is_ascii_alphabetic() || c == b'_' || c == b'$' => {
            // JSONP / HARP: `onInputData({...});`
            let ident_end = trimmed
                .find(|ch: char| {
                    !(ch.is_ascii_alphanumeric() || ch == '_' || ch == '$' || ch == '.')
                })
                .unwrap_or(trimmed.len());
            if trimmed[ident_end..].trim_start().starts_with('(') {
                return Ok(Sniffed {
                    format: Format::Har,
                    jsonp: true,
                });
            }
            access_log(prefix)
        }
        _ => access_log(prefix),
    }
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
        assert!(sniff(b"hello world\nthis is prose\n", "x")
            .unwrap_err()
            .to_string()
            .contains("--log-format"));
        assert_eq!(
            sniff(b"127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] \"GET /apache_pb.gif HTTP/1.0\" 200 2326\n", "x")
                .unwrap()
                .format,
            Format::Clf
        );
    }
}
