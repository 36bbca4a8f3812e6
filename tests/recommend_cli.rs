//! CLI tests for `plan`, `calc` and `--emit-config` (analyze and plan).

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;
use std::path::Path;

fn toomany() -> Command {
    let mut c = Command::cargo_bin("toomany").unwrap();
    c.env("NO_COLOR", "1");
    c
}

fn json_out(args: &[&str]) -> Value {
    let out = toomany()
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&out)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out)))
}

/// A JSON-lines capture: 80 accepted requests in 8 s, 20 rejected with Retry-After: 5, then a
/// quiet 10 minutes of one request every 10 s.
fn burst_log(dir: &Path) -> std::path::PathBuf {
    let mut s = String::new();
    let start = chrono::DateTime::parse_from_rfc3339("2026-11-30T12:00:00Z").unwrap();
    for i in 0..100i64 {
        let t = start + chrono::Duration::milliseconds(100 * i);
        let status = if i >= 80 { 429 } else { 200 };
        let headers = if status == 429 {
            r#","response_headers":{"Retry-After":"5"}"#
        } else {
            ""
        };
        s.push_str(&format!(
            "{{\"time\":\"{}\",\"method\":\"GET\",\"url\":\"https://api.example.com/v1/items?id={i}\",\"status\":{status},\"duration_ms\":400{headers}}}\n",
            t.to_rfc3339()
        ));
    }
    for k in 0..60i64 {
        let t = start + chrono::Duration::milliseconds(10_000 + 10_000 * k);
        s.push_str(&format!(
            "{{\"time\":\"{}\",\"method\":\"GET\",\"url\":\"https://api.example.com/v1/items\",\"status\":200,\"duration_ms\":400}}\n",
            t.to_rfc3339()
        ));
    }
    let p = dir.join("burst.jsonl");
    std::fs::write(&p, s).unwrap();
    p
}

#[test]
fn plan_must_show_json() {
    let v = json_out(&[
        "plan",
        "--requests",
        "600",
        "--limit",
        "120/min",
        "--latency",
        "2s",
        "--format",
        "json",
    ]);
    assert_eq!(v["rate_per_minute"], 90.0);
    assert_eq!(v["rate_per_second"], 1.5);
    let interval = v["min_interval_ms"].as_f64().unwrap();
    assert!((interval - 667.0).abs() <= 1.0, "{interval}");
    assert_eq!(v["duration_s"], 400.0);
    assert_eq!(v["duration_at_full_allowance_s"], 300.0);
    assert_eq!(v["concurrency"], 3);
    assert_eq!(v["backoff"]["max_attempts"], 5);
    assert!(v["rationale"].as_array().unwrap().len() >= 4);
}

