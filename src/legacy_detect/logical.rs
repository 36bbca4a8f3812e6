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

use super::clients::Clients;
use super::{end_s, is_failure, median, sort_f64, start_s};
use crate::http::retry_after;
use crate::http::url::normalize;
use crate::model::{Headers, Request};
use std::collections::HashMap;

/// The shortest time after a failure in which a repeat still counts as its retry, seconds.
pub const MIN_RETRY_WINDOW_S: f64 = 120.0;
/// The longest, whatever the Retry-After said.
pub const MAX_RETRY_WINDOW_S: f64 = 7200.0;
/// A repeat after a failure at ≥ this share of the poll cadence is the next poll.
const POLL_SHARE: f64 = 0.7;
/// Slack for logs that round times: a retry may appear to start this much before the end.
const END_SLACK_S: f64 = 0.05;
/// The same for logs with whole-second timestamps.
const COARSE_SLACK_S: f64 = 1.0;

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
    h.iter().find(|(n, v)| {
        let l = n.to_ascii_lowercase();
        !v.trim().is_empty()
            && (l.contains("idempoten") || VENDOR_IDEMPOTENCY_HEADERS.contains(&l.as_str()))
    })
}

pub fn is_write(method: &str) -> bool {
    matches!(method, "POST" | "PUT" | "PATCH" | "DELETE")
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct OpKey {
    client: usize,
    credential: Option<String>,
    method: String,
    url: String,
    body: Option<String>,
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

/// The normalized URL without volatile query parameters.
pub fn operation_url(url: &str) -> String {
    let n = normalize(url);
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

fn op_key(r: &Request, client: usize) -> OpKey {
    // An idempotency key taken for a credential (it is key-like) must not split an operation.
    let credential = match (&r.credential, idempotency_key(&r.request_headers)) {
        (Some(c), Some((_, v))) if v.contains(c.as_str()) => None,
        (c, _) => c.clone(),
    };
    OpKey {
        client,
        credential,
        method: r.method.to_ascii_uppercase(),
        url: operation_url(&r.url),
        body: if is_write(&r.method.to_ascii_uppercase()) {
            r.request_body_fingerprint.clone()
        } else {
            None
        },
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

#[derive(Debug, Clone, Default)]
pub struct Attempts {
    pub logical: Vec<Logical>,
    /// Per request index: (logical number, attempt number from 0); `None` without a time.
    pub of_request: Vec<Option<(usize, usize)>>,
    /// Repeats after a failure that were read as the next poll of a regular cadence.
    pub polls_after_failure: usize,
    /// Operations found to repeat on a regular cadence (poll period in seconds).
    pub poll_cadences: Vec<f64>,
}

struct Open {
    logical: usize,
    last_start: f64,
    last_end: f64,
    window: f64,
    key: Option<String>,
}

/// The regular cadence of an operation's repeats, from the gaps that follow successes.
fn cadence(requests: &[Request], idx: &[usize]) -> Option<f64> {
    let mut gaps = Vec::new();
    for w in idx.windows(2) {
        let (a, b) = (&requests[w[0]], &requests[w[1]]);
        if is_failure(a.status) {
            continue;
        }
        if let (Some(x), Some(y)) = (start_s(a), start_s(b)) {
            gaps.push(y - x);
        }
    }
    if gaps.len() < 3 {
        return None;
    }
    sort_f64(&mut gaps);
    let m = median(&gaps);
    if m < 0.5 {
        return None;
    }
    let regular = gaps.iter().filter(|g| (**g - m).abs() <= 0.25 * m).count();
    (regular as f64 >= 0.7 * gaps.len() as f64).then_some(m)
}

impl Attempts {
    pub fn build(requests: &[Request], clients: &Clients) -> Attempts {
        // Operations are keyed by a 64-bit hash of their key (client, credential, method, URL,
        // body), not the key itself: a large capture has one operation per distinct URL, and
        // holding every key's strings cost more memory than the records (measured: 26 MB of
        // 83 MB peak heap on a 40 MB HAR). A collision merging two operations needs ~4 billion
        // of them.
        let mut index: HashMap<u64, usize> = HashMap::new();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for (i, r) in requests.iter().enumerate() {
            if r.started.is_none() {
                continue;
            }
            let k = op_key(r, clients.of_request.get(i).copied().unwrap_or(0));
            let mut h = std::hash::DefaultHasher::new();
            std::hash::Hash::hash(&k, &mut h);
            let g = *index
                .entry(std::hash::Hasher::finish(&h))
                .or_insert_with(|| {
                    groups.push(Vec::new());
                    groups.len() - 1
                });
            groups[g].push(i);
        }
        drop(index);
        let slack = if coarse_timestamps(requests) {
            COARSE_SLACK_S
        } else {
            END_SLACK_S
        };
        let mut a = Attempts {
            of_request: vec![None; requests.len()],
            ..Default::default()
        };
        // Keys in order of first appearance, so logical numbers are deterministic.
        for idx in &groups {
            let cad = cadence(requests, idx);
            if let Some(c) = cad {
                a.poll_cadences.push(c);
            }
            let mut open: Vec<Open> = Vec::new();
            for &i in idx {
                let r = &requests[i];
                let (Some(t), Some(end)) = (start_s(r), end_s(r)) else {
                    continue;
                };
                open.retain(|o| t - o.last_end <= o.window);
                let key = idempotency_key(&r.request_headers).map(|(_, v)| v.to_string());
                // Candidates: waiting operations whose failed attempt had ended by now.
                let ready = |o: &Open| o.last_end <= t + slack;
                let pick = open
                    .iter()
                    .position(|o| ready(o) && key.is_some() && o.key == key)
                    .or_else(|| open.iter().position(ready));
                let mut attach = None;
                if let Some(p) = pick {
                    let is_poll = cad
                        .map(|c| t - open[p].last_start >= POLL_SHARE * c)
                        .unwrap_or(false);
                    if is_poll {
                        a.polls_after_failure += 1;
                        open.remove(p);
                    } else {
                        attach = Some(open.remove(p).logical);
                    }
                }
                let l = match attach {
                    Some(l) => l,
                    None => {
                        a.logical.push(Logical {
                            attempts: Vec::new(),
                            client: clients.of_request.get(i).copied().unwrap_or(0),
                        });
                        a.logical.len() - 1
                    }
                };
                a.of_request[i] = Some((l, a.logical[l].attempts.len()));
                a.logical[l].attempts.push(i);
                if is_failure(r.status) {
                    let ra = retry_after::from_headers(&r.response_headers, r.started)
                        .seconds
                        .unwrap_or(0.0);
                    let window = (1.5 * ra + 30.0).clamp(MIN_RETRY_WINDOW_S, MAX_RETRY_WINDOW_S);
                    open.push(Open {
                        logical: l,
                        last_start: t,
                        last_end: end,
                        window,
                        key,
                    });
                }
            }
        }
        a
    }

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
