//! Every emitted file parses with a real parser of its format, and its numbers equal the policy.

use super::*;
use crate::recommend::plan::{plan, PlanInput};
use crate::recommend::BackoffOptions;
use crate::units::Rate;
use serde_json::Value;

fn policy(limit: &str, latency: &str, backoff: BackoffOptions) -> Policy {
    // More requests than one window of any allowance holds: every policy paces.
    Policy::from_plan(&plan(&PlanInput {
        requests: 1_000_000,
        limit: Rate::parse(limit).unwrap(),
        headroom: 0.75,
        latency_ms: Some(crate::units::parse_duration_ms(latency).unwrap()),
        deadline_ms: None,
        backoff,
    }))
    .expect("a paced plan")
}

/// Policies that exercise rounding, caps and odd units.
fn policies() -> Vec<Policy> {
    vec![
        policy("120/min", "2s", BackoffOptions::default()),
        policy(
            "10000/day",
            "350ms",
            BackoffOptions {
                max_attempts: 7,
                base_ms: 250,
                cap_ms: 20_000,
                ..Default::default()
            },
        ),
        policy(
            "100/s",
            "40ms",
            BackoffOptions {
                max_attempts: 2,
                deadline_ms: 90_500,
                ..Default::default()
            },
        ),
        policy(
            "7200/h",
            "1m30s",
            BackoffOptions {
                max_attempts: 1,
                ..Default::default()
            },
        ),
    ]
}

fn file<'a>(files: &'a [Emitted], name: &str) -> &'a Emitted {
    files
        .iter()
        .find(|f| f.file_name == name)
        .unwrap_or_else(|| panic!("{name} not emitted"))
}

/// "0.667s" / "667ms" / "8s" → ms.
fn dur_ms(s: &str) -> u64 {
    if let Some(ms) = s.strip_suffix("ms") {
        return ms.parse().unwrap();
    }
    let secs: f64 = s
        .strip_suffix('s')
        .unwrap_or_else(|| panic!("not a duration: {s}"))
        .parse()
        .unwrap();
    (secs * 1000.0).round() as u64
}

/// .NET "hh:mm:ss[.fff]" → ms.
fn timespan_ms(s: &str) -> u64 {
    let parts: Vec<&str> = s.split(':').collect();
    assert_eq!(parts.len(), 3, "{s}");
    let h: u64 = parts[0].parse().unwrap();
    let m: u64 = parts[1].parse().unwrap();
    let sec: f64 = parts[2].parse().unwrap();
    h * 3_600_000 + m * 60_000 + (sec * 1000.0).round() as u64
}

fn s(v: &Value) -> &str {
    v.as_str().unwrap_or_else(|| panic!("not a string: {v}"))
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not an integer: {v}"))
}

fn yaml(text: &str) -> Value {
    serde_norway::from_str(text).unwrap_or_else(|e| panic!("YAML does not parse: {e}\n{text}"))
}

fn capture(text: &str, re: &str) -> String {
    let re = regex::Regex::new(re).unwrap();
    re.captures(text)
        .unwrap_or_else(|| panic!("{re} not found in\n{text}"))[1]
        .to_string()
}

#[test]
fn targets_parse() {
    assert_eq!(parse_targets("all").unwrap().len(), ALL_TARGETS.len());
    assert_eq!(
        parse_targets("envoy, python,go").unwrap(),
        vec![Target::Envoy, Target::Urllib3, Target::Retryablehttp]
    );
    assert_eq!(parse_targets("grpc,grpc").unwrap(), vec![Target::Grpc]);
    let e = parse_targets("envoy,haproxy").unwrap_err();
    assert_eq!(
        e,
        TargetError::Unknown {
            name: "haproxy".into()
        }
    );
    let e = e.to_string();
    assert!(e.contains("haproxy") && e.contains("resilience4j"), "{e}");
    assert_eq!(parse_targets(" , "), Err(TargetError::NoneNamed));
}

