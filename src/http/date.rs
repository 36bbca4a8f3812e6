//! HTTP-date parsing (RFC 9110 §5.6.7): recipients must accept IMF-fixdate, the obsolete RFC 850
//! form and asctime. Also the timestamp forms that logs and HARs use (RFC 3339, epoch s/ms).

use chrono::{DateTime, NaiveDate, NaiveDateTime, TimeZone, Utc};

/// Parse an HTTP-date in any of the three formats RFC 9110 requires recipients to accept.
pub fn parse_http_date(s: &str) -> Option<DateTime<Utc>> {
    let s = s.trim();
    // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT (also tolerate "+0000" and single-digit days).
    for fmt in [
        "%a, %d %b %Y %H:%M:%S GMT",
        "%a, %d %b %Y %H:%M:%S UTC",
        "%a, %d %b %Y %H:%M:%S +0000",
        "%d %b %Y %H:%M:%S GMT",
    ] {
        if let Ok(t) = NaiveDateTime::parse_from_str(s, fmt) {
            return Some(Utc.from_utc_datetime(&t));
        }
    }
    // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT (two-digit year: RFC 9110 says interpret a year
    // more than 50 years in the future as the past century).
    if let Some((_, rest)) = s.split_once(", ") {
        if let Some(rest) = rest.strip_suffix(" GMT") {
            if let Ok(t) = NaiveDateTime::parse_from_str(rest, "%d-%b-%y %H:%M:%S") {
                return Some(Utc.from_utc_datetime(&t));
            }
            if let Ok(t) = NaiveDateTime::parse_from_str(rest, "%d-%b-%Y %H:%M:%S") {
                return Some(Utc.from_utc_datetime(&t));
            }
        }
    }
    // asctime: Sun Nov  6 08:49:37 1994 (day padded with a space).
    let collapsed: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if let Ok(t) = NaiveDateTime::parse_from_str(&collapsed, "%a %b %e %H:%M:%S %Y") {
        return Some(Utc.from_utc_datetime(&t));
    }
    without_weekday(s)
}

/// The three forms again with the weekday ignored: some servers compute it wrong, and the
/// date itself is still what they meant.
fn without_weekday(s: &str) -> Option<DateTime<Utc>> {
    let (day, rest) = s.split_once([',', ' '])?;
    if !day.chars().all(|c| c.is_ascii_alphabetic()) || day.is_empty() {
        return None;
    }
    let rest = rest.trim_start_matches(',').trim();
    let collapsed: String = rest.split_whitespace().collect::<Vec<_>>().join(" ");
    for fmt in [
        "%d %b %Y %H:%M:%S GMT",
        "%d-%b-%y %H:%M:%S GMT",
        "%d-%b-%Y %H:%M:%S GMT",
        "%b %e %H:%M:%S %Y",
    ] {
        if let Ok(t) = NaiveDateTime::parse_from_str(&collapsed, fmt) {
            return Some(Utc.from_utc_datetime(&t));
        }
    }
    None
}

/// Parse a timestamp as logs and HARs write it: RFC 3339 / ISO 8601 (with or without offset),
/// an HTTP-date, or epoch seconds / milliseconds / microseconds told apart by magnitude.
pub fn parse_timestamp(s: &str) -> Option<DateTime<Utc>> {
    let t = s.trim();
    if t.is_empty() {
        return None;
    }
    if let Ok(d) = DateTime::parse_from_rfc3339(t) {
        return Some(d.with_timezone(&Utc));
    }
    // ISO 8601 variants real exporters write: space separator, no offset (taken as UTC),
    // offset without colon.
    for fmt in [
        "%Y-%m-%dT%H:%M:%S%.f%z",
        "%Y-%m-%d %H:%M:%S%.f%z",
        "%Y-%m-%d %H:%M:%S%.f %z",
    ] {
        if let Ok(d) = DateTime::parse_from_str(t, fmt) {
            return Some(d.with_timezone(&Utc));
        }
    }
    for fmt in [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M:%S%.fZ",
    ] {
        if let Ok(d) = NaiveDateTime::parse_from_str(t, fmt) {
            return Some(Utc.from_utc_datetime(&d));
        }
    }
    if let Ok(d) = NaiveDate::parse_from_str(t, "%Y-%m-%d") {
        return d.and_hms_opt(0, 0, 0).map(|n| Utc.from_utc_datetime(&n));
    }
    // Java locale format (BrowserMob via Gson): "Feb 16, 2018 4:41:28 PM" (local time unknown:
    // read as UTC).
    if let Ok(d) = NaiveDateTime::parse_from_str(t, "%b %e, %Y %l:%M:%S %p") {
        return Some(Utc.from_utc_datetime(&d));
    }
    if let Some(d) = parse_http_date(t) {
        return Some(d);
    }
    if let Ok(n) = t.parse::<f64>() {
        return epoch_to_datetime(n);
    }
    None
}

