//! Every format read from real example lines of its own documentation or source (cited beside
//! each test), and, for every format with a layer signal, a 429 the layer made itself told
//! apart from one it passed through, with the deciding field named in the evidence.
//!
//! Where no public 429 line exists, the 429 is the cited real line with only the status and
//! the signal fields changed (said beside the test).

use super::*;
use crate::attribute::{self, Attribution, Layer, Role};
use crate::ingest::ReadOutcome;
use crate::model::Position;
use crate::model::SignalVerdict;
use crate::redact::Redactor;
use chrono::SecondsFormat;
use std::io::Cursor;

fn opts() -> Options {
    Options::new(Redactor::from_key_material(b"test key"))
}

fn src() -> Arc<str> {
    Arc::from("access.log")
}

/// Sniff the layout from the lines themselves, then read them all.
fn read_lines(text: &str, hint: Format) -> ReadOutcome {
    read(
        Box::new(Cursor::new(text.as_bytes().to_vec())),
        &src(),
        &opts(),
        hint,
    )
}

/// One line read with the layout sniffed from it (no hint): the whole no-flag path.
fn one(line: &str) -> (Request, String) {
    let parser = sniff_layout(format!("{line}\n").as_bytes(), None)
        .unwrap_or_else(|e| panic!("not sniffed: {e}"));
    let mut out = Vec::new();
    parser
        .parse_line(line, 1, &src(), &opts(), &mut out)
        .unwrap_or_else(|e| panic!("{}: {e}", parser.label));
    assert_eq!(out.len(), 1);
    (out.pop().unwrap(), parser.label)
}

fn start(r: &Request) -> String {
    r.started
        .expect("a start time")
        .to_rfc3339_opts(SecondsFormat::Micros, true)
}

fn attribution(r: &Request) -> Attribution {
    assert!(attribute::is_rate_limited(r), "not counted as rate limited");
    attribute::attribute(std::slice::from_ref(r), &[0]).remove(0)
}

/// The layer made it: its slug is the verdict and the field is named in the evidence.
fn assert_generated(r: &Request, layer: Layer, vendor: &str, field: &str) {
    let a = attribution(r);
    assert_eq!(
        (a.layer, a.vendor.as_deref()),
        (layer, Some(vendor)),
        "{a:#?}"
    );
    assert!(
        a.evidence
            .iter()
            .any(|e| e.role == Role::Producer && e.signal.contains(field)),
        "no producer evidence naming {field}: {:#?}",
        a.evidence
    );
    assert!(a.confidence >= 0.8, "{}", a.confidence);
}

/// The layer passed it through: the origin is the verdict and the field names why.
fn assert_passed(r: &Request, logger: &str, field: &str) {
    let a = attribution(r);
    assert_eq!(a.layer, Layer::Api, "{a:#?}");
    assert_ne!(a.vendor.as_deref(), Some(logger));
    let ev = a
        .evidence
        .iter()
        .find(|e| e.signal.contains(field))
        .unwrap_or_else(|| panic!("no evidence naming {field}: {:#?}", a.evidence));
    assert!(ev.note.contains("relayed"), "{}", ev.note);
    assert_eq!(
        r.layer_signal.as_ref().unwrap().verdict,
        SignalVerdict::PassedThrough
    );
}

// ------------------------------------------------------------------------------------------
// nginx

/// elastic/beats `filebeat/module/nginx/access/test/test.log`
/// (https://github.com/elastic/beats/blob/main/filebeat/module/nginx/access/test/test.log).
const BEATS_NGINX: &str = r#"85.181.35.98 - - [07/Dec/2016:11:05:07 +0100] "GET /ocelot HTTP/1.1" 200 571 "-" "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_14_0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/70.0.3538.102 Safari/537.36"
10.0.0.2, 10.0.0.1, 85.181.35.98 - - [07/Dec/2016:11:05:07 +0100] "GET /ocelot HTTP/1.1" 200 571 "-" "Mozilla/5.0 (Macintosh; Intel Mac OS X 10.12; rv:49.0) Gecko/20100101 Firefox/49.0"
"#;

#[test]
fn nginx_combined_from_beats_fixture() {
    let o = read_lines(BEATS_NGINX, Format::Nginx);
    assert_eq!(o.creator.as_deref(), Some("nginx combined"));
    assert_eq!(o.requests.len(), 2, "{:?}", o.warnings);
    let r = &o.requests[0];
    // $time_local is the end; combined logs no duration, so the start is that time.
    assert_eq!(start(r), "2016-12-07T10:05:07.000000Z");
    assert_eq!(
        (r.method.as_str(), r.url.as_str(), r.status),
        ("GET", "/ocelot", 200)
    );
    assert_eq!(r.duration_ms, None);
    assert_eq!(r.client.client_ip.as_deref(), Some("85.181.35.98"));
    assert!(r.user_agent().unwrap().contains("Chrome/70"));
    // A custom format that puts an X-Forwarded-For list first: its first address.
    assert_eq!(o.requests[1].client.client_ip.as_deref(), Some("10.0.0.2"));
}

#[test]
fn nginx_combined_has_no_signal_and_says_so() {
    // The beats line with its status set to 429.
    let line = BEATS_NGINX
        .lines()
        .next()
        .unwrap()
        .replace("\" 200 571", "\" 429 571");
    let (r, _) = one(&line);
    let sig = r.layer_signal.as_ref().unwrap();
    assert_eq!(
        (sig.verdict, sig.logger),
        (SignalVerdict::NoSignal, "nginx")
    );
    let a = attribution(&r);
    assert_eq!(a.layer, Layer::Unknown);
    assert!(a.evidence.iter().any(|e| e.role == Role::RuledOut
        && e.note
            .contains("no field that says whether nginx or its upstream answered")));
}

/// elastic/beats `filebeat/module/nginx/ingress_controller/test/test.log`
/// (https://github.com/elastic/beats/blob/main/filebeat/module/nginx/ingress_controller/test/test.log).
const BEATS_INGRESS: &str = r#"192.168.64.14 - - [07/Feb/2020:12:02:42 +0000] "GET /v2/some HTTP/1.1" 200 61 "-" "Mozilla/5.0 (Macintosh; Intel Mac OS X 10.14; rv:72.0) Gecko/20100101 Firefox/72.0" 348 0.001 [default-web2-8080] [] 172.17.0.6:8080, 172.17.0.7:8080 61, 100 0.100, 0.004 200, 203 835136ae24486dbb4156dcbe21f5d402
192.168.64.1 - - [07/Feb/2020:11:49:50 +0000] "PATCHp /products/42 HTTP/1.1" 400 163 "-" "-" 0 0.000 [] [] - - - - 4c7d2079340e68353c7d0dfff00b904b
2a02:cf40::4e36 - - [24/Aug/2022:18:05:41 +0000] "GET /favicon.ico HTTP/2.0" 502 552 "https://localhost:8080/" "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/104.0.0.0 Safari/537.36" 27 0.000 [localhost-8080] [] [2a02:cf40::7]:5000, [2a02:cf40::4e36]:5000 0, 0 0.000, 0.000 502, 502 3db73c6c673c4256ade033a6ce08c2ab
192.168.64.14 - - [07/Feb/2020:12:02:42 +0000] "GET /test/test.mp4 HTTP/1.1" 200 61 "-" "Mozilla/5.0 (Macintosh; Intel Mac OS X 10.14; rv:72.0) Gecko/20100101 Firefox/72.0" 348 0.001 [default-web2-8080] [] 172.17.0.6:8080, 172.17.0.7:8080 - 0.100, - 200, - 835136ae24486dbb4156dcbe21f5d402
"#;

#[test]
fn ingress_nginx_upstreaminfo_from_beats_fixture() {
    let o = read_lines(BEATS_INGRESS, Format::Nginx);
    assert_eq!(o.creator.as_deref(), Some("ingress-nginx upstreaminfo"));
    assert_eq!(o.requests.len(), 4, "{:?}", o.warnings);
    let r = &o.requests[0];
    // $time_local is the end: the start is $request_time (1 ms) earlier.
    assert_eq!(start(r), "2020-02-07T12:02:41.999000Z");
    assert_eq!(
        (r.method.as_str(), r.url.as_str(), r.status),
        ("GET", "/v2/some", 200)
    );
    assert_eq!(r.duration_ms, Some(1.0));
    assert_eq!(
        r.request_headers.get("x-request-id"),
        Some("835136ae24486dbb4156dcbe21f5d402")
    );
    // The 400 nginx answered itself (every upstream field `-`).
    let bad = &o.requests[1];
    assert_eq!((bad.method.as_str(), bad.status), ("PATCHP", 400));
    let sig = bad.layer_signal.as_ref().unwrap();
    assert_eq!(
        (sig.verdict, sig.field.as_str()),
        (SignalVerdict::Generated, "upstream_status=-")
    );
    // The 502 both upstream tries returned: passed through.
    let sig = o.requests[2].layer_signal.as_ref().unwrap();
    assert_eq!(sig.verdict, SignalVerdict::PassedThrough);
    assert_eq!(sig.field, "upstream_status=502, 502");
    assert_eq!(
        o.requests[2].client.client_ip.as_deref(),
        Some("2a02:cf40::4e36")
    );
}

