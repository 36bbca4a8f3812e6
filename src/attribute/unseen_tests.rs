//! The classes of reasoning that carry attribution to producers the catalogue has never seen
//! (issue 40), each on examples taken from a primary source (named beside it) or, where marked,
//! built to state the rule. None of these producers has a catalogue row.

use super::*;
use crate::model::{Location, Position};
use crate::redact::Redactor;
use std::sync::Arc;

/// A rate-limited response from `host` (a JSON-lines-like record: headers, body as given; `None`
/// is a body the input did not record).
fn response(host: &str, status: u16, headers: &[(&str, &str)], body: Option<&str>) -> Request {
    let red = Redactor::from_key_material(b"unseen fixture key");
    let mut r = Request::at(Location {
        source: Arc::from("fixture"),
        position: Position::Line(1),
    });
    r.url = format!("https://{host}/v1/items");
    r.method = "GET".into();
    r.status = status;
    r.started = crate::http::date::parse_http_date("Mon, 07 Aug 2023 12:00:00 GMT");
    for (n, v) in headers {
        r.response_headers.push(*n, red.header(n, v));
    }
    match body {
        Some(b) if !b.is_empty() => r.body_excerpt = Some(red.excerpt(b, 4096)),
        Some(_) => {}
        None => r.body_not_captured = true,
    }
    r
}

fn verdict(r: Request) -> Attribution {
    assert!(is_rate_limited(&r), "not counted as rate limited: {r:?}");
    attribute(&[r], &[0]).remove(0)
}

const JSON: (&str, &str) = ("content-type", "application/json");

// ------------------------------------------------------------------ 1. host-derived vendor

/// hook.io's own 429 (github.com/stackvana/hook.io issue 326, body as pasted there): an origin
/// API the catalogue does not know is named by its registrable domain, less surely than a
/// catalogue match would be, and the evidence says so.
#[test]
fn an_unknown_origin_is_named_by_its_registrable_domain() {
    let body =
        "{\n\"error\": true,\n\"message\": \"Rate limited: Max concurrency limit hit: 4\"\n}";
    let a = verdict(response("hook.io", 429, &[JSON], Some(body)));
    assert_eq!((a.layer, a.vendor.as_deref()), (Layer::Api, Some("hook")));
    assert_eq!(a.quota, Quota::Concurrency, "{:#?}", a.evidence);
    assert!(a.evidence.iter().any(|e| e.signal == "host hook.io"
        && e.note.contains("Public Suffix List")
        && e.note.contains("less sure than a catalogue match")));
    // The same response on a documented host is surer.
    let known = verdict(response("api.github.com", 429, &[JSON], Some(body)));
    assert_eq!(known.vendor.as_deref(), Some("github"));
    assert!(
        known.confidence > a.confidence,
        "{} vs {}",
        known.confidence,
        a.confidence
    );
}

/// On a platform's shared domain the API runs on the platform: the platform is named (built to
/// state the rule; the suffixes are the Public Suffix List's private section).
#[test]
fn a_platform_shared_domain_names_the_platform() {
    let body = "{\"error\":\"rate limit exceeded, try again in 30 seconds\"}";
    for (host, slug) in [
        ("my-shop.herokuapp.com", "heroku"),
        ("edge-fn.acme.workers.dev", "cloudflare"),
        ("orders.azurewebsites.net", "azure"),
    ] {
        let a = verdict(response(host, 429, &[JSON], Some(body)));
        assert_eq!(
            (a.layer, a.vendor.as_deref()),
            (Layer::Api, Some(slug)),
            "{host}"
        );
        assert!(
            a.evidence
                .iter()
                .any(|e| e.note.contains("platform's shared domain")),
            "{host}"
        );
    }
}

