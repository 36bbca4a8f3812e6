//! The report people read (issue 13): verdict first, terminal width, colour, snapshots.

mod common;
use common::*;
use unicode_width::UnicodeWidthStr;

const SAMPLES: [&str; 4] = [
    "api-incident.jsonl",
    "batch-burst.jsonl",
    "cdn-burst.har",
    "retry-storm.jsonl",
];

/// `analyze` of a sample with a fixed fingerprint key (stable credential fingerprints), with
/// `COLUMNS` set and stdout a pipe.
fn table(sample_name: &str, columns: &str, extra: &[&str]) -> String {
    let out = toomany()
        .env("COLUMNS", columns)
        // Relative to the repository: a table truncates long paths, so an absolute path would
        // make the snapshot depend on where the checkout lives.
        .args(["analyze", &format!("samples/{sample_name}")])
        .args(["--fingerprint-key-file", "tests/fixtures/fingerprint.key"])
        .args(extra)
        .current_dir(repo())
        .assert()
        .success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

/// The output with the repository's absolute path replaced, so snapshots hold on any machine.
fn portable(s: &str) -> String {
    s.replace(&format!("{}/", repo().display()), "")
}

fn strip_ansi(s: &str) -> String {
    let mut out = String::new();
    let mut esc = false;
    for c in s.chars() {
        match (esc, c) {
            (false, '\u{1b}') => esc = true,
            (true, 'm') => esc = false,
            (true, _) => {}
            (false, c) => out.push(c),
        }
    }
    out
}

#[test]
fn the_verdict_comes_within_40_lines_at_80_columns() {
    let s = table("api-incident.jsonl", "80", &[]);
    let head: Vec<&str> = s.lines().take(40).collect();
    let head = head.join("\n");
    for needle in [
        "Who limited you: 120 rate-limited responses",
        "api.example.com: 120 of 240 requests: 120 × api (rate)",
        "Findings, most severe first",
        "[critical] ignored_retry_after:",
        "[warning] shared_key_contention:",
        "[warning] unsafe_retry:",
        "Recommendation for api.example.com: slow down",
        "target rate  90/min = 1.5/s (headroom 0.75)",
        "spacing      one start every 667 ms",
    ] {
        assert!(
            head.contains(needle),
            "{needle:?} not in the first 40 lines:\n{head}"
        );
    }
}

#[test]
fn no_line_is_wider_than_the_width_for_any_sample() {
    for name in SAMPLES {
        for cols in ["80", "100", "120"] {
            let s = table(name, cols, &["--all"]);
            let max: usize = cols.parse().unwrap();
            for (i, line) in s.lines().enumerate() {
                assert!(
                    UnicodeWidthStr::width(line) <= max,
                    "{name} at {cols}: line {} is {} wide:\n{line}",
                    i + 1,
                    UnicodeWidthStr::width(line)
                );
            }
        }
    }
}

#[test]
fn findings_are_sorted_most_severe_first() {
    // retry-storm's detectors emit a warning (retry_storm) before a critical.
    let s = table("retry-storm.jsonl", "200", &[]);
    let sev: Vec<&str> = s
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix('['))
        .filter_map(|l| l.split(']').next())
        .collect();
    assert!(sev.len() >= 3, "{s}");
    let rank = |s: &str| match s {
        "critical" => 0,
        "warning" => 1,
        _ => 2,
    };
    assert!(sev.windows(2).all(|w| rank(w[0]) <= rank(w[1])), "{sev:?}");
    assert_eq!(sev[0], "critical");
}

