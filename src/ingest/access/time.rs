//! Timestamps as access logs write them, to epoch microseconds, by fixed offsets: no strftime
//! parser and no allocation per line (chrono's format parser costs more than the rest of a
//! combined line together).
//!
//! Shapes: CLF `10/Oct/2000:13:55:36 -0700` (nginx `$time_local`, Apache `%t`), HAProxy
//! `06/Feb/2009:12:14:14.655` (milliseconds, no zone), ISO 8601 / RFC 3339 with `T` or a space,
//! `Z` or an offset and 0–9 fraction digits, and epoch seconds with a fraction (`$msec`).

use crate::memo::Memo;

/// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

fn digits(b: &[u8]) -> Option<u32> {
    if b.is_empty() {
        return None;
    }
    let mut v = 0u32;
    for &c in b {
        if !c.is_ascii_digit() {
            return None;
        }
        // Checked: a field of many digits is not a time (found by fuzzing: it overflowed).
        v = v.checked_mul(10)?.checked_add((c - b'0') as u32)?;
    }
    Some(v)
}

fn month(b: &[u8]) -> Option<u32> {
    const M: [&[u8; 3]; 12] = [
        b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov",
        b"Dec",
    ];
    let b: &[u8] = b.get(..3)?;
    M.iter()
        .position(|m| m.eq_ignore_ascii_case(b))
        .map(|i| i as u32 + 1)
}

fn valid(y: i64, mo: u32, d: u32, h: u32, mi: u32, s: u32) -> bool {
    (1970..=9999).contains(&y)
        && (1..=12).contains(&mo)
        && (1..=31).contains(&d)
        && h < 24
        && mi < 60
        && s <= 60
}

fn micros(y: i64, mo: u32, d: u32, h: u32, mi: u32, s: u32) -> i64 {
    let days = days_from_civil(y, mo, d);
    ((days * 86400) + h as i64 * 3600 + mi as i64 * 60 + s as i64) * 1_000_000
}

/// A fraction after the seconds (`.655`, `,123456`): microseconds and bytes used.
fn fraction(b: &[u8]) -> (i64, usize) {
    if b.first().is_some_and(|&c| c == b'.' || c == b',') {
        let n = b[1..].iter().take_while(|c| c.is_ascii_digit()).count();
        let mut us = 0i64;
        for (i, &c) in b[1..1 + n].iter().enumerate() {
            if i < 6 {
                us = us * 10 + (c - b'0') as i64;
            }
        }
        for _ in n..6 {
            us *= 10;
        }
        (us, 1 + n)
    } else {
        (0, 0)
    }
}

/// `Z`, `+02:00`, `+0200`, `-07`: offset in seconds, bytes used. Nothing = UTC.
fn offset(b: &[u8]) -> Option<(i64, usize)> {
    match b.first() {
        None => Some((0, 0)),
        Some(b'Z') | Some(b'z') => Some((0, 1)),
        Some(&sign @ (b'+' | b'-')) => {
            let rest = &b[1..];
            let (h, m, used) = if rest.len() >= 5 && rest[2] == b':' {
                (digits(&rest[..2])?, digits(&rest[3..5])?, 6)
            } else if rest.len() >= 4 && rest[..4].iter().all(u8::is_ascii_digit) {
                (digits(&rest[..2])?, digits(&rest[2..4])?, 5)
            } else if rest.len() >= 2 {
                (digits(&rest[..2])?, 0, 3)
            } else {
                return None;
            };
            let secs = (h * 3600 + m * 60) as i64;
            Some((if sign == b'-' { -secs } else { secs }, used))
        }
        Some(_) => None,
    }
}

/// The longest CLF time [`clf`] remembers (`10/Oct/2000:13:55:36.123456 -0700` is 33 bytes;
/// longer ones are parsed every time).
const CLF_CACHE_MAX: usize = 40;

thread_local! {
    /// The last CLF time this thread parsed. Log lines come in time order, many to a second:
    /// the previous line's time text is nearly always this line's too, and comparing 26 bytes
    /// is far cheaper than parsing them (2.2 % of an access log's instructions on the realistic
    /// bench input). The value is a pure function of the bytes, so a hit is exact.
    static LAST_CLF: std::cell::RefCell<Memo<i64>> =
        const { std::cell::RefCell::new(Memo::new(1, CLF_CACHE_MAX)) };
}