/// Never for a CDN or proxy verdict: Cloudflare's 1015 page on an unknown host is Cloudflare's,
/// and nginx's own page is nginx's (the pages as Cloudflare and nginx write them).
#[test]
fn no_host_vendor_for_a_cdn_or_proxy_verdict() {
    let a = verdict(response(
        "shop.brightlane.co",
        429,
        &[
            ("server", "cloudflare"),
            ("cf-ray", "8a1b2c3d4e5f0000-AMS"),
            ("content-type", "text/plain"),
        ],
        Some("error code: 1015"),
    ));
    assert_eq!(
        (a.layer, a.vendor.as_deref()),
        (Layer::Cdn, Some("cloudflare"))
    );
    let page = "<html>\r\n<head><title>429 Too Many Requests</title></head>\r\n<body>\r\n<center><h1>429 Too Many Requests</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";
    let a = verdict(response(
        "api.brightlane.co",
        429,
        &[("server", "nginx"), ("content-type", "text/html")],
        Some(page),
    ));
    assert_eq!(
        (a.layer, a.vendor.as_deref()),
        (Layer::Proxy, Some("nginx"))
    );
}

// ------------------------------------------------------------------ 2. the window, any spelling

#[test]
fn the_window_is_read_in_every_spelling() {
    use super::engine::stated_window_for_tests as w;
    let secs = |s: &str| w(s).map(|(_, x)| x);
    // slowapi / Flask-Limiter (github.com/laurentS/slowapi extension.py: "5 per 1 minute").
    assert_eq!(
        secs("{\"error\":\"Rate limit exceeded: 5 per 1 minute\"}"),
        Some(60.0)
    );
    // Google quota ids (ai.google.dev rate limits: GenerateRequestsPerMinutePerProjectPerModel).
    assert_eq!(
        secs("\"quotaId\":\"GenerateRequestsPerMinutePerProjectPerModel\""),
        Some(60.0)
    );
    assert_eq!(
        secs("\"quotaId\":\"GenerateRequestsPerDayPerProjectPerModel-FreeTier\""),
        Some(86_400.0)
    );
    for (text, want) in [
        ("limit: requests_per_minute", 60.0),
        ("REQUESTS_PER_HOUR exceeded", 3600.0),
        ("max 100 calls per-second", 1.0),
        ("You may make 100 requests/min", 60.0),
        ("quota: 1000/day", 86_400.0),
        ("Limit is 20 RPM for this model", 60.0),
        ("free tier: 50 RPD", 86_400.0),
        ("no more than 10 requests per 60 seconds", 60.0),
        ("too many login attempts in the last hour", 3600.0),
        ("5 requests every 10 seconds", 10.0),
        ("allowed 10000 requests within 24 hours", 86_400.0),
        // Open-Meteo (github.com/open-meteo/open-meteo issue 439): the adverb is the window.
        ("Minutely API request limit exceeded.", 60.0),
        ("Hourly API request limit exceeded.", 3600.0),
        ("too many requests, try again in one minute", 60.0),
        ("at most 5,000 calls an hour", 3600.0),
    ] {
        assert_eq!(secs(text), Some(want), "{text}");
    }
    // Not windows: a URL path, a word that merely contains "per", a duration with no count.
    for text in [
        "see https://example.com/s/abc",
        "paper daytime",
        "upper minute hand",
        "wait a second request",
        "{}",
    ] {
        assert_eq!(secs(text), None, "{text}");
    }
}

/// pyannote's documented limit ("100 requests per minute", docs.pyannote.ai/ratelimits) read
/// from the body: a rate window, whatever else the body says.
#[test]
fn a_stated_window_decides_the_kind() {
    let body = "{\"detail\":\"Quota exceeded: 100 requests per minute\"}";
    let a = verdict(response("api.pyannote.ai", 429, &[JSON], Some(body)));
    assert_eq!(
        (a.vendor.as_deref(), a.quota),
        (Some("pyannote"), Quota::Rate),
        "{:#?}",
        a.evidence
    );
    let daily = "{\"detail\":\"quota exceeded: 1000 requests per day\"}";
    let a = verdict(response("api.pyannote.ai", 429, &[JSON], Some(daily)));
    assert_eq!(a.quota, Quota::Daily);
}

