//! Round three of issue 40's classes: a vendor's name from its host when the catalogue has
//! none (clouds' service domains, the brand in a label), an origin's own short words, the 429
//! signatures of widely deployed server software, and limits stated in prose at 400/403/503.
//! Each example is from the primary source named beside it, or marked as built to state the
//! rule.

use super::*;
use crate::model::{Location, Position};
use std::sync::Arc;

fn response(host: &str, status: u16, headers: &[(&str, &str)], body: &str) -> Request {
    let mut r = Request::at(Location {
        source: Arc::from("fixture"),
        position: Position::Line(1),
    });
    r.url = format!("https://{host}/v1/items");
    r.method = "POST".into();
    r.status = status;
    for (n, v) in headers {
        r.response_headers.push(*n, *v);
    }
    r.body_excerpt = (!body.is_empty()).then(|| body.to_string());
    r
}

fn verdict(r: Request) -> Attribution {
    assert!(is_rate_limited(&r), "not counted as rate limited: {r:?}");
    attribute(&[r], &[0]).remove(0)
}

fn who(a: &Attribution) -> (Layer, Option<&str>) {
    (a.layer, a.vendor.as_deref())
}

const JSON: (&str, &str) = ("content-type", "application/json");

// ------------------------------------------------------------------ the vendor from the host

/// Alibaba Cloud Model Studio's throttling error (its error-code page: Throttling.RateQuota,
/// "Requests rate limit exceeded, please try again later.") on `dashscope.aliyuncs.com`: the
/// domain is the cloud's, so the cloud is named, not "aliyuncs".
#[test]
fn a_clouds_service_domain_names_the_cloud() {
    let body = "{\"code\":\"Throttling.RateQuota\",\"message\":\"Requests rate limit exceeded, please try again later.\",\"request_id\":\"8f1c\"}";
    let a = verdict(response("dashscope.aliyuncs.com", 429, &[JSON], body));
    assert_eq!(
        who(&a),
        (Layer::Api, Some("alibaba-cloud")),
        "{:#?}",
        a.evidence
    );
    assert_eq!(a.quota, Quota::Rate);
    // A customer's API on API Gateway's shared names runs on AWS (built to state the rule).
    let a = verdict(response(
        "abc123def4.execute-api.eu-west-1.amazonaws.com",
        429,
        &[JSON],
        "{\"error\":\"quota for this key used up, try again in 10 seconds\"}",
    ));
    assert_eq!(who(&a), (Layer::Api, Some("aws")), "{:#?}", a.evidence);
}

/// Alchemy's compute-units 429 (docs.alchemy.com, "Throughput": "Your app has exceeded its
/// compute units per second capacity") on its `alchemyapi.io` hosts: a host-derived name keeps
/// the whole label (`alchemyapi`), so the brand comes from the catalogue's row; a one-letter
/// label keeps its suffix (built to state the rule).
#[test]
fn the_brand_is_the_catalogues_or_the_whole_label() {
    let body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":429,\"message\":\"Your app has exceeded its compute units per second capacity.\"}}";
    let a = verdict(response("eth-mainnet.alchemyapi.io", 429, &[JSON], body));
    assert_eq!(who(&a), (Layer::Api, Some("alchemy")), "{:#?}", a.evidence);
    assert_eq!(a.quota, Quota::Rate, "{:#?}", a.evidence);
    let a = verdict(response(
        "api.z.ai",
        429,
        &[JSON],
        "{\"error\":{\"code\":\"1302\",\"message\":\"High concurrency usage of this API\"}}",
    ));
    assert_eq!(who(&a), (Layer::Api, Some("z-ai")), "{:#?}", a.evidence);
}

// ------------------------------------------------------------------ the origin's own words