#[test]
fn plan_table_shows_the_arithmetic() {
    toomany()
        .args([
            "plan",
            "--requests",
            "600",
            "--limit",
            "120/min",
            "--latency",
            "2s",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("90/min = 1.5/s"))
        .stdout(predicate::str::contains("one start every 667 ms"))
        .stdout(predicate::str::contains("3 in flight"))
        .stdout(predicate::str::contains("≥ 400 s"))
        .stdout(predicate::str::contains("1.5/s × 2 s = 3"))
        .stdout(predicate::str::contains("≥ 5 min at the full allowance"));
}

#[test]
fn plan_deadline_missed_says_what_would_work() {
    toomany()
        .args([
            "plan",
            "--requests",
            "600",
            "--limit",
            "120/min",
            "--latency",
            "2s",
            "--deadline",
            "5m",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("CANNOT be met"))
        .stdout(predicate::str::contains("at most 450 requests"))
        .stdout(predicate::str::contains("160/min"))
        .stdout(predicate::str::contains("reschedule"));
    let out = toomany()
        .args([
            "plan",
            "--requests",
            "600",
            "--limit",
            "120/min",
            "--deadline",
            "5m",
            "--format",
            "json",
        ])
        .assert()
        .success()
        .stderr(predicate::str::contains("deadline cannot be met"))
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["fits_deadline"], false);
    assert_eq!(v["max_requests_in_deadline"], 450);
    let v = json_out(&[
        "plan",
        "--requests",
        "600",
        "--limit",
        "120/min",
        "--deadline",
        "10m",
        "--format",
        "json",
    ]);
    assert_eq!(v["fits_deadline"], true);
}

#[test]
fn calc_rate() {
    toomany()
        .args(["calc", "rate", "90/min"])
        .assert()
        .success()
        .stdout(predicate::str::contains("1.5/s"))
        .stdout(predicate::str::contains("667 ms"))
        .stdout(predicate::str::contains("5400/h"))
        .stdout(predicate::str::contains("129600/day"));
    let v = json_out(&["calc", "rate", "90rpm", "--format", "json"]);
    assert_eq!(v["per_second"], 1.5);
    assert_eq!(v["per_day"], 129600.0);
}

#[test]
fn calc_concurrency_and_inverses() {
    toomany()
        .args(["calc", "concurrency", "--rate", "1.5/s", "--latency", "2s"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "1.5/s × 2 s = 3 → 3 requests in flight",
        ));
    let v = json_out(&[
        "calc",
        "concurrency",
        "--rate",
        "90/min",
        "--latency",
        "2100ms",
        "--format",
        "json",
    ]);
    assert_eq!(v["concurrency"], 4, "3.15 rounds up");
    let v = json_out(&[
        "calc",
        "concurrency",
        "--concurrency",
        "3",
        "--latency",
        "2s",
        "--format",
        "json",
    ]);
    assert_eq!(v["rate_per_second"], 1.5);
    assert_eq!(v["rate_per_minute"], 90.0);
    let v = json_out(&[
        "calc",
        "concurrency",
        "--rate",
        "1.5/s",
        "--concurrency",
        "3",
        "--format",
        "json",
    ]);
    assert_eq!(v["latency_budget_ms"], 2000.0);
    toomany()
        .args(["calc", "concurrency", "--rate", "1.5/s"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("exactly two"));
}

#[test]
fn bad_units_name_the_accepted_forms() {
    for args in [
        vec!["calc", "rate", "90/fortnight"],
        vec!["calc", "concurrency", "--rate", "fast", "--latency", "2s"],
        vec!["plan", "--requests", "10", "--limit", "120 per eon"],
    ] {
        toomany()
            .args(&args)
            .assert()
            .code(2)
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::contains("accepted forms: 120/min, 2/s"));
    }
    for args in [
        vec![
            "calc",
            "concurrency",
            "--rate",
            "2/s",
            "--latency",
            "2 weeks",
        ],
        vec![
            "plan",
            "--requests",
            "10",
            "--limit",
            "2/s",
            "--latency",
            "2",
        ],
        vec![
            "plan",
            "--requests",
            "10",
            "--limit",
            "2/s",
            "--deadline",
            "soon",
        ],
        vec![
            "plan",
            "--requests",
            "10",
            "--limit",
            "2/s",
            "--backoff-cap",
            "8",
        ],
    ] {
        toomany()
            .args(&args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("accepted forms: 667ms, 2s"));
    }
    toomany()
        .args([
            "plan",
            "--requests",
            "10",
            "--limit",
            "2/s",
            "--headroom",
            "1.5",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--headroom"));
    toomany()
        .args([
            "plan",
            "--requests",
            "10",
            "--limit",
            "2/s",
            "--backoff-base",
            "10s",
            "--backoff-cap",
            "2s",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--backoff-cap"));
}

fn dur_ms(s: &str) -> u64 {
    if let Some(ms) = s.strip_suffix("ms") {
        return ms.parse().unwrap();
    }
    (s.strip_suffix('s').unwrap().parse::<f64>().unwrap() * 1000.0).round() as u64
}

/// Parse every file in `dir` with its format's parser; return the neutral policy.
fn check_dir(dir: &Path) -> Value {
    let names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names
            .iter()
            .all(|n| !n.ends_with(".tmp") && !n.starts_with(".toomany-")),
        "temp files left: {names:?}"
    );
    let policy: Value =
        toml::from_str(&std::fs::read_to_string(dir.join("toomany.toml")).unwrap()).unwrap();
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("toomany.json")).unwrap()).unwrap();
    assert_eq!(policy["rate"], json["rate"]);
    assert_eq!(policy["retry"], json["retry"]);
    let retries = policy["retry"]["max_attempts"].as_u64().unwrap() - 1;
    let c = policy["concurrency"]["max_in_flight"].as_u64().unwrap();
    let deadline = policy["retry"]["deadline_ms"].as_u64().unwrap();

    let envoy: Value =
        serde_norway::from_str(&std::fs::read_to_string(dir.join("envoy.yaml")).unwrap()).unwrap();
    let rp = &envoy["routes"][0]["route"]["retry_policy"];
    assert_eq!(rp["num_retries"].as_u64().unwrap(), retries);
    assert_eq!(
        dur_ms(envoy["routes"][0]["route"]["timeout"].as_str().unwrap()),
        deadline
    );
    assert_eq!(
        envoy["clusters"][0]["circuit_breakers"]["thresholds"][0]["max_requests"]
            .as_u64()
            .unwrap(),
        c
    );

    let grpc: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("grpc-service-config.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        grpc["methodConfig"][0]["retryPolicy"]["maxAttempts"]
            .as_u64()
            .unwrap(),
        (retries + 1).min(5)
    );

    let r4j: Value =
        serde_norway::from_str(&std::fs::read_to_string(dir.join("resilience4j.yml")).unwrap())
            .unwrap();
    assert_eq!(
        r4j["resilience4j"]["retry"]["instances"]["api"]["maxAttempts"]
            .as_u64()
            .unwrap(),
        retries + 1
    );
    assert_eq!(
        r4j["resilience4j"]["bulkhead"]["instances"]["api"]["maxConcurrentCalls"]
            .as_u64()
            .unwrap(),
        c
    );
    assert_eq!(
        dur_ms(
            r4j["resilience4j"]["ratelimiter"]["instances"]["api"]["limitRefreshPeriod"]
                .as_str()
                .unwrap()
        ),
        policy["rate"]["min_interval_ms"].as_u64().unwrap()
    );

    let dotnet = std::fs::read_to_string(dir.join("appsettings.resilience.json")).unwrap();
    let strict: String = dotnet
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let dotnet: Value = serde_json::from_str(&strict).unwrap();
    assert_eq!(
        dotnet["TooManyClient"]["Retry"]["MaxRetryAttempts"]
            .as_u64()
            .unwrap(),
        retries
    );
    assert_eq!(
        dotnet["TooManyClient"]["RateLimiter"]["DefaultRateLimiterOptions"]["PermitLimit"]
            .as_u64()
            .unwrap(),
        c
    );

    let py = std::fs::read_to_string(dir.join("toomany_retry.py")).unwrap();
    assert!(py.contains(&format!("total={retries},")));
    let js = std::fs::read_to_string(dir.join("toomany-client.mjs")).unwrap();
    assert!(js.contains(&format!("retries: {retries},")));
    assert!(js.contains(&format!("maxConcurrent: {c},")));
    let go = std::fs::read_to_string(dir.join("retryablehttp.go")).unwrap();
    assert!(go.contains(&format!("= {retries}\n")));
    policy
}

#[test]
fn plan_emit_config_writes_every_target_and_warns() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("configs");
    toomany()
        .args([
            "plan",
            "--requests",
            "600",
            "--limit",
            "120/min",
            "--latency",
            "2s",
            "--max-attempts",
            "4",
        ])
        .arg("--emit-config")
        .arg(&out)
        .assert()
        .success()
        .stderr(predicate::str::contains("toomany: wrote 11 files into"))
        .stderr(predicate::str::contains(
            "on what the tools cannot express (envoy",
        ))
        .stderr(predicate::str::contains(", grpc "));
    let policy = check_dir(&out);
    assert_eq!(policy["rate"]["rate_per_second"], 1.5);
    assert_eq!(policy["rate"]["min_interval_ms"], 667);
    assert_eq!(policy["concurrency"]["max_in_flight"], 3);
    assert_eq!(policy["retry"]["max_attempts"], 4);
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 11);
}

