//! Envoy (v3 API): an HTTP local rate limit filter for the start rate, a route `retry_policy`
//! with `retry_back_off` and `rate_limited_retry_back_off` (Retry-After), a route timeout as
//! the total deadline, and cluster circuit breakers for the concurrency cap.

use super::{header, proto_duration, Emitted, Policy, Target};

/// Envoy discards a reset header above this and falls back to its exponential backoff.
pub const RESET_HEADER_MAX_MS: u64 = 300_000;
/// Envoy's local rate limit `fill_interval` must be at least 50 ms.
const MIN_FILL_MS: f64 = 50.0;

/// Token bucket for a rate: `tokens_per_fill` tokens every `fill_interval_ms` (rounded up so the
/// rate never exceeds the target).
pub fn bucket(rate_per_second: f64) -> (u64, u64) {
    let k = (MIN_FILL_MS * rate_per_second / 1000.0 - 1e-9)
        .ceil()
        .max(1.0);
    let fill = (k * 1000.0 / rate_per_second - 1e-9).ceil();
    (k as u64, fill as u64)
}

pub fn emit(p: &Policy) -> Emitted {
    let r = &p.retry;
    let (tokens, fill_ms) = bucket(p.rate.rate_per_second);
    let ra_max = RESET_HEADER_MAX_MS.max(r.deadline_ms);
    let methods = r.retry_methods.join("|");
    let mut cannot = vec![
        format!(
            "jitter on Retry-After is Envoy's own: it waits random(RA, 1.5 × RA), not RA + 0–{} ms",
            r.retry_after_spread_ms
        ),
        format!(
            "a Retry-After above max_interval ({}) is discarded and the exponential backoff is used instead, so Envoy retries EARLIER than the server asked; only integer seconds are read, an HTTP-date is ignored the same way",
            proto_duration(ra_max)
        ),
        format!(
            "no 'give up when Retry-After exceeds the deadline': a longer wait is cut by the route timeout ({}), which answers 504",
            proto_duration(r.deadline_ms)
        ),
        "the local rate limit filter REJECTS (local 429) when the bucket is empty instead of queueing, and router retries do not pass through it: retries are not counted against the start rate".into(),
        format!(
            "circuit_breakers.max_requests rejects requests beyond {} in flight (503 overflow) instead of queueing them",
            p.concurrency.max_in_flight
        ),
        "the method filter needs a route per method set: retries are on the first route only".into(),
    ];
    if r.retries() == 0 {
        cannot
            .push("max_attempts is 1: num_retries is 0, so the backoff settings are unused".into());
    }
    let how = vec![
        "Three parts, each pasted where its key says: http_filters (http_connection_manager, before the router),".to_string(),
        "routes (virtual_hosts[].routes, replace upstream_api with your cluster), clusters (merge circuit_breakers into your cluster).".to_string(),
        format!(
            "num_retries counts RETRIES: {} attempts = {} retries. Token bucket: {} token(s) every {} = {}/s at most.",
            r.max_attempts,
            r.retries(),
            tokens,
            proto_duration(fill_ms),
            crate::units::fmt_num(tokens as f64 * 1000.0 / fill_ms as f64)
        ),
    ];
    let head = header(
        "#",
        p,
        "Envoy rate limit, retry and concurrency settings",
        &how,
        &cannot,
    );
    let statuses = super::status_list(&r.retry_on_status);
    let body = super::fill(
        include_str!("templates/envoy.yaml.tmpl"),
        &[
            ("tokens", tokens.to_string()),
            ("fill", proto_duration(fill_ms)),
            ("deadline", proto_duration(r.deadline_ms)),
            ("retries", r.retries().to_string()),
            ("per_try", proto_duration(r.attempt_timeout_ms)),
            ("base", proto_duration(r.base_ms)),
            ("cap", proto_duration(r.cap_ms)),
            ("ra_max", proto_duration(ra_max)),
            ("c", p.concurrency.max_in_flight.to_string()),
            ("statuses", statuses),
            ("methods", methods),
        ],
    );
    Emitted {
        target: Target::Envoy,
        file_name: "envoy.yaml".into(),
        contents: format!("{head}\n{body}"),
        cannot_express: cannot,
    }
}
