//! Retry-After (RFC 9110 §10.2.3): delay-seconds or an HTTP-date, plus the millisecond headers
//! some services send instead. One parser used by the analysis and by `toomany retry-after`, so
//! the report and the calculator can never disagree.

use super::date::parse_http_date;
use crate::http::headers::Headers;
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
///
/// Retry-After is a singleton field, but two layers sometimes both send it and exporters join
/// repeated lines with `, ` (RFC 9110 §5.3) or a newline: each value is then read on its own
/// and the longest wait wins, since a client must never wait less than a server asked.
pub fn parse(raw: &str, now: Option<DateTime<Utc>>) -> RetryAfter {
    let v = raw.trim();
    let parts: Vec<&str> = if v.contains('\n') {
        v.split('\n')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect()
    } else if v.contains(',') && parse_http_date(v).is_none() {
        v.split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect()
    } else {
        Vec::new()
    };
    if parts.len() >= 2 {
        let each: Vec<RetryAfter> = parts.iter().map(|p| parse_one(raw, p, now)).collect();
        if each.iter().all(|r| r.kind != Kind::Invalid) {
            let longest = each
                .iter()
                .max_by(|a, b| {
                    let w = |r: &RetryAfter| r.seconds.unwrap_or(f64::INFINITY);
                    w(a).total_cmp(&w(b))
                })
                .cloned()
                .expect("two or more parts");
            let same = parts.iter().all(|p| *p == parts[0]);
            let what = if same {
                format!(
                    "the same value {} times (repeated header lines joined)",
                    parts.len()
                )
            } else {
                format!(
                    "{} different values (repeated header lines joined): the longest wait is used",
                    parts.len()
                )
            };
            let mut r = longest;
            r.note = Some(match r.note {
                Some(n) => format!("{what}; {n}"),
                None => what,
            });
            return r;
        }
    }
    parse_one(raw, v, now)
}

/// One Retry-After value `v` (trimmed); `raw` is what the report shows as received.
fn parse_one(raw: &str, v: &str, now: Option<DateTime<Utc>>) -> RetryAfter {
    if v.is_empty() {
        return RetryAfter::invalid(raw, "empty value");
    }
    if v.bytes().all(|b| b.is_ascii_digit()) {
        if let Some(r) = epoch_timestamp(raw, v, now) {
            return r;
        }
        return match v.parse::<f64>() {
            Ok(s) if s <= MAX_REPRESENTABLE_S => read(raw, Some(s), Kind::Delta, None),
            _ => read(raw, None, Kind::Delta, Some("value too large to represent: the client cannot wait this long; stop or reschedule".into())),
        };
    }
    if let Ok(s) = v.parse::<f64>() {
        return not_delay_seconds(raw, v, s);
    }
    if let Some(date) = parse_http_date(v) {
        return until_date(raw, v, date, now);
    }
    RetryAfter::invalid(raw, "neither delay-seconds nor an HTTP-date")
}

/// A value read as `kind`, with its wait (when known) and a note.
fn read(raw: &str, seconds: Option<f64>, kind: Kind, note: Option<String>) -> RetryAfter {
    RetryAfter {
        raw: Some(raw.to_string()),
        seconds,
        kind,
        header: None,
        note,
    }
}

/// A number that is not plain digits (`s`): decimal seconds are read, with a note; a sign, an
/// exponent or a non-finite value is invalid.
fn not_delay_seconds(raw: &str, v: &str, s: f64) -> RetryAfter {
    if s.is_finite() && s >= 0.0 && v.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return read(
            raw,
            Some(s),
            Kind::Delta,
            Some("decimal seconds (RFC 9110 allows only integers); read as seconds".into()),
        );
    }
    RetryAfter::invalid(
        raw,
        if s < 0.0 {
            "negative number: not delay-seconds"
        } else {
            "not plain delay-seconds (sign, exponent or non-finite)"
        },
    )
}

