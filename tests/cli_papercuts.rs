//! Issue 14's CLI papercuts on outputs and flags: `-o -` is stdout in every subcommand with
//! `-o`; `--force` needs `-o` and never replaces an input; an `-o` extension with no known
//! format is an error; `--target` alone is an error; `redact` and `check` help has examples.

mod common;
use common::*;
use std::fs;

#[test]
fn o_dash_is_stdout_for_analyze_redact_and_compare() {
    let d = tempfile::tempdir().unwrap();
    let after = sample("compare/after.har");
    for args in [
        vec!["analyze", "--format", "json", "-o", "-"],
        vec!["redact", "-o", "-"],
        vec![
            "compare",
            "--against",
            &after,
            "--format",
            "json",
            "-o",
            "-",
        ],
    ] {
        let mut cmd = toomany();
        cmd.current_dir(d.path())
            .args(&args[..1])
            .arg(sample("cdn-burst.har"));
        let out = cmd.args(&args[1..]).assert().success();
        let stdout = &out.get_output().stdout;
        let v = json_of(stdout);
        assert!(v.is_object(), "{args:?}: JSON on stdout");
        assert!(!d.path().join("-").exists(), "{args:?}: no file named -");
    }
}

#[test]
fn force_needs_o_and_never_replaces_the_input() {
    let a = toomany()
        .args(["analyze", &sample("cdn-burst.har"), "--force"])
        .assert()
        .failure()
        .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(err.contains("--output"), "{err}");
    let after = sample("compare/after.har");
    toomany()
        .args(["compare", &after, "--against", &after, "--force"])
        .assert()
        .failure()
        .code(2);

    let d = tempfile::tempdir().unwrap();
    let input = d.path().join("in.har");
    fs::copy(sample("cdn-burst.har"), &input).unwrap();
    let before = fs::read(&input).unwrap();
    for cmd in ["analyze", "redact"] {
        let a = toomany()
            .arg(cmd)
            .arg(&input)
            .arg("-o")
            .arg(&input)
            .arg("--force")
            .assert()
            .failure()
            .code(2);
        let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
        assert!(err.contains("in.har"), "{cmd}: names the path: {err}");
        assert_eq!(fs::read(&input).unwrap(), before, "{cmd}: input untouched");
    }
}

#[test]
fn an_unknown_o_extension_is_an_error_and_known_ones_pick_the_format() {
    let d = tempfile::tempdir().unwrap();
    let csv = d.path().join("report.xlsx");
    let a = toomany()
        .args(["analyze", &sample("cdn-burst.har"), "-o"])
        .arg(&csv)
        .assert()
        .failure()
        .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(
        err.contains("report.xlsx") && err.contains(".xlsx"),
        "{err}"
    );
    assert!(err.contains(".json") && err.contains("--format"), "{err}");
    assert!(!csv.exists(), "nothing written");

    // --format wins over the extension.
    toomany()
        .args([
            "analyze",
            &sample("cdn-burst.har"),
            "--format",
            "json",
            "-o",
        ])
        .arg(&csv)
        .assert()
        .success();
    assert!(json_of(&fs::read(&csv).unwrap()).is_object());

    for (name, check) in [
        ("r.json", "{"),
        ("r.md", "#"),
        ("r.txt", "Who limited you"),
        ("r", "Who limited you"),
    ] {
        let p = d.path().join(name);
        toomany()
            .env("COLUMNS", "200")
            .args(["analyze", &sample("cdn-burst.har"), "-o"])
            .arg(&p)
            .assert()
            .success();
        let text = fs::read_to_string(&p).unwrap();
        assert!(
            text.contains(check),
            "{name}: {}",
            &text[..text.len().min(300)]
        );
    }
}

#[test]
fn target_without_emit_config_is_an_error() {
    for cmd in [
        vec!["analyze", "X", "--target", "envoy"],
        vec![
            "plan",
            "--requests",
            "10",
            "--limit",
            "1/s",
            "--target",
            "envoy",
        ],
    ] {
        let mut args = cmd.clone();
        let s = sample("cdn-burst.har");
        if args[1] == "X" {
            args[1] = &s;
        }
        let a = toomany().args(&args).assert().failure().code(2);
        let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
        assert!(err.contains("--emit-config"), "{cmd:?}: {err}");
    }
    let d = tempfile::tempdir().unwrap();
    toomany()
        .args([
            "plan",
            "--requests",
            "10",
            "--limit",
            "1/s",
            "--target",
            "envoy",
            "--emit-config",
        ])
        .arg(d.path())
        .assert()
        .success();
    assert!(d.path().join("envoy").exists() || fs::read_dir(d.path()).unwrap().count() > 0);
}

#[test]
fn redact_and_check_help_have_examples() {
    for cmd in ["redact", "check"] {
        let a = toomany().args([cmd, "--help"]).assert().success();
        let out = String::from_utf8_lossy(&a.get_output().stdout).into_owned();
        assert!(out.contains("Examples:"), "{cmd}: {out}");
        assert!(
            out.contains(&format!("toomany {cmd} capture.har")),
            "{cmd}: {out}"
        );
    }
}
