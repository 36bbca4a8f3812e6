//! CLI tests for attribution: `toomany retry-after` and `toomany analyze --format json` on a
//! small HAR with one rate-limited response per layer.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn toomany() -> Command {
    let mut c = Command::cargo_bin("toomany").expect("binary built");
    c.env("NO_COLOR", "1");
    c
}

const NOW: &str = "Sun, 06 Nov 1994 08:49:07 GMT";

#[test]
fn delta_seconds_are_seconds() {
    toomany()
        .args(["retry-after", "12"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("wait 12 s\n"))
        .stdout(predicate::str::contains("rule: delay-seconds"))
        .stdout(predicate::str::contains("12000 ms"));
}

#[test]
fn all_three_date_forms_say_30_seconds() {
    for v in [
        "Sun, 06 Nov 1994 08:49:37 GMT",
        "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994",
    ] {
        toomany()
            .args(["retry-after", v, "--now", NOW])
            .assert()
            .success()
            .stdout(predicate::str::starts_with("wait 30 s\n"))
            .stdout(predicate::str::contains("rule: http-date"));
    }
}

#[test]
fn response_date_wins_over_now() {
    toomany()
        .args([
            "retry-after",
            "Sun, 06 Nov 1994 08:49:37 GMT",
            "--date",
            "Sun, 06 Nov 1994 08:48:37 GMT",
            "--now",
            NOW,
        ])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("wait 1 min (60 s)\n"));
}

