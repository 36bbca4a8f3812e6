//! Which responses are rate limits: every 429, and the other statuses producers document for
//! their limits (a 400, 403 or 503 with a documented throttling code, rate-limit headers or
//! wording; a few vendors' own statuses), each with the evidence that made it count.

use crate::model::{Request, SignalVerdict};

/// Body wording that marks a 403/503 as a rate limit rather than an auth error or an outage
/// (matched in the lower-cased body).
const RATE_LIMIT_WORDS: &[&str] = &[
    "rate limit",
    "ratelimit",
    "rate_limit",
    "too many requests",
    "toomanyrequests",
    "request_limit_exceeded",
    "quota",
    "throttl",
    "resource_exhausted",
    "limitexceeded",
    "local_rate_limited",
    "error code: 1015",
    "spike arrest",
    "policies.ratelimit",
    "max connections reached",
    // Amazon S3's 503 SlowDown ("Please reduce your request rate.",
    // https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html).
    "reduce your request rate",
    "<code>slowdown</code>",
    "too many attempts",
];

/// Wording that marks a 400 as a rate limit: stricter than [`RATE_LIMIT_WORDS`], since a 400
/// is most often a bad parameter (one named `quota` or `rate` included).
const RATE_LIMIT_400_WORDS: &[&str] = &[
    "rate limit exceeded",
    "rate limit reached",
    "request limit reached",
    "request_limit_exceeded",
    "too many requests",
    "throttle_violation",
    "throttled",
    "throttling",
    // A login or verification endpoint's limit on tries (Firebase Auth's 400
    // TOO_MANY_ATTEMPTS_TRY_LATER, https://firebase.google.com/docs/reference/rest/auth).
    "too many attempts",
];

/// Documented throttling error codes, as their producers write them: matched case-sensitively
/// as whole tokens (between characters that cannot be part of an identifier) in the body or
/// an error-code header, so `SlowDown` is S3's code and not the English "slow down".
///
/// - AWS: the SDKs' throttling codes (botocore `retries/standard.py`, less
///   `LimitExceededException` and `TransactionInProgressException`, which also name resource
///   limits and conflicts; https://docs.aws.amazon.com/general/latest/gr/api-retries.html) and
///   Route 53's `PriorRequestNotComplete`; sent with 400 by the JSON and query protocols, 503
///   by S3 and EC2.
/// - Azure Storage: `ServerBusy`, its 503 when an account or partition is over its
///   scalability targets (https://learn.microsoft.com/rest/api/storageservices/common-rest-api-error-codes,
///   https://learn.microsoft.com/azure/storage/common/scalability-targets-resource-provider).
/// - Google APIs and gRPC: `RESOURCE_EXHAUSTED` and the `reason` values of the Google API
///   error model (https://cloud.google.com/apis/design/errors, `rateLimitExceeded`,
///   `userRateLimitExceeded`, `quotaExceeded`, `dailyLimitExceeded`), sent with 403 and 429.
pub const THROTTLE_CODES: &[&str] = &[
    "Throttling",
    "ThrottlingException",
    "ThrottledException",
    "RequestThrottledException",
    "TooManyRequestsException",
    "ProvisionedThroughputExceededException",
    "RequestLimitExceeded",
    "BandwidthLimitExceeded",
    "RequestThrottled",
    "SlowDown",
    "EC2ThrottledException",
    "PriorRequestNotComplete",
    "ServerBusy",
    "RESOURCE_EXHAUSTED",
    "rateLimitExceeded",
    "userRateLimitExceeded",
    "quotaExceeded",
    "dailyLimitExceeded",
    "TooManyRequests",
    "RATE_LIMIT_EXCEEDED",
    "rate_limit_exceeded",
    "TOO_MANY_REQUESTS",
    "too_many_requests",
    // TIBCO/Boomi Mashery's 403 for a key over its QPS throttle or its period's allowance, in
    // X-Mashery-Error-Code (https://developer.mashery.com/docs/read/mashery_api/20_reporting/error_codes).
    "ERR_403_DEVELOPER_OVER_QPS",
    "ERR_403_DEVELOPER_OVER_RATE",
];

