//! `--log-format`: the first line is a user's format directive (nginx `log_format`, Envoy or
//! Apache `LogFormat`), the rest are log lines read with it. Compiling never panics; a format
//! that compiles reads any lines without a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use toomany::ingest::access::format::compile_user;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (spec, lines) = text.split_once('\n').unwrap_or((&text, ""));
    if let Ok(f) = compile_user(spec) {
        toomany_fuzz::ingest_bytes(lines.as_bytes(), None, Some(f));
    }
});
