//! `toomany compare` and `--fail-on`: did the fix work, and can a pipeline gate on it.

mod common;
use common::*;

fn before() -> String {
    sample("compare/before.har")
}
fn after() -> String {
    sample("compare/after.har")
}

fn compare_json(b: &str, a: &str, extra: &[&str]) -> (serde_json::Value, i32) {
    let out = toomany()
        .args(["compare", b, "--against", a, "--format", "json"])
        .args(extra)
        .output()
        .unwrap();
    (
        json_of(&out.stdout),
        out.status.code().expect("exited with a code"),
    )
}

fn kinds(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn spacing_the_job_by_the_plan_is_improved_with_the_burst_resolved() {
    let (v, code) = compare_json(&before(), &after(), &["--fail-on", "regressed"]);
    assert_eq!(code, 0);
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["verdict"], "improved");
    assert_eq!(kinds(&v["findings"]["resolved"]), ["burst"]);
    assert!(kinds(&v["findings"]["new"]).is_empty());
    assert_eq!(v["before"]["rate_limited"], 100);
    assert_eq!(v["after"]["rate_limited"], 0);
    // Shares and rates, not raw counts.
    assert_eq!(v["delta"]["rate_limited"], -100);
    let share = v["delta"]["rate_limited_share"].as_f64().unwrap();
    assert!((share + 1.0 / 3.0).abs() < 1e-9, "{share}");
    assert_eq!(v["delta"]["attempts_per_logical"], -0.5);
    assert!(v["delta"]["peak_rate_per_s"].as_f64().unwrap() < -100.0);
    let host = &v["hosts"][0];
    assert_eq!(host["host"], "api.example.com");
    assert_eq!(host["recommendation_changed"], true);
    assert_eq!(host["before"]["retry_after_honoured"], 100);
    assert_eq!(host["before"]["max_in_flight"], 6);
    assert_eq!(host["after"]["max_in_flight"], 1);
    assert!(v["rule"].as_str().unwrap().contains("2 points"));
}

#[test]
fn a_worse_after_is_regressed_and_fail_on_regressed_exits_1() {
    let (v, code) = compare_json(&after(), &before(), &[]);
    assert_eq!(v["verdict"], "regressed");
    assert_eq!(code, 0, "no --fail-on: a report, exit 0");
    assert_eq!(kinds(&v["findings"]["new"]), ["burst"]);
    let out = toomany()
        .args([
            "compare",
            &after(),
            "--against",
            &before(),
            "--fail-on",
            "regressed",
        ])
        .assert()
        .code(1);
    let o = out.get_output();
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(table.starts_with("Verdict: regressed"), "{table}");
    assert!(table.contains("new: [critical] burst on api.example.com"));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--fail-on regressed: holds"));
}

#[test]
fn the_same_capture_on_both_sides_is_unchanged() {
    let (v, _) = compare_json(&before(), &before(), &[]);
    assert_eq!(v["verdict"], "unchanged");
    assert_eq!(kinds(&v["findings"]["persisting"]), ["burst"]);
    assert_eq!(v["hosts"][0]["recommendation_changed"], false);
    // A persisting finding and 429s on the after side: the other gates hold.
    for spec in [
        "any-429",
        "finding:burst",
        "severity:critical",
        "severity:info",
    ] {
        toomany()
            .args([
                "compare",
                &before(),
                "--against",
                &before(),
                "--fail-on",
                spec,
            ])
            .assert()
            .code(1);
    }
    toomany()
        .args([
            "compare",
            &before(),
            "--against",
            &after(),
            "--fail-on",
            "any-429",
        ])
        .assert()
        .code(0);
}

