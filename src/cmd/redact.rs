//! `toomany redact IN -o OUT`: a sanitized copy that keeps everything else, exporter `_fields`
//! included. Entries are handled as untyped JSON and only what the policy names is rewritten.

use super::{ingest_options, Error, Outcome};
use crate::cli::RedactArgs;
use crate::ingest::{source, Format};
use crate::output;
use crate::redact::json::Notes;
use crate::redact::Redactor;
use serde_json::Value;
use std::io::{BufRead, Read, Write};
use std::path::Path;

pub fn run(args: RedactArgs) -> Outcome {
    let opts = ingest_options(&args.input_args)?;
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
    let sniffed = source::sniff(&opened.prefix, &args.input);
    let (format, jsonp) = match (opts.format, sniffed) {
        // A HAR copied line by line as text, or JSON lines parsed as one document, would not be
        // a sanitized copy: a forced format the content contradicts is refused.
        (Some(f), Ok(s)) if family(f) != family(s.format) => {
            return Err(Error::fatal(format!(
                "{}: --input-format {} but the content is {}; refusing to write a copy that \
                 could not be sanitized (drop --input-format)",
                args.input,
                f.as_str(),
                describe(s.format)
            )))
        }
        (Some(f), Ok(s)) => (f, s.jsonp),
        (Some(f), Err(_)) => (f, false),
        (None, Ok(s)) => (s.format, s.jsonp),
        (None, Err(e)) => return Err(Error::fatal(format!("{}: {e}", args.input))),
    };
    let mut reader = opened.into_reader();
    let r = &opts.redactor;
    let gzip_out = args.output.to_ascii_lowercase().ends_with(".gz");

    let (bytes, warnings) = match format {
        Format::Har => {
            let mut text = String::new();
            reader.read_to_string(&mut text).map_err(|e| {
                Error::fatal(format!("{}: cannot read as UTF-8 text: {e}", args.input))
            })?;
            let body = if jsonp {
                strip_jsonp(&text)
            } else {
                text.as_str()
            };
            let mut doc: Value = serde_json::from_str(body).map_err(|e| {
                Error::fatal(format!(
                    "{}: not a complete JSON document ({e}); nothing written",
                    args.input
                ))
            })?;
            let notes = r.json(&mut doc);
            let mut out =
                serde_json::to_vec_pretty(&doc).map_err(|e| Error::fatal(e.to_string()))?;
            out.push(b'\n');
            (out, notes_warnings(&notes, None))
        }
        f if is_json_lines(f) => redact_lines(&mut reader, r).map_err(|e| match e {
            LinesError::Io(e) => Error::fatal(format!("{}: {e}", args.input)),
            LinesError::Fragment(line) => Error::fatal(format!(
                "{}:{line}: this line is part of a multi-line JSON document, not a JSON-lines \
                 record; refusing to copy it as text (is this a HAR? drop --input-format)",
                args.input
            )),
        })?,
        other => {
            // Positional text logs hold secrets in unnamed fields (a logged API-key header):
            // only a reader that knows the layout could find them, so no copy is written.
            return Err(Error::fatal(format!(
                "{}: a {} access log; `redact` writes sanitized HAR and JSON-lines files only (analyze reads access logs and redacts them on ingestion)",
                args.input,
                other.as_str()
            )));
        }
    };
    for w in &warnings {
        eprintln!("toomany: warning: {}:{w}", args.input);
    }
    let bytes = if gzip_out {
        gzip(&bytes).map_err(|e| Error::fatal(e.to_string()))?
    } else {
        bytes
    };
    match &out_file {
        None => output::to_stdout(&bytes)
            .map_err(|e| Error::fatal(format!("cannot write to stdout: {e}")))?,
        Some(f) => {
            f.write(&bytes).map_err(Error::fatal)?;
            eprintln!("toomany: wrote {} ({} bytes)", args.output, bytes.len());
        }
    }
    Ok(0)
}

fn strip_jsonp(text: &str) -> &str {
    let start = text.find('(').map(|i| i + 1).unwrap_or(0);
    let end = text.rfind(')').filter(|&e| e > start).unwrap_or(text.len());
    &text[start..end]
}

fn gzip(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(bytes)?;
    enc.finish()
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
        _ => 2,
    }
}

fn describe(f: Format) -> &'static str {
    match family(f) {
        0 => "a HAR document",
        1 => "JSON lines",
        _ => "a text access log",
    }
}