#[test]
fn ingress_nginx_429_generated_versus_passed_through() {
    // The beats 400 line as a 429 nginx made itself (limit / `return 429`) ...
    let gen = BEATS_INGRESS
        .lines()
        .nth(1)
        .unwrap()
        .replace("\" 400 163", "\" 429 163");
    let (r, label) = one(&gen);
    assert_eq!(label, "ingress-nginx upstreaminfo");
    assert_generated(&r, Layer::Proxy, "nginx", "upstream_status=-");
    let a = attribution(&r);
    assert!(a.evidence[0].note.contains("nginx answered itself"));
    // ... and the first line as a 429 both tries returned, the last one passed through.
    let pass = BEATS_INGRESS
        .lines()
        .next()
        .unwrap()
        .replace("\" 200 61", "\" 429 61")
        .replace("200, 203", "502, 429");
    let (r, _) = one(&pass);
    assert_passed(&r, "nginx", "upstream_status=502, 429");
}

#[test]
fn nginx_custom_format_with_limit_req_status_and_logged_headers() {
    let fmt = format::compile_user(
        r#"log_format api '$remote_addr [$time_local] "$request" $status $request_time $upstream_status $limit_req_status "$upstream_http_retry_after" "$sent_http_x_ratelimit_remaining" "$http_x_api_key"';"#,
    )
    .unwrap();
    let p = Parser::custom(Arc::new(fmt));
    let mut out = Vec::new();
    // limit_req's default status is 503 [N4]: the logged REJECTED makes it a rate limit.
    p.parse_line(
        r#"10.1.1.1 [01/Mar/2024:10:00:00 +0000] "GET /v1/items?page=2 HTTP/1.1" 503 0.000 - REJECTED "-" "-" "key-abc""#,
        7,
        &src(),
        &opts(),
        &mut out,
    )
    .unwrap();
    p.parse_line(
        r#"10.1.1.2 [01/Mar/2024:10:00:01 +0000] "GET /v1/items HTTP/1.1" 429 0.120 429 PASSED "12" "0" "key-abc""#,
        8,
        &src(),
        &opts(),
        &mut out,
    )
    .unwrap();
    let limited = &out[0];
    assert_generated(limited, Layer::Proxy, "nginx", "limit_req_status=REJECTED");
    assert_eq!(attribution(limited).detail.as_deref(), Some("limit_req"));
    let passed = &out[1];
    assert_eq!(passed.response_headers.get("retry-after"), Some("12"));
    assert_eq!(
        passed.response_headers.get("x-ratelimit-remaining"),
        Some("0")
    );
    assert_passed(passed, "nginx", "upstream_status=429");
    // The logged API key is a shared identity (fingerprinted), never kept in clear.
    assert!(limited.credential.is_some());
    assert_eq!(limited.credential, passed.credential);
    assert!(!format!("{:?}", out).contains("key-abc"));
    assert_eq!(start(passed), "2024-03-01T10:00:00.880000Z");
}

// ------------------------------------------------------------------------------------------
// Apache

#[test]
fn apache_common_from_the_httpd_docs() {
    // mod_log_config's canonical example
    // (https://httpd.apache.org/docs/current/logs.html#common).
    let (r, label) = one(
        r#"127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326"#,
    );
    assert_eq!(label, "Apache common (CLF)");
    // %t is the time the request was received: the start.
    assert_eq!(start(&r), "2000-10-10T20:55:36.000000Z");
    assert_eq!(
        (r.method.as_str(), r.url.as_str(), r.status),
        ("GET", "/apache_pb.gif", 200)
    );
    assert!(r.credential.is_some(), "the Basic-auth user is an identity");
    assert!(!format!("{r:?}").contains("frank"));
}

// ------------------------------------------------------------------------------------------
// Envoy / Istio / Envoy Gateway

/// Envoy's docs example of its default format
/// (https://www.envoyproxy.io/docs/envoy/latest/configuration/observability/access_log/usage#default-format-string).
const ENVOY_DOCS: &str = r#"[2016-04-15T20:17:00.310Z] "POST /api/v1/locations HTTP/2" 204 - 154 0 226 100 "10.0.35.28" "nsq2http" "cc21d9b0-cf5c-432b-8c7e-98aeb7988cd2" "locations" "tcp://10.0.2.1:80""#;

#[test]
fn envoy_default_from_the_docs() {
    let (r, label) = one(ENVOY_DOCS);
    assert_eq!(label, "Envoy default");
    assert_eq!(start(&r), "2016-04-15T20:17:00.310000Z");
    assert_eq!(
        (r.method.as_str(), r.url.as_str(), r.status),
        ("POST", "//locations/api/v1/locations", 204)
    );
    assert_eq!(r.duration_ms, Some(226.0));
    assert_eq!(r.client.client_ip.as_deref(), Some("10.0.35.28"));
    assert_eq!(r.user_agent(), Some("nsq2http"));
}

#[test]
fn envoy_default_429_generated_versus_passed_through() {
    // The docs line as a local rate limit (RL, no upstream host) ...
    let gen = ENVOY_DOCS
        .replace("204 - 154 0 226 100", "429 RL 154 0 0 -")
        .replace("\"tcp://10.0.2.1:80\"", "\"-\"");
    let (r, _) = one(&gen);
    assert_generated(&r, Layer::Proxy, "envoy", "response_flags=RL");
    // ... and as the upstream's 429 (no flag, an upstream host).
    let pass = ENVOY_DOCS.replace("204 - 154 0 226 100", "429 - 154 0 226 100");
    let (r, _) = one(&pass);
    assert_passed(&r, "envoy", "upstream_host=tcp://10.0.2.1:80");
}

/// Istio's docs line (https://istio.io/latest/docs/tasks/observability/logs/access-log/).
const ISTIO_DOCS: &str = r#"[2020-11-25T21:26:18.409Z] "GET /status/418 HTTP/1.1" 418 - via_upstream - "-" 0 135 4 4 "-" "curl/7.73.0-DEV" "84961386-6d84-929d-98bd-c5aee93b5c88" "httpbin:8000" "10.44.1.27:80" outbound|8000||httpbin.foo.svc.cluster.local 10.44.1.23:37652 10.0.45.184:8000 10.44.1.23:46520 - default"#;
/// A real Istio local-rate-limit 429 (public README quoted in logformats.md [I2]).
const ISTIO_RL: &str = r#"[2024-09-15T16:27:47.687Z] "HEAD / HTTP/1.1" 429 RL local_rate_limited - "-" 0 0 0 - "192.168.245.106" "curl/8.5.0" "467a7648-b9ef-4e9b-b75b-f9f500a88589" "nginx.test.local" "-" inbound|80|| - 10.0.196.75:80 192.168.245.106:0 outbound_.80_._.nginx.istio-test.svc.cluster.local default"#;

#[test]
fn istio_default_from_the_docs_and_a_real_rate_limited_line() {
    let (r, label) = one(ISTIO_DOCS);
    assert_eq!(label, "Istio default");
    assert_eq!(start(&r), "2020-11-25T21:26:18.409000Z");
    assert_eq!(
        (r.method.as_str(), r.url.as_str(), r.status),
        ("GET", "//httpbin:8000/status/418", 418)
    );
    assert_eq!(r.duration_ms, Some(4.0));
    // The real 429: Envoy's rate limit filter.
    let (r, _) = one(ISTIO_RL);
    assert_eq!((r.method.as_str(), r.status), ("HEAD", 429));
    assert_generated(&r, Layer::Proxy, "envoy", "response_flags=RL");
    // The docs line as an upstream 429: via_upstream decides.
    let pass = ISTIO_DOCS.replace("418 - via_upstream", "429 - via_upstream");
    let (r, _) = one(&pass);
    assert_passed(&r, "envoy", "response_code_details=via_upstream");
}