/// An HTTP-date: the wait until it from `now` (0 when it is past, with a note), noting an
/// obsolete date form.
fn until_date(raw: &str, v: &str, date: DateTime<Utc>, now: Option<DateTime<Utc>>) -> RetryAfter {
    let Some(now) = now else {
        return read(
            raw,
            None,
            Kind::Date,
            Some("HTTP-date with no response Date or record time to measure from".into()),
        );
    };
    let secs = (date - now).num_milliseconds() as f64 / 1000.0;
    if secs < 0.0 {
        return read(
            raw,
            Some(0.0),
            Kind::Date,
            Some(format!(
                "date is {:.0} s in the past: wait 0 s, but still back off with jitter rather than retrying at once",
                -secs
            )),
        );
    }
    let note = match http_date_form(v) {
        DateForm::Imf => None,
        f => Some(format!(
            "obsolete {} date form (RFC 9110 §5.6.7 recipients must accept it)",
            f.name()
        )),
    };
    read(raw, Some(secs), Kind::Date, note)
}

/// Delay-seconds this large are at least this many years: no server asks for that wait.
const EPOCH_MIN: u64 = 1_000_000_000;
/// How far from the response's own time a number may lie to be read as its timestamp.
const EPOCH_NEAR_S: i64 = 86_400;

/// An integer of at least 10⁹ that, read as Unix epoch seconds (or milliseconds), lies within a
/// day of the response's time is a timestamp, not a delay of 31+ years: some platforms send
/// their reset time in Retry-After. Read as a date, with a note that the form is non-standard.
fn epoch_timestamp(raw: &str, v: &str, now: Option<DateTime<Utc>>) -> Option<RetryAfter> {
    let n: u64 = v.parse().ok().filter(|&n| n >= EPOCH_MIN)?;
    let now = now?;
    let near = |at: DateTime<Utc>| (at - now).num_seconds().abs() <= EPOCH_NEAR_S;
    let (at, unit) = [(n as i64, "seconds"), ((n / 1000) as i64, "milliseconds")]
        .into_iter()
        .filter_map(|(s, unit)| DateTime::from_timestamp(s, 0).map(|at| (at, unit)))
        .find(|(at, _)| near(*at))?;
    let at = if unit == "milliseconds" {
        DateTime::from_timestamp_millis(n as i64).unwrap_or(at)
    } else {
        at
    };
    let secs = ((at - now).num_milliseconds() as f64 / 1000.0).max(0.0);
    Some(RetryAfter {
        raw: Some(raw.to_string()),
        seconds: Some(secs),
        kind: Kind::Date,
        header: None,
        note: Some(format!(
            "a Unix timestamp in epoch {unit} ({}), not delay-seconds: non-standard (RFC 9110 allows delay-seconds or an HTTP-date); read as that date because it lies within a day of the response's time",
            at.format("%Y-%m-%d %H:%M:%S UTC")
        )),
    })
}

/// Which of the three RFC 9110 date forms a value uses (a value already known to parse).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateForm {
    /// `Sun, 06 Nov 1994 08:49:37 GMT`
    Imf,
    /// `Sunday, 06-Nov-94 08:49:37 GMT`
    Rfc850,
    /// `Sun Nov  6 08:49:37 1994`
    Asctime,
}

impl DateForm {
    pub fn name(&self) -> &'static str {
        match self {
            DateForm::Imf => "IMF-fixdate",
            DateForm::Rfc850 => "RFC 850",
            DateForm::Asctime => "asctime",
        }
    }
}

pub fn http_date_form(v: &str) -> DateForm {
    match v.split_once(',') {
        Some((_, rest))
            if rest
                .trim_start()
                .split(' ')
                .next()
                .map(|d| d.contains('-'))
                .unwrap_or(false) =>
        {
            DateForm::Rfc850
        }
        Some(_) => DateForm::Imf,
        None => DateForm::Asctime,
    }
}

/// Appended to a date's note when no `Date` header was there to measure from.
pub const CAPTURE_TIME_NOTE: &str =
    "measured from the capture time (the response has no usable Date header)";

/// Millisecond-valued retry headers some services send instead of (or beside) Retry-After.
pub const MS_HEADERS: &[&str] = &["retry-after-ms", "x-ms-retry-after-ms", "x-amz-retry-after"];

