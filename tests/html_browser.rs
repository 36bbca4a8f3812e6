//! The HTML report opened in a real headless browser (Debian `chromium`, installed by `.ci/run`):
//! the page renders with its timeline, its own little script runs, and nothing an input injected
//! runs. Without chromium the browser tests say so and pass, unless TOOMANY_REQUIRE_BROWSER is
//! set (as `.ci/run` does once it has installed chromium), where a missing browser fails.

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long one browser run may take before it is killed.
const BROWSER_TIMEOUT: Duration = Duration::from_secs(90);

fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("TOOMANY_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for name in ["chromium", "chromium-browser"] {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// The browser, or None (after saying why) when the test cannot run here.
fn browser_or_skip(test: &str) -> Option<PathBuf> {
    match chromium() {
        Some(p) => Some(p),
        None => {
            common::skipped(
                &format!("{test}: no chromium on PATH (apt-get install -y chromium; .ci/run installs it)"),
                &["TOOMANY_REQUIRE_BROWSER"],
            );
            None
        }
    }
}

/// Run headless chromium on `page` with `mode` (`--dump-dom` or `--screenshot=…`), with a fresh
/// profile and no background networking (this machine's network is closed), killed after
/// [`BROWSER_TIMEOUT`]. Returns stdout.
pub fn run_browser(browser: &Path, page: &Path, mode: &[&str]) -> String {
    let profile = tempfile::tempdir().expect("profile dir");
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(mode)
        .arg(format!("file://{}", page.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    let mut stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout, &mut s);
        s
    });
    let start = Instant::now();
    loop {
        match child.try_wait().expect("wait on chromium") {
            Some(_) => break,
            None if start.elapsed() > BROWSER_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("chromium did not finish within {BROWSER_TIMEOUT:?}");
            }
            None => std::thread::sleep(Duration::from_millis(100)),
        }
    }
    reader.join().expect("reader thread")
}

fn write_report(input: &str, dir: &Path, name: &str) -> (PathBuf, String) {
    let out = dir.join(name);
    toomany()
        .args(["analyze", input, "-o"])
        .arg(&out)
        .assert()
        .success();
    let html = std::fs::read_to_string(&out).expect("report written");
    (out, html)
}

fn title_of(dom: &str) -> &str {
    dom.split("<title>")
        .nth(1)
        .and_then(|s| s.split("</title>").next())
        .unwrap_or("")
}

/// The tags of a page (every `<` in it is markup: input-derived text is escaped).
fn tags(html: &str) -> Vec<&str> {
    html.split('<')
        .skip(1)
        .map(|t| t.split('>').next().unwrap_or(t))
        .collect()
}

/// The page carries everything itself: no external resource, one script of its own.
fn assert_self_contained(html: &str) {
    assert!(html.starts_with("<!DOCTYPE html>"));
    for tag in tags(html) {
        let name = tag.split_whitespace().next().unwrap_or("");
        assert!(
            !["link", "img", "iframe", "object", "embed", "base", "form"].contains(&name),
            "the page has a <{name}> tag"
        );
        for attr in [" src=", " href=\"http", " href=\"//", " xlink:href=", " on"] {
            assert!(!tag.contains(attr), "tag <{tag}> has {attr:?}");
        }
    }
    assert!(!html.contains("@import") && !html.contains("url("));
    assert_eq!(
        html.matches("<script").count(),
        1,
        "only the page's own script"
    );
    assert!(html.contains("Content-Security-Policy"));
}

