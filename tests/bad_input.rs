//! Bad input gets a clear, located message, loses nothing else, and never panics.
//! Exit status 2 only when nothing at all could be read.

mod common;
use common::*;
use predicates::str::contains;

fn analyze_one(path: &str) -> assert_cmd::assert::Assert {
    toomany()
        .args(["analyze", path, "--format", "json"])
        .assert()
}

#[test]
fn each_kind_of_bad_file_gets_a_clear_message() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "not-json.har",
            b"hello, this is not JSON\n".to_vec(),
            "not a HAR file or JSON-lines log",
        ),
        (
            "truncated.har",
            br#"{"log":{"version":"1.2","entries":[{"request":{"url":"https://a/"},"resp"#.to_vec(),
            "truncated",
        ),
        ("empty.har", Vec::new(), "empty file"),
        ("blank.jsonl", b"\n\n   \n".to_vec(), "empty file"),
        (
            "junk.bin",
            vec![0u8, 159, 146, 150, 0, 1, 2, 3, 255, 254],
            "binary data",
        ),
        (
            "no-entries.har",
            br#"{"log":{"version":"1.2","creator":{"name":"x","version":"1"},"entries":[]}}"#
                .to_vec(),
            "no entries",
        ),
        ("wrong-root.har", br#"{"log": 42}"#.to_vec(), "no entries"),
        ("array.json", br#"[{"status":429}]"#.to_vec(), "JSON array"),
        (
            "bad-lines.jsonl",
            b"{oops\n{\"also\": \n".to_vec(),
            "none of the 2 non-blank lines",
        ),
    ];
    for (name, content, expect) in cases {
        let p = write(d, name, &content);
        let out = analyze_one(&p).code(2).get_output().clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(name), "{name}: message names the file: {err}");
        assert!(
            err.contains(expect),
            "{name}: expected {expect:?} in: {err}"
        );
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
}

#[test]
fn truncated_har_keeps_what_was_read_and_locates_the_break() {
    let tmp = tempfile::tempdir().unwrap();
    let full = std::fs::read_to_string(sample("cdn-burst.har")).unwrap();
    let cut = &full[..full.len() * 2 / 3];
    let p = write(tmp.path(), "cut.har", cut.as_bytes());
    let out = analyze_one(&p).success().get_output().clone();
    let v = json_of(&out.stdout);
    let input = &v["inputs"][0];
    let records = input["records"].as_u64().unwrap();
    assert!(records > 30 && records < 67, "partial results: {records}");
    let err = input["error"].as_str().unwrap();
    assert!(
        err.contains(&format!("stopped at entry {records}")),
        "{err}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("cut.har"));
}

#[test]
fn wrong_types_are_warnings_with_entry_index_not_failures() {
    let tmp = tempfile::tempdir().unwrap();
    let har = r#"{"log":{"version":"1.1","creator":{"name":"x"},"pages":[{"id":"p"}],"entries":[
      {"startedDateTime":"2024-01-01T00:00:00Z","time":"12","request":{"method":"GET","url":"https://a/x","headers":null},
       "response":{"status":"429","headers":[{"name":"Retry-After","value":5},{"name":"X","value":null}]},"timings":{},"cache":[]},
      "not an entry",
      {"startedDateTime":12345,"request":{"method":"GET","url":"https://a/y"},"response":{"status":{"code":200}},"timings":"n/a"}
    ]}}"#;
    let p = write(tmp.path(), "types.har", har.as_bytes());
    let out = analyze_one(&p).success().get_output().clone();
    let v = json_of(&out.stdout);
    let input = &v["inputs"][0];
    assert_eq!(input["records"], 2);
    assert_eq!(input["skipped"], 1);
    let warnings = input["warnings"].as_array().unwrap();
    assert!(warnings.iter().any(|w| w["entry"] == 0
        && w["message"]
            .as_str()
            .unwrap()
            .contains("response.status is a string")));
    assert!(warnings
        .iter()
        .any(|w| w["entry"] == 1 && w["message"].as_str().unwrap().contains("not an object")));
    assert!(warnings.iter().any(|w| w["entry"] == 2));
    assert_eq!(v["rate_limited"][0]["retry_after"]["raw"], "5");
}

#[test]
fn one_bad_file_does_not_stop_the_others() {
    let tmp = tempfile::tempdir().unwrap();
    let bad = write(tmp.path(), "bad.har", b"\x00\x01binary");
    let out = toomany()
        .args([
            "analyze",
            &bad,
            &sample("cdn-burst.har"),
            "--format",
            "json",
        ])
        .assert()
        .success()
        .stderr(contains("bad.har"))
        .get_output()
        .clone();
    let v = json_of(&out.stdout);
    assert!(v["inputs"][0]["error"].as_str().unwrap().contains("binary"));
    assert_eq!(v["inputs"][1]["records"], 67);
}

#[test]
fn overlong_jsonl_line_is_skipped_with_its_line_number() {
    let tmp = tempfile::tempdir().unwrap();
    let mut content = Vec::new();
    content
        .extend_from_slice(br#"{"time":"2024-01-01T00:00:00Z","url":"https://a/","status":429}"#);
    content.push(b'\n');
    content.extend_from_slice(b"{\"blob\":\"");
    content.extend(std::iter::repeat_n(b'a', 17 * 1024 * 1024));
    content.extend_from_slice(b"\"}\n");
    content
        .extend_from_slice(br#"{"time":"2024-01-01T00:00:01Z","url":"https://a/","status":200}"#);
    content.push(b'\n');
    let p = write(tmp.path(), "long.jsonl", &content);
    let out = analyze_one(&p).success().get_output().clone();
    let v = json_of(&out.stdout);
    assert_eq!(v["inputs"][0]["records"], 2);
    let w = &v["inputs"][0]["warnings"][0];
    assert_eq!(w["line"], 2);
    assert!(w["message"].as_str().unwrap().contains("longer than"));
}

#[test]
fn bad_usage_is_exit_2() {
    toomany().args(["analyze"]).assert().code(2);
    toomany()
        .args(["analyze", &sample("cdn-burst.har"), "--map", "nonsense"])
        .assert()
        .code(2)
        .stderr(contains("CANONICAL=PATH"));
    toomany().args(["frobnicate"]).assert().code(2);
}
