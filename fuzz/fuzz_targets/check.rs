//! `check`: any bytes are either told apart as not a HAR, rejected as invalid JSON, or
//! checked; never a panic, and the report's counts agree.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let report = toomany::check::check_bytes(data, "fuzz.har", 50);
    if let Ok(r) = report {
        assert!(r.deviations.len() <= 50);
        assert!(r.deviations.len() <= r.deviation_count);
        assert!(r.entries_with_deviations <= r.entries);
    }
});
