//! Shared by the fuzz targets: feed bytes through the same path the commands use.

use std::path::PathBuf;
use std::sync::Arc;
use toomany::ingest::{self, Format};
use toomany::redact::Redactor;

/// A stable redaction key: the same input always redacts the same way.
pub fn redactor() -> Redactor {
    Redactor::from_key_material(b"toomany fuzzing key, not a secret")
}

/// One scratch file per process (libFuzzer runs one input at a time per process).
fn scratch() -> PathBuf {
    scratch_named("in")
}

/// The per-process scratch file with extension `ext` (for readers that look at it).
pub fn scratch_named(ext: &str) -> PathBuf {
    let dir = if std::path::Path::new("/dev/shm").is_dir() {
        PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    dir.join(format!("toomany-fuzz-{}.{ext}", std::process::id()))
}

/// Read `data` as one input through `ingest::stream_input` (gzip detection, BOM, sniffing or the
/// forced `format`, the format's reader, normalization and redaction), on the calling thread.
pub fn ingest_bytes(
    data: &[u8],
    format: Option<Format>,
    log_format: Option<ingest::access::format::LogFormat>,
) -> ingest::Ingested {
    let path = scratch();
    std::fs::write(&path, data).expect("scratch file is writable");
    let mut opts = ingest::Options::new(redactor());
    opts.format = format;
    opts.log_format = log_format.map(Arc::new);
    opts.threads = Some(1);
    let got = ingest::read_input(path.to_str().expect("utf-8 temp path"), &opts);
    let _ = std::fs::remove_file(&path);
    invariants(&got);
    got
}

/// What must hold for any input: the summary agrees with what was streamed, and a reading
/// error never comes with a panic's wording.
fn invariants(got: &ingest::Ingested) {
    let s = &got.summary;
    assert_eq!(
        s.records,
        got.requests.len(),
        "records counted = records streamed"
    );
    assert!(
        s.warnings.len() <= s.warning_count,
        "kept warnings <= counted"
    );
    if let Some(e) = &s.error {
        assert!(!e.contains("panicked"), "{e}");
    }
}

/// The first byte picks one of `choices` (so one target covers a family of parsers); the rest
/// is the input.
pub fn pick<'a, T: Copy>(data: &'a [u8], choices: &[T]) -> Option<(T, &'a [u8])> {
    let (&first, rest) = data.split_first()?;
    Some((choices[first as usize % choices.len()], rest))
}