/// Envoy Gateway's default JSON, a line from a public issue (aibrix, envoy-gateway-system logs).
const ENVOY_GATEWAY: &str = r#"{":authority":"localhost:8888","bytes_received":73,"bytes_sent":302,"connection_termination_details":null,"downstream_local_address":"127.0.0.1:10080","downstream_remote_address":"127.0.0.1:55222","duration":6,"method":"POST","protocol":"HTTP/1.1","requested_server_name":null,"response_code":200,"response_code_details":"via_upstream","response_flags":"-","route_name":"httproute/aibrix-system/llama2-7b-router/rule/0/match/1/*","start_time":"2025-08-20T23:21:58.905Z","upstream_cluster":"httproute/aibrix-system/llama2-7b-router/rule/0","upstream_host":"10.244.0.19:8000","upstream_local_address":"10.244.0.30:48658","upstream_transport_failure_reason":null,"user-agent":"curl/8.7.1","x-envoy-origin-path":"/v1/chat/completions","x-envoy-upstream-service-time":null,"x-forwarded-for":"10.244.0.30","x-request-id":"4000a69d-3db6-404c-8892-4f8023e008f0"}"#;

#[test]
fn envoy_gateway_json() {
    let (r, label) = one(ENVOY_GATEWAY);
    assert_eq!(label, "Envoy Gateway JSON");
    assert_eq!(start(&r), "2025-08-20T23:21:58.905000Z");
    assert_eq!(
        (r.method.as_str(), r.url.as_str(), r.status),
        ("POST", "//localhost:8888/v1/chat/completions", 200)
    );
    assert_eq!(r.duration_ms, Some(6.0));
    let gen = ENVOY_GATEWAY
        .replace("\"response_code\":200", "\"response_code\":429")
        .replace("\"via_upstream\"", "\"local_rate_limited\"")
        .replace("\"response_flags\":\"-\"", "\"response_flags\":\"RL\"")
        .replace("\"10.244.0.19:8000\"", "null");
    assert_generated(&one(&gen).0, Layer::Proxy, "envoy", "response_flags=RL");
    let pass = ENVOY_GATEWAY.replace("\"response_code\":200", "\"response_code\":429");
    assert_passed(&one(&pass).0, "envoy", "response_code_details=via_upstream");
}

// ------------------------------------------------------------------------------------------
// AWS ALB

/// The AWS guide's HTTP entry, joined on one line
/// (https://docs.aws.amazon.com/elasticloadbalancing/latest/application/load-balancer-access-logs.html#access-log-entry-examples).
const ALB_DOCS: &str = r#"http 2018-07-02T22:23:00.186641Z app/my-loadbalancer/50dc6c495c0c9188 192.168.131.39:2817 10.0.0.1:80 0.000 0.001 0.000 200 200 34 366 "GET http://www.example.com:80/ HTTP/1.1" "curl/7.46.0" - - arn:aws:elasticloadbalancing:us-east-2:123456789012:targetgroup/my-targets/73e2d6bc24d8a067 "Root=1-58337262-36d228ad5d99923122bbe354" "-" "-" 0 2018-07-02T22:22:48.364000Z "forward" "-" "-""#;
/// The guide's failed-Lambda entry (target_status_code `-`).
const ALB_LAMBDA: &str = r#"http 2018-11-30T22:23:00.186641Z app/my-loadbalancer/50dc6c495c0c9188 192.168.131.39:2817 - 0.000 0.001 0.000 502 - 34 366 "GET http://www.example.com:80/ HTTP/1.1" "curl/7.46.0" - - arn:aws:elasticloadbalancing:us-east-2:123456789012:targetgroup/my-targets/73e2d6bc24d8a067 "Root=1-58337364-23a8c76965a2ef7629b185e3" "-" "-" 0 2018-11-30T22:22:48.364000Z "forward" "-" "LambdaInvalidResponse" "-" "-" "-" "-""#;
/// The `elb-log-parser` crate's README line (a newer entry with the list/classification tail).
const ALB_H2: &str = r#"h2 2022-11-01T23:50:27.908737Z app/my-alb/1234567890abcdef 123.123.123.123:65432 10.0.10.0:8080 0.000 0.004 0.000 200 200 288 131 "GET https://example.com HTTP/2.0" "Mozilla/5.0 (iPhone; CPU iPhone OS 15_6_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 MYAPP/4.2.1 iOS/15.6.1 iPhone12,3" ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2 arn:aws:elasticloadbalancing:ap-northeast-2:1234567890:targetgroup/mytargetgroup/0123456789abcdef "Root=1-12345678-01234567890123456789" "example.com" "arn:aws:acm:ap-northeast-2:1234567890:certificate/abcdefgh-abcd-efgh-ijkl-0123456789" 5 2022-11-01T23:50:27.904000Z "forward" "-" "-" "10.0.10.0:8080" "200" "-" "-""#;

#[test]
fn alb_from_the_aws_guide() {
    let (r, label) = one(ALB_DOCS);
    assert_eq!(label, "AWS ALB");
    // request_creation_time is the start ("when the load balancer received the request").
    assert_eq!(start(&r), "2018-07-02T22:22:48.364000Z");
    assert_eq!(
        (r.method.as_str(), r.url.as_str(), r.status),
        ("GET", "http://www.example.com:80/", 200)
    );
    assert_eq!(r.duration_ms, Some(1.0));
    assert_eq!(r.client.client_ip.as_deref(), Some("192.168.131.39"));
    let (r, _) = one(ALB_H2);
    assert_eq!((r.url.as_str(), r.status), ("https://example.com", 200));
    assert_eq!(r.duration_ms, Some(4.0));
    let (r, _) = one(ALB_LAMBDA);
    let sig = r.layer_signal.as_ref().unwrap();
    assert_eq!(sig.verdict, SignalVerdict::Generated);
    assert!(sig.field.contains("target_status_code=-"));
}

#[test]
fn alb_429_generated_versus_passed_through() {
    // The guide's entry with a WAF rate-based rule's custom 429 (no target response) ...
    let waf = ALB_DOCS
        .replace(
            "10.0.0.1:80 0.000 0.001 0.000 200 200",
            "- 0.000 -1 -1 429 -",
        )
        .replace("\"forward\"", "\"waf\"");
    let (r, _) = one(&waf);
    assert_generated(&r, Layer::Cdn, "aws-waf", "actions_executed=waf");
    // ... and with the target's own 429.
    let pass = ALB_DOCS.replace("200 200 34", "429 429 34");
    assert_passed(&one(&pass).0, "aws-alb", "target_status_code=429");
}

// ------------------------------------------------------------------------------------------
// CloudFront and IIS (W3C)

/// The CloudFront guide's example log file
/// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/standard-logs-reference.html).
const CLOUDFRONT: &str = "#Version: 1.0\n#Fields: date time x-edge-location sc-bytes c-ip cs-method cs(Host) cs-uri-stem sc-status cs(Referer) cs(User-Agent) cs-uri-query cs(Cookie) x-edge-result-type x-edge-request-id x-host-header cs-protocol cs-bytes time-taken x-forwarded-for ssl-protocol ssl-cipher x-edge-response-result-type cs-protocol-version fle-status fle-encrypted-fields c-port time-to-first-byte x-edge-detailed-result-type sc-content-type sc-content-len sc-range-start sc-range-end\n2019-12-04\t21:02:31\tLAX1\t392\t192.0.2.100\tGET\td111111abcdef8.cloudfront.net\t/index.html\t200\t-\tMozilla/5.0%20(Windows%20NT%2010.0;%20Win64;%20x64)%20AppleWebKit/537.36%20(KHTML,%20like%20Gecko)%20Chrome/78.0.3904.108%20Safari/537.36\t-\t-\tHit\tSOX4xwn4XV6Q4rgb7XiVGOHms_BGlTAC4KyHmureZmBNrjGdRLiNIQ==\td111111abcdef8.cloudfront.net\thttps\t23\t0.001\t-\tTLSv1.2\tECDHE-RSA-AES128-GCM-SHA256\tHit\tHTTP/2.0\t-\t-\t11040\t0.001\tHit\ttext/html\t78\t-\t-\n2019-12-13\t22:36:27\tSEA19-C1\t900\t192.0.2.200\tGET\td111111abcdef8.cloudfront.net\t/favicon.ico\t502\thttp://www.example.com/\tMozilla/5.0%20(Windows%20NT%2010.0;%20Win64;%20x64)%20AppleWebKit/537.36%20(KHTML,%20like%20Gecko)%20Chrome/78.0.3904.108%20Safari/537.36\t-\t-\tError\t1pkpNfBQ39sYMnjjUQjmH2w1wdJnbHYTbag21o_3OfcQgPzdL2RSSQ==\twww.example.com\thttp\t675\t0.102\t-\t-\t-\tError\tHTTP/1.1\t-\t-\t25260\t0.102\tOriginDnsError\ttext/html\t507\t-\t-\n";

