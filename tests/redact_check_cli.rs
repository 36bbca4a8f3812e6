//! `toomany redact` and `toomany check` from the command line.

mod common;
use common::*;
use predicates::str::contains;

#[test]
fn redact_refuses_existing_output_without_force_and_never_touches_input() {
    let tmp = tempfile::tempdir().unwrap();
    let original = std::fs::read(sample("cdn-burst.har")).unwrap();
    let input = write(tmp.path(), "in.har", &original);
    let out = write(tmp.path(), "out.har", b"keep me");
    toomany()
        .args(["redact", &input, "-o", &out])
        .assert()
        .code(2)
        .stderr(contains("--force"));
    assert_eq!(std::fs::read(&out).unwrap(), b"keep me");
    toomany()
        .args(["redact", &input, "-o", &out, "--force"])
        .assert()
        .success();
    assert_ne!(std::fs::read(&out).unwrap(), b"keep me");
    toomany()
        .args(["redact", &input, "-o", &input, "--force"])
        .assert()
        .code(2)
        .stderr(contains("write over the input"));
    assert_eq!(std::fs::read(&input).unwrap(), original, "input unchanged");
    // Written files are ordinary (not the temp file's 0600).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o644, "{mode:o}");
    }
    // No temp files left behind.
    let names: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

#[test]
fn redacted_sample_loses_tokens_keeps_everything_else() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("clean.har.gz");
    toomany()
        .args([
            "redact",
            &sample("cdn-burst.har"),
            "-o",
            out.to_str().unwrap(),
        ])
        .assert()
        .success();
    let mut text = String::new();
    use std::io::Read;
    flate2::read::MultiGzDecoder::new(std::fs::File::open(&out).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    assert!(!text.contains("eyJhbGci"), "JWT bearer token gone");
    assert!(!text.contains("fake-session-7f3a9c"), "cookie value gone");
    assert!(!text.contains("fake-at-"), "access_token query values gone");
    let orig: serde_json::Value =
        serde_json::from_slice(&std::fs::read(sample("cdn-burst.har")).unwrap()).unwrap();
    let red: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        orig["log"]["entries"].as_array().unwrap().len(),
        red["log"]["entries"].as_array().unwrap().len()
    );
    assert_eq!(orig["log"]["pages"], red["log"]["pages"]);
    assert_eq!(
        orig["log"]["entries"][3]["_resourceType"],
        red["log"]["entries"][3]["_resourceType"]
    );
    assert_eq!(
        orig["log"]["entries"][50]["response"]["headers"],
        red["log"]["entries"][50]["response"]["headers"]
    );
    // Same analysis before and after.
    let a = json_of(
        &toomany()
            .args(["analyze", &sample("cdn-burst.har"), "--format", "json"])
            .output()
            .unwrap()
            .stdout,
    );
    let b = json_of(
        &toomany()
            .args(["analyze", out.to_str().unwrap(), "--format", "json"])
            .output()
            .unwrap()
            .stdout,
    );
    assert_eq!(a["summary"], b["summary"]);
}

#[test]
fn redact_jsonl_keeps_every_line() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("clean.jsonl");
    toomany()
        .args([
            "redact",
            &sample("api-incident.jsonl"),
            "-o",
            out.to_str().unwrap(),
        ])
        .assert()
        .success();
    let orig = std::fs::read_to_string(sample("api-incident.jsonl")).unwrap();
    let red = std::fs::read_to_string(&out).unwrap();
    assert_eq!(orig.lines().count(), red.lines().count());
    assert!(orig.contains("sk-live-fake") && !red.contains("sk-live-fake"));
}