#[test]
fn sample_report_renders_with_its_timeline() {
    // No browser needed for what the file holds.
    let tmp = tempfile::tempdir().unwrap();
    let (page, html) = write_report(&sample("cdn-burst.har"), tmp.path(), "report.html");
    assert_self_contained(&html);
    assert!(html.contains(r#"<svg id="timeline""#));
    for section in [
        "Who limited you",
        "Findings, most severe first",
        "The plan",
        "Timeline",
        "Findings and their evidence",
        "The plan per host, with its arithmetic",
        "Rate-limited responses by host, layer, vendor and quota",
        "Top talkers",
        "Rate-limited responses (20)",
    ] {
        assert!(html.contains(section), "missing {section:?}");
    }
    let Some(browser) = browser_or_skip("sample_report_renders_with_its_timeline") else {
        return;
    };
    let dom = run_browser(&browser, &page, &["--dump-dom"]);
    assert_eq!(
        title_of(&dom),
        "toomany report: 20 rate-limited responses of 67 requests"
    );
    assert!(dom.contains(r#"<svg id="timeline""#), "timeline rendered");
    assert!(dom.contains("<rect"), "timeline has bars");
    // The page's own script ran (so the browser runs script here, and CSP allowed it by hash).
    assert!(dom.contains(r#"data-ready="1""#), "inline script ran");
}

#[test]
fn injected_markup_stays_text_and_nothing_runs() {
    let tmp = tempfile::tempdir().unwrap();
    // The file name is input too.
    let input = tmp.path().join("capture\"><b onclick=x>.har");
    std::fs::copy(fixture("html/injection.har"), &input).unwrap();
    let (page, html) = write_report(&input.to_string_lossy(), tmp.path(), "injected.html");
    assert_self_contained(&html);
    for raw in [
        "<script>document",
        "<img",
        "<svg onload",
        "onerror=\"",
        "<b onclick",
    ] {
        assert!(!html.contains(raw), "unescaped {raw:?} in the page");
    }
    // The payloads are in the page — as text.
    assert!(html.contains("&lt;script&gt;document.title="));
    assert!(html.contains("&lt;img src=x onerror="));
    assert!(html.contains("capture&quot;&gt;&lt;b onclick=x&gt;.har"));

    let Some(browser) = browser_or_skip("injected_markup_stays_text_and_nothing_runs") else {
        return;
    };
    let dom = run_browser(&browser, &page, &["--dump-dom"]);
    assert_eq!(
        title_of(&dom),
        "toomany report: 12 rate-limited responses of 30 requests",
        "an injected script would have changed the title"
    );
    assert!(!dom.contains("data-pwned"), "injected code ran");
    assert!(!dom.contains("<img"), "an injected element was created");
    assert!(
        dom.contains(r#"data-ready="1""#),
        "the page's own script did run"
    );
    assert!(dom.contains(r#"<svg id="timeline""#));
}

#[test]
fn big_inputs_give_a_bounded_page() {
    // 20 000 requests, a third rate-limited, over six hours: buckets and capped tables keep the
    // page small (the JSON has every response).
    let tmp = tempfile::tempdir().unwrap();
    let mut log = String::new();
    for i in 0..20_000u64 {
        let ms = i * 1_100;
        let limited = i % 3 == 0;
        log.push_str(&format!(
            "{{\"time\":\"2026-11-03T{:02}:{:02}:{:02}.{:03}Z\",\"method\":\"GET\",\"url\":\"https://api.big.example/r/{i}\",\"status\":{},\"duration_ms\":80,\"client\":\"w{}\",\"response_headers\":{}}}\n",
            8 + ms / 3_600_000,
            (ms / 60_000) % 60,
            (ms / 1000) % 60,
            ms % 1000,
            if limited { 429 } else { 200 },
            i % 7,
            if limited { "{\"Retry-After\":\"2\"}" } else { "{}" }
        ));
    }
    let input = write(tmp.path(), "big.jsonl", log.as_bytes());
    let (_, html) = write_report(&input, tmp.path(), "big.html");
    assert!(
        html.len() < 2_000_000,
        "page is {} bytes for 20 000 requests",
        html.len()
    );
    assert!(html.contains("Rate-limited responses (first 500 of 6667)"));
    assert!(html.contains("more not shown"));
    assert!(html.contains("The waits band shows the first 400 rate-limited responses"));
    let rects = html.matches("<rect").count();
    assert!(rects < 5_000, "{rects} rects");
}