#[test]
fn colour_always_emits_ansi_and_never_or_a_pipe_does_not() {
    let always = table("cdn-burst.har", "80", &["--color", "always"]);
    assert!(always.contains("\u{1b}["), "--color always colours");
    // A critical finding in bold red, the CDN layer in magenta.
    assert!(
        always.contains("\u{1b}[1;31m[critical]\u{1b}[0m"),
        "{always}"
    );
    assert!(
        always.contains("\u{1b}[35mcdn/cloudflare\u{1b}[0m"),
        "{always}"
    );
    // Colour adds nothing a reader needs: without the escapes it is the plain report.
    assert_eq!(strip_ansi(&always), table("cdn-burst.har", "80", &[]));

    // A pipe (auto) has none, and NO_COLOR keeps auto off.
    let auto = toomany()
        .env_remove("NO_COLOR")
        .args(["analyze", &sample("cdn-burst.har")])
        .assert()
        .success();
    assert!(!String::from_utf8_lossy(&auto.get_output().stdout).contains('\u{1b}'));
    let never = table("cdn-burst.har", "80", &["--color", "never"]);
    assert!(!never.contains('\u{1b}'));
}

#[test]
fn columns_is_honoured_and_zero_is_ignored() {
    let wide = table("api-incident.jsonl", "200", &[]);
    assert!(wide.lines().any(|l| UnicodeWidthStr::width(l) > 120));
    let zero = table("api-incident.jsonl", "0", &[]);
    assert!(zero.lines().all(|l| UnicodeWidthStr::width(l) <= 80));
    assert_eq!(zero, table("api-incident.jsonl", "80", &[]));
}

#[test]
fn the_listing_is_capped_and_all_lists_every_response() {
    let capped = table("api-incident.jsonl", "120", &[]);
    assert!(capped.contains("Rate-limited responses (first 50 of 120)"));
    assert!(capped.contains("… 70 more not shown (--all lists every one"));
    let all = table("api-incident.jsonl", "120", &["--all"]);
    assert!(all.contains("Rate-limited responses (120)"));
    let rows = all
        .lines()
        .filter(|l| l.starts_with("14:02:") && l.contains(" 429 "))
        .count();
    assert_eq!(rows, 120);
}

#[test]
fn top_talkers_name_clients_and_credentials() {
    let s = table("retry-storm.jsonl", "120", &[]);
    assert!(s.contains("Top talkers: clients"), "{s}");
    assert!(s.contains("Top talkers: credentials"), "{s}");
    let md = table("retry-storm.jsonl", "120", &["--format", "markdown"]);
    assert!(md.contains("### Top talkers: clients"));
    assert!(md.contains("| client | requests | 429s | limited | credentials |"));
}

#[test]
fn grouped_rate_limited_responses_have_counts_ranges_and_an_example() {
    let md = table("batch-burst.jsonl", "80", &["--format", "markdown"]);
    let md = portable(&md);
    assert!(
        md.contains(
            "| api.llm.example | api | openai | daily | 22 | 14:01:26–14:03:00 | 87 % | 86400 s | samples/batch-burst.jsonl:285 |"
        ),
        "{md}"
    );
    assert!(md.contains("| api.example.com | api | — | rate | 12 | 14:00:20–14:01:01 |"));
}

#[test]
fn inputs_on_different_days_are_separate_windows_with_dates() {
    let out = toomany()
        .env("COLUMNS", "200")
        .args([
            "analyze",
            &sample("batch-burst.jsonl"),
            &sample("api-incident.jsonl"),
        ])
        .assert()
        .success();
    let s = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        s.starts_with("706 requests in 2 separate time windows"),
        "{s}"
    );
    assert!(s.contains(
        "2026-03-02 14:00:00 → 14:03:55 UTC (3 min 55 s): 466 requests, 34 rate-limited"
    ));
    assert!(
        s.contains("2026-11-03 14:02:05 → 14:02:32 UTC (26.9 s): 240 requests, 120 rate-limited")
    );
    // Listings carry the date when the report spans days.
    assert!(s.contains("11-03 14:02:26.745"), "{s}");
    // A burst is measured against the rate while the host was active, not averaged over the
    // eight months between the captures.
    assert!(!s.contains("sustained 0/min"), "{s}");
    assert!(
        s.contains("against a sustained 3.3/s while the host was active (2 time windows more than 1 h apart)"),
        "{s}"
    );
}

