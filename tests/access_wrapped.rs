//! An access log read through the wrappers containers and log shippers put around each line
//! gives the rows the plain log gives: the README's nginx sample (`samples/nginx-incident.log`)
//! wrapped as Docker json-file, CRI with its long lines split into `P` parts, `kubectl logs
//! --timestamps`, syslog RFC 3164 and 5424, Filebeat, Logstash, Vector, Fluent Bit, journald
//! `docker compose logs` and OTLP JSON (the OpenTelemetry Collector's file exporter, one
//! record per export or batches of them) lists exactly the rate-limited rows of the plain file
//! (every field but the line number, which counts the wrapped file's lines), and the report
//! says what was removed.

mod common;
use common::wrappers::{self, ALL};
use common::*;
use serde_json::Value;

/// A report's rate-limited rows without what depends on the file's own lines.
fn rows(report: &Value) -> Vec<Value> {
    report["rate_limited"]
        .as_array()
        .expect("rate_limited")
        .iter()
        .map(|r| {
            let mut r = r.clone();
            let o = r.as_object_mut().expect("a row is an object");
            o.remove("line");
            o.remove("source");
            r
        })
        .collect()
}

#[test]
fn a_wrapped_nginx_log_gives_the_plain_logs_rows() {
    let plain_path = sample("nginx-incident.log");
    let plain_text = std::fs::read_to_string(&plain_path).expect("the sample");
    let plain = analyze_json(&plain_path);
    let want = rows(&plain);
    assert!(want.len() > 100, "the sample has its 429s: {}", want.len());
    let dir = tempfile::tempdir().expect("tmp");
    for (name, wrap) in ALL {
        let path = write(
            dir.path(),
            &format!("{name}.log"),
            wrappers::wrap_all(&plain_text, *wrap).as_bytes(),
        );
        let got = analyze_json(&path);
        let input = &got["inputs"][0];
        assert_eq!(input["format"], plain["inputs"][0]["format"], "{name}");
        assert!(
            input["unwrapped"].as_str().is_some_and(|u| !u.is_empty()),
            "{name}: the report says what was unwrapped: {input}"
        );
        assert_eq!(input["records"], plain["inputs"][0]["records"], "{name}");
        assert_eq!(input["warning_count"], 0, "{name}: {input}");
        let got_rows = rows(&got);
        assert_eq!(got_rows.len(), want.len(), "{name}: rate-limited rows");
        for (i, (g, w)) in got_rows.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "{name}: row {i} differs");
        }
    }
}

#[test]
fn the_wrappers_time_and_host_fill_in_what_the_line_lacks() {
    // A Tomcat-style line without a time or a host, inside RFC 5424 syslog.
    let dir = tempfile::tempdir().expect("tmp");
    let text = "<190>1 2026-12-03T10:00:05.250Z web-7 tomcat 12 - - 10.0.0.9 - - \"GET /v1/items HTTP/1.1\" 429 12 4.386\n";
    let path = write(dir.path(), "syslog.log", text.as_bytes());
    let r = analyze_json(&path);
    let row = &r["rate_limited"][0];
    assert_eq!(row["time"], "2026-12-03T10:00:05.250Z", "{row}");
    assert_eq!(row["url"], "//web-7/v1/items", "{row}");
    assert_eq!(r["inputs"][0]["unwrapped"], "syslog");
}

#[test]
fn cri_parts_are_joined_across_the_readers_blocks() {
    // Enough lines that the reader cuts the input into several blocks, every line split in
    // three CRI parts: a cut between parts would lose lines.
    let line = |i: usize| {
        format!(
            "10.0.0.{} - - [03/Dec/2026:10:00:{:02} +0000] \"GET /v1/items/{i}?q={} HTTP/1.1\" {} 512 \"-\" \"curl/8.5.0\"",
            i % 250,
            i % 60,
            "x".repeat(i % 97),
            if i.is_multiple_of(7) { 429 } else { 200 }
        )
    };
    let n = 40_000;
    let plain: String = (0..n).map(|i| line(i) + "\n").collect();
    let dir = tempfile::tempdir().expect("tmp");
    let path = write(
        dir.path(),
        "cri.log",
        wrappers::wrap_all(&plain, wrappers::cri).as_bytes(),
    );
    for threads in ["1", "2"] {
        let r = analyze_json_with(&[&path, "--threads", threads]);
        assert_eq!(r["inputs"][0]["records"], n, "{}", r["inputs"][0]);
        assert_eq!(r["inputs"][0]["warning_count"], 0);
        assert_eq!(r["summary"]["rate_limited"], n.div_ceil(7));
    }
}

#[test]
fn an_otlp_file_export_of_batched_records_gives_the_plain_logs_rows() {
    let plain_path = sample("nginx-incident.log");
    let plain_text = std::fs::read_to_string(&plain_path).expect("the sample");
    let plain = analyze_json(&plain_path);
    let lines: Vec<&str> = plain_text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect();
    // Batches of 37 records per export line, as the collector's batch processor sends them.
    let text: String = lines
        .chunks(37)
        .enumerate()
        .map(|(k, batch)| wrappers::otlp_export(batch, k * 37) + "\n")
        .collect();
    let dir = tempfile::tempdir().expect("tmp");
    let path = write(dir.path(), "otel-file-exporter.json", text.as_bytes());
    let got = analyze_json(&path);
    let input = &got["inputs"][0];
    assert_eq!(input["format"], plain["inputs"][0]["format"], "{input}");
    assert_eq!(
        input["unwrapped"], "OpenTelemetry OTLP JSON logs",
        "{input}"
    );
    assert_eq!(input["records"], plain["inputs"][0]["records"], "{input}");
    assert_eq!(input["warning_count"], 0, "{input}");
    assert_eq!(rows(&got), rows(&plain));
}
