//! Redaction throughput on real header values, URLs and bodies (not run by `cargo test`).
//!
//!     cargo bench --bench redact [-- DIR…]
//!
//! Loads every `.har` under `samples/` and `tests/corpus/real-har/` (or the given
//! directories), collects each request/response header, URL and the first 4 KiB of each body,
//! then redacts them all repeatedly and prints headers/s and MB/s. The same file builds against
//! older commits (it uses only `Redactor::{header, url, excerpt}`), which is how the
//! before/after figures in docs/performance.md were taken.
//!
//!     cargo bench --bench redact -- --jsonl FILE [--lines N]
//!
//! Replays what the JSON-lines reader redacts per line of FILE (the first N lines, 50 000 by
//! default): the URL, every request and response header, the `client` field, the credential
//! scan and, for a status outside 2xx/3xx, the body excerpt; prints ns of CPU time per line
//! and per kind.
//!
//!     cargo bench --bench redact -- --calls [N] [--only I] [--cow]
//!
//! The per-call cost of each entry point (`url`, `url_owned`, `header`, `text`) on values
//! taken from the bench inputs (log-200.jsonl, combined-4000000.log, har-3k-100.har): each case
//! is called N times (10 000 by default) on values made distinct per call where the input's
//! are (`{n}` in a template is the call's number), and prints ns per call (wall time: noisy on a shared machine). Every
//! case runs in [`measure`], so under callgrind
//!
//!     valgrind --tool=callgrind --toggle-collect='*measure*' target/release/deps/redact-… \
//!         --calls 10000 --only I
//!
//! counts the instructions of case I alone (divide by N). `--cow` calls `header_cow` and
//! `url_cow` instead of `header` and `url` (what a caller that copies the result saves).

use std::time::Instant;
use toomany::redact::Redactor;

/// The binary's allocator (src/main.rs), so allocations cost here what they cost in a run.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--calls") {
        let n = args
            .get(i + 1)
            .and_then(|n| n.parse().ok())
            .unwrap_or(10_000);
        let only = args
            .iter()
            .position(|a| a == "--only")
            .and_then(|j| args.get(j + 1))
            .and_then(|n| n.parse().ok());
        calls(n, only, args.iter().any(|a| a == "--cow"));
        return;
    }
    if let Some(i) = args.iter().position(|a| a == "--jsonl") {
        let lines = args
            .iter()
            .position(|a| a == "--lines")
            .and_then(|j| args.get(j + 1))
            .and_then(|n| n.parse().ok())
            .unwrap_or(50_000);
        match args.get(i + 1) {
            Some(file) => jsonl(file, lines),
            None => eprintln!("--jsonl needs a file"),
        }
        return;
    }
    let mut dirs: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    if dirs.is_empty() {
        let root = env!("CARGO_MANIFEST_DIR");
        dirs = vec![
            format!("{root}/samples"),
            format!("{root}/tests/corpus/real-har"),
        ];
    }
    let mut headers: Vec<(String, String)> = Vec::new();
    let mut urls: Vec<String> = Vec::new();
    let mut bodies: Vec<String> = Vec::new();
    for dir in &dirs {
        let Ok(rd) = std::fs::read_dir(dir) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.extension().and_then(|x| x.to_str()) != Some("har") {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&p) else {
                continue;
            };
            let text = text.trim_start_matches('\u{feff}');
            let Ok(v) = serde_json::from_str::<serde_json::Value>(text) else {
                continue;
            };
            let Some(entries) = v["log"]["entries"].as_array() else {
                continue;
            };
            for en in entries {
                for side in ["request", "response"] {
                    if let Some(hs) = en[side]["headers"].as_array() {
                        for h in hs {
                            if let (Some(n), Some(v)) = (h["name"].as_str(), h["value"].as_str()) {
                                headers.push((n.to_string(), v.to_string()));
                            }
                        }
                    }
                }
                if let Some(u) = en["request"]["url"].as_str() {
                    urls.push(u.to_string());
                }
                if let Some(t) = en["response"]["content"]["text"].as_str() {
                    let cut = t.char_indices().nth(4096).map_or(t.len(), |(i, _)| i);
                    bodies.push(t[..cut].to_string());
                }
            }
        }
    }
    let bytes: usize = headers
        .iter()
        .map(|(n, v)| n.len() + v.len())
        .sum::<usize>()
        + urls.iter().map(String::len).sum::<usize>()
        + bodies.iter().map(String::len).sum::<usize>();
    println!(
        "corpus: {} headers, {} URLs, {} bodies, {:.1} MB",
        headers.len(),
        urls.len(),
        bodies.len(),
        bytes as f64 / 1e6
    );
    let r = Redactor::from_key_material(b"bench key material");
    let rounds = 20;
    for part in ["headers", "urls", "bodies", "all"] {
        let mut best = f64::MAX;
        let mut n = 0usize;
        let mut b = 0usize;
        for _ in 0..rounds {
            let t = Instant::now();
            let mut sink = 0usize;
            n = 0;
            b = 0;
            if part == "headers" || part == "all" {
                for (name, v) in &headers {
                    sink += r.header(name, v).len();
                    n += 1;
                    b += name.len() + v.len();
                }
            }
            if part == "urls" || part == "all" {
                for u in &urls {
                    sink += r.url(u).len();
                    n += 1;
                    b += u.len();
                }
            }
            if part == "bodies" || part == "all" {
                for t in &bodies {
                    sink += r.excerpt(t, 4096).len();
                    n += 1;
                    b += t.len();
                }
            }
            std::hint::black_box(sink);
            best = best.min(t.elapsed().as_secs_f64());
        }
        println!(
            "{part:>8}: {:>10.0} values/s {:>8.1} MB/s (best of {rounds})",
            n as f64 / best,
            b as f64 / best / 1e6
        );
    }
}

