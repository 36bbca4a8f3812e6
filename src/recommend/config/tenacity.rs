//! Python tenacity: a `@retry` decorator with full jitter, Retry-After as a minimum wait plus
//! spread, at most N attempts, and `stop_before_delay` so a wait that would pass the deadline
//! stops instead of sleeping.

use super::{header, secs, Emitted, Policy, Target};

pub fn emit(p: &Policy) -> Emitted {
    let r = &p.retry;
    let cannot = vec![
        "no request rate and no concurrency cap: pair the decorator with a limiter and a semaphore (toomany_retry.py has a Spacer)".into(),
        "no method awareness: put @retry_policy only on idempotent calls".into(),
        "Retry-After is not built in: wait_policy below reads it from the response (requests-style .headers / .status_code)".into(),
        "stop_before_delay needs tenacity ≥ 8.3".into(),
    ];
    let how = vec![
        "Use: from toomany_tenacity import retry_policy; decorate a function that returns a requests-style response.".to_string(),
        format!(
            "stop_after_attempt counts ATTEMPTS ({}); after failure n the wait is random(0, min({} s, {} s × 2^(n−1))) or Retry-After + 0–{} s.",
            r.max_attempts,
            secs(r.cap_ms),
            secs(r.base_ms),
            secs(r.retry_after_spread_ms)
        ),
    ];
    let head = header("#", p, "Python tenacity retry policy", &how, &cannot);
    let statuses = super::status_list(&r.retry_on_status);
    let body = super::fill(
        include_str!("templates/toomany_tenacity.py.tmpl"),
        &[
            ("attempts", r.max_attempts.to_string()),
            ("base", secs(r.base_ms)),
            ("cap", secs(r.cap_ms)),
            ("deadline", secs(r.deadline_ms)),
            ("spread", secs(r.retry_after_spread_ms)),
            ("statuses", statuses),
        ],
    );
    Emitted {
        target: Target::Tenacity,
        file_name: "toomany_tenacity.py".into(),
        contents: format!("{head}\n{body}"),
        cannot_express: cannot,
    }
}