fn json(args: &[&str]) -> Value {
    let out = toomany()
        .args(args)
        .args(["--format", "json"])
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

#[test]
fn json_answer() {
    let v = json(&[
        "retry-after",
        "Sunday, 06-Nov-94 08:49:37 GMT",
        "--now",
        NOW,
    ]);
    assert_eq!(v["retry_after"]["kind"], "date");
    assert_eq!(v["retry_after"]["seconds"], 30.0);
    assert_eq!(v["wait_seconds"], 30.0);
    assert_eq!(v["rule"], "http-date");
    assert_eq!(v["measured_from"], NOW);
}

#[test]
fn unusable_value_gets_jitter_in_the_capped_window() {
    for (attempt, window) in [("0", 1.0), ("2", 4.0), ("9", 8.0)] {
        let v = json(&["retry-after", "soon", "--attempt", attempt]);
        assert_eq!(v["rule"], "backoff");
        assert_eq!(v["retry_after"]["kind"], "invalid");
        assert_eq!(v["window_seconds"], window);
        let w = v["wait_seconds"].as_f64().expect("a wait");
        assert!((0.0..=window).contains(&w), "{w} outside 0..{window}");
    }
}

#[test]
fn past_date_is_not_a_licence_to_retry_at_once() {
    let v = json(&[
        "retry-after",
        "Sun, 06 Nov 1994 08:00:00 GMT",
        "--now",
        NOW,
        "--attempt",
        "1",
    ]);
    assert_eq!(v["retry_after"]["seconds"], 0.0);
    assert_eq!(v["rule"], "past-date");
    assert_eq!(v["window_seconds"], 2.0);
}

#[test]
fn millisecond_header_and_too_large() {
    let v = json(&["retry-after", "1500", "--header", "retry-after-ms"]);
    assert_eq!(v["wait_seconds"], 1.5);
    assert_eq!(v["rule"], "milliseconds");
    let v = json(&["retry-after", "99999999999999999999"]);
    assert_eq!(v["rule"], "too-large");
    assert_eq!(v["wait_seconds"], Value::Null);
}

#[test]
fn bad_flags_exit_2() {
    toomany()
        .args(["retry-after", "12", "--now", "yesterday"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--now"));
    toomany()
        .args(["retry-after", "12", "--header", "x-foo"])
        .assert()
        .code(2);
}

const HAR: &str = "tests/fixtures/attribution/mixed.har";

#[test]
fn analyze_attributes_each_layer() {
    let v = json(&["analyze", HAR]);
    let rl = v["rate_limited"].as_array().expect("rate_limited");
    let got: Vec<(String, String, String, String)> = rl
        .iter()
        .map(|x| {
            (
                x["url"].as_str().unwrap_or("").to_string(),
                x["layer"].as_str().unwrap_or("").to_string(),
                x["vendor"].as_str().unwrap_or("-").to_string(),
                x["quota"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let want = [
        ("https://api.example.com/v1/items", "api", "-", "rate"),
        ("https://rpc.example.org/", "cdn", "cloudflare", "rate"),
        (
            "https://api.openai.com/v1/chat/completions",
            "api",
            "openai",
            "tokens",
        ),
        ("https://bare.example.com/x", "unknown", "-", "unknown"),
        ("https://api.github.com/repos/o/r", "api", "github", "rate"),
        (
            "https://legacy.example.com/search",
            "proxy",
            "nginx",
            "rate",
        ),
        (
            "https://api.amber.com.au/v1/sites",
            "proxy",
            "aws-api-gateway",
            "rate",
        ),
    ];
    let want: Vec<(String, String, String, String)> = want
        .iter()
        .map(|(a, b, c, d)| (a.to_string(), b.to_string(), c.to_string(), d.to_string()))
        .collect();
    assert_eq!(got, want);

    // Retry-After: delta, and a date measured from the response's own Date header.
    assert_eq!(rl[0]["retry_after"]["kind"], "delta");
    assert_eq!(rl[0]["retry_after"]["seconds"], 10.0);
    assert_eq!(rl[6]["retry_after"]["kind"], "date");
    assert_eq!(rl[6]["retry_after"]["seconds"], 30.0);
    // The pass-through 429 lists Cloudflare as path, and says why it is not the producer.
    assert_eq!(rl[0]["path"], serde_json::json!(["cloudflare"]));
    let ev = rl[0]["evidence"].as_array().expect("evidence");
    assert!(ev
        .iter()
        .any(|e| e["role"] == "ruled_out" && e["signal"] == "Cloudflare"));
    assert!(ev.iter().any(|e| e["role"] == "path"
        && e["note"]
            .as_str()
            .unwrap_or("")
            .contains("path, not producer")));
    // Limits parsed from the headers.
    assert_eq!(rl[2]["limits"]["remaining"], 0.0);
    assert_eq!(rl[2]["limits"]["reset_seconds"], 360.0);
    assert_eq!(rl[4]["limits"]["policy"], "core");
    // Confidence is 0–1 and low for the bare 429.
    assert!(rl[3]["confidence"].as_f64().unwrap_or(1.0) <= 0.1);
    // Secrets stay redacted.
    let text = serde_json::to_string(&v).expect("serializes");
    assert!(!text.contains("sk-test-abcdefghijklmnopqrstuvwxyz"));
}

#[test]
fn table_shows_attribution_columns_and_summary() {
    toomany()
        .args(["analyze", HAR])
        .env("COLUMNS", "200")
        .assert()
        .success()
        .stdout(predicate::str::contains("Who limited you"))
        .stdout(predicate::str::contains("1 × cdn/cloudflare (rate, 1015)"))
        .stdout(predicate::str::contains(
            "1 × proxy/aws-api-gateway (rate, throttle)",
        ))
        .stdout(predicate::str::contains("sent by"))
        .stdout(predicate::str::contains("quota"));
}

/// Issue 40's general rules through the CLI: limits stated in prose at 403/503, server software
/// installed anywhere, a cloud's service domain, an origin's own short words; a 403 that only
/// says forbidden is not listed.
#[test]
fn general_rules_reach_the_report() {
    let v = json(&["analyze", "tests/fixtures/attribution/general.jsonl"]);
    let limited = v["rate_limited"].as_array().expect("rate_limited[]");
    let at = |line: u64| {
        limited
            .iter()
            .find(|r| r["line"] == line)
            .unwrap_or_else(|| panic!("line {line} not listed: {limited:#?}"))
    };
    assert!(
        limited.iter().all(|r| r["line"] != 2),
        "a plain 403 Forbidden is no rate limit"
    );
    for (line, phrase) in [(1, "DEVELOPER_OVER_RATE"), (8, "number of requests")] {
        let ev = at(line)["evidence"].as_array().expect("evidence");
        assert!(
            ev.iter().any(
                |e| e["role"] == "limit" && e["signal"].as_str().unwrap_or("").contains(phrase)
            ),
            "line {line}: {ev:#?}"
        );
    }
    for (line, vendor, quota) in [
        (3, "elasticsearch", "concurrency"),
        (4, "kubernetes", "concurrency"),
        (5, "matrix", "rate"),
        (6, "alibaba-cloud", "rate"),
        (7, "brightlane", "rate"),
    ] {
        let r = at(line);
        assert_eq!(
            (
                r["layer"].as_str(),
                r["vendor"].as_str(),
                r["quota"].as_str()
            ),
            (Some("api"), Some(vendor), Some(quota)),
            "line {line}: {r:#?}"
        );
    }
}