#[test]
fn at_least_six_tools_and_every_file_has_a_header() {
    let p = &policies()[0];
    let files = emit(p, &ALL_TARGETS);
    let tools: std::collections::BTreeSet<_> = files.iter().map(|f| f.target).collect();
    assert!(tools.len() >= 6);
    for f in &files {
        if f.file_name.ends_with(".json") && f.file_name != "appsettings.resilience.json" {
            continue; // strict JSON: the explanation is a field or a notes file
        }
        assert!(
            f.contents.contains("one start every 667 ms"),
            "{} lacks the header",
            f.file_name
        );
        for c in &f.cannot_express {
            assert!(
                f.contents.contains(c.as_str()),
                "{}: header lacks {c}",
                f.file_name
            );
        }
    }
    // Every tool except the neutral policy says what it cannot express.
    for f in files
        .iter()
        .filter(|f| f.target != Target::Toomany && !f.file_name.ends_with(".txt"))
    {
        assert!(!f.cannot_express.is_empty(), "{}", f.file_name);
    }
}

/// The file bodies are templates: every hole is filled, for every policy and target, and a
/// hole the numbers do not name stays visible (so this test would see it).
#[test]
fn templates_are_filled_whole() {
    for p in policies() {
        for f in emit(&p, &ALL_TARGETS) {
            assert!(!f.contents.contains("@@"), "{}: a hole left", f.file_name);
        }
    }
    let vars = [("a", "1".to_string())];
    assert_eq!(super::fill("x @@a@@ @@b@@ @@", &vars), "x 1 @@b@@ @@");
}

#[test]
fn neutral_round_trips() {
    for p in policies() {
        let files = emit(&p, &[Target::Toomany]);
        let back: Policy = toml::from_str(&file(&files, "toomany.toml").contents).unwrap();
        assert_eq!(back, p);
        let back: Policy = serde_json::from_str(&file(&files, "toomany.json").contents).unwrap();
        assert_eq!(back, p);
        let v: Value = serde_json::from_str(&file(&files, "toomany.json").contents).unwrap();
        assert!(v["comment"].as_array().unwrap().len() > 3);
    }
}

#[test]
fn envoy_numbers() {
    for p in policies() {
        let f = file(&emit(&p, &[Target::Envoy]), "envoy.yaml").clone();
        let v = yaml(&f.contents);
        let r = &p.retry;
        let tb = &v["http_filters"][0]["typed_config"]["token_bucket"];
        let (tokens, fill) = (u(&tb["tokens_per_fill"]), dur_ms(s(&tb["fill_interval"])));
        assert!(fill >= 50);
        let bucket_rate = tokens as f64 * 1000.0 / fill as f64;
        assert!(
            bucket_rate <= p.rate.rate_per_second + 1e-9,
            "{bucket_rate} > {}",
            p.rate.rate_per_second
        );
        assert!(
            bucket_rate >= p.rate.rate_per_second * 0.95,
            "bucket far below target: {bucket_rate}"
        );
        let route = &v["routes"][0]["route"];
        assert_eq!(dur_ms(s(&route["timeout"])), r.deadline_ms);
        let rp = &route["retry_policy"];
        assert_eq!(
            u(&rp["num_retries"]),
            r.max_attempts as u64 - 1,
            "num_retries counts retries"
        );
        assert_eq!(dur_ms(s(&rp["per_try_timeout"])), r.attempt_timeout_ms);
        assert_eq!(dur_ms(s(&rp["retry_back_off"]["base_interval"])), r.base_ms);
        assert_eq!(dur_ms(s(&rp["retry_back_off"]["max_interval"])), r.cap_ms);
        assert!(s(&rp["retry_on"]).contains("retriable-status-codes"));
        let codes: Vec<u64> = rp["retriable_status_codes"]
            .as_array()
            .unwrap()
            .iter()
            .map(u)
            .collect();
        assert_eq!(codes, vec![429, 503]);
        let rl = &rp["rate_limited_retry_back_off"];
        assert_eq!(s(&rl["reset_headers"][0]["name"]), "Retry-After");
        assert_eq!(s(&rl["reset_headers"][0]["format"]), "SECONDS");
        assert!(
            dur_ms(s(&rl["max_interval"])) >= r.deadline_ms,
            "Retry-After within the deadline must not be discarded"
        );
        let regex =
            s(&v["routes"][0]["match"]["headers"][0]["string_match"]["safe_regex"]["regex"]);
        assert!(regex.contains("GET") && !regex.contains("POST"));
        assert!(
            v["routes"][1]["route"].get("retry_policy").is_none(),
            "non-idempotent route must not retry"
        );
        let th = &v["clusters"][0]["circuit_breakers"]["thresholds"][0];
        assert_eq!(u(&th["max_requests"]), p.concurrency.max_in_flight as u64);
    }
}

