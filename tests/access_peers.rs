//! Other projects' access-log test data, read as a new user would (no flag first, then the
//! format named when the file was not read whole): log shippers' module tests, parser
//! libraries' specs, proxies' own formatter tests, in the formats toomany claims
//! (`tests/fixtures/access-peers/`, each file's repository, path, commit and licence in
//! `<slice>/SOURCES.md`, what each line is in `<slice>/expected.json`; slices `dev` and `new`,
//! the second from projects the first does not draw on), and their derived copies with
//! every fifth request turned into a 429 (`derived/`).
//!
//! The bars: at least 95 % of the files read whole (as many records as request lines, no
//! warning on a request line), 99.9 % of the request lines read, the sniffed format right for
//! 95 % of the files, and every derived 429 listed (and no other).

mod common;
use common::*;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

fn root() -> String {
    fixture("access-peers")
}

struct Run {
    records: u64,
    formats: Vec<String>,
    warned_lines: BTreeSet<u64>,
    limited_lines: BTreeSet<u64>,
    hosts: BTreeSet<String>,
}

fn run(path: &str, format: Option<&str>) -> Option<Run> {
    let mut cmd = toomany();
    cmd.args(["analyze", path, "--format", "json"]);
    if let Some(f) = format {
        cmd.args(["--input-format", f]);
    }
    let out = cmd.output().expect("runs");
    let report: Value = serde_json::from_slice(&out.stdout).ok()?;
    let inputs = report["inputs"].as_array()?;
    let warned_lines = inputs
        .iter()
        .flat_map(|i| i["warnings"].as_array().cloned().unwrap_or_default())
        .filter_map(|w| w["line"].as_u64())
        .collect();
    Some(Run {
        records: inputs
            .iter()
            .map(|i| i["records"].as_u64().unwrap_or(0))
            .sum(),
        formats: inputs
            .iter()
            .filter_map(|i| i["format"].as_str().map(str::to_string))
            .collect(),
        warned_lines,
        limited_lines: report["rate_limited"]
            .as_array()?
            .iter()
            .filter(|r| r["status"] == 429)
            .filter_map(|r| r["line"].as_u64())
            .collect(),
        hosts: report["summary"]["hosts"]
            .as_array()?
            .iter()
            .filter_map(|h| h["host"].as_str())
            .map(|h| h.rsplit_once(':').map_or(h, |(a, _)| a).to_string())
            .collect(),
    })
}

/// The host of a quoted request line in absolute form (`"GET http://host:port/path ..."`).
fn absolute_form_host(line: &str) -> Option<&str> {
    line.split('"').find_map(|quoted| {
        let (method, rest) = quoted.split_once(' ')?;
        if method.is_empty() || !method.bytes().all(|c| c.is_ascii_uppercase()) {
            return None;
        }
        let target = rest.split(' ').next()?;
        let (scheme, after) = target.split_once("://")?;
        if scheme.is_empty() || !scheme.bytes().all(|c| c.is_ascii_alphabetic()) {
            return None;
        }
        let authority = after.split(['/', '?']).next()?;
        let host = match authority.strip_prefix('[') {
            Some(v6) => v6.split(']').next()?,
            None => authority.rsplit_once(':').map_or(authority, |(h, _)| h),
        };
        (!host.is_empty()).then_some(host)
    })
}

/// As many records as request lines, and no warning on a request line.
fn whole(r: &Option<Run>, e: &Value) -> bool {
    let Some(r) = r else { return false };
    let requests: BTreeSet<u64> = e["request_lines"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_u64)
        .collect();
    r.records == e["requests"].as_u64().unwrap() && r.warned_lines.is_disjoint(&requests)
}

#[test]
fn other_projects_access_logs_are_read_whole() {
    slice_is_read_whole("dev", 40);
}

/// A second slice, from projects the first does not draw on (CrowdSec's parser tests, plaso's
/// test data): the readers' rules hold beyond the files they were written against.
#[test]
fn access_logs_of_further_projects_are_read_whole() {
    slice_is_read_whole("new", 25);
}

/// A third slice, from projects neither draws on (elastic/integrations' pipeline tests,
/// Datadog's log-pipeline tests, OpenTelemetry Collector's load-balancer log decoder tests),
/// labelled by `scripts/access-peers.py`, independently of the readers.
#[test]
fn access_logs_of_a_fresh_slice_are_read_whole() {
    slice_is_read_whole("fresh", 17);
}

/// The part of the last round's slice never looked at while writing code (mtail's,
/// request-log-analyzer's and two log parsers' fixtures).
#[test]
fn access_logs_never_looked_at_are_read_whole() {
    slice_is_read_whole("blind", 10);
}

