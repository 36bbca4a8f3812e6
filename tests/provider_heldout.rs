//! Held-out provider check (issue 11): real 429 / rate-limit 403 responses written from vendor
//! documentation and public recordings alone, independently of the attribution rules
//! (tests/fixtures/heldout-providers/, docs/heldout-providers.md). Runs the real CLI over
//! every fixture, matches each expected case to its `rate_limited[]` record by file and
//! entry/line, prints the four scores (each miss only with `TOOMANY_HELDOUT_VERBOSE=1`, for
//! whoever maintains the set, never for whoever tunes the rules), and asserts floors.
//!
//! The floors are the scores main had when the set was written (rounded down), so this test
//! catches regressions. Issue 11's target bars are layer >= 95 % and vendor >= 90 %; the
//! provider catalogue work raises the floors towards them.

mod common;
use common::*;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// Main's measured scores (layer raised on 2026-12-02 after the catalogue work; vendor and quota
/// on 2026-12-07 after issue 40's classes, layer and vendor again after its third round),
/// rounded down (percent). Issue 11 targets: layer 95, vendor 90.
const FLOOR_LAYER: u32 = 97;
const FLOOR_VENDOR: u32 = 97;
const FLOOR_QUOTA: u32 = 97;
const FLOOR_RETRY_AFTER: u32 = 100;

const DIR: &str = "heldout-providers";

/// Issue 40's development cases (tests/fixtures/unseen-dev/): producers the catalogue has no
/// row for and gateways answering for an origin, from their documentation and public issue
/// threads. Not held out (the rules were developed on them): floors catch regressions, and a
/// case whose layer is `none` must not be listed at all (a 403 for a forbidden resource).
const DEV_DIR: &str = "unseen-dev";
const DEV_FLOOR_LAYER: u32 = 100;
const DEV_FLOOR_VENDOR: u32 = 100;
const DEV_FLOOR_QUOTA: u32 = 100;

struct Score {
    hits: u32,
    total: u32,
}

