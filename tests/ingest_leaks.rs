//! Ingest-side leaks (issue 8): raw input values never reach warnings, errors or reports
//! unredacted. Each field below holds a token; `analyze` in every report format must not print
//! it, on stdout or stderr.

use std::path::Path;
use std::process::Command;

/// A GitHub token shape and a bearer value the redactor recognizes wherever they appear.
const GHP: &str = "ghp_LEAKCANARY0123456789abcdefghijklmnopq";
const BEARER: &str = "Bearer LEAKCANARYbearer0123456789abcdef";

fn run(path: &Path, format: &str) -> (String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_toomany"))
        .args(["analyze", "--format", format])
        .arg(path)
        .env("COLUMNS", "200")
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn assert_clean(what: &str, path: &Path) {
    for format in ["json", "table", "markdown", "html"] {
        let (stdout, stderr) = run(path, format);
        for (name, text) in [("stdout", &stdout), ("stderr", &stderr)] {
            assert!(
                !text.contains("LEAKCANARY"),
                "{what}, --format {format}: a canary reached {name}:\n{text}"
            );
        }
    }
}

#[test]
fn har_fields_and_messages_do_not_leak() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("leaky.har");
    let har = format!(
        r#"{{"log":{{"version":"{BEARER}","creator":{{"name":"exporter {GHP}","version":"1"}},
"pages":[{{"id":"p {GHP}","title":"t","startedDateTime":"{BEARER}"}}],
"entries":[
 {{"pageref":"p {GHP}","startedDateTime":"{BEARER}","time":5,"request":{{"method":"{BEARER}","url":"https://api.example.com/a","headers":[]}},"response":{{"status":429,"headers":[{{"name":"Retry-After","value":"3"}}],"content":{{"text":""}}}},"timings":{{"wait":4}}}},
 {{"pageref":"p {GHP}","startedDateTime":"2024-05-01T12:00:00.000Z","time":5,"request":{{"method":"{GHP}","url":"https://api.example.com/b","headers":[]}},"response":{{"status":429,"headers":[{{"name":"Retry-After","value":"3"}}],"content":{{"text":""}}}},"timings":{{"wait":4}}}}
]}}}}"#
    );
    std::fs::write(&path, har).unwrap();
    let (stdout, stderr) = run(&path, "json");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!("{e}: {stderr}");
    });
    assert_eq!(report["inputs"][0]["records"], 2, "{stdout}");
    assert!(
        stderr.contains("is not a date") && stderr.contains("log.version"),
        "the problems are still named: {stderr}"
    );
    assert_clean("HAR", &path);
}

#[test]
fn jsonl_fields_and_messages_do_not_leak() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("leaky.jsonl");
    let lines = [
        format!(
            r#"{{"time":"{BEARER}","method":"{BEARER}","url":"https://api.example.com/a","status":429,"client":"svc {GHP}","client_ip":"{GHP}","user_agent":"app/1 {GHP}","retry_after":"3"}}"#
        ),
        format!(
            r#"{{"time":"2024-05-01T12:00:00Z","method":"{GHP}","url":"https://api.example.com/b","status":429,"client":"{BEARER}","client_ip":"10.0.0.1","request_headers":[["Authorization","{BEARER}"]],"retry_after":"3"}}"#
        ),
    ];
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let (stdout, stderr) = run(&path, "json");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!("{e}: {stderr}");
    });
    assert_eq!(report["inputs"][0]["records"], 2, "{stdout}");
    assert!(
        stderr.contains("is not a time"),
        "the problem is named: {stderr}"
    );
    assert_clean("JSON lines", &path);
}

#[test]
fn format_detection_does_not_quote_the_first_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.txt");
    std::fs::write(
        &path,
        format!("Authorization: {BEARER} {GHP}\nsecond line\n"),
    )
    .unwrap();
    let (_, stderr) = run(&path, "json");
    assert!(!stderr.is_empty(), "an unreadable input is reported");
    assert_clean("unknown format", &path);
}
