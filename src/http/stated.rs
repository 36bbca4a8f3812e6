//! The limit a response's rate-limit headers state, as (limit × 1000, window × 1000), read from
//! the few header names that can hold one and remembered per thread by their text.

use super::headers::Headers;
use crate::memo::Memo;
use chrono::{DateTime, Utc};

/// Response header names [`stated_limit`] reads (every rate-limit family's name holds
/// "limit"): a parser taking the view path needs to redact and keep only these.
pub fn is_limit_header(name: &str) -> bool {
    limit_and_reset(name).0
}

/// Whether a header name holds "limit" and whether it holds "reset" (any case), in one pass
/// over its bytes: [`stated_limit`] asks both of every response header. `b | 0x20` folds
/// exactly the ASCII letters it is compared with, as `eq_ignore_ascii_case` does.
///
/// Only a window that starts with an `l` or an `r` is compared, and those starts are found
/// eight bytes at a time; [`stated_limit`] also remembers the answer per name. Folding and
/// comparing every window of every name was most of what a remembered stated limit cost.
fn limit_and_reset(name: &str) -> (bool, bool) {
    const fn splat(b: u8) -> u64 {
        u64::from_le_bytes([b; 8])
    }
    // High bit of each zero byte (and perhaps of bytes above one: a candidate is checked).
    let zero = |x: u64| x.wrapping_sub(splat(1)) & !x & splat(0x80);
    let b = name.as_bytes();
    let (mut limit, mut reset) = (false, false);
    let folded = |at: usize, word: &[u8; 5]| (1..5).all(|i| b[at + i] | 0x20 == word[i]);
    let starts = b.len().saturating_sub(4);
    let mut check = |at: usize| match b[at] | 0x20 {
        b'l' => limit = limit || folded(at, b"limit"),
        b'r' => reset = reset || folded(at, b"reset"),
        _ => {}
    };
    let mut base = 0;
    while base + 8 <= b.len() {
        let word: [u8; 8] = b[base..base + 8].try_into().unwrap_or_default();
        let v = u64::from_le_bytes(word) | splat(0x20);
        let mut hits = zero(v ^ splat(b'l')) | zero(v ^ splat(b'r'));
        while hits != 0 {
            let at = base + (hits.trailing_zeros() / 8) as usize;
            hits &= hits - 1;
            if at < starts {
                check(at);
            }
        }
        base += 8;
    }
    for at in base..starts {
        check(at);
    }
    (limit, reset)
}

/// The memos of [`stated_limit`]: per header name, whether it holds "limit" and "reset"; per
/// text of the limit headers (names and values, `\0`-separated), the stated limit.
struct StatedLimits {
    names: Memo<(bool, bool)>,
    limits: Memo<Option<(u64, u64)>>,
    key: Vec<u8>,
}

thread_local! {
    static STATED_LIMITS: std::cell::RefCell<StatedLimits> = const {
        std::cell::RefCell::new(StatedLimits {
            names: Memo::new(256, 48),
            limits: Memo::new(1024, 512),
            key: Vec::new(),
        })
    };
}

/// The (limit × 1000, window × 1000) the rate-limit headers state, when they state both.
///
/// Only the [`is_limit_header`] names are read (a test holds that to `ratelimit::parse_all`),
/// and the result is remembered per distinct text of them: a service sends the same few limit
/// headers on every response, with a count that cycles (on the realistic bench input this
/// memo saves 3 % of a JSON-lines run's instructions). A set with a `reset` field is parsed
/// every time when its reset is a time (an epoch, a date), which is read against the record's
/// time: the key would not hold all the answer depends on. A reset in delta seconds (`60`,
/// the IETF fields' and most families' form) is read without the time, so its set is
/// remembered like any other ([`delta_seconds`]).
pub fn stated_limit(h: &Headers, started: Option<DateTime<Utc>>) -> Option<(u64, u64)> {
    // No response header, no stated limit (most access-log lines log none).
    if h.is_empty() {
        return None;
    }
    STATED_LIMITS.with(|c| {
        let StatedLimits { names, limits, key } = &mut *c.borrow_mut();
        key.clear();
        for (n, v) in h.iter() {
            let (limit, reset) = names.get_or(n.as_bytes(), || limit_and_reset(n));
            if !limit {
                continue;
            }
            if reset && !delta_seconds(v) {
                return parse_stated_limit(h, started);
            }
            key.extend_from_slice(n.as_bytes());
            key.push(0);
            key.extend_from_slice(v.as_bytes());
            key.push(0);
        }
        if key.is_empty() {
            return None;
        }
        limits.get_or(key, || parse_stated_limit(h, started))
    })
}

