//! Trace exports read with no flag: the OpenTelemetry Python SDK's OTLP/JSON file (a committed
//! fixture; `tests/e2e_traces.rs` makes a fresh one) and the same spans as Jaeger JSON. Every
//! 429 span is a rate-limited row with its span id, every service a client, and the SDK × app
//! retries a `nested_retries` finding whose evidence is span ids of the export.

mod common;
#[path = "common/traces.rs"]
mod traces;

use common::*;
use serde_json::Value;

const SDK_EXPORT: &str = "traces/python-sdk-requests.otlp.jsonl";

fn analyze_json(path: &str) -> Value {
    let out = toomany()
        .args(["analyze", path, "--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success() || out.status.code() == Some(1),
        "{out:?}"
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)))
}

#[test]
fn an_sdk_otlp_export_is_read_with_no_flag() {
    let path = fixture(SDK_EXPORT);
    let otlp = std::fs::read_to_string(&path).unwrap();
    let report = analyze_json(&path);
    traces::assert_trace_report(&report, &otlp, "otlp");
    let t = &report["inputs"][0]["traces"];
    assert_eq!(
        t["spans"].as_u64().unwrap() as usize,
        traces::otlp_spans(&otlp).len()
    );
    assert!(t["lacks"][0]
        .as_str()
        .unwrap()
        .contains("no response bodies"));
    assert!(t["response_headers"]
        .as_array()
        .unwrap()
        .iter()
        .any(|h| h == "retry-after"));
}

#[test]
fn the_same_spans_as_jaeger_json_give_the_same_answers() {
    let otlp = std::fs::read_to_string(fixture(SDK_EXPORT)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trace.json");
    std::fs::write(&path, traces::otlp_to_jaeger(&otlp)).unwrap();
    let report = analyze_json(path.to_str().unwrap());
    traces::assert_trace_report(&report, &otlp, "jaeger");
    let o = analyze_json(&fixture(SDK_EXPORT));
    for k in ["requests", "rate_limited", "by_status"] {
        assert_eq!(report["summary"][k], o["summary"][k], "{k}");
    }
}

#[test]
fn the_protocols_own_example_is_read_and_has_no_http_span() {
    // One pretty-printed document with one SERVER span and no HTTP attribute: read, counted,
    // and said plainly (nothing to analyse is an error, exit 2).
    let out = toomany()
        .args([
            "analyze",
            &fixture("traces/opentelemetry-proto-example-trace.json"),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no HTTP spans: the otlp export holds no CLIENT or SERVER span"),
        "{err}"
    );
}

/// `--input-format otlp` and `--input-format jaeger` are accepted on the command line and give
/// what sniffing gives; a trace format forced onto the other encoding is not read as it.
#[test]
fn trace_formats_can_be_named_with_input_format() {
    let otlp = std::fs::read_to_string(fixture(SDK_EXPORT)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let jaeger = dir.path().join("trace.json");
    std::fs::write(&jaeger, traces::otlp_to_jaeger(&otlp)).unwrap();
    let sniffed = analyze_json(&fixture(SDK_EXPORT));
    for (path, name) in [
        (fixture(SDK_EXPORT), "otlp"),
        (jaeger.to_str().unwrap().to_string(), "jaeger"),
    ] {
        let out = toomany()
            .args(["analyze", &path, "--input-format", name, "--format", "json"])
            .output()
            .unwrap();
        assert!(
            out.status.success() || out.status.code() == Some(1),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["inputs"][0]["format"], name, "{v}");
        for k in ["requests", "rate_limited"] {
            assert_eq!(v["summary"][k], sniffed["summary"][k], "{name}: {k}");
        }
    }
}
