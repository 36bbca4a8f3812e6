//! Idempotency keys: which request headers carry one.

use super::headers::Headers;

/// Request header names that carry an idempotency key (compared case-insensitively): anything
/// containing `idempoten` (`Idempotency-Key`, `X-Idempotency-Key`, `Idempotence-Key`, ...) and
/// these vendor forms.
const VENDOR_IDEMPOTENCY_HEADERS: &[&str] = &[
    "paypal-request-id",
    "x-client-request-token",
    "client-token",
];

/// The idempotency key a request carried: (header name, redacted value).
pub fn idempotency_key(h: &Headers) -> Option<(&str, &str)> {
    h.iter()
        .find(|(n, v)| !v.trim().is_empty() && is_idempotency_header(n))
}

/// A header that names an idempotency key (any case).
pub fn is_idempotency_header(name: &str) -> bool {
    name.as_bytes()
        .windows(9)
        .any(|w| w.eq_ignore_ascii_case(b"idempoten"))
        || VENDOR_IDEMPOTENCY_HEADERS
            .iter()
            .any(|v| v.eq_ignore_ascii_case(name))
}
