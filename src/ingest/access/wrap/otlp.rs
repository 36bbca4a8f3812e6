//! OTLP JSON logs as the OpenTelemetry Collector's file exporter writes them: one export
//! request per line, `{"resourceLogs":[{"resource":{...},"scopeLogs":[{"logRecords":[...]}]}]}`
//! (protobuf JSON, lowerCamelCase; the snake_case spelling is read too). Each record whose
//! `body` is a `stringValue` holds one line of the log.

use super::Unwrapped;
use crate::ingest::lazy::{self, Doc, Node, Obj, Val};
use std::borrow::Cow;

/// Does this line open an OTLP JSON logs export (`{"resourceLogs":` ...)?
pub(super) fn is_otlp(line: &str) -> bool {
    let Some(rest) = line.trim_start().strip_prefix('{') else {
        return false;
    };
    let rest = rest.trim_start();
    rest.starts_with("\"resourceLogs\"") || rest.starts_with("\"resource_logs\"")
}

/// The lines of an export's records, in order, or `None` when the line is not one. An export
/// cut short (a sniffing sample ending inside a long line) gives the lines of its whole bodies.
pub(super) fn records(line: &str) -> Option<Vec<Unwrapped<'_>>> {
    if !is_otlp(line) {
        return None;
    }
    Some(match lazy::parse_raw(line.trim()) {
        Ok(Doc::Object(o)) => from_export(&o),
        _ => scan(line),
    })
}

fn field<'n, 'a>(o: &'n Obj<'a>, keys: &[&str]) -> Option<&'n Node<'a>> {
    keys.iter().find_map(|k| o.get(k))
}

fn string<'a>(node: &Node<'a>) -> Option<Cow<'a, str>> {
    match lazy::val(node) {
        Val::Str(s) => Some(s),
        _ => None,
    }
}

/// `{"stringValue": "..."}` (an `AnyValue`) as text.
fn any_string<'a>(node: &Node<'a>) -> Option<Cow<'a, str>> {
    let o = Obj::of(node)?;
    string(field(&o, &["stringValue", "string_value"])?)
}

/// A resource attribute's text (`[{"key": "host.name", "value": {"stringValue": ...}}]`).
fn attribute<'a>(resource: &Node<'a>, key: &str) -> Option<Cow<'a, str>> {
    let r = Obj::of(resource)?;
    let attrs = lazy::items(field(&r, &["attributes"])?).into_owned();
    attrs.iter().find_map(|a| {
        let a = Obj::of(a)?;
        let k = string(field(&a, &["key"])?)?;
        (k == key).then(|| any_string(field(&a, &["value"])?))?
    })
}

/// Nanoseconds since the epoch (a string, as protobuf JSON writes 64-bit integers, or a
/// number) as microseconds; 0 means unset.
fn micros(o: &Obj<'_>, keys: &[&str]) -> Option<i64> {
    let node = field(o, keys)?;
    let ns = match lazy::val(node) {
        Val::Str(s) => s.trim().parse::<i64>().ok()?,
        Val::Num(n) => n.as_i64()?,
        _ => return None,
    };
    (ns > 0).then_some(ns / 1000)
}

