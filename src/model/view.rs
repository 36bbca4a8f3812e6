//! The record view: everything the event mapping reads of a record, borrowed. A parser fills
//! one in to hand a record over without building its [`Request`]; the consumer (the analysis)
//! decides through [`crate::ingest::Views`] whether the view suffices.

use crate::http::idempotency::idempotency_key;
use crate::http::stated::stated_limit;
use crate::model::event::hash_of;
use crate::model::{Position, Request};
use chrono::{DateTime, Utc};

/// What only a full record can tell: whether the response is rate-limited (the attribution rules
/// read headers, body and layer signals), whether a failure stated a Retry-After, and whether a
/// browser hid that header from the page. Always "no" for a view a parser builds:
/// [`map_view`](crate::analyze::event::map_view) takes only records for which all three are known
/// to be no.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Signals {
    pub limited: bool,
    pub failure_retry_after: bool,
    pub ra_hidden: bool,
}

/// Everything [`map`](crate::analyze::event::map) reads of a record, borrowed: what a parser fills
/// in to get the event of a record without building its [`Request`] (see
/// [`map_view`](crate::analyze::event::map_view) for when that is allowed).
///
/// Every string is what the [`Request`] would hold: redacted, cut and normalized exactly as the
/// parser would have put it there (the view of a parser's record must equal
/// `RecordView::of(&that_request)`; each parser tests that). Credentials, request bodies and
/// idempotency keys appear only as the record holds them (fingerprints, redacted values).
#[derive(Debug, Clone, PartialEq)]
pub struct RecordView<'a> {
    pub position: Position,
    pub started: Option<DateTime<Utc>>,
    pub duration_ms: Option<f64>,
    pub status: u16,
    /// [`Request::method`].
    pub method: &'a str,
    /// [`Request::url`]: the redacted URL.
    pub url: &'a str,
    /// [`crate::model::ClientHints::client`], untrimmed.
    pub client: Option<&'a str>,
    /// [`Request::user_agent`]: the `User-Agent` header when non-empty, else the log's field.
    pub user_agent: Option<&'a str>,
    pub client_ip: Option<&'a str>,
    pub pageref: Option<&'a str>,
    /// [`crate::model::ClientHints::origin`].
    pub origin: Option<&'a str>,
    /// [`Request::credential`] (a fingerprint).
    pub credential: Option<&'a str>,
    /// The hash of the request's idempotency key ([`idem_of`]); 0 when it carried none.
    pub idem: u32,
    /// The idempotency key is really the credential: the redacted key holds the credential's
    /// fingerprint (a client sending its API key in `Idempotency-Key`).
    pub idem_is_credential: bool,
    /// [`Request::request_body_fingerprint`].
    pub body_fingerprint: Option<&'a str>,
    /// [`stated_limit`](crate::http::stated::stated_limit) of the (redacted, cut) response headers.
    pub header_limit: Option<(u64, u64)>,
    /// The request's id as the record holds it ([`request_id`]): the same request logged by
    /// two layers is joined by it. Only when the analysis joins inputs (their ids are read at
    /// a cost: `ingest::Options::request_ids`); `RecordView::of` leaves it `None`.
    pub request_id: Option<&'a str>,
    /// The record has a [`Request::layer_signal`] (access logs): only the full path reads it.
    pub layer_signal: bool,
    /// `Signals::default()` in a parser's view.
    pub signals: Signals,
}