/// The Retry-After of a response: the standard header first, else a known millisecond header.
/// `record_time` is the capture time, used when the response has no `Date` header.
pub fn from_headers(headers: &Headers, record_time: Option<DateTime<Utc>>) -> RetryAfter {
    let now = headers
        .get("date")
        .and_then(parse_http_date)
        .or(record_time);
    let lines: Vec<&str> = headers.get_all("retry-after").collect();
    if !lines.is_empty() {
        let joined = lines.join("\n");
        let mut ra = parse(&joined, now);
        if lines.len() > 1 {
            // Shown as one field value, the way RFC 9110 §5.3 combines repeated lines.
            ra.raw = Some(lines.join(", "));
        }
        if ra.kind == Kind::Date && headers.get("date").and_then(parse_http_date).is_none() {
            let note = CAPTURE_TIME_NOTE;
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
    fn repeated_values_are_read_once_and_the_longest_wait_wins() {
        let now = parse_http_date("Sun, 06 Nov 1994 08:49:07 GMT");
        let r = parse("30, 30", now);
        assert_eq!((r.kind, r.seconds), (Kind::Delta, Some(30.0)));
        assert!(r.note.unwrap().contains("same value 2 times"));
        let r = parse("1, 30", now);
        assert_eq!(r.seconds, Some(30.0));
        assert!(r.note.unwrap().contains("longest wait"));
        // Newline-joined dates (a comma inside each date is not a separator).
        let r = parse(
            "Sun, 06 Nov 1994 08:49:37 GMT\nSun, 06 Nov 1994 08:49:17 GMT",
            now,
        );
        assert_eq!((r.kind, r.seconds), (Kind::Date, Some(30.0)));
        // A single date still parses as one value, and junk in a list stays invalid.
        assert_eq!(
            parse("Sun, 06 Nov 1994 08:49:37 GMT", now).seconds,
            Some(30.0)
        );
        assert_eq!(parse("30, soon", now).kind, Kind::Invalid);
        // Two header lines on one response.
        let mut h = Headers::new();
        h.push("date", "Sun, 06 Nov 1994 08:49:07 GMT");
        h.push("retry-after", "5");
        h.push("Retry-After", "20");
        let r = from_headers(&h, None);
        assert_eq!(r.seconds, Some(20.0));
        assert_eq!(r.raw.as_deref(), Some("5, 20"));
    }

    /// A Retry-After holding the reset time as an epoch timestamp (seen from a real platform)
    /// is that date, with a warning; far from the response's time it stays delay-seconds.
    #[test]
    fn epoch_timestamps_near_the_response_are_dates() {
        let now = parse_http_date("Mon, 07 Aug 2023 12:00:00 GMT");
        let at = now.expect("date").timestamp();
        let r = parse(&(at + 42).to_string(), now);
        assert_eq!(r.kind, Kind::Date);
        assert_eq!(r.seconds, Some(42.0));
        assert!(
            r.note.as_deref().unwrap_or("").contains("non-standard"),
            "{r:?}"
        );
        let r = parse(&((at + 90) * 1000 + 500).to_string(), now);
        assert_eq!((r.kind, r.seconds), (Kind::Date, Some(90.5)));
        assert!(r.note.as_deref().unwrap_or("").contains("milliseconds"));
        // Already past: wait 0, still a date.
        assert_eq!(parse(&(at - 30).to_string(), now).seconds, Some(0.0));
        // More than a day away, or nothing to compare with: delay-seconds as written.
        let far = parse(&(at + 3 * 86_400).to_string(), now);
        assert_eq!(far.kind, Kind::Delta);
        let none = parse(&(at + 42).to_string(), None);
        assert_eq!(
            (none.kind, none.seconds),
            (Kind::Delta, Some((at + 42) as f64))
        );
        // Below 10⁹ a big number is still seconds.
        assert_eq!(parse("999999999", now).kind, Kind::Delta);
    }

    #[test]
    fn ms_header() {
        let mut h = Headers::new();
        h.push("x-ms-retry-after-ms", "1500");
        let r = from_headers(&h, None);
        assert_eq!(r.seconds, Some(1.5));
        assert_eq!(r.header.as_deref(), Some("x-ms-retry-after-ms"));
    }

    #[test]
    fn obsolete_forms_are_labelled() {
        let now = parse_http_date("Sun, 06 Nov 1994 08:49:07 GMT");
        assert!(parse("Sunday, 06-Nov-94 08:49:37 GMT", now)
            .note
            .unwrap()
            .contains("RFC 850"));
        assert!(parse("Sun Nov  6 08:49:37 1994", now)
            .note
            .unwrap()
            .contains("asctime"));
        assert!(parse("Sun, 06 Nov 1994 08:49:37 GMT", now).note.is_none());
        assert!(parse("+5", None).note.unwrap().contains("not plain"));
    }

    #[test]
    fn date_uses_the_response_date_header_over_the_capture_time() {
        let mut h = Headers::new();
        h.push("Date", "Sun, 06 Nov 1994 08:49:07 GMT");
        h.push("Retry-After", "Sun, 06 Nov 1994 08:49:37 GMT");
        // The client's clock is 10 minutes fast: the server's own Date still gives 30 s.
        let skewed = parse_http_date("Sun, 06 Nov 1994 08:59:07 GMT");
        assert_eq!(from_headers(&h, skewed).seconds, Some(30.0));
    }

    mod props {
        use super::super::*;
        use crate::http::date::format_http_date;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn parse_never_panics(s in "\\PC{0,60}", secs in proptest::option::of(0i64..4_000_000_000)) {
                let now = secs.and_then(|s| DateTime::from_timestamp(s, 0));
                let r = parse(&s, now);
                if let Some(x) = r.seconds {
                    prop_assert!(x.is_finite() && x >= 0.0);
                }
                prop_assert_eq!(r.raw.as_deref(), Some(s.as_str()));
            }

            #[test]
            fn headers_never_panic(v in "\\PC{0,30}", name in prop::sample::select(vec!["retry-after", "retry-after-ms", "x-ms-retry-after-ms", "date"])) {
                let mut h = Headers::new();
                h.push(name, v.clone());
                h.push("date", v);
                let _ = from_headers(&h, None);
            }

            #[test]
            fn delta_seconds_are_seconds(n in 0u64..1_000_000_000) {
                let r = parse(&n.to_string(), None);
                prop_assert_eq!(r.kind, Kind::Delta);
                prop_assert_eq!(r.seconds, Some(n as f64));
            }

            /// All three date forms give the same wait, measured from `now`.
            #[test]
            fn dates_in_every_form_give_the_wait(t in 0i64..3_000_000_000, d in 0i64..1_000_000) {
                let at = DateTime::from_timestamp(t + d, 0).expect("in range");
                let now = DateTime::from_timestamp(t, 0);
                for v in [
                    format_http_date(at),
                    at.format("%A, %d-%b-%y %H:%M:%S GMT").to_string(),
                    at.format("%a %b %e %H:%M:%S %Y").to_string(),
                ] {
                    let r = parse(&v, now);
                    prop_assert_eq!(r.kind, Kind::Date, "{}", v);
                    prop_assert_eq!(r.seconds, Some(d as f64), "{}", v);
                }
            }
        }
    }
}

/// What a client should do with a Retry-After, and which rule decided it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Advice {
    /// `delay-seconds`, `milliseconds`, `http-date`, `past-date`, `too-large` or `backoff`.
    pub rule: &'static str,
    /// Seconds to wait; `None` when the client cannot wait that long.
    pub wait_seconds: Option<f64>,
    /// The random-wait window when no usable delay was given (full jitter), in seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window_seconds: Option<f64>,
    /// One sentence: the rule and its reason.
    pub explanation: String,
}

