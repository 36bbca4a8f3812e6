//! Every real exporter file in the corpus (`tests/corpus/real-har`) is read by `analyze` without
//! a failed file; files the MANIFEST marks malformed give a located error instead.

mod common;
use common::*;

/// Files the corpus MANIFEST marks as intentionally malformed.
const MALFORMED: &[&str] = &["malformed-mitmproxy-brokenfile.har"];

#[test]
fn every_corpus_file_loads_or_fails_with_a_located_error() {
    let dir = corpus_dir();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().map(|x| x == "har").unwrap_or(false))
        .collect();
    files.sort();
    assert!(files.len() >= 30, "corpus has its files");
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let out = toomany()
            .args(["analyze", path.to_str().unwrap(), "--format", "json"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
        if MALFORMED.contains(&name.as_str()) {
            assert_eq!(out.status.code(), Some(2), "{name}");
            assert!(
                stderr.contains(&name) && stderr.contains("line"),
                "{name}: located error: {stderr}"
            );
            continue;
        }
        assert_eq!(out.status.code(), Some(0), "{name}: {stderr}");
        let v = json_of(&out.stdout);
        let input = &v["inputs"][0];
        assert!(input["error"].is_null(), "{name}: {}", input["error"]);
        assert!(input["records"].as_u64().unwrap() >= 1, "{name}");
        assert_eq!(input["format"], "har", "{name}");
    }
}

#[test]
fn the_corpus_429_file_reports_all_eleven() {
    let dir = corpus_dir();
    let p = dir.join("chrome-webinspector-requestgenerator-429-503-subset.har");
    let out = toomany()
        .args(["analyze", p.to_str().unwrap(), "--format", "json"])
        .assert()
        .success();
    let v = json_of(&out.get_output().stdout);
    assert_eq!(v["summary"]["by_status"]["429"], 11);
    let n429 = v["rate_limited"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == 429)
        .count();
    assert_eq!(n429, 11);
}

#[test]
fn check_reports_deviations_with_entry_index_on_lenient_exports() {
    let dir = corpus_dir();
    // BrowserMob via Gson: no version, no creator, non-ISO dates, entries without `time`.
    let p = dir.join("browsermob-gson-nonisodate-noversion.har");
    let out = toomany()
        .args(["check", p.to_str().unwrap(), "--format", "json"])
        .assert()
        .code(1);
    let v = json_of(&out.get_output().stdout);
    let devs = v["deviations"].as_array().unwrap();
    assert!(devs.iter().any(|d| d["field"] == "version"));
    assert!(devs.iter().any(|d| d["entry"] == 0), "{devs:?}");
}
