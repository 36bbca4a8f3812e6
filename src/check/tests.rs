//! Small fixtures, one per rule.

use super::*;
use serde_json::json;

fn entry() -> Value {
    json!({
        "startedDateTime": "2024-05-01T10:00:00.000Z", "time": 30,
        "request": {"method": "GET", "url": "https://a.example/", "httpVersion": "HTTP/1.1",
            "cookies": [], "headers": [], "queryString": [], "headersSize": -1, "bodySize": 0},
        "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
            "headers": [], "content": {"size": 0, "mimeType": "text/plain"}, "redirectURL": "",
            "headersSize": -1, "bodySize": 0},
        "cache": {},
        "timings": {"blocked": -1, "dns": -1, "connect": -1, "send": 10, "wait": 10, "receive": 10}
    })
}

fn har(version: &str, pages: Value, entries: Vec<Value>) -> Value {
    json!({"log": {"version": version, "creator": {"name": "t", "version": "1"},
        "pages": pages, "entries": entries}})
}

fn devs(doc: &Value) -> Vec<Deviation> {
    check_value(doc, "x.har", 100).deviations
}

fn find<'a>(d: &'a [Deviation], field: &str) -> &'a Deviation {
    d.iter()
        .find(|x| x.field == field)
        .unwrap_or_else(|| panic!("no deviation on {field}: {d:#?}"))
}

#[test]
fn a_valid_har_has_no_deviation() {
    let r = check_value(&har("1.2", json!([]), vec![entry()]), "x", 100);
    assert_eq!(r.deviation_count, 0, "{:#?}", r.deviations);
    assert_eq!(r.entries, 1);
}

#[test]
fn missing_field_is_named_in_its_page() {
    let doc = har(
        "1.2",
        json!([{"startedDateTime": "2024-05-01T10:00:00Z", "id": "p1", "pageTimings": {}}]),
        vec![],
    );
    let d = devs(&doc);
    let x = find(&d, "title");
    assert_eq!(x.at, "log.pages[0]");
    assert_eq!(x.problem, "missing (required: a string)");
}

#[test]
fn serde_wording_becomes_a_sentence() {
    let mut e = entry();
    e["cache"] = json!([]);
    let d = devs(&har("1.2", json!([]), vec![e]));
    assert_eq!(
        find(&d, "cache").problem,
        "should be an object, found an empty array"
    );
}

/// The spec gives cache times no format and writes "2009-16-02T15:50:34" in its own example.
#[test]
fn cache_times_are_strings_of_any_format() {
    let mut e = entry();
    e["cache"] = json!({"beforeRequest": null,
        "afterRequest": {"expires": "2009-04-16T15:50:36", "lastAccess": "2009-16-02T15:50:34",
            "eTag": "", "hitCount": 0}});
    let d = devs(&har("1.2", json!([]), vec![e.clone()]));
    assert!(d.is_empty(), "{d:#?}");
    e["cache"]["afterRequest"]["lastAccess"] = json!(7);
    let d = devs(&har("1.2", json!([]), vec![e]));
    let x = find(&d, "cache.afterRequest.lastAccess");
    assert!(x.problem.contains("should be a string"), "{x:?}");
    assert_eq!(x.entry, Some(0));
}

#[test]
fn pageref_naming_no_page() {
    let mut a = entry();
    a["pageref"] = json!("page_1");
    let mut b = entry();
    b["pageref"] = json!("page_9");
    let mut c = entry();
    c["pageref"] = json!("page_9");
    let pages = json!([{"startedDateTime": "2024-05-01T10:00:00Z", "id": "page_1", "title": "",
        "pageTimings": {}}]);
    let d = devs(&har("1.2", pages, vec![a, b, c]));
    let refs: Vec<_> = d.iter().filter(|x| x.field == "pageref").collect();
    assert_eq!(refs.len(), 1, "{d:#?}");
    assert_eq!(refs[0].at, "log.entries[1]");
    assert!(refs[0].problem.contains("1 more"), "{:?}", refs[0]);
    assert!(!refs[0].problem.contains("page_9"), "values are not shown");
}

