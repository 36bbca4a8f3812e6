//! Generate a large synthetic JSON-lines request log for benchmarks:
//! `cargo run --release --example gen_jsonl -- MB OUT`.
//!
//! Four workers share one API key; every 40th request is a 429 with Retry-After and a JSON body.

use std::io::{BufWriter, Write};

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let mb: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(400);
    let out = args.get(2).cloned().unwrap_or_else(|| "big.jsonl".into());
    let target = mb * 1024 * 1024;
    let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(&out)?);
    let mut written = 0u64;
    let mut i: u64 = 0;
    let mut t_ms: u64 = 1_714_564_800_000;
    while written < target {
        t_ms += 11;
        let status = if i % 40 == 39 { 429 } else { 200 };
        let body = if status == 429 {
            r#"{\"error\":{\"code\":\"rate_limit_exceeded\",\"message\":\"120 per minute\"}}"#
        } else {
            ""
        };
        let line = format!(
            r#"{{"ts":{t_ms},"method":"{m}","url":"https://api.example.com/v1/orders/{id}?expand=items","status":{status},"duration_ms":{d},"client":"worker-{wk}","request_headers":{{"Authorization":"Bearer sk-test-{k:024}","User-Agent":"orders-sync/1.4","Idempotency-Key":"idem-{i}"}},"response_headers":{{"Content-Type":"application/json","X-RateLimit-Limit":"120","X-RateLimit-Remaining":"{rem}","Retry-After":"{ra}"}},"response_body":"{body}"}}"#,
            m = if i.is_multiple_of(7) { "POST" } else { "GET" },
            id = i % 5000,
            d = 40 + i % 90,
            wk = i % 4,
            k = 42,
            rem = if status == 429 { 0 } else { 119 - (i % 120) },
            ra = if status == 429 { "12" } else { "0" },
        );
        w.write_all(line.as_bytes())?;
        w.write_all(b"\n")?;
        written += line.len() as u64 + 1;
        i += 1;
    }
    w.flush()?;
    eprintln!("wrote {out}: {i} lines, {} MB", written / (1024 * 1024));
    Ok(())
}
