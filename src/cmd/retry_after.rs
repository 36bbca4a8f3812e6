//! `toomany retry-after VALUE`: how long to wait, by the same parser the analysis uses.

use super::{Error, Outcome};
use crate::cli::{OutputFormat, RetryAfterArgs};
use crate::http::date::{format_http_date, parse_http_date, parse_timestamp};
use crate::http::retry_after::{self, Advice, RetryAfter};
use crate::model::Headers;
use crate::output;
use chrono::{DateTime, Utc};
use serde::Serialize;

/// The JSON answer: the parsed value, the reference time, and the advice.
#[derive(Debug, Serialize)]
struct Answer<'a> {
    retry_after: &'a RetryAfter,
    /// The instant a date value was measured from, and where it came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    measured_from: Option<String>,
    reference: &'static str,
    attempt: u32,
    #[serde(flatten)]
    advice: &'a Advice,
}

pub fn run(args: RetryAfterArgs) -> Outcome {
    let header = args.header.trim().to_ascii_lowercase();
    if header != "retry-after" && !retry_after::MS_HEADERS.contains(&header.as_str()) {
        return Err(Error::fatal(format!(
            "--header {}: expected retry-after or one of {}",
            args.header,
            retry_after::MS_HEADERS.join(", ")
        )));
    }
    let date = match &args.date {
        Some(d) => Some(
            parse_http_date(d)
                .or_else(|| parse_timestamp(d))
                .ok_or_else(|| Error::fatal(format!("--date {d:?}: not an HTTP-date")))?,
        ),
        None => None,
    };
    let now: DateTime<Utc> = match &args.now {
        Some(n) => parse_timestamp(n).ok_or_else(|| {
            Error::fatal(format!(
                "--now {n:?}: expected an HTTP-date, RFC 3339 time or epoch seconds"
            ))
        })?,
        None => Utc::now(),
    };
    let reference = match (&args.date, &args.now) {
        (Some(_), _) => "--date (the response's Date header)",
        (None, Some(_)) => "--now",
        (None, None) => "the system clock",
    };

    // The same code path as the analysis: a response with this header (and its Date).
    let mut h = Headers::new();
    if let Some(d) = date {
        h.push("date", format_http_date(d));
    }
    h.push(header.clone(), args.value.clone());
    let mut ra = retry_after::from_headers(&h, Some(now));
    // Here the reference is stated explicitly (--date, --now or the clock), not a capture time.
    ra.note = ra
        .note
        .map(|n| {
            n.replace(&format!("; {}", retry_after::CAPTURE_TIME_NOTE), "")
                .replace(retry_after::CAPTURE_TIME_NOTE, "")
        })
        .filter(|n| !n.is_empty());
    let advice = retry_after::advise(&ra, args.attempt, random01());
    let measured_from =
        (ra.kind == retry_after::Kind::Date).then(|| format_http_date(date.unwrap_or(now)));

    let bytes = match args.format {
        OutputFormat::Json => {
            let answer = Answer {
                retry_after: &ra,
                measured_from,
                reference,
                attempt: args.attempt,
                advice: &advice,
            };
            let mut v = serde_json::to_vec_pretty(&answer)
                .map_err(|e| Error::fatal(format!("cannot encode JSON: {e}")))?;
            v.push(b'\n');
            v
        }
        OutputFormat::Table => text(&ra, &advice, measured_from.as_deref(), reference).into_bytes(),
    };
    output::to_stdout(&bytes).map_err(|e| Error::fatal(format!("cannot write to stdout: {e}")))?;
    Ok(0)
}

fn text(ra: &RetryAfter, advice: &Advice, measured_from: Option<&str>, reference: &str) -> String {
    use crate::units::fmt_duration_ms;
    let mut out = String::new();
    let wait = match advice.wait_seconds {
        Some(s) if s >= 60.0 => format!(
            "wait {} ({} s)",
            fmt_duration_ms(s * 1000.0),
            crate::units::fmt_num(s)
        ),
        Some(s) => format!("wait {}", fmt_duration_ms(s * 1000.0)),
        None => "do not wait: stop or reschedule".to_string(),
    };
    out.push_str(&format!("{wait}\n"));
    out.push_str(&format!("rule: {} — {}\n", advice.rule, advice.explanation));
    if let Some(m) = measured_from {
        out.push_str(&format!("measured from: {m} ({reference})\n"));
    }
    if let Some(n) = &ra.note {
        out.push_str(&format!("note: {n}\n"));
    }
    out
}

/// A uniform number in [0, 1) for the jittered wait (OS randomness; a clock fallback is fine
/// for jitter).
fn random01() -> f64 {
    let mut b = [0u8; 8];
    if getrandom::getrandom(&mut b).is_err() {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        b[..4].copy_from_slice(&t.to_le_bytes());
    }
    (u64::from_le_bytes(b) >> 11) as f64 / (1u64 << 53) as f64
}
