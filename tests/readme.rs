//! The README's quick-start command runs, and the output excerpt it shows is real.

mod common;
use common::*;

#[test]
fn readme_quick_start_and_excerpt_are_true() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let cmd = readme
        .lines()
        .find(|l| l.starts_with("cargo run --release -- analyze "))
        .expect("README has the quick-start command");
    let args: Vec<&str> = cmd
        .trim_start_matches("cargo run --release -- ")
        .split_whitespace()
        .collect();
    assert!(
        readme.lines().any(|l| l.trim() == "cargo test"),
        "README names the test command"
    );
    // The excerpt is the 80-column layout (the width of a pipe without COLUMNS).
    let out = toomany()
        .args(&args)
        .env("COLUMNS", "80")
        .current_dir(repo())
        .assert()
        .success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    // Every excerpt line that does not carry a per-run fingerprint appears verbatim.
    let excerpt: Vec<&str> = readme
        .split("```text")
        .nth(1)
        .and_then(|s| s.split("```").next())
        .expect("README has an output excerpt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.contains("<redacted:"))
        .collect();
    assert!(excerpt.len() >= 3);
    for line in excerpt {
        assert!(
            stdout.contains(line.trim_end()),
            "README excerpt line not in real output: {line}\n---\n{stdout}"
        );
    }
}
