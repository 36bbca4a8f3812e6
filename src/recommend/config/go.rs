//! Go `hashicorp/go-retryablehttp`: RetryMax/RetryWaitMin/RetryWaitMax, a CheckRetry limited to
//! 429/503 that stops when Retry-After exceeds the context deadline, a full-jitter Backoff that
//! honours Retry-After as a minimum, and a RoundTripper that takes one of MaxInFlight slots, then
//! waits for `golang.org/x/time/rate`, and only then starts the attempt's own timeout; `Do` puts
//! the total deadline on the request's context.

use super::{header, Emitted, Policy, Target};

/// A Go `time.Duration` expression for whole milliseconds: `8 * time.Second`,
/// `667 * time.Millisecond`.
pub fn go_duration(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        format!("{} * time.Second", ms / 1000)
    } else {
        format!("{ms} * time.Millisecond")
    }
}

pub fn emit(p: &Policy) -> Emitted {
    let r = &p.retry;
    let cannot = vec![
        "CheckRetry never sees the request, so it cannot filter by method: use this client only for idempotent requests (go-retryablehttp issue #169)".into(),
        "go-retryablehttp's DefaultBackoff has no jitter and does not cap Retry-After: the Backoff below replaces it".into(),
        "no total deadline of its own: Do below puts RetryDeadline on the request's context (every attempt, wait and queue within it); client.Do called directly has none".into(),
        "no rate limiter and no in-flight cap of its own (MaxConnsPerHost queues inside http.Client.Timeout): the RoundTripper below takes a slot, then waits for golang.org/x/time/rate, per process, and only then starts the attempt's timeout".into(),
    ];
    let how = vec![
        "Copy into your module (package toomanyclient); go get github.com/hashicorp/go-retryablehttp golang.org/x/time/rate.".to_string(),
        format!(
            "RetryMax counts RETRIES: {} attempts = RetryMax {}. Waits: full jitter in [0, min(RetryWaitMax, RetryWaitMin × 2^n)].",
            r.max_attempts,
            r.retries()
        ),
        "Send with toomanyclient.Do(client, req) and close every response body (that frees the request's slot).".to_string(),
    ];
    let head = header(
        "//",
        p,
        "Go go-retryablehttp client settings",
        &how,
        &cannot,
    );
    let statuses = r
        .retry_on_status
        .iter()
        .map(|s| format!("resp.StatusCode == {s}"))
        .collect::<Vec<_>>()
        .join(" || ");
    let body = super::fill(
        include_str!("templates/retryablehttp.go.tmpl"),
        &[
            ("retries", r.retries().to_string()),
            ("base", go_duration(r.base_ms)),
            ("cap", go_duration(r.cap_ms)),
            ("deadline", go_duration(r.deadline_ms)),
            ("attempt", go_duration(r.attempt_timeout_ms)),
            ("spread", go_duration(r.retry_after_spread_ms)),
            ("interval", go_duration(p.rate.min_interval_ms)),
            ("c", p.concurrency.max_in_flight.to_string()),
            ("statuses", statuses),
        ],
    );
    Emitted {
        target: Target::Retryablehttp,
        file_name: "retryablehttp.go".into(),
        contents: format!("{head}\n{body}"),
        cannot_express: cannot,
    }
}
