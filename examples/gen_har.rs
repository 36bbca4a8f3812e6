//! Generate a large synthetic HAR for benchmarks:
//! `cargo run --release --example gen_har -- MB OUT [BODY_ITEMS]` (BODY_ITEMS sets the size of the
//! 200 bodies: 600 ≈ 33 KB entries, 0 ≈ 1.3 KB entries).
//!
//! Entries look like a browser session against an API behind a CDN: mostly 200s with sizeable
//! JSON bodies (which ingestion must skip without keeping), some 429s with Retry-After and a
//! small body (which it keeps as a bounded excerpt), credentials in headers and query strings.

use std::io::{BufWriter, Write};

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let mb: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(400);
    let out = args.get(2).cloned().unwrap_or_else(|| "big.har".into());
    let target = mb * 1024 * 1024;
    let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(&out)?);
    let header = r#"{"log":{"version":"1.2","creator":{"name":"gen_har","version":"1"},"pages":[],"entries":["#;
    w.write_all(header.as_bytes())?;
    let mut written = header.len() as u64;
    let items: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(600);
    let body: String = (0..items)
        .map(|i| format!("{{\"id\":{i},\"name\":\"item-{i}\",\"tags\":[\"a\",\"b\"]}},"))
        .collect();
    let mut i: u64 = 0;
    let mut t_ms: u64 = 1_714_564_800_000;
    while written < target {
        let status = if i % 50 == 49 { 429 } else { 200 };
        t_ms += 37;
        let secs = t_ms / 1000;
        let ms = t_ms % 1000;
        let ts = chrono_like(secs, ms);
        let text = if status == 200 {
            format!("[{}{{}}]", body)
        } else {
            "{\"error\":{\"type\":\"rate_limit_error\",\"message\":\"Too many requests\"}}"
                .to_string()
        };
        let entry = format!(
            r#"{}{{"startedDateTime":"{ts}","time":{t},"request":{{"method":"GET","url":"https://api.example.com/v1/items?page={i}&api_key=sk-test-{k:016}","httpVersion":"h2","headers":[{{"name":":authority","value":"api.example.com"}},{{"name":"authorization","value":"Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLXtrfSJ9.c2lnbmF0dXJl"}},{{"name":"user-agent","value":"Mozilla/5.0 bench"}},{{"name":"cookie","value":"sid=abc{i}; theme=dark"}}],"queryString":[],"cookies":[],"headersSize":-1,"bodySize":0}},"response":{{"status":{status},"statusText":"","httpVersion":"h2","headers":[{{"name":"content-type","value":"application/json"}},{{"name":"cf-ray","value":"8a1b2c3d4e5f{i:04x}-SJC"}},{{"name":"server","value":"cloudflare"}},{{"name":"retry-after","value":"{ra}"}},{{"name":"x-ratelimit-remaining","value":"{rem}"}}],"cookies":[],"content":{{"size":{sz},"mimeType":"application/json","text":"{txt}"}},"redirectURL":"","headersSize":-1,"bodySize":{sz}}},"cache":{{}},"timings":{{"blocked":-1,"dns":-1,"connect":-1,"send":0.1,"wait":{t},"receive":1.2}}}}"#,
            if i == 0 { "" } else { "," },
            t = 80 + (i % 40),
            k = i % 7,
            ra = if status == 429 { "12" } else { "0" },
            rem = if status == 429 { 0 } else { 100 - (i % 100) },
            sz = text.len(),
            txt = text.replace('"', "\\\""),
        );
        w.write_all(entry.as_bytes())?;
        written += entry.len() as u64;
        i += 1;
    }
    w.write_all(b"]}}\n")?;
    w.flush()?;
    eprintln!("wrote {out}: {i} entries, {} MB", written / (1024 * 1024));
    Ok(())
}

/// RFC 3339 UTC timestamp from epoch seconds + ms without a date library.
fn chrono_like(secs: u64, ms: u64) -> String {
    let days = secs / 86400;
    let rem = secs % 86400;
    let (h, m, s) = (rem / 3600, (rem % 3600) / 60, rem % 60);
    // Civil from days (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let mo = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if mo <= 2 { y + 1 } else { y };
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{m:02}:{s:02}.{ms:03}Z")
}
