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
    let body = format!(
        r#"import random
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime

from tenacity import retry, retry_if_result, stop_after_attempt, stop_before_delay

MAX_ATTEMPTS = {attempts}
BASE_S = {base}
CAP_S = {cap}
DEADLINE_S = {deadline}
RETRY_AFTER_SPREAD_S = {spread}
RETRY_STATUSES = frozenset({{{statuses}}})


def _retry_after_s(response):
    """Retry-After in seconds (delay-seconds or an HTTP-date), or None."""
    value = getattr(response, "headers", {{}}).get("Retry-After")
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())


def _retryable(response):
    return getattr(response, "status_code", None) in RETRY_STATUSES


def wait_policy(retry_state):
    """At least the server's Retry-After plus a small random spread; otherwise full jitter in a
    capped exponential window (attempt_number is 1 after the first failure)."""
    outcome = retry_state.outcome
    if outcome is not None and not outcome.failed:
        ra = _retry_after_s(outcome.result())
        if ra is not None:
            return ra + random.uniform(0, RETRY_AFTER_SPREAD_S)
    window = min(CAP_S, BASE_S * 2 ** (retry_state.attempt_number - 1))
    return random.uniform(0, window)


retry_policy = retry(
    stop=stop_after_attempt(MAX_ATTEMPTS) | stop_before_delay(DEADLINE_S),
    wait=wait_policy,
    retry=retry_if_result(_retryable),
    retry_error_callback=lambda retry_state: retry_state.outcome.result(),
)
"#,
        attempts = r.max_attempts,
        base = secs(r.base_ms),
        cap = secs(r.cap_ms),
        deadline = secs(r.deadline_ms),
        spread = secs(r.retry_after_spread_ms),
    );
    Emitted {
        target: Target::Tenacity,
        file_name: "toomany_tenacity.py".into(),
        contents: format!("{head}\n{body}"),
        cannot_express: cannot,
    }
}