#[test]
fn check_passes_a_valid_har_and_reports_located_deviations() {
    toomany()
        .args(["check", &sample("cdn-burst.har")])
        .assert()
        .success()
        .stdout(contains("0 deviation(s)"));
    let tmp = tempfile::tempdir().unwrap();
    let har = r#"{"log":{"version":"1.2","creator":{"name":"x","version":"1"},"entries":[
      {"startedDateTime":"2024-01-01T00:00:00Z","time":1,"request":{"method":"GET","url":"https://a.example/u","httpVersion":"h2","cookies":[],"headers":[],"queryString":[],"headersSize":-1,"bodySize":-1},
       "response":{"status":200,"statusText":"","httpVersion":"h2","cookies":[],"headers":[],"content":{"size":0,"mimeType":""},"redirectURL":"","headersSize":-1,"bodySize":-1},
       "cache":{},"timings":{"send":0,"wait":1,"receive":0}},
      {"startedDateTime":"yesterday","time":1,"request":{"method":"GET","url":"https://a.example/u","httpVersion":"h2","cookies":[],"headers":[],"queryString":[],"headersSize":-1,"bodySize":-1},
       "response":{"status":"200","statusText":"","httpVersion":"h2","cookies":[],"headers":[],"content":{"size":0,"mimeType":""},"redirectURL":"","headersSize":-1,"bodySize":-1},
       "cache":{},"timings":{}}
    ]}}"#;
    let p = write(tmp.path(), "odd.har", har.as_bytes());
    let out = toomany()
        .args(["check", &p, "--format", "json"])
        .assert()
        .code(1);
    let v = json_of(&out.get_output().stdout);
    assert_eq!(v["entries"], 2);
    assert_eq!(v["entries_with_deviations"], 1);
    let devs = v["deviations"].as_array().unwrap();
    assert!(devs.iter().all(|d| d["entry"] == 1), "{devs:?}");
    assert!(
        devs.iter().any(|d| d["field"] == "response.status"),
        "{devs:?}"
    );
    assert!(
        devs.iter().any(|d| d["field"] == "startedDateTime"),
        "{devs:?}"
    );
    // The table names the entry and field too.
    toomany()
        .args(["check", &p])
        .assert()
        .code(1)
        .stdout(contains("log.entries[1]"))
        .stdout(contains("response.status"));
}

#[test]
fn check_unreadable_is_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let p = write(tmp.path(), "broken.har", b"{\"log\": {");
    toomany()
        .args(["check", &p])
        .assert()
        .code(2)
        .stderr(contains("broken.har"));
}

/// Issue 8's bounded-fields case for `redact`: a 1 GiB `request.url` inside a ~1 MB gzip is read
/// to the end with a warning, the value is not written (nor quoted), and the entry after it is
/// copied. (Memory is bounded by the copier's string cap; this checks behaviour, not RSS.)
#[test]
fn redact_reads_a_gibibyte_url_in_a_megabyte_gzip_with_a_warning() {
    use std::io::Write;
    fn member(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("huge-url.har.gz");
    let mut f = std::fs::File::create(&path).unwrap();
    let head = r#"{"log":{"version":"1.2","creator":{"name":"t","version":"1"},"entries":[{"startedDateTime":"2024-05-01T12:00:00.000Z","time":5,"request":{"method":"GET","url":"https://api.example.com/x?q="#;
    f.write_all(&member(head.as_bytes())).unwrap();
    let run = member(&vec![b'a'; 1 << 20]);
    for _ in 0..1024 {
        f.write_all(&run).unwrap();
    }
    let tail = r#"","headers":[{"name":"Authorization","value":"Bearer CANARYhugeurl0123456789"}]},"response":{"status":429,"headers":[],"content":{"text":""}},"timings":{"wait":4}},
{"startedDateTime":"2024-05-01T12:00:01.000Z","time":5,"request":{"method":"GET","url":"https://api.example.com/second","headers":[]},"response":{"status":429,"headers":[],"content":{"text":""}},"timings":{"wait":4}}]}}"#;
    f.write_all(&member(tail.as_bytes())).unwrap();
    drop(f);
    let out = tmp.path().join("red.har");
    let o = toomany()
        .args([
            "redact",
            path.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(
        stderr.len() < 4096,
        "warnings stay short: {} bytes",
        stderr.len()
    );
    assert!(
        stderr.contains("longer than") && stderr.contains("the first at line"),
        "a located warning says a value was cut: {stderr}"
    );
    let copy = std::fs::read_to_string(&out).unwrap();
    assert!(
        copy.len() < 64 * 1024,
        "the value is not written: {} bytes",
        copy.len()
    );
    assert!(!copy.contains("aaaaaaaaaaaaaaaa") && !stderr.contains("aaaaaaaaaaaaaaaa"));
    assert!(
        !copy.contains("CANARYhugeurl"),
        "the header after it is still redacted"
    );
    let doc: serde_json::Value = serde_json::from_str(&copy).unwrap();
    assert_eq!(doc["log"]["entries"].as_array().unwrap().len(), 2);
    assert_eq!(
        doc["log"]["entries"][1]["request"]["url"],
        "https://api.example.com/second"
    );
}
