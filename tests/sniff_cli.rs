//! One bad first line does not reject a file: formats are sniffed from several lines, and the
//! bad line is skipped with a located warning. Binary data inside a real gzip file is never
//! called "not gzip".

mod common;
use common::*;
use std::io::Write;

/// The report of `analyze PATH --format json`, which must exit 0.
fn report(path: &str) -> (serde_json::Value, String) {
    let out = toomany()
        .args(["analyze", path, "--format", "json"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{path}: {err}");
    (json_of(&out.stdout), err)
}

fn sample_lines() -> (Vec<u8>, usize) {
    let text = std::fs::read(sample("api-incident.jsonl")).unwrap();
    let lines = text.iter().filter(|&&b| b == b'\n').count();
    (text, lines)
}

/// The probe's trial: one byte of line 1 changed, 100 times (positions and bytes from a fixed
/// sequence). Every trial reads the rest of the file; a line 1 that no longer reads is skipped
/// with a warning naming line 1.
#[test]
fn one_changed_byte_in_line_one_never_rejects_the_file() {
    let (text, lines) = sample_lines();
    let first_len = text.iter().position(|&b| b == b'\n').unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let mut seed: u64 = 0x41;
    let mut next = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        seed >> 33
    };
    let bytes = [
        b'X', b'"', b'{', b'}', b',', b':', 0x00, 0xff, 0xc3, b' ', b'\\',
    ];
    let mut skipped_trials = 0;
    for trial in 0..100 {
        let at = next() as usize % first_len;
        let byte = bytes[next() as usize % bytes.len()];
        let mut changed = text.clone();
        changed[at] = byte;
        let p = write(tmp.path(), &format!("t{trial}.jsonl"), &changed);
        let (rep, err) = report(&p);
        let input = &rep["inputs"][0];
        let (records, skipped) = (
            input["records"].as_u64().unwrap(),
            input["skipped"].as_u64().unwrap(),
        );
        let case = format!("trial {trial}: byte {at} = {byte:#04x}");
        assert_eq!(input["format"], "jsonl", "{case}");
        assert!(
            records as usize >= lines - 1,
            "{case}: {records} of {lines} read"
        );
        assert_eq!(records + skipped, lines as u64, "{case}");
        if skipped == 1 {
            skipped_trials += 1;
            assert!(
                err.contains(":1: "),
                "{case}: the warning names line 1: {err}"
            );
        }
    }
    assert!(
        skipped_trials > 30,
        "most changes break the line: {skipped_trials}"
    );
}

/// `tail -c N` of a JSON-lines log: its first line is a record cut anywhere.
#[test]
fn tail_c_output_is_read() {
    let (text, lines) = sample_lines();
    let tmp = tempfile::tempdir().unwrap();
    for keep in [text.len() - 17, text.len() / 2 + 3, 5000, 1234] {
        let tail = &text[text.len() - keep..];
        let whole_lines = tail.iter().filter(|&&b| b == b'\n').count();
        let p = write(tmp.path(), &format!("tail{keep}.jsonl"), tail);
        let (rep, err) = report(&p);
        let input = &rep["inputs"][0];
        assert_eq!(input["format"], "jsonl", "{keep}");
        assert_eq!(
            input["records"].as_u64().unwrap() as usize,
            whole_lines - 1,
            "{keep}"
        );
        assert!(err.contains(":1: "), "{keep}: {err}");
        assert!(whole_lines < lines + 1);
    }
}

/// Invalid UTF-8 or NUL bytes in line 1 are a bad line, not "binary data".
#[test]
fn invalid_utf8_or_nul_in_line_one_is_a_bad_line() {
    let (text, lines) = sample_lines();
    let tmp = tempfile::tempdir().unwrap();
    for (name, first) in [
        ("utf8", b"\xff\xfe\xfd not text \xc3\x28\n".to_vec()),
        ("nul", b"{\"time\":\0\0\0\0\"x\"}\n".to_vec()),
        (
            "both",
            b"\0\0\0\0\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\n".to_vec(),
        ),
    ] {
        let mut input = first;
        input.extend_from_slice(&text);
        let p = write(tmp.path(), &format!("{name}.jsonl"), &input);
        let (rep, err) = report(&p);
        assert_eq!(
            rep["inputs"][0]["records"].as_u64().unwrap() as usize,
            lines,
            "{name}"
        );
        assert!(!err.contains("binary"), "{name}: {err}");
        assert!(err.contains(":1: "), "{name}: {err}");
    }
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// A real gzip file is never "not gzip": one holding binary data says it is gzip; a gzip
/// inside a gzip is read.
#[test]
fn a_real_gzip_file_is_never_called_not_gzip() {
    let (text, lines) = sample_lines();
    let tmp = tempfile::tempdir().unwrap();
    let binary: Vec<u8> = (0..4096u32).map(|i| (i * 7 % 251) as u8).collect();
    for (name, bytes) in [
        ("bin.gz", gzip(&binary)),
        ("bin.gz.gz", gzip(&gzip(&binary))),
    ] {
        let p = write(tmp.path(), name, &bytes);
        for cmd in ["analyze", "check", "redact"] {
            let out = toomany().args([cmd, &p, "-o", "-"]).output().unwrap();
            let out = if cmd == "check" {
                toomany().args([cmd, &p]).output().unwrap()
            } else {
                out
            };
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{cmd} {name}: {err}");
            assert!(err.contains("inside gzip"), "{cmd} {name}: {err}");
            assert!(!err.contains("not gzip"), "{cmd} {name}: {err}");
        }
    }
    let p = write(tmp.path(), "twice.jsonl.gz", &gzip(&gzip(&text)));
    let (rep, _) = report(&p);
    assert_eq!(
        rep["inputs"][0]["records"].as_u64().unwrap() as usize,
        lines
    );
}
