//! `toomany check`: exact, located deviations on real exporter files; non-HARs told apart;
//! values never shown.

mod common;
use common::*;
use std::io::Write;

/// One expected deviation: (at prefix, field, problem fragment).
type Expected = (&'static str, &'static str, &'static str);

/// Deviations the corpus MANIFEST documents, by file.
const EXPECTED: &[(&str, &[Expected])] = &[
    (
        "charles-4.2.7-har1.3-handedited.har",
        &[("log.entries[", "pageref", "names no page")],
    ),
    (
        "browsermob-gson-nonisodate-noversion.har",
        &[
            ("log", "version", "missing"),
            ("log", "creator", "missing"),
            ("log.entries[0]", "startedDateTime", "not an ISO 8601"),
            ("log.entries[0]", "time", "missing"),
        ],
    ),
    (
        "dynatrace-style-anonymised-dataurl-status1.har",
        &[
            (
                "log.entries[0]",
                "cache",
                "should be an object, found an empty array",
            ),
            ("log.entries[0]", "response.status", "not an HTTP status"),
        ],
    ),
    (
        "firebug-1.12-har1.1-cnn.har",
        &[("log.entries[", "request.url", "includes a fragment")],
    ),
    (
        "zap-devbuild-jackson-spacing.har",
        &[("log", "browser.name", "missing (required: a string)")],
    ),
    (
        "ie11-network-inspector-har1.1.har",
        &[
            ("log", "version", "1.1"),
            (
                "log.entries[0]",
                "request.cookies",
                "should be an array of objects, found an object",
            ),
        ],
    ),
    (
        "unknown-minimal-no-creator-no-version.har",
        &[
            ("log", "version", "missing"),
            ("log", "creator", "missing"),
            ("log.entries[0]", "startedDateTime", "missing"),
        ],
    ),
    (
        "proxyman-5.6.1-websocketmessages-null.har",
        &[("log.entries[0]", "time", "add up to")],
    ),
    (
        "charles-3.6.5-connect-tunnel-status-minus1.har",
        &[
            ("log.entries[0]", "request.postData.mimeType", "found null"),
            (
                "log.entries[0]",
                "response.status",
                "-1 is not an HTTP status",
            ),
        ],
    ),
    (
        "chrome-webinspector-minified-status0.har",
        &[("log.entries[1]", "request.httpVersion", "missing")],
    ),
    (
        "firebug-harp-jsonp-wrapped.har",
        &[("document", "", "JSONP")],
    ),
    (
        "chromebridge-1.0-dt2har.har",
        &[(
            "log.pages[0]",
            "pageTimings",
            "should be an object, found an array",
        )],
    ),
];

/// Wording of serde's internals, which a user should never see.
const SERDE_WORDING: &[&str] = &["invalid type", "invalid length", "expected struct", "…"];

#[test]
fn every_corpus_file_is_checked_with_named_fields() {
    let dir = corpus_dir();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "har"))
        .collect();
    files.sort();
    let mut deviating = 0;
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let out = toomany()
            .args(["check", path.to_str().unwrap(), "--format", "json"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
        if name.starts_with("malformed-") {
            assert_eq!(out.status.code(), Some(2), "{name}");
            assert!(
                stderr.contains("line") && stderr.contains(&name),
                "{stderr}"
            );
            continue;
        }
        let v = json_of(&out.stdout);
        let devs = v["deviations"].as_array().unwrap();
        let code = out.status.code();
        assert_eq!(code, Some(if devs.is_empty() { 0 } else { 1 }), "{name}");
        if !devs.is_empty() {
            deviating += 1;
        }
        for d in devs {
            let (at, field, problem) = (
                d["at"].as_str().unwrap(),
                d["field"].as_str().unwrap(),
                d["problem"].as_str().unwrap(),
            );
            assert!(
                !field.is_empty() || at == "document" || problem.starts_with("should be"),
                "{name}: a deviation without its field: {d}"
            );
            for w in SERDE_WORDING {
                assert!(!problem.contains(w), "{name}: {problem}");
            }
        }
        if let Some((_, expected)) = EXPECTED.iter().find(|(f, _)| *f == name) {
            for (at, field, frag) in *expected {
                assert!(
                    devs.iter()
                        .any(|d| d["at"].as_str().unwrap().starts_with(at)
                            && d["field"] == *field
                            && d["problem"].as_str().unwrap().contains(frag)),
                    "{name}: expected {at} {field} {frag:?} in {devs:#?}"
                );
            }
        }
    }
    assert!(
        deviating >= 20,
        "most exporters deviate somewhere: {deviating}"
    );
}

#[test]
fn a_json_lines_log_and_an_access_log_are_told_apart() {
    let d = tempfile::tempdir().unwrap();
    let out = toomany()
        .args(["check", &sample("api-incident.jsonl")])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("JSON-lines log, not a HAR"), "{err}");
    let log = write(
        d.path(),
        "access.log",
        b"203.0.113.7 - - [10/Oct/2024:13:55:36 +0000] \"GET /v1/items HTTP/1.1\" 429 17 \"-\" \"curl/8\"\n",
    );
    let out = toomany().args(["check", &log]).assert().code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        err.contains("access log") && err.contains("not a HAR"),
        "{err}"
    );
}