/// "Quota" alone names no kind (Google says it of per-minute limits, others of daily ones):
/// unknown, not a daily allowance (built to state the rule).
#[test]
fn quota_alone_is_not_a_daily_allowance() {
    let a = verdict(response(
        "api.brightlane.co",
        429,
        &[JSON],
        Some("{\"message\":\"Quota exceeded\"}"),
    ));
    assert_eq!(a.quota, Quota::Unknown, "{:#?}", a.evidence);
    assert!(a
        .evidence
        .iter()
        .any(|e| e.role == Role::Quota && e.note.contains("neither its window nor its kind")));
}

/// In-flight wording: Elasticsearch's thread-pool rejection (its 429
/// `es_rejected_execution_exception`, elastic.co docs "rejected execution") and Okta's
/// "Too many concurrent requests in flight" (developer.okta.com release notes 2017-40).
#[test]
fn in_flight_wording_is_concurrency() {
    for body in [
        "{\"error\":{\"type\":\"es_rejected_execution_exception\",\"reason\":\"rejected execution of coordinating operation\"},\"status\":429}",
        "{\"errorSummary\":\"Too many concurrent requests in flight\"}",
    ] {
        let a = verdict(response("search.brightlane.co", 429, &[JSON], Some(body)));
        assert_eq!(a.quota, Quota::Concurrency, "{body}");
    }
    // "N at a time" (built to state the rule).
    let at_a_time = "{\"error\":\"Only 5 requests may be running at a time\"}";
    let a = verdict(response("api.brightlane.co", 429, &[JSON], Some(at_a_time)));
    assert_eq!(a.quota, Quota::Concurrency, "{:#?}", a.evidence);
    // A limit of zero with zero left counts requests in flight, not a window.
    let h = [
        JSON,
        ("x-rate-limit-limit", "0"),
        ("x-rate-limit-remaining", "0"),
        ("x-rate-limit-reset", "1691409660"),
    ];
    let a = verdict(response("brightlane.okta-like.dev", 429, &h, Some("{}")));
    assert_eq!(a.quota, Quota::Concurrency, "{:#?}", a.evidence);
}

// ------------------------------------------------------------------ 3. a body not recorded

/// Envoy's global rate-limit filter answers with an empty 429; a response whose body was there
/// but not recorded (a HAR saved without content, a log with no body field) must not be read
/// as that empty answer (built to state the rule, on the Envoy rule's own fixture).
#[test]
fn a_body_not_recorded_is_unknown_not_empty() {
    let h = [
        ("server", "envoy"),
        ("date", "Mon, 07 Aug 2023 12:00:00 GMT"),
    ];
    let empty = verdict(response(
        "payments.brightlane.co",
        429,
        &[h[0], h[1], ("content-length", "0")],
        Some(""),
    ));
    assert_eq!(
        (empty.layer, empty.vendor.as_deref()),
        (Layer::Proxy, Some("envoy"))
    );
    for r in [
        response("payments.brightlane.co", 429, &h, None),
        response(
            "payments.brightlane.co",
            429,
            &[h[0], h[1], ("content-length", "118")],
            Some(""),
        ),
    ] {
        let a = verdict(r);
        assert_ne!(a.vendor.as_deref(), Some("envoy"), "{:#?}", a.evidence);
        assert!(
            a.evidence.iter().any(|e| e.signal == "body: not captured"),
            "{:#?}",
            a.evidence
        );
    }
}

// ------------------------------------------------------------------ 4. Retry-After as a timestamp

