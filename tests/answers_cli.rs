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

// ---- --limit per host, --host alone, the unit as given ----------------------------------

fn plans_of(v: &serde_json::Value) -> Vec<(String, serde_json::Value)> {
    v["recommendations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["host"].as_str().unwrap_or("").to_string(),
                r["limit"].clone(),
            )
        })
        .collect()
}

/// `--limit 10000/day` is for the busiest rate-limited host only: another host's 100/min stays
/// (it became 6.944/min), and the table prints the limit as given, not per minute.
#[test]
fn a_bare_limit_is_the_principal_hosts_and_printed_as_given() {
    let v = analyze_json_with(&[&sample("batch-burst.jsonl"), "--limit", "10000/day"]);
    let plans = plans_of(&v);
    assert_eq!(plans[0].0, "api.llm.example");
    assert_eq!(plans[0].1["source"], "flag");
    assert_eq!(plans[0].1["window_s"], 86400.0);
    assert_eq!(plans[1].0, "api.example.com");
    assert_eq!(plans[1].1["rate_per_minute"], 100.0, "{:?}", plans[1].1);
    assert_ne!(plans[1].1["source"], "flag");
    let out = toomany()
        .args([
            "analyze",
            &sample("batch-burst.jsonl"),
            "--limit",
            "10000/day",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("limit        10000/day (--limit)"), "{text}");
    assert!(text.contains("limit        100/min (estimated"), "{text}");
}

/// `--limit HOST=RATE`, repeatable: each host gets its own.
#[test]
fn limits_per_host() {
    let v = analyze_json_with(&[
        &sample("batch-burst.jsonl"),
        "--limit",
        "api.example.com=120/min",
        "--limit",
        "API.LLM.example=500/day",
    ]);
    let plans = plans_of(&v);
    let of = |h: &str| plans.iter().find(|p| p.0 == h).unwrap().1.clone();
    assert_eq!(of("api.example.com")["rate_per_minute"], 120.0);
    assert_eq!(of("api.llm.example")["window_s"], 86400.0);
    assert!(of("api.llm.example")["detail"]
        .as_str()
        .unwrap()
        .contains("--limit api.llm.example=500/day"));
    toomany()
        .args(["analyze", &sample("cdn-burst.har"), "--limit", "=120/min"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("HOST=RATE"));
}

/// `--host NAME` on its own narrows the plans to that host, and a bare `--limit` is its.
#[test]
fn host_alone_narrows_the_plan() {
    let v = analyze_json_with(&[
        &sample("batch-burst.jsonl"),
        "--host",
        "api.example.com",
        "--limit",
        "90/min",
    ]);
    let plans = plans_of(&v);
    assert_eq!(plans.len(), 1, "{plans:?}");
    assert_eq!(plans[0].0, "api.example.com");
    assert_eq!(plans[0].1["rate_per_minute"], 90.0);
    toomany()
        .args([
            "analyze",
            &sample("batch-burst.jsonl"),
            "--host",
            "nope.example",
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("api.llm.example"));
}