#[test]
fn cloudfront_from_the_aws_guide() {
    let o = read_lines(CLOUDFRONT, Format::Cloudfront);
    assert_eq!(o.creator.as_deref(), Some("CloudFront standard log"));
    assert_eq!(o.requests.len(), 2, "{:?}", o.warnings);
    let r = &o.requests[0];
    // `time` is when CloudFront finished responding: the start is time-taken earlier.
    assert_eq!(start(r), "2019-12-04T21:02:30.999000Z");
    assert_eq!(
        (r.method.as_str(), r.url.as_str(), r.status),
        (
            "GET",
            "https://d111111abcdef8.cloudfront.net/index.html",
            200
        )
    );
    assert_eq!(r.duration_ms, Some(1.0));
    assert!(r
        .user_agent()
        .unwrap()
        .starts_with("Mozilla/5.0 (Windows NT 10.0;"));
    let e = &o.requests[1];
    assert_eq!(
        (e.url.as_str(), e.status),
        ("http://www.example.com/favicon.ico", 502)
    );
    assert_eq!(e.location.position, Position::Line(4));
}

#[test]
fn cloudfront_tells_its_own_limit_and_admits_it_cannot_tell_an_origin_429() {
    let mut log = CLOUDFRONT.to_string();
    // The 502 line as a 429 (`Error`: CloudFront logs no origin status) and as CloudFront's own
    // LimitExceeded 503.
    let err = CLOUDFRONT
        .lines()
        .nth(3)
        .unwrap()
        .replace("\t502\t", "\t429\t");
    let lim = CLOUDFRONT
        .lines()
        .nth(3)
        .unwrap()
        .replace("\t502\t", "\t503\t")
        .replace("\tError\t1pkp", "\tLimitExceeded\t1pkp");
    log.push_str(&format!("{err}\n{lim}\n"));
    let o = read_lines(&log, Format::Cloudfront);
    let origin = &o.requests[2];
    assert_eq!(
        origin.layer_signal.as_ref().unwrap().verdict,
        SignalVerdict::NoSignal
    );
    assert_eq!(attribution(origin).layer, Layer::Unknown);
    let own = &o.requests[3];
    assert_generated(
        own,
        Layer::Cdn,
        "cloudfront",
        "x-edge-result-type=LimitExceeded",
    );
}

/// elastic/beats `filebeat/module/iis/access/test/test-iis-7.5.log`
/// (https://github.com/elastic/beats/blob/main/filebeat/module/iis/access/test/test-iis-7.5.log).
const IIS: &str = "#Software: Microsoft Internet Information Services 7.5\n#Version: 1.0\n#Date: 2018-08-28 18:24:25\n#Fields: date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip cs(User-Agent) sc-status sc-substatus sc-win32-status time-taken\n2019-03-06 18:43:17 10.0.140.107 GET /health-monitoring - 80 - 10.0.140.2 - 200 0 0 15\n2019-03-06 18:43:17 2001:cdba:0000:0000:0000:0000:3257:9652 GET /health-monitoring - 80 - 2001:cdba:0000:0000:0000:0000:3257:9652 - 200 0 0 15\n";

#[test]
fn iis_from_beats_fixture_and_its_own_limit() {
    let o = read_lines(IIS, Format::W3c);
    assert_eq!(o.creator.as_deref(), Some("W3C extended (IIS)"));
    assert_eq!(o.requests.len(), 2, "{:?}", o.warnings);
    let r = &o.requests[0];
    // time-taken is milliseconds in IIS; `time` taken as the end.
    assert_eq!(start(r), "2019-03-06T18:43:16.985000Z");
    assert_eq!(
        (r.method.as_str(), r.url.as_str(), r.status),
        ("GET", "/health-monitoring", 200)
    );
    assert_eq!(r.duration_ms, Some(15.0));
    // The fixture line as Dynamic IP Restrictions' 403.502 and as the application's 429.
    let line = IIS.lines().nth(4).unwrap();
    let dipr = line.replace(" 200 0 0 15", " 403 502 0 15");
    let app = line.replace(" 200 0 0 15", " 429 0 0 15");
    let o = read_lines(&format!("{IIS}{dipr}\n{app}\n"), Format::W3c);
    assert_generated(&o.requests[2], Layer::Api, "iis", "sc-substatus=502");
    assert_passed(&o.requests[3], "iis", "sc-substatus=0");
}

#[test]
fn iis_without_fields_in_a_subset_no_preset_names_is_read_by_shape() {
    // elastic/integrations' iis test-iis-access-cookie-bytes-split.log: cookie, referer and
    // both byte counts, an X-Forwarded-For last, no #Fields (no preset of IIS has this set).
    let line = "2026-07-06 18:36:16 10.177.11.164 POST /apps/r.aspx RequirementId=1283 443 jdoe@example.com 10.177.2.242 Mozilla/5.0+(Windows+NT+10.0) SESSION_ID=e4;+DeviceWidth=0 https://example.com/apps/r.aspx 429 0 0 20123 36264 597 203.0.113.10";
    let o = read_lines(&format!("{line}\n"), Format::W3c);
    assert_eq!(o.requests.len(), 1, "{:?}", o.warnings);
    let r = &o.requests[0];
    assert_eq!((r.method.as_str(), r.status), ("POST", 429));
    assert_eq!(r.duration_ms, Some(597.0));
    assert_eq!(r.client.client_ip.as_deref(), Some("203.0.113.10"));
    assert_eq!(
        o.creator.as_deref(),
        Some("W3C extended (IIS fields by shape, no #Fields)")
    );
    // Sniffed too, and the documented defaults still win where they fit.
    let (_, label) = one(line);
    assert_eq!(label, "W3C extended (IIS fields by shape, no #Fields)");
    let (_, label) = one(IIS.lines().nth(4).unwrap());
    assert_eq!(label, "W3C extended (IIS 7 default fields, no #Fields)");
}

#[test]
fn a_line_that_names_no_layer_says_which_of_its_fields_were_not_read() {
    // samples/nginx-incident.log's layout without --log-format: `us=` is its upstream status
    // under a name no rule knows; the evidence says so and names the flag that reads it.
    let line = r#"10.2.0.13 - - [02/Mar/2026:02:00:00 +0000] "GET /v1/items/206 HTTP/1.1" 429 18 "-" "python-requests/2.31.0" rt=0.002 us=429 rid=1e9667c2 host=api.example.com"#;
    let (r, _) = one(line);
    let note = &r.layer_signal.as_ref().unwrap().note;
    assert!(
        note.contains("fields the format does not name (us, rid)"),
        "{note}"
    );
    assert!(note.contains("--log-format"), "{note}");
    // A line whose every field is read says nothing more.
    let (r, _) = one(&line.replace(" us=429 rid=1e9667c2", ""));
    assert!(!r
        .layer_signal
        .as_ref()
        .unwrap()
        .note
        .contains("--log-format"));
}

#[test]
fn w3c_dynamic_ip_restrictions_other_deny_actions_and_their_kind_of_limit() {
    // denyAction Unauthorized / NotFound answer 401 / 404 with the same substatus [W6]; 501 is
    // the concurrent-request limit, 502 the request rate (the IIS status-code table [W5]).
    let line = IIS.lines().nth(4).unwrap();
    let conc = line.replace(" 200 0 0 15", " 401 501 0 15");
    let rate = line.replace(" 200 0 0 15", " 404 502 0 15");
    let plain = line.replace(" 200 0 0 15", " 404 0 2 15");
    let o = read_lines(&format!("{IIS}{conc}\n{rate}\n{plain}\n"), Format::W3c);
    assert_generated(&o.requests[2], Layer::Api, "iis", "sc-substatus=501");
    assert_generated(&o.requests[3], Layer::Api, "iis", "sc-substatus=502");
    assert!(!crate::attribute::is_rate_limited(&o.requests[4]));
    let a = crate::attribute::attribute(&o.requests, &[2, 3]);
    assert_eq!(
        a[0].quota,
        crate::attribute::Quota::Concurrency,
        "{:?}",
        a[0].evidence
    );
    assert_eq!(
        a[1].quota,
        crate::attribute::Quota::Rate,
        "{:?}",
        a[1].evidence
    );
    assert_eq!(a[0].scope, Some(crate::attribute::Scope::Ip));
}

#[test]
fn w3c_fields_directive_mid_file_changes_the_layout() {
    let log = format!(
        "{IIS}#Fields: time date cs-method cs-uri-stem sc-status time-taken\n18:50:00 2019-03-06 POST /login 429 3\n"
    );
    let o = read_lines(&log, Format::W3c);
    assert_eq!(o.requests.len(), 3, "{:?}", o.warnings);
    let r = &o.requests[2];
    assert_eq!(
        (r.method.as_str(), r.url.as_str(), r.status),
        ("POST", "/login", 429)
    );
    assert_eq!(r.location.position, Position::Line(8));
}

