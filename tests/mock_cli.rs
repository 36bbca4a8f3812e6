//! `toomany mock` as a real process on loopback: the address line, the limiter under the wall
//! clock, held responses, the log (read back by `analyze`), shutdown, and refusals.
//! Every loop here is bounded; every mock is stopped by --exit-after, --duration or SIGTERM.

mod common;
#[path = "common/mock.rs"]
mod mockkit;
use common::{json_of, toomany};
use mockkit::{header, log_lines, request, tmp_log, Mock};
use predicates::prelude::*;
use std::io::Read;

#[test]
fn a_fixed_window_refuses_with_its_own_retry_after_and_logs_every_request() {
    let (_d, log) = tmp_log();
    let m = Mock::start(&[
        "--limit",
        "fixed-window:3/min",
        "--exit-after",
        "5",
        "--log",
        log.to_str().unwrap(),
    ]);
    assert!(m.base.starts_with("http://127.0.0.1:"), "{}", m.base);
    let mut statuses = Vec::new();
    for i in 0..5 {
        let (st, h, body) = request(
            &m.addr(),
            if i == 4 { "DELETE" } else { "GET" },
            &format!("/any/path/{i}?api_key=sk_live_0123456789abcdef"),
            &[("Authorization", "Bearer sk_live_0123456789abcdef")],
        );
        statuses.push(st);
        assert!(header(&h, "ratelimit-policy")
            .unwrap()
            .starts_with("\"fixed-window\";q=3;w=60"));
        assert!(header(&h, "x-ratelimit-limit") == Some("3"));
        if st == 200 {
            let v: serde_json::Value = serde_json::from_str(&body).unwrap();
            assert_eq!(v["ok"], true);
            assert!(header(&h, "retry-after").is_none());
        } else {
            let ra: u64 = header(&h, "retry-after").unwrap().parse().unwrap();
            assert!((1..=60).contains(&ra), "{ra}");
            let v: serde_json::Value = serde_json::from_str(&body).unwrap();
            assert_eq!(v["status"], 429);
            assert_eq!(header(&h, "content-type"), Some("application/problem+json"));
        }
    }
    // A minute window can straddle a minute boundary during the test; at most one reset.
    let ok = statuses.iter().filter(|s| **s == 200).count();
    assert!(ok == 3 || ok == 4 || ok == 5, "{statuses:?}");
    assert!(statuses.iter().all(|s| *s == 200 || *s == 429));
    let err = m.wait();
    assert!(err.contains("answered 5 requests"), "{err}");
    let lines = log_lines(&log);
    assert_eq!(lines.len(), 5);
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        !text.contains("sk_live_0123456789abcdef"),
        "credentials are redacted in the log"
    );
    assert_eq!(lines[4]["method"], "DELETE");
    assert!(lines[0]["url"]
        .as_str()
        .unwrap()
        .starts_with("http://127.0.0.1:"));
    // analyze reads the log with no flags.
    let out = toomany()
        .args(["analyze", log.to_str().unwrap(), "--format", "json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v = json_of(&out);
    assert_eq!(v["inputs"][0]["records"], 5, "{v}");
    assert_eq!(v["inputs"][0]["warning_count"], 0);
}

#[test]
fn nginx_style_holds_the_burst_and_refuses_past_it() {
    let (_d, log) = tmp_log();
    let m = Mock::start(&[
        "--limit",
        // 1/s: the four requests must arrive within a second of each other for the fourth to
        // be refused, which holds on a loaded machine too (2/s, half a second, did not).
        "leaky-bucket:1/s,burst=2",
        "--status",
        "503",
        "--retry-after",
        "none",
        "--exit-after",
        "4",
        "--log",
        log.to_str().unwrap(),
    ]);
    let addr = m.addr();
    let start = std::sync::Arc::new(std::sync::Barrier::new(4));
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let a = addr.clone();
            let start = start.clone();
            std::thread::spawn(move || {
                start.wait();
                request(&a, "GET", "/", &[])
            })
        })
        .collect();
    let results: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    m.wait();
    let statuses: Vec<u16> = results.iter().map(|r| r.0).collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 200).count(),
        3,
        "{statuses:?}"
    );
    assert_eq!(statuses.iter().filter(|s| **s == 503).count(), 1);
    assert!(results
        .iter()
        .all(|r| header(&r.1, "retry-after").is_none()));
    let lines = log_lines(&log);
    let mut held: Vec<u64> = lines
        .iter()
        .filter(|l| l["status"] == 200)
        .map(|l| l["limiter"]["queued_ms"].as_u64().unwrap_or(0))
        .collect();
    held.sort();
    // nginx holds excess requests (1000 and 2000 milli-requests at 1 r/s): ≈ 0, 1000, 2000 ms,
    // less whatever time passed between the arrivals.
    assert_eq!(held[0], 0);
    assert!(
        held[1] > 0 && held[1] <= 1000 && held[2] > held[1] && held[2] <= 2000,
        "{held:?}"
    );
    assert_eq!(
        lines
            .iter()
            .filter(|l| l["limiter"]["decision"] == "delayed")
            .count(),
        2
    );
}