impl<'a> RecordView<'a> {
    /// The view of a full record as a parser would give it: [`RecordView::signals`] left to
    /// the consumer (`Signals::default()`; the analysis fills them in from the record).
    pub fn of(r: &'a Request) -> RecordView<'a> {
        let h = &r.client;
        RecordView {
            position: r.location.position,
            started: r.started,
            duration_ms: r.duration_ms,
            status: r.status,
            method: &r.method,
            url: &r.url,
            client: h.client.as_deref(),
            user_agent: r.user_agent(),
            client_ip: h.client_ip.as_deref(),
            pageref: h.pageref.as_deref(),
            origin: h.origin.as_deref(),
            credential: r.credential.as_deref(),
            idem: idem_of(r),
            idem_is_credential: match (r.credential.as_deref(), idempotency_key(&r.request_headers))
            {
                (Some(c), Some((_, i))) => holds(i, c),
                _ => false,
            },
            body_fingerprint: r.request_body_fingerprint.as_deref(),
            header_limit: stated_limit(&r.response_headers, r.started),
            request_id: None,
            layer_signal: r.layer_signal.is_some(),
            signals: Signals::default(),
        }
    }
}

/// The hash retries compare idempotency keys by: the one its ingester took of the raw key
/// ([`Request::idem_hash`]), else (a record no ingester made) one of the redacted key.
pub fn idem_of(r: &Request) -> u32 {
    if r.idem_hash != 0 {
        return r.idem_hash;
    }
    idempotency_key(&r.request_headers)
        .map(|(_, v)| (hash_of(0, v) as u32).max(1))
        .unwrap_or(0)
}

/// Request headers that name one request (not its retries) as every layer it passes sees it,
/// most specific first: `X-Request-ID` (ingress-nginx's `$req_id`, Envoy's request id, which
/// the proxies pass upstream) and the whole `traceparent` (trace id and the caller's span id:
/// a retry is another span, so the trace id alone would join retries).
pub const REQUEST_ID_HEADERS: [&str; 2] = ["x-request-id", "traceparent"];

/// The id of the request among `headers` ([`REQUEST_ID_HEADERS`]): a value of at least 8
/// characters (a shorter one, or `-`, names nothing).
pub fn request_id(headers: &crate::http::headers::Headers) -> Option<&str> {
    REQUEST_ID_HEADERS
        .iter()
        .filter_map(|n| headers.get(n))
        .map(str::trim)
        .find(|v| v.len() >= 8)
}

/// Whether `name` is one of [`REQUEST_ID_HEADERS`] (a view keeps them when ids are asked for).
pub fn is_request_id_header(name: &str) -> bool {
    REQUEST_ID_HEADERS
        .iter()
        .any(|n| name.eq_ignore_ascii_case(n))
}

/// Whether a record with this status (and no layer signal) can go through
/// [`map_view`](crate::analyze::event::map_view): a 2xx/3xx the attribution rules can never call
/// rate-limited (202 can be, by AWS WAF's `x-amzn-waf-action`), which is no failure either. Parsers
/// check this first and build the full record for everything else. A test holds it to
/// `attribute::is_rate_limited`.
pub fn view_suffices(status: u16, layer_signal: bool) -> bool {
    (200..400).contains(&status) && status != 202 && !layer_signal
}

/// Request header names a [`RecordView`] reads (`User-Agent`; `X-Forwarded-For`, `Origin` and
/// `Referer` for the client hints; idempotency keys): a parser taking the view path needs to
/// redact and keep only these (and fingerprint the credential from the raw headers).
pub fn is_view_request_header(name: &str) -> bool {
    ["user-agent", "x-forwarded-for", "origin", "referer"]
        .iter()
        .any(|n| name.eq_ignore_ascii_case(n))
        || crate::http::idempotency::is_idempotency_header(name)
}

/// `haystack.contains(needle)`, for the 8-byte credential fingerprint inside a short
/// idempotency token without the general substring search (a per-request cost).
pub fn holds(haystack: &str, needle: &str) -> bool {
    match <[u8; 8]>::try_from(needle.as_bytes()) {
        Ok(n) if haystack.len() <= 64 => {
            let n = u64::from_ne_bytes(n);
            haystack
                .as_bytes()
                .windows(8)
                .any(|w| u64::from_ne_bytes(w.try_into().unwrap_or_default()) == n)
        }
        _ => haystack.contains(needle),
    }
}

/// What [`may_map_view_hinted`](crate::analyze::event::may_map_view_hinted) learned of a record,
/// for [`map_view_hinted`](crate::analyze::event::map_view_hinted) on the same record: its host's
/// hash and that host's bound, so the URL's host is found, hashed and looked up once.
/// `ViewHint::default()` knows nothing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ViewHint {
    /// 0: unknown.
    pub(crate) host: u64,
    pub(crate) bound: Option<crate::model::event::SampleKey>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_is_contains() {
        for (h, n) in [
            ("<redacted:1a2b3c4d>", "1a2b3c4d"),
            ("<redacted:1a2b3c4d>", "1a2b3c4e"),
            ("1a2b3c4d", "1a2b3c4d"),
            ("1a2b3c4", "1a2b3c4d"),
            ("", "1a2b3c4d"),
            ("abc", ""),
            ("xx1a2b3c4d1a2b3c4dxx", "1a2b3c4d"),
            ("ümlaut-1a2b3c4d", "1a2b3c4d"),
            (&"y".repeat(100), "yyyyyyyy"),
            ("key-abc", "abc"),
        ] {
            assert_eq!(holds(h, n), h.contains(n), "{h:?} {n:?}");
        }
    }
}
