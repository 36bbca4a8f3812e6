//! The report `analyze --follow` prints when the following stops is the report `analyze` gives
//! for the same lines: at the end of a stream fed in pieces, and at Ctrl-C on a followed file.
//! (The follower makes the replays' first pass at the end, from the spilled event log, instead
//! of while the lines come in: memory stays flat, and the report must not change.)

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A fixed fingerprint key: two runs fingerprint credentials alike (a random key per run
/// otherwise).
fn key_file(dir: &Path) -> std::path::PathBuf {
    let key = dir.join("fingerprint.key");
    std::fs::write(&key, b"0123456789abcdef0123456789abcdef").unwrap();
    key
}

fn toomany(dir: &Path) -> Command {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("toomany"));
    c.arg("analyze")
        .arg("--fingerprint-key-file")
        .arg(key_file(dir));
    c
}

/// Where two reports first differ (a path into the JSON and both values), for a readable
/// failure.
fn difference(a: &serde_json::Value, b: &serde_json::Value, path: &str) -> Option<String> {
    use serde_json::Value;
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter().find_map(|k| {
                let null = Value::Null;
                difference(
                    x.get(k).unwrap_or(&null),
                    y.get(k).unwrap_or(&null),
                    &format!("{path}.{k}"),
                )
            })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (u, v))| difference(u, v, &format!("{path}[{i}]"))),
        _ if a == b => None,
        _ => Some(format!("{path}: {a} vs {b}")),
    }
}

fn assert_same(got: &serde_json::Value, want: &serde_json::Value, what: &str) {
    if let Some(d) = difference(got, want, "") {
        panic!("{what}: the followed report differs from analyze's at {d}");
    }
}

/// A few thousand JSON lines of an incident: steady reads on three hosts, bursts of 429s with
/// Retry-After on one, a client retrying the same write without waiting, one key shared by
/// several clients, and some lines out of order.
fn incident(lines: usize) -> String {
    let mut out = String::new();
    let base = 1_767_225_600_000i64; // 2026-01-01T00:00:00Z, in ms
    for n in 0..lines {
        let mut t = base + n as i64 * 97;
        if n % 50 == 7 {
            t -= 900; // a little out of order
        }
        let time = chrono::DateTime::from_timestamp_millis(t)
            .unwrap()
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        let host = ["api.example.com", "cdn.example.net", "auth.example.org"][n % 3];
        let burst = host == "api.example.com" && (n / 300) % 3 == 1;
        let status = if burst && n % 4 != 0 { 429 } else { 200 };
        let client = format!("worker-{}", n % 11);
        let key = format!("Bearer sk-test-shared-{}", n % 2);
        let (method, url) = if n % 13 == 0 {
            ("POST", format!("https://{host}/v1/charges"))
        } else {
            ("GET", format!("https://{host}/v1/items/{}", n % 40))
        };
        let retry = if status == 429 {
            r#","response_headers":{"Retry-After":"2","X-RateLimit-Limit":"100","X-RateLimit-Remaining":"0"}"#
        } else {
            ""
        };
        out.push_str(&format!(
            r#"{{"time":"{time}","method":"{method}","url":"{url}","status":{status},"duration_ms":{},"client":"{client}","request_headers":{{"Authorization":"{key}"}}{retry}}}"#,
            40 + n % 200
        ));
        out.push('\n');
    }
    out
}

fn report_of(out: &std::process::Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `analyze -` over `text`.
fn analyzed(dir: &Path, text: &[u8]) -> serde_json::Value {
    let mut child = toomany(dir)
        .args(["-", "--format", "json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(text).unwrap();
    drop(input);
    report_of(&child.wait_with_output().unwrap())
}

/// `analyze --follow -` over `text`, written in `parts` with pauses (so it is read in pieces).
fn followed(dir: &Path, text: &[u8], parts: usize) -> serde_json::Value {
    let report = dir.join("report.json");
    let mut child = toomany(dir)
        .args(["--follow", "-", "--view", "ndjson", "--interval", "0.2"])
        .args(["--format", "json", "--force", "-o"])
        .arg(&report)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let size = text.len().div_ceil(parts.max(1));
    for part in text.chunks(size.max(1)) {
        input.write_all(part).unwrap();
        input.flush().unwrap();
        std::thread::sleep(Duration::from_millis(150));
    }
    drop(input);
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap()
}

#[test]
fn a_stream_fed_in_pieces_is_reported_as_analyze_reports_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    let mut inputs: Vec<(String, Vec<u8>)> = [
        "api-incident.jsonl",
        "batch-burst.jsonl",
        "retry-storm.jsonl",
        "nginx-incident.log",
        "envoy-incident.log",
    ]
    .iter()
    .map(|f| (f.to_string(), std::fs::read(root.join(f)).unwrap()))
    .collect();
    // ~500 429s: more than the follower keeps in memory at once (its rows wait in a file).
    inputs.push(("generated".into(), incident(6000).into_bytes()));
    let d = tempfile::tempdir().unwrap();
    for (name, text) in inputs {
        let want = analyzed(d.path(), &text);
        let got = followed(d.path(), &text, 5);
        assert!(
            want["summary"]["requests"].as_u64().unwrap() > 200,
            "{name}"
        );
        assert_same(&got, &want, &name);
    }
}

#[cfg(unix)]
#[test]
fn ctrl_c_on_a_followed_file_reports_what_analyze_reports() {
    let d = tempfile::tempdir().unwrap();
    let log = d.path().join("app.log");
    let text = incident(4000);
    std::fs::write(&log, &text).unwrap();
    let report = d.path().join("report.json");
    let mut child = toomany(d.path())
        .args(["--follow", "--view", "ndjson", "--interval", "0.2"])
        .args(["--format", "json", "-o"])
        .arg(&report)
        .arg(&log)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait for an interval line that counts every line, then Ctrl-C.
    let stdout = child.stdout.take().unwrap();
    let end = Instant::now() + Duration::from_secs(120);
    // Kept open until the end (a closed stdout would stop the following by itself).
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(stdout));
    for line in lines.by_ref() {
        let v: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
        if v["total"]["requests"] == 4000 {
            break;
        }
        assert!(Instant::now() < end, "the lines were not all read");
    }
    let rc = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    assert_eq!(rc, 0);
    assert!(child.wait().unwrap().success());
    drop(lines);
    let got: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();

    let out = toomany(d.path())
        .args(["--format", "json"])
        .arg(&log)
        .output()
        .unwrap();
    let want = report_of(&out);
    assert_eq!(want["summary"]["requests"], 4000);
    assert!(want["findings"].as_array().is_some_and(|f| !f.is_empty()));
    assert_same(&got, &want, "Ctrl-C");
}
