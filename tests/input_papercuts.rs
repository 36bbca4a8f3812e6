//! Issue 14's input papercuts: `--map` that cannot do anything says so once, a JSON-lines input
//! where nothing maps to a status is an error naming the fields it has, and a path that cannot
//! be written names the user's path (never a temp file) and what to do.

mod common;
use common::*;

/// JSON lines whose names the reader does not know: `when`, `code`, `u`.
fn odd_names(n: usize) -> Vec<u8> {
    let mut s = String::new();
    for i in 0..n {
        let code = if i % 5 == 4 { 429 } else { 200 };
        s.push_str(&format!(
            "{{\"when\":\"2026-01-01T00:00:{:02}Z\",\"code\":{code},\"u\":\"https://api.example.com/v1/items?id={i}\"}}\n",
            i % 60
        ));
    }
    s.into_bytes()
}

fn stderr_of(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stderr).into_owned()
}

#[test]
fn map_with_an_unknown_canonical_name_warns_once_and_suggests_the_name() {
    let out = toomany()
        .args(["analyze", &sample("api-incident.jsonl"), "--format", "json"])
        .args(["--map", "stauts=code", "--map", "stauts=resp.code"])
        .assert()
        .success();
    let err = stderr_of(&out);
    assert_eq!(err.matches("is not a canonical field").count(), 1, "{err}");
    assert!(
        err.contains("--map stauts=code: stauts is not a canonical field, so this mapping does nothing (did you mean --map status=code?)"),
        "{err}"
    );
    assert!(err.contains("canonical fields: time, method, url"), "{err}");
}

#[test]
fn map_with_a_path_no_line_has_warns_once_naming_the_fields_seen() {
    let tmp = tempfile::tempdir().unwrap();
    let f = write(tmp.path(), "odd.jsonl", &odd_names(300));
    let out = toomany()
        .args(["analyze", &f, "--format", "json"])
        .args([
            "--map",
            "status=resp.code",
            "--map",
            "time=when",
            "--map",
            "url=u",
        ])
        .assert();
    // (Nothing maps to a status either: that is the error of the test below.)
    let err = stderr_of(&out);
    assert_eq!(err.matches("no field resp.code").count(), 1, "{err}");
    assert!(
        err.contains("--map status=resp.code: no field resp.code in the first 200 lines (fields seen: when, code, u)"),
        "{err}"
    );
    // The mappings that do match say nothing.
    assert!(
        !err.contains("no field when") && !err.contains("no field u "),
        "{err}"
    );
}

#[test]
fn map_on_a_har_says_it_does_not_apply() {
    let har = sample("cdn-burst.har");
    let out = toomany()
        .args(["analyze", &har, "--map", "status=code", "--format", "json"])
        .assert()
        .success();
    let err = stderr_of(&out);
    assert_eq!(err.matches("--map does not apply").count(), 1, "{err}");
    assert!(
        err.contains(&format!("{har}: --map does not apply: this input is a HAR")),
        "{err}"
    );
    // The report is the same as without --map.
    let plain = toomany()
        .args(["analyze", &har, "--format", "json"])
        .assert()
        .success();
    let a = json_of(&out.get_output().stdout);
    let b = json_of(&plain.get_output().stdout);
    assert_eq!(a["summary"], b["summary"]);
    // An access log too.
    let tmp = tempfile::tempdir().unwrap();
    let log = write(
        tmp.path(),
        "access.log",
        b"10.0.0.1 - - [01/Jan/2026:00:00:00 +0000] \"GET /a HTTP/1.1\" 429 0 \"-\" \"curl/8\"\n",
    );
    let out = toomany()
        .args(["analyze", &log, "--map", "status=code"])
        .assert()
        .success();
    assert!(stderr_of(&out).contains("--map does not apply: this input is an access log (nginx"));
}

