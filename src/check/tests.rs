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

#[test]
fn impossible_date_in_cache_last_access() {
    let mut e = entry();
    e["cache"] = json!({"afterRequest": {"lastAccess": "2009-16-02T10:00:00.000Z", "eTag": "", "hitCount": 0}});
    let d = devs(&har("1.2", json!([]), vec![e]));
    let x = find(&d, "cache.afterRequest.lastAccess");
    assert!(x.problem.contains("not a real date"), "{x:?}");
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
    assert!(find(&d, "version")
        .problem
        .contains("not a known HAR version"));
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
