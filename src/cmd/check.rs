//! `toomany check IN.har`: strict validation against the HAR 1.2/1.3 spec, using the `har`
//! crate's typed model entry by entry (so each deviation has its entry index and field path),
//! plus the value rules the types cannot express (ISO 8601 dates, non-negative timings).

use super::{Error, Outcome};
use crate::cli::{CheckArgs, OutputFormat};
use crate::ingest::source;
use crate::output;
use serde::Serialize;
use serde_json::Value;
use std::io::Read;

#[derive(Debug, Serialize)]
pub struct Deviation {
    /// `log`, `log.creator`, `log.pages[2]`, `log.entries[17]`.
    pub at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry: Option<usize>,
    /// Field path inside `at`, e.g. `timings.send`.
    pub field: String,
    pub problem: String,
}

#[derive(Debug, Serialize)]
pub struct CheckReport {
    pub schema_version: u32,
    pub source: String,
    pub version: Option<String>,
    pub checked_against: String,
    pub entries: usize,
    pub entries_with_deviations: usize,
    pub deviation_count: usize,
    pub deviations: Vec<Deviation>,
}

fn typed<T: serde::de::DeserializeOwned>(v: &Value) -> Result<(), (String, String)> {
    let de = v.clone();
    match serde_path_to_error::deserialize::<_, T>(de) {
        Ok(_) => Ok(()),
        Err(e) => {
            let path = e.path().to_string();
            let path = if path == "." { String::new() } else { path };
            Err((
                path,
                crate::redact::scrub_message(&e.into_inner().to_string()),
            ))
        }
    }
}

pub fn run(args: CheckArgs) -> Outcome {
    let opened =
        source::open(&args.input).map_err(|e| Error::fatal(format!("{}: {e}", args.input)))?;
    let sniffed = source::sniff(&opened.prefix, &args.input)
        .map_err(|e| Error::fatal(format!("{}: {e}", args.input)))?;
    let mut text = String::new();
    opened
        .into_reader()
        .read_to_string(&mut text)
        .map_err(|e| Error::fatal(format!("{}: cannot read as UTF-8 text: {e}", args.input)))?;
    let mut devs = Vec::new();
    let body = if sniffed.jsonp {
        devs.push(Deviation {
            at: "document".into(),
            entry: None,
            field: String::new(),
            problem: "wrapped in a JSONP/HARP callback; a HAR file is plain JSON".into(),
        });
        let start = text.find('(').map(|i| i + 1).unwrap_or(0);
        let end = text.rfind(')').filter(|&e| e > start).unwrap_or(text.len());
        &text[start..end]
    } else {
        text.as_str()
    };
    let doc: Value = serde_json::from_str(body)
        .map_err(|e| Error::fatal(format!("{}: not valid JSON: {e}", args.input)))?;
    let report = check_document(&doc, &args.input, devs);
    let shown = CheckReport {
        deviations: report
            .deviations
            .into_iter()
            .take(args.max_issues)
            .collect(),
        ..report
    };
    let bytes = match args.format {
        OutputFormat::Json => {
            let mut b = serde_json::to_vec_pretty(&shown).expect("serializes");
            b.push(b'\n');
            b
        }
        OutputFormat::Table => render_table(&shown).into_bytes(),
    };
    output::to_stdout(&bytes).map_err(|e| Error::fatal(format!("cannot write to stdout: {e}")))?;
    Ok(if shown.deviation_count > 0 { 1 } else { 0 })
}

