//! `toomany analyze`: report contract, inputs, exit codes.

mod common;
use common::*;
use std::io::Write;

#[test]
fn json_report_has_schema_and_the_samples_429s() {
    let out = toomany()
        .args(["analyze", &sample("cdn-burst.har"), "--format", "json"])
        .assert()
        .success();
    let v = json_of(&out.get_output().stdout);
    let obj = v.as_object().unwrap();
    assert_eq!(
        obj.keys().next().map(String::as_str),
        Some("schema_version"),
        "schema_version comes first"
    );
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["inputs"][0]["format"], "har");
    assert_eq!(v["inputs"][0]["records"], 67);
    assert_eq!(v["summary"]["requests"], 67);
    assert_eq!(v["summary"]["by_status"]["429"], 20);
    let rl = v["rate_limited"].as_array().unwrap();
    assert_eq!(rl.len(), 20);
    for r in rl {
        assert_eq!(r["status"], 429);
        assert!(
            r["entry"].as_u64().is_some(),
            "HAR records carry their entry index"
        );
        assert!(r["source"].as_str().unwrap().ends_with("cdn-burst.har"));
        assert_eq!(r["retry_after"]["raw"], "30");
        assert!(r["time"]
            .as_str()
            .unwrap()
            .starts_with("2026-11-03T14:02:0"));
        assert!(r["url"]
            .as_str()
            .unwrap()
            .starts_with("https://api.shop.example.com/"));
    }
}

#[test]
fn jsonl_records_carry_line_numbers() {
    let out = toomany()
        .args(["analyze", &sample("api-incident.jsonl"), "--format", "json"])
        .assert()
        .success();
    let v = json_of(&out.get_output().stdout);
    assert_eq!(v["inputs"][0]["format"], "jsonl");
    let first = &v["rate_limited"][0];
    assert!(first["line"].as_u64().unwrap() >= 1);
    assert!(first.get("entry").is_none());
}

#[test]
fn table_is_default_and_lists_429s() {
    let out = toomany()
        .args(["analyze", &sample("cdn-burst.har")])
        .assert()
        .success();
    let s = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(s.contains("Rate-limited responses"));
    assert!(s.contains("20 rate-limited responses"));
    assert!(s.contains("entry 47"));
    assert!(
        !s.contains('\u{1b}'),
        "no colour escapes when not a terminal"
    );
}

#[test]
fn stdin_and_gzip_and_many_files() {
    let tmp = tempfile::tempdir().unwrap();
    let raw = std::fs::read(sample("cdn-burst.har")).unwrap();
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(&raw).unwrap();
    let gz = write(tmp.path(), "capture.har.gz", &enc.finish().unwrap());
    let out = toomany()
        .args([
            "analyze",
            "-",
            &gz,
            &sample("api-incident.jsonl"),
            "--format",
            "json",
        ])
        .write_stdin(raw)
        .assert()
        .success();
    let v = json_of(&out.get_output().stdout);
    let inputs = v["inputs"].as_array().unwrap();
    assert_eq!(inputs.len(), 3);
    assert_eq!(inputs[0]["source"], "-");
    assert_eq!(inputs[0]["records"], 67);
    assert_eq!(inputs[1]["records"], 67);
    assert_eq!(
        v["summary"]["requests"],
        67 * 2 + inputs[2]["records"].as_u64().unwrap()
    );
}

#[test]
fn output_file_is_written_and_input_never_overwritten() {
    let tmp = tempfile::tempdir().unwrap();
    let out_path = tmp.path().join("report.json");
    toomany()
        .args([
            "analyze",
            &sample("cdn-burst.har"),
            "-o",
            out_path.to_str().unwrap(),
        ])
        .assert()
        .success()
        .stdout("");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&out_path).unwrap()).unwrap();
    assert_eq!(v["schema_version"], 1, "format follows the .json extension");
    let input = write(
        tmp.path(),
        "in.har",
        &std::fs::read(sample("cdn-burst.har")).unwrap(),
    );
    toomany()
        .args(["analyze", &input, "-o", &input])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "refusing to write over the input",
        ));
    assert_eq!(
        std::fs::read(&input).unwrap(),
        std::fs::read(sample("cdn-burst.har")).unwrap()
    );
}

#[test]
fn bad_limit_names_accepted_forms() {
    toomany()
        .args([
            "analyze",
            &sample("cdn-burst.har"),
            "--limit",
            "12/fortnight",
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("accepted forms"));
}

#[test]
fn missing_file_is_exit_2_with_its_name() {
    toomany()
        .args(["analyze", "no/such/file.har"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no/such/file.har"));
}

#[test]
fn output_does_not_depend_on_thread_count() {
    let run = |threads: &str| {
        let out = toomany()
            .env("RAYON_NUM_THREADS", threads)
            .args([
                "analyze",
                &sample("cdn-burst.har"),
                &sample("api-incident.jsonl"),
                "--format",
                "json",
                "--fingerprint-key-file",
            ])
            .arg(repo().join("tests/fixtures/fingerprint.key"))
            .assert()
            .success();
        out.get_output().stdout.clone()
    };
    assert_eq!(run("1"), run("4"));
}

#[test]
fn markdown_report_has_every_section_and_a_table_per_429() {
    let out = toomany()
        .args(["analyze", &sample("cdn-burst.har"), "--format", "markdown"])
        .assert()
        .success();
    let md = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    for heading in [
        "# toomany report",
        "## Inputs",
        "## Findings",
        "## Recommendation for api.shop.example.com",
        "## Rate-limited responses",
    ] {
        assert!(md.contains(heading), "missing {heading}:\n{md}");
    }
    let rows = md
        .lines()
        .filter(|l| l.starts_with("| 14:02:0") && l.contains("| 429 |"))
        .count();
    assert_eq!(rows, 20);
    assert!(
        md.contains("| cdn | cloudflare | rate | 99 % | 30 s |"),
        "{md}"
    );
    assert!(
        md.contains("&lt;redacted:"),
        "redacted tokens are escaped, not swallowed as HTML"
    );
    // -o FILE.md picks Markdown.
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("r.md");
    toomany()
        .args([
            "analyze",
            &sample("cdn-burst.har"),
            "-o",
            p.to_str().unwrap(),
        ])
        .assert()
        .success();
    assert!(std::fs::read_to_string(&p)
        .unwrap()
        .starts_with("# toomany report"));
}
