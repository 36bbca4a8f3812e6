//! `check`: any bytes are either told apart as not a HAR, rejected as invalid JSON, or
//! checked; never a panic, the report's counts agree and its messages stay short.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let report = toomany::check::check_bytes(data, "fuzz.har", 50);
    if let Ok(r) = report {
        assert!(r.deviations.len() <= 50);
        assert!(r.deviations.len() <= r.deviation_count);
        assert!(r.entries_with_deviations <= r.entries);
        // Warnings (values over check's caps) are listed up to 100, plus one "more" line.
        assert!(r.warnings.len() <= 101);
        // Messages name the field and the problem: short whatever the input (a quoted value
        // would make them grow with it).
        for d in r.deviations.iter().chain(&r.warnings) {
            assert!(d.problem.len() <= 400, "{:?}", d.problem);
        }
    }
});