/// Check a parsed HAR document. `devs` may hold deviations found before parsing.
pub fn check_document(doc: &Value, source: &str, mut devs: Vec<Deviation>) -> CheckReport {
    let mut push = |at: String, entry: Option<usize>, field: String, problem: String| {
        devs.push(Deviation {
            at,
            entry,
            field,
            problem,
        })
    };
    let Some(log) = doc.get("log") else {
        push(
            "document".into(),
            None,
            "log".into(),
            "missing the top-level \"log\" object".into(),
        );
        let n = devs.len();
        return CheckReport {
            schema_version: 1,
            source: source.into(),
            version: None,
            checked_against: "1.2".into(),
            entries: 0,
            entries_with_deviations: 0,
            deviation_count: n,
            deviations: devs,
        };
    };
    let version = log
        .get("version")
        .and_then(Value::as_str)
        .map(str::to_string);
    let v13 = version.as_deref() == Some("1.3");
    match version.as_deref() {
        Some("1.2") | Some("1.3") => {}
        Some(v) => push(
            "log".into(),
            None,
            "version".into(),
            format!("version {v:?} is not 1.2 or 1.3; checked against 1.2"),
        ),
        None => push(
            "log".into(),
            None,
            "version".into(),
            "missing (required; \"1.2\" or \"1.3\")".into(),
        ),
    }
    let against = if v13 { "1.3" } else { "1.2" };
    match log.get("creator") {
        Some(c) => {
            let res = if v13 {
                typed::<har::v1_3::Creator>(c)
            } else {
                typed::<har::v1_2::Creator>(c)
            };
            if let Err((f, p)) = res {
                push("log.creator".into(), None, f, p);
            }
        }
        None => push(
            "log".into(),
            None,
            "creator".into(),
            "missing (required)".into(),
        ),
    }
    if let Some(b) = log.get("browser") {
        let res = if v13 {
            typed::<har::v1_3::Creator>(b)
        } else {
            typed::<har::v1_2::Creator>(b)
        };
        if let Err((f, p)) = res {
            push("log.browser".into(), None, f, p);
        }
    }
    if let Some(pages) = log.get("pages") {
        match pages.as_array() {
            Some(ps) => {
                for (i, p) in ps.iter().enumerate() {
                    let res = if v13 {
                        typed::<har::v1_3::Pages>(p)
                    } else {
                        typed::<har::v1_2::Pages>(p)
                    };
                    if let Err((f, pr)) = res {
                        push(format!("log.pages[{i}]"), None, f, pr);
                    }
                    if let Some(s) = p.get("startedDateTime").and_then(Value::as_str) {
                        if chrono::DateTime::parse_from_rfc3339(s).is_err() {
                            push(
                                format!("log.pages[{i}]"),
                                None,
                                "startedDateTime".into(),
                                format!("{s:?} is not ISO 8601"),
                            );
                        }
                    }
                }
            }
            None => push("log".into(), None, "pages".into(), "not an array".into()),
        }
    }
    let mut entries = 0;
    let mut bad_entries = 0;
    match log.get("entries").and_then(Value::as_array) {
        Some(es) => {
            for (i, e) in es.iter().enumerate() {
                entries += 1;
                let before = devs.len();
                let at = format!("log.entries[{i}]");
                let res = if v13 {
                    typed::<har::v1_3::Entries>(e)
                } else {
                    typed::<har::v1_2::Entries>(e)
                };
                if let Err((f, p)) = res {
                    devs.push(Deviation {
                        at: at.clone(),
                        entry: Some(i),
                        field: f,
                        problem: p,
                    });
                }
                value_rules(e, i, &at, &mut devs);
                if devs.len() > before {
                    bad_entries += 1;
                }
            }
        }
        None => devs.push(Deviation {
            at: "log".into(),
            entry: None,
            field: "entries".into(),
            problem: "missing or not an array (required)".into(),
        }),
    }
    let n = devs.len();
    CheckReport {
        schema_version: 1,
        source: source.into(),
        version,
        checked_against: against.into(),
        entries,
        entries_with_deviations: bad_entries,
        deviation_count: n,
        deviations: devs,
    }
}

/// Spec rules on values that typed deserialization cannot see.
fn value_rules(e: &Value, i: usize, at: &str, devs: &mut Vec<Deviation>) {
    let mut push = |field: &str, problem: String| {
        devs.push(Deviation {
            at: at.to_string(),
            entry: Some(i),
            field: field.to_string(),
            problem,
        })
    };
    if let Some(s) = e.get("startedDateTime").and_then(Value::as_str) {
        if chrono::DateTime::parse_from_rfc3339(s).is_err() {
            push(
                "startedDateTime",
                format!("{} is not an ISO 8601 date with time zone", shown_date(s)),
            );
        }
    }
    if let Some(t) = e.get("time").and_then(Value::as_f64) {
        if t < 0.0 {
            push("time", format!("{t} is negative"));
        }
    }
    if let Some(t) = e.get("timings") {
        for f in ["send", "wait", "receive"] {
            if let Some(x) = t.get(f).and_then(Value::as_f64) {
                if x < 0.0 {
                    push(
                        &format!("timings.{f}"),
                        format!("{x} is negative (required non-negative)"),
                    );
                }
            }
        }
        for f in ["blocked", "dns", "connect", "ssl"] {
            if let Some(x) = t.get(f).and_then(Value::as_f64) {
                if x < -1.0 {
                    push(&format!("timings.{f}"), format!("{x} is below -1"));
                }
            }
        }
    }
    if let Some(s) = e.pointer("/response/status").and_then(Value::as_i64) {
        if !(100..=999).contains(&s) && s != 0 {
            push(
                "response.status",
                format!("{s} is not an HTTP status (0 = no response)"),
            );
        }
    }
}

/// A date value is shown only when it looks like a date (a secret in a date field stays hidden).
fn shown_date(s: &str) -> String {
    let plausible = s.len() <= 40
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || " :-+.,/TZ".contains(c));
    if plausible && s.chars().any(|c| c.is_ascii_digit()) {
        format!("{s:?}")
    } else {
        "the value".into()
    }
}

fn render_table(r: &CheckReport) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let mut t = comfy_table::Table::new();
    t.load_preset(comfy_table::presets::UTF8_HORIZONTAL_ONLY);
    t.set_header(vec!["where", "field", "problem"]);
    for d in &r.deviations {
        t.add_row(vec![d.at.clone(), d.field.clone(), d.problem.clone()]);
    }
    if !r.deviations.is_empty() {
        let _ = writeln!(out, "{t}");
    }
    let _ = writeln!(
        out,
        "{}: HAR {} checked against {}: {} entries, {} with deviations; {} deviation(s){}",
        r.source,
        r.version.as_deref().unwrap_or("(no version)"),
        r.checked_against,
        r.entries,
        r.entries_with_deviations,
        r.deviation_count,
        if r.deviation_count > r.deviations.len() {
            format!(" ({} shown)", r.deviations.len())
        } else {
            String::new()
        }
    );
    if r.deviation_count > 0 {
        let _ = writeln!(
            out,
            "toomany analyze reads this file anyway; other tools may reject it."
        );
    }
    out
}