#[test]
fn pages_after_entries_still_count() {
    let mut a = entry();
    a["pageref"] = json!("p");
    let doc = json!({"log": {"entries": [a], "pages": [{"startedDateTime": "2024-05-01T10:00:00Z",
        "id": "p", "title": "", "pageTimings": {}}], "version": "1.2",
        "creator": {"name": "t", "version": "1"}}});
    assert_eq!(check_value(&doc, "x", 10).deviation_count, 0);
}

#[test]
fn negative_timings_other_than_minus_one() {
    let mut e = entry();
    e["timings"]["dns"] = json!(-5);
    e["timings"]["blocked"] = json!(-1);
    e["timings"]["send"] = json!(-1);
    e["timings"]["wait"] = json!(12);
    e["time"] = json!(21);
    e["request"]["bodySize"] = json!(-2);
    let d = devs(&har("1.2", json!([]), vec![e]));
    assert!(find(&d, "timings.dns").problem.contains("-5 is negative"));
    assert!(d.iter().all(|x| x.field != "timings.blocked"));
    assert!(find(&d, "timings.send")
        .problem
        .contains("only for blocked"));
    assert!(find(&d, "request.bodySize").problem.contains("-2"));
}

#[test]
fn time_against_the_sum_of_timings() {
    let mut e = entry();
    e["time"] = json!(31.5); // within 2 ms of 30
    assert!(devs(&har("1.2", json!([]), vec![e.clone()])).is_empty());
    e["time"] = json!(40);
    let d = devs(&har("1.2", json!([]), vec![e.clone()]));
    assert!(
        find(&d, "time").problem.contains("add up to 30 ms"),
        "{d:?}"
    );
    // ssl counted on top of connect (some exporters) is accepted.
    e["timings"]["connect"] = json!(4);
    e["timings"]["ssl"] = json!(6);
    assert!(devs(&har("1.2", json!([]), vec![e.clone()])).is_empty());
    // All timings unavailable: nothing to compare.
    e["timings"] = json!({"send": -1, "wait": -1, "receive": -1});
    e["time"] = json!(500);
    let d = devs(&har("1.2", json!([]), vec![e]));
    assert!(d.iter().all(|x| x.field != "time"), "{d:?}");
}

#[test]
fn unknown_versions_are_named_without_their_value() {
    let d = devs(&har("2.0", json!([]), vec![]));
    let p = &find(&d, "version").problem;
    assert!(p.contains("not a known HAR version"), "{p}");
    // Not even a version-shaped value is repeated (issue 8: never the value).
    assert!(!p.contains("2.0"), "{p}");
    assert_eq!(
        check_value(&har("2.0", json!([]), vec![]), "x", 10)
            .version
            .as_deref(),
        Some("(not shown)")
    );
    assert_eq!(
        check_value(&har("1.3", json!([]), vec![]), "x", 10)
            .version
            .as_deref(),
        Some("1.3")
    );
    let d = devs(&har("Bearer ghp_0123456789abcdefghij", json!([]), vec![]));
    let p = &find(&d, "version").problem;
    assert!(!p.contains("ghp_"), "{p}");
    let r = check_value(&har("ghp_x", json!([]), vec![]), "x", 10);
    assert_eq!(r.version.as_deref(), Some("(not shown)"));
    assert!(find(&devs(&har("1.1", json!([]), vec![])), "version")
        .problem
        .contains("superseded"));
}

#[test]
fn v13_fields_in_a_12_file_even_when_the_version_comes_last() {
    let mut e = entry();
    e["request"]["headersCompression"] = json!(0);
    let doc = json!({"log": {"entries": [e.clone()], "creator": {"name": "t", "version": "1"},
        "version": "1.2"}});
    let d = devs(&doc);
    assert_eq!(find(&d, "request.headersCompression").at, "log.entries[0]");
    let doc13 = json!({"log": {"entries": [e], "creator": {"name": "t", "version": "1"},
        "version": "1.3"}});
    assert!(devs(&doc13).is_empty());
}

#[test]
fn log_level_problems() {
    let d = devs(&json!({"log": {"entries": {}}}));
    assert!(find(&d, "version").problem.contains("missing"));
    assert!(find(&d, "creator").problem.contains("missing"));
    assert!(find(&d, "entries").problem.contains("should be an array"));
    let d = devs(&json!({"entries": []}));
    assert_eq!(d[0].at, "document");
    assert_eq!(d[0].field, "log");
}

