//! `toomany check` against its peer and the spec: node-har-validator's own fixtures, with the
//! cases and assertions of its tests (tests/fixtures/har-validator/SOURCE.md), and the HAR 1.2
//! spec's own examples (tests/fixtures/har-spec/SOURCE.md). Every valid document exits 0; every
//! invalid one exits 1 naming the place, or 2 when it is not a HAR at all.

mod common;
use common::*;
use serde_json::{json, Value};
use std::path::Path;

fn peer(name: &str) -> Value {
    let text = std::fs::read_to_string(fixture(&format!("har-validator/{name}"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The validator's full example with `f` applied to its only entry.
fn with_entry(f: impl FnOnce(&mut serde_json::Map<String, Value>)) -> Value {
    let mut doc = peer("har/valid.json");
    let entry = doc["log"]["entries"][0].as_object_mut().unwrap();
    f(entry);
    doc
}

/// `member` of the entry replaced by `v`, or removed when `v` is `None` (the validator's
/// `undefined`, which it validates as `{}`).
fn entry_member(member: &str, v: Option<Value>) -> Value {
    with_entry(|e| match v {
        Some(v) => {
            e.insert(member.to_string(), v);
        }
        None => {
            e.remove(member);
        }
    })
}

/// `toomany check` of `bytes` in JSON: (exit code, the deviations as `at.field`, stderr).
fn check(dir: &Path, name: &str, bytes: &[u8]) -> (i32, Vec<String>, String) {
    let path = write(dir, name, bytes);
    let out = toomany()
        .args(["check", &path, "--format", "json"])
        .output()
        .unwrap();
    let code = out.status.code().expect("exited");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if code == 2 {
        return (code, Vec::new(), stderr);
    }
    let report = json_of(&out.stdout);
    let places = report["deviations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let (at, field) = (d["at"].as_str().unwrap(), d["field"].as_str().unwrap());
            if field.is_empty() {
                at.to_string()
            } else {
                format!("{at}.{field}")
            }
        })
        .collect();
    (code, places, stderr)
}

/// What a case must give: exit 0; exit 1 with exactly these places, or with this place among
/// others all under a prefix; exit 2 with stderr saying this.
enum Want {
    Valid,
    Exactly(&'static [&'static str]),
    Among(&'static str, &'static str),
    NotAHar(&'static str),
}

struct Case {
    /// The validator's test and its assertion's message.
    from: &'static str,
    doc: Vec<u8>,
    want: Want,
}

fn case(from: &'static str, doc: Value, want: Want) -> Case {
    Case {
        from,
        doc: serde_json::to_vec_pretty(&doc).unwrap(),
        want,
    }
}

fn raw(from: &'static str, doc: &[u8], want: Want) -> Case {
    Case {
        from,
        doc: doc.to_vec(),
        want,
    }
}

/// node-har-validator's 23 cases (test/log.js, request.js, response.js, cache-entry.js; async.js
/// and promise.js repeat `{}`, the bad version and the full example).
fn peer_cases() -> Vec<Case> {
    let invalid = peer("har/invalid.json");
    let (req_bad, res_bad) = (peer("request/invalid.json"), peer("response/invalid.json"));
    const E: &str = "log.entries[0].";
    vec![
        raw(
            "log.js: should fail with empty object",
            b"{}",
            Want::Exactly(&["document.log"]),
        ),
        raw(
            "log.js: should fail with empty array",
            b"[]",
            Want::NotAHar("a JSON array"),
        ),
        raw(
            "log.js: should fail with undefined",
            b"",
            Want::NotAHar("empty"),
        ),
        case(
            "log.js: should fail on bad \"log.version\"",
            invalid["version"].clone(),
            Want::Exactly(&["log.version"]),
        ),
        case(
            "log.js: should fail on bad \"log.creator\"",
            invalid["creator"].clone(),
            Want::Exactly(&["log.creator.version"]),
        ),
        case(
            "log.js: should fail on bad \"log.pages.*.startedDateTime\"",
            invalid["date"].clone(),
            Want::Exactly(&["log.pages[0].startedDateTime"]),
        ),
        case(
            "log.js: should not fail with full example",
            peer("har/valid.json"),
            Want::Valid,
        ),
        case(
            "cache-entry.js: should allow null beforeRequest",
            entry_member("cache", Some(json!({"beforeRequest": null}))),
            Want::Valid,
        ),
        case(
            "cache-entry.js: should allow null afterRequest",
            entry_member("cache", Some(json!({"afterRequest": null}))),
            Want::Valid,
        ),
        case(
            "request.js: should fail with empty object",
            entry_member("request", Some(json!({}))),
            Want::Among("log.entries[0].request.method", E),
        ),
        case(
            "request.js: should fail with empty array",
            entry_member("request", Some(json!([]))),
            Want::Exactly(&["log.entries[0].request"]),
        ),
        case(
            "request.js: should fail with undefined",
            entry_member("request", None),
            Want::Exactly(&["log.entries[0].request"]),
        ),
        case(
            "request.js: should fail on bad \"url\"",
            entry_member("request", Some(req_bad["url"].clone())),
            Want::Exactly(&["log.entries[0].request.url"]),
        ),
        case(
            "request.js: should fail on bad \"headers\"",
            entry_member("request", Some(req_bad["headers"].clone())),
            Want::Exactly(&["log.entries[0].request.headers"]),
        ),
        case(
            "request.js: should fail on malformed \"headers\"",
            entry_member("request", Some(req_bad["malformed"].clone())),
            Want::Among("log.entries[0].request.headers[0].name", E),
        ),
        case(
            "request.js: should not fail with full example",
            entry_member("request", Some(peer("request/valid.json"))),
            Want::Valid,
        ),
        case(
            "response.js: should fail with empty object",
            entry_member("response", Some(json!({}))),
            Want::Among("log.entries[0].response.status", E),
        ),
        case(
            "response.js: should fail with empty array",
            entry_member("response", Some(json!([]))),
            Want::Exactly(&["log.entries[0].response"]),
        ),
        case(
            "response.js: should fail with undefined",
            entry_member("response", None),
            Want::Exactly(&["log.entries[0].response"]),
        ),
        case(
            "response.js: should fail on bad \"bodySize\"",
            entry_member("response", Some(res_bad["bodySize"].clone())),
            Want::Exactly(&["log.entries[0].response.bodySize"]),
        ),
        case(
            "response.js: should fail on bad \"headers\"",
            entry_member("response", Some(res_bad["headers"].clone())),
            Want::Exactly(&["log.entries[0].response.headers"]),
        ),
        case(
            "response.js: should fail on malformed \"headers\"",
            entry_member("response", Some(res_bad["malformed"].clone())),
            Want::Among("log.entries[0].response.headers[0].name", E),
        ),
        case(
            "response.js: should not fail with full example",
            entry_member("response", Some(peer("response/valid.json"))),
            Want::Valid,
        ),
    ]
}

fn run(cases: Vec<Case>) {
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        let (code, places, stderr) = check(tmp.path(), &format!("case{i}.har"), &c.doc);
        let ok = match &c.want {
            Want::Valid => code == 0 && places.is_empty(),
            Want::Exactly(want) => code == 1 && places == *want,
            Want::Among(place, under) => {
                code == 1
                    && places.iter().any(|p| p == place)
                    && places.iter().all(|p| p.starts_with(under))
            }
            Want::NotAHar(says) => code == 2 && stderr.contains(says),
        };
        if !ok {
            failures.push(format!("{}: exit {code}, {places:?} {stderr}", c.from));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn node_har_validator_cases_and_assertions() {
    let cases = peer_cases();
    assert_eq!(cases.len(), 23);
    run(cases);
}

/// The issue's cases beyond the validator's own: an empty `log`, a relative URL, a fragment,
/// `{}` on one line, and the spec's own examples (its full example as one document, and each
/// of its four `cache` examples).
#[test]
fn spec_examples_pass_and_what_the_spec_requires_is_a_deviation() {
    let spec: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("har-spec/spec-1.2-example.har")).unwrap(),
    )
    .unwrap();
    let mut cases = vec![
        raw(
            "an empty log misses version, creator and entries",
            br#"{"log": {}}"#,
            Want::Exactly(&["log.version", "log.creator", "log.entries"]),
        ),
        raw(
            "`{}` on one line is a document without `log`, not a JSON-lines log",
            b"{}\n",
            Want::Exactly(&["document.log"]),
        ),
        case(
            "a relative URL",
            with_entry(|e| e["request"]["url"] = json!("mockbin.com")),
            Want::Exactly(&["log.entries[0].request.url"]),
        ),
        case(
            "a URL with a fragment",
            with_entry(|e| e["request"]["url"] = json!("http://mockbin.com/#top")),
            Want::Exactly(&["log.entries[0].request.url"]),
        ),
        case("the spec's full example", spec.clone(), Want::Valid),
    ];
    let examples = [
        json!({}),
        json!({"afterRequest": null}),
        json!({"beforeRequest": null, "afterRequest": null}),
        spec["log"]["entries"][0]["cache"].clone(),
    ];
    for ex in examples {
        let mut doc = spec.clone();
        doc["log"]["entries"][0]["cache"] = ex;
        cases.push(case("one of the spec's cache examples", doc, Want::Valid));
    }
    run(cases);
}

/// The relative URL's message names the field and the rule, never the URL.
#[test]
fn a_relative_url_is_named_not_quoted() {
    let tmp = tempfile::tempdir().unwrap();
    let doc = with_entry(|e| e["request"]["url"] = json!("api.example.com/x?token=QQSECRET"));
    let path = write(tmp.path(), "rel.har", &serde_json::to_vec(&doc).unwrap());
    let out = toomany().args(["check", &path]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("not an absolute URL"), "{text}");
    assert!(
        !text.contains("QQSECRET") && !text.contains("api.example.com"),
        "{text}"
    );
}