/// Whether [`ratelimit::reset_value`](super::ratelimit::reset_value) reads `v` without the
/// record's time: a number below 10^9 (a delta; a larger one is an epoch), or no number at all
/// that it would turn into one (blank, negative, not finite: no reset). Everything else it
/// parses (a duration, a date) may be read against the time.
fn delta_seconds(v: &str) -> bool {
    let v = v.trim();
    v.is_empty()
        || v.parse::<f64>()
            .is_ok_and(|x| !(x.is_finite() && x >= super::ratelimit::EPOCH_FROM))
}

fn parse_stated_limit(h: &Headers, started: Option<DateTime<Utc>>) -> Option<(u64, u64)> {
    super::ratelimit::parse(h, started).and_then(|l| match (l.limit, l.window_seconds) {
        (Some(c), Some(w))
            if c.is_finite() && w.is_finite() && c > 0.0 && w > 0.0 && c < 1e12 && w < 1e9 =>
        {
            Some(((c * 1000.0) as u64, (w * 1000.0) as u64))
        }
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_limit_headers_are_all_stated_limit_reads() {
        let sets: &[&[(&str, &str)]] = &[
            &[
                ("X-RateLimit-Limit", "120"),
                ("X-RateLimit-Remaining", "5"),
                ("Content-Type", "x"),
            ],
            &[
                ("ratelimit-policy", "100;w=60"),
                ("ratelimit", "limit=100, remaining=4, reset=9"),
            ],
            &[
                ("RateLimit-Limit", "60"),
                ("RateLimit-Remaining", "0"),
                ("RateLimit-Reset", "23"),
            ],
            &[
                ("x-shopify-shop-api-call-limit", "39/40"),
                ("date", "Mon, 01 Jan 2024 00:00:00 GMT"),
            ],
            &[("sforce-limit-info", "api-usage=18/5000")],
            &[("x-rate-limit", "700"), ("x-rate-limit-remaining", "0")],
            &[(
                "zendesk-ratelimit-tickets-index",
                "total=100; remaining=99; resets=10",
            )],
            &[
                ("x-ratelimit-limit-requests", "500"),
                ("x-ratelimit-reset-requests", "120ms"),
            ],
            &[
                ("anthropic-ratelimit-requests-limit", "50"),
                ("retry-after", "3"),
            ],
            &[("x-ms-ratelimit-remaining-subscription-reads", "11999")],
            &[("X-RateLimit-Limit", "10, 10;w=60"), ("Server", "nginx")],
        ];
        let t = chrono::DateTime::from_timestamp(1_704_067_200, 0);
        for set in sets {
            let all = Headers::from_pairs(set.iter().copied());
            let named =
                Headers::from_pairs(set.iter().copied().filter(|(n, _)| is_limit_header(n)));
            assert_eq!(
                crate::http::ratelimit::parse_all(&all, t),
                crate::http::ratelimit::parse_all(&named, t),
                "{set:?}"
            );
            assert_eq!(stated_limit(&all, t), stated_limit(&named, t));
        }
        assert!(is_limit_header("X-RATELIMIT-LIMIT") && !is_limit_header("retry-after"));
        // Remembered answers are the parsed ones, asked twice and in any order.
        for _ in 0..2 {
            for set in sets.iter().rev() {
                let h = Headers::from_pairs(set.iter().copied());
                assert_eq!(stated_limit(&h, t), parse_stated_limit(&h, t), "{set:?}");
            }
        }
    }

    /// A set with a reset is remembered only when its reset is read without the record's time:
    /// asked at other times, every answer is the one parsed at that time.
    #[test]
    fn reset_sets_answer_as_parsed_at_every_time() {
        let epoch = 1_704_067_200i64;
        let sets: &[&[(&str, &str)]] = &[
            &[("X-RateLimit-Limit", "60"), ("X-RateLimit-Reset", "30")],
            &[("X-RateLimit-Limit", "60"), ("X-RateLimit-Reset", " 30.5 ")],
            &[("X-RateLimit-Limit", "60"), ("X-RateLimit-Reset", "-1")],
            &[("X-RateLimit-Limit", "60"), ("X-RateLimit-Reset", "")],
            &[
                ("X-RateLimit-Limit", "60"),
                ("X-RateLimit-Reset", "1704067260"),
            ],
            &[
                ("X-RateLimit-Limit", "60"),
                ("X-RateLimit-Reset", "1704067260000"),
            ],
            &[
                ("X-RateLimit-Limit", "60"),
                ("X-RateLimit-Reset", "999999999"),
            ],
            &[("X-RateLimit-Limit", "60"), ("X-RateLimit-Reset", "6m0s")],
            &[
                ("X-RateLimit-Limit", "60"),
                ("X-RateLimit-Reset", "2024-01-01T00:01:00Z"),
            ],
            &[
                ("RateLimit-Limit", "100"),
                ("RateLimit-Remaining", "0"),
                ("RateLimit-Reset", "20"),
            ],
        ];
        for secs in [epoch, epoch + 30, epoch + 59, epoch - 3600, epoch] {
            let t = chrono::DateTime::from_timestamp(secs, 0);
            for set in sets {
                let h = Headers::from_pairs(set.iter().copied());
                assert_eq!(
                    stated_limit(&h, t),
                    parse_stated_limit(&h, t),
                    "{set:?} at {secs}"
                );
            }
        }
        assert!(delta_seconds("30") && delta_seconds(" ") && delta_seconds("NaN"));
        assert!(!delta_seconds("1000000000") && !delta_seconds("6m0s") && !delta_seconds("x"));
    }

    #[test]
    fn limit_and_reset_is_both_substring_checks() {
        let by_definition = |n: &str, word: &[u8]| {
            n.as_bytes()
                .windows(5)
                .any(|w| w.eq_ignore_ascii_case(word))
        };
        for n in [
            "X-RateLimit-Limit",
            "x-ratelimit-reset",
            "RATELIMIT-RESET",
            "ratelimit-policy",
            "Retry-After",
            "limit",
            "limi",
            "",
            "x-l\u{ef}mit",
            "x-LIMIT-r\u{c9}set",
            "[imit{eset",
            "LIMIt-ReSeT",
            "LIMITRESET",
            "rlimit",
            "lreset",
            "rese",
            "xlimi",
            "x-limit",
            "x-ratelimit-remaining-requests-limit",
            "aaaaaaalimit",
            "aaaaaaaareset",
            "llllllllllllllllimit",
        ] {
            assert_eq!(
                limit_and_reset(n),
                (by_definition(n, b"limit"), by_definition(n, b"reset")),
                "{n}"
            );
        }
    }

    proptest! {
        /// The eight-at-a-time search finds every start the byte-by-byte definition does.
        #[test]
        fn limit_and_reset_is_the_definition(n in "([lLrR]|limit|LiMiT|reset|ReSeT|[a-z]|[-\\[{\x01\u{80}é]){0,24}") {
            let by_definition = |word: &[u8]| n.as_bytes().windows(5).any(|w| w.eq_ignore_ascii_case(word));
            prop_assert_eq!(limit_and_reset(&n), (by_definition(b"limit"), by_definition(b"reset")));
        }
    }
}