#[test]
fn only_the_first_deviations_are_kept_but_all_are_counted() {
    let mut e = entry();
    e["time"] = json!(-7);
    let r = check_value(&har("1.2", json!([]), vec![e; 50]), "x", 5);
    assert_eq!(r.deviations.len(), 5);
    assert_eq!(r.deviation_count, 50);
    assert_eq!(r.entries_with_deviations, 50);
}

#[test]
fn non_hars_are_told_apart() {
    let jl = not_a_har(b"{\"time\":1}\n{\"time\":2}\n", true).unwrap();
    assert!(jl.contains("JSON-lines log"), "{jl}");
    let clf = not_a_har(
        b"127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.0\" 200 2326\n",
        false,
    )
    .unwrap();
    assert!(clf.contains("access log"), "{clf}");
    assert!(not_a_har(b"#Software: Microsoft IIS\n", false)
        .unwrap()
        .contains("W3C"));
    assert!(not_a_har(b"onInputData({\"log\":{}})", false).is_none());
    assert!(not_a_har(b"  {\"log\":{}}", false).is_none());
    assert!(not_a_har(b"[1]", false).unwrap().contains("array"));
    assert!(not_a_har(b"hello", false).unwrap().contains("text"));
}

/// The streamed walk (what `toomany check` runs) reports exactly what the in-memory walk does,
/// on every HAR we have: samples, fixtures and the real exporter corpus.
#[test]
fn streaming_matches_the_in_memory_walk_on_every_har() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    let mut dirs = vec![
        root.join("samples"),
        root.join("tests/fixtures"),
        root.join("tests/corpus/real-har"),
    ];
    while let Some(d) = dirs.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "har") {
                files.push(p);
            }
        }
    }
    assert!(files.len() >= 3, "found {files:?}");
    let mut compared = 0;
    for p in &files {
        let bytes = std::fs::read(p).unwrap();
        let streamed = check_bytes(&bytes, "x", 1000);
        let body = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(&bytes);
        match (streamed, serde_json::from_slice::<Value>(body)) {
            (Ok(s), Ok(doc)) => {
                let m = check_value(&doc, "x", 1000);
                assert_eq!(
                    serde_json::to_value(&s).unwrap(),
                    serde_json::to_value(&m).unwrap(),
                    "{}",
                    p.display()
                );
                compared += 1;
            }
            (Err(_), Err(_)) => {}
            // A JSONP-wrapped HAR is not JSON as a whole but is checked.
            (Ok(s), Err(_)) => assert!(
                s.deviations.iter().any(|d| d.problem.contains("JSONP")),
                "{}",
                p.display()
            ),
            (Err(e), Ok(_)) => panic!("{}: streamed walk failed: {e}", p.display()),
        }
    }
    assert!(compared >= 3);
}

#[test]
fn invalid_utf8_is_located_by_byte_even_split_across_reads() {
    /// Hands out one byte per read.
    struct Trickle<'a>(&'a [u8]);
    impl std::io::Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            match self.0.split_first() {
                Some((&b, rest)) if !buf.is_empty() => {
                    buf[0] = b;
                    self.0 = rest;
                    Ok(1)
                }
                _ => Ok(0),
            }
        }
    }
    // "é" (2 bytes) then a lone continuation byte.
    let mut doc = b"{\"log\": {\"x\": \"ab\xC3\xA9".to_vec();
    doc.extend_from_slice(b"\x80\"}}");
    let at = doc.iter().position(|&b| b == 0x80).unwrap();
    let e = check_read(&doc, Trickle(&doc), "x", 10).unwrap_err();
    assert_eq!(e, CheckError::Utf8(at as u64));
    assert_eq!(
        e.to_string(),
        format!("invalid UTF-8 at byte {at} of the (decompressed) input; a HAR is UTF-8 text")
    );
    // A sequence cut by the end of the input, inside a string.
    let cut = b"{\"log\": {\"x\": \"\xE2\x82";
    let e = check_read(cut, Trickle(cut), "x", 10)
        .unwrap_err()
        .to_string();
    assert!(e.contains("at byte 15 "), "{e}");
    // Valid multi-byte text split byte by byte is fine.
    let ok = "{\"log\": {\"version\": \"1.2\", \"comment\": \"é€𝄞\"}}".as_bytes();
    assert!(check_read(ok, Trickle(ok), "x", 10).is_ok());
}

