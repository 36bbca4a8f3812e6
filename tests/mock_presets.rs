//! `toomany mock --preset` as a real process on loopback, end to end: for every preset a burst
//! over its limit gets the provider's refusal, `analyze` on the mock's log names that vendor and
//! kind of limit, and `verify` reads the same log. Also: a token budget refuses by tokens, a
//! client that hangs up mid-hold frees its slot and is logged, and seeded faults.
//! Every loop is bounded; every mock stops by --exit-after or SIGTERM.

mod common;
#[path = "common/mock.rs"]
mod mockkit;
use common::{json_of, toomany};
use mockkit::{header, log_lines, request, request_with_body, tmp_log, Mock, Reply};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::Duration;
use toomany::mock::preset::PRESETS;

/// How to run a preset out in a few requests: `--limit` overrides that keep its shape, the
/// request to repeat, how many, and the kind of limit the refusals must be attributed to.
struct Burst {
    preset: &'static str,
    overrides: &'static [&'static str],
    method: &'static str,
    body: &'static str,
    requests: usize,
    quota: &'static str,
}

const BURSTS: &[Burst] = &[
    Burst {
        preset: "github",
        overrides: &["3/h"],
        method: "GET",
        body: "",
        requests: 5,
        quota: "rate",
    },
    // Writes cost 5 points: the third POST is over 10 points a minute.
    Burst {
        preset: "github-secondary",
        overrides: &["points=10/h"],
        method: "POST",
        body: "{}",
        requests: 4,
        quota: "rate",
    },
    Burst {
        preset: "openai",
        overrides: &["tokens=1000/h,burst=1000"],
        method: "POST",
        body: r#"{"model":"gpt-4o-mini","max_tokens":400}"#,
        requests: 4,
        quota: "tokens",
    },
    Burst {
        preset: "anthropic",
        overrides: &["output-tokens=1000/h,burst=1000"],
        method: "POST",
        body: r#"{"model":"claude-sonnet-4-5","max_tokens":400}"#,
        requests: 4,
        quota: "tokens",
    },
    Burst {
        preset: "stripe",
        overrides: &["3/h,burst=3"],
        method: "POST",
        body: "amount=100",
        requests: 5,
        quota: "rate",
    },
    Burst {
        preset: "shopify",
        overrides: &["2/h,burst=3"],
        method: "GET",
        body: "",
        requests: 5,
        quota: "rate",
    },
    Burst {
        preset: "slack",
        overrides: &["3/h"],
        method: "POST",
        body: "",
        requests: 5,
        quota: "rate",
    },
    Burst {
        preset: "google",
        overrides: &["3/h"],
        method: "GET",
        body: "",
        requests: 5,
        quota: "rate",
    },
    Burst {
        preset: "aws-api-gateway",
        overrides: &["3/h,burst=3"],
        method: "GET",
        body: "",
        requests: 5,
        quota: "rate",
    },
    Burst {
        preset: "azure-apim",
        overrides: &["3/h"],
        method: "GET",
        body: "",
        requests: 5,
        quota: "rate",
    },
    Burst {
        preset: "cloudflare-1015",
        overrides: &["3/h"],
        method: "GET",
        body: "",
        requests: 5,
        quota: "rate",
    },
    // A whole spec: no burst, so nothing is held.
    Burst {
        preset: "nginx",
        overrides: &["leaky-bucket:1/min"],
        method: "GET",
        body: "",
        requests: 3,
        quota: "rate",
    },
    Burst {
        preset: "envoy",
        overrides: &["3/h,burst=3"],
        method: "GET",
        body: "",
        requests: 5,
        quota: "rate",
    },
    Burst {
        preset: "kong",
        overrides: &["3/h"],
        method: "GET",
        body: "",
        requests: 5,
        quota: "rate",
    },
];