#[test]
fn grpc_numbers_and_cap() {
    for p in policies() {
        let files = emit(&p, &[Target::Grpc]);
        let f = file(&files, "grpc-service-config.json");
        let v: Value = serde_json::from_str(&f.contents).expect("strict JSON");
        let m = &v["methodConfig"][0];
        let r = &p.retry;
        assert_eq!(dur_ms(s(&m["timeout"])), r.deadline_ms);
        if r.max_attempts >= 2 {
            let rp = &m["retryPolicy"];
            assert_eq!(
                u(&rp["maxAttempts"]),
                r.max_attempts.min(5) as u64,
                "maxAttempts counts attempts, capped at 5"
            );
            assert_eq!(dur_ms(s(&rp["initialBackoff"])), r.base_ms);
            assert_eq!(dur_ms(s(&rp["maxBackoff"])), r.cap_ms);
            assert_eq!(rp["backoffMultiplier"], 2);
            assert!(rp["retryableStatusCodes"]
                .as_array()
                .unwrap()
                .contains(&Value::from("UNAVAILABLE")));
        } else {
            assert!(m.get("retryPolicy").is_none());
        }
        if r.max_attempts > 5 {
            assert!(f.cannot_express.iter().any(|c| c.contains("capped at 5")));
        }
        let th = &v["retryThrottling"];
        assert!(u(&th["maxTokens"]) > 0 && u(&th["maxTokens"]) <= 1000);
        assert!(th["tokenRatio"].as_f64().unwrap() > 0.0);
        assert!(file(&files, "grpc-service-config.notes.txt")
            .contents
            .contains("grpc-retry-pushback-ms"));
    }
}

#[test]
fn resilience4j_numbers() {
    for p in policies() {
        let f = file(&emit(&p, &[Target::Resilience4j]), "resilience4j.yml").clone();
        let v = yaml(&f.contents);
        let r4 = &v["resilience4j"];
        let retry = &r4["retry"]["instances"]["api"];
        let r = &p.retry;
        assert_eq!(
            u(&retry["maxAttempts"]),
            r.max_attempts as u64,
            "resilience4j counts attempts"
        );
        assert_eq!(dur_ms(s(&retry["waitDuration"])), r.base_ms);
        assert_eq!(dur_ms(s(&retry["exponentialMaxWaitDuration"])), r.cap_ms);
        assert_eq!(retry["enableRandomizedWait"], true);
        let rl = &r4["ratelimiter"]["instances"]["api"];
        assert_eq!(u(&rl["limitForPeriod"]), 1);
        assert_eq!(dur_ms(s(&rl["limitRefreshPeriod"])), p.rate.min_interval_ms);
        assert_eq!(
            u(&r4["bulkhead"]["instances"]["api"]["maxConcurrentCalls"]),
            p.concurrency.max_in_flight as u64
        );
        assert_eq!(
            dur_ms(s(&r4["timelimiter"]["instances"]["api"]["timeoutDuration"])),
            r.attempt_timeout_ms
        );
    }
}

