//! Logical requests: which requests are attempts of one operation.
//!
//! Attempts of one operation share the client, the credential, the method, the normalized URL
//! (less cache busters and retry counters in the query) and, for writes, the request body
//! fingerprint. A request is a *retry* when it follows a
//! failed attempt (429, 408, 5xx, or no response) of the same operation, starts after that
//! response ended, and comes within the retry window (at least 2 min, longer after a long
//! Retry-After). Idempotency keys are deliberately not part of the operation key, so a client
//! that sends a new key per attempt is still seen retrying one operation (see `unsafe_retry`);
//! when several operations wait at once, a retry carrying the same key as one of them joins it.
//!
//! A periodic poll is not a retry: when an operation repeats on a regular cadence with
//! successes in between, a request that comes after a failure at (about) that cadence is the
//! next poll, not a retry of the failed one.

use crate::model::Request;

pub use crate::http::idempotency::{idempotency_key, is_idempotency_header};

pub use super::link::{MAX_RETRY_WINDOW_S, MIN_RETRY_WINDOW_S};

/// Do the timestamps carry whole seconds only (common in server logs)? Then sub-second timing
/// (waves within 100 ms, identical delays, ms-vs-s gaps) cannot be judged.
pub fn coarse_timestamps(requests: &[Request]) -> bool {
    let mut n = 0;
    for r in requests {
        if let Some(t) = r.started {
            if t.timestamp_subsec_millis() != 0 {
                return false;
            }
            n += 1;
        }
    }
    n >= 10
}

pub fn is_write(method: &str) -> bool {
    matches!(method, "POST" | "PUT" | "PATCH" | "DELETE")
}

/// Query parameters that change on every attempt without naming a different operation:
/// cache busters and retry counters.
const VOLATILE_PARAMS: &[&str] = &[
    "_",
    "_t",
    "cb",
    "cachebust",
    "cache_bust",
    "cachebuster",
    "nocache",
    "ts",
    "timestamp",
    "rnd",
    "rand",
    "random",
    "retry",
    "retries",
    "attempt",
    "retry_count",
    "attempt_number",
];

/// The normalized URL without volatile query parameters: [`crate::http::url::normalize`] of the URL with those
/// parameters left out, built in one pass (it runs on every request).
pub fn operation_url(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    operation_url_of(&crate::http::url::split(url), &mut out);
    out
}

/// Is this query pair (`name=value`) one of [`VOLATILE_PARAMS`]? Those names are short: a
/// longer one is not compared at all.
fn volatile(pair: &str) -> bool {
    // Only the first LONGEST_VOLATILE + 1 bytes can hold the `=` of a short enough name.
    let b = pair.as_bytes();
    let name = match b.iter().take(LONGEST_VOLATILE + 1).position(|&c| c == b'=') {
        Some(i) => &pair[..i],
        None if b.len() <= LONGEST_VOLATILE => pair,
        None => return false,
    };
    name.len() <= LONGEST_VOLATILE && VOLATILE_PARAMS.iter().any(|v| v.eq_ignore_ascii_case(name))
}

const LONGEST_VOLATILE: usize = 14;

/// [`operation_url`] of a URL already split, written into `out` (cleared first): the event
/// mapping splits each URL once and reuses one buffer.
pub fn operation_url_of(p: &crate::http::url::Parts<'_>, out: &mut String) {
    out.clear();
    if !p.scheme.is_empty() {
        out.push_str(p.scheme);
        out.make_ascii_lowercase();
        out.push_str("://");
    }
    let auth_at = out.len();
    out.push_str(p.authority);
    out[auth_at..].make_ascii_lowercase();
    out.push_str(p.path);
    if p.query.is_empty() {
        return;
    }
    // Most queries have a few pairs: sort them on the stack.
    const ON_STACK: usize = 16;
    let mut stack: [&str; ON_STACK] = [""; ON_STACK];
    let mut n = 0;
    let mut spilled: Vec<&str> = Vec::new();
    // `p.query.split('&')`, by bytes (the char searcher was a hot spot).
    let mut rest = Some(p.query);
    while let Some(r) = rest {
        let pair = match r.as_bytes().iter().position(|&c| c == b'&') {
            Some(i) => {
                rest = Some(&r[i + 1..]);
                &r[..i]
            }
            None => {
                rest = None;
                r
            }
        };
        if pair.is_empty() || volatile(pair) {
            continue;
        }
        if n < ON_STACK {
            stack[n] = pair;
            n += 1;
        } else {
            if spilled.is_empty() {
                spilled.extend_from_slice(&stack);
            }
            spilled.push(pair);
        }
    }
    let kept: &mut [&str] = if spilled.is_empty() {
        &mut stack[..n]
    } else {
        &mut spilled
    };
    kept.sort_unstable();
    for (i, pair) in kept.iter().enumerate() {
        out.push(if i == 0 { '?' } else { '&' });
        out.push_str(pair);
    }
}