#[test]
fn sigterm_stops_cleanly_and_writes_the_log() {
    let (_d, log) = tmp_log();
    let m = Mock::start(&["--limit", "concurrency:4", "--log", log.to_str().unwrap()]);
    for _ in 0..3 {
        assert_eq!(
            request(&m.addr(), "POST", "/jobs", &[("X-Client-Id", "w1")]).0,
            200
        );
    }
    let err = m.terminate();
    assert!(err.contains("stopped by SIGTERM"), "{err}");
    let lines = log_lines(&log);
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["client"], "w1");
    // No partial file is left beside it.
    let leftovers = std::fs::read_dir(log.parent().unwrap())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .contains("partial")
        })
        .count();
    assert_eq!(leftovers, 0);
}

#[test]
fn the_log_can_stream_to_stdout_after_the_address_line() {
    let mut m = Mock::start(&[
        "--limit",
        "daily:1",
        "--exit-after",
        "2",
        "--log",
        "-",
        "--retry-after",
        "date",
    ]);
    let (st1, _, _) = request(&m.addr(), "GET", "/a", &[]);
    let (st2, h2, _) = request(&m.addr(), "GET", "/b", &[]);
    assert_eq!((st1, st2), (200, 429));
    // An HTTP-date at the next UTC midnight.
    assert!(
        header(&h2, "retry-after")
            .unwrap()
            .ends_with("00:00:00 GMT"),
        "{h2:?}"
    );
    let mut rest = String::new();
    m.child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut rest)
        .unwrap();
    let lines: Vec<&str> = rest.lines().collect();
    assert_eq!(lines.len(), 2, "{rest}");
    assert!(lines[1].contains("\"status\":429"));
    m.wait();
}

#[test]
fn refusals_before_binding() {
    toomany()
        .args([
            "mock",
            "--limit",
            "fixed-window:1/s",
            "--listen",
            "0.0.0.0:0",
            "--exit-after",
            "1",
        ])
        .assert()
        .code(2)
        .stdout("")
        .stderr(
            predicate::str::contains("not a loopback address")
                .and(predicate::str::contains("--allow-non-loopback")),
        );
    toomany()
        .args(["mock", "--limit", "bucket:1/s"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown model"));
    toomany()
        .args(["mock", "--limit", "fixed-window:1/s", "--status", "200"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("4xx or 5xx"));
    let (_d, log) = tmp_log();
    std::fs::write(&log, "keep me\n").unwrap();
    toomany()
        .args([
            "mock",
            "--limit",
            "fixed-window:1/s",
            "--exit-after",
            "1",
            "--log",
        ])
        .arg(&log)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--force"));
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "keep me\n");
}

#[test]
fn duration_stops_an_idle_mock() {
    let m = Mock::start(&["--limit", "gcra:2/s,burst=5", "--duration", "300ms"]);
    let err = m.wait();
    assert!(err.contains("answered 0 requests"), "{err}");
    assert!(err.contains("stopped by --duration"), "{err}");
}
