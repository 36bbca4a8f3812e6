//! .NET `Microsoft.Extensions.Http.Resilience`: an `appsettings.json` section bound by
//! `AddStandardResilienceHandler().Configure(configuration.GetSection("TooManyClient"))`.
//! .NET's JSON configuration accepts `//` comments, so the header is a comment.

use super::{header, Emitted, Policy, Target};
use serde_json::json;

/// A .NET TimeSpan string `hh:mm:ss[.fff]` (days folded into hours).
pub fn timespan(ms: u64) -> String {
    let (h, m, s, f) = (
        ms / 3_600_000,
        (ms / 60_000) % 60,
        (ms / 1000) % 60,
        ms % 1000,
    );
    if f == 0 {
        format!("{h:02}:{m:02}:{s:02}")
    } else {
        format!("{h:02}:{m:02}:{s:02}.{f:03}")
    }
}

/// The circuit breaker's sampling window must be at least twice the attempt timeout (options
/// validation); 30 s is the library default.
pub fn sampling_ms(attempt_timeout_ms: u64) -> u64 {
    (2 * attempt_timeout_ms).max(30_000)
}

pub fn emit(p: &Policy) -> Emitted {
    let r = &p.retry;
    let mut cannot = vec![
        format!(
            "the JSON \"RateLimiter\" is a CONCURRENCY limiter ({} in flight): a start rate of {}/s needs code, e.g. a System.Threading.RateLimiting.TokenBucketRateLimiter in a DelegatingHandler",
            p.concurrency.max_in_flight,
            crate::units::fmt_num(p.rate.rate_per_second)
        ),
        "Retry-After delays are not capped by MaxDelay and get no spread; only TotalRequestTimeout bounds them (the request then fails with a timeout)".into(),
        "jitter is Polly's own exponential jitter, not full jitter".into(),
        "the handled statuses are 408, 429 and 5xx; narrowing them to 429/503 needs ShouldHandle in code".into(),
        "method filtering needs code: .Configure(o => o.Retry.DisableForUnsafeHttpMethods())".into(),
    ];
    if r.retries() == 0 {
        cannot.push("the standard handler always retries at least once (MaxRetryAttempts ≥ 1): MaxRetryAttempts is 1 although the policy has no retries".into());
    }
    let how = vec![
        "Add this section to appsettings.json and bind it: services.AddHttpClient(\"api\").AddStandardResilienceHandler()".to_string(),
        "  .Configure(builder.Configuration.GetSection(\"TooManyClient\")); add only one resilience handler.".to_string(),
        format!(
            "MaxRetryAttempts counts RETRIES: {} attempts = {} retries. TimeSpans are hh:mm:ss.fff. QueueLimit 0: calls beyond PermitLimit fail at once; raise it to make them wait.",
            r.max_attempts,
            r.retries()
        ),
    ];
    let head = header(
        "//",
        p,
        ".NET Microsoft.Extensions.Http.Resilience options",
        &how,
        &cannot,
    );
    let v = json!({
        "TooManyClient": {
            "RateLimiter": { "DefaultRateLimiterOptions": { "PermitLimit": p.concurrency.max_in_flight, "QueueLimit": 0 } },
            "TotalRequestTimeout": { "Timeout": timespan(r.deadline_ms) },
            "Retry": {
                "MaxRetryAttempts": r.retries().max(1),
                "BackoffType": "Exponential",
                "UseJitter": true,
                "Delay": timespan(r.base_ms),
                "MaxDelay": timespan(r.cap_ms),
                "ShouldRetryAfterHeader": true
            },
            "CircuitBreaker": { "SamplingDuration": timespan(sampling_ms(r.attempt_timeout_ms)) },
            "AttemptTimeout": { "Timeout": timespan(r.attempt_timeout_ms) }
        }
    });
    let body = serde_json::to_string_pretty(&v).unwrap_or_default();
    Emitted {
        target: Target::Dotnet,
        file_name: "appsettings.resilience.json".into(),
        contents: format!("{head}{body}\n"),
        cannot_express: cannot,
    }
}