/// A short message in the application's own words, no proxy or CDN marker: the origin, at low
/// confidence; the bare status phrase any stack writes stays unknown; a CDN's own text is the
/// CDN's (built to state the rule).
#[test]
fn an_origins_own_short_message_is_the_origin() {
    let a = verdict(response(
        "api.brightlane.co",
        429,
        &[("content-type", "text/plain")],
        "Rate limit exceeded. Try again in 60 seconds.",
    ));
    assert_eq!(
        who(&a),
        (Layer::Api, Some("brightlane")),
        "{:#?}",
        a.evidence
    );
    assert!(a.confidence < 0.5, "{}", a.confidence);
    assert_eq!(a.quota, Quota::Rate);
    let bare = verdict(response(
        "api.brightlane.co",
        429,
        &[("content-type", "text/plain; charset=utf-8")],
        "429 Too Many Requests",
    ));
    assert_eq!(bare.layer, Layer::Unknown, "{:#?}", bare.evidence);
    let cdn = verdict(response(
        "api.brightlane.co",
        429,
        &[("server", "cloudflare"), ("cf-ray", "8a1b2c3d4e5f0000-AMS")],
        "error code: 1015",
    ));
    assert_eq!(who(&cdn), (Layer::Cdn, Some("cloudflare")));
}

/// An XML error object without a prolog is a structured error like JSON, not a page; an HTML
/// page is still a page (built to state the rule).
#[test]
fn an_xml_error_object_is_the_origins() {
    let a = verdict(response(
        "api.brightlane.co",
        429,
        &[("content-type", "text/xml")],
        "<response><error><code>429</code><message>Too many requests for this account</message></error></response>",
    ));
    assert_eq!(a.layer, Layer::Api, "{:#?}", a.evidence);
    let page = verdict(response(
        "api.brightlane.co",
        429,
        &[("content-type", "text/html")],
        "<html><head><title>429</title></head><body><h1>Too Many Requests</h1></body></html>",
    ));
    assert_eq!(page.layer, Layer::Unknown, "{:#?}", page.evidence);
}

// ------------------------------------------------------------------ server software

/// Elasticsearch's thread-pool rejection (the error as logged in github.com/elastic/logstash
/// issue 11090, in the REST error format), behind a host nobody documents.
#[test]
fn elasticsearch_rejections_are_concurrency() {
    let body = "{\"error\":{\"root_cause\":[{\"type\":\"es_rejected_execution_exception\",\"reason\":\"rejected execution of org.elasticsearch.transport.TransportService$7@85be457 on EsThreadPoolExecutor[bulk, queue capacity = 200, active threads = 16, queued tasks = 200]\"}],\"type\":\"es_rejected_execution_exception\",\"reason\":\"rejected execution\"},\"status\":429}";
    let a = verdict(response(
        "search.corp.example.net",
        429,
        &[JSON, ("x-elastic-product", "Elasticsearch")],
        body,
    ));
    assert_eq!(
        who(&a),
        (Layer::Api, Some("elasticsearch")),
        "{:#?}",
        a.evidence
    );
    assert_eq!(a.quota, Quota::Concurrency, "{:#?}", a.evidence);
}

/// The Matrix spec's rate-limit error (spec.matrix.org, client-server API, "Rate limiting").
#[test]
fn matrix_limit_exceeded_is_a_rate() {
    let body = "{\"errcode\":\"M_LIMIT_EXCEEDED\",\"error\":\"Too many requests\",\"retry_after_ms\":2000}";
    let a = verdict(response("matrix.brightlane.co", 429, &[JSON], body));
    assert_eq!(who(&a), (Layer::Api, Some("matrix")), "{:#?}", a.evidence);
    assert_eq!(a.quota, Quota::Rate);
}

/// The Kubernetes API server: max-in-flight / APF refusal (maxinflight.go's http.Error with
/// Retry-After 1, APF's headers) is concurrency; the watch cache's "storage is
/// (re)initializing" Status (a 429 too) is no quota; express-rate-limit's identical sentence as
/// text/html is not Kubernetes.
#[test]
fn kubernetes_refusals_are_concurrency_or_no_quota() {
    let a = verdict(response(
        "10.96.0.1",
        429,
        &[
            ("content-type", "text/plain; charset=utf-8"),
            ("x-content-type-options", "nosniff"),
            ("retry-after", "1"),
            ("x-kubernetes-pf-flowschema-uid", "7f3e0c1a"),
            ("x-kubernetes-pf-prioritylevel-uid", "1b2c3d4e"),
        ],
        "Too many requests, please try again later.\n",
    ));
    assert_eq!(
        who(&a),
        (Layer::Api, Some("kubernetes")),
        "{:#?}",
        a.evidence
    );
    assert_eq!(a.quota, Quota::Concurrency, "{:#?}", a.evidence);
    let status = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"storage is (re)initializing\",\"reason\":\"TooManyRequests\",\"details\":{\"retryAfterSeconds\":1},\"code\":429}";
    let a = verdict(response(
        "10.96.0.1",
        429,
        &[JSON, ("retry-after", "1")],
        status,
    ));
    assert_eq!(
        who(&a),
        (Layer::Api, Some("kubernetes")),
        "{:#?}",
        a.evidence
    );
    assert_eq!(a.quota, Quota::Unknown, "{:#?}", a.evidence);
    let express = verdict(response(
        "api.brightlane.co",
        429,
        &[
            ("content-type", "text/html; charset=utf-8"),
            ("retry-after", "60"),
        ],
        "Too many requests, please try again later.",
    ));
    assert_ne!(express.vendor.as_deref(), Some("kubernetes"));
    assert_eq!(express.quota, Quota::Rate);
}