/// One JSON line's redacted parts, in the order the reader redacts them.
struct Line {
    url: String,
    request_headers: Vec<(String, String)>,
    response_headers: Vec<(String, String)>,
    client: Option<String>,
    body: Option<String>,
}

fn pairs(v: &serde_json::Value) -> Vec<(String, String)> {
    v.as_object()
        .map(|o| {
            o.iter()
                .filter_map(|(n, v)| Some((n.clone(), v.as_str()?.to_string())))
                .collect()
        })
        .unwrap_or_default()
}

fn jsonl(file: &str, max_lines: usize) {
    let Ok(text) = std::fs::read_to_string(file) else {
        eprintln!("cannot read {file}");
        return;
    };
    let lines: Vec<Line> = text
        .lines()
        .take(max_lines)
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|v| {
            let status = v["status"].as_u64().unwrap_or(0);
            Line {
                url: v["url"].as_str().unwrap_or("").to_string(),
                request_headers: pairs(&v["request_headers"]),
                response_headers: pairs(&v["response_headers"]),
                client: v["client"].as_str().map(str::to_string),
                body: v["response_body"]
                    .as_str()
                    .filter(|b| !b.is_empty() && !(200..400).contains(&status))
                    .map(str::to_string),
            }
        })
        .collect();
    println!("{file}: {} lines", lines.len());
    let r = Redactor::from_key_material(b"bench key material");
    let rounds = 10;
    let kinds = ["url", "headers", "client", "credential", "bodies", "all"];
    for kind in kinds {
        let mut best = f64::MAX;
        for _ in 0..rounds {
            let t = CpuClock::now();
            let mut sink = 0usize;
            for l in &lines {
                if kind == "url" || kind == "all" {
                    sink += r.url(&l.url).len();
                }
                if kind == "headers" || kind == "all" {
                    for (n, v) in l.request_headers.iter().chain(&l.response_headers) {
                        sink += r.header(n, v).len();
                    }
                }
                if kind == "client" || kind == "all" {
                    if let Some(c) = &l.client {
                        sink += r.text(c).len();
                    }
                }
                if kind == "credential" || kind == "all" {
                    let hs = l
                        .request_headers
                        .iter()
                        .map(|(n, v)| (n.as_str(), v.as_str()));
                    sink += r.credential(hs, &l.url).map_or(0, |c| c.len());
                }
                if kind == "bodies" || kind == "all" {
                    if let Some(b) = &l.body {
                        sink += r.excerpt(b, 4096).len();
                    }
                }
            }
            std::hint::black_box(sink);
            best = best.min(t.elapsed_secs());
        }
        println!(
            "{kind:>10}: {:>8.1} ns/line (CPU time, best of {rounds})",
            best * 1e9 / lines.len() as f64
        );
    }
}

