//! Bounded fields: one 1 GiB `request.url` inside a ~1 MB gzip is read by `analyze` with a
//! located warning, the rest of the file is still read, and peak memory stays under 300 MB.
//!
//! The gzip is made here, not stored: a 1 MiB run of bytes compressed once, repeated as
//! concatenated gzip members (which every gzip reader, ours included, reads as one stream).
//! Peak memory is the child's maximum resident set size from getrusage; this file holds this
//! one test so no other child of the test process can be counted.

use flate2::write::GzEncoder;
use flate2::Compression;
use std::io::Write;
use std::process::Command;

fn member(data: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::best());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// Peak resident memory of the children waited for so far, in bytes.
fn children_max_rss() -> u64 {
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes into the struct we own; RUSAGE_CHILDREN is always valid.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
    assert_eq!(rc, 0);
    ru.ru_maxrss as u64 * 1024 // kilobytes on Linux
}

#[test]
fn a_gibibyte_url_in_a_megabyte_gzip_is_cut_with_a_warning_within_300_mb() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge-url.har.gz");
    let mut out = std::fs::File::create(&path).unwrap();
    let head = r#"{"log":{"version":"1.2","creator":{"name":"t","version":"1"},"entries":[{"startedDateTime":"2024-05-01T12:00:00.000Z","time":5,"request":{"method":"GET","url":"https://api.example.com/x?q="#;
    out.write_all(&member(head.as_bytes())).unwrap();
    let run = member(&vec![b'a'; 1 << 20]);
    for _ in 0..1024 {
        out.write_all(&run).unwrap();
    }
    let tail = r#"","headers":[]},"response":{"status":429,"headers":[{"name":"Retry-After","value":"7"}],"content":{"text":""}},"timings":{"wait":4}},
{"startedDateTime":"2024-05-01T12:00:01.000Z","time":5,"request":{"method":"GET","url":"https://api.example.com/y","headers":[]},"response":{"status":429,"headers":[{"name":"Retry-After","value":"7"}],"content":{"text":""}},"timings":{"wait":4}}]}}"#;
    out.write_all(&member(tail.as_bytes())).unwrap();
    drop(out);
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size < 2 << 20, "the gzip is small: {size} bytes");

    let result = Command::new(env!("CARGO_BIN_EXE_toomany"))
        .args(["analyze", "--format", "json"])
        .arg(&path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(result.status.success(), "{stderr}");
    assert!(
        stderr.len() < 4096,
        "warnings stay short: {} bytes",
        stderr.len()
    );
    let report: serde_json::Value = serde_json::from_slice(&result.stdout).unwrap();
    let input = &report["inputs"][0];
    assert_eq!(input["records"], 2, "both entries read: {input}");
    let warnings = input["warnings"].to_string();
    assert!(
        warnings.contains("request.url") && warnings.contains("cut"),
        "a located warning names the field: {warnings}"
    );
    assert!(input["warnings"][0]["entry"] == 0, "{warnings}");
    assert!(!warnings.contains("aaaaaaaaaaaaaaaa"), "no value quoted");
    assert_eq!(report["summary"]["rate_limited"], 2);

    let peak = children_max_rss();
    assert!(peak < 300 << 20, "peak RSS {} MB", peak >> 20);
}
