//! Held-out evaluation of the behaviour detectors (issue 4) and of the recommendation's action
//! (issue 5) on `tests/heldout/`: realistic client logs and browser HARs written by
//! `tests/heldout/gen.py` from the issue text alone. `expected.json` says, per scenario, which
//! finding kinds must be reported (`expect`), which are defensible side effects (`allow`), and
//! what the recommendation must do (`action`). Anything else reported is a false alarm.
//!
//! The test prints a per-scenario table of misses and false alarms, then fails on any of them.

mod common;
use common::*;
use serde_json::Value;
use std::collections::BTreeSet;

const DIR: &str = "tests/heldout";

fn analyze(file: &str, args: &[String]) -> Value {
    let path = format!("{DIR}/{file}");
    let mut all = vec![path.as_str()];
    all.extend(args.iter().map(String::as_str));
    analyze_json_with(&all)
}

fn strings(v: &Value) -> BTreeSet<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Problems with the recommendation, per the issue: an exhausted quota must say
/// `stop_or_reschedule`; a burst whose average is under the limit must say `fix_client` or
/// target a rate at or under limit × headroom (0.75 by default).
fn check_action(name: &str, want: &Value, report: &Value) -> Vec<String> {
    let rec = &report["recommendation"];
    let action = rec["action"].as_str().unwrap_or("(none)");
    let mut problems = vec![];
    if let Some(a) = want.get("action").and_then(Value::as_str) {
        if action != a {
            problems.push(format!("{name}: action {action}, expected {a}"));
        }
    }
    // A sanity floor: the target must not fall far below what the server plainly accepted.
    if let Some(min) = want.get("min_rate_per_minute").and_then(Value::as_f64) {
        let rate = rec["rate_per_minute"].as_f64();
        if !rate.is_some_and(|r| r >= min) {
            problems.push(format!(
                "{name}: rate target {rate:?}/min, expected at least {min}/min"
            ));
        }
    }
    if let Some(b) = want.get("burst") {
        let limit = b["limit_per_minute"].as_f64().expect("limit_per_minute");
        let rate = rec["rate_per_minute"].as_f64();
        let ok = action == "fix_client" || rate.is_some_and(|r| r <= limit * 0.75 + 1e-6);
        if !ok {
            problems.push(format!(
                "{name}: burst under the average limit gave action {action} at {rate:?}/min (limit {limit}/min)"
            ));
        }
        // "fix_client when the 429s come from retry storms or bursts while the average is under
        // the limit": telling the user to stop and reschedule contradicts it.
        if action == "stop_or_reschedule" {
            problems.push(format!(
                "{name}: a burst under the average limit gave stop_or_reschedule"
            ));
        }
    }
    problems
}

fn check_evidence(name: &str, checks: &Value, report: &Value) -> Vec<String> {
    let mut problems = vec![];
    for c in checks.as_array().into_iter().flatten() {
        let (kind, pointer, want) = (c[0].as_str().unwrap(), c[1].as_str().unwrap(), &c[2]);
        let got = report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["kind"] == kind)
            .and_then(|f| f["evidence"].pointer(pointer));
        // `{"min": n}`: a number at least n; anything else: equal.
        let ok = match want.get("min").and_then(Value::as_f64) {
            Some(min) => got.and_then(Value::as_f64).is_some_and(|g| g >= min),
            None => got == Some(want),
        };
        if !ok {
            problems.push(format!(
                "{name}: {kind} evidence {pointer} = {got:?}, expected {want}"
            ));
        }
    }
    problems
}

fn join<'a>(kinds: impl IntoIterator<Item = &'a String>) -> String {
    let v: Vec<&str> = kinds.into_iter().map(String::as_str).collect();
    if v.is_empty() {
        "-".to_string()
    } else {
        v.join(",")
    }
}

#[test]
fn heldout_scenarios() {
    let expected: Value = serde_json::from_str(
        &std::fs::read_to_string(format!("{DIR}/expected.json")).expect("expected.json"),
    )
    .expect("valid expected.json");
    let scenarios = expected.as_object().expect("object");
    assert!(scenarios.len() >= 20, "held-out set too small");

    let mut rows = vec![];
    let mut failures = vec![];
    let (mut n_expected, mut n_missed, mut n_false) = (0, 0, 0);
    let mut clean = 0;
    for (name, s) in scenarios {
        let args: Vec<String> = s["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_string())
            .collect();
        let report = analyze(s["file"].as_str().unwrap(), &args);
        let got: BTreeSet<String> = report["findings"]
            .as_array()
            .expect("findings[]")
            .iter()
            .map(|f| f["kind"].as_str().expect("kind").to_string())
            .collect();
        let expect = strings(&s["expect"]);
        let allow = strings(&s["allow"]);
        if expect.is_empty() && allow.is_empty() {
            clean += 1;
        }
        let missed: Vec<_> = expect.difference(&got).cloned().collect();
        let false_alarms: Vec<_> = got
            .iter()
            .filter(|k| !expect.contains(*k) && !allow.contains(*k))
            .cloned()
            .collect();
        n_expected += expect.len();
        n_missed += missed.len();
        n_false += false_alarms.len();
        if !missed.is_empty() {
            failures.push(format!("{name}: missed {missed:?}"));
        }
        if !false_alarms.is_empty() {
            failures.push(format!("{name}: false alarms {false_alarms:?}"));
        }
        if let Some(a) = s.get("action").filter(|a| !a.is_null()) {
            failures.extend(check_action(name, a, &report));
        }
        failures.extend(check_evidence(name, &s["evidence"], &report));
        let expect_s = join(&expect);
        let got_s = join(&got);
        let missed_s = join(&missed);
        let false_s = join(&false_alarms);
        rows.push(format!(
            "{name:<26} expect {expect_s:<40} got {got_s:<58} missed {missed_s:<22} false {false_s}"
        ));
    }
    println!(
        "held-out detector evaluation ({} scenarios, {clean} clean)",
        scenarios.len()
    );
    for r in &rows {
        println!("{r}");
    }
    println!(
        "expected findings {n_expected}, missed {n_missed}, false alarms {n_false}, other problems {}",
        failures.len() - failures.iter().filter(|f| f.contains(": missed") || f.contains(": false alarms")).count()
    );
    assert!(clean >= 5, "the set must include clean scenarios");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
