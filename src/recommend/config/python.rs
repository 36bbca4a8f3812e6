//! Python urllib3 `Retry` (used by requests through `HTTPAdapter`), as a module to import: the
//! Retry object, a subclass with full jitter from the first retry on (urllib3 2.x sleeps 0 s
//! before it), a spread on top of Retry-After, and a stop when Retry-After exceeds the deadline
//! instead of sleeping it; a thread-safe start spacer, and the adapter with the connection cap.

use super::{header, secs, Emitted, Policy, Target};

pub fn emit(p: &Policy) -> Emitted {
    let r = &p.retry;
    let cannot = vec![
        "no full jitter of its own: urllib3 2.x sleeps 0 s before the first retry (no jitter either: its jitter is added only from the second retry on) and backoff_factor × 2^(n−1) + uniform(0, backoff_jitter) before retry n ≥ 2; TooManyRetry below replaces get_backoff_time with full jitter in the plan's windows".into(),
        "when Retry-After is present urllib3 sleeps exactly that long, with no spread added (workers told the same value resume together); TooManyRetry below adds the spread in sleep_for_retry".into(),
        "no total deadline: requests' timeout= is per connect/read; RETRY_DEADLINE_S below is enforced only for Retry-After by TooManyRetry, wrap calls for a true deadline".into(),
        "no rate limit: the Spacer class below spaces first attempts within one process only; urllib3's own retries happen inside the adapter and are not spaced".into(),
        "older urllib3 (1.x) names allowed_methods method_whitelist and has no backoff_max keyword".into(),
    ];
    let how = vec![
        "Use: from toomany_retry import session; session().get(url). Needs urllib3 ≥ 2 and requests.".to_string(),
        format!(
            "total counts RETRIES: {} attempts = total={}. Sleep before retry n (from 1): full jitter in [0, min({} s, {} s × 2^(n−1))] = windows {} s; after a Retry-After: that + 0–{} s.",
            r.max_attempts,
            r.retries(),
            secs(r.cap_ms),
            secs(r.base_ms),
            r.windows_ms.iter().map(|&w| secs(w)).collect::<Vec<_>>().join(", "),
            secs(r.retry_after_spread_ms)
        ),
    ];
    let head = header(
        "#",
        p,
        "Python urllib3 / requests retry policy",
        &how,
        &cannot,
    );
    let methods = super::quoted_list(&r.retry_methods);
    let statuses = super::status_list(&r.retry_on_status);
    let body = super::fill(
        include_str!("templates/toomany_retry.py.tmpl"),
        &[
            ("rps", crate::units::fmt_num(p.rate.rate_per_second)),
            ("interval", secs(p.rate.min_interval_ms)),
            ("c", p.concurrency.max_in_flight.to_string()),
            ("deadline", secs(r.deadline_ms)),
            ("attempt", secs(r.attempt_timeout_ms)),
            ("retries", r.retries().to_string()),
            ("base", secs(r.base_ms)),
            ("cap", secs(r.cap_ms)),
            ("spread", secs(r.retry_after_spread_ms)),
            ("statuses", statuses),
            ("methods", methods),
        ],
    );
    Emitted {
        target: Target::Urllib3,
        file_name: "toomany_retry.py".into(),
        contents: format!("{head}\n{body}"),
        cannot_express: cannot,
    }
}