/// Jira Data Center's own limiter through Tomcat's error page (headers from
/// github.com/ahungry/org-jira issue 365): its documented token-bucket headers name Atlassian.
#[test]
fn jira_data_center_is_atlassian() {
    let a = verdict(response(
        "jira.corp.example.net",
        429,
        &[
            ("content-type", "text/html;charset=utf-8"),
            ("x-seraph-loginreason", "OK"),
            ("x-ratelimit-limit", "5"),
            ("x-ratelimit-remaining", "1"),
            ("x-ratelimit-fillrate", "5"),
            ("x-ratelimit-interval-seconds", "1"),
        ],
        "<!doctype html><html lang=\"en\"><head><title>HTTP Status 429 – Too Many Requests</title></head><body><h1>HTTP Status 429 – Too Many Requests</h1><p><b>Message</b> Rate limit exceeded.</p><h3>Apache Tomcat/9.0.95</h3></body></html>",
    ));
    assert_eq!(
        who(&a),
        (Layer::Api, Some("atlassian")),
        "{:#?}",
        a.evidence
    );
}

// ------------------------------------------------------------------ limits stated in prose

/// TIBCO Mashery's 403 "Developer Over Rate" (Mashery's error-handling docs:
/// ERR_403_DEVELOPER_OVER_RATE), a 503 and a 400 that say in words that a limit on requests was
/// exceeded: each is a rate limit with a `limit` evidence line naming the phrase.
#[test]
fn limits_stated_in_prose_count_at_400_403_503() {
    for (status, headers, body, phrase) in [
        (
            403,
            vec![("content-type", "text/xml")],
            "<h1>Developer Over Rate</h1>",
            "over rate",
        ),
        (
            503,
            vec![JSON],
            "{\"message\":\"The allowed number of requests has been exceeded.\"}",
            "number of requests",
        ),
        (
            400,
            vec![JSON],
            "{\"error\":\"You have reached your daily transaction limit.\"}",
            "transaction limit",
        ),
        (
            403,
            vec![JSON],
            "{\"error\":\"Request Rate Threshold Exceeded\"}",
            "rate threshold",
        ),
    ] {
        let a = verdict(response("api.brightlane.co", status, &headers, body));
        assert!(
            a.evidence
                .iter()
                .any(|e| e.role == Role::Limit && e.signal.contains(phrase)),
            "{body}: {:#?}",
            a.evidence
        );
    }
    let daily = verdict(response(
        "api.brightlane.co",
        400,
        &[JSON],
        "{\"error\":\"You have reached your daily transaction limit.\"}",
    ));
    assert_eq!(daily.quota, Quota::Daily, "{:#?}", daily.evidence);
}

/// A 403 that only says forbidden, or a limit on something other than requests, is not a rate
/// limit (built to state the rule).
#[test]
fn forbidden_and_other_limits_are_not_rate_limits() {
    for (status, body) in [
        (403, "{\"message\":\"Forbidden\"}"),
        (403, "<html><head><title>403 Forbidden</title></head><body><h1>Forbidden</h1><p>You don't have permission to access this resource.</p></body></html>"),
        (400, "{\"error\":\"Request size limit exceeded\"}"),
        (400, "{\"error\":\"limit must be at most 100; the request is over the maximum\"}"),
        (403, "{\"error\":\"You have exceeded your storage limit\"}"),
        (503, "Service Unavailable: the server is over capacity"),
    ] {
        let r = response("api.brightlane.co", status, &[JSON], body);
        assert!(!is_rate_limited(&r), "{status} {body}");
    }
}