#[test]
fn dotnet_numbers_and_validation_rules() {
    for p in policies() {
        let f = file(&emit(&p, &[Target::Dotnet]), "appsettings.resilience.json").clone();
        // .NET configuration JSON allows // comments; strip them for a strict parser.
        let strict: String = f
            .contents
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let v: Value = serde_json::from_str(&strict).unwrap_or_else(|e| panic!("{e}\n{strict}"));
        let o = &v["TooManyClient"];
        let r = &p.retry;
        assert_eq!(
            u(&o["Retry"]["MaxRetryAttempts"]),
            (r.max_attempts as u64 - 1).max(1),
            "counts retries"
        );
        assert_eq!(timespan_ms(s(&o["Retry"]["Delay"])), r.base_ms);
        assert_eq!(timespan_ms(s(&o["Retry"]["MaxDelay"])), r.cap_ms);
        assert_eq!(o["Retry"]["ShouldRetryAfterHeader"], true);
        let total = timespan_ms(s(&o["TotalRequestTimeout"]["Timeout"]));
        let attempt = timespan_ms(s(&o["AttemptTimeout"]["Timeout"]));
        assert_eq!(total, r.deadline_ms);
        assert_eq!(attempt, r.attempt_timeout_ms);
        assert!(attempt <= total, "validation: attempt timeout ≤ total");
        assert!(
            timespan_ms(s(&o["CircuitBreaker"]["SamplingDuration"])) >= 2 * attempt,
            "validation: sampling ≥ 2 × attempt"
        );
        assert_eq!(
            u(&o["RateLimiter"]["DefaultRateLimiterOptions"]["PermitLimit"]),
            p.concurrency.max_in_flight as u64
        );
    }
}

#[test]
fn python_numbers_and_runs_under_urllib3() {
    for p in policies() {
        let f = file(&emit(&p, &[Target::Urllib3]), "toomany_retry.py").clone();
        let r = &p.retry;
        assert_eq!(
            capture(&f.contents, r"total=(\d+)"),
            r.retries().to_string(),
            "urllib3 total counts retries"
        );
        let base: f64 = capture(&f.contents, r"BACKOFF_BASE_S = ([0-9.]+)")
            .parse()
            .unwrap();
        assert_eq!((base * 1000.0).round() as u64, r.base_ms);
        let cap: f64 = capture(&f.contents, r"BACKOFF_CAP_S = ([0-9.]+)")
            .parse()
            .unwrap();
        assert_eq!((cap * 1000.0).round() as u64, r.cap_ms);
        assert!(f.contents.contains("respect_retry_after_header=True"));
        assert!(!capture(&f.contents, r"allowed_methods=frozenset\(\{([^}]*)\}").contains("POST"));
        assert_eq!(
            capture(&f.contents, r"MAX_IN_FLIGHT = (\d+)"),
            p.concurrency.max_in_flight.to_string()
        );
        python_check(&f.contents, &p);
    }
}

/// When python3 with urllib3 ≥ 2 is on the machine, import the module and read the real Retry
/// object back; otherwise at least compile it when python3 exists.
fn python_check(src: &str, p: &Policy) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("toomany_retry.py"), src).unwrap();
    let probe = r#"
import json, sys
sys.path.insert(0, sys.argv[1])
try:
    import urllib3
except ImportError:
    import py_compile
    py_compile.compile(sys.argv[1] + "/toomany_retry.py", doraise=True)
    print("{}")
    sys.exit(0)
import toomany_retry as m
from urllib3.exceptions import MaxRetryError
from urllib3.response import HTTPResponse

def resp(ra):
    return HTTPResponse(status=429, headers={"Retry-After": ra}, preload_content=False)

def session_info():
    try:
        import requests  # noqa: F401
    except ImportError:
        return None
    a = m.session().get_adapter("https://api.example.com/")
    return {"total": a.max_retries.total, "pool": a._pool_maxsize, "block": a._pool_block}

r = m.RETRY
gave_up = False
try:
    r.increment("GET", "/x", response=resp(str(int(m.RETRY_DEADLINE_S) + 1)))
except MaxRetryError:
    gave_up = True
next_total = r.increment("GET", "/x", response=resp("1")).total if r.total > 0 else None
# What urllib3 itself would sleep: before the first retry, and after a Retry-After of 2 s.
first = []
if r.total > 0:
    once = r.increment("GET", "/x", response=HTTPResponse(status=503, preload_content=False))
    first = [once.get_backoff_time() for _ in range(200)]