/// CLF `10/Oct/2000:13:55:36 -0700`, also with a fraction (`.655`) and without a zone
/// (HAProxy's local time, read as UTC). Brackets are the caller's. The previous success of
/// this thread is remembered (see [`LAST_CLF`]).
pub fn clf(s: &[u8]) -> Option<i64> {
    LAST_CLF
        .try_with(|m| {
            let mut m = m.borrow_mut();
            match m.find(s) {
                Ok(&v) => Some(v),
                Err(miss) => {
                    let v = clf_uncached(s)?;
                    if let Some(miss) = miss {
                        m.put(miss, s, v);
                    }
                    Some(v)
                }
            }
        })
        .unwrap_or_else(|_| clf_uncached(s))
}

/// [`clf`] without the cache.
fn clf_uncached(s: &[u8]) -> Option<i64> {
    if s.len() < 20 || s[2] != b'/' || s[6] != b'/' || s[11] != b':' {
        return None;
    }
    let d = digits(&s[0..2])?;
    let mo = month(&s[3..6])?;
    let y = digits(&s[7..11])? as i64;
    if s[14] != b':' || s[17] != b':' {
        return None;
    }
    let h = digits(&s[12..14])?;
    let mi = digits(&s[15..17])?;
    let sec = digits(&s[18..20])?;
    if !valid(y, mo, d, h, mi, sec) {
        return None;
    }
    let (frac, used) = fraction(&s[20..]);
    let rest = &s[20 + used..];
    let rest = rest.strip_prefix(b" ").unwrap_or(rest);
    let (off, used2) = offset(rest)?;
    if used2 != rest.len() {
        return None;
    }
    Some(micros(y, mo, d, h, mi, sec) + frac - off * 1_000_000)
}

/// ISO 8601 / RFC 3339: `2016-04-15T20:17:00.310Z`, `2020-10-07 23:00:17`, `...+02:00`.
pub fn iso(s: &[u8]) -> Option<i64> {
    if s.len() < 19 || s[4] != b'-' || s[7] != b'-' || !(s[10] == b'T' || s[10] == b' ') {
        return None;
    }
    let y = digits(&s[0..4])? as i64;
    let mo = digits(&s[5..7])?;
    let d = digits(&s[8..10])?;
    if s[13] != b':' || s[16] != b':' {
        return None;
    }
    let h = digits(&s[11..13])?;
    let mi = digits(&s[14..16])?;
    let sec = digits(&s[17..19])?;
    if !valid(y, mo, d, h, mi, sec) {
        return None;
    }
    let (frac, used) = fraction(&s[19..]);
    let rest = &s[19 + used..];
    let (off, used2) = offset(rest)?;
    if used2 != rest.len() {
        return None;
    }
    Some(micros(y, mo, d, h, mi, sec) + frac - off * 1_000_000)
}

/// Epoch seconds with an optional fraction (`1506702504.433`, nginx `$msec`).
pub fn epoch_seconds(s: &[u8]) -> Option<i64> {
    let dot = s.iter().position(|&c| c == b'.').unwrap_or(s.len());
    let secs = digits(&s[..dot])? as i64;
    let (frac, used) = fraction(&s[dot..]);
    if dot + used != s.len() {
        return None;
    }
    Some(secs * 1_000_000 + frac)
}

/// Any of the above, or an integer epoch whose magnitude says its unit (s, ms, µs, ns) — only
/// for JSON fields documented as "int or string" (Cloudflare's `timestamp_format`).
pub fn any(s: &[u8]) -> Option<i64> {
    let s = trim(s);
    if s.is_empty() {
        return None;
    }
    if s.iter().all(u8::is_ascii_digit) {
        return epoch_integer(s);
    }
    iso(s).or_else(|| clf(s)).or_else(|| epoch_seconds(s))
}

/// An integer epoch in s, ms, µs or ns, told apart by size (10, 13, 16, 19 digits today).
pub fn epoch_integer(s: &[u8]) -> Option<i64> {
    if s.len() > 19 {
        return None;
    }
    let v: i64 = std::str::from_utf8(s).ok()?.parse().ok()?;
    Some(epoch_integer_value(v))
}

pub fn epoch_integer_value(v: i64) -> i64 {
    if v >= 100_000_000_000_000_000 {
        v / 1000
    } else if v >= 100_000_000_000_000 {
        v
    } else if v >= 100_000_000_000 {
        v * 1000
    } else {
        // Saturating: a negative JSON integer must not overflow.
        v.saturating_mul(1_000_000)
    }
}

fn trim(s: &[u8]) -> &[u8] {
    let start = s
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(s.len());
    let end = s
        .iter()
        .rposition(|c| !c.is_ascii_whitespace())
        .map(|e| e + 1)
        .unwrap_or(start);
    &s[start..end.max(start)]
}