/// Epoch seconds, milliseconds or microseconds, told apart by magnitude.
pub fn epoch_to_datetime(n: f64) -> Option<DateTime<Utc>> {
    if !n.is_finite() || n < 0.0 {
        return None;
    }
    let micros = if n >= 1e14 {
        n // microseconds
    } else if n >= 1e11 {
        n * 1e3 // milliseconds
    } else {
        n * 1e6 // seconds
    };
    if micros > 4.0e15 * 1e3 {
        return None;
    }
    DateTime::from_timestamp_micros(micros as i64)
}

/// Format as IMF-fixdate.
pub fn format_http_date(t: DateTime<Utc>) -> String {
    t.format("%a, %d %b %Y %H:%M:%S GMT").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_http_date_forms_agree() {
        let a = parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
        let b = parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT").unwrap();
        let c = parse_http_date("Sun Nov  6 08:49:37 1994").unwrap();
        assert_eq!(a, b);
        assert_eq!(a, c);
        assert_eq!(format_http_date(a), "Sun, 06 Nov 1994 08:49:37 GMT");
    }

    #[test]
    fn timestamps() {
        let a = parse_timestamp("2024-05-01T12:00:00.123Z").unwrap();
        assert_eq!(parse_timestamp("1714564800.123").unwrap(), a);
        assert_eq!(parse_timestamp("1714564800123").unwrap(), a);
        assert_eq!(parse_timestamp("2024-05-01T14:00:00.123+02:00").unwrap(), a);
        assert!(parse_timestamp("Feb 16, 2018 4:41:28 PM").is_some());
        assert!(parse_timestamp("yesterday").is_none());
    }
}

#[cfg(test)]
mod props {
    use super::*;
    use proptest::prelude::*;

    fn rfc850(t: DateTime<Utc>) -> String {
        t.format("%A, %d-%b-%y %H:%M:%S GMT").to_string()
    }

    fn asctime(t: DateTime<Utc>) -> String {
        t.format("%a %b %e %H:%M:%S %Y").to_string()
    }

    proptest! {
        /// Every instant from 1970 to 2068 survives all three formats (RFC 850's two-digit
        /// year is read in the 1969–2068 window).
        #[test]
        fn three_formats_round_trip(secs in 0i64..3_124_137_600) {
            let t = DateTime::from_timestamp(secs, 0).expect("in range");
            prop_assert_eq!(parse_http_date(&format_http_date(t)), Some(t));
            prop_assert_eq!(parse_http_date(&rfc850(t)), Some(t));
            prop_assert_eq!(parse_http_date(&asctime(t)), Some(t));
        }

        #[test]
        fn never_panics(s in "\\PC{0,40}") {
            let _ = parse_http_date(&s);
            let _ = parse_timestamp(&s);
        }
    }

    #[test]
    fn wrong_weekday_is_tolerated() {
        // Some servers compute the weekday wrong; the date itself is still usable.
        assert_eq!(
            parse_http_date("Mon, 06 Nov 1994 08:49:37 GMT"),
            parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT")
        );
    }
}