slept = []
real_sleep, m.time.sleep = m.time.sleep, slept.append
r.sleep(resp("2"))
m.time.sleep = real_sleep
print(json.dumps({
    "first": first, "ra_slept": slept,
    "total": r.total, "factor": r.backoff_factor, "max": r.backoff_max,
    "methods": sorted(r.allowed_methods), "status": sorted(r.status_forcelist),
    "interval": m.MIN_INTERVAL_S, "gave_up": gave_up, "next_total": next_total,
    "subclass_kept": type(r.new()).__name__,
    "session": session_info(),
}))
"#;
    let out = match python().arg("-c").arg(probe).arg(dir.path()).output() {
        Ok(o) => o,
        Err(_) => {
            skipped("python3 not found: the urllib3 snippet was checked by pattern only");
            return;
        }
    };
    assert!(
        out.status.success(),
        "python failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    if v.get("total").is_none() {
        skipped("urllib3 not installed: the snippet was only compiled");
        return;
    }
    assert_eq!(u(&v["total"]), p.retry.retries() as u64);
    assert_eq!(
        (v["max"].as_f64().unwrap() * 1000.0).round() as u64,
        p.retry.cap_ms
    );
    assert_eq!(v["status"], serde_json::json!([429, 503]));
    assert!(!v["methods"]
        .as_array()
        .unwrap()
        .contains(&Value::from("POST")));
    assert_eq!(
        (v["interval"].as_f64().unwrap() * 1000.0).round() as u64,
        p.rate.min_interval_ms
    );
    assert_eq!(
        v["gave_up"], true,
        "a Retry-After over the deadline must stop, not sleep"
    );
    assert_eq!(v["subclass_kept"], "TooManyRetry");
    if !v["session"].is_null() {
        assert_eq!(u(&v["session"]["total"]), p.retry.retries() as u64);
        assert_eq!(u(&v["session"]["pool"]), p.concurrency.max_in_flight as u64);
        assert_eq!(v["session"]["block"], true);
    }
    if p.retry.retries() > 0 {
        assert_eq!(u(&v["next_total"]), p.retry.retries() as u64 - 1);
        // Full jitter from the first retry on (urllib3 2.x alone sleeps 0 s there).
        let first: Vec<f64> = v["first"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap() * 1000.0)
            .collect();
        let window = p.retry.windows_ms[0] as f64;
        assert!(
            first.iter().all(|&s| (0.0..=window + 1e-6).contains(&s)),
            "{first:?} outside [0, {window}] ms"
        );
        assert!(
            first.iter().any(|&s| s > window / 2.0) && first.iter().any(|&s| s < window / 2.0),
            "the first retry's sleeps are not spread over its window: {first:?}"
        );
    }
    let slept = v["ra_slept"].as_array().unwrap();
    assert_eq!(slept.len(), 1, "one sleep for a Retry-After: {slept:?}");
    let s = slept[0].as_f64().unwrap() * 1000.0;
    assert!(
        (2000.0..=2000.0 + p.retry.retry_after_spread_ms as f64 + 1e-6).contains(&s),
        "Retry-After 2 s slept {s} ms"
    );
}