#[test]
fn jsonp_is_checked_streaming_and_its_tail_is_strict() {
    let inner = har("1.2", json!([]), vec![entry()]).to_string();
    let wrapped = format!("onInputData({inner});\n");
    let r = check_bytes(wrapped.as_bytes(), "x", 10).unwrap();
    assert_eq!(r.entries, 1);
    assert!(r.deviations[0].problem.contains("JSONP"));
    let bad = format!("onInputData({inner}) trailing");
    assert_eq!(
        check_bytes(bad.as_bytes(), "x", 10).unwrap_err(),
        CheckError::Tail
    );
}

/// A reader that makes a document with one string of `n` bytes in the middle, without holding
/// it: `head`, then `n` × `a`, then `tail`.
struct Generated {
    head: Vec<u8>,
    n: u64,
    tail: Vec<u8>,
    at: u64,
}

impl std::io::Read for Generated {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let (h, n) = (self.head.len() as u64, self.n);
        let total = h + n + self.tail.len() as u64;
        if self.at >= total || buf.is_empty() {
            return Ok(0);
        }
        let k = if self.at < h {
            let part = &self.head[self.at as usize..];
            let k = part.len().min(buf.len());
            buf[..k].copy_from_slice(&part[..k]);
            k
        } else if self.at < h + n {
            let k = ((h + n - self.at) as usize).min(buf.len());
            buf[..k].fill(b'a');
            k
        } else {
            let part = &self.tail[(self.at - h - n) as usize..];
            let k = part.len().min(buf.len());
            buf[..k].copy_from_slice(&part[..k]);
            k
        };
        self.at += k as u64;
        Ok(k)
    }
}

fn generated(head: &str, n: u64, tail: &str) -> Generated {
    Generated {
        head: head.as_bytes().to_vec(),
        n,
        tail: tail.as_bytes().to_vec(),
        at: 0,
    }
}

