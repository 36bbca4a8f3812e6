//! `toomany analyze … --format json`: the findings[] contract on the samples and on clean
//! traffic written to temporary files (a page load HAR, a polling dashboard, a steady stream).

mod common;
use common::*;
use serde_json::{json, Value};
use std::io::Write;

/// The JSON report, checked for the test key that every input here carries.
fn analyze(args: &[&str]) -> Value {
    let report = analyze_json_with(args);
    assert!(
        !report.to_string().contains("sk-test"),
        "a secret leaked into the report"
    );
    report
}

fn kinds(report: &Value) -> Vec<String> {
    let mut k: Vec<String> =
        report["findings"]
            .as_array()
            .expect("findings[]")
            .iter()
            .map(|f| {
                for field in ["kind", "severity", "summary", "evidence"] {
                    assert!(f.get(field).is_some(), "finding without {field}: {f}");
                }
                assert!(
                    ["info", "warning", "critical"].contains(&f["severity"].as_str().unwrap_or(""))
                );
                f["kind"].as_str().expect("kind").to_string()
            })
            .collect();
    k.sort();
    k.dedup();
    k
}

fn temp(name: &str, body: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(name);
    let mut f = std::fs::File::create(&path).expect("create");
    f.write_all(body.as_bytes()).expect("write");
    (dir, path.to_string_lossy().into_owned())
}

fn ts(ms: u64) -> String {
    let t = chrono::DateTime::from_timestamp_millis(1_772_460_000_000 + ms as i64).expect("time");
    t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

fn jsonl(records: &[Value]) -> String {
    records.iter().map(|r| r.to_string() + "\n").collect()
}

#[test]
fn retry_storm_sample() {
    let r = analyze(&["samples/retry-storm.jsonl"]);
    let k = kinds(&r);
    for want in [
        "retry_storm",
        "ignored_retry_after",
        "shared_key_contention",
        "unsafe_retry",
    ] {
        assert!(k.contains(&want.to_string()), "missing {want}: {k:?}");
    }
    assert!(!k.contains(&"quota_exhausted".to_string()), "{k:?}");
    assert_eq!(r["clients"]["count"], 5);
    assert_eq!(r["clients"]["identified_by"], json!(["client"]));
    let storm = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "retry_storm")
        .unwrap();
    assert!(
        storm["summary"].as_str().unwrap().contains("3 × 4 = 12"),
        "{}",
        storm["summary"]
    );
    // Evidence points at records the user can open.
    let worst = &storm["evidence"]["worst"]["first"];
    assert_eq!(worst["source"], "samples/retry-storm.jsonl");
    assert!(worst["line"].as_u64().is_some());
}

#[test]
fn batch_burst_sample() {
    let r = analyze(&["samples/batch-burst.jsonl"]);
    let k = kinds(&r);
    for want in ["burst", "synchronized_retries", "quota_exhausted"] {
        assert!(k.contains(&want.to_string()), "missing {want}: {k:?}");
    }
    // The dashboard polling in the same log is left alone.
    for f in r["findings"].as_array().unwrap() {
        assert_ne!(f["evidence"]["host"], "dash.example.com", "{f}");
    }
}

#[test]
fn table_lists_findings_before_the_rate_limited_responses() {
    let out = toomany()
        .env("COLUMNS", "200")
        .args(["analyze", &sample("batch-burst.jsonl")])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let listing = text
        .find("Rate-limited responses (")
        .expect("per-429 listing");
    let findings = text.find("Findings").expect("findings section");
    assert!(findings < listing, "the verdict comes before the details");
    assert!(text.contains("[critical] quota_exhausted: "), "{text}");
    assert!(text.contains("slowing down will not help"));
}

#[test]
fn burst_against_the_given_limit() {
    // 600 requests ~16 ms apart; a 120/min window lets the first 120 through.
    let recs: Vec<Value> = (0..600u64)
        .map(|i| {
            let limited = i >= 120;
            json!({
                "time": ts(i * 16), "method": "GET", "url": format!("https://api.example.com/v1/r/{i}"),
                "status": if limited { 429 } else { 200 }, "duration_ms": 9,
                "request_headers": {"Authorization": "Bearer sk-test-abc123abc123"},
                "response_headers": if limited { json!({"Retry-After": "50"}) } else { json!({}) },
                "client": "export",
            })
        })
        .collect();
    let (_d, path) = temp("burst.jsonl", &jsonl(&recs));
    let r = analyze(&[&path, "--limit", "120/min"]);
    assert_eq!(kinds(&r), vec!["burst"]);
    let s = r["findings"][0]["summary"].as_str().unwrap();
    assert!(s.starts_with("600 requests to api.example.com started in 9.6 s (62.6/s) against a limit of 120/min (2/s)"), "{s}");
}

