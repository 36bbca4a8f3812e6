//! Generate a large synthetic nginx `combined` access log for benchmarks:
//! `cargo run --release --example gen_combined -- LINES OUT` (default 4000000 lines, ≈ 620 MB).
//!
//! Plain `combined` (what GoAccess's `--log-format=COMBINED` reads): 300 clients (IP + user
//! agent), ~50 requests/s over a day, a burst every ten minutes during which one client's
//! requests are answered 429 by nginx's limit_req. Deterministic: the same file every run.

use std::io::{BufWriter, Write};

const AGENTS: &[&str] = &[
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15",
    "orders-sync/1.4 (+https://example.com/bot)",
    "python-requests/2.31.0",
    "curl/8.5.0",
];
const PATHS: &[&str] = &[
    "/v1/orders",
    "/v1/orders/{id}?expand=items",
    "/v1/customers/{id}",
    "/static/app.{id}.js",
    "/v1/search?q=shoes&page={id}",
];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let lines: u64 = args
        .get(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(4_000_000);
    let out = args
        .get(2)
        .cloned()
        .unwrap_or_else(|| "combined.log".into());
    let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(&out)?);
    let mut written = 0u64;
    // 2024-05-01T00:00:00Z, advanced ~20 ms a line; whole seconds in the log, as nginx writes.
    let day_start = 1_714_521_600u64;
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        // xorshift64*: fixed seed, no dependency.
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    let mut line = String::with_capacity(512);
    for i in 0..lines {
        let t = day_start + i / 50;
        let (secs_of_day, day) = (t % 86_400, (t - day_start) / 86_400);
        let r = next();
        let client = (r % 300) as u32;
        let in_burst = (t % 600) < 20;
        let burst_client = ((t / 600) % 300) as u32;
        let (client, status) = if in_burst && r % 3 == 0 {
            (burst_client, if (r >> 8) % 4 == 0 { 200 } else { 429 })
        } else {
            let s = match (r >> 16) % 100 {
                0 => 500,
                1..=2 => 404,
                3..=5 => 304,
                _ => 200,
            };
            (client, s)
        };
        let path = PATHS[((r >> 24) % PATHS.len() as u64) as usize]
            .replace("{id}", &((r >> 32) % 100_000).to_string());
        let method = if (r >> 40) % 9 == 0 { "POST" } else { "GET" };
        let bytes = if status == 429 {
            169
        } else {
            (r >> 44) % 40_000
        };
        let agent = AGENTS[(client as usize) % AGENTS.len()];
        line.clear();
        use std::fmt::Write as _;
        let _ = writeln!(
            line,
            "10.{}.{}.{} - - [{:02}/{}/2024:{:02}:{:02}:{:02} +0000] \"{method} {path} HTTP/1.1\" {status} {bytes} \"https://app.example.com/\" \"{agent}\"",
            client / 250,
            (client / 10) % 25,
            client % 250 + 1,
            1 + day,
            MONTHS[4],
            secs_of_day / 3600,
            (secs_of_day / 60) % 60,
            secs_of_day % 60,
        );
        w.write_all(line.as_bytes())?;
        written += line.len() as u64;
    }
    w.flush()?;
    eprintln!("wrote {out}: {lines} lines, {} MB", written / (1024 * 1024));
    Ok(())
}