/// Largest fallback backoff window, seconds.
pub const BACKOFF_CAP_S: f64 = 8.0;

/// The capped exponential window for retry number `attempt` (0 = first retry):
/// min(8 s, 1 s × 2^attempt).
pub fn backoff_window(attempt: u32) -> f64 {
    2f64.powi(attempt.min(16) as i32).min(BACKOFF_CAP_S)
}

/// Decide the wait. `rand01` in [0, 1) picks the jittered wait, so this stays pure.
pub fn advise(ra: &RetryAfter, attempt: u32, rand01: f64) -> Advice {
    let window = backoff_window(attempt);
    let jitter = |why: String, rule: &'static str| {
        Advice {
        rule,
        wait_seconds: Some((rand01.clamp(0.0, 1.0) * window * 1000.0).round() / 1000.0),
        window_seconds: Some(window),
        explanation: format!(
            "{why}: wait a random time between 0 and {} s (full jitter in the capped exponential window min(8 s, 1 s × 2^{attempt}))",
            crate::units::fmt_num(window)
        ),
    }
    };
    match (ra.kind, ra.seconds) {
        (Kind::Delta, Some(s)) if ra.header.is_some() => Advice {
            rule: "milliseconds",
            wait_seconds: Some(s),
            window_seconds: None,
            explanation: format!(
                "{} is in milliseconds: wait {} s ({} ms); honour it as a minimum",
                ra.header.as_deref().unwrap_or("the header"),
                crate::units::fmt_num(s),
                crate::units::fmt_num(s * 1000.0)
            ),
        },
        (Kind::Delta, Some(s)) => Advice {
            rule: "delay-seconds",
            wait_seconds: Some(s),
            window_seconds: None,
            explanation: format!(
                "delay-seconds are seconds after the response (RFC 9110 §10.2.3), never milliseconds: wait {} s ({} ms) as a minimum, plus a little random spread when many workers resume",
                crate::units::fmt_num(s),
                crate::units::fmt_num(s * 1000.0)
            ),
        },
        (Kind::Delta, None) => Advice {
            rule: "too-large",
            wait_seconds: None,
            window_seconds: None,
            explanation: "the delay is too large to represent: the client cannot wait this long; stop or reschedule the job".into(),
        },
        (Kind::Date, Some(s)) if s > 0.0 => Advice {
            rule: "http-date",
            wait_seconds: Some(s),
            window_seconds: None,
            explanation: format!(
                "an HTTP-date ({}): wait until then, {} s from the reference time, as a minimum",
                http_date_form(ra.raw.as_deref().unwrap_or("")).name(),
                crate::units::fmt_num(s)
            ),
        },
        (Kind::Date, Some(_)) => jitter(
            "the HTTP-date is not in the future, so the server's wait is over (0 s) — but that is no licence to retry at once".into(),
            "past-date",
        ),
        (Kind::Date, None) => jitter("an HTTP-date with no reference time to measure it from".into(), "backoff"),
        (Kind::Invalid, _) => jitter(
            format!("{:?} is neither delay-seconds nor an HTTP-date", ra.raw.as_deref().unwrap_or("")),
            "backoff",
        ),
        (Kind::Absent, _) => jitter("no Retry-After was given".into(), "backoff"),
    }
}