/// This thread's CPU time where Linux reports it (`/proc/thread-self/schedstat`), else wall
/// time: on a shared machine the wall clock also counts the time other processes ran.
enum CpuClock {
    Cpu(u64),
    Wall(Instant),
}

impl CpuClock {
    fn cpu_ns() -> Option<u64> {
        std::fs::read_to_string("/proc/thread-self/schedstat")
            .ok()?
            .split_whitespace()
            .next()?
            .parse()
            .ok()
    }

    fn now() -> CpuClock {
        match CpuClock::cpu_ns() {
            Some(ns) => CpuClock::Cpu(ns),
            None => CpuClock::Wall(Instant::now()),
        }
    }

    fn elapsed_secs(&self) -> f64 {
        match (self, CpuClock::cpu_ns()) {
            (CpuClock::Cpu(start), Some(now)) => now.saturating_sub(*start) as f64 / 1e9,
            (CpuClock::Wall(t), _) => t.elapsed().as_secs_f64(),
            (CpuClock::Cpu(_), None) => f64::MAX,
        }
    }
}

/// Which entry point a case calls.
#[derive(Clone, Copy)]
enum Entry {
    Url,
    UrlOwned,
    Header(&'static str),
    Text,
}

/// Realistic values from the bench inputs; `{n}` becomes the call's number.
const CASES: &[(Entry, &str)] = &[
    // JSON lines (log-200.jsonl).
    (Entry::Url, "https://api.example.com/v1/orders/{n}?expand=items"),
    (Entry::Header("Authorization"), "Bearer sk-test-000000000000000000000042"),
    (Entry::Header("User-Agent"), "orders-sync/1.4"),
    (Entry::Header("Idempotency-Key"), "idem-{n}"),
    (Entry::Header("Content-Type"), "application/json"),
    (Entry::Header("X-RateLimit-Limit"), "120"),
    (Entry::Header("X-RateLimit-Remaining"), "{n}"),
    (Entry::Header("Retry-After"), "0"),
    (Entry::Text, "worker-{n}"),
    // Access logs (combined-4000000.log): request targets and the logged Referer.
    (Entry::UrlOwned, "/static/app.{n}.js"),
    (Entry::UrlOwned, "/v1/orders/{n}?expand=items"),
    (Entry::UrlOwned, "/v1/customers/{n}"),
    (Entry::UrlOwned, "/v1/search?q=shoes&page={n}"),
    (Entry::UrlOwned, "/v1/orders"),
    (Entry::Header("Referer"), "https://app.example.com/"),
    (Entry::Text, "orders-sync/1.4 (+https://example.com/bot)"),
    // HAR (har-3k-100.har).
    (Entry::Url, "https://api.example.com/v1/items?page={n}&api_key=sk-test-0000000000000000"),
    (Entry::Header(":authority"), "api.example.com"),
    (
        Entry::Header("authorization"),
        "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLXtrfSJ9.c2lnbmF0dXJl",
    ),
    (Entry::Header("user-agent"), "Mozilla/5.0 bench"),
    (Entry::Header("cookie"), "sid=abc{n}; theme=dark"),
    (Entry::Header("server"), "cloudflare"),
    (Entry::Header("cf-ray"), "8a1b2c3d4e5f{n}-SJC"),
    // Other common shapes: API keys (one, and a fresh one per call), long random tokens,
    // plain response headers, an escaped query.
    (Entry::Header("X-Api-Key"), "sk-live-4f9a1c2e7b3d8a6f0e5c9b2a"),
    (Entry::Header("X-Api-Key"), "k{n}-9f86d081884c7d659a2feaa0c55ad015"),
    (
        Entry::Header("X-Session-Token"),
        "a3f1c9e07b2d48e6{n}9c5a0f1e3b7d2c64a8e9f0b1c2d3e4f5a6b7c8d9e0f1a2b3",
    ),
    (Entry::Header("Cookie"), "session=9f86d081884c7d659a2f{n}; csrftoken=x{n}yz"),
    (
        Entry::Header("User-Agent"),
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15",
    ),
    (Entry::Header("Date"), "Wed, 01 May 2024 00:00:{n} GMT"),
    (Entry::Header("Cache-Control"), "max-age=3600"),
    (Entry::Header("X-Request-Id"), "req-{n}-6f1c2a"),
    (Entry::Header("Content-Type"), "text/html; charset=utf-8"),
    (Entry::Url, "https://api.example.com/v1/search?q=red%20shoes&page={n}"),
    (
        Entry::Url,
        "https://api.example.com/v1/files/3f2a9c0d8e7b4a1f9c2d{n}?sig=abcdef0123456789&expires=1714564800",
    ),
];

/// Per-call CPU time of each case (or only case `only`), `n` calls each.
fn calls(n: usize, only: Option<usize>, cow: bool) {
    let r = Redactor::from_key_material(b"bench key material");
    for (i, (entry, template)) in CASES.iter().enumerate() {
        if only.is_some_and(|o| o != i) {
            continue;
        }
        let mut values: Vec<String> = if template.contains("{n}") {
            (0..n)
                .map(|k| template.replace("{n}", &k.to_string()))
                .collect()
        } else {
            vec![template.to_string(); n]
        };
        // Warm up outside `measure`: patterns compiled, caches allocated.
        let warm = call(&r, *entry, values[0].clone());
        // Wall time: this thread's CPU clock ticks too coarsely for one case's calls.
        let t = Instant::now();
        let sink = measure(&r, *entry, &mut values, cow);
        let ns = t.elapsed().as_secs_f64() * 1e9 / n as f64;
        std::hint::black_box(sink);
        let what = match entry {
            Entry::Url => "url".to_string(),
            Entry::UrlOwned => "url_owned".to_string(),
            Entry::Header(h) => format!("header {h}"),
            Entry::Text => "text".to_string(),
        };
        println!("{i:>2} {ns:>8.1} ns/call  {what}: {template}  -> {warm}");
    }
}

fn call(r: &Redactor, entry: Entry, v: String) -> String {
    match entry {
        Entry::Url => r.url(&v),
        Entry::UrlOwned => r.url_owned(v),
        Entry::Header(name) => r.header(name, &v),
        Entry::Text => r.text(&v),
    }
}

/// Every call of one case (callgrind's `--toggle-collect='*measure*'` counts only this). The
/// inputs are freed outside it, except those `url_owned` takes.
#[inline(never)]
fn measure(r: &Redactor, entry: Entry, values: &mut Vec<String>, cow: bool) -> usize {
    let mut sink = 0;
    match entry {
        Entry::UrlOwned => {
            for v in values.drain(..) {
                sink += r.url_owned(v).len();
            }
        }
        Entry::Url if cow => {
            for v in values.iter() {
                sink += r.url_cow(v).len();
            }
        }
        Entry::Header(name) if cow => {
            for v in values.iter() {
                sink += r.header_cow(name, v).len();
            }
        }
        _ => {
            for v in values.iter() {
                sink += match entry {
                    Entry::Url => r.url(v),
                    Entry::Header(name) => r.header(name, v),
                    _ => r.text(v),
                }
                .len();
            }
        }
    }
    sink
}
