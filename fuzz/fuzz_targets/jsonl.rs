//! The JSON-lines reader: any bytes, read as JSON lines, never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use toomany::ingest::Format;

fuzz_target!(|data: &[u8]| {
    toomany_fuzz::ingest_bytes(data, Some(Format::Jsonl), None);
});