/// Throttling codes as APIs spell them in every case and separator (`TooManyRequests`,
/// `TOO_MANY_REQUESTS`, `too-many-requests`, `RateLimitExceeded`, `rate_limit_exceeded`,
/// `TooManyRequestsException`): an identifier in the body or a code header whose letters, with
/// case, `_` and `-` dropped and a trailing `exception` or `error` removed, are one of these.
/// Each says "too many requests in a time", so it counts at any status. Not the codes that are
/// also English words (`SlowDown`, `Throttling`, `ServerBusy`: matched as written, in
/// [`THROTTLE_CODES`]), nor `LimitExceeded` and `QuotaExceeded`, which also name resource and
/// storage limits.
const SPELLED_CODES: &[&str] = &[
    "toomanyrequests",
    "ratelimitexceeded",
    "ratelimitreached",
    "ratelimited",
    "requestlimitexceeded",
    "requestratelimitexceeded",
    "userratelimitexceeded",
    "throttlingexception",
    "requestthrottled",
    "requeststhrottled",
    "toomanyattempts",
    "toomanyattemptstrylater",
    "toomanycalls",
];

/// Response headers that carry a producer's error code (AWS `x-amzn-ErrorType`, Azure's
/// `x-ms-error-code`, the AWS query protocol's `x-amz-error-code`, Mashery's
/// `X-Mashery-Error-Code`).
pub(super) const CODE_HEADERS: &[&str] = &[
    "x-amzn-errortype",
    "x-ms-error-code",
    "x-amz-error-code",
    "x-mashery-error-code",
];

/// Why a response counts as a rate limit: the signal that decided it and what it means.
#[derive(Debug, Clone, PartialEq)]
pub struct Why {
    pub signal: String,
    pub note: &'static str,
}

fn why(signal: impl Into<String>, note: &'static str) -> Option<Why> {
    Some(Why {
        signal: signal.into(),
        note,
    })
}

/// Is this response a rate-limit signal? See [`why_rate_limited`].
pub fn is_rate_limited(r: &Request) -> bool {
    why_rate_limited(r).is_some()
}

/// Why this response is a rate limit, or `None` when it is not one: every 429; a 503 or 403
/// carrying rate-limit evidence (Retry-After, an exhausted rate-limit header, a limiter's own
/// header, a documented throttling code, throttle wording or a limiter's own page); a 400 with
/// a documented throttling code or throttle wording; legacy Apigee's 500 spike-arrest fault;
/// IIS Dynamic IP Restrictions' other denyActions; Binance's 418 ban; and AWS WAF's CAPTCHA
/// (405) and Challenge (202) interstitials, which a rate-based rule answers with instead of a
/// 429 and which carry `x-amzn-waf-action` [W5].
pub fn why_rate_limited(r: &Request) -> Option<Why> {
    // An access log's own field can say it outright (nginx `$limit_req_status=REJECTED` on
    // limit_req's default 503, IIS 403.502, Envoy `RL`).
    if let Some(s) = r
        .layer_signal
        .as_ref()
        .filter(|s| s.rate_limit && s.verdict == SignalVerdict::Generated)
    {
        return why(
            s.field.clone(),
            "the access log's own field says a limiter rejected it",
        );
    }
    let body = || r.body_excerpt.as_deref().unwrap_or("").to_lowercase();
    match r.status {
        429 => why("status 429", "429 Too Many Requests (RFC 6585)"),
        503 | 403 => limit_headers(r)
            .or_else(|| throttle_code(r))
            .or_else(|| wording(&body(), RATE_LIMIT_WORDS))
            .or_else(|| prose(&body()))
            // nginx's default 503 page is what limit_req/limit_conn send [P1, P2].
            .or_else(|| {
                (r.status == 503 && body().contains("<center>nginx")).then(|| Why {
                    signal: "body: \"<center>nginx\"".into(),
                    note: "nginx's default 503 page, what limit_req and limit_conn answer with",
                })
            }),
        // Stack Exchange answers its throttle and exhausted quota with 400 and error_name
        // throttle_violation (https://api.stackexchange.com/docs/error-handling).
        400 => throttle_code(r)
            .or_else(|| wording(&body(), RATE_LIMIT_400_WORDS))
            .or_else(|| prose(&body())),
        // IIS Dynamic IP Restrictions' denyAction may be Unauthorized or NotFound instead of
        // Forbidden; its detailed page names the restriction (the IIS status-code table).
        401 | 404 => wording(&body(), &["dynamic ip restriction"]),
        500 => wording(&body(), &["policies.ratelimit"]),
        418 => binance_ban(r),
        202 | 405 => waf_interstitial(r),
        _ => None,
    }
}

