//! Shared helpers for CLI tests: the binary with a fixed environment, and fixture paths.
#![allow(dead_code)]

#[cfg(unix)]
pub mod pty;
pub mod wrappers;

use assert_cmd::Command;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A check that cannot run here: says so on the process's real stderr, or fails when any of
/// `require` (e.g. `TOOMANY_REQUIRE_E2E`, which `.ci/run` sets once it installed the clients) is
/// set. `eprintln!` inside a test is captured by the harness and shown only when the test fails,
/// so a passing test that skipped would say nothing; a write to `std::io::stderr()` is not
/// captured, and `cargo test` prints it.
pub fn skipped(what: &str, require: &[&str]) {
    for var in require {
        if std::env::var_os(var).is_some() {
            panic!("{var} is set but {what}");
        }
    }
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    let line = format!("SKIPPED in {test}: {what}\n");
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

/// `toomany` with colour off and no inherited NO_COLOR surprises.
pub fn toomany() -> Command {
    let mut c = Command::cargo_bin("toomany").expect("binary builds");
    c.env("NO_COLOR", "1");
    c
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn sample(name: &str) -> String {
    repo()
        .join("samples")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

pub fn fixture(name: &str) -> String {
    repo()
        .join("tests/fixtures")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// The real-exporter corpus kept in the repository (`tests/corpus/real-har`, see its MANIFEST).
pub fn corpus_dir() -> PathBuf {
    let p = repo().join("tests/corpus/real-har");
    assert!(p.is_dir(), "{} is part of the repository", p.display());
    p
}

pub fn json_of(out: &[u8]) -> serde_json::Value {
    serde_json::from_slice(out)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(out)))
}

pub fn write(dir: &Path, name: &str, content: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, content).expect("write fixture");
    p.to_string_lossy().into_owned()
}

/// `toomany analyze PATH --format json`, which must succeed: the report.
pub fn analyze_json(path: &str) -> serde_json::Value {
    analyze_json_with(&[path])
}

/// `toomany analyze ARGS… --format json`, asserting success.
pub fn analyze_json_with(args: &[&str]) -> serde_json::Value {
    let out = toomany()
        .arg("analyze")
        .args(args)
        .args(["--format", "json"])
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    json_of(&out.stdout)
}
