//! Retry-After parsing and the advice built on it: never panic; a wait is finite and never
//! negative; a window is within the backoff cap.
#![no_main]
use chrono::{TimeZone, Utc};
use libfuzzer_sys::fuzz_target;
use toomany::http::retry_after::{advise, http_date_form, parse, BACKOFF_CAP_S};

fuzz_target!(|data: &[u8]| {
    if data.len() < 9 {
        return;
    }
    let (head, rest) = data.split_at(9);
    let secs = i64::from_le_bytes(head[..8].try_into().unwrap()) % 8_000_000_000;
    let now = Utc.timestamp_opt(secs, 0).single();
    let attempt = head[8] as u32;
    let raw = String::from_utf8_lossy(rest);
    for n in [now, None] {
        let ra = parse(&raw, n);
        if let Some(s) = ra.seconds {
            assert!(s.is_finite() && s >= 0.0, "{raw:?} -> {s}");
        }
        for r01 in [0.0, 0.5, 0.999_999] {
            let a = advise(&ra, attempt, r01);
            if let Some(w) = a.wait_seconds {
                assert!(w.is_finite() && w >= 0.0, "{raw:?} -> wait {w}");
            }
            if let Some(w) = a.window_seconds {
                assert!(w > 0.0 && w <= BACKOFF_CAP_S, "{raw:?} -> window {w}");
            }
        }
    }
    let _ = http_date_form(&raw);
    let _ = toomany::http::date::parse_http_date(&raw);
    let _ = toomany::http::date::parse_timestamp(&raw);
});
