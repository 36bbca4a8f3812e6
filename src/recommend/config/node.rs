//! Node: bottleneck for the start rate and the concurrency cap, p-retry (≥ 7) for the retries,
//! with a Retry-After-aware wait. An ES module to import.

use super::{header, Emitted, Policy, Target};

/// Reservoir: the whole-request allowance per refresh interval (the limit's window, or a minute
/// for windows under a minute or over an hour), rounded down.
pub fn reservoir(rate_per_second: f64, window_s: f64) -> (u64, u64) {
    let w = if (60.0..=3600.0).contains(&window_s) {
        window_s
    } else {
        60.0
    };
    let n = (rate_per_second * w + 1e-9).floor().max(1.0);
    (n as u64, (w * 1000.0) as u64)
}

pub fn emit(p: &Policy) -> Emitted {
    let r = &p.retry;
    let (res, res_ms) = reservoir(p.rate.rate_per_second, p.limit.window_s);
    let cannot = vec![
        "p-retry has no full jitter (randomize multiplies by 1–2) and reads no headers: the onFailedAttempt hook below adds the Retry-After wait, and p-retry's own backoff still runs after it".into(),
        "p-retry has no method filter: wrap only idempotent calls (shouldRetry below checks the method you pass)".into(),
        "bottleneck's rate is per process: several processes need a shared (Redis) limiter or a split of the target".into(),
    ];
    let how = vec![
        "Use: import { call } from \"./toomany-client.mjs\"; await call(\"GET\", () => fetch(url)). Needs bottleneck and p-retry ≥ 7.".to_string(),
        format!(
            "retries counts RETRIES: {} attempts = retries {}. minTime {} ms between starts; reservoir {} per {} s; maxConcurrent {}.",
            r.max_attempts,
            r.retries(),
            p.rate.min_interval_ms,
            res,
            res_ms / 1000,
            p.concurrency.max_in_flight
        ),
    ];
    let head = header(
        "//",
        p,
        "Node bottleneck + p-retry client policy",
        &how,
        &cannot,
    );
    let methods = super::quoted_list(&r.retry_methods);
    let statuses = super::status_list(&r.retry_on_status);
    let body = super::fill(
        include_str!("templates/toomany-client.mjs.tmpl"),
        &[
            ("c", p.concurrency.max_in_flight.to_string()),
            ("interval", p.rate.min_interval_ms.to_string()),
            ("res", res.to_string()),
            ("res_ms", res_ms.to_string()),
            ("retries", r.retries().to_string()),
            ("base", r.base_ms.to_string()),
            ("cap", r.cap_ms.to_string()),
            ("deadline", r.deadline_ms.to_string()),
            ("spread", r.retry_after_spread_ms.to_string()),
            ("statuses", statuses),
            ("methods", methods),
        ],
    );
    Emitted {
        target: Target::Bottleneck,
        file_name: "toomany-client.mjs".into(),
        contents: format!("{head}\n{body}"),
        cannot_express: cannot,
    }
}