fn plan(dir: &Path) -> std::path::PathBuf {
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

fn run_burst(b: &Burst, log: &Path) -> Vec<Reply> {
    let mut args = vec!["--preset", b.preset, "--exit-after"];
    let n = b.requests.to_string();
    args.push(&n);
    for o in b.overrides {
        args.extend(["--limit", o]);
    }
    args.extend(["--log", log.to_str().unwrap()]);
    let m = Mock::start(&args);
    let answers = (0..b.requests)
        .map(|i| {
            request_with_body(
                &m.addr(),
                b.method,
                &format!("/v1/items/{i}"),
                &[
                    ("Authorization", "Bearer sk-test-0123456789abcdef0123"),
                    ("Content-Type", "application/json"),
                ],
                b.body,
            )
        })
        .collect();
    m.wait();
    answers
}

#[test]
fn every_preset_round_trips_through_analyze_and_verify() {
    let listed: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
    let tested: Vec<&str> = BURSTS.iter().map(|b| b.preset).collect();
    assert_eq!(
        listed, tested,
        "every preset has a burst here, in table order"
    );
    let dir = tempfile::tempdir().unwrap();
    let plan = plan(dir.path());
    for b in BURSTS {
        let p = PRESETS.iter().find(|p| p.name == b.preset).unwrap();
        let log = dir.path().join(format!("{}.jsonl", b.preset));
        let answers = run_burst(b, &log);
        let refused: Vec<_> = answers.iter().filter(|a| a.0 == p.status).collect();
        assert!(
            !refused.is_empty(),
            "{}: no refusal in {answers:?}",
            b.preset
        );
        assert_eq!(answers[0].0, 200, "{}", b.preset);
        // The provider's own refusal, as the preset documents it.
        let (_, h, body) = refused[0];
        for (name, _) in p.every.iter().chain(p.refusal) {
            let n = name.to_ascii_lowercase();
            assert!(header(h, &n).is_some(), "{}: no {n} in {h:?}", b.preset);
        }
        assert!(!body.is_empty() || p.body.is_empty(), "{}", b.preset);
        let lines = log_lines(&log);
        assert_eq!(
            lines.len(),
            b.requests,
            "{}: every request is logged",
            b.preset
        );
        assert!(lines.iter().all(|l| l["preset"] == b.preset));
        // analyze names the vendor and the kind of limit.
        let out = toomany()
            .args(["analyze", log.to_str().unwrap(), "--format", "json"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let v = json_of(&out);
        assert_eq!(v["inputs"][0]["warning_count"], 0, "{}: {v}", b.preset);
        let limited = v["rate_limited"].as_array().unwrap();
        assert_eq!(limited.len(), refused.len(), "{}: {v}", b.preset);
        for r in limited {
            assert_eq!(
                (
                    r["vendor"].as_str(),
                    r["layer"].as_str(),
                    r["quota"].as_str()
                ),
                (Some(p.vendor), Some(p.layer.as_str()), Some(b.quota)),
                "{}: {}",
                b.preset,
                r["evidence"]
            );
        }
        // verify reads the same log (it may judge the burst; it must not fail to read it).
        let out = toomany()
            .arg("verify")
            .arg(&log)
            .arg("--plan")
            .arg(&plan)
            .args(["--format", "json"])
            .output()
            .unwrap();
        assert!(
            matches!(out.status.code(), Some(0) | Some(1)),
            "{}: {}",
            b.preset,
            String::from_utf8_lossy(&out.stderr)
        );
        let v = json_of(&out.stdout);
        assert_eq!(v["attempts"], b.requests as u64, "{}: {v}", b.preset);
    }
}

#[test]
fn a_token_budget_refuses_by_tokens_with_the_providers_headers() {
    let (_d, log) = tmp_log();
    let m = Mock::start(&[
        "--preset",
        "openai",
        "--limit",
        "tokens=1000/h,burst=1000",
        "--exit-after",
        "4",
        "--log",
        log.to_str().unwrap(),
    ]);
    let key = [("Authorization", "Bearer sk-test-0123456789abcdef0123")];
    let big = r#"{"model":"gpt-4o-mini","max_tokens":600}"#;
    let small = r#"{"model":"gpt-4o-mini","max_tokens":300}"#;
    let a = request_with_body(&m.addr(), "POST", "/v1/chat/completions", &key, big);
    let b = request_with_body(&m.addr(), "POST", "/v1/chat/completions", &key, big);
    let c = request_with_body(&m.addr(), "POST", "/v1/chat/completions", &key, small);
    // Another key has its own budget.
    let other = [("Authorization", "Bearer sk-test-other-key-000000000000")];
    let d = request_with_body(&m.addr(), "POST", "/v1/chat/completions", &other, big);
    m.wait();
    assert_eq!((a.0, b.0, c.0, d.0), (200, 429, 200, 200));
    assert_eq!(header(&a.1, "x-ratelimit-remaining-tokens"), Some("400"));
    assert_eq!(header(&a.1, "x-ratelimit-limit-requests"), Some("60"));
    // Refused by tokens while requests remain.
    assert_eq!(header(&b.1, "x-ratelimit-remaining-tokens"), Some("400"));
    assert_eq!(header(&b.1, "x-ratelimit-remaining-requests"), Some("59"));
    assert!(header(&b.1, "x-ratelimit-reset-tokens")
        .unwrap()
        .ends_with('s'));
    assert!(
        b.2.contains("on tokens per min (TPM): Limit 1000, Used 600, Requested 600"),
        "{}",
        b.2
    );
    assert!(b.2.contains("\"type\":\"tokens\""));
    assert_eq!(header(&c.1, "x-ratelimit-remaining-tokens"), Some("100"));
    let lines = log_lines(&log);
    assert_eq!(lines[1]["limiter"]["limit"], "tokens");
    assert_eq!(lines[1]["limiter"]["limits"][1]["cost"], 600);
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        !text.contains("sk-test-0123456789abcdef0123"),
        "keys are redacted"
    );
}

/// Open a request and hang up before the mock answers.
fn hang_up(addr: &str) {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET /slow HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 0\r\n\r\n"
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    drop(s);
}

#[test]
fn clients_that_hang_up_mid_hold_free_their_slots_and_are_logged() {
    let (_d, log) = tmp_log();
    let m = Mock::start(&[
        "--limit",
        "concurrency:2",
        "--latency",
        "2s",
        "--log",
        log.to_str().unwrap(),
    ]);
    let addr = m.addr();
    // Two clients take both slots and leave while the mock holds them.
    let t: Vec<_> = (0..2)
        .map(|_| {
            let a = addr.clone();
            std::thread::spawn(move || hang_up(&a))
        })
        .collect();
    t.into_iter().for_each(|t| t.join().unwrap());
    // The slots are free again: two more are admitted (each held the 2 s latency).
    std::thread::sleep(Duration::from_millis(200));
    let t: Vec<_> = (0..2)
        .map(|_| {
            let a = addr.clone();
            std::thread::spawn(move || request(&a, "GET", "/after", &[]).0)
        })
        .collect();
    let statuses: Vec<u16> = t.into_iter().map(|t| t.join().unwrap()).collect();
    assert_eq!(statuses, [200, 200]);
    let err = m.terminate();
    assert!(err.contains("2 abandoned by the client"), "{err}");
    let lines = log_lines(&log);
    assert_eq!(lines.len(), 4);
    let abandoned: Vec<_> = lines.iter().filter(|l| l["abandoned"] == true).collect();
    assert_eq!(abandoned.len(), 2);
    for l in abandoned {
        assert_eq!(l["status"], 499);
        assert_eq!(l["limiter"]["decision"], "admitted");
    }
}

#[test]
fn faults_are_seeded_and_reproducible() {
    let run = |seed: &str| {
        let (_d, log) = tmp_log();
        let m = Mock::start(&[
            "--limit",
            "fixed-window:1000/h",
            "--fault",
            "503=20%",
            "--fault",
            "503=20%:30s",
            "--fault",
            "truncate=20%",
            "--fault",
            "reset=20%",
            "--retry-after",
            "date",
            "--seed",
            seed,
            "--exit-after",
            "20",
            "--log",
            log.to_str().unwrap(),
        ]);
        let mut seen = Vec::new();
        for i in 0..20 {
            let mut s = TcpStream::connect(m.addr()).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
            write!(
                s,
                "GET /r/{i} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            )
            .unwrap();
            let mut raw = Vec::new();
            let got = s.read_to_end(&mut raw);
            seen.push((
                got.is_err() || raw.is_empty(),
                String::from_utf8_lossy(&raw).to_string(),
            ));
        }
        m.wait();
        (seen, log_lines(&log))
    };
    let (a, la) = run("7");
    let (b, lb) = run("7");
    let faults = |l: &[serde_json::Value]| l.iter().map(|x| x["fault"].clone()).collect::<Vec<_>>();
    assert_eq!(
        faults(&la),
        faults(&lb),
        "the same seed gives the same faults"
    );
    assert_eq!(
        a.iter().map(|x| x.0).collect::<Vec<_>>(),
        b.iter().map(|x| x.0).collect::<Vec<_>>()
    );
    for (i, l) in la.iter().enumerate() {
        let (dropped, raw) = &a[i];
        match l["fault"].as_str() {
            Some("reset") => {
                assert!(*dropped, "a reset connection gets no answer: {raw}");
                assert_eq!(l["status"], 0);
            }
            Some("503") => {
                assert!(
                    raw.starts_with("HTTP/1.1 503")
                        && !raw.to_ascii_lowercase().contains("retry-after"),
                    "{raw}"
                )
            }
            Some("503-retry-after") => {
                assert!(
                    raw.starts_with("HTTP/1.1 503") && raw.contains(" GMT\r\n"),
                    "{raw}"
                );
                assert!(raw.to_ascii_lowercase().contains("retry-after: "), "{raw}");
            }
            Some("truncate") => {
                let (head, body) = raw.split_once("\r\n\r\n").unwrap();
                let len: usize = head
                    .lines()
                    .find_map(|h| {
                        h.to_ascii_lowercase()
                            .strip_prefix("content-length: ")
                            .map(|v| v.trim().parse().unwrap())
                    })
                    .unwrap();
                assert!(body.len() < len, "{raw}");
            }
            None => assert!(raw.starts_with("HTTP/1.1 200"), "{raw}"),
            other => panic!("{other:?}"),
        }
    }
    let kinds: std::collections::HashSet<_> =
        la.iter().filter_map(|l| l["fault"].as_str()).collect();
    assert!(
        kinds.len() >= 3,
        "20 draws at 20% each show most kinds: {kinds:?}"
    );
}

#[test]
fn list_presets_names_each_with_its_limits_and_sources() {
    let out = toomany()
        .args(["mock", "--list-presets"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    for p in PRESETS {
        assert!(text.contains(&format!("{}\n", p.name)), "{}", p.name);
    }
    assert!(
        text.contains("--limit tokens=token-bucket:150000/min,burst=150000"),
        "{text}"
    );
    assert!(text.contains("source: https://platform.openai.com/docs/guides/rate-limits"));
    toomany()
        .args(["mock", "--preset", "nope"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "presets: github, github-secondary",
        ));
    toomany()
        .args(["mock", "--preset", "openai", "--limit", "5/min"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("write NAME=RATE"));
    toomany()
        .args(["mock", "--preset", "openai", "--headers", "ietf"])
        .assert()
        .code(2);
}