/// Microseconds since the epoch as a UTC time.
pub fn to_datetime(us: i64) -> Option<chrono::DateTime<chrono::Utc>> {
    chrono::DateTime::from_timestamp_micros(us)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::{prop, prop_assert_eq, proptest};

    /// Found by fuzzing (fuzz/artifacts/access_envoy): a long run of digits where a time was
    /// expected overflowed `digits` (a panic in debug builds, a wrong time in release).
    #[test]
    fn long_digit_runs_and_negative_epochs_are_no_time_and_no_panic() {
        let long = "9".repeat(60);
        assert_eq!(epoch_seconds(long.as_bytes()), None);
        assert_eq!(epoch_seconds(format!("{long}.5").as_bytes()), None);
        assert_eq!(
            any(format!("[{long}2024-09-15T16:27:47Z]").as_bytes()),
            None
        );
        assert_eq!(epoch_integer_value(i64::MIN), i64::MIN);
        assert_eq!(epoch_integer_value(-5), -5_000_000);
    }

    fn at(s: &str) -> String {
        to_datetime(any(s.as_bytes()).unwrap())
            .unwrap()
            .to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
    }

    proptest! {
        /// The one-entry cache answers as the parse would, whatever came before (repeats,
        /// lookalikes of another length or zone, invalid times between valid ones).
        #[test]
        fn clf_cache_is_the_parse(picks in prop::collection::vec(0usize..8, 1..40)) {
            const TIMES: [&[u8]; 8] = [
                b"10/Oct/2000:13:55:36 -0700",
                b"10/Oct/2000:13:55:36 +0700",
                b"10/Oct/2000:13:55:36",
                b"10/Oct/2000:13:55:36.5 -0700",
                b"10/Oct/2000:13:55:37 -0700",
                b"32/Oct/2000:13:55:36 -0700",
                b"",
                b"10/Oct/2000:13:55:36.123456789012345678901234 -0700",
            ];
            for i in picks {
                prop_assert_eq!(clf(TIMES[i]), clf_uncached(TIMES[i]));
            }
        }
    }

    #[test]
    fn clf_with_zone_and_fraction() {
        assert_eq!(
            at("10/Oct/2000:13:55:36 -0700"),
            "2000-10-10T20:55:36.000000Z"
        );
        assert_eq!(
            at("06/Feb/2009:12:14:14.655"),
            "2009-02-06T12:14:14.655000Z"
        );
        assert_eq!(
            at("07/Dec/2016:11:05:07 +0100"),
            "2016-12-07T10:05:07.000000Z"
        );
        assert!(clf(b"32/Oct/2000:13:55:36 -0700").is_none());
        assert!(clf(b"10/Foo/2000:13:55:36 -0700").is_none());
        assert!(clf(b"10/Oct/2000:13:55:36 junk").is_none());
    }

    #[test]
    fn iso_shapes() {
        assert_eq!(
            at("2016-04-15T20:17:00.310Z"),
            "2016-04-15T20:17:00.310000Z"
        );
        assert_eq!(
            at("2018-07-02T22:23:00.186641Z"),
            "2018-07-02T22:23:00.186641Z"
        );
        assert_eq!(at("2020-10-07 23:00:17"), "2020-10-07T23:00:17.000000Z");
        assert_eq!(
            at("2024-06-12T10:09:11.823400+02:00"),
            "2024-06-12T08:09:11.823400Z"
        );
        assert_eq!(
            at("2023-04-21T15:59:24.827008123Z"),
            "2023-04-21T15:59:24.827008Z"
        );
        assert!(iso(b"2023-13-21T15:59:24Z").is_none());
    }

    #[test]
    fn epochs() {
        assert_eq!(at("1506702504.433"), "2017-09-29T16:28:24.433000Z");
        assert_eq!(at("1653485126"), "2022-05-25T13:25:26.000000Z");
        assert_eq!(at("1726783839538"), "2024-09-19T22:10:39.538000Z");
        assert_eq!(at("1506702504433000200"), "2017-09-29T16:28:24.433000Z");
        assert!(epoch_seconds(b"12a").is_none());
    }

    #[test]
    fn never_panics_on_short_or_odd_input() {
        for s in [
            "",
            "1",
            "10/Oct",
            "2016-04-15T",
            "-",
            "10/Oct/2000:13:55:36 +",
            "9".repeat(30).as_str(),
        ] {
            let _ = any(s.as_bytes());
            let _ = clf(s.as_bytes());
            let _ = iso(s.as_bytes());
        }
    }
}