/// One logical operation and its attempts (request indices, in time order).
#[derive(Debug, Clone)]
pub struct Logical {
    pub attempts: Vec<usize>,
    pub client: usize,
}

impl Logical {
    pub fn retries(&self) -> usize {
        self.attempts.len().saturating_sub(1)
    }
}

/// The logical operations of a list of time-sorted requests, as the analysis links them (for
/// tests and callers holding the records; the analysis streams, see [`super::link`]).
#[derive(Debug, Clone, Default)]
pub struct Attempts {
    /// In the order operations are numbered: by their key's first request, then by their
    /// first attempt.
    pub logical: Vec<Logical>,
    /// Per request index: (logical number, attempt number from 0); `None` without a time.
    pub of_request: Vec<Option<(usize, usize)>>,
    /// Repeats after a failure that were read as the next poll of a regular cadence.
    pub polls_after_failure: usize,
    /// Cadences (poll period in seconds) of the operations that failed at least once and
    /// repeat on a regular cadence.
    pub poll_cadences: Vec<f64>,
}

impl Attempts {
    /// Is request `i` a retry (attempt 2 or later of its logical request)?
    pub fn is_retry(&self, i: usize) -> bool {
        matches!(self.of_request.get(i), Some(Some((_, n))) if *n > 0)
    }

    /// The attempt before request `i`, when `i` is a retry.
    pub fn previous(&self, i: usize) -> Option<usize> {
        let (l, n) = (*self.of_request.get(i)?)?;
        if n == 0 {
            return None;
        }
        self.logical.get(l)?.attempts.get(n - 1).copied()
    }