#[test]
fn snapshots_at_80_and_120_columns_with_and_without_colour() {
    for cols in ["80", "120"] {
        for color in ["never", "always"] {
            let s = portable(&table("api-incident.jsonl", cols, &["--color", color]));
            insta::assert_snapshot!(format!("api_incident_{cols}_{color}"), s);
        }
    }
    let s = portable(&table("batch-burst.jsonl", "80", &[]));
    insta::assert_snapshot!("batch_burst_80_never", s);
    let md = portable(&table("cdn-burst.har", "80", &["--format", "markdown"]));
    insta::assert_snapshot!("cdn_burst_markdown", md);
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = toomany().args(args).assert().success();
    json_of(&out.get_output().stdout)
}

#[test]
fn every_rate_limited_host_has_its_own_plan() {
    for name in SAMPLES {
        let v = json(&["analyze", &sample(name), "--format", "json"]);
        let limited: Vec<&str> = v["summary"]["hosts"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|h| h["rate_limited"].as_u64().unwrap() > 0)
            .map(|h| h["host"].as_str().unwrap())
            .collect();
        let plans: Vec<&str> = v["recommendations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["host"].as_str().unwrap())
            .collect();
        assert_eq!(
            plans, limited,
            "{name}: one plan per rate-limited host, busiest first"
        );
        assert_eq!(
            v["recommendation"], v["recommendations"][0],
            "{name}: principal first"
        );
    }
}

#[test]
fn batch_burst_gets_a_plan_for_each_host_with_its_own_limit() {
    let v = json(&["analyze", &sample("batch-burst.jsonl"), "--format", "json"]);
    let recs = v["recommendations"].as_array().unwrap();
    assert_eq!(recs.len(), 2);
    let (llm, api) = (&recs[0], &recs[1]);
    assert_eq!(llm["host"], "api.llm.example");
    assert_eq!(api["host"], "api.example.com");
    assert_ne!(
        llm["limit"]["rate_per_minute"],
        api["limit"]["rate_per_minute"]
    );
    // The server states the count (X-RateLimit-Limit: 100); the traffic gives the window.
    assert_eq!(api["limit"]["source"], "stated");
    assert_eq!(api["limit"]["stated_by"], "X-RateLimit-Limit: 100");
    // The principal says, in a sentence, that the other host has its own plan.
    let w = llm["warnings"][0].as_str().unwrap();
    assert_eq!(
        w,
        "2 hosts rate-limited the clients, each with its own allowance: api.llm.example (22 rate-limited responses) and api.example.com (12). This plan is for api.llm.example; each of the others has its own plan."
    );
    // A finding about one host does not steer another host's plan.
    let api_warnings = api["warnings"].to_string();
    assert!(api_warnings.contains("retries came back in step"));
    let llm_warnings = llm["warnings"].to_string();
    assert!(
        !llm_warnings.contains("retries came back in step"),
        "{llm_warnings}"
    );
    // The terminal report shows both plans in its verdict.
    let s = table("batch-burst.jsonl", "100", &[]);
    assert!(s.contains("Recommendation for api.llm.example: stop or reschedule"));
    assert!(s.contains("Recommendation for api.example.com:"));
}

#[test]
fn emit_config_writes_one_directory_per_host_or_the_one_named() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cfg");
    toomany()
        .args([
            "analyze",
            &sample("batch-burst.jsonl"),
            "--target",
            "envoy,urllib3",
        ])
        .arg("--emit-config")
        .arg(&dir)
        .assert()
        .success()
        .stderr(predicates::str::contains("2 hosts have their own plan"));
    for host in ["api.llm.example", "api.example.com"] {
        for f in ["envoy.yaml", "toomany_retry.py"] {
            assert!(dir.join(host).join(f).is_file(), "{host}/{f}");
        }
    }
    // Each host's file carries its own numbers (10/min vs 75/min targets).
    let llm = std::fs::read_to_string(dir.join("api.llm.example/toomany_retry.py")).unwrap();
    let api = std::fs::read_to_string(dir.join("api.example.com/toomany_retry.py")).unwrap();
    assert_ne!(llm, api);

    let one = tmp.path().join("one");
    toomany()
        .args(["analyze", &sample("batch-burst.jsonl"), "--target", "envoy"])
        .arg("--emit-config")
        .arg(&one)
        .args(["--host", "API.example.com"])
        .assert()
        .success();
    assert!(one.join("envoy.yaml").is_file());
    assert_eq!(std::fs::read_dir(&one).unwrap().count(), 1);

    let none = tmp.path().join("none");
    toomany()
        .args(["analyze", &sample("batch-burst.jsonl")])
        .arg("--emit-config")
        .arg(&none)
        .args(["--host", "nope.example"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "--host nope.example: no request to that host in the inputs; their hosts: api.llm.example, api.example.com",
        ));
    assert!(!none.exists(), "a refusal leaves no directory behind");
    // --host on its own narrows the plans to that host.
    let v = json(&[
        "analyze",
        &sample("batch-burst.jsonl"),
        "--host",
        "api.example.com",
        "--format",
        "json",
    ]);
    assert_eq!(v["recommendations"].as_array().unwrap().len(), 1);
    assert_eq!(v["recommendation"]["host"], "api.example.com");
}