#[test]
fn w3c_runs_of_spaces_are_one_separator_and_methods_are_tokens() {
    // W3C writes `-` for an empty field, so two spaces are one separator (an IIS user name
    // logged with a leading space); a method is any RFC 9110 token (Exchange's RPC over HTTP).
    let line = IIS.lines().nth(4).unwrap();
    let spaced = line.replace(" 80 - ", " 80  DOMAIN\\user ");
    let rpc = line.replace(" GET ", " RPC_IN_DATA ");
    let o = read_lines(&format!("{IIS}{spaced}\n{rpc}\n"), Format::W3c);
    assert_eq!(o.requests.len(), 4, "{:?}", o.warnings);
    assert_eq!(o.requests[2].status, 200);
    assert_eq!(o.requests[3].method.as_str(), "RPC_IN_DATA");
}

#[test]
fn one_file_may_hold_a_format_in_both_its_encodings() {
    // Envoy JSON records and Envoy default text records in one container log: each line is
    // read by the layout of the same format it fits.
    let json = r#"{"start_time":"2025-12-31T16:37:40.479Z","method":"GET","path":"/admin","protocol":"HTTP/1.1","response_code":404,"response_flags":"-","upstream_host":"10.0.0.5:80","user-agent":"curl","downstream_remote_address":"10.0.0.12:59292",":authority":"app.internal"}"#;
    let text = r#"[2016-04-15T20:17:00.310Z] "POST /api/v1/locations HTTP/2" 429 - 154 0 226 100 "10.0.35.28" "nsq2http" "cc21d9b0-cf5c-432b-8c7e-98aeb7988cd2" "locations" "tcp://10.0.2.1:80""#;
    let o = read_lines(&format!("{json}\n{json}\n{text}\n"), Format::Envoy);
    assert_eq!(o.requests.len(), 3, "{:?}", o.warnings);
    assert_eq!(o.requests[2].status, 429);
}

// ------------------------------------------------------------------------------------------
// HAProxy

/// HAProxy's configuration manual, §8.2.3 (HTTP log format) and the log-profile examples
/// (https://docs.haproxy.org/dev/configuration.html#8.2.3).
const HAPROXY_DOCS: &str = r#"Feb  6 12:14:14 localhost haproxy[14389]: 10.0.1.2:33317 [06/Feb/2009:12:14:14.655] http-in static/srv1 10/0/30/69/109 200 2750 - - ---- 1/1/1/1/0 0/0 {1wt.eu} {} "GET /index.html HTTP/1.1""#;
const HAPROXY_5424: &str = r#"<134>1 2024-06-12T10:09:11.823400+02:00 - normal 224482 - - 127.0.0.1:53594 [12/Jun/2024:10:09:11.814] myproxy myproxy/<NOSRV> 0/-1/-1/-1/0 200 49 - - LR-- 1/1/0/0/0 0/0 "GET / HTTP/1.1""#;

#[test]
fn haproxy_from_the_manual() {
    let (r, label) = one(HAPROXY_DOCS);
    assert_eq!(label, "HAProxy httplog");
    // %tr is when the request's first byte arrived (local time, read as UTC).
    assert_eq!(start(&r), "2009-02-06T12:14:14.655000Z");
    // The manual's configuration captures the Host header first: `{1wt.eu}`.
    assert_eq!(
        (r.method.as_str(), r.url.as_str(), r.status),
        ("GET", "//1wt.eu/index.html", 200)
    );
    assert_eq!(r.duration_ms, Some(109.0));
    assert_eq!(r.client.client_ip.as_deref(), Some("10.0.1.2"));
    let (r, _) = one(HAPROXY_5424);
    assert_eq!((r.url.as_str(), r.status), ("/", 200));
    assert_eq!(start(&r), "2024-06-12T10:09:11.814000Z");
}

#[test]
fn haproxy_429_generated_versus_passed_through() {
    // The RFC 5424 example as `http-request deny deny_status 429` (no server, PR--) ...
    let gen = HAPROXY_5424.replace(" 200 49 - - LR--", " 429 49 - - PR--");
    assert_generated(&one(&gen).0, Layer::Proxy, "haproxy", "server=<NOSRV>");
    // ... and the §8.2.3 example with srv1's own 429.
    let pass = HAPROXY_DOCS.replace(" 200 2750", " 429 2750");
    assert_passed(&one(&pass).0, "haproxy", "termination_state=----");
}

// ------------------------------------------------------------------------------------------
// JSON logs: Cloudflare, Kong, Traefik, Caddy, Google Cloud

/// elastic/integrations `packages/cloudflare_logpush/data_stream/http_request/_dev/test/
/// pipeline/test-pipeline-http-request.log`, abridged only by cutting fields out.
const CLOUDFLARE: &str = r#"{"CacheCacheStatus":"dynamic","ClientIP":"175.16.199.0","ClientRequestHost":"xyz.example.com","ClientRequestMethod":"POST","ClientRequestURI":"/s/example/api/telemetry/v2/clusters/_stats","ClientRequestUserAgent":"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/101.0.4951.64 Safari/537.36","EdgeEndTimestamp":"2022-05-25T13:25:32Z","EdgeRateLimitAction":"unknown","EdgeRateLimitID":0,"EdgeResponseStatus":200,"EdgeStartTimestamp":"2022-05-25T13:25:26Z","OriginResponseStatus":200,"RayID":"710e98d9367f357d","SecurityAction":"unknown","WAFAction":"unknown"}"#;