impl Score {
    fn new() -> Self {
        Score { hits: 0, total: 0 }
    }
    fn add(&mut self, ok: bool) {
        self.total += 1;
        self.hits += u32::from(ok);
    }
    /// Percent, rounded down, so a floor equal to it holds exactly.
    fn percent(&self) -> u32 {
        (self.hits * 100).checked_div(self.total).unwrap_or(100)
    }
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn file_name(p: &str) -> String {
    Path::new(p)
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The fixture files, in a stable order, as absolute paths.
fn fixture_files(dir: &str, cases: &[Value]) -> Vec<String> {
    let mut names: Vec<String> = cases
        .iter()
        .filter_map(|c| c["file"].as_str().map(str::to_string))
        .collect();
    names.sort();
    names.dedup();
    names
        .iter()
        .map(|n| fixture(&format!("{dir}/{n}")))
        .collect()
}

#[test]
fn provider_heldout_scores_hold() {
    let [layer, vendor, quota, retry] = scores(DIR, 80);
    assert!(
        layer >= FLOOR_LAYER,
        "layer score fell below {FLOOR_LAYER}%"
    );
    assert!(
        vendor >= FLOOR_VENDOR,
        "vendor score fell below {FLOOR_VENDOR}%"
    );
    assert!(
        quota >= FLOOR_QUOTA,
        "quota score fell below {FLOOR_QUOTA}%"
    );
    assert!(
        retry >= FLOOR_RETRY_AFTER,
        "Retry-After score fell below {FLOOR_RETRY_AFTER}%"
    );
}

#[test]
fn unseen_development_scores_hold() {
    let [layer, vendor, quota, retry] = scores(DEV_DIR, 25);
    assert!(
        layer >= DEV_FLOOR_LAYER,
        "layer score fell below {DEV_FLOOR_LAYER}%"
    );
    assert!(
        vendor >= DEV_FLOOR_VENDOR,
        "vendor score fell below {DEV_FLOOR_VENDOR}%"
    );
    assert!(
        quota >= DEV_FLOOR_QUOTA,
        "quota score fell below {DEV_FLOOR_QUOTA}%"
    );
    assert_eq!(retry, 100, "a Retry-After was misread");
}

/// Runs the CLI over the set in `dir` (at least `min_cases` cases), prints its scores and
/// returns them as percents: layer, vendor, quota, Retry-After. A case expecting layer `none`
/// is right only when the response is not listed, and is not scored otherwise.
fn scores(dir: &str, min_cases: usize) -> [u32; 4] {
    let expected_path = fixture(&format!("{dir}/expected.json"));
    let expected: Value = serde_json::from_str(
        &std::fs::read_to_string(&expected_path).expect("expected.json is readable"),
    )
    .expect("expected.json is JSON");
    let cases = expected["cases"].as_array().expect("cases[]");
    assert!(cases.len() >= min_cases, "{dir} has too few cases");
    let canary = expected["canary"].as_str().expect("canary");

    let files = fixture_files(dir, cases);
    let mut args = vec!["analyze".to_string()];
    args.extend(files.iter().cloned());
    args.extend(["--format".to_string(), "json".to_string()]);
    let out = toomany().args(&args).assert().success();
    let stdout = &out.get_output().stdout;
    let report = json_of(stdout);

    // Every fixture loads whole: a skipped entry would silently turn a case into a miss.
    for input in report["inputs"].as_array().expect("inputs[]") {
        assert_eq!(
            input["skipped"], 0,
            "skipped entries in {}",
            input["source"]
        );
        assert!(input.get("error").is_none(), "read error: {input}");
    }

    let mut by_location: HashMap<(String, u64), &Value> = HashMap::new();
    for r in report["rate_limited"].as_array().expect("rate_limited[]") {
        let at = r["entry"].as_u64().or_else(|| r["line"].as_u64());
        if let (Some(src), Some(at)) = (r["source"].as_str(), at) {
            by_location.insert((file_name(src), at), r);
        }
    }

    let (mut layer, mut vendor, mut quota, mut retry) =
        (Score::new(), Score::new(), Score::new(), Score::new());
    let mut misses = Vec::new();
    for c in cases {
        let id = c["id"].as_str().unwrap_or("?");
        let file = c["file"].as_str().unwrap_or("?").to_string();
        let at = c["entry"]
            .as_u64()
            .or_else(|| c["line"].as_u64())
            .unwrap_or(0);
        let got = by_location.get(&(file.clone(), at)).copied();
        let want = |k: &str| strs(&c[k]);
        if want("layer") == ["none"] {
            if got.is_some() {
                misses.push(format!(
                    "{id} ({file}@{at}): listed, but it is not a rate limit"
                ));
            }
            assert!(
                got.is_none(),
                "{dir}: {id} is not a rate limit but was listed"
            );
            continue;
        }
        let have = |k: &str| {
            got.and_then(|r| r[k].as_str())
                .unwrap_or(if got.is_some() { "null" } else { "-" })
                .to_string()
        };
        let (gl, gv, gq) = (have("layer"), have("vendor"), have("quota"));
        let (ok_l, ok_v, ok_q) = (
            want("layer").contains(&gl),
            want("vendor").contains(&gv),
            want("quota").contains(&gq),
        );
        layer.add(ok_l);
        vendor.add(ok_v);
        quota.add(ok_q);
        let mut ra_note = String::new();
        if let Some(want_ra) = c["retry_after_s"].as_f64() {
            let got_ra = got.and_then(|r| r["retry_after"]["seconds"].as_f64());
            let ok = got_ra.is_some_and(|s| (s - want_ra).abs() < 0.5);
            retry.add(ok);
            if !ok {
                ra_note = format!(" retry_after want {want_ra} got {got_ra:?}");
            }
        }
        if got.is_none() {
            misses.push(format!(
                "{id} ({file}@{at}): not in rate_limited[] (want {:?}/{:?}/{:?})",
                want("layer"),
                want("vendor"),
                want("quota")
            ));
        } else if !ok_l || !ok_v || !ok_q || !ra_note.is_empty() {
            let mut parts = Vec::new();
            if !ok_l {
                parts.push(format!("layer want {:?} got {gl}", want("layer")));
            }
            if !ok_v {
                parts.push(format!("vendor want {:?} got {gv}", want("vendor")));
            }
            if !ok_q {
                parts.push(format!("quota want {:?} got {gq}", want("quota")));
            }
            misses.push(format!("{id} ({file}@{at}): {}{ra_note}", parts.join("; ")));
        }
    }

    // Case-by-case misses are printed only on request, so that whoever tunes the attribution
    // rules sees the aggregate scores, never which held-out case to fit.
    eprintln!("{dir} misses: {}", misses.len());
    if std::env::var_os("TOOMANY_HELDOUT_VERBOSE").is_some() {
        for m in &misses {
            eprintln!("  {m}");
        }
    }
    eprintln!(
        "{dir} scores over {} cases: layer {}% ({}/{}), vendor {}% ({}/{}), \
         quota {}% ({}/{}), Retry-After {}% ({}/{})",
        layer.total,
        layer.percent(),
        layer.hits,
        layer.total,
        vendor.percent(),
        vendor.hits,
        vendor.total,
        quota.percent(),
        quota.hits,
        quota.total,
        retry.percent(),
        retry.hits,
        retry.total,
    );

    // The planted credential is redacted at ingestion and never reaches the report.
    let text = String::from_utf8_lossy(stdout);
    assert!(
        !text.contains(canary),
        "the canary credential leaked into the report"
    );
    assert!(!text.contains("heldoutcanary"), "part of the canary leaked");

    [
        layer.percent(),
        vendor.percent(),
        quota.percent(),
        retry.percent(),
    ]
}

#[test]
fn provider_heldout_fixtures_match_their_source() {
    for dir in [DIR, DEV_DIR] {
        fixtures_match_their_source(dir);
    }
}

fn fixtures_match_their_source(dir: &str) {
    // expected.json and the fixtures are generated together; a hand edit to one without the
    // other would move cases onto the wrong records. Each case's location must hold a
    // response with the case's status and host.
    let expected: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture(&format!("{dir}/expected.json"))).expect("readable"),
    )
    .expect("JSON");
    let mut har_cache: HashMap<String, Value> = HashMap::new();
    let mut lines_cache: HashMap<String, Vec<Value>> = HashMap::new();
    for c in expected["cases"].as_array().expect("cases[]") {
        let file = c["file"].as_str().expect("file");
        let path = fixture(&format!("{dir}/{file}"));
        let (status, url) = if let Some(entry) = c["entry"].as_u64() {
            let har = har_cache.entry(file.to_string()).or_insert_with(|| {
                serde_json::from_str(&std::fs::read_to_string(&path).expect("har")).expect("json")
            });
            let e = &har["log"]["entries"][entry as usize];
            (
                e["response"]["status"].as_u64(),
                e["request"]["url"].as_str().map(str::to_string),
            )
        } else {
            let line = c["line"].as_u64().expect("entry or line") as usize;
            let lines = lines_cache.entry(file.to_string()).or_insert_with(|| {
                std::fs::read_to_string(&path)
                    .expect("jsonl")
                    .lines()
                    .map(|l| serde_json::from_str(l).expect("json line"))
                    .collect()
            });
            let r = &lines[line - 1];
            (r["status"].as_u64(), r["url"].as_str().map(str::to_string))
        };
        assert_eq!(status, c["status"].as_u64(), "status of {}", c["id"]);
        let host = c["host"].as_str().expect("host");
        assert!(
            url.as_deref()
                .is_some_and(|u| u.starts_with(&format!("https://{host}/"))),
            "host of {}",
            c["id"]
        );
    }
}
