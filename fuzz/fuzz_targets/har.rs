//! The HAR reader: any bytes, read as a HAR (forced), never panic; the summary is consistent.
#![no_main]
use libfuzzer_sys::fuzz_target;
use toomany::ingest::Format;

fuzz_target!(|data: &[u8]| {
    toomany_fuzz::ingest_bytes(data, Some(Format::Har), None);
    // Sniffed too: the format decision itself must not panic.
    toomany_fuzz::ingest_bytes(data, None, None);
});