#[test]
fn invalid_utf8_gives_a_byte_offset_plain_and_gzipped() {
    let d = tempfile::tempdir().unwrap();
    let mut bytes =
        br#"{"log":{"version":"1.2","creator":{"name":"a","version":"1"},"entries":[],"comment":""#
            .to_vec();
    let at = bytes.len();
    bytes.extend_from_slice(b"\xff\xfe\"}}");
    let plain = write(d.path(), "bad.har", &bytes);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&bytes).unwrap();
    let gzipped = write(d.path(), "bad.har.gz", &gz.finish().unwrap());
    for p in [plain, gzipped] {
        let out = toomany().args(["check", &p]).assert().code(2);
        let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(
            err.contains("UTF-8") && err.contains(&format!("byte {at}")),
            "{p}: {err}"
        );
    }
}

#[test]
fn values_are_never_shown() {
    let d = tempfile::tempdir().unwrap();
    let secret = "ghp_CANARYcheck0123456789abcdefghijklmn";
    let har = format!(
        r#"{{"log":{{"version":"{secret}","creator":{{"name":"a","version":"1"}},
        "pages":[{{"startedDateTime":"Bearer {secret}","id":"p","title":"","pageTimings":{{}}}}],
        "entries":[{{"pageref":"{secret}","startedDateTime":"{secret}","time":1,
          "request":{{"method":"GET","url":"https://a/?k={secret}","httpVersion":"h","cookies":[],
            "headers":[{{"name":"Authorization","value":7}}],"queryString":[],"headersSize":-1,"bodySize":-1,
            "{secret}":1}},
          "response":{{"status":"{secret}","statusText":"","httpVersion":"","cookies":[],"headers":[],
            "content":{{"size":0,"mimeType":""}},"redirectURL":"","headersSize":-1,"bodySize":-1}},
          "cache":{{}},"timings":{{"send":0,"wait":0,"receive":1}}}}]}}}}"#
    );
    let p = write(d.path(), "canary.har", har.as_bytes());
    for fmt in ["table", "json"] {
        let out = toomany()
            .args(["check", &p, "--format", fmt])
            .assert()
            .code(1);
        let o = out.get_output();
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(!all.contains("CANARY"), "{fmt}: {all}");
        assert!(
            all.contains("pageref") && all.contains("response.status"),
            "{all}"
        );
    }
}

/// A 1 GiB `request.url` inside a ~1 MB gzip (issue 8's bounded-fields case): `check` reads the
/// whole file, reports the value cut with a located warning that quotes nothing, and checks the
/// entry after it. Memory is bounded by construction (the scanner keeps at most the 64 KiB cap
/// of a string; see src/check/stream.rs), so this test checks behaviour, not RSS.
#[test]
fn a_gibibyte_url_in_a_megabyte_gzip_is_checked_with_a_cut_warning() {
    fn member(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join("huge-url.har.gz");
    let mut out = std::fs::File::create(&path).unwrap();
    let request_tail = r#"","httpVersion":"HTTP/1.1","cookies":[],"headers":[],"queryString":[],"headersSize":-1,"bodySize":0}"#;
    let rest = r#","response":{"status":429,"statusText":"","httpVersion":"HTTP/1.1","cookies":[],"headers":[],"content":{"size":0,"mimeType":""},"redirectURL":"","headersSize":-1,"bodySize":0},"cache":{},"timings":{"send":1,"wait":3,"receive":1}}"#;
    let head = r#"{"log":{"version":"1.2","creator":{"name":"t","version":"1"},"entries":[{"startedDateTime":"2024-05-01T12:00:00.000Z","time":5,"request":{"method":"GET","url":"https://api.example.com/x?q="#;
    out.write_all(&member(head.as_bytes())).unwrap();
    let run = member(&vec![b'a'; 1 << 20]);
    for _ in 0..1024 {
        out.write_all(&run).unwrap();
    }
    let tail = format!(
        r#"{request_tail}{rest},{{"startedDateTime":"2024-05-01T12:00:01.000Z","time":-3,"request":{{"method":"GET","url":"https://api.example.com/y{request_tail}{rest}]}}}}"#
    );
    out.write_all(&member(tail.as_bytes())).unwrap();
    drop(out);
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size < 2 << 20, "the gzip is small: {size} bytes");

    let out = toomany()
        .args(["check", "--format", "json"])
        .arg(&path)
        .assert()
        .code(1);
    let o = out.get_output();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.len() < 4096,
        "warnings stay short: {} bytes",
        stderr.len()
    );
    assert!(
        stderr.contains("request.url") && stderr.contains("cap"),
        "{stderr}"
    );
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["entries"], 2, "both entries read: {report}");
    let w = &report["warnings"][0];
    assert_eq!(w["at"], "log.entries[0]", "{report}");
    assert_eq!(w["field"], "request.url", "{report}");
    assert!(
        w["problem"].as_str().unwrap().contains("1073741852 bytes"),
        "{w}"
    );
    // The second entry's negative `time` is still found: the rest of the file was read.
    assert_eq!(report["deviation_count"], 1, "{report}");
    assert_eq!(report["deviations"][0]["entry"], 1, "{report}");
    let all = format!("{stderr}{}", String::from_utf8_lossy(&o.stdout));
    assert!(!all.contains("aaaaaaaaaaaaaaaa"), "no value quoted");
}