#[test]
fn markdown_and_file_output_follow_the_extension() {
    let tmp = tempfile::tempdir().unwrap();
    let md = tmp.path().join("diff.md");
    toomany()
        .args(["compare", &before(), "--against", &after(), "-o"])
        .arg(&md)
        .assert()
        .success();
    let s = std::fs::read_to_string(&md).unwrap();
    assert!(s.starts_with("## toomany compare: improved"), "{s}");
    assert!(s.contains("| host | side | requests | 429s | share |"));
    assert!(s.contains("- **resolved** [critical] burst on api.example.com"));
    let js = tmp.path().join("diff.json");
    toomany()
        .args(["compare", &before(), "--against", &after(), "-o"])
        .arg(&js)
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&js).unwrap()).unwrap();
    assert_eq!(v["verdict"], "improved");
    // An extension compare does not write is an error, not a silent table.
    let out = toomany()
        .args(["compare", &before(), "--against", &after(), "-o"])
        .arg(tmp.path().join("diff.html"))
        .assert()
        .code(2);
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("not .html"));
    assert!(!tmp.path().join("diff.html").exists());
}

#[test]
fn bad_gates_and_stdin_twice_are_usage_errors() {
    for spec in ["regressions", "finding:nope", "severity:high"] {
        toomany()
            .args([
                "compare",
                &before(),
                "--against",
                &after(),
                "--fail-on",
                spec,
            ])
            .assert()
            .code(2);
    }
    let out = toomany()
        .args(["compare", "-", "--against", "-"])
        .assert()
        .code(2);
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("stdin"));
}

#[test]
fn analyze_fail_on_gates_a_captured_run() {
    // 429s in the capture: exit 1, and the report is still written.
    let out = toomany()
        .args([
            "analyze",
            &before(),
            "--fail-on",
            "any-429",
            "--format",
            "json",
        ])
        .assert()
        .code(1);
    assert_eq!(
        json_of(&out.get_output().stdout)["summary"]["rate_limited"],
        100
    );
    toomany()
        .args(["analyze", &after(), "--fail-on", "any-429"])
        .assert()
        .code(0);
    toomany()
        .args(["analyze", &before(), "--fail-on", "finding:burst"])
        .assert()
        .code(1);
    toomany()
        .args(["analyze", &before(), "--fail-on", "finding:retry_storm"])
        .assert()
        .code(0);
    toomany()
        .args(["analyze", &before(), "--fail-on", "severity:critical"])
        .assert()
        .code(1);
    toomany()
        .args(["analyze", &after(), "--fail-on", "severity:info"])
        .assert()
        .code(0);
    // `regressed` needs two sides; a bad spec is refused before anything is read.
    let out = toomany()
        .args(["analyze", &before(), "--fail-on", "regressed"])
        .assert()
        .code(2);
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("toomany compare"));
}

#[test]
fn the_compare_table_fits_80_columns_and_says_what_it_hid() {
    let out = toomany()
        .env("COLUMNS", "80")
        .args(["compare", &before(), "--against", &after()])
        .assert()
        .success();
    let s = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    for line in s.lines() {
        assert!(unicode_width::UnicodeWidthStr::width(line) <= 80, "{line}");
    }
    assert!(s.starts_with("Verdict: improved\n"), "{s}");
    assert!(s.contains("(hidden to fit 80 columns:"), "{s}");
    assert!(!s.contains('\u{1b}'), "no colour into a pipe");
    let wide = toomany()
        .env("COLUMNS", "160")
        .args([
            "compare",
            &before(),
            "--against",
            &after(),
            "--color",
            "always",
        ])
        .assert()
        .success();
    let w = String::from_utf8(wide.get_output().stdout.clone()).unwrap();
    assert!(w.contains("\u{1b}["), "--color always paints");
    assert!(w.contains("retry-after honoured"), "{w}");
    assert!(!w.contains("hidden to fit"), "{w}");
    let e = String::from_utf8(wide.get_output().stderr.clone()).unwrap();
    assert!(!e.contains("no effect"), "{e}");
    let json = toomany()
        .args([
            "compare",
            &before(),
            "--against",
            &after(),
            "--format",
            "json",
            "--color",
            "always",
        ])
        .assert()
        .success();
    let e = String::from_utf8(json.get_output().stderr.clone()).unwrap();
    assert!(
        e.contains("--color has no effect with --format json"),
        "{e}"
    );
}