/// A Retry-After holding the reset time as epoch seconds (as a platform sent it) is that date:
/// a wait of seconds, a rate window, not 53 years.
#[test]
fn an_epoch_retry_after_is_a_date() {
    let h = [
        JSON,
        ("date", "Mon, 07 Aug 2023 12:00:00 GMT"),
        ("retry-after", "1691409642"),
    ];
    let r = response(
        "api.brightlane.co",
        429,
        &h,
        Some("{\"error\":\"too many requests\"}"),
    );
    let ra = crate::http::retry_after::from_headers(&r.response_headers, r.started);
    assert_eq!(
        (ra.kind, ra.seconds),
        (crate::http::retry_after::Kind::Date, Some(42.0))
    );
    assert_eq!(verdict(r).quota, Quota::Rate);
}

// ------------------------------------------------------------------ 5. the weighing

/// A shared error schema in the body (Anthropic's `rate_limit_error`, which relays and
/// compatible APIs copy) loses to the host's own catalogue entry; a vendor-only header wins.
/// Either way the runner-up is shown (built to state the rule).
#[test]
fn a_shared_body_schema_loses_to_the_hosts_catalogue_entry() {
    let body = "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"Number of requests has exceeded your rate limit\"}}";
    let a = verdict(response("api.groq.com", 429, &[JSON], Some(body)));
    assert_eq!(a.vendor.as_deref(), Some("groq"), "{:#?}", a.evidence);
    let r = a.runner_up.expect("a runner-up");
    assert_eq!(
        (r.layer, r.vendor.as_deref()),
        (Layer::Api, Some("anthropic"))
    );
    assert!(a
        .evidence
        .iter()
        .any(|e| e.role == Role::RuledOut && e.signal.starts_with("runner-up: api/anthropic")));
    let with_header = [JSON, ("anthropic-ratelimit-requests-remaining", "0")];
    let b = verdict(response("api.groq.com", 429, &with_header, Some(body)));
    assert_eq!(b.vendor.as_deref(), Some("anthropic"));
    assert_eq!(b.runner_up.and_then(|r| r.vendor).as_deref(), Some("groq"));
}

/// gRPC's status name in Google's error format (AIP-193, google.aip.dev/193, which APIs beyond
/// Google's follow) names no vendor: on an unknown host the host's owner is the vendor; a code
/// in another case is not the code.
#[test]
fn a_shared_status_code_names_no_vendor() {
    let body = "{\"error\":{\"code\":429,\"message\":\"Too many requests\",\"status\":\"RESOURCE_EXHAUSTED\"}}";
    let a = verdict(response("api.brightlane.co", 429, &[JSON], Some(body)));
    assert_eq!(a.vendor.as_deref(), Some("brightlane"), "{:#?}", a.evidence);
    let google = "{\"error\":{\"code\":429,\"status\":\"RESOURCE_EXHAUSTED\",\"details\":[{\"@type\":\"type.googleapis.com/google.rpc.ErrorInfo\",\"domain\":\"googleapis.com\"}]}}";
    let g = verdict(response("api.brightlane.co", 429, &[JSON], Some(google)));
    assert_eq!(g.vendor.as_deref(), Some("google"), "{:#?}", g.evidence);
    let r = response(
        "api.brightlane.co",
        400,
        &[JSON],
        Some("{\"status\":\"resource_exhausted\"}"),
    );
    assert!(
        !is_rate_limited(&r),
        "the code in another case is not the code"
    );
}

// ------------------------------------------------------------------ 6. 400/403/503 rate limits

