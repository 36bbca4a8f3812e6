//! `toomany simulate` from the command line: the guide's numbers through a real emitted plan,
//! determinism, and clear errors.

mod common;
use common::{json_of, toomany};
use predicates::prelude::*;

fn plan_dir(requests: &str, limit: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    toomany()
        .args([
            "plan",
            "--requests",
            requests,
            "--limit",
            limit,
            "--latency",
            "200ms",
        ])
        .arg("--emit-config")
        .arg(dir.path())
        .args(["--target", "toomany"])
        .assert()
        .success();
    dir
}

#[test]
fn the_guide_numbers_with_the_emitted_plan() {
    let dir = plan_dir("600", "120/min");
    let toml = dir.path().join("toomany.toml");
    let out = toomany()
        .args(["simulate", "--policy", "naive", "--policy"])
        .arg(&toml)
        .args([
            "--limit",
            "fixed-window:120/min",
            "--requests",
            "600",
            "--format",
            "json",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v = json_of(&out);
    assert_eq!(v["schema_version"], 1);
    let naive = &v["runs"][0];
    assert_eq!(naive["policy"], "naive");
    assert_eq!(naive["accepted"], 120);
    assert_eq!(naive["rejected"], 480);
    let planned = &v["runs"][1];
    assert_eq!(planned["accepted"], 600);
    assert_eq!(planned["rejected"], 0);
    let t = planned["completion_s"].as_f64().unwrap();
    assert!((399.0..=401.0).contains(&t), "{t}");
    // The JSON copy of the plan reads the same.
    let out2 = toomany()
        .args(["simulate", "--policy"])
        .arg(dir.path().join("toomany.json"))
        .args([
            "--limit",
            "fixed-window:120/min",
            "--requests",
            "600",
            "-f",
            "json",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(json_of(&out2)["runs"][0]["accepted"], 600);
    // Spaced arrivals at 667 ms with no client policy at all: all 600 in ≈ 400 s.
    let out3 = toomany()
        .args([
            "simulate",
            "--policy",
            "naive",
            "--limit",
            "fixed-window:120/min",
        ])
        .args([
            "--requests",
            "600",
            "--arrival",
            "spaced:667ms",
            "-f",
            "json",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let r = &json_of(&out3)["runs"][0];
    assert_eq!(r["accepted"], 600);
    assert!((399.0..=401.0).contains(&r["completion_s"].as_f64().unwrap()));
}

#[test]
fn same_seed_same_json() {
    let run = |seed: &str| {
        toomany()
            .args([
                "simulate",
                "--policy",
                "no-jitter",
                "--policy",
                "full-jitter",
            ])
            .args(["--policy", "grpc", "--limit", "gcra:10/s,burst=10"])
            .args([
                "--requests",
                "300",
                "--clients",
                "50",
                "--arrival",
                "poisson:20/s",
            ])
            .args(["--seed", seed, "--format", "json"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone()
    };
    let a = run("42");
    assert_eq!(a, run("42"), "same seed, same bytes");
    assert_ne!(a, run("43"));
    let v = json_of(&a);
    assert_eq!(v["runs"].as_array().unwrap().len(), 3);
    for r in v["runs"].as_array().unwrap() {
        assert_eq!(
            r["accepted"].as_u64().unwrap() + r["rejected"].as_u64().unwrap(),
            r["attempts"].as_u64().unwrap()
        );
        assert_eq!(r["wasted_attempts"], r["rejected"]);
    }
}

#[test]
fn the_table_compares_policies_side_by_side() {
    toomany()
        .args(["simulate", "--policy", "naive", "--policy", "no-jitter"])
        .args(["--limit", "leaky-bucket:10/s,burst=5", "--requests", "20"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains(
                "Simulated 20 requests from 1 client (burst) against leaky-bucket:10/s,burst=5",
            )
            .and(predicate::str::contains("naive"))
            .and(predicate::str::contains("no-jitter"))
            .and(predicate::str::contains("wasted attempts")),
        );
}

#[test]
fn bad_arguments_say_what_to_write() {
    for (args, msg) in [
        (vec!["--limit", "fixed-window"], "accepted forms"),
        (
            vec!["--limit", "fixed-window:2/s", "--policy", "nope.toml"],
            "built-in policies: naive",
        ),
        (
            vec!["--limit", "fixed-window:2/s", "--requests", "0"],
            "--requests 0",
        ),
        (
            vec!["--limit", "concurrency:2", "--arrival", "spaced"],
            "has no rate",
        ),
        (
            vec!["--limit", "fixed-window:2/s", "--arrival", "wave"],
            "unknown pattern",
        ),
        (
            vec!["--limit", "fixed-window:2/s", "--clients", "50"],
            "--clients 50",
        ),
    ] {
        let mut cmd = toomany();
        cmd.arg("simulate");
        if !args.contains(&"--policy") {
            cmd.args(["--policy", "naive"]);
        }
        if !args.contains(&"--requests") {
            cmd.args(["--requests", "10"]);
        }
        cmd.args(&args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(msg));
    }
    // A file that is not a policy.
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("toomany.toml");
    std::fs::write(&f, "schema_version = 1\n").unwrap();
    toomany()
        .args([
            "simulate",
            "--requests",
            "5",
            "--limit",
            "daily:3",
            "--policy",
        ])
        .arg(&f)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not a toomany policy"));
}
