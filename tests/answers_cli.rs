//! Answers a reader can act on (issue 42): each test runs the command a new user ran and
//! asserts the answer the report should have given.

mod common;
use common::*;

// ---- One list of finding kinds ----------------------------------------------------------

/// `--fail-on finding:KIND` accepts every kind the report emits (nested_retries and
/// retry_after_not_exposed were refused), and holds when the report has it.
#[test]
fn fail_on_accepts_every_kind_the_report_emits() {
    let out = toomany()
        .args(["analyze", &sample("retry-storm.jsonl"), "--format", "json"])
        .args(["--fail-on", "finding:nested_retries"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let kinds: Vec<String> = json_of(&out.stdout)["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap().to_string())
        .collect();
    assert!(kinds.contains(&"nested_retries".to_string()), "{kinds:?}");
    let out = toomany()
        .args(["analyze", &sample("cdn-burst.har"), "--format", "json"])
        .args(["--fail-on", "finding:retry_after_not_exposed"])
        .output()
        .unwrap();
    assert!(
        out.status.code() != Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The error for an unknown kind lists every kind, and the schema page documents each.
#[test]
fn every_kind_is_listed_and_documented() {
    let err = toomany()
        .args([
            "analyze",
            &sample("cdn-burst.har"),
            "--fail-on",
            "finding:nope",
        ])
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8_lossy(&err);
    let schema = std::fs::read_to_string(repo().join("docs/report-schema.md")).unwrap();
    for k in toomany::detect::Kind::ALL {
        assert!(err.contains(k.as_str()), "{k:?} missing from: {err}");
        assert!(
            schema.contains(&format!("`{}`", k.as_str())),
            "{k:?} is not documented in docs/report-schema.md"
        );
    }
}