#[test]
fn cloudflare_logpush_from_the_elastic_fixture() {
    let (r, label) = one(CLOUDFLARE);
    assert_eq!(label, "Cloudflare Logpush http_requests");
    assert_eq!(start(&r), "2022-05-25T13:25:26.000000Z");
    assert_eq!(
        (r.method.as_str(), r.url.as_str(), r.status),
        (
            "POST",
            "//xyz.example.com/s/example/api/telemetry/v2/clusters/_stats",
            200
        )
    );
    assert_eq!(r.duration_ms, Some(6000.0));
    assert_eq!(
        r.request_headers.get("x-request-id"),
        Some("710e98d9367f357d")
    );
    // Epoch-nanosecond timestamps (the API default) read as well: Cloudflare's docs example.
    let (r, _) = one(&CLOUDFLARE.replace(r#""2022-05-25T13:25:26Z""#, "1506702504433000200"));
    assert_eq!(start(&r), "2017-09-29T16:28:24.433000Z");
}

#[test]
fn cloudflare_429_generated_versus_passed_through() {
    let gen = CLOUDFLARE
        .replace("\"EdgeResponseStatus\":200", "\"EdgeResponseStatus\":429")
        .replace("\"OriginResponseStatus\":200", "\"OriginResponseStatus\":0,\"SecuritySources\":[\"rateLimit\"],\"SecurityActions\":[\"block\"]");
    assert_generated(
        &one(&gen).0,
        Layer::Cdn,
        "cloudflare",
        "SecuritySources∋rateLimit",
    );
    let zero = CLOUDFLARE
        .replace("\"EdgeResponseStatus\":200", "\"EdgeResponseStatus\":429")
        .replace("\"OriginResponseStatus\":200", "\"OriginResponseStatus\":0");
    assert_generated(
        &one(&zero).0,
        Layer::Cdn,
        "cloudflare",
        "OriginResponseStatus=0",
    );
    let pass = CLOUDFLARE
        .replace("\"EdgeResponseStatus\":200", "\"EdgeResponseStatus\":429")
        .replace(
            "\"OriginResponseStatus\":200",
            "\"OriginResponseStatus\":429",
        );
    assert_passed(&one(&pass).0, "cloudflare", "OriginResponseStatus=429");
}

/// Kong's log-format sample (file-log / http-log docs,
/// https://developer.konghq.com/plugins/file-log/), compacted; the sample's trailing commas
/// removed so that it is JSON.
const KONG: &str = r#"{"response":{"size":9982,"headers":{"access-control-allow-origin":"*","content-length":"9593","date":"Thu, 19 Sep 2024 22:10:39 GMT","content-type":"text/html; charset=utf-8","via":"1.1 kong/3.8.0.0-enterprise-edition","connection":"close","server":"gunicorn/19.9.0","access-control-allow-credentials":"true","x-kong-upstream-latency":"171","x-kong-proxy-latency":"1","x-kong-request-id":"2f6946328ffc4946b8c9120704a4a155"},"status":200},"route":{"updated_at":1726782477,"tags":[],"response_buffering":true,"path_handling":"v0","protocols":["http","https"],"service":{"id":"fb4eecf8-dec2-40ef-b779-16de7e2384c7"},"https_redirect_status_code":426,"regex_priority":0,"name":"example_route","id":"0f1a4101-3327-4274-b1e4-484a4ab0c030","strip_path":true,"preserve_host":false,"created_at":1726782477,"request_buffering":true,"ws_id":"f381e34e-5c25-4e65-b91b-3c0a86cfc393","paths":["/example-route"]},"workspace":"f381e34e-5c25-4e65-b91b-3c0a86cfc393","workspace_name":"default","tries":[{"balancer_start":1726783839539,"balancer_start_ns":1.7267838395395e+18,"ip":"34.237.204.224","balancer_latency":0,"port":80,"balancer_latency_ns":27904}],"client_ip":"192.168.65.1","request":{"id":"2f6946328ffc4946b8c9120704a4a155","headers":{"accept":"*/*","user-agent":"HTTPie/3.2.3","host":"localhost:8000","connection":"keep-alive","accept-encoding":"gzip, deflate"},"uri":"/example-route","size":139,"method":"GET","querystring":{},"url":"http://localhost:8000/example-route"},"upstream_uri":"/","started_at":1726783839538,"upstream_status":"200","latencies":{"kong":1,"proxy":171,"request":173},"source":"upstream"}"#;

#[test]
fn kong_from_the_docs_sample() {
    let (r, label) = one(KONG);
    assert_eq!(label, "Kong log plugin JSON");
    assert_eq!(start(&r), "2024-09-19T22:10:39.538000Z");
    assert_eq!(
        (r.method.as_str(), r.url.as_str(), r.status),
        ("GET", "http://localhost:8000/example-route", 200)
    );
    assert_eq!(r.duration_ms, Some(173.0));
    assert_eq!(r.user_agent(), Some("HTTPie/3.2.3"));
    assert_eq!(r.client.client_ip.as_deref(), Some("192.168.65.1"));
}

#[test]
fn kong_429_generated_versus_passed_through() {
    // The rate-limiting plugin's answer: source kong, never proxied, its Retry-After [K4].
    let gen = KONG
        .replace("\"status\":200}", "\"status\":429,\"x\":0}")
        .replace(
            "\"x-kong-upstream-latency\":\"171\",",
            "\"retry-after\":\"30\",\"ratelimit-remaining\":\"0\",",
        )
        .replace("\"via\":\"1.1 kong/3.8.0.0-enterprise-edition\",", "")
        .replace(
            "\"source\":\"upstream\"",
            "\"source\":\"kong\",\"consumer\":{\"id\":\"c-1\",\"username\":\"billing\"}",
        );
    let (r, _) = one(&gen);
    assert_generated(&r, Layer::Proxy, "kong", "source=kong");
    assert_eq!(r.response_headers.get("retry-after"), Some("30"));
    let a = attribution(&r);
    assert_eq!(a.quota, crate::attribute::Quota::Rate);
    assert!(r.credential.is_some(), "the consumer is the identity");
    let pass = KONG
        .replace("\"status\":200}", "\"status\":429}")
        .replace("\"upstream_status\":\"200\"", "\"upstream_status\":\"429\"");
    assert_passed(&one(&pass).0, "kong", "source=upstream");
}

/// A Traefik JSON line from a public README (logformats.md [T3]); Traefik's docs give only
/// the field list.
const TRAEFIK: &str = r#"{"ClientHost":"203.0.113.42","RequestMethod":"POST","RequestPath":"/wp-login.php","DownstreamStatus":429,"Duration":1873000,"RouterName":"wordpress@kubernetescrd","ServiceName":"wordpress-wordpress-80@kubernetescrd","time":"2026-04-26T10:14:22Z"}"#;

#[test]
fn traefik_json_and_its_own_429() {
    let (r, label) = one(TRAEFIK);
    assert_eq!(label, "Traefik JSON");
    // No StartUTC here: logrus's `time` is the end, Duration (ns) before it.
    assert_eq!(start(&r), "2026-04-26T10:14:21.998127Z");
    assert_eq!(
        (r.method.as_str(), r.url.as_str(), r.status),
        ("POST", "/wp-login.php", 429)
    );
    assert_eq!(r.duration_ms, Some(1.873));
    // OriginStatus absent: Traefik answered (a rateLimit middleware) ...
    assert_generated(&r, Layer::Proxy, "traefik", "OriginStatus=0");
    // ... and with the origin's 429 logged.
    let pass = TRAEFIK.replace(
        "\"DownstreamStatus\":429",
        "\"DownstreamStatus\":429,\"OriginStatus\":429,\"StartUTC\":\"2026-04-26T10:14:21.5Z\"",
    );
    let (r, _) = one(&pass);
    assert_eq!(start(&r), "2026-04-26T10:14:21.500000Z");
    assert_passed(&r, "traefik", "OriginStatus=429");
}

#[test]
fn traefik_clf_from_the_docs_template() {
    // The docs' CLF template filled in (https://doc.traefik.io/traefik/observability/access-logs/).
    let (r, label) = one(
        r#"192.168.1.20 - - [26/Apr/2026:10:14:22 +0000] "GET /api/v1/users HTTP/1.1" 429 17 "-" "python-requests/2.31.0" 1042 "api@docker" "http://172.18.0.3:8080" 3ms"#,
    );
    assert_eq!(label, "Traefik CLF");
    assert_eq!(start(&r), "2026-04-26T10:14:22.000000Z");
    assert_eq!(
        (r.method.as_str(), r.url.as_str(), r.status),
        ("GET", "/api/v1/users", 429)
    );
    assert_eq!(r.duration_ms, Some(3.0));
    // A server URL: the request was forwarded there, its 429 passed on ...
    assert_passed(&r, "traefik", "server URL 172.18.0.3:8080");
    // ... `-`: no server was picked, Traefik (a rateLimit middleware) answered.
    let own = r#"192.168.1.20 - - [26/Apr/2026:10:14:22 +0000] "GET /api/v1/users HTTP/1.1" 429 17 "-" "python-requests/2.31.0" 1043 "api@docker" "-" 0ms"#;
    assert_generated(&one(own).0, Layer::Proxy, "traefik", "server URL -");
    // User info in a server URL never reaches the report.
    let cred = r#"192.168.1.20 - - [26/Apr/2026:10:14:22 +0000] "GET /api/v1/users HTTP/1.1" 429 17 "-" "python-requests/2.31.0" 1044 "api@docker" "http://u:secret@172.18.0.3:8080/x" 3ms"#;
    let sig = one(cred).0.layer_signal.unwrap();
    assert_eq!(sig.field, "server URL 172.18.0.3:8080");
}

/// A real Caddy access line, journald-wrapped (public repo quoted in logformats.md [Y3]).
const CADDY: &str = r#"Nov 20 00:12:09 v2202510269591389839 caddy[772]: {"level":"info","ts":1763593929.505137,"logger":"http.log.access","msg":"handled request","request":{"remote_ip":"199.45.155.92","remote_port":"32692","client_ip":"199.45.155.92","proto":"HTTP/1.1","method":"GET","host":"152.53.179.101","uri":"/","headers":{"Accept":["*/*"],"Accept-Encoding":["gzip"],"User-Agent":["Mozilla/5.0 (compatible; CensysInspect/1.1; +https://about.censys.io/)"]}},"bytes_read":0,"user_id":"","duration":0.000014892,"size":0,"status":308,"resp_headers":{"Content-Type":[],"Server":["Caddy"],"Connection":["close"],"Location":["https://152.53.179.101/"]}}"#;

#[test]
fn caddy_json_behind_journald() {
    let (r, label) = one(CADDY);
    assert_eq!(label, "Caddy JSON");
    // ts is written when the handler returns; the start is `duration` (s) earlier.
    assert!(
        start(&r).starts_with("2025-11-19T23:12:09.50512"),
        "{}",
        start(&r)
    );
    assert_eq!(
        (r.method.as_str(), r.url.as_str(), r.status),
        ("GET", "http://152.53.179.101/", 308)
    );
    assert!((r.duration_ms.unwrap() - 0.014892).abs() < 1e-9);
    assert!(r.user_agent().unwrap().contains("CensysInspect"));
    // A 429 with `log_append upstream_host {rp.upstream.host}`: empty = Caddy answered.
    let gen = CADDY
        .replace("\"status\":308", "\"status\":429,\"upstream_host\":\"\"")
        .replace(
            "\"Location\":[\"https://152.53.179.101/\"]",
            "\"Retry-After\":[\"5\"]",
        );
    let (r, _) = one(&gen);
    assert_eq!(r.response_headers.get("retry-after"), Some("5"));
    assert_generated(&r, Layer::Proxy, "caddy", "upstream_host=\"\"");
    let pass = CADDY.replace(
        "\"status\":308",
        "\"status\":429,\"upstream_host\":\"10.0.0.5:8080\"",
    );
    assert_passed(&one(&pass).0, "caddy", "upstream_host=10.0.0.5:8080");
}

/// OpenTelemetry Collector contrib's GCP log-entry test fixture (logformats.md [G3]), compacted,
/// `resource` elided.
const GCP: &str = r#"{"httpRequest":{"serverIp":"10.56.35.14","status":200,"userAgent":"com.wave.personal/23040401(Linux;U;Android10;fr_SN;OrangeNolafun;Build/QP1A.190711.020;Cronet/111.0.5563.55)","responseSize":"1750","latency":"0.248406s","remoteIp":"41.82.183.143","requestMethod":"POST","requestSize":"522","requestUrl":"https://sn.mmapp.wave.com/graphql"},"insertId":"mr6p8jfcxlde5","jsonPayload":{"@type":"type.googleapis.com/google.cloud.loadbalancing.type.LoadBalancerLogEntry","remoteIp":"41.82.183.143","statusDetails":"response_sent_by_backend"},"logName":"projects/wavemm-174408/logs/requests","timestamp":"2023-04-21T15:59:24.827008Z","trace":"projects/wavemm-174408/traces/4ebc71f1def9274798cac4e8960d0095"}"#;

#[test]
fn gcp_load_balancer_from_the_otel_fixture() {
    let (r, label) = one(GCP);
    assert_eq!(label, "Google Cloud load balancing LogEntry");
    assert_eq!(start(&r), "2023-04-21T15:59:24.827008Z");
    assert_eq!(
        (r.method.as_str(), r.url.as_str(), r.status),
        ("POST", "https://sn.mmapp.wave.com/graphql", 200)
    );
    assert!((r.duration_ms.unwrap() - 248.406).abs() < 1e-9);
    let gen = GCP
        .replace("\"status\":200", "\"status\":429")
        .replace("response_sent_by_backend", "denied_by_security_policy");
    assert_generated(
        &one(&gen).0,
        Layer::Cdn,
        "google-cloud-armor",
        "statusDetails=denied_by_security_policy",
    );
    let pass = GCP.replace("\"status\":200", "\"status\":429");
    assert_passed(
        &one(&pass).0,
        "google-cloud-lb",
        "statusDetails=response_sent_by_backend",
    );
}

// ------------------------------------------------------------------------------------------
// Reading files: bad lines, unknown formats, gzip, sniffing with no flag.

#[test]
fn bad_lines_are_located_warnings_without_their_content() {
    let log = format!(
        "{}\nthis line is garbage with a secret=CANARY-BAD-LINE in it\n{}\n",
        BEATS_NGINX.lines().next().unwrap(),
        BEATS_NGINX.lines().next().unwrap()
    );
    let o = read_lines(&log, Format::Nginx);
    assert_eq!((o.requests.len(), o.skipped), (2, 1));
    let w = &o.warnings.kept[0];
    assert_eq!(w.position, Some(Position::Line(2)));
    assert!(w.message.contains("not nginx combined"), "{}", w.message);
    assert!(!w.to_string().contains("CANARY"), "{w}");
}

#[test]
fn unknown_text_says_what_was_tried_and_suggests_log_format() {
    let e = sniff_layout(b"2024-01-01 hello there\nsomething else\n", None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("Envoy") && e.contains("AWS ALB") && e.contains("--log-format"),
        "{e}"
    );
    let e = sniff_layout(b"2024-01-01 secret=CANARY-SNIFF\n", None)
        .unwrap_err()
        .to_string();
    assert!(!e.contains("CANARY"), "{e}");
}

#[test]
fn no_flag_sniffs_each_family() {
    use crate::ingest::source::sniff;
    for (text, want) in [
        (KONG, Format::Kong),
        (CLOUDFLARE, Format::Cloudflare),
        (ALB_DOCS, Format::Alb),
        (TRAEFIK, Format::Traefik),
        (GCP, Format::GcpLb),
        (ENVOY_GATEWAY, Format::Envoy),
        (ENVOY_DOCS, Format::Envoy),
        (ISTIO_RL, Format::Envoy),
        (HAPROXY_DOCS, Format::Haproxy),
        (CADDY, Format::Caddy),
        (BEATS_INGRESS, Format::Nginx),
    ] {
        let got = sniff(format!("{text}\n").as_bytes(), "x.log")
            .map(|s| s.format)
            .ok();
        assert_eq!(got, Some(want), "{}", &text[..40.min(text.len())]);
    }
    assert_eq!(
        sniff(CLOUDFRONT.as_bytes(), "x").map(|s| s.format).ok(),
        Some(Format::Cloudfront)
    );
    assert_eq!(
        sniff(IIS.as_bytes(), "x").map(|s| s.format).ok(),
        Some(Format::W3c)
    );
}

#[test]
fn multi_member_gzip_is_read_whole() {
    use flate2::write::GzEncoder;
    use std::io::Write;
    // nginx's `access_log ... gzip` writes one gzip member per buffer [N1].
    let mut bytes = Vec::new();
    for line in BEATS_INGRESS.lines() {
        let mut enc = GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(format!("{line}\n").as_bytes()).unwrap();
        bytes.extend(enc.finish().unwrap());
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("access.log.2.gz");
    std::fs::write(&path, &bytes).unwrap();
    let got = crate::ingest::read_input(path.to_str().unwrap(), &opts());
    assert_eq!(got.summary.format.as_deref(), Some("nginx"));
    assert_eq!(
        got.summary.creator.as_deref(),
        Some("ingress-nginx upstreaminfo")
    );
    assert_eq!(got.requests.len(), 4);
}

#[test]
fn long_inputs_cross_block_boundaries_without_losing_lines() {
    let line = BEATS_NGINX.lines().next().unwrap();
    let n = (3 * BLOCK_BYTES) / line.len() + 7;
    let mut log = String::new();
    for _ in 0..n {
        log.push_str(line);
        log.push('\n');
    }
    let o = read_lines(&log, Format::Nginx);
    assert_eq!((o.requests.len(), o.skipped), (n, 0));
    assert_eq!(o.requests[n - 1].location.position, Position::Line(n));
}

#[test]
fn block_lines_split_like_split() {
    for text in [
        &b""[..],
        b"\n",
        b"a",
        b"a\n",
        b"a\nb",
        b"a\n\nb\n",
        b"\n\na\r\n",
    ] {
        let want: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
        assert_eq!(lines(text).collect::<Vec<_>>(), want, "{text:?}");
    }
}

#[test]
fn cached_user_agents_are_redacted_exactly_as_uncached() {
    let o = opts();
    let line = r#"10.0.0.1 - - [01/Mar/2024:10:00:00 +0000] "GET /x HTTP/1.1" 200 5 "-" "MyApp/1.0 key=CANARY-agent-0123456789abcdef""#;
    let parser = sniff_layout(format!("{line}\n").as_bytes(), None).unwrap();
    let cache = record::AgentCache::default();
    let (mut plain, mut cached) = (Vec::new(), Vec::new());
    parser.parse_line(line, 1, &src(), &o, &mut plain).unwrap();
    for n in 1..=3 {
        parser
            .parse_line_with(line, n, &src(), &o, Some(&cache), &mut cached)
            .unwrap();
    }
    let ua = plain[0].user_agent().unwrap().to_string();
    assert!(!ua.contains("CANARY"), "{ua}");
    for r in &cached {
        assert_eq!(r.user_agent(), Some(ua.as_str()));
    }
}

/// The event view a line gives straight from its fields is the view of the record
/// `into_request` builds from the same line, and the fast path is taken only where it may be.
/// `Some(taken)`, or `None` for a line that is no record.
fn check_view(parser: &Parser, line: &str, o: &Options) -> Option<bool> {
    /// Views that must equal the full record's.
    struct Expect<'r>(&'r Request, &'r str);
    impl crate::ingest::Views<()> for Expect<'_> {
        fn may_view(&self, _: u16, _: bool, _: &str) -> bool {
            true
        }
        fn view(&self, v: &crate::model::view::RecordView<'_>) -> Option<()> {
            assert_eq!(*v, crate::model::view::RecordView::of(self.0), "{}", self.1);
            Some(())
        }
    }
    use crate::model::view::view_suffices;
    let cache = record::AgentCache::default();
    let cv = Convert {
        source: &src(),
        redactor: &o.redactor,
        no_signal: parser.no_signal(),
        agents: Some(&cache),
    };
    let mut full = None;
    parser
        .parse_fields(line, &mut |f, _| full = Some(f.into_request(7, &cv)))
        .ok()?;
    let r = full?.ok()?;
    let mut taken = None;
    parser
        .parse_fields(line, &mut |f, _| {
            taken = Some(f.map_view(7, &cv, &Expect(&r, line)))
        })
        .ok()?;
    let taken = taken?.is_some();
    assert!(
        !taken || view_suffices(r.status, r.layer_signal.is_some()),
        "view taken for {line}"
    );
    Some(taken)
}

#[test]
fn the_view_of_every_sample_line_is_the_full_records() {
    let o = opts();
    let (mut lines, mut views) = (0, 0);
    for text in [
        BEATS_NGINX,
        BEATS_INGRESS,
        ENVOY_DOCS,
        ISTIO_DOCS,
        ISTIO_RL,
        ALB_DOCS,
        ALB_LAMBDA,
        ALB_H2,
        CLOUDFRONT,
        IIS,
        HAPROXY_DOCS,
        HAPROXY_5424,
        r#"10.0.0.1:443 - alice [01/Mar/2024:10:00:00 +0000] "get /v1/orders?api_key=CANARY-0123456789abcdef&page=2 HTTP/1.1" 200 5 "-" "MyApp/1.0 key=CANARY-agent-0123456789abcdef""#,
        r#"[2001:db8::1]:8443 - - [01/Mar/2024:10:00:00 +0000] "POST /graphql HTTP/1.1" 304 5 "-" "-""#,
        r#"10.0.0.2 - - [01/Mar/2024:10:00:00 +0000] "GET /v1/x HTTP/1.1" 202 5 "-" "curl/8""#,
        r#"10.0.0.2 - - [01/Mar/2024:10:00:00 +0000] "GET /v1/x HTTP/1.1" 429 5 "-" "curl/8""#,
        r#"10.0.0.2 - - [01/Mar/2024:10:00:00 +0000] "-" 400 0 "-" "-""#,
    ] {
        let parser = sniff_layout(format!("{text}\n").as_bytes(), None)
            .unwrap_or_else(|e| panic!("not sniffed: {e}"));
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            lines += 1;
            views += usize::from(check_view(&parser, line, &o).unwrap_or(false));
        }
    }
    assert!(views > 5 && views < lines, "{views} of {lines}");
}

#[test]
fn a_long_url_is_cut_alike_on_both_paths() {
    let long = format!("/x/{}?token=CANARY-{}", "a".repeat(9000), "b".repeat(40));
    let line = format!(
        r#"10.0.0.1 - - [01/Mar/2024:10:00:00 +0000] "GET {long} HTTP/1.1" 200 5 "-" "curl/8""#
    );
    let parser = sniff_layout(format!("{line}\n").as_bytes(), None).unwrap();
    assert_eq!(check_view(&parser, &line, &opts()), Some(true));
}

mod view_props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Generated nginx `main` / `combined` lines: the view is the full record's.
        #[test]
        fn the_view_of_a_generated_line_is_the_full_records(
            addr in prop::sample::select(vec!["10.0.0.1", "10.0.0.1:5555", "[2001:db8::1]:443", "2001:db8::2", "-"]),
            user in prop::sample::select(vec!["-", "alice", "CANARY-user"]),
            method in prop::sample::select(vec!["GET", "get", "Post", "DELETE", "PATCHp", "-"]),
            path in prop::sample::select(vec!["/v1/orders/123", "/static/app.35074.js", "/v1/search?q=shoes&page=2", "/cb?access_token=CANARY-0123456789abcdefghij", "/x/eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", "/", "http://api.example.com/v1/x?key=CANARY-k0123456789", "/a%20b/graphql"]),
            status in prop::sample::select(vec![200u16, 201, 202, 204, 301, 304, 399, 400, 429, 500, 503]),
            ua in prop::sample::select(vec!["curl/8.5.0", "-", "MyApp/1.0 key=CANARY-agent-0123456789abcdef", "Mozilla/5.0 (X11; Linux x86_64)"]),
            xff in prop::sample::select(vec![None, Some("-"), Some("203.0.113.9, 10.0.0.1"), Some(" , 198.51.100.7:99")]),
        ) {
            let request = if method == "-" { "-".to_string() } else { format!("{method} {path} HTTP/1.1") };
            let mut line = format!(r#"{addr} - {user} [01/Mar/2024:10:00:00 +0000] "{request}" {status} 5 "-" "{ua}""#);
            if let Some(x) = xff {
                line.push_str(&format!(r#" "{x}""#));
            }
            let parser = sniff_layout(format!("{line}\n").as_bytes(), None).unwrap();
            let taken = check_view(&parser, &line, &opts());
            if let Some(taken) = taken {
                prop_assert_eq!(taken, (200..400).contains(&status) && status != 202);
            }
        }
    }
}

/// An access log never holds the body: unknown unless its logged body length is 0
/// (`$body_bytes_sent` in nginx's `combined`).
#[test]
fn an_access_log_body_is_unknown_unless_its_length_is_zero() {
    let line = |bytes: &str| {
        format!(
            r#"10.0.3.37 - - [01/May/2024:00:00:00 +0000] "GET /v1/x HTTP/1.1" 429 {bytes} "-" "curl/8.0""#
        )
    };
    assert!(!one(&line("0")).0.body_not_captured);
    assert!(one(&line("162")).0.body_not_captured);
    assert!(!one(&line("-")).0.body_not_captured);
}

#[test]
fn a_file_of_records_that_are_not_requests_is_read_and_says_so() {
    // An NLB TLS listener record alone: the ALB reader takes it, counts it, reads no request.
    let nlb = "tls 2.0 2020-04-01T08:51:42 net/nlb/c6e7 g3d4 72.21.218.154:51341 172.100.100.185:443 5 2 98 246 - arn:aws:acm:us-east-2:1:certificate/2 - ECDHE-RSA-AES128-SHA tlsv12 - nlb.elb.us-east-2.amazonaws.com h2 h2 \"h2\",\"http/1.1\" 2020-04-01T08:51:20\n";
    let out = read_lines(nlb, Format::Alb);
    assert_eq!(out.requests.len(), 0);
    assert_eq!(out.reasons.not_requests(), 1);
    let e = out.error.expect("an input with no request is an error");
    assert!(
        e.contains("no HTTP request records found") && e.contains("NLB TLS"),
        "{e}"
    );
    // An IIS FTP log, with its directives and without them: FTP records, no request read.
    let ftp = "#Fields: date time c-ip c-port cs-username s-ip s-port cs-method cs-uri-stem sc-status sc-win32-status sc-substatus x-session x-fullpath\n\
        2024-10-10 13:55:01 10.0.0.7 50123 - 10.0.0.2 21 ControlChannelOpened - - 0 0 5d1e - \n\
        2024-10-10 13:55:01 10.0.0.7 50123 - 10.0.0.2 21 USER alice 331 0 0 5d1e -\n\
        2024-10-10 13:55:03 10.0.0.7 50123 alice 10.0.0.2 21 RETR report.csv 226 0 0 5d1e /report.csv\n";
    for text in [ftp, &ftp[ftp.find('\n').unwrap() + 1..]] {
        let out = read_lines(text, Format::W3c);
        assert_eq!(out.requests.len(), 0, "{text}");
        assert_eq!(out.reasons.not_requests(), 3, "{text}");
        assert!(out.error.is_some_and(|e| e.contains("FTP session records")));
    }
    // Text of which a line or two look like such records is still not an access log.
    let mostly_other = format!("{nlb}hello\nworld\nsomething else\n");
    assert!(sniff_layout(mostly_other.as_bytes(), None).is_err());
}

#[test]
fn ftp_commands_are_not_http_methods() {
    for m in [
        "USER",
        "PASS",
        "RETR",
        "STOR",
        "ControlChannelOpened",
        "DataChannelClosed",
    ] {
        assert!(w3c::is_ftp_command(m), "{m}");
    }
    for m in [
        "GET",
        "POST",
        "PUT",
        "DELETE",
        "OPTIONS",
        "PROPFIND",
        "RPC_IN_DATA",
    ] {
        assert!(!w3c::is_ftp_command(m), "{m}");
    }
}

#[test]
fn iis_without_fields_and_without_a_referer_reads_the_status_where_it_is() {
    // IIS 6's default set has no cs(Referer): the later default's referer column would hold
    // the status, and the substatus (211) would pass for one.
    let text = "2002-05-02 17:42:15 172.22.255.255 GET /images/picture.jpg ?a=b 80 toto 123.123.123.123 Mozilla/4.0+(compatible) 429 211 322 1234\n\
        2002-05-02 17:42:16 172.22.255.255 GET /images/picture.jpg - 80 - 123.123.123.123 Mozilla/4.0+(compatible) 200 0 0 15 75.177.176.102,+23.48.200.135\n";
    let out = read_lines(text, Format::W3c);
    let statuses: Vec<u16> = out.requests.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [429, 200]);
    let sniffed = read(
        Box::new(Cursor::new(text.as_bytes().to_vec())),
        &src(),
        &opts(),
        crate::ingest::source::sniff(text.as_bytes(), "u_ex.log")
            .unwrap()
            .format,
    );
    assert_eq!(sniffed.requests[0].status, 429);
}