#[test]
fn json_lines_where_nothing_maps_to_a_status_is_an_error_with_the_field_names() {
    let tmp = tempfile::tempdir().unwrap();
    let f = write(tmp.path(), "odd.jsonl", &odd_names(50));
    let out = toomany().args(["analyze", &f]).assert().code(2);
    assert!(out.get_output().stdout.is_empty(), "no report is written");
    let err = stderr_of(&out);
    assert!(
        err.contains(&format!(
            "toomany: error: {f}: no field of its 50 records maps to time or status"
        )),
        "{err}"
    );
    assert!(err.contains("field names seen: when, code, u"), "{err}");
    assert!(err.contains("--map time=when --map status=code"), "{err}");
    // With a time but no status, only the status is asked for.
    let f2 = write(
        tmp.path(),
        "timed.jsonl",
        b"{\"time\":\"2026-01-01T00:00:00Z\",\"url\":\"https://a.example/\",\"http_code\":429}\n",
    );
    let err = stderr_of(&toomany().args(["analyze", &f2]).assert().code(2));
    assert!(err.contains("maps to status (every record"), "{err}");
    assert!(err.contains("--map status=http_code"), "{err}");
    // compare and verify refuse it too.
    let good = sample("api-incident.jsonl");
    let err = stderr_of(
        &toomany()
            .args(["compare", &good, "--against", &f])
            .assert()
            .code(2),
    );
    assert!(err.contains("no field of its 50 records maps"), "{err}");
    // The suggested mapping works: 10 rate-limited responses.
    let out = toomany()
        .args(["analyze", &f, "--format", "json"])
        .args([
            "--map",
            "time=when",
            "--map",
            "status=code",
            "--map",
            "url=u",
        ])
        .assert()
        .success();
    assert_eq!(
        json_of(&out.get_output().stdout)["summary"]["rate_limited"],
        10
    );
    // From stdin as well (the names come from the first bytes read).
    let out = toomany()
        .args(["analyze", "-"])
        .write_stdin(odd_names(5))
        .assert()
        .code(2);
    assert!(stderr_of(&out).contains("-: no field of its 5 records maps to time or status"));
}

#[test]
fn unwritable_output_paths_name_the_users_path_and_what_to_do() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let input = sample("api-incident.jsonl");
    let file = write(d, "plain", b"not a directory");
    let check = |args: &[&str], want: &[&str]| {
        let out = toomany().current_dir(d).args(args).assert().code(2);
        let err = stderr_of(&out);
        for w in want {
            assert!(err.contains(w), "{args:?}: want {w:?} in {err}");
        }
        assert!(
            !err.contains("toomany-tmp"),
            "{args:?}: a temp file is named: {err}"
        );
        assert!(
            !err.contains("os error"),
            "{args:?}: a bare OS error: {err}"
        );
    };
    // --emit-config onto an existing file, and under one.
    check(
        &["analyze", &input, "--emit-config", "plain"],
        &["--emit-config plain: exists and is not a directory; give a directory"],
    );
    check(
        &["analyze", &input, "--emit-config", "plain/cfg"],
        &[
            "--emit-config plain/cfg: plain is a file, not a directory",
            "choose another path",
        ],
    );
    check(
        &[
            "plan",
            "--requests",
            "100",
            "--limit",
            "10/s",
            "--emit-config",
            "plain/cfg",
        ],
        &["--emit-config plain/cfg: plain is a file, not a directory"],
    );
    // -o into a missing directory, and under a file.
    for cmd in [
        vec!["analyze", input.as_str(), "-o", "missing/dir/r.json"],
        vec!["redact", input.as_str(), "-o", "missing/dir/r.json"],
        vec![
            "compare",
            input.as_str(),
            "--against",
            input.as_str(),
            "-o",
            "missing/dir/r.json",
        ],
    ] {
        check(
            &cmd,
            &["-o missing/dir/r.json: the directory missing/dir does not exist; create it first (mkdir -p missing/dir)"],
        );
    }
    check(
        &["analyze", &input, "-o", "plain/r.json"],
        &[
            "-o plain/r.json: plain is a file, not a directory",
            "choose another path",
        ],
    );
    assert_eq!(std::fs::read(&file).unwrap(), b"not a directory");
    // Nothing was left behind.
    let left: Vec<_> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 1, "{left:?}");
}