#[cfg(test)]
mod advice_tests {
    use super::*;
    use crate::http::date::parse_http_date;

    #[test]
    fn rules() {
        assert_eq!(advise(&parse("12", None), 0, 0.5).wait_seconds, Some(12.0));
        assert_eq!(advise(&parse("12", None), 0, 0.5).rule, "delay-seconds");
        let now = parse_http_date("Sun, 06 Nov 1994 08:49:07 GMT");
        let a = advise(&parse("Sunday, 06-Nov-94 08:49:37 GMT", now), 0, 0.5);
        assert_eq!((a.rule, a.wait_seconds), ("http-date", Some(30.0)));
        let past = advise(&parse("Sun, 06 Nov 1994 08:00:00 GMT", now), 2, 0.5);
        assert_eq!(
            (past.rule, past.wait_seconds, past.window_seconds),
            ("past-date", Some(2.0), Some(4.0))
        );
        let inv = advise(&parse("soon", now), 10, 0.999);
        assert_eq!(inv.rule, "backoff");
        assert_eq!(inv.window_seconds, Some(8.0));
        assert!(inv.wait_seconds.unwrap() <= 8.0);
        assert_eq!(
            advise(&RetryAfter::absent(), 0, 0.0).window_seconds,
            Some(1.0)
        );
        assert_eq!(
            advise(&parse("99999999999999999999", None), 0, 0.5).rule,
            "too-large"
        );
    }

    #[test]
    fn windows() {
        let w: Vec<f64> = (0..6).map(backoff_window).collect();
        assert_eq!(w, vec![1.0, 2.0, 4.0, 8.0, 8.0, 8.0]);
        assert_eq!(backoff_window(u32::MAX), 8.0);
    }
}
