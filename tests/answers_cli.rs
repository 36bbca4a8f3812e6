//! Answers a reader can act on (issue 42): each test runs the command a new user ran and
//! asserts the answer the report should have given.

mod common;
use common::*;

// ---- One list of finding kinds ----------------------------------------------------------

/// `--fail-on finding:KIND` accepts every kind the report emits (nested_retries and
/// retry_after_not_exposed were refused), and holds when the report has it.
#[test]
fn fail_on_accepts_every_kind_the_report_emits() {
    let out = toomany()
        .args(["analyze", &sample("retry-storm.jsonl"), "--format", "json"])
        .args(["--fail-on", "finding:nested_retries"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let kinds: Vec<String> = json_of(&out.stdout)["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap().to_string())
        .collect();
    assert!(kinds.contains(&"nested_retries".to_string()), "{kinds:?}");
    let out = toomany()
        .args(["analyze", &sample("cdn-burst.har"), "--format", "json"])
        .args(["--fail-on", "finding:retry_after_not_exposed"])
        .output()
        .unwrap();
    assert!(
        out.status.code() != Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The error for an unknown kind lists every kind, and the schema page documents each.
#[test]
fn every_kind_is_listed_and_documented() {
    let err = toomany()
        .args([
            "analyze",
            &sample("cdn-burst.har"),
            "--fail-on",
            "finding:nope",
        ])
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8_lossy(&err);
    let schema = std::fs::read_to_string(repo().join("docs/report-schema.md")).unwrap();
    for k in toomany::detect::Kind::ALL {
        assert!(err.contains(k.as_str()), "{k:?} missing from: {err}");
        assert!(
            schema.contains(&format!("`{}`", k.as_str())),
            "{k:?} is not documented in docs/report-schema.md"
        );
    }
}

// ---- Quiet, and one line for the expected notes -----------------------------------------

/// `--emit-config` says what it wrote and how many notes the files carry in a few lines (it
/// wrote 48, 37 of them "cannot express"); `-q` leaves stderr empty and still writes.
#[test]
fn emit_config_is_brief_and_quiet_is_silent() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("client-config");
    let out = toomany()
        .args(["analyze", &sample("api-incident.jsonl"), "--emit-config"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.lines().count() <= 4, "{err}");
    assert!(!err.contains("cannot express:"), "{err}");
    let summary = err
        .lines()
        .find(|l| l.contains("on what the tools cannot express"))
        .unwrap_or_else(|| panic!("{err}"));
    let envoy = std::fs::read_to_string(dir.join("envoy.yaml")).unwrap();
    assert!(envoy.contains("What this tool cannot express"), "{envoy}");
    assert!(summary.contains("envoy "), "{summary}");

    let quiet = d.path().join("quiet");
    for q in ["-q", "--quiet"] {
        let _ = std::fs::remove_dir_all(&quiet);
        toomany()
            .args([q, "analyze", &sample("api-incident.jsonl"), "--emit-config"])
            .arg(&quiet)
            .assert()
            .success()
            .stderr("");
        assert!(quiet.join("toomany.toml").is_file());
    }
    // After the subcommand too, and errors still print.
    toomany()
        .args([
            "analyze",
            &sample("cdn-burst.har"),
            "--fail-on",
            "any-429",
            "--quiet",
        ])
        .assert()
        .code(1)
        .stderr("");
    toomany()
        .args(["analyze", "--quiet", "no-such-file.har"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("error"));
}

// ---- --limit per host, --host alone, the unit as given ----------------------------------

fn plans_of(v: &serde_json::Value) -> Vec<(String, serde_json::Value)> {
    v["recommendations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["host"].as_str().unwrap_or("").to_string(),
                r["limit"].clone(),
            )
        })
        .collect()
}

/// `--limit 10000/day` is for the busiest rate-limited host only: another host's 100/min stays
/// (it became 6.944/min), and the table prints the limit as given, not per minute.
#[test]
fn a_bare_limit_is_the_principal_hosts_and_printed_as_given() {
    let v = analyze_json_with(&[&sample("batch-burst.jsonl"), "--limit", "10000/day"]);
    let plans = plans_of(&v);
    assert_eq!(plans[0].0, "api.llm.example");
    assert_eq!(plans[0].1["source"], "flag");
    assert_eq!(plans[0].1["window_s"], 86400.0);
    assert_eq!(plans[1].0, "api.example.com");
    assert_eq!(plans[1].1["rate_per_minute"], 100.0, "{:?}", plans[1].1);
    assert_ne!(plans[1].1["source"], "flag");
    let out = toomany()
        .args([
            "analyze",
            &sample("batch-burst.jsonl"),
            "--limit",
            "10000/day",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("limit        10000/day (--limit)"), "{text}");
    assert!(
        text.contains("limit        100/min (stated by the server"),
        "{text}"
    );
}

/// `--limit HOST=RATE`, repeatable: each host gets its own.
#[test]
fn limits_per_host() {
    let v = analyze_json_with(&[
        &sample("batch-burst.jsonl"),
        "--limit",
        "api.example.com=120/min",
        "--limit",
        "API.LLM.example=500/day",
    ]);
    let plans = plans_of(&v);
    let of = |h: &str| plans.iter().find(|p| p.0 == h).unwrap().1.clone();
    assert_eq!(of("api.example.com")["rate_per_minute"], 120.0);
    assert_eq!(of("api.llm.example")["window_s"], 86400.0);
    assert!(of("api.llm.example")["detail"]
        .as_str()
        .unwrap()
        .contains("--limit api.llm.example=500/day"));
    toomany()
        .args(["analyze", &sample("cdn-burst.har"), "--limit", "=120/min"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("HOST=RATE"));
}

/// `--host NAME` on its own narrows the plans to that host, and a bare `--limit` is its.
#[test]
fn host_alone_narrows_the_plan() {
    let v = analyze_json_with(&[
        &sample("batch-burst.jsonl"),
        "--host",
        "api.example.com",
        "--limit",
        "90/min",
    ]);
    let plans = plans_of(&v);
    assert_eq!(plans.len(), 1, "{plans:?}");
    assert_eq!(plans[0].0, "api.example.com");
    assert_eq!(plans[0].1["rate_per_minute"], 90.0);
    toomany()
        .args([
            "analyze",
            &sample("batch-burst.jsonl"),
            "--host",
            "nope.example",
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("api.llm.example"));
}

// ---- Plans that never contradict themselves ---------------------------------------------

/// Every plan of every sample: a stop has a resume time and retries none of its 429s; a
/// pacing plan has no resume time and a deadline that fits the longest wait it was told
/// (plus the spread), so its own rule never gives up at once.
#[test]
fn every_plan_is_consistent_with_its_action() {
    for name in [
        "api-incident.jsonl",
        "batch-burst.jsonl",
        "retry-storm.jsonl",
        "cdn-burst.har",
    ] {
        let v = analyze_json(&sample(name));
        for r in v["recommendations"].as_array().unwrap() {
            let host = r["host"].as_str().unwrap();
            let b = &r["backoff"];
            if r["action"] == "stop_or_reschedule" {
                assert!(
                    r["resume_at"].is_string(),
                    "{name} {host}: a stop says when"
                );
                assert!(r["stated_wait_s"].is_null());
            } else {
                assert!(r["resume_at"].is_null(), "{name} {host}: no resume time");
                if let Some(w) = r["stated_wait_s"].as_f64() {
                    let need = w * 1000.0 + b["retry_after_spread_ms"].as_f64().unwrap();
                    assert!(
                        b["deadline_ms"].as_f64().unwrap() >= need,
                        "{name} {host}: deadline {} < wait + spread {need}",
                        b["deadline_ms"]
                    );
                }
            }
        }
    }
}

/// The exhausted daily quota: stop until the reset, the allowance per day (not 0.3/min), how to
/// spread it after, and no retries of its 429s; the 100/min host beside it paces (it was told
/// to "stop or reschedule" with a resume time inside the capture).
#[test]
fn a_spent_quota_stops_and_a_rate_limit_paces() {
    let v = analyze_json(&sample("batch-burst.jsonl"));
    let recs = v["recommendations"].as_array().unwrap();
    let (llm, api) = (&recs[0], &recs[1]);
    assert_eq!(llm["action"], "stop_or_reschedule");
    assert_eq!(llm["resume_at"], "2026-03-03T14:03:00.500Z");
    assert_eq!(llm["limit"]["window_s"], 86400.0);
    assert_eq!(api["action"], "slow_down");
    assert!(api["resume_at"].is_null());
    assert!(api["backoff"]["deadline_ms"].as_u64().unwrap() >= 59_000);

    let out = toomany()
        .args(["analyze", &sample("batch-burst.jsonl")])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let plan = text
        .split("Recommendation for api.llm.example")
        .nth(1)
        .unwrap()
        .split("Recommendation for")
        .next()
        .unwrap();
    assert!(
        plan.contains("resume after 2026-03-03 14:03:00 UTC"),
        "{plan}"
    );
    assert!(plan.contains("limit        18/day"), "{plan}");
    assert!(plan.contains("after that, 13.5/day"), "{plan}");
    assert!(
        plan.contains("none for these 429s before the resume time"),
        "{plan}"
    );
    assert!(!plan.contains("266667") && !plan.contains("/min"), "{plan}");

    // The HTML verdict box says when to resume.
    let out = toomany()
        .args(["analyze", &sample("batch-burst.jsonl"), "--format", "html"])
        .output()
        .unwrap();
    let html = String::from_utf8_lossy(&out.stdout);
    let card = html.split("<h2>The plan</h2>").nth(1).unwrap();
    let card = card.split("</div>").next().unwrap();
    assert!(
        card.contains("resume after 2026-03-03 14:03:00 UTC, then 13.5/day"),
        "{card}"
    );
}

/// Retry-After 30 s plus a 0–4 s spread does not fit a 30 s deadline: the plan's deadline is
/// raised to fit it (a deadline the user chose is kept, and the plan says to stop instead).
#[test]
fn the_deadline_fits_the_servers_wait_or_the_plan_says_stop() {
    let v = analyze_json(&sample("cdn-burst.har"));
    let r = &v["recommendation"];
    assert_eq!(r["stated_wait_s"], 30.0);
    assert_eq!(r["backoff"]["deadline_ms"], 34_000);
    let v = analyze_json_with(&[&sample("cdn-burst.har"), "--retry-deadline", "30s"]);
    let r = &v["recommendation"];
    assert_eq!(r["backoff"]["deadline_ms"], 30_000);
    let w = r["warnings"].to_string();
    assert!(w.contains("stop retrying those and reschedule them"), "{w}");
}

/// `plan --requests 600 --limit 10000/day`: the job fits one day's allowance, so nothing paces
/// it at one request per 11.5 s; a job that spans days is spread over them.
#[test]
fn a_daily_allowance_is_a_budget_not_a_pace() {
    let out = toomany()
        .args([
            "plan",
            "--requests",
            "600",
            "--limit",
            "10000/day",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let p = json_of(&out.stdout);
    assert_eq!(p["fits_one_window"], true);
    assert_eq!(p["allowance_per_window"], 7500.0);
    assert!(p["rate_per_second"].is_null() && p["min_interval_ms"].is_null());
    let text = toomany()
        .args(["plan", "--requests", "600", "--limit", "10000/day"])
        .output()
        .unwrap()
        .stdout;
    let text = String::from_utf8_lossy(&text);
    assert!(text.contains("fit in one, so it sets no pace"), "{text}");
    assert!(!text.contains("one start every"), "{text}");
    let p = json_of(
        &toomany()
            .args([
                "plan",
                "--requests",
                "20000",
                "--limit",
                "10000/day",
                "--format",
                "json",
            ])
            .output()
            .unwrap()
            .stdout,
    );
    assert_eq!(p["fits_one_window"], false);
    assert_eq!(p["min_interval_ms"], 11520);
}

// ---- A limit the server states wins over an estimate -------------------------------------

/// `X-RateLimit-Limit: 120` on every response and a 429 body saying "120 requests per minute":
/// the limit is stated, not "estimated from traffic, low confidence", and the report says which
/// header and body stated it.
#[test]
fn a_stated_limit_names_its_header_and_body() {
    let v = analyze_json(&sample("api-incident.jsonl"));
    let l = &v["recommendation"]["limit"];
    assert_eq!(l["source"], "stated");
    assert_eq!(l["rate_per_minute"], 120.0);
    assert!(l["confidence"].is_null());
    let by = l["stated_by"].as_str().unwrap();
    assert!(by.contains("X-RateLimit-Limit: 120"), "{by}");
    assert!(by.contains("120 requests per minute"), "{by}");
    let text = toomany()
        .args(["analyze", &sample("api-incident.jsonl")])
        .output()
        .unwrap()
        .stdout;
    let text = String::from_utf8_lossy(&text);
    assert!(
        text.contains("120/min (stated by the server: X-RateLimit-Limit: 120"),
        "{text}"
    );
    assert!(!text.contains("estimated from traffic"), "{text}");
}

// ---- Small wrong numbers and words ------------------------------------------------------

fn table_of(args: &[&str]) -> String {
    let out = toomany()
        .env("NO_COLOR", "1")
        .arg("analyze")
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

/// A 2.4 s capture has no sustained rate: the burst says what its "1/s" is (the host's first
/// attempts taken over a minute) instead of "a sustained 1/s over the capture".
#[test]
fn a_short_capture_claims_no_sustained_rate() {
    let t = table_of(&[&sample("cdn-burst.har")]);
    assert!(!t.contains("sustained"), "{t}");
    let flat = t.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("against 1/s if the host's 60 first attempts were all of a minute's (they span only 1.5 s)"),
        "{flat}"
    );
}

/// Percentages are written one way (`69 %`, as `(86 %)` beside them).
#[test]
fn percentages_read_one_way() {
    let t = table_of(&[&sample("nginx-incident.log")]);
    assert!(t.contains("(86 %)"), "{t}");
    let glued = t
        .as_bytes()
        .windows(2)
        .any(|w| w[0].is_ascii_digit() && w[1] == b'%');
    assert!(!glued, "a percentage written without its space: {t}");
}

/// JSON findings come in the report's order (most severe first), and a spent quota's finding
/// names its resume time as the plan does (`resume_at`).
#[test]
fn json_findings_in_severity_order_with_the_plans_resume_at() {
    let v = analyze_json(&sample("batch-burst.jsonl"));
    let rank = |s: &str| match s {
        "critical" => 0,
        "warning" => 1,
        _ => 2,
    };
    let sev: Vec<i32> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| rank(f["severity"].as_str().unwrap()))
        .collect();
    assert!(sev.windows(2).all(|w| w[0] <= w[1]), "{sev:?}");
    let quota = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "quota_exhausted")
        .expect("quota_exhausted");
    let plan = v["recommendations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["host"] == "api.llm.example")
        .expect("plan");
    assert!(quota["evidence"]["resume_at"].is_string(), "{quota}");
    assert_eq!(quota["evidence"]["resume_at"], plan["resume_at"]);
}

// ---- The same requests counted once -----------------------------------------------------

/// The same HAR given twice (or a copy of it) is read once: 67 requests, and the plan's limit
/// is the single capture's (it was doubled, 80/min instead of 40/min), with a warning.
#[test]
fn the_same_input_twice_is_counted_once() {
    let har = sample("cdn-burst.har");
    let once = analyze_json(&har);
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("copy.har");
    std::fs::copy(repo().join(&har), &copy).unwrap();
    let copy = copy.to_string_lossy().into_owned();
    for extra in [har.as_str(), copy.as_str()] {
        let out = toomany()
            .args(["analyze", &har, extra, "--format", "json"])
            .output()
            .unwrap();
        assert!(out.status.success());
        let v = json_of(&out.stdout);
        assert_eq!(v["summary"]["requests"], 67, "{extra}");
        assert_eq!(v["summary"]["requests"], once["summary"]["requests"]);
        assert_eq!(
            v["recommendations"][0]["limit"],
            once["recommendations"][0]["limit"]
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("read once"), "{err}");
    }
}

/// The `--log-format` of the README's access-log example (the test holds the README to it).
const README_NGINX_FORMAT: &str = r#"$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" rt=$request_time t=$msec us=$upstream_status ra="$upstream_http_retry_after" key="$http_x_api_key" rid=$request_id host=$host"#;

fn layers_json(logs: &[&str]) -> (serde_json::Value, String) {
    let paths: Vec<String> = logs.iter().map(|l| sample(l)).collect();
    let out = toomany()
        .arg("analyze")
        .args(&paths)
        .args(["--log-format", README_NGINX_FORMAT, "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    (json_of(&out.stdout), err)
}

/// Rate-limited rows by layer and vendor.
fn by_layer(v: &serde_json::Value) -> std::collections::BTreeMap<String, usize> {
    let mut m = std::collections::BTreeMap::new();
    for r in v["rate_limited"].as_array().unwrap() {
        let vendor = r["vendor"].as_str().unwrap_or("-");
        let k = format!("{}/{vendor}", r["layer"].as_str().unwrap());
        *m.entry(k).or_insert(0) += 1;
    }
    m
}

/// The nginx and Envoy logs of the same requests, combined as the README suggests (its exact
/// command): one request seen at two layers is one request, joined by the request id both
/// carry. The counts, the limit and the retry findings are the nginx log's alone (they were
/// doubled: 2,178 requests, 264/min, "nested retry layers 3 × 2"); the Envoy log still says
/// who answered (its `RL` lines: Envoy's local rate limit), whichever log comes first.
#[test]
fn two_layers_logs_of_the_same_requests_are_counted_once() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    assert!(readme.contains(&format!("--log-format '{README_NGINX_FORMAT}'")));
    let (alone, _) = layers_json(&["nginx-incident.log"]);
    let (both, err) = layers_json(&["nginx-incident.log", "envoy-incident.log"]);
    assert_eq!(alone["summary"]["requests"], 1101);
    assert_eq!(both["summary"]["requests"], 1101, "{err}");
    assert_eq!(both["summary"]["rate_limited"], 945);
    assert_eq!(
        both["recommendations"][0]["limit"],
        alone["recommendations"][0]["limit"]
    );
    assert!(
        err.contains("1077 records are requests already read from")
            && err.contains("the same request id"),
        "{err}"
    );
    let kinds = |v: &serde_json::Value| -> Vec<(String, String)> {
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["kind"].as_str().unwrap().to_string(),
                    f["summary"].to_string(),
                )
            })
            .collect()
    };
    for (kind, summary) in kinds(&both) {
        assert!(
            !summary.contains("nested retry layers"),
            "{kind}: {summary}"
        );
    }
    assert_eq!(
        kinds(&both).iter().map(|k| &k.0).collect::<Vec<_>>(),
        kinds(&alone).iter().map(|k| &k.0).collect::<Vec<_>>()
    );
    // Who answered: nginx itself (24), Envoy's local rate limit (26), the API (the rest).
    let layers = by_layer(&both);
    assert_eq!(layers.get("proxy/nginx"), Some(&24), "{layers:?}");
    assert_eq!(layers.get("proxy/envoy"), Some(&26), "{layers:?}");
    assert_eq!(layers.values().sum::<usize>(), 945);
    // The Envoy log first: the same requests, the same verdicts.
    let (reversed, _) = layers_json(&["envoy-incident.log", "nginx-incident.log"]);
    assert_eq!(reversed["summary"]["requests"], 1101);
    assert_eq!(by_layer(&reversed), layers);
}

/// `toomany analyze ARGS…` (text and JSON): stdout and stderr of each.
fn both_ways(args: &[&str]) -> (String, serde_json::Value, String) {
    let run = |json: bool| {
        let mut c = toomany();
        c.arg("analyze").args(args);
        if json {
            c.args(["--format", "json"]);
        }
        let out = c.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        (
            out.stdout,
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (text, _) = run(false);
    let (json, err) = run(true);
    (String::from_utf8(text).unwrap(), json_of(&json), err)
}

/// The same two logs without `--log-format`: nginx's times are then known to the second only
/// (`$time_local` less `rt=`) and its request ids are not read, so the records join by host,
/// method, path and status within the second the nginx time stands for (they were counted
/// twice, with no warning: 2,178 requests).
#[test]
fn two_layers_logs_with_whole_second_times_are_counted_once() {
    let (nginx, envoy) = (sample("nginx-incident.log"), sample("envoy-incident.log"));
    let alone = analyze_json(&nginx);
    for order in [[&nginx, &envoy], [&envoy, &nginx]] {
        let (text, v, err) = both_ways(&[order[0], order[1]]);
        assert_eq!(v["summary"]["requests"], 1101, "{order:?}: {err}");
        assert_eq!(v["summary"]["rate_limited"], 945, "{order:?}");
        assert!(text.starts_with("1101 requests"), "{text}");
        assert!(
            err.contains("1077 records are requests already read from")
                && err.contains("within the second"),
            "{err}"
        );
        assert!(!text.contains("counted twice?"), "{text}");
    }
    let (_, v, _) = both_ways(&[&nginx, &envoy]);
    assert_eq!(
        v["recommendations"][0]["limit"],
        alone["recommendations"][0]["limit"]
    );
}

/// Two logs of one format holding the same requests cannot be joined without an id (two
/// replicas' logs hold different requests): the report says they may be counted twice, and
/// how to join them, instead of silently doubling every rate.
#[test]
fn two_logs_that_look_like_one_traffic_but_cannot_be_joined_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let mut edge = std::fs::read(repo().join("samples/nginx-incident.log")).unwrap();
    edge.extend_from_slice(b"\n"); // other bytes: not the same file read twice
    let edge = write(dir.path(), "edge.log", &edge);
    let (text, v, err) = both_ways(&[&sample("nginx-incident.log"), &edge]);
    assert_eq!(v["summary"]["requests"], 2202);
    let note = v["inputs"][1]["counted_twice"].as_str().unwrap();
    assert!(
        note.starts_with("1101 of 1101 records of") && note.contains("--log-format"),
        "{note}"
    );
    assert!(note.contains("$request_id"), "{note}");
    assert_eq!(v["inputs"][0].get("counted_twice"), None);
    // On the first screen, before the verdict.
    let at = text
        .find("counted twice? 1101 of 1101 records")
        .expect(&text);
    assert!(at < text.find("Who limited you").unwrap(), "{text}");
    assert!(err.contains("counted twice?"), "{err}");
}

/// A HAR and a server's log of the same requests join by request id, successes too (a HAR's
/// successes past the attribution baseline are read "lite", and lost their `X-Request-ID`:
/// 3,000 requests were counted as 4,424). The log's clock is 600 ms off, beyond the match
/// window: only the ids join them.
#[test]
fn a_har_and_a_log_of_the_same_requests_join_by_id_successes_too() {
    let dir = tempfile::tempdir().unwrap();
    let (mut entries, mut lines) = (Vec::new(), String::new());
    let at = |ms: u64| {
        format!(
            "2026-11-03T10:{:02}:{:06.3}Z",
            ms / 60_000,
            (ms % 60_000) as f64 / 1000.0
        )
    };
    for i in 0..3000u64 {
        let status = if i % 10 == 9 { 429 } else { 200 };
        let (ms, id) = (100 + i * 20, format!("req-{i:08}-abcdef"));
        let url = format!("https://api.example.com/v1/items/{i}");
        entries.push(serde_json::json!({
            "startedDateTime": at(ms), "time": 20,
            "request": {"method": "GET", "url": url, "httpVersion": "HTTP/1.1",
                "headers": [{"name": "X-Request-ID", "value": id}], "queryString": [],
                "cookies": [], "headersSize": -1, "bodySize": 0},
            "response": {"status": status, "statusText": "", "httpVersion": "HTTP/1.1",
                "headers": [], "cookies": [], "content": {"size": 0, "mimeType": "application/json"},
                "redirectURL": "", "headersSize": -1, "bodySize": 0},
            "cache": {}, "timings": {"send": 0, "wait": 20, "receive": 0}
        }));
        let line = serde_json::json!({"time": at(ms + 600), "method": "GET", "url": url,
            "status": status, "request_headers": {"X-Request-ID": id}});
        lines.push_str(&format!("{line}\n"));
    }
    let har = serde_json::json!({"log": {"version": "1.2",
        "creator": {"name": "test", "version": "1"}, "entries": entries}});
    let har = write(dir.path(), "capture.har", har.to_string().as_bytes());
    let log = write(dir.path(), "server.jsonl", lines.as_bytes());
    for order in [[&har, &log], [&log, &har]] {
        let out = toomany()
            .args(["analyze", order[0], order[1], "--format", "json"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let v = json_of(&out.stdout);
        assert_eq!(v["summary"]["requests"], 3000, "{order:?}: {err}");
        assert!(
            err.contains("3000 records are requests already read from")
                && err.contains("the same request id"),
            "{err}"
        );
    }
}

// ---- No empty host ---------------------------------------------------------------------

/// The README's nginx sample is read with its named fields (`host=`, `rt=`): its host is
/// api.example.com, no report key is empty, and nothing was ignored.
#[test]
fn the_nginx_sample_names_its_host() {
    let out = toomany()
        .args(["analyze", &sample("nginx-incident.log"), "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !err.contains("ignored") && !err.contains("no host"),
        "{err}"
    );
    let v = json_of(&out.stdout);
    let hosts: Vec<&str> = v["summary"]["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["host"].as_str().unwrap())
        .collect();
    assert_eq!(hosts, ["api.example.com"], "{v:#}");
    let plans = v["recommendations"].as_array().unwrap();
    assert!(!plans.is_empty());
    for p in plans {
        assert_eq!(p["host"], "api.example.com", "{p:#}");
    }
    let t = table_of(&[&sample("nginx-incident.log")]);
    assert!(t.contains("Recommendation for api.example.com:"), "{t}");
    // The response time (rt=) was read: the plan does not assume one.
    assert!(!t.contains("no response times"), "{t}");
}

/// A log whose lines carry only a path groups them under "(no host)", never under "", and
/// says how many and why.
#[test]
fn a_path_only_log_is_reported_under_no_host_with_a_warning() {
    let tmp = tempfile::tempdir().unwrap();
    let log = write(
        tmp.path(),
        "paths.log",
        b"10.0.0.1 - - [02/Mar/2026:02:00:00 +0000] \"GET /v1/a HTTP/1.1\" 429 12 \"-\" \"curl/8\"\n\
          10.0.0.1 - - [02/Mar/2026:02:00:01 +0000] \"GET /v1/a HTTP/1.1\" 200 12 \"-\" \"curl/8\"\n\
          10.0.0.1 - - [02/Mar/2026:02:00:01 +0000] \"GET /v1/b HTTP/1.1\" 429 12 \"-\" \"curl/8\"\n",
    );
    let out = toomany().args(["analyze", &log]).output().unwrap();
    assert!(out.status.success());
    let t = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("3 of 3 requests name no host") && err.contains("\"(no host)\""),
        "{err}"
    );
    assert!(t.contains("Recommendation for (no host): "), "{t}");
    assert!(t.contains("  (no host): 2 of 3 requests"), "{t}");
    assert!(!t.contains("for :") && !t.contains("\n  : "), "{t}");
    let v = analyze_json(&log);
    assert_eq!(v["summary"]["hosts"][0]["host"], "(no host)", "{v:#}");
    assert_eq!(v["recommendations"][0]["host"], "(no host)", "{v:#}");
}

// ---- Skips are seen ---------------------------------------------------------------------

/// Calls [`skipped`] when run by [`a_skip_is_seen_outside_ci_and_fails_in_ci`] (a no-op in a
/// plain run).
#[test]
fn skip_probe() {
    if std::env::var_os("TOOMANY_SKIP_PROBE").is_some() {
        skipped("the probe's tool", &["TOOMANY_REQUIRE_PROBE"]);
    }
}

/// A skip prints past the harness's capture (so a passing `cargo test` shows it), and fails
/// the test when its TOOMANY_REQUIRE_* variable says the tool must be there.
#[test]
fn a_skip_is_seen_outside_ci_and_fails_in_ci() {
    let me = std::env::current_exe().unwrap();
    let run = |require: bool| {
        let mut c = std::process::Command::new(&me);
        c.args(["skip_probe", "--exact", "--test-threads", "1"])
            .env("TOOMANY_SKIP_PROBE", "1")
            .env_remove("TOOMANY_REQUIRE_PROBE");
        if require {
            c.env("TOOMANY_REQUIRE_PROBE", "1");
        }
        c.output().unwrap()
    };
    let out = run(false);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("SKIPPED in skip_probe: the probe's tool"),
        "the note is not captured: {err}"
    );
    let out = run(true);
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!out.status.success(), "{all}");
    assert!(
        all.contains("TOOMANY_REQUIRE_PROBE is set but the probe's tool"),
        "{all}"
    );
}