#[test]
fn emit_config_target_list() {
    let dir = tempfile::tempdir().unwrap();
    toomany()
        .args([
            "plan",
            "--requests",
            "60",
            "--limit",
            "2/s",
            "--target",
            "envoy,python",
        ])
        .arg("--emit-config")
        .arg(dir.path())
        .assert()
        .success();
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, vec!["envoy.yaml", "toomany_retry.py"]);
    toomany()
        .args([
            "plan",
            "--requests",
            "60",
            "--limit",
            "2/s",
            "--target",
            "envoy,haproxy",
        ])
        .arg("--emit-config")
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("haproxy").and(predicate::str::contains("resilience4j")));
}

#[test]
fn analyze_recommendation_in_json_and_table() {
    let dir = tempfile::tempdir().unwrap();
    let log = burst_log(dir.path());
    let out = toomany()
        .arg("analyze")
        .arg(&log)
        .args(["--format", "json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    let rec = &v["recommendation"];
    assert_eq!(rec["limit"]["source"], "observed");
    assert_eq!(rec["limit"]["rate_per_minute"], 80.0);
    assert_eq!(rec["rate_per_minute"], 60.0);
    assert_eq!(rec["min_interval_ms"], 1000);
    assert_eq!(rec["concurrency"], 1);
    assert_eq!(rec["latency"]["p95_ms"], 400.0);
    assert_eq!(rec["backoff"]["max_attempts"], 5);
    assert!(["slow_down", "fix_client"].contains(&rec["action"].as_str().unwrap()));
    assert!(rec["rationale"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r.as_str().unwrap().contains("80 requests were accepted")));

    toomany()
        .arg("analyze")
        .arg(&log)
        .args([
            "--limit",
            "120/min",
            "--headroom",
            "0.5",
            "--max-attempts",
            "3",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Recommendation for api.example.com",
        ))
        .stdout(predicate::str::contains("60/min = 1/s (headroom 0.5)"))
        .stdout(predicate::str::contains("3 attempts (2 retries)"));
}

#[test]
fn analyze_emit_config_numbers_match_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let log = burst_log(dir.path());
    let cfg = dir.path().join("cfg");
    let out = toomany()
        .arg("analyze")
        .arg(&log)
        .args([
            "--limit",
            "120/min",
            "--latency",
            "2s",
            "--format",
            "json",
            "--emit-config",
        ])
        .arg(&cfg)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    let rec = &v["recommendation"];
    let policy = check_dir(&cfg);
    assert_eq!(policy["rate"]["rate_per_second"], rec["rate_per_second"]);
    assert_eq!(policy["rate"]["min_interval_ms"], rec["min_interval_ms"]);
    assert_eq!(policy["concurrency"]["max_in_flight"], rec["concurrency"]);
    assert_eq!(
        policy["retry"]["max_attempts"],
        rec["backoff"]["max_attempts"]
    );
    assert_eq!(
        policy["retry"]["deadline_ms"],
        rec["backoff"]["deadline_ms"]
    );
    assert_eq!(rec["concurrency"], 3);
}

#[test]
fn analyze_emit_config_refuses_loudly_without_a_limit() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("ok.jsonl");
    std::fs::write(
        &log,
        "{\"time\":\"2026-11-30T12:00:00Z\",\"method\":\"GET\",\"url\":\"https://a.example/x\",\"status\":200,\"duration_ms\":5}\n",
    )
    .unwrap();
    let cfg = dir.path().join("cfg");
    toomany()
        .arg("analyze")
        .arg(&log)
        .arg("--emit-config")
        .arg(&cfg)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--emit-config").and(predicate::str::contains("--limit")));
    assert!(!cfg.exists(), "nothing is written when the command refuses");
}

#[test]
fn snapshots_of_plan_and_calc_tables() {
    let plan = toomany()
        .args([
            "plan",
            "--requests",
            "600",
            "--limit",
            "120/min",
            "--latency",
            "2s",
            "--deadline",
            "5m",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    insta::assert_snapshot!("plan_table", String::from_utf8(plan).unwrap());
    let calc = toomany()
        .args(["calc", "rate", "90/min"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    insta::assert_snapshot!("calc_rate", String::from_utf8(calc).unwrap());
}