fn trimmed(s: Cow<'_, str>) -> Cow<'_, str> {
    match s {
        Cow::Borrowed(b) => Cow::Borrowed(b.trim_end_matches(['\n', '\r'])),
        Cow::Owned(o) => Cow::Owned(o.trim_end_matches(['\n', '\r']).to_string()),
    }
}

fn from_export<'a>(export: &Obj<'a>) -> Vec<Unwrapped<'a>> {
    let mut out = Vec::new();
    let Some(resources) = field(export, &["resourceLogs", "resource_logs"]) else {
        return out;
    };
    for rl in lazy::items(resources).iter() {
        let Some(rl) = Obj::of(rl) else { continue };
        let host = field(&rl, &["resource"]).and_then(|r| attribute(r, "host.name"));
        let scopes = ["scopeLogs", "scope_logs", "instrumentationLibraryLogs"];
        let Some(scopes) = field(&rl, &scopes) else {
            continue;
        };
        for sl in lazy::items(scopes).iter() {
            let Some(sl) = Obj::of(sl) else { continue };
            let Some(recs) = field(&sl, &["logRecords", "log_records"]) else {
                continue;
            };
            for r in lazy::items(recs).iter() {
                let Some(r) = Obj::of(r) else { continue };
                let Some(body) = field(&r, &["body"]).and_then(any_string) else {
                    continue;
                };
                let time = micros(&r, &["timeUnixNano", "time_unix_nano"])
                    .or_else(|| micros(&r, &["observedTimeUnixNano", "observed_time_unix_nano"]));
                out.push(Unwrapped {
                    line: trimmed(body),
                    time,
                    host: host.clone(),
                    partial: false,
                });
            }
        }
    }
    out
}

/// The whole `"body":{"stringValue":"..."}` strings of a cut export.
fn scan(line: &str) -> Vec<Unwrapped<'_>> {
    const OPEN: &str = "\"body\":{\"stringValue\":\"";
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = line[from..].find(OPEN) {
        let start = from + i + OPEN.len() - 1;
        let b = line.as_bytes();
        let mut j = start + 1;
        while j < b.len() && b[j] != b'"' {
            j += if b[j] == b'\\' { 2 } else { 1 };
        }
        if j >= b.len() {
            break;
        }
        if let Ok(s) = serde_json::from_str::<String>(&line[start..=j]) {
            out.push(Unwrapped::of(trimmed(Cow::Owned(s))));
        }
        from = j + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str =
        r#"10.0.0.1 - - [10/Oct/2024:13:55:36 +0000] "GET /a HTTP/1.1" 429 12 "-" "curl/8""#;

    fn export(lines: &[&str]) -> String {
        let recs: Vec<String> = lines
            .iter()
            .enumerate()
            .map(|(i, l)| {
                format!(
                    r#"{{"timeUnixNano":"{}","observedTimeUnixNano":"1728568537000000000","body":{{"stringValue":{}}},"attributes":[{{"key":"log.file.name","value":{{"stringValue":"access.log"}}}}]}}"#,
                    if i == 0 { "0".to_string() } else { format!("172856853{i}000000000") },
                    serde_json::to_string(l).unwrap()
                )
            })
            .collect();
        format!(
            r#"{{"resourceLogs":[{{"resource":{{"attributes":[{{"key":"host.name","value":{{"stringValue":"web-1"}}}}]}},"scopeLogs":[{{"scope":{{}},"logRecords":[{}]}}]}}]}}"#,
            recs.join(",")
        )
    }

    #[test]
    fn every_record_of_an_export_with_its_time_and_host() {
        let line = export(&[LINE, "second line\n"]);
        assert!(is_otlp(&line));
        let got = records(&line).expect("an export");
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].line, LINE);
        assert_eq!(got[1].line, "second line");
        // timeUnixNano 0 is unset: the observed time stands in.
        assert_eq!(got[0].time, Some(1_728_568_537_000_000));
        assert_eq!(got[1].time, Some(1_728_568_531_000_000));
        assert_eq!(got[0].host.as_deref(), Some("web-1"));
    }

    #[test]
    fn a_cut_export_gives_its_whole_bodies() {
        let line = export(&[LINE, LINE, LINE]);
        let cut = &line[..line.rfind("GET").unwrap()];
        let got = records(cut).expect("an export");
        assert_eq!(got.len(), 2);
        assert!(got.iter().all(|u| u.line == LINE));
    }

    #[test]
    fn other_json_is_not_an_export() {
        assert!(records(r#"{"log":"x","stream":"stdout","time":"t"}"#).is_none());
        assert!(records(r#"{"resourceSpans":[]}"#).is_none());
        assert_eq!(records(r#"{"resourceLogs":[]}"#).map(|v| v.len()), Some(0));
    }
}