/// A limiter's own header on a 403/503: Retry-After, an exhausted rate-limit family, Envoy's
/// and Traefik's limiter headers, AWS's and Alibaba Cloud's limit errors.
fn limit_headers(r: &Request) -> Option<Why> {
    let h = &r.response_headers;
    for name in ["retry-after", "retry-after-ms", "x-ms-retry-after-ms"] {
        if let Some(v) = h.get(name) {
            return why(
                format!("{name}: {v}"),
                "a wait to retry: the server limits this client",
            );
        }
    }
    // Alibaba Cloud API Gateway answers its flow control and exhausted quotas with 403 and the
    // reason in X-Ca-Error-Message (https://developer.aliyun.com/ask/278260).
    if let Some(v) = h.get("x-ca-error-message").filter(|v| {
        let v = v.to_ascii_lowercase();
        v.contains("flow control") || v.contains("quota exhausted")
    }) {
        return why(
            format!("x-ca-error-message: {v}"),
            "Alibaba Cloud API Gateway's flow control or exhausted quota",
        );
    }
    for name in ["x-envoy-ratelimited", "x-retry-in"] {
        if h.contains(name) {
            return why(name, "a rate limiter's own header");
        }
    }
    if let Some(v) = h
        .get("x-amzn-errortype")
        .filter(|v| v.contains("TooManyRequests") || v.contains("LimitExceeded"))
    {
        return why(
            format!("x-amzn-errortype: {v}"),
            "AWS's throttle or limit error",
        );
    }
    let fams = crate::http::ratelimit::parse_all(h, None);
    fams.iter()
        .find(|f| f.limits.remaining == Some(0.0))
        .and_then(|f| {
            why(
                format!("{}: 0 remaining", f.header),
                "an exhausted rate-limit header",
            )
        })
}

/// A documented throttling code ([`THROTTLE_CODES`]) in an error-code header or the body, as
/// its producer writes it.
fn throttle_code(r: &Request) -> Option<Why> {
    const NOTE: &str =
        "a documented throttling error code: the producer's rate limit, whatever the status";
    for name in CODE_HEADERS {
        if let Some(v) = r.response_headers.get(name) {
            let code = THROTTLE_CODES
                .iter()
                .find(|c| has_token(v, c))
                .map(|c| c.to_string())
                .or_else(|| spelled_code(v));
            if let Some(code) = code {
                return why(format!("{name}: {code}"), NOTE);
            }
        }
    }
    let body = r.body_excerpt.as_deref()?;
    THROTTLE_CODES
        .iter()
        .find(|c| has_token(body, c))
        .map(|c| c.to_string())
        .or_else(|| spelled_code(body))
        .and_then(|c| why(format!("body: \"{c}\""), NOTE))
}

/// A code header's value, else the body, with an identifier that spells one of
/// [`SPELLED_CODES`]: the identifier as written.
pub fn spelled_throttle_code(r: &Request) -> Option<String> {
    CODE_HEADERS
        .iter()
        .filter_map(|n| r.response_headers.get(n))
        .find_map(spelled_code)
        .or_else(|| r.body_excerpt.as_deref().and_then(spelled_code))
}

/// The first identifier in `text` (a run of letters, digits, `_` and `-`) that spells one of
/// [`SPELLED_CODES`].
fn spelled_code(text: &str) -> Option<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .filter(|t| t.len() >= 10 && t.len() <= 64)
        .find(|t| {
            let n: String = t
                .chars()
                .filter(|c| *c != '_' && *c != '-')
                .map(|c| c.to_ascii_lowercase())
                .collect();
            let n = n
                .strip_suffix("exception")
                .or_else(|| n.strip_suffix("error"))
                .unwrap_or(&n);
            SPELLED_CODES.contains(&n)
        })
        .map(str::to_string)
}