#[test]
fn documented_throttling_codes_count_whatever_the_status() {
    // Azure Storage's 503 ServerBusy (learn.microsoft.com, storage common REST API error codes).
    let azure = response(
        "acct.blob.core.windows.net",
        503,
        &[("x-ms-error-code", "ServerBusy"), ("content-type", "application/xml")],
        Some("<?xml version=\"1.0\" encoding=\"utf-8\"?><Error><Code>ServerBusy</Code><Message>Operations per second is over the account limit.</Message></Error>"),
    );
    // NetSuite RESTlets answer their concurrency limit with 400 SSS_REQUEST_LIMIT_EXCEEDED
    // (docs.oracle.com, NetSuite "Errors Related to Concurrency Violations").
    let netsuite = response(
        "1234567.restlets.api.netsuite.com",
        400,
        &[JSON],
        Some("{\"error\":{\"code\":\"SSS_REQUEST_LIMIT_EXCEEDED\",\"message\":\"Request limit exceeded\"}}"),
    );
    // DynamoDB's 400 ThrottlingException (AWS general reference, API retries).
    let ddb = response(
        "dynamodb.us-east-1.amazonaws.com",
        400,
        &[("x-amzn-errortype", "ThrottlingException:http://internal.amazon.com/coral/com.amazon.coral.availability/"), JSON],
        Some("{\"__type\":\"com.amazon.coral.availability#ThrottlingException\",\"message\":\"Rate exceeded\"}"),
    );
    for r in [azure, netsuite, ddb] {
        let host = r.host();
        let a = verdict(r);
        assert_eq!(a.layer, Layer::Api, "{host}: {:#?}", a.evidence);
        assert!(
            a.evidence.iter().any(|e| e.role == Role::Limit),
            "{host}: {:#?}",
            a.evidence
        );
    }
    // An ordinary 400 or 503 is not a limit.
    let plain = response(
        "api.brightlane.co",
        400,
        &[JSON],
        Some("{\"error\":\"ValidationException: name is required\"}"),
    );
    assert!(!is_rate_limited(&plain));
    let outage = response(
        "api.brightlane.co",
        503,
        &[("x-ms-error-code", "InternalError")],
        Some(""),
    );
    assert!(!is_rate_limited(&outage));
}

// ------------------------------------------------------------------ 5. another vendor's words

/// Open-Meteo's 429 (github.com/open-meteo/open-meteo issue 832) says "…request limit
/// exceeded.", EC2's wording, and Oracle Cloud's documented 429 carries the code
/// `TooManyRequests`, Miro's: on a host whose registrable domain names another owner, a
/// catalogue vendor's words name nobody, and the host names the owner.
#[test]
fn another_vendors_words_on_an_unseen_host_name_the_host() {
    for (host, body, slug) in [
        (
            "api.open-meteo.com",
            "{\"error\":true,\"reason\":\"Daily API request limit exceeded. Please try again tomorrow.\"}",
            "open-meteo",
        ),
        (
            "iaas.us-ashburn-1.oraclecloud.com",
            "{\"code\":\"TooManyRequests\",\"message\":\"Too many requests for the user\"}",
            "oracle-cloud",
        ),
    ] {
        let a = verdict(response(host, 429, &[JSON], Some(body)));
        assert_eq!(
            (a.layer, a.vendor.as_deref()),
            (Layer::Api, Some(slug)),
            "{host}: {:#?}",
            a.evidence
        );
        assert!(
            a.evidence
                .iter()
                .any(|e| e.note.contains("says an API answered, not whose")),
            "{host}: {:#?}",
            a.evidence
        );
    }
    // A vendor-only header still names its vendor wherever it is seen (a relay passing
    // Anthropic's answer through), and so does a body that names the vendor itself.
    let h = [JSON, ("anthropic-ratelimit-requests-remaining", "0")];
    let a = verdict(response("llm.brightlane.co", 429, &h, Some("{}")));
    assert_eq!(a.vendor.as_deref(), Some("anthropic"), "{:#?}", a.evidence);
}

// ------------------------------------------------------------------ round 5