#[test]
fn one_plan_still_writes_into_the_directory_itself() {
    let tmp = tempfile::tempdir().unwrap();
    toomany()
        .args(["analyze", &sample("cdn-burst.har"), "--target", "envoy"])
        .arg("--emit-config")
        .arg(tmp.path())
        .assert()
        .success();
    assert!(tmp.path().join("envoy.yaml").is_file());
}

#[test]
fn input_text_cannot_repaint_the_terminal() {
    // An escape sequence in a URL, a client name and a Retry-After value is shown as `?`.
    let tmp = tempfile::tempdir().unwrap();
    let esc = "\u{1b}[2J\u{1b}[31m";
    let mut log = String::new();
    for i in 0..20 {
        log.push_str(
            &serde_json::json!({
                "time": format!("2026-11-03T14:02:{:02}.000Z", i),
                "method": "GET",
                "url": format!("https://api.term.example/x{esc}/{i}"),
                "status": if i >= 10 { 429 } else { 200 },
                "client": format!("worker{esc}"),
                "response_headers": if i >= 10 { serde_json::json!({"Retry-After": format!("5{esc}")}) } else { serde_json::json!({}) },
            })
            .to_string(),
        );
        log.push('\n');
    }
    let input = write(tmp.path(), "term.jsonl", log.as_bytes());
    for fmt in ["table", "markdown"] {
        let out = toomany()
            .env("COLUMNS", "200")
            .args(["analyze", &input, "--format", fmt, "--all"])
            .assert()
            .success();
        let s = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
        assert!(
            !s.contains('\u{1b}'),
            "{fmt} passed an escape through:\n{s}"
        );
        assert!(s.contains("worker?[2J?[31m"), "{fmt}:\n{s}");
    }
}

#[test]
fn csv_export_has_one_row_per_rate_limited_response_and_python_reads_it() {
    let out = toomany()
        .args(["analyze", &sample("api-incident.jsonl"), "--format", "csv"])
        .assert()
        .success();
    let csv = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let mut lines = csv.split("\r\n");
    assert_eq!(
        lines.next().unwrap(),
        "source,entry,line,time,method,url,host,status,layer,vendor,quota,confidence,retry_after_seconds,retry_after_kind,client"
    );
    assert_eq!(
        csv.matches("\r\n").count(),
        1 + 120,
        "header + one row per 429"
    );
    // Python's csv module reads it: 120 rows, the columns a spreadsheet needs.
    let py = r#"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert len(rows) == 120, len(rows)
r = rows[0]
assert r["status"] == "429" and r["layer"] == "api" and r["quota"] == "rate", r
assert r["line"] == "121" and r["entry"] == "", r
assert r["retry_after_seconds"] == "12.0" and r["retry_after_kind"] == "delta", r
assert r["client"] == "billing-worker-1", r
assert r["url"].startswith("https://api.example.com/"), r
print("ok", len(rows))
"#;
    let tmp = tempfile::tempdir().unwrap();
    let file = write(tmp.path(), "r.csv", csv.as_bytes());
    match std::process::Command::new("python3")
        .args(["-c", py, &file])
        .output()
    {
        Ok(o) => assert!(
            o.status.success() && String::from_utf8_lossy(&o.stdout).starts_with("ok 120"),
            "python3 csv: {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(e) => common::skipped(
            &format!("the python3 csv check: cannot run python3: {e}"),
            &["TOOMANY_REQUIRE_E2E"],
        ),
    }
}

