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

// ---- Quiet, and one line for the expected notes -----------------------------------------

/// `--emit-config` says what it wrote and how many notes the files carry in a few lines (it
/// wrote 48, 37 of them "cannot express"); `-q` leaves stderr empty and still writes.
#[test]
fn emit_config_is_brief_and_quiet_is_silent() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("client-config");
    let out = toomany()
        .args(["analyze", &sample("api-incident.jsonl"), "--emit-config"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.lines().count() <= 4, "{err}");
    assert!(!err.contains("cannot express:"), "{err}");
    let summary = err
        .lines()
        .find(|l| l.contains("on what the tools cannot express"))
        .unwrap_or_else(|| panic!("{err}"));
    let envoy = std::fs::read_to_string(dir.join("envoy.yaml")).unwrap();
    assert!(envoy.contains("What this tool cannot express"), "{envoy}");
    assert!(summary.contains("envoy "), "{summary}");

    let quiet = d.path().join("quiet");
    for q in ["-q", "--quiet"] {
        let _ = std::fs::remove_dir_all(&quiet);
        toomany()
            .args([q, "analyze", &sample("api-incident.jsonl"), "--emit-config"])
            .arg(&quiet)
            .assert()
            .success()
            .stderr("");
        assert!(quiet.join("toomany.toml").is_file());
    }
    // After the subcommand too, and errors still print.
    toomany()
        .args([
            "analyze",
            &sample("cdn-burst.har"),
            "--fail-on",
            "any-429",
            "--quiet",
        ])
        .assert()
        .code(1)
        .stderr("");
    toomany()
        .args(["analyze", "--quiet", "no-such-file.har"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("error"));
}