/// A check that cannot run here: said on the real stderr (`eprintln!` is captured by the test
/// harness and shown only on failure, so a passing test would skip silently), or a failure when
/// `TOOMANY_REQUIRE_E2E` is set (`.ci/run` sets it once Python, its packages and Node are there).
fn skipped(what: &str) {
    use std::io::Write;
    if std::env::var_os("TOOMANY_REQUIRE_E2E").is_some() {
        panic!("TOOMANY_REQUIRE_E2E is set but {what}");
    }
    let line = format!("SKIPPED: {what}\n");
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

/// The Python that runs the emitted modules: `TOOMANY_PYTHON` (CI's venv), else `python3`.
fn python() -> std::process::Command {
    std::process::Command::new(
        std::env::var_os("TOOMANY_PYTHON").unwrap_or_else(|| "python3".into()),
    )
}

#[test]
fn node_numbers_and_syntax() {
    for p in policies() {
        let f = file(&emit(&p, &[Target::Bottleneck]), "toomany-client.mjs").clone();
        let r = &p.retry;
        assert_eq!(
            capture(&f.contents, r"maxConcurrent: (\d+)"),
            p.concurrency.max_in_flight.to_string()
        );
        assert_eq!(
            capture(&f.contents, r"minTime: (\d+)"),
            p.rate.min_interval_ms.to_string()
        );
        assert_eq!(
            capture(&f.contents, r"\bretries: (\d+)"),
            r.retries().to_string(),
            "p-retry counts retries"
        );
        assert_eq!(
            capture(&f.contents, r"minTimeout: (\d+)"),
            r.base_ms.to_string()
        );
        assert_eq!(
            capture(&f.contents, r"maxTimeout: (\d+)"),
            r.cap_ms.to_string()
        );
        assert_eq!(
            capture(&f.contents, r"maxRetryTime: (\d+)"),
            r.deadline_ms.to_string()
        );
        let res: f64 = capture(&f.contents, r"reservoir: (\d+)").parse().unwrap();
        let every: f64 = capture(&f.contents, r"reservoirRefreshInterval: (\d+)")
            .parse()
            .unwrap();
        assert!(res / every * 1000.0 <= p.rate.rate_per_second + 1e-9);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.mjs");
        std::fs::write(&path, &f.contents).unwrap();
        match std::process::Command::new("node")
            .arg("--check")
            .arg(&path)
            .output()
        {
            Ok(o) => assert!(
                o.status.success(),
                "node --check:\n{}",
                String::from_utf8_lossy(&o.stderr)
            ),
            Err(_) => skipped("node not found: the bottleneck snippet was checked by pattern only"),
        }
    }
}

#[test]
fn go_numbers() {
    fn go_ms(expr: &str) -> u64 {
        let (n, unit) = expr.split_once(" * ").unwrap();
        let n: u64 = n.trim().parse().unwrap();
        match unit.trim() {
            "time.Second" => n * 1000,
            "time.Millisecond" => n,
            other => panic!("unit {other}"),
        }
    }
    for p in policies() {
        let f = file(&emit(&p, &[Target::Retryablehttp]), "retryablehttp.go").clone();
        let r = &p.retry;
        assert_eq!(
            capture(&f.contents, r"RetryMax\s+= (\d+)"),
            r.retries().to_string(),
            "RetryMax counts retries"
        );
        assert_eq!(
            go_ms(&capture(&f.contents, r"RetryWaitMin\s+= ([^\n]+)")),
            r.base_ms
        );
        assert_eq!(
            go_ms(&capture(&f.contents, r"RetryWaitMax\s+= ([^\n]+)")),
            r.cap_ms
        );
        assert_eq!(
            go_ms(&capture(&f.contents, r"RetryDeadline\s+= ([^\n]+)")),
            r.deadline_ms
        );
        assert_eq!(
            go_ms(&capture(&f.contents, r"MinInterval\s+= ([^\n]+)")),
            p.rate.min_interval_ms
        );
        assert_eq!(
            capture(&f.contents, r"MaxInFlight\s+= (\d+)"),
            p.concurrency.max_in_flight.to_string()
        );
        // Balanced braces: a cheap guard against a broken template.
        assert_eq!(
            f.contents.matches('{').count(),
            f.contents.matches('}').count()
        );
    }
}

#[test]
fn helpers() {
    assert_eq!(secs(667), "0.667");
    assert_eq!(secs(8000), "8");
    assert_eq!(secs(1500), "1.5");
    assert_eq!(proto_duration(90_500), "90.5s");
    assert_eq!(dotnet::timespan(30_000), "00:00:30");
    assert_eq!(dotnet::timespan(90_667), "00:01:30.667");
    assert_eq!(dotnet::timespan(90_000_000), "25:00:00");
    assert_eq!(resilience4j::spring_duration(667), "667ms");
    assert_eq!(go::go_duration(8000), "8 * time.Second");
    assert_eq!(envoy::bucket(1.5), (1, 667));
    assert_eq!(envoy::bucket(100.0), (5, 50));
    assert_eq!(node::reservoir(1.5, 60.0), (90, 60_000));
    assert_eq!(node::reservoir(7500.0 / 86400.0, 86400.0), (5, 60_000));
}

#[test]
fn tenacity_numbers_and_behaviour() {
    for p in policies() {
        let f = file(&emit(&p, &[Target::Tenacity]), "toomany_tenacity.py").clone();
        let r = &p.retry;
        assert_eq!(
            capture(&f.contents, r"MAX_ATTEMPTS = (\d+)"),
            r.max_attempts.to_string(),
            "tenacity counts attempts"
        );
        let secs_of =
            |re: &str| (capture(&f.contents, re).parse::<f64>().unwrap() * 1000.0).round() as u64;
        assert_eq!(secs_of(r"BASE_S = ([0-9.]+)"), r.base_ms);
        assert_eq!(secs_of(r"CAP_S = ([0-9.]+)"), r.cap_ms);
        assert_eq!(secs_of(r"DEADLINE_S = ([0-9.]+)"), r.deadline_ms);
        tenacity_check(&f.contents, &p);
    }
}

/// With python3 and tenacity available, run the decorator against fake 429 responses (sleep
/// replaced) and count the calls and the waits; otherwise compile it when python3 exists.
fn tenacity_check(src: &str, p: &Policy) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("toomany_tenacity.py"), src).unwrap();
    let probe = r#"