/// S3's error format and request-id headers are the protocol's, copied by every S3-compatible
/// store (MinIO's ErrOperationMaxedOut, github.com/minio/minio cmd/api-errors.go): on a host
/// that is not AWS's the host names the vendor; on AWS's own host, AWS.
#[test]
fn an_s3_compatible_store_is_named_by_its_host_not_aws() {
    let body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>SlowDown</Code><Message>A timeout exceeded while waiting to proceed with the request, please reduce your request rate</Message><RequestId>17B8E5C2A1D3F4E6</RequestId><HostId>dd90</HostId></Error>";
    let headers = [
        ("content-type", "application/xml"),
        ("x-amz-request-id", "17B8E5C2A1D3F4E6"),
        ("x-amz-id-2", "dd90"),
    ];
    for (host, vendor) in [
        ("minio.lab.acme-data.net", "acme-data"),
        ("s3.us-west-004.backblazeb2.com", "backblaze"),
        ("s3.eu-central-1.wasabisys.com", "wasabi"),
        ("bucket.s3.us-east-1.amazonaws.com", "aws"),
    ] {
        let a = verdict(response(host, 503, &headers, Some(body)));
        assert_eq!(
            (a.layer, a.vendor.as_deref(), a.quota),
            (Layer::Api, Some(vendor), Quota::Rate),
            "{host}: {:#?}",
            a.evidence
        );
    }
}

/// A throttling code counts at 400 in any spelling, and says what a 429 says (built to state
/// the rule).
#[test]
fn a_throttling_code_in_any_spelling_is_a_rate_limit_at_400() {
    for body in [
        "{\"error\":{\"code\":\"RateLimitExceeded\"}}",
        "{\"ok\":false,\"error\":\"rate_limited\"}",
        "{\"error\":\"too-many-requests\"}",
    ] {
        let a = verdict(response("api.parcelhub.io", 400, &[JSON], Some(body)));
        assert_eq!(
            (a.layer, a.vendor.as_deref(), a.quota),
            (Layer::Api, Some("parcelhub"), Quota::Rate),
            "{body}: {:#?}",
            a.evidence
        );
    }
    // A resource quota's code in another spelling is not a rate limit at 400.
    let r = response(
        "management.example-cloud.com",
        400,
        &[JSON],
        Some("{\"error\":{\"code\":\"QuotaExceeded\",\"message\":\"exceeding approved Cores quota\"}}"),
    );
    assert!(!is_rate_limited(&r));
}

/// Tyk's template is its indented layout; the same words on one line are any API's, and
/// "quota" alone states no kind.
#[test]
fn a_gateways_stock_words_on_one_line_are_the_apis() {
    let a = verdict(response(
        "api.parcelhub.io",
        429,
        &[JSON],
        Some("{\"error\":\"Quota exceeded\"}"),
    ));
    assert_eq!(
        (a.layer, a.vendor.as_deref(), a.quota),
        (Layer::Api, Some("parcelhub"), Quota::Unknown),
        "{:#?}",
        a.evidence
    );
    let t = verdict(response(
        "api.parcelhub.io",
        403,
        &[JSON],
        Some("{\n    \"error\": \"Quota exceeded\"\n}"),
    ));
    assert_eq!(
        (t.layer, t.vendor.as_deref(), t.quota),
        (Layer::Proxy, Some("tyk"), Quota::Daily)
    );
}

/// Wording in any spelling: separated by `_` or `-`, or run together.
#[test]
fn wording_is_read_in_every_spelling() {
    for (body, want) in [
        (
            "{\"error\":\"TOO_MANY_CONCURRENT_REQUESTS\"}",
            Quota::Concurrency,
        ),
        (
            "{\"message\":\"You have exceeded your rate-limit\"}",
            Quota::Rate,
        ),
        (
            "{\"error\":{\"code\":\"ACCESS_LIMIT_REACHED\"}}",
            Quota::Daily,
        ),
        ("{\"code\":\"DAILY_LIMIT_EXCEEDED\"}", Quota::Daily),
    ] {
        let a = verdict(response("api.geocodely.com", 429, &[JSON], Some(body)));
        assert_eq!(a.quota, want, "{body}: {:#?}", a.evidence);
    }
}