fn slice_is_read_whole(slice: &str, at_least: usize) {
    let expected: BTreeMap<String, Value> = serde_json::from_str(
        &std::fs::read_to_string(format!("{}/{slice}/expected.json", root())).expect("expected"),
    )
    .expect("JSON");
    let derived: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(format!("{}/derived/{slice}/expected.json", root()))
            .expect("derived expected"),
    )
    .expect("JSON");
    let derived: BTreeMap<&str, &Value> = derived
        .iter()
        .map(|d| (d["file"].as_str().unwrap(), d))
        .collect();
    assert!(expected.len() >= at_least, "{} files", expected.len());

    let (mut whole_files, mut sniffed_right, mut read, mut requests) = (0, 0, 0u64, 0u64);
    let (mut want_429, mut got_429, mut extra_429) = (0, 0, 0);
    let mut misses = Vec::new();
    for (rel, e) in &expected {
        let accept: Vec<&str> = e["accept_formats"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let path = format!("{}/{slice}/{rel}", root());
        let sniffed = run(&path, None);
        let mut best = (
            whole(&sniffed, e),
            sniffed.as_ref().map_or(0, |r| r.records),
            None,
        );
        if !best.0 {
            let forced = run(&path, Some(accept[0]));
            if whole(&forced, e) || forced.as_ref().map_or(0, |r| r.records) > best.1 {
                best = (
                    whole(&forced, e),
                    forced.map_or(0, |r| r.records),
                    Some(accept[0]),
                );
            }
        }
        let want = e["requests"].as_u64().unwrap();
        requests += want;
        read += best.1.min(want);
        whole_files += usize::from(best.0);
        let right = sniffed.as_ref().is_some_and(|r| {
            !r.formats.is_empty() && r.formats.iter().all(|f| accept.contains(&f.as_str()))
        });
        sniffed_right += usize::from(right);
        if !best.0 || !right {
            misses.push(format!(
                "{rel}: whole {}, {} of {want} records, sniffed {:?} (accept {accept:?})",
                best.0,
                best.1,
                sniffed.as_ref().map(|r| &r.formats)
            ));
        }
        // Hosts the lines state are the report's hosts; a request line in absolute form names
        // its host, which wins over a Host header or TLS SNI the line also logs (RFC 9112
        // section 3.2.2).
        if let Some(r) = &sniffed {
            // Bytes as logged: a request line may hold bytes that are not UTF-8 (Big5).
            let text =
                String::from_utf8_lossy(&std::fs::read(&path).expect("fixture")).into_owned();
            // `hosts` are the request lines' (`request_lines`, 1-based): a line that is not a
            // request (an error-log line quoting one) states no host.
            let lines: Vec<&str> = text.lines().collect();
            let request_lines = e["request_lines"].as_array().unwrap();
            for (h, n) in e["hosts"].as_array().unwrap().iter().zip(request_lines) {
                let line = n.as_u64().and_then(|n| lines.get(n as usize - 1));
                let Some(h) = line
                    .and_then(|l| absolute_form_host(l))
                    .or_else(|| h.as_str())
                else {
                    continue;
                };
                if !r.hosts.contains(h) {
                    misses.push(format!("{rel}: host {h} not in the report's {:?}", r.hosts));
                }
            }
        }
        // The derived copy, read the same way.
        let d = derived[rel.as_str()];
        let changed: BTreeSet<u64> = d["changed_lines"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|c| c["line"].as_u64())
            .collect();
        let dr = run(
            &format!("{}/{}", root(), d["derived_path"].as_str().unwrap()),
            best.2,
        );
        let listed = dr.map(|r| r.limited_lines).unwrap_or_default();
        want_429 += changed.len();
        got_429 += changed.intersection(&listed).count();
        extra_429 += listed.difference(&changed).count();
        if !changed.is_subset(&listed) || !listed.is_subset(&changed) {
            misses.push(format!(
                "{rel}: derived 429s {changed:?}, listed {listed:?}"
            ));
        }
    }
    for m in &misses {
        eprintln!("miss: {m}");
    }
    let n = expected.len();
    eprintln!(
        "{slice}: {n} files: {whole_files} read whole, {read}/{requests} request lines, sniffed right {sniffed_right}, derived 429s {got_429}/{want_429} ({extra_429} unexpected)"
    );
    assert!(
        whole_files * 100 >= n * 95,
        "files read whole: {whole_files}/{n}"
    );
    assert!(
        read * 1000 >= requests * 999,
        "lines read: {read}/{requests}"
    );
    assert!(
        sniffed_right * 100 >= n * 95,
        "sniffed right: {sniffed_right}/{n}"
    );
    assert_eq!((got_429, extra_429), (want_429, 0), "derived 429s");
    assert!(
        misses.iter().all(|m| !m.contains("host")),
        "hosts the lines state are reported"
    );
}