/// A string far over the cap is cut by construction (the scanner keeps at most the cap), the
/// cut is a located warning naming the field and the sizes, and the rest of the file is read.
#[test]
fn a_huge_string_is_cut_with_a_located_warning_and_the_rest_is_read() {
    let e = entry().to_string();
    let (before, after) = e.split_once(r#""url":"https://a.example/""#).unwrap();
    let n = 200 * 1024 * 1024;
    let head = format!(
        r#"{{"log":{{"version":"1.2","creator":{{"name":"t","version":"1"}},"entries":[{before}"url":"https://a.example/?q="#
    );
    let tail = format!(r#""{after},{e}]}}}}"#);
    let r = check_read(head.as_bytes(), generated(&head, n, &tail), "x", 10).unwrap();
    assert_eq!(r.entries, 2);
    assert_eq!(r.deviation_count, 0, "{:#?}", r.deviations);
    assert_eq!(r.warnings.len(), 1, "{:#?}", r.warnings);
    let w = &r.warnings[0];
    assert_eq!(
        (w.at.as_str(), w.entry, w.field.as_str()),
        ("log.entries[0]", Some(0), "request.url")
    );
    let total = n + "https://a.example/?q=".len() as u64;
    assert!(w.problem.contains(&format!("{total} bytes")), "{w:?}");
    assert!(w.problem.contains("cap"), "{w:?}");
    let json = serde_json::to_string(&r).unwrap();
    assert!(!json.contains("aaaaaaaaaaaaaaaa"), "no value quoted");
    assert!(
        json.len() < 4096,
        "the report stays small: {} bytes",
        json.len()
    );
}

/// Huge strings elsewhere — a `log` member, a page id, a pageref, a member name — are cut too.
#[test]
fn huge_log_members_keys_and_pagerefs_are_cut() {
    let n = 8 * 1024 * 1024;
    let head = r#"{"log":{"version":"1.2","creator":{"name":"t","version":"1"},"comment":""#;
    let tail = r#"","entries":[]}}"#;
    let r = check_read(head.as_bytes(), generated(head, n, tail), "x", 10).unwrap();
    assert_eq!(r.warnings.len(), 1, "{:#?}", r.warnings);
    assert_eq!(
        (r.warnings[0].at.as_str(), r.warnings[0].field.as_str()),
        ("log", "comment")
    );
    assert_eq!(r.deviation_count, 0, "{:#?}", r.deviations);

    let mut e = entry();
    e["pageref"] = json!("P");
    let es = e.to_string();
    let (before, after) = es.split_once(r#""pageref":"P""#).unwrap();
    let head = format!(
        r#"{{"log":{{"version":"1.2","creator":{{"name":"t","version":"1"}},"entries":[{before}"pageref":""#
    );
    let tail = format!(r#""{after}]}}}}"#);
    let r = check_read(head.as_bytes(), generated(&head, n, &tail), "x", 10).unwrap();
    assert_eq!(r.warnings[0].field, "pageref", "{:#?}", r.warnings);
    let d = find(&r.deviations, "pageref");
    assert_eq!(d.problem, "names no page in log.pages");

    let head = r#"{"log":{"version":"1.2","creator":{"name":"t","version":"1"},"entries":[],"_"#;
    let tail = r#"":1}}"#;
    let r = check_read(head.as_bytes(), generated(head, n, tail), "x", 10).unwrap();
    assert!(
        r.warnings[0].problem.contains("member name"),
        "{:#?}",
        r.warnings
    );
}

/// One entry holding more than the budget (after string caps: millions of small values) is
/// read to its end, its excess counted but not kept, and what was dropped is not reported as
/// missing; the next entry is checked as usual.
#[test]
fn an_entry_over_the_budget_is_read_through_and_its_excess_not_kept() {
    let mut e = entry();
    e["request"]["headers"] = json!(["HEADERS"]);
    let es = e.to_string();
    let (before, after) = es.split_once(r#""HEADERS""#).unwrap();
    let one = r#"{"name":"x-a","value":"b"},"#;
    let count = 400_000;
    let mut doc = format!(
        r#"{{"log":{{"version":"1.2","creator":{{"name":"t","version":"1"}},"entries":[{before}"#
    );
    doc.push_str(&one.repeat(count));
    doc.push_str(r#"{"name":"x-a","value":"b"}"#);
    let mut bad = entry();
    bad["time"] = json!(-5);
    doc.push_str(&format!("{after},{bad}]}}}}"));
    let r = check_bytes(doc.as_bytes(), "x", 50).unwrap();
    assert_eq!(r.entries, 2);
    let w = r
        .warnings
        .iter()
        .find(|w| w.problem.contains("budget"))
        .unwrap_or_else(|| panic!("{:#?}", r.warnings));
    assert_eq!((w.at.as_str(), w.entry), ("log.entries[0]", Some(0)));
    assert!(
        r.deviations.iter().all(|d| d.entry != Some(0)),
        "nothing dropped is called missing: {:#?}",
        r.deviations
    );
    assert_eq!(find(&r.deviations, "time").entry, Some(1));
}

/// Errors from the scanner are located and never quote the input.
#[test]
fn json_errors_are_located_and_never_quote_the_input() {
    let e = check_bytes(
        br#"{"log": {"version": "1.2" "secret_value_here"}}"#,
        "x",
        10,
    )
    .unwrap_err();
    assert!(matches!(e, CheckError::Json(_)), "{e}");
    let e = e.to_string();
    assert!(e.contains("invalid JSON") && e.contains("byte 26"), "{e}");
    assert!(!e.contains("secret_value"), "{e}");
    let e = check_bytes(br#"{"log": {"version": "1.2", "comment": "cut"#, "x", 10)
        .unwrap_err()
        .to_string();
    assert!(e.contains("truncated") && e.contains("byte"), "{e}");
    let e = check_bytes(b"onInputData({\"log\": {}}", "x", 10).unwrap_err();
    assert!(e.to_string().contains("after the callback"), "{e}");
}