#[test]
fn ndjson_export_lines_parse_as_json_and_hold_no_secret() {
    let out = toomany()
        .args(["analyze", &sample("cdn-burst.har"), "--format", "ndjson"])
        .assert()
        .success();
    let s = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let rows: Vec<serde_json::Value> = s
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    assert_eq!(rows.len(), 20);
    let r = &rows[0];
    assert_eq!(r["entry"], 47, "HAR entries are 0-based indexes");
    assert_eq!(r["line"], serde_json::Value::Null);
    assert_eq!(r["layer"], "cdn");
    assert_eq!(r["vendor"], "cloudflare");
    assert_eq!(r["retry_after_seconds"], 30.0);
    // The URLs are the redacted ones: the sample's access tokens never appear.
    assert!(!s.contains("fake-at-"), "{s}");
    assert!(r["url"]
        .as_str()
        .unwrap()
        .contains("access_token=<redacted:"));
    // CSV of the same is redacted too.
    let csv = toomany()
        .args(["analyze", &sample("cdn-burst.har"), "--format", "csv"])
        .assert()
        .success();
    assert!(!String::from_utf8_lossy(&csv.get_output().stdout).contains("fake-at-"));
}

#[test]
fn the_output_extension_picks_the_format_and_an_unknown_one_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let input = sample("cdn-burst.har");
    for (name, starts) in [
        ("r.html", "<!DOCTYPE html>"),
        ("r.HTM", "<!DOCTYPE html>"),
        ("r.json", "{"),
        ("r.md", "# toomany report"),
        ("r.csv", "source,entry,line,"),
        ("r.ndjson", "{\"source\":"),
        ("r.txt", "67 requests"),
    ] {
        let out = tmp.path().join(name);
        toomany()
            .args(["analyze", &input, "-o"])
            .arg(&out)
            .assert()
            .success();
        let s = std::fs::read_to_string(&out).unwrap();
        assert!(s.starts_with(starts), "{name}: {}", &s[..s.len().min(80)]);
        // `-o r.html` never writes the box-drawing table.
        if name.starts_with("r.htm") || name == "r.md" {
            assert!(!s.contains("───"), "{name} holds the terminal table");
        }
    }
    // An extension toomany does not write: an error naming the file, nothing written, and the
    // inputs not even read.
    let out = toomany()
        .args(["analyze", &input, "-o"])
        .arg(tmp.path().join("report.pdf"))
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        err.contains("report.pdf: no report format is known by the extension `.pdf`")
            && err.contains(".csv, .ndjson"),
        "{err}"
    );
    assert!(!tmp.path().join("report.pdf").exists());
    // --format wins over the extension.
    let out = tmp.path().join("report.pdf");
    toomany()
        .args(["analyze", &input, "--format", "json", "-o"])
        .arg(&out)
        .assert()
        .success();
    assert!(std::fs::read_to_string(&out).unwrap().starts_with('{'));
}