fn notes_warnings(notes: &Notes, line: Option<usize>) -> Vec<String> {
    let at = line.map(|l| format!("{l}: ")).unwrap_or_else(|| " ".into());
    let mut w = Vec::new();
    if notes.dropped_bodies > 0 {
        w.push(format!(
            "{at}{} base64 bod(y/ies) dropped: binary or not base64, with what looks like a \
             secret inside (marked in the body's comment)",
            notes.dropped_bodies
        ));
    }
    w
}

enum LinesError {
    Io(std::io::Error),
    /// 1-based line number of a line that belongs to a multi-line JSON document.
    Fragment(usize),
}

/// A line that cannot stand alone: a piece of a pretty-printed JSON document (`"value": "…",`,
/// `{`, `},`). Copied as text it would lose the context (`"name": "Authorization"` on the line
/// before) that says it is a secret.
fn is_json_fragment(line: &str) -> bool {
    let t = line.trim();
    t.starts_with('"')
        || matches!(
            t,
            "{" | "}" | "[" | "]" | "}," | "]," | "{}" | "[]" | "{}," | "[],"
        )
        || t.ends_with('{')
        || t.ends_with('[')
}

/// Redact every line of a JSON-lines file; a line that is not JSON is redacted as text, and a
/// line that is a piece of a multi-line JSON document stops the copy.
fn redact_lines(
    reader: &mut dyn BufRead,
    r: &Redactor,
) -> Result<(Vec<u8>, Vec<String>), LinesError> {
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    for (i, line) in reader.split(b'\n').enumerate() {
        let line = line.map_err(LinesError::Io)?;
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches('\r');
        if text.trim().is_empty() {
            out.extend_from_slice(text.as_bytes());
        } else {
            match serde_json::from_str::<Value>(text) {
                Ok(mut v) => {
                    let notes = r.json(&mut v);
                    warnings.extend(notes_warnings(&notes, Some(i + 1)));
                    out.extend_from_slice(serde_json::to_string(&v).unwrap_or_default().as_bytes());
                }
                Err(_) if is_json_fragment(text) => return Err(LinesError::Fragment(i + 1)),
                Err(_) => {
                    warnings.push(format!("{}: not JSON; redacted as plain text", i + 1));
                    out.extend_from_slice(r.text(text).as_bytes());
                }
            }
        }
        out.push(b'\n');
    }
    Ok((out, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn har_structure_kept_secrets_gone() {
        let r = Redactor::from_key_material(b"k");
        let mut v: Value = serde_json::from_str(r#"{"log":{"entries":[{"request":{"url":"https://h/x?api_key=S1",
            "headers":[{"name":"Authorization","value":"Bearer S2"},{"name":"Accept","value":"*/*"}],
            "cookies":[{"name":"sid","value":"S3"}],"queryString":[{"name":"api_key","value":"S1"}],
            "postData":{"text":"{\"password\":\"S4\"}","params":[{"name":"token","value":"S5"}]}},
            "response":{"content":{"encoding":"base64","text":"eyJ0b2tlbiI6IlM2In0="}},"_custom":"x?token=S7"}]}}"#).unwrap();
        r.json(&mut v);
        let s = v.to_string();
        for c in ["S1", "S2", "S3", "S4", "S5", "S7"] {
            assert!(
                !s.contains(&format!("\"{c}\""))
                    && !s.contains(&format!("={c}"))
                    && !s.contains(&format!(" {c}")),
                "{c} in {s}"
            );
        }
        assert!(s.contains("\"*/*\""));
        assert!(s.contains("_custom"));
        use base64::Engine;
        let b64 = v["log"]["entries"][0]["response"]["content"]["text"]
            .as_str()
            .unwrap();
        let dec = String::from_utf8(
            base64::engine::general_purpose::STANDARD
                .decode(b64)
                .unwrap(),
        )
        .unwrap();
        assert!(!dec.contains("S6"), "{dec}");
    }

    #[test]
    fn fragments_of_pretty_json_are_told_apart() {
        for l in ["  \"value\": \"x\",", "{", "  },", "  \"headers\": ["] {
            assert!(is_json_fragment(l), "{l}");
        }
        for l in ["Cookie: sid=x", "password: x", "GET /x 200", "not json"] {
            assert!(!is_json_fragment(l), "{l}");
        }
    }
}