import json, sys
sys.path.insert(0, sys.argv[1])
try:
    import tenacity
except ImportError:
    import py_compile
    py_compile.compile(sys.argv[1] + "/toomany_tenacity.py", doraise=True)
    print("{}")
    sys.exit(0)
import toomany_tenacity as m

class Resp:
    def __init__(self, status, ra=None):
        self.status_code = status
        self.headers = {} if ra is None else {"Retry-After": ra}

def run(ra):
    calls, sleeps = [], []
    def send():
        calls.append(1)
        return Resp(429, ra)
    f = m.retry_policy(send).retry_with(sleep=sleeps.append)
    last = f()
    return {"calls": len(calls), "sleeps": sleeps, "last": last.status_code}

print(json.dumps({
    "plain": run(None),
    "short_ra": run("2"),
    "long_ra": run(str(int(m.DEADLINE_S) + 5)),
}))
"#;
    let out = match python().arg("-c").arg(probe).arg(dir.path()).output() {
        Ok(o) => o,
        Err(_) => {
            skipped("python3 not found: the tenacity snippet was checked by pattern only");
            return;
        }
    };
    assert!(
        out.status.success(),
        "python failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    if v.get("plain").is_none() {
        skipped("tenacity not installed: the snippet was only compiled");
        return;
    }
    let r = &p.retry;
    let plain = &v["plain"];
    assert_eq!(u(&plain["calls"]), r.max_attempts as u64, "{plain}");
    assert_eq!(
        plain["last"], 429,
        "the last response is returned, not swallowed"
    );
    for (i, s) in plain["sleeps"].as_array().unwrap().iter().enumerate() {
        let s = s.as_f64().unwrap() * 1000.0;
        assert!(
            s >= 0.0 && s <= r.windows_ms[i] as f64 + 1e-6,
            "sleep {i} = {s} ms outside window {}",
            r.windows_ms[i]
        );
    }
    let short = &v["short_ra"];
    for s in short["sleeps"].as_array().unwrap() {
        let s = s.as_f64().unwrap() * 1000.0;
        assert!(
            s >= 2000.0 && s <= 2000.0 + r.retry_after_spread_ms as f64 + 1e-6,
            "{s}"
        );
    }
    assert_eq!(
        u(&v["long_ra"]["calls"]),
        1,
        "a Retry-After past the deadline stops at once: {}",
        v["long_ra"]
    );
}
