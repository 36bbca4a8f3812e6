//! gRPC service config (gRFC A6): `methodConfig[].retryPolicy` and `retryThrottling`. The JSON
//! format has no comments, so the explanation goes beside it in a `.txt` file.

use super::{header, proto_duration, Emitted, Policy, Target};
use serde_json::json;

/// Clients treat a larger `maxAttempts` as 5, silently.
pub const MAX_ATTEMPTS_CAP: u32 = 5;
/// `retryThrottling`: retries stop while the token count is at or below maxTokens/2, i.e. after
/// about maxTokens/2 failures more than successes × tokenRatio.
pub const THROTTLE_MAX_TOKENS: u32 = 10;
/// A success returns 0.1 token: at most about one retry per ten successes in steady state.
pub const THROTTLE_TOKEN_RATIO: f64 = 0.1;

pub fn emit(p: &Policy) -> Vec<Emitted> {
    let r = &p.retry;
    let attempts = r.max_attempts.min(MAX_ATTEMPTS_CAP);
    let mut cannot = vec![
        format!(
            "no request rate ({}/s) and no concurrency cap ({}): put a limiter and a semaphore in the client code",
            crate::units::fmt_num(p.rate.rate_per_second),
            p.concurrency.max_in_flight
        ),
        "HTTP Retry-After is not read: the server must send the grpc-retry-pushback-ms trailer (MILLISECONDS); a proxy's HTTP 429 arrives as UNAVAILABLE".into(),
        "no method idempotency flag: replace the placeholder service name and list only idempotent methods in \"name\"".into(),
        format!(
            "retryThrottling ({THROTTLE_MAX_TOKENS} tokens, ratio {THROTTLE_TOKEN_RATIO}) is per channel and server name, not per method: every failed attempt spends a token, so {} failed attempts (one request's {attempts} attempts, measured with grpcio) stop all retries on the channel until successes bring it back above {}",
            THROTTLE_MAX_TOKENS / 2,
            THROTTLE_MAX_TOKENS / 2
        ),
        "no full jitter: gRFC A6 (changed in grpc/proposal #452, 2024) waits min(initialBackoff × multiplier^(n−1), maxBackoff) × random(0.8, 1.2), only ±20 % around the exponential value, so clients refused together retry close together, and a wait may exceed maxBackoff by 20 %; grpc-go (#7869) and grpc-java (#11858) do this, grpc-node still drew full jitter (#2959)".into(),
    ];
    if r.max_attempts > MAX_ATTEMPTS_CAP {
        cannot.push(format!(
            "maxAttempts is capped at {MAX_ATTEMPTS_CAP} by gRPC clients; the policy's {} attempts were written as {MAX_ATTEMPTS_CAP}",
            r.max_attempts
        ));
    }
    if r.max_attempts < 2 {
        cannot.push("retryPolicy needs maxAttempts ≥ 2: with 1 attempt the retryPolicy is left out (no retries)".into());
    }
    let mut method = json!({
        "name": [{ "service": "REPLACE.with.your.package.Service" }],
        "timeout": proto_duration(r.deadline_ms),
    });
    if r.max_attempts >= 2 {
        method["retryPolicy"] = json!({
            "maxAttempts": attempts,
            "initialBackoff": proto_duration(r.base_ms),
            "maxBackoff": proto_duration(r.cap_ms),
            "backoffMultiplier": 2,
            "retryableStatusCodes": ["UNAVAILABLE", "RESOURCE_EXHAUSTED"],
        });
    }
    let config = json!({
        "methodConfig": [method],
        "retryThrottling": { "maxTokens": THROTTLE_MAX_TOKENS, "tokenRatio": THROTTLE_TOKEN_RATIO },
    });
    let mut text = serde_json::to_string_pretty(&config).unwrap_or_default();
    text.push('\n');
    let how = vec![
        "grpc-service-config.json is the service config (strict JSON, no comments allowed); pass it with".to_string(),
        "grpc.WithDefaultServiceConfig (Go), ManagedChannelBuilder.defaultServiceConfig (Java), or the grpc.service_config channel arg.".to_string(),
        format!(
            "maxAttempts counts ATTEMPTS, first included ({attempts}); retry n waits min({}, {} × 2^(n−1)) × random(0.8, 1.2) (gRFC A6: ±20 % jitter, not the plan's full jitter); \"timeout\" ({}) spans all attempts.",
            proto_duration(r.cap_ms),
            proto_duration(r.base_ms),
            proto_duration(r.deadline_ms)
        ),
        "429 from a proxy maps to UNAVAILABLE; a gRPC server's own throttling usually says RESOURCE_EXHAUSTED: both are listed.".to_string(),
    ];
    let notes = header(
        "#",
        p,
        "gRPC service config notes (for grpc-service-config.json)",
        &how,
        &cannot,
    );
    vec![
        Emitted {
            target: Target::Grpc,
            file_name: "grpc-service-config.json".into(),
            contents: text,
            cannot_express: cannot.clone(),
        },
        Emitted {
            target: Target::Grpc,
            file_name: "grpc-service-config.notes.txt".into(),
            contents: notes,
            cannot_express: vec![],
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recommend::plan::{plan, PlanInput};

    /// gRFC A6 since grpc/proposal #452: ±20 % around the capped exponential, not full jitter.
    #[test]
    fn notes_state_the_a6_backoff_not_full_jitter() {
        let p = Policy::from_plan(&plan(&PlanInput {
            requests: 100,
            limit: crate::units::Rate::parse("120/min").unwrap(),
            headroom: 0.75,
            latency_ms: Some(200.0),
            deadline_ms: None,
            backoff: Default::default(),
        }))
        .expect("a paced plan");
        let files = emit(&p);
        let notes = &files[1].contents;
        assert!(notes.contains("× random(0.8, 1.2)"), "{notes}");
        assert!(!notes.contains("random(0, min("), "{notes}");
        assert!(files[0]
            .cannot_express
            .iter()
            .any(|c| c.starts_with("no full jitter: gRFC A6")));
    }
}
