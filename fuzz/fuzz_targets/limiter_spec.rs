//! `--limit` specs (`simulate`, `mock`): any text either parses or is refused with the accepted
//! forms; a parsed spec prints back to a spec that parses to the same thing; a limiter built
//! from it decides any arrival sequence without a panic (no overflow at large rates, long
//! windows or clocks near the end of u64).
#![no_main]
use libfuzzer_sys::fuzz_target;
use toomany::limiter::{parse_spec, Limiter};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (spec_text, arrivals) = text.split_once('\n').unwrap_or((&text, ""));
    let spec = match parse_spec(spec_text) {
        Ok(s) => s,
        Err(e) => {
            assert!(!e.to_string().is_empty());
            return;
        }
    };
    let shown = spec.to_string();
    assert_eq!(
        parse_spec(&shown).as_ref(),
        Ok(&spec),
        "{spec_text:?} printed as {shown:?}"
    );
    // Arrivals: each byte pair is a gap in ms; the first picks the start of the clock.
    let bytes = arrivals.as_bytes();
    let start: u64 = match bytes.first() {
        Some(b) if b % 4 == 0 => u64::MAX - (1 << 40),
        Some(b) if b % 4 == 1 => 0,
        _ => 1_700_000_000_000_000_000,
    };
    let mut limiter = Limiter::new(&spec);
    let mut now = start;
    for (i, pair) in bytes.chunks(2).take(2000).enumerate() {
        let gap_ms = pair.iter().fold(0u64, |a, &b| a << 8 | b as u64);
        now = now.saturating_add(gap_ms * 1_000_000);
        let d = limiter.admit(now);
        if d.admitted && i % 3 == 0 {
            limiter.release(now);
        }
    }
});