#[test]
fn polling_dashboard_is_clean() {
    let mut recs = Vec::new();
    for round in 0..240u64 {
        for w in 0..4u64 {
            let limited = (round * 4 + w) % 37 == 0;
            recs.push(json!({
                "time": ts(round * 5000 + w * 30), "method": "GET",
                "url": format!("https://dash.example.com/api/widgets/{w}?range=1h"),
                "status": if limited { 429 } else { 200 }, "duration_ms": if limited { 12 } else { 95 },
                "response_headers": if limited { json!({"Retry-After": "30"}) } else { json!({}) },
                "user_agent": "Mozilla/5.0 Firefox/128.0",
                "request_headers": {"Cookie": "session=abc"},
            }));
        }
    }
    let (_d, path) = temp("dash.jsonl", &jsonl(&recs));
    let r = analyze(&[&path]);
    assert!(r["summary"]["rate_limited"].as_u64().unwrap() > 10);
    assert_eq!(kinds(&r), Vec::<String>::new());
}

#[test]
fn steady_stream_under_the_limit_is_clean() {
    let recs: Vec<Value> = (0..1000u64)
        .map(|i| {
            json!({
                "time": ts(i * 560 + (i * 7919 % 200)), "method": "GET",
                "url": format!("https://api.example.com/v1/items/{i}"), "status": 200, "duration_ms": 180,
                "request_headers": {"X-Api-Key": "sk-test-steady0000"}, "client": "ingest",
            })
        })
        .collect();
    let (_d, path) = temp("steady.jsonl", &jsonl(&recs));
    assert_eq!(
        kinds(&analyze(&[&path, "--limit", "120/min"])),
        Vec::<String>::new()
    );
    assert_eq!(kinds(&analyze(&[&path])), Vec::<String>::new());
}

#[test]
fn page_load_har_is_clean() {
    let ua = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/126.0";
    let mut entries = vec![];
    let mut push = |ms: u64, url: String, time: u64| {
        entries.push(json!({
            "pageref": "page_1", "startedDateTime": ts(ms), "time": time,
            "request": {"method": "GET", "url": url, "headers": [{"name": "User-Agent", "value": ua}]},
            "response": {"status": 200, "headers": [], "content": {"mimeType": "text/plain", "size": 0}},
            "timings": {"wait": time / 2}
        }));
    };
    push(0, "https://shop.example.com/".into(), 180);
    for i in 0..80u64 {
        push(
            200 + i * 7 % 600,
            format!("https://static.example-cdn.com/assets/{i}.js"),
            40 + i * 13 % 400,
        );
    }
    entries.sort_by_key(|e| e["startedDateTime"].as_str().unwrap().to_string());
    let har = json!({"log": {"version": "1.2", "creator": {"name": "test", "version": "1"},
        "pages": [{"id": "page_1", "startedDateTime": ts(0), "title": "shop"}], "entries": entries}});
    let (_d, path) = temp("page.har", &har.to_string());
    let r = analyze(&[&path]);
    assert_eq!(r["summary"]["requests"], 81);
    assert_eq!(kinds(&r), Vec::<String>::new());
    assert!(r["clients"]["identified_by"]
        .as_array()
        .unwrap()
        .contains(&json!("pageref")));
    let r = analyze(&[&path, "--limit", "120/min"]);
    assert_eq!(kinds(&r), Vec::<String>::new());
}

/// Every file of the scenario corpus produces exactly the kinds `expected.json` lists (steady
/// and burst traffic also with `--limit 120/min`).
#[test]
fn scenario_corpus() {
    let text = std::fs::read_to_string("tests/scenarios/expected.json").expect("expected.json");
    let expected: std::collections::BTreeMap<String, Vec<String>> =
        serde_json::from_str(&text).expect("expected.json parses");
    assert!(expected.len() >= 12);
    let mut failures = Vec::new();
    for (file, want) in &expected {
        let path = format!("tests/scenarios/{file}.gz");
        let mut runs: Vec<Vec<&str>> = vec![vec![path.as_str()]];
        if file.starts_with("steady") || file.starts_with("cron") {
            runs.push(vec![path.as_str(), "--limit", "120/min"]);
        }
        for args in runs {
            let r = analyze(&args);
            let mut want = want.clone();
            want.sort();
            let got = kinds(&r);
            if got != want {
                let summaries: Vec<String> = r["findings"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|f| f["summary"].as_str().unwrap_or("").to_string())
                    .collect();
                failures.push(format!(
                    "{args:?}: got {got:?}, want {want:?}\n    {}",
                    summaries.join("\n    ")
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
