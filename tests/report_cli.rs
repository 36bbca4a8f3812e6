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
        .args(["analyze", &sample(sample_name)])
        .args(["--fingerprint-key-file", &fixture("fingerprint.key")])
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