/// Issue 14: the table says how "where" counts (HAR entries 0-based, log lines from 1), and a
/// Retry-After reads the same in the table and in Markdown (delta, HTTP-date, invalid).
#[test]
fn where_says_how_it_counts_and_retry_after_reads_the_same_everywhere() {
    let tmp = tempfile::tempdir().unwrap();
    let log = write(
        tmp.path(),
        "ra.jsonl",
        concat!(
            r#"{"time":"2026-03-02T10:00:00Z","method":"GET","url":"https://api.example.com/a","status":429,"response_headers":{"Retry-After":"12"}}"#,
            "\n",
            r#"{"time":"2026-03-02T10:00:01Z","method":"GET","url":"https://api.example.com/b","status":429,"response_headers":{"Retry-After":"Mon, 02 Mar 2026 10:00:31 GMT"}}"#,
            "\n",
            r#"{"time":"2026-03-02T10:00:02Z","method":"GET","url":"https://api.example.com/c","status":429,"response_headers":{"Retry-After":"soon"}}"#,
            "\n",
        )
        .as_bytes(),
    );
    let out = |input: &str, fmt: &str| {
        let o = toomany()
            .env("COLUMNS", "250")
            .args(["analyze", input, "--format", fmt])
            .assert()
            .success();
        String::from_utf8(o.get_output().stdout.clone()).unwrap()
    };
    for (input, note) in [
        (
            sample("cdn-burst.har"),
            "where: a HAR entry is its 0-based index in log.entries",
        ),
        (
            log.clone(),
            "where: FILE:N is line N of the log, numbered from 1",
        ),
    ] {
        for fmt in ["table", "markdown", "html"] {
            assert!(
                out(&input, fmt).contains(note),
                "{input} {fmt}: no {note:?}"
            );
        }
    }
    let both = toomany()
        .env("COLUMNS", "250")
        .args(["analyze", &sample("cdn-burst.har"), &log])
        .assert()
        .success();
    assert!(String::from_utf8_lossy(&both.get_output().stdout).contains(
        "a HAR entry is its 0-based index in log.entries; a log line is numbered from 1"
    ));
    // The rate-limited list's rows, table and Markdown: the same Retry-After text per line.
    let table = out(&log, "table");
    let md = out(&log, "markdown");
    for (line, want) in [(1, "12 s"), (2, "(30 s)"), (3, "(invalid)")] {
        let at = format!("ra.jsonl:{line}");
        let t = table
            .lines()
            .find(|l| l.contains(&at) && l.contains("api.example.com"))
            .unwrap_or_else(|| panic!("no table row for {at}:\n{table}"));
        let m = md
            .lines()
            .find(|l| l.starts_with('|') && l.contains(&at) && l.contains("api.example.com"))
            .unwrap_or_else(|| panic!("no markdown row for {at}:\n{md}"));
        let cell: Vec<&str> = m.split('|').map(str::trim).collect();
        let ra = cell[cell.len() - 3];
        assert!(ra.contains(want), "markdown {at}: {ra:?}");
        assert!(
            t.contains(ra),
            "table {at} lacks the markdown text {ra:?}:\n{t}"
        );
    }
}

#[test]
fn flags_the_format_does_not_read_are_named_on_stderr_not_silently_ignored() {
    let warned = |args: &[&str]| {
        let mut all = vec!["analyze".to_string(), sample("cdn-burst.har")];
        all.extend(args.iter().map(|a| a.to_string()));
        let out = toomany().args(&all).assert().success();
        String::from_utf8_lossy(&out.get_output().stderr).into_owned()
    };
    for fmt in ["json", "csv", "ndjson"] {
        let e = warned(&["--format", fmt, "--all"]);
        assert!(
            e.contains(&format!("--all has no effect with --format {fmt}")),
            "{fmt}: {e}"
        );
    }
    for fmt in ["json", "markdown", "html", "csv"] {
        let e = warned(&["--format", fmt, "--color", "never"]);
        assert!(
            e.contains(&format!("--color has no effect with --format {fmt}")),
            "{fmt}: {e}"
        );
    }
    // Where the flag does something, nothing is said.
    for args in [
        &["--format", "table", "--all", "--color", "always"][..],
        &["--format", "markdown", "--all"][..],
        &["--format", "html", "--all"][..],
        &["--format", "json"][..],
    ] {
        let e = warned(args);
        assert!(!e.contains("no effect"), "{args:?}: {e}");
    }
}
