//! Secret shapes beyond the stated policy: one example of each rule of gitleaks' default
//! configuration (tests/fixtures/secret-shapes, with its source), each planted where a real log
//! carries such things under names that say nothing: a free-text body, a custom header's value,
//! a query parameter and a JSON body field. Every subcommand and format runs over them, as
//! tests/canary.rs does; a shape leaks when its secret (or the last two thirds of it) reaches
//! any output. The bar (issue 41): at most 20 shapes leak.

mod common;
use common::*;
use std::path::Path;

/// Shapes that may leak, at most.
const BAR: usize = 20;

struct Shape {
    rule: String,
    text: String,
    secret: String,
}

fn shapes() -> Vec<Shape> {
    let text = std::fs::read_to_string(fixture("secret-shapes/shapes.jsonl")).unwrap();
    text.lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let s = |k: &str| v[k].as_str().unwrap().to_string();
            Shape {
                rule: s("rule"),
                text: s("text"),
                secret: s("secret"),
            }
        })
        .collect()
}

/// Every byte but the unreserved ones, percent-encoded (as a client builds a query).
fn percent(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Where a shape is planted.
#[derive(Clone, Copy, Debug)]
enum Place {
    BodyText,
    Header,
    Query,
    JsonField,
}

const PLACES: [Place; 4] = [
    Place::BodyText,
    Place::Header,
    Place::Query,
    Place::JsonField,
];

/// One rate-limited record per shape, the shape planted at `place`.
fn jsonl(shapes: &[Shape], place: Place) -> String {
    let mut out = String::new();
    for (i, s) in shapes.iter().enumerate() {
        let mut url = format!("https://api.example.com/v1/items/{i}?page=2");
        let mut headers =
            serde_json::json!({"Retry-After": "3", "Content-Type": "application/json"});
        let mut body = r#"{"error":"rate limited"}"#.to_string();
        match place {
            Place::BodyText => body = format!("upstream said: {} (retry later)", s.text),
            Place::Header => headers["X-Upstream-Note"] = s.text.clone().into(),
            Place::Query => url.push_str(&format!("&ref={}", percent(&s.text))),
            Place::JsonField => {
                body = serde_json::json!({"error": {"code": "rate_limited", "detail": s.text}})
                    .to_string()
            }
        }
        let line = serde_json::json!({
            "time": format!("2026-01-01T00:{:02}:{:02}.000Z", i / 60, i % 60),
            "method": "GET",
            "url": url,
            "status": 429,
            "duration_ms": 40,
            "client": format!("worker-{}", i % 3),
            "response_headers": headers,
            "response_body": body,
        });
        out.push_str(&line.to_string());
        out.push('\n');
    }
    out
}

/// Every output of every subcommand over `input` (a file in `d`): stdout, stderr and the files
/// written, concatenated.
fn everything(d: &Path, input: &str) -> String {
    let mut all = Vec::new();
    let mut run = |args: &[&str]| {
        let out = toomany().args(args).current_dir(d).output().unwrap();
        assert!(out.status.code().is_some());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("Usage:"), "{args:?}: {err}");
        all.extend_from_slice(&out.stdout);
        all.extend_from_slice(&out.stderr);
    };
    for fmt in ["table", "json", "markdown", "html", "csv", "ndjson"] {
        run(&["analyze", input, "--format", fmt, "--all"]);
    }
    run(&["redact", input, "-o", "-"]);
    run(&["redact", input, "-o", "redacted.jsonl"]);
    run(&["check", input, "--format", "json"]);
    run(&["check", input]);
    run(&[
        "analyze",
        input,
        "--limit",
        "120/min",
        "--emit-config",
        "cfg",
    ]);
    run(&[
        "verify",
        input,
        "--plan",
        "cfg/toomany.toml",
        "--format",
        "json",
    ]);
    for f in ["redacted.jsonl", "cfg/toomany.toml"] {
        all.extend(std::fs::read(d.join(f)).unwrap_or_default());
    }
    String::from_utf8_lossy(&all).into_owned()
}

/// Does `out` show `secret`, whole or its last two thirds, as it is or percent-encoded?
fn shows(out: &str, secret: &str) -> bool {
    let cut = secret.len() / 3;
    let core = secret.get(cut..).filter(|c| c.len() >= 8).unwrap_or(secret);
    [secret, core]
        .iter()
        .any(|s| out.contains(s) || out.contains(&percent(s)))
}

#[test]
fn at_most_twenty_secret_shapes_beyond_the_policy_leak() {
    let shapes = shapes();
    assert!(shapes.len() >= 200, "{} shapes", shapes.len());
    let mut leaked: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for place in PLACES {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("shapes.jsonl"), jsonl(&shapes, place)).unwrap();
        let out = everything(d.path(), "shapes.jsonl");
        // The run read the records: every one is listed.
        assert!(out.contains("/v1/items/0?"), "{place:?}: no report");
        for s in &shapes {
            if shows(&out, &s.secret) {
                leaked
                    .entry(s.rule.clone())
                    .or_default()
                    .push(format!("{place:?}"));
            }
        }
    }
    let list: Vec<String> = leaked
        .iter()
        .map(|(rule, at)| format!("{rule} ({})", at.join(", ")))
        .collect();
    eprintln!(
        "{} of {} shapes leak: {}",
        leaked.len(),
        shapes.len(),
        list.join("; ")
    );
    assert!(
        leaked.len() <= BAR,
        "{} of {} shapes leak (bar {BAR}): {}",
        leaked.len(),
        shapes.len(),
        list.join("; ")
    );
}
