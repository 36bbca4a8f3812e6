//! Retry-After (RFC 9110 §10.2.3): delay-seconds or an HTTP-date, plus the millisecond headers
//! some services send instead. One parser used by the analysis and by `toomany retry-after`, so
//! the report and the calculator can never disagree.

use super::date::parse_http_date;
use crate::model::Headers;
use chrono::{DateTime, Utc};
use serde::Serialize;

/// Largest wait we represent, in seconds (about 100 years). Anything larger "cannot be waited".
pub const MAX_REPRESENTABLE_S: f64 = 3.2e9;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// delay-seconds (integer per RFC; decimals tolerated and noted).
    Delta,
    /// An HTTP-date; seconds = date − the response's own `Date` (else the record's time).
    Date,
    /// Present but not a delay nor a date.
    Invalid,
    /// No Retry-After on the response.
    Absent,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RetryAfter {
    /// The header value as received (`None` when absent).
    pub raw: Option<String>,
    /// Wait in seconds, never negative. `None` for absent/invalid, and for a value too large to
    /// represent (see `note`).
    pub seconds: Option<f64>,
    pub kind: Kind,
    /// Which header supplied it when not `Retry-After` (e.g. `retry-after-ms`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    /// Anything a reader should know: a date in the past, decimals, milliseconds, clock source.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl RetryAfter {
    pub fn absent() -> Self {
        RetryAfter {
            raw: None,
            seconds: None,
            kind: Kind::Absent,
            header: None,
            note: None,
        }
    }

    fn invalid(raw: &str, why: &str) -> Self {
        RetryAfter {
            raw: Some(raw.to_string()),
            seconds: None,
            kind: Kind::Invalid,
            header: None,
            note: Some(why.to_string()),
        }
    }
}

/// Parse a Retry-After value. `now` is the instant the response was generated: its own `Date`
/// header when present (immune to the client's clock skew), else the time the record was taken.
pub fn parse(raw: &str, now: Option<DateTime<Utc>>) -> RetryAfter {
    let v = raw.trim();
    if v.is_empty() {
        return RetryAfter::invalid(raw, "empty value");
    }
    if v.bytes().all(|b| b.is_ascii_digit()) {
        return match v.parse::<f64>() {
            Ok(s) if s <= MAX_REPRESENTABLE_S => RetryAfter {
                raw: Some(raw.to_string()),
                seconds: Some(s),
                kind: Kind::Delta,
                header: None,
                note: None,
            },
            _ => RetryAfter {
                raw: Some(raw.to_string()),
                seconds: None,
                kind: Kind::Delta,
                header: None,
                note: Some("value too large to represent: the client cannot wait this long; stop or reschedule".into()),
            },
        };
    }
    if let Ok(s) = v.parse::<f64>() {
        if s.is_finite() && s >= 0.0 && v.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
            return RetryAfter {
                raw: Some(raw.to_string()),
                seconds: Some(s),
                kind: Kind::Delta,
                header: None,
                note: Some(
                    "decimal seconds (RFC 9110 allows only integers); read as seconds".into(),
                ),
            };
        }
        return RetryAfter::invalid(raw, "negative or non-finite number");
    }
    if let Some(date) = parse_http_date(v) {
        let Some(now) = now else {
            return RetryAfter {
                raw: Some(raw.to_string()),
                seconds: None,
                kind: Kind::Date,
                header: None,
                note: Some("HTTP-date with no response Date or record time to measure from".into()),
            };
        };
        let secs = (date - now).num_milliseconds() as f64 / 1000.0;
        if secs < 0.0 {
            return RetryAfter {
                raw: Some(raw.to_string()),
                seconds: Some(0.0),
                kind: Kind::Date,
                header: None,
                note: Some(format!(
                    "date is {:.0} s in the past: wait 0 s, but still back off with jitter rather than retrying at once",
                    -secs
                )),
            };
        }
        return RetryAfter {
            raw: Some(raw.to_string()),
            seconds: Some(secs),
            kind: Kind::Date,
            header: None,
            note: None,
        };
    }
    RetryAfter::invalid(raw, "neither delay-seconds nor an HTTP-date")
}

/// Millisecond-valued retry headers some services send instead of (or beside) Retry-After.
const MS_HEADERS: &[&str] = &["retry-after-ms", "x-ms-retry-after-ms", "x-amz-retry-after"];

/// The Retry-After of a response: the standard header first, else a known millisecond header.
/// `record_time` is the capture time, used when the response has no `Date` header.
pub fn from_headers(headers: &Headers, record_time: Option<DateTime<Utc>>) -> RetryAfter {
    let now = headers
        .get("date")
        .and_then(parse_http_date)
        .or(record_time);
    if let Some(v) = headers.get("retry-after") {
        let mut ra = parse(v, now);
        if ra.kind == Kind::Date && headers.get("date").and_then(parse_http_date).is_none() {
            let note = "measured from the capture time (the response has no Date header)";
            ra.note = Some(match ra.note {
                Some(n) => format!("{n}; {note}"),
                None => note.to_string(),
            });
        }
        return ra;
    }
    for name in MS_HEADERS {
        if let Some(v) = headers.get(name) {
            return match v.trim().parse::<f64>() {
                Ok(ms) if ms.is_finite() && ms >= 0.0 => RetryAfter {
                    raw: Some(v.to_string()),
                    seconds: Some(ms / 1000.0),
                    kind: Kind::Delta,
                    header: Some((*name).to_string()),
                    note: Some(format!("{name} is in milliseconds")),
                },
                _ => {
                    let mut ra = RetryAfter::invalid(v, "not a number of milliseconds");
                    ra.header = Some((*name).to_string());
                    ra
                }
            };
        }
    }
    RetryAfter::absent()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::date::parse_http_date;

    #[test]
    fn delta_seconds_are_seconds() {
        let r = parse("12", None);
        assert_eq!(r.kind, Kind::Delta);
        assert_eq!(r.seconds, Some(12.0));
    }

    #[test]
    fn date_measured_from_now() {
        let now = parse_http_date("Sun, 06 Nov 1994 08:49:07 GMT");
        for v in [
            "Sun, 06 Nov 1994 08:49:37 GMT",
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994",
        ] {
            let r = parse(v, now);
            assert_eq!(r.kind, Kind::Date, "{v}");
            assert_eq!(r.seconds, Some(30.0), "{v}");
        }
    }

    #[test]
    fn past_date_is_zero_with_note() {
        let now = parse_http_date("Sun, 06 Nov 1994 09:00:00 GMT");
        let r = parse("Sun, 06 Nov 1994 08:49:37 GMT", now);
        assert_eq!(r.seconds, Some(0.0));
        assert!(r.note.unwrap().contains("past"));
    }

    #[test]
    fn odd_values() {
        assert_eq!(parse("2.0", None).seconds, Some(2.0));
        assert_eq!(parse("-5", None).kind, Kind::Invalid);
        assert_eq!(parse("soon", None).kind, Kind::Invalid);
        let huge = parse("99999999999999999999999", None);
        assert_eq!(huge.kind, Kind::Delta);
        assert_eq!(huge.seconds, None);
    }

    #[test]
    fn ms_header() {
        let mut h = Headers::new();
        h.push("x-ms-retry-after-ms", "1500");
        let r = from_headers(&h, None);
        assert_eq!(r.seconds, Some(1.5));
        assert_eq!(r.header.as_deref(), Some("x-ms-retry-after-ms"));
    }
}