    /// (retries, first attempts) counted over the timed requests.
    pub fn counts(&self) -> (usize, usize) {
        let firsts = self.logical.len();
        let total: usize = self.logical.iter().map(|l| l.attempts.len()).sum();
        (total - firsts, firsts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::testkit::*;

    #[test]
    fn longest_volatile_is_the_longest_name() {
        assert_eq!(
            VOLATILE_PARAMS.iter().map(|v| v.len()).max(),
            Some(LONGEST_VOLATILE)
        );
    }

    /// The two-step form `operation_url` must equal: normalize, then drop volatile pairs.
    fn operation_url_in_two_steps(url: &str) -> String {
        let n = crate::http::url::normalize(url);
        let Some((base, query)) = n.split_once('?') else {
            return n;
        };
        let kept: Vec<&str> = query
            .split('&')
            .filter(|pair| {
                let name = pair.split('=').next().unwrap_or("").to_ascii_lowercase();
                !VOLATILE_PARAMS.contains(&name.as_str())
            })
            .collect();
        if kept.is_empty() {
            base.to_string()
        } else {
            format!("{base}?{}", kept.join("&"))
        }
    }

    proptest::proptest! {
        #[test]
        fn operation_url_equals_normalize_then_filter(
            url in "(HTTPS?://|//|x:|)(Api.Example.COM(:8443)?|u:p@h|)(/[a-zA-Z0-9]{0,6}){0,3}(\\?((_|TS|cb|a|b|Retry|z)(=[a-z0-9]{0,3})?&?){0,5})?(#f)?"
        ) {
            proptest::prop_assert_eq!(operation_url(&url), operation_url_in_two_steps(&url));
        }
    }

    proptest::proptest! {
        /// The bounded `=` search is the memchr one it replaced, for names of any length.
        #[test]
        fn volatile_is_the_whole_search(pair in "(attempt_number|cachebuster|retry_count|ts|_|a{0,16})(=[a-z=]{0,3})?") {
            let name = pair.split('=').next().unwrap_or("");
            let by_memchr = name.len() <= LONGEST_VOLATILE
                && VOLATILE_PARAMS.iter().any(|v| v.eq_ignore_ascii_case(name));
            proptest::prop_assert_eq!(volatile(&pair), by_memchr);
        }
    }

    #[test]
    fn operation_urls() {
        for u in [
            "https://API.example.com/v1/x?b=2&_=123&a=1#frag",
            "/a?&&ts=1",
            "/a?",
            "HTTP://H/p?Z=1&a=2&RETRY=3",
            "",
        ] {
            assert_eq!(operation_url(u), operation_url_in_two_steps(u), "{u}");
        }
        assert_eq!(
            operation_url("https://API.example.com/v1/x?b=2&_=123&a=1"),
            "https://api.example.com/v1/x?a=1&b=2"
        );
    }

    fn build(s: Scenario) -> (Vec<Request>, Attempts) {
        let reqs = s.build();
        let a = link_records(&reqs);
        (reqs, a)
    }

    #[test]
    fn retries_follow_failures_only() {
        let mut s = Scenario::new();
        s.at(0.0).client("w").get("https://api.x.com/a", 429);
        s.at(1.0).client("w").get("https://api.x.com/a", 429);
        s.at(3.0).client("w").get("https://api.x.com/a", 200);
        s.at(10.0).client("w").get("https://api.x.com/a", 200);
        s.at(11.0).client("other").get("https://api.x.com/a", 200);
        let (_, a) = build(s);
        assert_eq!(a.logical.len(), 3);
        assert_eq!(a.logical[0].attempts, vec![0, 1, 2]);
        assert_eq!(a.counts(), (2, 3));
        assert!(a.is_retry(2) && !a.is_retry(3));
        assert_eq!(a.previous(2), Some(1));
    }

    #[test]
    fn cache_busters_do_not_split_an_operation() {
        assert_eq!(
            operation_url("https://x.com/a?q=1&_=1700000000123"),
            "https://x.com/a?q=1"
        );
        assert_eq!(
            operation_url("https://x.com/a?attempt=2"),
            "https://x.com/a"
        );
        assert_ne!(
            operation_url("https://x.com/a?q=1"),
            operation_url("https://x.com/a?q=2")
        );
    }

    #[test]
    fn whole_second_logs_still_link_retries() {
        // A slow 503 logged at 12:00:00, its retry logged in the same truncated second as its end.
        let mut s = Scenario::new();
        for k in 0..10 {
            s.at(100.0 + k as f64 * 10.0)
                .client("x")
                .get(&format!("https://api.x.com/o/{k}"), 200);
        }
        s.at(0.0)
            .client("w")
            .dur(900.0)
            .get("https://api.x.com/a", 503);
        s.at(0.0).client("w").get("https://api.x.com/a", 200);
        let (reqs, a) = build(s);
        assert!(coarse_timestamps(&reqs));
        assert_eq!(a.counts().0, 1);
    }

    #[test]
    fn parallel_duplicate_is_not_a_retry() {
        let mut s = Scenario::new();
        s.at(0.0)
            .client("w")
            .dur(500.0)
            .get("https://api.x.com/a", 503);
        s.at(0.1)
            .client("w")
            .dur(500.0)
            .get("https://api.x.com/a", 200);
        let (_, a) = build(s);
        assert_eq!(a.logical.len(), 2);
    }

    #[test]
    fn poll_after_a_429_is_not_a_retry() {
        let mut s = Scenario::new();
        polling(&mut s, 0.0, 5.0, 30, 1, Some(4));
        let (reqs, a) = build(s);
        assert_eq!(a.logical.len(), reqs.len());
        assert!(a.polls_after_failure >= 5);
        assert_eq!(a.poll_cadences.len(), 1);
    }

    #[test]
    fn new_idempotency_key_per_attempt_is_still_one_operation() {
        let mut s = Scenario::new();
        s.at(0.0)
            .client("w")
            .body("b1")
            .idem("00000001")
            .post("https://api.x.com/pay", 429);
        s.at(2.0)
            .client("w")
            .body("b1")
            .idem("00000002")
            .post("https://api.x.com/pay", 200);
        s.at(3.0)
            .client("w")
            .body("b2")
            .idem("00000003")
            .post("https://api.x.com/pay", 200);
        let (_, a) = build(s);
        assert_eq!(a.logical.len(), 2);
        assert_eq!(a.logical[0].attempts, vec![0, 1]);
    }

    #[test]
    fn idempotency_key_mistaken_for_credential_does_not_split() {
        let mut s = Scenario::new();
        s.at(0.0)
            .client("w")
            .idem("0000000a")
            .post("https://api.x.com/pay", 429);
        s.at(1.0)
            .client("w")
            .idem("0000000b")
            .post("https://api.x.com/pay", 200);
        let mut reqs = s.build();
        reqs[0].credential = Some("0000000a".into());
        reqs[1].credential = Some("0000000b".into());
        let a = link_records(&reqs);
        assert_eq!(a.logical.len(), 1);
    }
}
