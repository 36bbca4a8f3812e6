//! Rate-limit header families (RateLimit/RateLimit-Policy structured fields, X-RateLimit-*,
//! vendor headers, resets as seconds, epochs or dates): never panic on any set of headers.
#![no_main]
use chrono::{TimeZone, Utc};
use libfuzzer_sys::fuzz_target;
use toomany::http::ratelimit;
use toomany::model::Headers;

/// Header names the parsers look for, so the fuzzer does not have to guess them.
const NAMES: &[&str] = &[
    "ratelimit",
    "ratelimit-policy",
    "ratelimit-limit",
    "ratelimit-remaining",
    "ratelimit-reset",
    "x-ratelimit-limit",
    "x-ratelimit-remaining",
    "x-ratelimit-reset",
    "x-ratelimit-used",
    "x-ratelimit-resource",
    "x-rate-limit-limit",
    "x-rate-limit-remaining",
    "x-rate-limit-reset",
    "x-ratelimit-limit-requests",
    "x-ratelimit-remaining-tokens",
    "x-ratelimit-reset-requests",
    "retry-after",
    "date",
];

fuzz_target!(|data: &[u8]| {
    if data.len() < 8 {
        return;
    }
    let (head, rest) = data.split_at(8);
    let secs = i64::from_le_bytes(head.try_into().unwrap()) % 8_000_000_000;
    let now = Utc.timestamp_opt(secs, 0).single();
    let text = String::from_utf8_lossy(rest);
    let mut h = Headers::new();
    for line in text.split('\n') {
        let (name, value) = match line.split_once(':') {
            // `#N:` names a known header by number.
            Some((n, v)) if n.starts_with('#') => {
                let i = n[1..].parse::<usize>().unwrap_or(0);
                (NAMES[i % NAMES.len()].to_string(), v.to_string())
            }
            Some((n, v)) => (n.to_string(), v.to_string()),
            None => continue,
        };
        h.push(&name, value.trim());
    }
    let families = ratelimit::parse_all(&h, now);
    let _ = ratelimit::binding(&families);
    let _ = ratelimit::parse(&h, now);
    for (_, v) in h.iter() {
        let _ = ratelimit::sf_list(v);
        let _ = ratelimit::reset_value(v, now);
    }
});