/// `text` holds `token` with no identifier character (letter, digit, `_`) on either side.
pub fn has_token(text: &str, token: &str) -> bool {
    let b = text.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut from = 0;
    while let Some(i) = text.get(from..).and_then(|t| t.find(token)) {
        let at = from + i;
        let end = at + token.len();
        let before = at == 0 || !ident(b[at - 1]);
        let after = end >= b.len() || !ident(b[end]);
        if before && after {
            return true;
        }
        from = at + 1;
    }
    false
}

/// The first of `words` in the lower-cased body.
fn wording(body_lc: &str, words: &[&str]) -> Option<Why> {
    words
        .iter()
        .find(|w| body_lc.contains(*w))
        .and_then(|w| why(format!("body: \"{w}\""), "rate-limit wording in the body"))
}

/// A limit on requests stated in words as exceeded ([`super::prose`]): "Developer Over Rate",
/// "the allowed number of requests has been exceeded", "daily transaction limit reached".
fn prose(body_lc: &str) -> Option<Why> {
    super::prose::limit_phrase(body_lc).and_then(|p| {
        why(
            format!("body: \"{p}\""),
            "the body says a limit on requests was exceeded",
        )
    })
}

/// Binance answers clients that keep going after 429s with 418 and a Retry-After until the IP
/// ban ends (developers.binance.com, REST API limits).
fn binance_ban(r: &Request) -> Option<Why> {
    let h = &r.response_headers;
    let mbx = h
        .iter()
        .any(|(n, _)| n.to_ascii_lowercase().starts_with("x-mbx-"));
    (mbx && h.contains("retry-after"))
        .then(|| why("status 418", "Binance's IP ban after ignored 429s"))
        .flatten()
}

/// AWS WAF's CAPTCHA and Challenge interstitials [W5].
fn waf_interstitial(r: &Request) -> Option<Why> {
    let v = r.response_headers.get("x-amzn-waf-action")?.trim();
    (v.eq_ignore_ascii_case("captcha") || v.eq_ignore_ascii_case("challenge")).then(|| Why {
        signal: format!("x-amzn-waf-action: {v}"),
        note: "AWS WAF's CAPTCHA or Challenge, which a rate-based rule answers with",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_need_their_own_case_and_boundaries() {
        assert!(has_token(
            "{\"__type\":\"com.amazonaws#ThrottlingException\"}",
            "ThrottlingException"
        ));
        assert!(has_token(
            "ThrottlingException:http://internal",
            "ThrottlingException"
        ));
        assert!(!has_token("throttlingexception", "ThrottlingException"));
        assert!(!has_token("NotThrottling", "Throttling"));
        assert!(!has_token("Throttling_x", "Throttling"));
        assert!(has_token("a Throttling b Throttling", "Throttling"));
        assert!(!has_token("", "SlowDown"));
    }

    #[test]
    fn throttling_codes_are_read_in_every_spelling() {
        for (text, code) in [
            ("{\"code\":\"RateLimitExceeded\"}", "RateLimitExceeded"),
            ("{\"error\":\"rate_limited\"}", "rate_limited"),
            ("error=too-many-requests", "too-many-requests"),
            (
                "TOO_MANY_ATTEMPTS_TRY_LATER : x",
                "TOO_MANY_ATTEMPTS_TRY_LATER",
            ),
            ("#TooManyRequestsException", "TooManyRequestsException"),
            (
                "{\"type\":\"RATE_LIMIT_REACHED_ERROR\"}",
                "RATE_LIMIT_REACHED_ERROR",
            ),
        ] {
            assert_eq!(spelled_code(text).as_deref(), Some(code), "{text}");
        }
        // English words, resource limits and longer identifiers are not these codes.
        for text in [
            "please slow down",
            "{\"code\":\"LimitExceededException\"}",
            "{\"code\":\"QuotaExceeded\"}",
            "{\"field\":\"rateLimit\"}",
            "maxTooManyRequestsCount",
            "rate limited",
        ] {
            assert_eq!(spelled_code(text), None, "{text}");
        }
    }
}
