//! `toomany verify` as a command: exit statuses, the table and the JSON, on captures written
//! here and on the repo's samples. (The loop with real clients is in tests/e2e_clients.rs.)

mod common;
use common::{sample, toomany};
use predicates::prelude::*;
use std::path::{Path, PathBuf};

fn plan(dir: &Path) -> PathBuf {
    toomany()
        .args([
            "plan",
            "--requests",
            "20",
            "--limit",
            "120/min",
            "--emit-config",
        ])
        .arg(dir)
        .assert()
        .success();
    dir.join("toomany.toml")
}

/// JSON lines: request i at `t(i)` seconds (2026-12-01T10:00:00Z + t), 200, 40 ms.
fn capture(dir: &Path, name: &str, n: usize, t: impl Fn(usize) -> f64) -> PathBuf {
    let mut s = String::new();
    for i in 0..n {
        let at = chrono::DateTime::parse_from_rfc3339("2026-12-01T10:00:00Z").unwrap()
            + chrono::Duration::microseconds((t(i) * 1e6) as i64);
        s.push_str(&format!(
            "{{\"time\":\"{}\",\"method\":\"GET\",\"url\":\"http://127.0.0.1/items/{i}\",\"status\":200,\"duration_ms\":40}}\n",
            at.to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
        ));
    }
    let p = dir.join(name);
    std::fs::write(&p, s).unwrap();
    p
}

#[test]
fn a_spaced_batch_passes_and_a_burst_fails_with_its_check_named() {
    let d = tempfile::tempdir().unwrap();
    let plan = plan(&d.path().join("plan"));
    let good = capture(d.path(), "good.jsonl", 20, |i| 0.25 + i as f64 * 0.668);
    toomany()
        .arg("verify")
        .arg(&good)
        .arg("--plan")
        .arg(&plan)
        .assert()
        .code(0)
        .stdout(predicate::str::starts_with("verify: PASS"))
        .stdout(predicate::str::contains(
            "20 logical requests: 20 first attempts, 0 retries",
        ));
    let burst = capture(d.path(), "burst.jsonl", 20, |i| 0.25 + i as f64 * 0.003);
    let out = toomany()
        .arg("verify")
        .arg(&burst)
        .arg("--plan")
        .arg(&plan)
        .args(["--format", "json"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["verdict"], "fail");
    let failed: Vec<&str> = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["ok"] == false)
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(failed, ["start_rate", "concurrency"], "{v:#}");
    assert_eq!(v["spacing"]["target_ms"], 667);
    assert_eq!(v["in_flight"]["limit"], 2);
}

#[test]
fn unreadable_or_unjudgeable_input_exits_2() {
    let d = tempfile::tempdir().unwrap();
    let plan = plan(&d.path().join("plan"));
    // Whole-second timestamps: spacing cannot be measured.
    let coarse = capture(d.path(), "coarse.jsonl", 12, |i| i as f64);
    toomany()
        .arg("verify")
        .arg(&coarse)
        .arg("--plan")
        .arg(&plan)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("whole seconds"));
    // A plan that is not one.
    let good = capture(d.path(), "good.jsonl", 3, |i| 0.25 + i as f64);
    toomany()
        .arg("verify")
        .arg(&good)
        .arg("--plan")
        .arg(&good)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--plan"));
    // A capture that does not exist.
    toomany()
        .arg("verify")
        .arg(d.path().join("missing.jsonl"))
        .arg("--plan")
        .arg(&plan)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("missing.jsonl"));
    toomany()
        .arg("verify")
        .arg(&good)
        .arg("--plan")
        .arg(&plan)
        .args(["--tolerance", "ten"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--tolerance"));
}

#[test]
fn the_samples_are_judged_not_refused() {
    // A retry storm and a HAR against a 120/min plan: read in full, judged, and failed.
    let d = tempfile::tempdir().unwrap();
    let plan = plan(&d.path().join("plan"));
    toomany()
        .arg("verify")
        .arg(sample("retry-storm.jsonl"))
        .arg("--plan")
        .arg(&plan)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("FAIL  retry_after_honoured"))
        .stdout(predicate::str::contains("FAIL  attempt_cap"));
    toomany()
        .arg("verify")
        .arg(sample("cdn-burst.har"))
        .arg("--plan")
        .arg(&plan)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("FAIL  start_rate"));
}
