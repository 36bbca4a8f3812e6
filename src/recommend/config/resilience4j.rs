//! resilience4j for Spring Boot (`application.yml`): retry, ratelimiter, bulkhead and
//! timelimiter instances named `api`. Durations use Spring's `500ms` / `8s` forms.

use super::{header, Emitted, Policy, Target};

/// Spring Boot duration: whole seconds as `8s`, otherwise milliseconds as `667ms`.
pub fn spring_duration(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

pub fn emit(p: &Policy) -> Emitted {
    let r = &p.retry;
    let cannot = vec![
        "Retry-After needs Java code: an intervalBiFunction class that returns max(Retry-After + spread, the backoff); it is left commented out below".into(),
        "retrying on HTTP 429/503 needs a resultPredicate class (or an exception your client throws); the YAML alone retries only exceptions".into(),
        "jitter is proportional (wait × [0.5, 1.5] with randomizedWaitFactor 0.5), not full jitter".into(),
        format!(
            "no total deadline across attempts in the default aspect order: the timelimiter ({}) is per attempt; enforce the {} deadline in the caller",
            spring_duration(r.attempt_timeout_ms),
            spring_duration(r.deadline_ms)
        ),
        "method idempotency: put @Retry only on idempotent calls".into(),
    ];
    let how = vec![
        "Merge into application.yml; annotate the client method with @Retry(name = \"api\"), @RateLimiter(name = \"api\"), @Bulkhead(name = \"api\").".to_string(),
        format!(
            "maxAttempts counts ATTEMPTS, first included ({}). Rate: 1 permit every {} = {}/s at most; callers wait up to the deadline for a permit.",
            r.max_attempts,
            spring_duration(p.rate.min_interval_ms),
            crate::units::fmt_num(1000.0 / p.rate.min_interval_ms as f64)
        ),
    ];
    let head = header(
        "#",
        p,
        "resilience4j retry + ratelimiter + bulkhead",
        &how,
        &cannot,
    );
    let body = format!(
        r#"resilience4j:
  retry:
    instances:
      api:
        maxAttempts: {attempts}
        waitDuration: {base}
        enableExponentialBackoff: true
        exponentialBackoffMultiplier: 2
        exponentialMaxWaitDuration: {cap}
        enableRandomizedWait: true
        randomizedWaitFactor: 0.5
        # resultPredicate: com.example.RetryOn429Or503
        # intervalBiFunction: com.example.RetryAfterInterval
  ratelimiter:
    instances:
      api:
        limitForPeriod: 1
        limitRefreshPeriod: {interval}
        timeoutDuration: {deadline}
  bulkhead:
    instances:
      api:
        maxConcurrentCalls: {c}
        maxWaitDuration: {deadline}
  timelimiter:
    instances:
      api:
        timeoutDuration: {attempt}
"#,
        attempts = r.max_attempts,
        base = spring_duration(r.base_ms),
        cap = spring_duration(r.cap_ms),
        interval = spring_duration(p.rate.min_interval_ms),
        deadline = spring_duration(r.deadline_ms),
        c = p.concurrency.max_in_flight,
        attempt = spring_duration(r.attempt_timeout_ms),
    );
    Emitted {
        target: Target::Resilience4j,
        file_name: "resilience4j.yml".into(),
        contents: format!("{head}\n{body}"),
        cannot_express: cannot,
    }
}
