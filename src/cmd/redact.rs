//! `toomany redact IN -o OUT`: a sanitized copy that keeps everything else, exporter `_fields`
//! included. Entries are handled as untyped JSON and only what the policy names is rewritten.

use super::{ingest_options, Error, Outcome};
use crate::cli::RedactArgs;
use crate::ingest::{source, Format};
use crate::output;
use crate::redact::{is_secret_header, is_secret_json_field, Redactor};
use base64::Engine;
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
            redact_value(&mut doc, r, None);
            let mut out =
                serde_json::to_vec_pretty(&doc).map_err(|e| Error::fatal(e.to_string()))?;
            out.push(b'\n');
            (out, Vec::new())
        }
        Format::Jsonl
        | Format::Cloudflare
        | Format::Kong
        | Format::Traefik
        | Format::Caddy
        | Format::GcpLb => redact_lines(&mut reader, r)
            .map_err(|e| Error::fatal(format!("{}: {e}", args.input)))?,
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

/// Redact every line of a JSON-lines file; a line that is not JSON is redacted as text.
fn redact_lines(reader: &mut dyn BufRead, r: &Redactor) -> std::io::Result<(Vec<u8>, Vec<String>)> {
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    for (i, line) in reader.split(b'\n').enumerate() {
        let line = line?;
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches('\r');
        if text.trim().is_empty() {
            out.extend_from_slice(text.as_bytes());
        } else {
            match serde_json::from_str::<Value>(text) {
                Ok(mut v) => {
                    redact_value(&mut v, r, None);
                    out.extend_from_slice(serde_json::to_string(&v).unwrap_or_default().as_bytes());
                }
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

/// What a `[{name, value}]` list holds, from its key.
#[derive(Clone, Copy, PartialEq)]
enum Pairs {
    Headers,
    Cookies,
    Fields,
}

fn pairs_kind(key: &str) -> Option<Pairs> {
    let k = key.to_ascii_lowercase();
    if k.contains("headers") {
        Some(Pairs::Headers)
    } else if k.contains("cookies") {
        Some(Pairs::Cookies)
    } else if k == "querystring" || k == "params" || k.contains("query") {
        Some(Pairs::Fields)
    } else {
        None
    }
}

/// Redact a JSON value in place. `key` is the name this value sits under.
pub fn redact_value(v: &mut Value, r: &Redactor, key: Option<&str>) {
    match v {
        Value::String(s) => {
            let red = match key {
                Some(k)
                    if k.eq_ignore_ascii_case("url") || k.eq_ignore_ascii_case("redirecturl") =>
                {
                    r.url(s)
                }
                Some(k) if is_secret_json_field(k) || is_secret_header(k) => r.token(s),
                _ => r.text(s),
            };
            *s = red;
        }
        Value::Number(n) => {
            if let Some(k) = key {
                if is_secret_json_field(k) {
                    *v = Value::String(r.token(&n.to_string()));
                }
            }
        }
        Value::Array(items) => {
            let kind = key.and_then(pairs_kind);
            for it in items.iter_mut() {
                match (kind, it) {
                    (Some(kind), Value::Object(m)) if m.contains_key("name") => {
                        let name = m
                            .get("name")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_string();
                        if let Some(Value::String(val)) = m.get_mut("value") {
                            *val = match kind {
                                Pairs::Headers => r.header(&name, val),
                                Pairs::Cookies => r.cookie_value(val),
                                Pairs::Fields => r.field(&name, val),
                            };
                        }
                        for (k, other) in m.iter_mut() {
                            if k != "name" && k != "value" {
                                redact_value(other, r, Some(k));
                            }
                        }
                    }
                    (_, it) => redact_value(it, r, key),
                }
            }
        }
        Value::Object(m) => {
            // A HAR content object with a base64 body: decode, redact, re-encode when it is text.
            let is_b64 = m
                .get("encoding")
                .and_then(Value::as_str)
                .map(|e| e.eq_ignore_ascii_case("base64"))
                .unwrap_or(false);
            if is_b64 {
                if let Some(Value::String(t)) = m.get_mut("text") {
                    let engine = base64::engine::general_purpose::STANDARD;
                    if let Ok(bytes) = engine.decode(t.as_bytes()) {
                        if let Ok(s) = String::from_utf8(bytes) {
                            let red = r.text(&s);
                            if red != s {
                                *t = engine.encode(red.as_bytes());
                            }
                        }
                    }
                }
            }
            // A map of header name → value (JSON-lines logs).
            let header_map = key
                .map(|k| k.to_ascii_lowercase().contains("headers"))
                .unwrap_or(false);
            for (k, val) in m.iter_mut() {
                if is_b64 && k == "text" {
                    continue;
                }
                if header_map {
                    if let Value::String(s) = val {
                        *s = r.header(k, s);
                        continue;
                    }
                }
                redact_value(val, r, Some(k));
            }
        }
        Value::Bool(_) | Value::Null => {}
    }
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
        redact_value(&mut v, &r, None);
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
}
