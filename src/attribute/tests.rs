//! One fixture per vendor, built from its documented behaviour (fingerprints.md), passed through
//! the same redaction as ingestion. Each producer rule must fire on the fixtures that name it
//! and on no other.

use super::rules::{self, Proves, RULES};
use super::*;
use crate::model::{Location, Position};
use crate::redact::Redactor;
use std::sync::Arc;

pub struct Fx {
    pub name: &'static str,
    pub host: &'static str,
    pub status: u16,
    pub headers: &'static [(&'static str, &'static str)],
    pub body: &'static str,
    /// Headers of the host's successful responses (three are generated).
    pub baseline: &'static [(&'static str, &'static str)],
    pub layer: Layer,
    pub vendor: Option<&'static str>,
    pub quota: Quota,
    /// Producer rules expected to fire on this fixture.
    pub owns: &'static [&'static str],
}

const CF: &[(&str, &str)] = &[
    ("server", "cloudflare"),
    ("cf-ray", "8a1b2c3d4e5f6789-SJC"),
    ("cf-cache-status", "DYNAMIC"),
];

fn request(
    host: &str,
    status: u16,
    headers: &[(&str, &str)],
    body: &str,
    red: &Redactor,
    i: usize,
) -> Request {
    let mut r = Request::at(Location {
        source: Arc::from("fixture"),
        position: Position::Entry(i),
    });
    r.url = format!("https://{host}/v1/items");
    r.method = "GET".into();
    r.status = status;
    r.started = crate::http::date::parse_http_date("Mon, 07 Aug 2023 12:00:00 GMT");
    for (n, v) in headers {
        r.response_headers.push(*n, red.header(n, v));
    }
    if !body.is_empty() && !(200..400).contains(&status) {
        r.body_excerpt = Some(red.excerpt(body, 4096));
    }
    r
}

/// The fixture's requests: three successes (baseline) then the rate-limited response.
pub fn requests(fx: &Fx) -> Vec<Request> {
    let red = Redactor::from_key_material(b"fixture key material");
    let mut v: Vec<Request> = Vec::new();
    if !fx.baseline.is_empty() {
        for i in 0..3 {
            let mut h: Vec<(&str, &str)> = fx.baseline.to_vec();
            h.push(("content-type", "application/json"));
            v.push(request(fx.host, 200, &h, "", &red, i));
        }
    }
    let n = v.len();
    v.push(request(fx.host, fx.status, fx.headers, fx.body, &red, n));
    v
}

pub fn run(fx: &Fx) -> Attribution {
    let reqs = requests(fx);
    let t = reqs.len() - 1;
    attribute(&reqs, &[t]).remove(0)
}

use Layer::{Api, Cdn, Proxy};

#[rustfmt::skip]
pub static FIXTURES: &[Fx] = &[
    Fx {
        name: "cloudflare 1015 browser page",
        host: "api.npmjs.org",
        status: 429,
        headers: &[("server", "cloudflare"), ("cf-ray", "8a1b2c3d4e5f6789-SJC"), ("content-type", "text/html; charset=UTF-8"), ("retry-after", "30")],
        body: "<!DOCTYPE html><html><head><title>Access denied | api.npmjs.org used Cloudflare to restrict access</title>\
               <link rel=\"stylesheet\" href=\"/cdn-cgi/styles/main.css\" /></head><body><h1>Error 1015</h1>\
               <p>Ray ID: 8a1b2c3d4e5f6789</p><h2>You are being rate limited</h2><p>The owner of this website (api.npmjs.org) \
               has banned you temporarily from accessing this website.</p></body></html>",
        baseline: CF,
        layer: Cdn, vendor: Some("cloudflare"), quota: Quota::Rate,
        owns: &["cloudflare.1015", "cloudflare.branded-page"],
    },
    Fx {
        name: "cloudflare 1015 plain with error headers",
        host: "rpc.example.org",
        status: 429,
        headers: &[("server", "cloudflare"), ("cf-ray", "8a1b2c3d4e5f0000-AMS"), ("cf-error-type", "1015"), ("content-type", "text/plain"), ("retry-after", "30")],
        body: "error code: 1015",
        baseline: CF,
        layer: Cdn, vendor: Some("cloudflare"), quota: Quota::Rate,
        owns: &["cloudflare.1015", "cloudflare.error-headers"],
    },
    Fx {
        name: "cloudflare challenge on a storefront",
        host: "shop.example.com",
        status: 429,
        headers: &[("server", "cloudflare"), ("cf-ray", "8a1b2c3d4e5f1111-LHR"), ("cf-mitigated", "challenge"), ("content-type", "text/html; charset=UTF-8")],
        body: "<!DOCTYPE html><html><head><title>Just a moment...</title></head><body>Enable JavaScript and cookies to continue</body></html>",
        baseline: &[("server", "cloudflare"), ("cf-ray", "1-LHR"), ("x-shopify-stage", "production"), ("x-shopid", "123")],
        layer: Cdn, vendor: Some("cloudflare"), quota: Quota::Unknown,
        owns: &["cloudflare.challenge"],
    },
    Fx {
        name: "cloudflare's own API",
        host: "api.cloudflare.com",
        status: 429,
        headers: &[("server", "cloudflare"), ("cf-ray", "8a1b2c3d4e5f2222-SJC"), ("content-type", "application/json"),
                   ("ratelimit", "\"default\";r=0;t=30"), ("ratelimit-policy", "\"default\";q=1200;w=300")],
        body: "{\"success\":false,\"errors\":[{\"code\":10100,\"message\":\"More than 1200 requests per 300 seconds reached. Please wait and consider throttling your request speed\"}],\"messages\":[],\"result\":null}",
        baseline: CF,
        layer: Api, vendor: Some("cloudflare"), quota: Quota::Rate,
        owns: &["cloudflare.api-limit"],
    },
    Fx {
        name: "akamai deny page",
        host: "www.example-retail.com",
        status: 429,
        headers: &[("server", "AkamaiGHost"), ("mime-version", "1.0"), ("content-type", "text/html"), ("akamai-grn", "0.2d351ab8.1557333295.a4e16ab")],
        body: "<HTML><HEAD>\n<TITLE>Access Denied</TITLE>\n</HEAD><BODY>\n<H1>Access Denied</H1>\n \nYou don't have permission to access \"http&#58;&#47;&#47;www&#46;example-retail&#46;com&#47;\" on this server.<P>\nReference&#32;&#35;18&#46;2d351ab8&#46;1557333295&#46;a4e16ab\n</BODY>\n</HTML>",
        baseline: &[("server", "Apache"), ("akamai-grn", "0.1.2.3")],
        layer: Cdn, vendor: Some("akamai"), quota: Quota::Rate,
        owns: &["akamai.reference", "akamai.ghost"],
    },
    Fx {
        name: "akamai fast purge API",
        host: "akab-xyz.purge.akamaiapis.net",
        status: 429,
        headers: &[("content-type", "application/problem+json"), ("x-ratelimit-limit", "100"), ("x-ratelimit-remaining", "0"),
                   ("x-ratelimit-limit-per-second", "50")],
        body: "{\"type\":\"https://problems.purge.akamaiapis.net/-/pep-authn/request-error\",\"title\":\"Rate Limit exceeded\",\"status\":429,\"detail\":\"Rate limit exceeded\"}",
        baseline: &[],
        layer: Api, vendor: Some("akamai"), quota: Quota::Rate,
        owns: &["akamai.fast-purge"],
    },
    Fx {
        name: "fastly edge rate limit",
        host: "www.example.net",
        status: 429,
        headers: &[("via", "1.1 varnish"), ("x-served-by", "cache-sjc10040-SJC"), ("x-cache", "HIT"), ("x-cache-hits", "0"),
                   ("x-timer", "S1691409600.000,VS0,VE0"), ("content-type", "text/plain")],
        body: "Too many requests",
        baseline: &[("via", "1.1 varnish"), ("x-served-by", "cache-sjc10040-SJC"), ("x-cache", "MISS"), ("x-timer", "S1,VS0")],
        layer: Cdn, vendor: Some("fastly"), quota: Quota::Rate,
        owns: &["fastly.synthetic-hit"],
    },
    Fx {
        name: "fastly synthetic varnish page",
        host: "static.example.net",
        status: 429,
        headers: &[("via", "1.1 varnish"), ("x-served-by", "cache-fra19130-FRA"), ("x-cache", "MISS"), ("content-type", "text/html")],
        body: "<html><head><title>429 Too many requests</title></head><body><h1>Error 429 Too many requests</h1><p>Too many requests</p><h3>Guru Mediation:</h3><p>Details: cache-fra19130-FRA 1691409600 123456</p><hr><p>Varnish cache server</p></body></html>",
        baseline: &[],
        layer: Cdn, vendor: Some("fastly"), quota: Quota::Rate,
        owns: &["fastly.varnish-page"],
    },
    Fx {
        name: "aws waf captcha",
        host: "app.example.io",
        status: 405,
        headers: &[("x-amzn-waf-action", "captcha"), ("content-type", "text/html"), ("set-cookie", "aws-waf-token=abc; Path=/"),
                   ("x-cache", "Error from cloudfront"), ("x-amz-cf-id", "abc==")],
        body: "<html><head><title>Human Verification</title></head><body><div id=\"captcha-container\"></div></body></html>",
        baseline: &[("x-cache", "Miss from cloudfront"), ("x-amz-cf-id", "x==")],
        layer: Cdn, vendor: Some("aws-waf"), quota: Quota::Rate,
        owns: &["aws-waf.action", "aws-waf.token-cookie"],
    },
    Fx {
        name: "cloudfront request blocked (waf)",
        host: "d111111abcdef8.cloudfront.net",
        status: 403,
        headers: &[("server", "CloudFront"), ("content-type", "text/html"), ("x-cache", "Error from cloudfront"),
                   ("via", "1.1 abc.cloudfront.net (CloudFront)"), ("x-amz-cf-pop", "BNE50-P2"), ("x-amz-cf-id", "abc==")],
        body: "<HTML><HEAD><TITLE>ERROR: The request could not be satisfied</TITLE></HEAD><BODY><H1>403 ERROR</H1><H2>The request could not be satisfied.</H2><HR noshade size=\"1px\">Request blocked.\nWe can't connect to the server for this app or website at this time.<BR clear=\"all\"><HR noshade size=\"1px\"><PRE>\nGenerated by cloudfront (CloudFront)\nRequest ID: abc==\n</PRE></BODY></HTML>",
        baseline: &[],
        layer: Cdn, vendor: Some("cloudfront"), quota: Quota::Rate,
        owns: &["cloudfront.blocked"],
    },
    Fx {
        name: "cloudfront generated error",
        host: "media.example.com",
        status: 429,
        headers: &[("server", "CloudFront"), ("content-type", "text/html"), ("x-cache", "Error from cloudfront"), ("x-amz-cf-pop", "IAD89-C1")],
        body: "<HTML><HEAD><TITLE>ERROR: The request could not be satisfied</TITLE></HEAD><BODY><H1>429 ERROR</H1><H2>The request could not be satisfied.</H2><HR noshade size=\"1px\">Too many requests.<PRE>\nGenerated by cloudfront (CloudFront)\n</PRE></BODY></HTML>",
        baseline: &[],
        layer: Cdn, vendor: Some("cloudfront"), quota: Quota::Rate,
        owns: &["cloudfront.page"],
    },
    Fx {
        name: "api gateway throttle behind cloudfront",
        host: "api.amber.com.au",
        status: 429,
        headers: &[("content-type", "application/json"), ("content-length", "31"), ("x-amzn-requestid", "3f1c-aa"),
                   ("x-amzn-errortype", "TooManyRequestsException"), ("x-amz-apigw-id", "Lq9xAFwHSwMEb1g="),
                   ("x-cache", "Error from cloudfront"), ("via", "1.1 0c0b.cloudfront.net (CloudFront)"),
                   ("x-amz-cf-pop", "SYD62-P1"), ("x-amz-cf-id", "Q2x==")],
        body: "{\"message\":\"Too Many Requests\"}",
        baseline: &[("x-amzn-requestid", "1"), ("x-amz-apigw-id", "2"), ("x-cache", "Miss from cloudfront"), ("x-amz-cf-id", "3")],
        layer: Proxy, vendor: Some("aws-api-gateway"), quota: Quota::Rate,
        owns: &["aws-api-gateway.error-type", "aws-api-gateway.body"],
    },
    Fx {
        name: "api gateway usage-plan quota",
        host: "abc123.execute-api.us-east-1.amazonaws.com",
        status: 429,
        headers: &[("content-type", "application/json"), ("x-amzn-requestid", "3f1c-bb"), ("x-amzn-errortype", "LimitExceededException"),
                   ("x-amz-apigw-id", "Lq9xAFwHSwMEb1h=")],
        body: "{\"message\":\"Limit Exceeded\"}",
        baseline: &[],
        layer: Proxy, vendor: Some("aws-api-gateway"), quota: Quota::Daily,
        owns: &["aws-api-gateway.error-type", "aws-api-gateway.body"],
    },
    Fx {
        name: "azure front door waf block",
        host: "www.contoso.com",
        status: 403,
        headers: &[("x-azure-ref", "20230807T120000Z-abc"), ("content-type", "text/html")],
        body: "<html><body>The request is blocked. 20230807T120000Z-abc</body></html>",
        baseline: &[],
        layer: Cdn, vendor: Some("azure-front-door"), quota: Quota::Rate,
        owns: &["azure-front-door.blocked"],
    },
    Fx {
        name: "azure front door rate-limit rule",
        host: "api.contoso.com",
        status: 429,
        headers: &[("x-azure-ref", "20230807T120001Z-def"), ("content-type", "text/html")],
        body: "<html><body>The request is blocked. 20230807T120001Z-def</body></html>",
        baseline: &[("x-azure-ref", "x"), ("request-context", "appId=cid-v1:1"), ("x-api-version", "2")],
        layer: Cdn, vendor: Some("azure-front-door"), quota: Quota::Rate,
        owns: &["azure-front-door.blocked"],
    },
    Fx {
        name: "origin empty 429 through azure front door",
        host: "api2.contoso.com",
        status: 429,
        headers: &[("x-azure-ref", "20230807T120001Z-xyz"), ("content-length", "0"), ("request-context", "appId=cid-v1:1"), ("x-api-version", "2")],
        body: "",
        baseline: &[("x-azure-ref", "x"), ("request-context", "appId=cid-v1:1"), ("x-api-version", "2")],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        name: "aws waf block on an application load balancer",
        host: "alb.example.com",
        status: 403,
        headers: &[("server", "awselb/2.0"), ("content-type", "text/html")],
        body: "<html>\r\n<head><title>403 Forbidden</title></head>\r\n<body>\r\n<center><h1>403 Forbidden</h1></center>\r\n</body>\r\n</html>\r\n",
        baseline: &[("server", "gunicorn"), ("x-app", "1")],
        layer: Cdn, vendor: Some("aws-waf"), quota: Quota::Rate,
        owns: &["aws-waf.alb"],
    },
    Fx {
        name: "azure application gateway waf",
        host: "portal.contoso.net",
        status: 403,
        headers: &[("server", "Microsoft-Azure-Application-Gateway/v2"), ("content-type", "text/html")],
        body: "<html>\r\n<head><title>403 Forbidden</title></head>\r\n<body>\r\n<center><h1>403 Forbidden</h1></center>\r\n<hr><center>Microsoft-Azure-Application-Gateway/v2</center>\r\n</body>\r\n</html>\r\n",
        baseline: &[],
        layer: Cdn, vendor: Some("azure-application-gateway"), quota: Quota::Rate,
        owns: &["azure-app-gateway.waf"],
    },
    Fx {
        name: "vertex generic resource exhausted",
        host: "us-central1-aiplatform.googleapis.com",
        status: 429,
        headers: &[("content-type", "application/json; charset=UTF-8"), ("server", "scaffolding on HTTPServer2")],
        body: "{\"error\":{\"code\":429,\"message\":\"Resource has been exhausted (e.g. check quota).\",\"status\":\"RESOURCE_EXHAUSTED\"}}",
        baseline: &[],
        layer: Api, vendor: Some("google-vertex-ai"), quota: Quota::Rate,
        owns: &["google.rpc-status"],
    },
    Fx {
        name: "google front end 429 page",
        host: "trends.google.com",
        status: 429,
        headers: &[("content-type", "text/html; charset=UTF-8"), ("server", "HTTP server (unknown)")],
        body: "<!DOCTYPE html><html lang=en><meta charset=utf-8><title>Error 429 (Too Many Requests)!!1</title><p><b>429.</b> <ins>That’s an error.</ins><p>We're sorry, but you have sent too many requests to us recently. Please try again later. <ins>That’s all we know.</ins>",
        baseline: &[],
        layer: Cdn, vendor: Some("google-cloud-armor"), quota: Quota::Rate,
        owns: &["google-cloud-armor.gfe-page"],
    },
    Fx {
        name: "imperva block",
        host: "www.bank.example",
        status: 429,
        headers: &[("x-iinfo", "7-12345-0 0NNN RT(1691409600 0) q(0 -1 -1 -1) r(0 -1)"), ("x-cdn", "Incapsula"), ("content-type", "text/html")],
        body: "<html><head><META NAME=\"robots\" CONTENT=\"noindex,nofollow\"></head><body>Request unsuccessful. Incapsula incident ID: 123000456789-98765432109876543</body></html>",
        baseline: &[("x-iinfo", "1"), ("x-cdn", "Incapsula")],
        layer: Cdn, vendor: Some("imperva"), quota: Quota::Rate,
        owns: &["imperva.page"],
    },
    Fx {
        name: "sucuri firewall block",
        host: "blog.example.org",
        status: 403,
        headers: &[("server", "Sucuri/Cloudproxy"), ("x-sucuri-id", "11005"), ("x-sucuri-block", "EVA079"), ("content-type", "text/html")],
        body: "<html><head><title>Sucuri WebSite Firewall - Access Denied</title></head><body>Access Denied - Sucuri Website Firewall</body></html>",
        baseline: &[],
        layer: Cdn, vendor: Some("sucuri"), quota: Quota::Rate,
        owns: &["sucuri.block"],
    },
    Fx {
        name: "vercel firewall rate limit",
        host: "my-app.vercel.app",
        status: 429,
        headers: &[("server", "Vercel"), ("x-vercel-id", "sfo1::abcde-1691409600000-123"), ("x-vercel-mitigated", "deny"), ("content-type", "text/plain")],
        body: "Too Many Requests",
        baseline: &[("server", "Vercel"), ("x-vercel-id", "sfo1::x"), ("x-vercel-cache", "MISS")],
        layer: Cdn, vendor: Some("vercel"), quota: Quota::Rate,
        owns: &["vercel.mitigated"],
    },
    Fx {
        name: "netlify rate-limit rule",
        host: "docs.example.dev",
        status: 429,
        headers: &[("server", "Netlify"), ("x-nf-request-id", "01HABC"), ("content-type", "text/plain; charset=utf-8")],
        body: "Too Many Requests",
        baseline: &[],
        layer: Cdn, vendor: Some("netlify"), quota: Quota::Rate,
        owns: &["netlify.unbranded-429"],
    },
    Fx {
        name: "nginx limit_req default 503",
        host: "legacy.example.com",
        status: 503,
        headers: &[("server", "nginx/1.25.3"), ("content-type", "text/html")],
        body: "<html>\r\n<head><title>503 Service Temporarily Unavailable</title></head>\r\n<body>\r\n<center><h1>503 Service Temporarily Unavailable</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n",
        baseline: &[("server", "nginx/1.25.3"), ("x-app-build", "42"), ("x-runtime", "0.01")],
        layer: Proxy, vendor: Some("nginx"), quota: Quota::Rate,
        owns: &["nginx.default-page"],
    },
    Fx {
        name: "envoy global rate limit",
        host: "api.mesh.internal",
        status: 429,
        headers: &[("server", "envoy"), ("x-envoy-ratelimited", "true"), ("content-length", "0")],
        body: "",
        baseline: &[("server", "envoy"), ("x-envoy-upstream-service-time", "12")],
        layer: Proxy, vendor: Some("envoy"), quota: Quota::Rate,
        owns: &["envoy.ratelimited", "envoy.local-reply-empty"],
    },
    Fx {
        name: "envoy local rate limit",
        host: "svc.mesh.internal",
        status: 429,
        headers: &[("server", "istio-envoy"), ("content-type", "text/plain"), ("x-ratelimit-limit", "10, 10;w=60"), ("x-ratelimit-remaining", "0"), ("x-ratelimit-reset", "42")],
        body: "local_rate_limited",
        baseline: &[],
        layer: Proxy, vendor: Some("envoy"), quota: Quota::Rate,
        owns: &["envoy.local-body"],
    },
    Fx {
        name: "envoy overload",
        host: "svc2.mesh.internal",
        status: 503,
        headers: &[("server", "envoy"), ("x-envoy-overloaded", "true"), ("content-type", "text/plain")],
        body: "upstream connect error or disconnect/reset before headers. reset reason: overflow",
        baseline: &[],
        layer: Proxy, vendor: Some("envoy"), quota: Quota::Unknown,
        owns: &["envoy.overloaded"],
    },
    Fx {
        name: "haproxy deny 429",
        host: "www.shop.example",
        status: 429,
        headers: &[("content-type", "text/html"), ("cache-control", "no-cache"), ("connection", "close")],
        body: "<html><body><h1>429 Too Many Requests</h1>\nYou have sent too many requests in a given amount of time.\n</body></html>\n",
        baseline: &[],
        layer: Proxy, vendor: Some("haproxy"), quota: Quota::Rate,
        owns: &["haproxy.page"],
    },
    Fx {
        name: "traefik rate limit",
        host: "whoami.example.dev",
        status: 429,
        headers: &[("retry-after", "1"), ("x-retry-in", "750.123ms"), ("content-type", "text/plain; charset=utf-8")],
        body: "Too Many Requests",
        baseline: &[],
        layer: Proxy, vendor: Some("traefik"), quota: Quota::Rate,
        owns: &["traefik.retry-in"],
    },
    Fx {
        name: "traefik in-flight limit",
        host: "upload.example.dev",
        status: 429,
        headers: &[("content-type", "text/plain; charset=utf-8")],
        body: "max connections reached: 10",
        baseline: &[],
        layer: Proxy, vendor: Some("traefik"), quota: Quota::Concurrency,
        owns: &["traefik.inflight"],
    },
    Fx {
        name: "kong rate-limiting plugin",
        host: "gateway.example.com",
        status: 429,
        headers: &[("content-type", "application/json; charset=utf-8"), ("server", "kong/3.6.1"), ("x-kong-response-latency", "0"),
                   ("x-kong-request-id", "5b2a"), ("ratelimit-limit", "5"), ("ratelimit-remaining", "0"), ("ratelimit-reset", "42"),
                   ("x-ratelimit-limit-minute", "5"), ("x-ratelimit-remaining-minute", "0"), ("retry-after", "42")],
        body: "{\n  \"message\":\"API rate limit exceeded\",\n  \"request_id\":\"5b2a\"\n}",
        baseline: &[("server", "gunicorn"), ("via", "1.1 kong/3.6.1"), ("x-kong-upstream-latency", "20"), ("x-kong-proxy-latency", "1"),
                    ("x-ratelimit-limit-minute", "5")],
        layer: Proxy, vendor: Some("kong"), quota: Quota::Rate,
        owns: &["kong.response-latency", "kong.server", "kong.message"],
    },
    Fx {
        name: "azure apim rate-limit policy",
        host: "contoso.azure-api.net",
        status: 429,
        headers: &[("content-type", "application/json"), ("retry-after", "7")],
        body: "{ \"statusCode\": 429, \"message\": \"Rate limit is exceeded. Try again in 7 seconds.\" }",
        baseline: &[],
        layer: Proxy, vendor: Some("azure-apim"), quota: Quota::Rate,
        owns: &["azure-apim.rate"],
    },
    Fx {
        name: "azure apim quota policy",
        host: "fabrikam.azure-api.net",
        status: 403,
        headers: &[("content-type", "application/json")],
        body: "{ \"statusCode\": 403, \"message\": \"Out of call volume quota. Quota will be replenished in 00:59:59.\" }",
        baseline: &[],
        layer: Proxy, vendor: Some("azure-apim"), quota: Quota::Daily,
        owns: &["azure-apim.quota"],
    },
    Fx {
        name: "apigee spike arrest",
        host: "sandbox.safaricom.co.ke",
        status: 429,
        headers: &[("content-type", "application/json")],
        body: "{\"fault\":{\"faultstring\":\"Spike arrest violation. Allowed rate : MessageRate{capacity=5, period=Seconds}\",\"detail\":{\"errorcode\":\"policies.ratelimit.SpikeArrestViolation\"}}}",
        baseline: &[],
        layer: Proxy, vendor: Some("apigee"), quota: Quota::Rate,
        owns: &["apigee.fault"],
    },
    Fx {
        name: "apigee quota (legacy router, 500)",
        host: "app.ticketmaster.example",
        status: 500,
        headers: &[("content-type", "application/json"), ("server", "Apigee Router")],
        body: "{\"fault\":{\"faultstring\":\"Rate limit quota violation. Quota limit  exceeded. Identifier : _default\",\"detail\":{\"errorcode\":\"policies.ratelimit.QuotaViolation\"}}}",
        baseline: &[],
        layer: Proxy, vendor: Some("apigee"), quota: Quota::Daily,
        owns: &["apigee.fault", "apigee.router"],
    },
    Fx {
        name: "tyk rate limit",
        host: "api.openrouteservice.org",
        status: 429,
        headers: &[("content-type", "application/json"), ("x-ratelimit-limit", "2000"), ("x-ratelimit-remaining", "1500"), ("x-ratelimit-reset", "1691452800")],
        body: "{\n    \"error\": \"Rate limit exceeded\"\n}",
        baseline: &[],
        layer: Proxy, vendor: Some("tyk"), quota: Quota::Rate,
        owns: &["tyk.error"],
    },
    Fx {
        name: "tyk quota",
        host: "api2.openrouteservice.org",
        status: 403,
        headers: &[("content-type", "application/json"), ("x-ratelimit-limit", "2000"), ("x-ratelimit-remaining", "0"), ("x-ratelimit-reset", "1691410000")],
        body: "{\n    \"error\": \"Quota exceeded\"\n}",
        baseline: &[],
        layer: Proxy, vendor: Some("tyk"), quota: Quota::Daily,
        owns: &["tyk.error"],
    },
    Fx {
        // github.com/CartoDB/dataservices-api pull 528 (TomTom behind Mashery)
        name: "mashery over qps (403)",
        host: "api.tomtom.com",
        status: 403,
        headers: &[("content-type", "text/xml"), ("x-error-detail-header", "Account Over Queries Per Second Limit"),
                   ("x-mashery-error-code", "ERR_403_DEVELOPER_OVER_QPS"), ("x-mashery-responder", "prod-j-worker-us-east-1b-63.mashery.com")],
        body: "<h1>Developer Over Qps</h1>",
        baseline: &[],
        layer: Proxy, vendor: Some("mashery"), quota: Quota::Rate,
        owns: &["mashery.error"],
    },
    Fx {
        // github.com/hotelbeds-sdk/hotel-api-sdk-java issue 14
        name: "mashery over rate (403)",
        host: "api.test.hotelbeds.com",
        status: 403,
        headers: &[("content-type", "text/xml"), ("x-error-detail-header", "Account Over Rate Limit"),
                   ("x-mashery-error-code", "ERR_403_DEVELOPER_OVER_RATE")],
        body: "",
        baseline: &[],
        layer: Proxy, vendor: Some("mashery"), quota: Quota::Daily,
        owns: &["mashery.error"],
    },
    Fx {
        // docs.rapidapi.com/docs/response-headers (X-RapidAPI-Proxy-Response)
        name: "rapidapi proxy plan rate limit",
        host: "weatherbit-v1-mashape.p.rapidapi.com",
        status: 429,
        headers: &[("content-type", "application/json"), ("server", "RapidAPI-1.2.8"), ("x-rapidapi-version", "1.2.8"),
                   ("x-rapidapi-region", "AWS - eu-central-1"), ("x-rapidapi-proxy-response", "true")],
        body: "{\"message\":\"You have exceeded the rate limit per second for your plan, BASIC, by the API provider\"}",
        baseline: &[],
        layer: Proxy, vendor: Some("rapidapi"), quota: Quota::Rate,
        owns: &["rapidapi.proxy-response", "rapidapi.plan-message"],
    },
    Fx {
        // rapidapi.com/fcambus/api/Telize/discussions/3583 (Mashape, RapidAPI's former name)
        name: "mashape proxy answer",
        host: "telize-v1.p.mashape.com",
        status: 429,
        headers: &[("content-type", "application/json"), ("server", "Mashape/5.0.6"), ("x-mashape-proxy-response", "true")],
        body: "\"Too many requests. Please try again.\"",
        baseline: &[],
        layer: Proxy, vendor: Some("rapidapi"), quota: Quota::Rate,
        owns: &["rapidapi.proxy-response"],
    },
    Fx {
        // zuplo.com/docs/articles/http-problems (the format its policies answer in)
        name: "zuplo rate-limit policy",
        host: "my-api-main-1a2b3c4.zuplo.app",
        status: 429,
        headers: &[("content-type", "application/problem+json"), ("retry-after", "42"), ("zp-rid", "3c8e7b62-0000-4000-8000-000000000000")],
        body: "{\"type\":\"https://httpproblems.com/http-status/429\",\"title\":\"Too Many Requests\",\"status\":429,\"instance\":\"/v1/todos\",\"trace\":{\"timestamp\":\"2026-03-10T10:00:00.000Z\",\"requestId\":\"3c8e7b62-0000-4000-8000-000000000000\",\"buildId\":\"1a2b3c4d-0000\",\"rayId\":\"8a1b2c3d4e5f0000\"}}",
        baseline: &[],
        layer: Proxy, vendor: Some("zuplo"), quota: Quota::Rate,
        owns: &["zuplo.problem"],
    },
    Fx {
        name: "spring cloud gateway request rate limiter",
        host: "gateway.example.com",
        status: 429,
        headers: &[("x-ratelimit-remaining", "0"), ("x-ratelimit-replenish-rate", "10"), ("x-ratelimit-burst-capacity", "20"),
                   ("x-ratelimit-requested-tokens", "1"), ("content-length", "0")],
        body: "",
        baseline: &[],
        layer: Proxy, vendor: Some("spring-cloud-gateway"), quota: Quota::Rate,
        owns: &["spring-cloud-gateway.denied"],
    },
    Fx {
        name: "ibm api connect rate limit",
        host: "api.eu.apiconnect.example.net",
        status: 429,
        headers: &[("content-type", "application/json"), ("x-ratelimit-limit", "name=rate-limit,100;"), ("x-ratelimit-remaining", "name=rate-limit,0;")],
        body: "{\n\"httpCode\": \"429\",\n\"httpMessage\": \"Too Many Requests\",\n\"moreInformation\": \"Rate Limit exceeded\"\n}",
        baseline: &[],
        layer: Proxy, vendor: Some("ibm-api-connect"), quota: Quota::Rate,
        owns: &["ibm-api-connect.rate"],
    },
    Fx {
        name: "gravitee rate limit",
        host: "apim.example.org",
        status: 429,
        headers: &[("content-type", "application/json"), ("x-rate-limit-limit", "10"), ("x-rate-limit-remaining", "0")],
        body: "{\"message\":\"Rate limit exceeded ! You reach the limit of 10 requests per 1 minutes\",\"http_status_code\":429}",
        baseline: &[],
        layer: Proxy, vendor: Some("gravitee"), quota: Quota::Rate,
        owns: &["gravitee.limit"],
    },
    Fx {
        name: "3scale apicast limits exceeded",
        host: "api-3scale.example.com",
        status: 429,
        headers: &[("content-type", "text/plain; charset=utf-8")],
        body: "Limits exceeded",
        baseline: &[],
        layer: Proxy, vendor: Some("3scale"), quota: Quota::Rate,
        owns: &["3scale.limits-exceeded"],
    },
    Fx {
        // IIS's detailed error page for Dynamic IP Restrictions (denyAction Forbidden, the
        // default): the substatus text of learn.microsoft.com's IIS status-code table.
        name: "iis dynamic ip restrictions 403.502 page",
        host: "portal.example.org",
        status: 403,
        headers: &[("content-type", "text/html"), ("server", "Microsoft-IIS/10.0"), ("x-powered-by", "ASP.NET")],
        body: "<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Strict//EN\" \"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd\">\n\
               <html xmlns=\"http://www.w3.org/1999/xhtml\"><head><title>IIS 10.0 Detailed Error - 403.502 - Forbidden</title></head>\n\
               <body><div id=\"content\"><div class=\"content-container\"><h3>HTTP Error 403.502 - Forbidden</h3>\n\
               <h4>Too many requests from the same client IP; Dynamic IP Restriction Maximum request rate limit reached.</h4></div>",
        baseline: &[("server", "Microsoft-IIS/10.0"), ("x-powered-by", "ASP.NET")],
        layer: Api, vendor: Some("iis"), quota: Quota::Rate,
        owns: &["iis.dynamic-ip-page"],
    },
    Fx {
        name: "iis dynamic ip restrictions 403.501 page (concurrent requests)",
        host: "portal.example.org",
        status: 403,
        headers: &[("content-type", "text/html"), ("server", "Microsoft-IIS/10.0")],
        body: "<html><head><title>IIS 10.0 Detailed Error - 403.501 - Forbidden</title></head><body>\
               <h3>HTTP Error 403.501 - Forbidden</h3><h4>Too many requests from the same client IP; Dynamic IP Restriction Concurrent request rate limit reached.</h4>",
        baseline: &[("server", "Microsoft-IIS/10.0")],
        layer: Api, vendor: Some("iis"), quota: Quota::Concurrency,
        owns: &["iis.dynamic-ip-page"],
    },
    Fx {
        // https://github.com/ranaroussi/yfinance/issues/2284: the crumb request answered 429
        // with the plain body "Edge: Too Many Requests".
        name: "yahoo edge plain 429",
        host: "query2.finance.yahoo.com",
        status: 429,
        headers: &[("content-type", "text/plain"), ("content-length", "23")],
        body: "Edge: Too Many Requests",
        baseline: &[],
        layer: Cdn, vendor: Some("yahoo"), quota: Quota::Rate,
        owns: &["yahoo.edge-page"],
    },
    Fx {
        // go-chi/httprate limiter.go: X-RateLimit-Limit/-Remaining/-Reset, Retry-After = the
        // window, then http.Error(w, http.StatusText(429), 429).
        name: "go-chi httprate default 429",
        host: "svc.example.net",
        status: 429,
        headers: &[("content-type", "text/plain; charset=utf-8"), ("x-content-type-options", "nosniff"),
                   ("x-ratelimit-limit", "100"), ("x-ratelimit-remaining", "0"), ("x-ratelimit-reset", "1691409660"),
                   ("retry-after", "60")],
        body: "Too Many Requests\n",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        // ASP.NET Core's RateLimiterOptions: no body unless OnRejected writes one; 503 by
        // default, 429 when RejectionStatusCode is set. Kestrel is the application's own server.
        name: "asp.net core rate limiter 429 on kestrel, empty",
        host: "orders.example.net",
        status: 429,
        headers: &[("server", "Kestrel"), ("content-length", "0")],
        body: "",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        name: "nestjs throttler default 429",
        host: "api.example.dev",
        status: 429,
        headers: &[("content-type", "application/json; charset=utf-8"), ("retry-after", "60"), ("x-powered-by", "Express")],
        body: "{\"statusCode\":429,\"message\":\"ThrottlerException: Too Many Requests\"}",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        name: "fastify rate-limit default 429",
        host: "api.example.dev",
        status: 429,
        headers: &[("content-type", "application/json; charset=utf-8"), ("x-ratelimit-limit", "100"),
                   ("x-ratelimit-remaining", "0"), ("x-ratelimit-reset", "42"), ("retry-after", "42")],
        body: "{\"statusCode\":429,\"error\":\"Too Many Requests\",\"message\":\"Rate limit exceeded, retry in 1 minute\"}",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        name: "aspnetcoreratelimit per-second rule, text",
        host: "api.example.net",
        status: 429,
        headers: &[("content-type", "text/plain"), ("retry-after", "1"), ("x-rate-limit-limit", "1s")],
        body: "API calls quota exceeded! maximum admitted 2 per 1s.",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        name: "aspnetcoreratelimit per-day rule, text",
        host: "api.example.net",
        status: 429,
        headers: &[("content-type", "text/plain"), ("retry-after", "7200")],
        body: "API calls quota exceeded! maximum admitted 6000 per 1d.",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Daily,
        owns: &[],
    },
    Fx {
        name: "tollbooth default message",
        host: "svc.example.net",
        status: 429,
        headers: &[("content-type", "text/plain; charset=utf-8"), ("x-rate-limit-limit", "1.00"), ("x-rate-limit-duration", "1")],
        body: "You have reached maximum request limit.",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        name: "rack-attack default throttle, no other evidence",
        host: "app.example.org",
        status: 429,
        headers: &[("content-type", "text/plain"), ("retry-after", "60")],
        body: "Retry later\n",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        name: "express-rate-limit default message, no headers",
        host: "api.example.org",
        status: 429,
        headers: &[("content-type", "text/html; charset=utf-8")],
        body: "Too many requests, please try again later.",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        name: "flask-limiter page on a JSON API",
        host: "svc.example.org",
        status: 429,
        headers: &[("content-type", "text/html; charset=utf-8")],
        body: "<!doctype html>\n<html lang=en>\n<title>429 Too Many Requests</title>\n<h1>Too Many Requests</h1>\n<p>1 per 1 minute</p>\n",
        baseline: &[("content-type", "application/json"), ("x-svc-build", "4")],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        name: "krakend client rate limit",
        host: "edge.example.com",
        status: 429,
        headers: &[("x-krakend", "Version 2.5.0"), ("x-krakend-completed", "false"), ("content-length", "0")],
        body: "",
        baseline: &[],
        layer: Proxy, vendor: Some("krakend"), quota: Quota::Rate,
        owns: &["krakend.abort"],
    },
    Fx {
        name: "apisix limit-count",
        host: "apisix.example.com",
        status: 503,
        headers: &[("server", "APISIX/3.8.0"), ("content-type", "text/html; charset=utf-8"), ("x-ratelimit-limit", "2"), ("x-ratelimit-remaining", "0"), ("x-ratelimit-reset", "58")],
        body: "<html>\n<head><title>503 Service Temporarily Unavailable</title></head>\n<body>\n<center><h1>503 Service Temporarily Unavailable</h1></center>\n<hr><center>openresty</center>\n</body>\n</html>",
        baseline: &[],
        layer: Proxy, vendor: Some("apisix"), quota: Quota::Rate,
        owns: &["apisix.page"],
    },
    Fx {
        // apache/apisix docs (client-to-apisix-mtls.md, forward-auth.md): the page APISIX
        // answers with; here behind a Server header rewritten to openresty.
        name: "apisix limit-req 429 page, server header hidden",
        host: "gw.example-apis.net",
        status: 429,
        headers: &[("server", "openresty"), ("content-type", "text/html; charset=utf-8")],
        body: "<html>\n<head><title>429 Too Many Requests</title></head>\n<body>\n<center><h1>429 Too Many Requests</h1></center>\n<hr><center>openresty</center>\n<p><em>Powered by <a href=\"https://apisix.apache.org/\">APISIX</a>.</em></p></body>\n</html>\n",
        baseline: &[("x-request-id", "r1"), ("server", "openresty")],
        layer: Proxy, vendor: Some("apisix"), quota: Quota::Rate,
        owns: &["apisix.powered-by"],
    },
    Fx {
        // https://developer.riotgames.com/docs/portal#web-apis_rate-limiting: X-App-Rate-Limit /
        // -Count on every response, X-Rate-Limit-Type on a 429.
        name: "riot games application rate limit",
        host: "europe.api.riotgames.com",
        status: 429,
        headers: &[("content-type", "application/json;charset=utf-8"), ("retry-after", "3"), ("x-rate-limit-type", "application"),
                   ("x-app-rate-limit", "20:1,100:120"), ("x-app-rate-limit-count", "20:1,100:120"),
                   ("x-method-rate-limit", "2000:10"), ("x-method-rate-limit-count", "5:10")],
        body: "{\"status\":{\"message\":\"Rate limit exceeded\",\"status_code\":429}}",
        baseline: &[],
        layer: Api, vendor: Some("riot-games"), quota: Quota::Rate,
        owns: &["riot-games.app-rate-limit"],
    },
    Fx {
        // Cloudflare changelog 2026-02-26 / 2026-03-11 (Markdown and RFC 9457 JSON forms of its
        // 1xxx errors, frontmatter fields error_code … cloudflare_error, retryable, retry_after).
        name: "cloudflare 1015 as markdown for an agent, cloudflare headers dropped",
        host: "docs.example-shop.com",
        status: 429,
        headers: &[("content-type", "text/markdown; charset=utf-8"), ("retry-after", "30")],
        body: "---\nerror_code: 1015\nerror_name: rate_limited\nstatus: 429\nray_id: 8a1b2c3d4e5f6789\nzone: docs.example-shop.com\ncloudflare_error: true\nretryable: true\nretry_after: 30\nowner_action_required: false\n---\n\n# Error 1015: You are being rate limited\n\n## What happened\n\nThe site owner's rate limiting rule blocked this client.\n",
        baseline: &[("x-request-id", "r1")],
        layer: Cdn, vendor: Some("cloudflare"), quota: Quota::Rate,
        owns: &["cloudflare.1015", "cloudflare.structured-error"],
    },
    Fx {
        name: "cloudflare 1200 cache connection limit as json",
        host: "media.example-news.org",
        status: 429,
        headers: &[("server", "cloudflare"), ("cf-ray", "8a1b2c3d4e5f7777-FRA"), ("content-type", "application/json; charset=utf-8"), ("retry-after", "60")],
        body: "{\"type\":\"https://developers.cloudflare.com/support/troubleshooting/http-status-codes/cloudflare-1xxx-errors/error-1200/\",\"title\":\"Error 1200: Cache connection limit\",\"status\":429,\"error_code\":1200,\"cloudflare_error\":true,\"retryable\":true,\"retry_after\":60}",
        baseline: CF,
        layer: Cdn, vendor: Some("cloudflare"), quota: Quota::Concurrency,
        owns: &["cloudflare.1200", "cloudflare.structured-error"],
    },
    Fx {
        // https://github.com/rust-lang/crates.io/issues/6028: Fastly's synthetic page, here a
        // rate-limit rule's 429 with the CDN's headers stripped by a proxy in front.
        name: "fastly synthetic 429 page without its headers",
        host: "static.example-registry.org",
        status: 429,
        headers: &[("content-type", "text/html; charset=utf-8"), ("retry-after", "0")],
        body: "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Strict//EN\"\n \"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd\">\n<html>\n  <head>\n    <title>429 Too many requests</title>\n  </head>\n  <body>\n    <h1>Error 429 Too many requests</h1>\n    <p>Too many requests</p>\n    <h3>Error 54113</h3>\n    <p>Details: cache-ams12780-AMS 1675336948 3776809559</p>\n    <hr>\n    <p>Varnish cache server</p>\n  </body>\n</html>\n",
        baseline: &[],
        layer: Cdn, vendor: Some("fastly"), quota: Quota::Rate,
        owns: &["fastly.details-node"],
    },
    Fx {
        // laravel/framework views/429.blade.php + minimal.blade.php, rendered (CSS elided).
        name: "laravel throttle html page on a json api",
        host: "api.example-laravel.dev",
        status: 429,
        headers: &[("content-type", "text/html; charset=UTF-8"), ("retry-after", "60"), ("x-ratelimit-limit", "60"),
                   ("x-ratelimit-remaining", "0"), ("cache-control", "no-cache, private")],
        body: "<!DOCTYPE html>\n<html lang=\"en\">\n    <head>\n        <meta charset=\"utf-8\">\n        <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\n        <title>Too Many Requests</title>\n    </head>\n    <body class=\"antialiased\">\n        <div class=\"relative flex items-top justify-center min-h-screen bg-gray-100 dark:bg-gray-900 sm:items-center sm:pt-0\">\n            <div class=\"max-w-xl mx-auto sm:px-6 lg:px-8\">\n                <div class=\"flex items-center pt-8 sm:justify-start sm:pt-0\">\n                    <div class=\"px-4 text-lg text-gray-500 border-r border-gray-400 tracking-wider\">\n                        429                    </div>\n\n                    <div class=\"ml-4 text-lg text-gray-500 uppercase tracking-wider\">\n                        Too Many Requests                    </div>\n                </div>\n            </div>\n        </div>\n    </body>\n</html>\n",
        baseline: &[("x-ratelimit-limit", "60"), ("x-ratelimit-remaining", "12")],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        name: "rack-throttle default 403",
        host: "api.example-rack.dev",
        status: 403,
        headers: &[("content-type", "text/plain; charset=utf-8"), ("retry-after", "1")],
        body: "403 Forbidden (Rate Limit Exceeded)\n",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        name: "fastapi-limiter default 429",
        host: "api.example-fastapi.dev",
        status: 429,
        headers: &[("content-type", "application/json"), ("retry-after", "5")],
        body: "{\"detail\":\"Too Many Requests\"}",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        name: "caddy-ratelimit",
        host: "files.example.org",
        status: 429,
        headers: &[("server", "Caddy"), ("retry-after", "10")],
        body: "",
        baseline: &[("server", "Caddy"), ("x-app", "files"), ("x-build", "7")],
        layer: Proxy, vendor: Some("caddy"), quota: Quota::Rate,
        owns: &["caddy.ratelimit"],
    },
    Fx {
        name: "wso2 throttled out",
        host: "apim.example.gov",
        status: 429,
        headers: &[("content-type", "application/json")],
        body: "{\"fault\":{\"code\":900802,\"message\":\"Message throttled out\",\"nextAccessTime\":\"2023-Aug-07 12:01:00+0000 UTC\"}}",
        baseline: &[],
        layer: Proxy, vendor: Some("wso2"), quota: Quota::Rate,
        owns: &["wso2.throttled"],
    },
    Fx {
        name: "plain varnish synthetic",
        host: "cache.example.org",
        status: 429,
        headers: &[("server", "Varnish"), ("x-varnish", "32770"), ("content-type", "text/html; charset=utf-8")],
        body: "<!DOCTYPE html><html><head><title>429 Too Many Requests</title></head><body><h1>Error 429 Too Many Requests</h1><p>Too Many Requests</p><h3>Guru Meditation:</h3><p>XID: 32770</p><hr><p>Varnish cache server</p></body></html>",
        baseline: &[],
        layer: Proxy, vendor: Some("varnish"), quota: Quota::Rate,
        owns: &["varnish.page"],
    },
    Fx {
        name: "github primary limit (403)",
        host: "api.github.com",
        status: 403,
        headers: &[("content-type", "application/json; charset=utf-8"), ("x-github-request-id", "C0DE:1234:ABCD"), ("x-ratelimit-limit", "5000"),
                   ("x-ratelimit-remaining", "0"), ("x-ratelimit-used", "5000"), ("x-ratelimit-reset", "1691411400"), ("x-ratelimit-resource", "core"),
                   ("date", "Mon, 07 Aug 2023 12:00:00 GMT")],
        body: "{\"message\":\"API rate limit exceeded for user ID 1.\",\"documentation_url\":\"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api\"}",
        baseline: &[("x-github-request-id", "1"), ("x-ratelimit-limit", "5000")],
        layer: Api, vendor: Some("github"), quota: Quota::Rate,
        owns: &["github.resource", "github.request-id", "github.body"],
    },
    Fx {
        name: "github secondary limit",
        host: "api.github.com",
        status: 429,
        headers: &[("content-type", "application/json; charset=utf-8"), ("x-github-request-id", "C0DE:1234:ABCE"), ("retry-after", "60")],
        body: "{\"message\":\"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.\",\"documentation_url\":\"https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits\"}",
        baseline: &[],
        layer: Api, vendor: Some("github"), quota: Quota::Rate,
        owns: &["github.request-id", "github.body"],
    },
    Fx {
        name: "openai tokens per minute through cloudflare",
        host: "api.openai.com",
        status: 429,
        headers: &[("server", "cloudflare"), ("cf-ray", "8a1b-SJC"), ("cf-cache-status", "DYNAMIC"), ("content-type", "application/json"),
                   ("openai-organization", "user-abc"), ("openai-processing-ms", "12"), ("openai-version", "2020-10-01"),
                   ("x-request-id", "req_123"), ("x-ratelimit-limit-requests", "500"), ("x-ratelimit-limit-tokens", "50000"),
                   ("x-ratelimit-remaining-requests", "499"), ("x-ratelimit-remaining-tokens", "0"),
                   ("x-ratelimit-reset-requests", "120ms"), ("x-ratelimit-reset-tokens", "1.146s")],
        body: "{\"error\":{\"message\":\"Rate limit reached for gpt-4o-mini in organization org-abc on tokens per min (TPM): Limit 50000, Used 47949, Requested 3006. Please try again in 1.146s. Visit https://platform.openai.com/account/rate-limits to learn more.\",\"type\":\"tokens\",\"param\":null,\"code\":\"rate_limit_exceeded\"}}",
        baseline: &[("server", "cloudflare"), ("cf-ray", "1-SJC"), ("openai-organization", "user-abc"), ("x-ratelimit-limit-tokens", "50000")],
        layer: Api, vendor: Some("openai"), quota: Quota::Tokens,
        owns: &["openai.headers", "openai.body"],
    },
    Fx {
        name: "openai requests per day",
        host: "api.openai.com",
        status: 429,
        headers: &[("server", "cloudflare"), ("cf-ray", "8a1c-SJC"), ("content-type", "application/json"), ("openai-version", "2020-10-01")],
        body: "{\"error\":{\"message\":\"Rate limit reached for gpt-4o in organization org-abc on requests per day (RPD): Limit 10000, Used 10000, Requested 1. Please try again in 8.64s.\",\"type\":\"requests\",\"param\":null,\"code\":\"rate_limit_exceeded\"}}",
        baseline: &[],
        layer: Api, vendor: Some("openai"), quota: Quota::Daily,
        owns: &["openai.headers", "openai.body"],
    },
    Fx {
        name: "openai insufficient quota",
        host: "api.openai.com",
        status: 429,
        headers: &[("server", "cloudflare"), ("cf-ray", "8a1c-SJC"), ("content-type", "application/json"), ("openai-version", "2020-10-01"), ("x-request-id", "req_456")],
        body: "{\"error\":{\"message\":\"You exceeded your current quota, please check your plan and billing details.\",\"type\":\"insufficient_quota\",\"param\":null,\"code\":\"insufficient_quota\"}}",
        baseline: &[],
        layer: Api, vendor: Some("openai"), quota: Quota::Daily,
        owns: &["openai.headers", "openai.body"],
    },
    Fx {
        name: "anthropic input tokens",
        host: "api.anthropic.com",
        status: 429,
        headers: &[("server", "cloudflare"), ("cf-ray", "8a1d-SJC"), ("via", "1.1 google"), ("x-envoy-upstream-service-time", "25"),
                   ("content-type", "application/json"), ("request-id", "req_011"), ("anthropic-organization-id", "org-1"),
                   ("retry-after", "12"), ("anthropic-ratelimit-requests-limit", "50"), ("anthropic-ratelimit-requests-remaining", "49"),
                   ("anthropic-ratelimit-requests-reset", "2023-08-07T12:00:01Z"), ("anthropic-ratelimit-input-tokens-limit", "40000"),
                   ("anthropic-ratelimit-input-tokens-remaining", "0"), ("anthropic-ratelimit-input-tokens-reset", "2023-08-07T12:00:12Z")],
        body: "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"This request would exceed the rate limit for your organization (org-1) of 40,000 input tokens per minute.\"}}",
        baseline: &[("server", "cloudflare"), ("via", "1.1 google"), ("x-envoy-upstream-service-time", "900"), ("anthropic-organization-id", "org-1")],
        layer: Api, vendor: Some("anthropic"), quota: Quota::Tokens,
        owns: &["anthropic.headers", "anthropic.body"],
    },
    Fx {
        name: "anthropic spend limit",
        host: "api.anthropic.com",
        status: 429,
        headers: &[("server", "cloudflare"), ("cf-ray", "8a1e-SJC"), ("content-type", "application/json"), ("anthropic-organization-id", "org-1")],
        body: "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"You have reached your specified API usage limits.\",\"details\":{\"error_code\":\"enforced_spend_limit_reached\"}}}",
        baseline: &[],
        layer: Api, vendor: Some("anthropic"), quota: Quota::Daily,
        owns: &["anthropic.headers", "anthropic.body"],
    },
    Fx {
        name: "gemini per-day quota",
        host: "generativelanguage.googleapis.com",
        status: 429,
        headers: &[("content-type", "application/json; charset=UTF-8"), ("server", "scaffolding on HTTPServer2"), ("vary", "Origin")],
        body: "{\"error\":{\"code\":429,\"message\":\"You exceeded your current quota, please check your plan and billing details.\",\"status\":\"RESOURCE_EXHAUSTED\",\"details\":[{\"@type\":\"type.googleapis.com/google.rpc.QuotaFailure\",\"violations\":[{\"quotaMetric\":\"generativelanguage.googleapis.com/generate_content_free_tier_requests\",\"quotaId\":\"GenerateRequestsPerDayPerProjectPerModel-FreeTier\",\"quotaValue\":\"50\"}]},{\"@type\":\"type.googleapis.com/google.rpc.RetryInfo\",\"retryDelay\":\"26s\"}]}}",
        baseline: &[],
        layer: Api, vendor: Some("google-gemini"), quota: Quota::Daily,
        owns: &["google.rpc-status", "google-gemini.docs-link"],
    },
    Fx {
        name: "google legacy user rate limit",
        host: "www.googleapis.com",
        status: 403,
        headers: &[("content-type", "application/json; charset=UTF-8")],
        body: "{\"error\":{\"errors\":[{\"domain\":\"usageLimits\",\"reason\":\"userRateLimitExceeded\",\"message\":\"User Rate Limit Exceeded\"}],\"code\":403,\"message\":\"User Rate Limit Exceeded\"}}",
        baseline: &[],
        layer: Api, vendor: Some("google"), quota: Quota::Rate,
        owns: &["google.usage-limits"],
    },
    Fx {
        name: "stripe concurrency",
        host: "api.stripe.com",
        status: 429,
        headers: &[("content-type", "application/json"), ("request-id", "req_abc"), ("stripe-version", "2023-08-16"),
                   ("stripe-rate-limited-reason", "global-concurrency"), ("stripe-should-retry", "true")],
        body: "{\"error\":{\"code\":\"rate_limit\",\"message\":\"Too many requests hit the API too quickly. We recommend an exponential backoff of your requests.\",\"type\":\"invalid_request_error\"}}",
        baseline: &[],
        layer: Api, vendor: Some("stripe"), quota: Quota::Concurrency,
        owns: &["stripe.headers", "stripe.body"],
    },
    Fx {
        name: "shopify rest bucket",
        host: "shop.myshopify.com",
        status: 429,
        headers: &[("server", "cloudflare"), ("cf-ray", "8a1f-ORD"), ("content-type", "application/json; charset=utf-8"),
                   ("x-shopify-shop-api-call-limit", "40/40"), ("retry-after", "2.0")],
        body: "{\"errors\":\"Exceeded 2 calls per second for api client. Reduce request rates to resume uninterrupted service.\"}",
        baseline: &[],
        layer: Api, vendor: Some("shopify"), quota: Quota::Rate,
        owns: &["shopify.headers", "shopify.body"],
    },
    Fx {
        name: "slack ratelimited",
        host: "slack.com",
        status: 429,
        headers: &[("content-type", "application/json; charset=utf-8"), ("retry-after", "30"), ("x-slack-req-id", "abc123"), ("x-slack-backend", "r")],
        body: "{\"ok\":false,\"error\":\"ratelimited\"}",
        baseline: &[],
        layer: Api, vendor: Some("slack"), quota: Quota::Rate,
        owns: &["slack.body", "slack.headers"],
    },
    Fx {
        name: "discord user bucket",
        host: "discord.com",
        status: 429,
        headers: &[("server", "cloudflare"), ("cf-ray", "8a20-FRA"), ("content-type", "application/json"), ("retry-after", "1"),
                   ("x-ratelimit-bucket", "abcd1234"), ("x-ratelimit-limit", "5"), ("x-ratelimit-remaining", "0"),
                   ("x-ratelimit-reset", "1691409600.729"), ("x-ratelimit-reset-after", "0.729"), ("x-ratelimit-scope", "user")],
        body: "{\"message\": \"You are being rate limited.\", \"retry_after\": 0.729, \"global\": false}",
        baseline: &[],
        layer: Api, vendor: Some("discord"), quota: Quota::Rate,
        owns: &["discord.headers", "discord.body"],
    },
    Fx {
        name: "microsoft graph throttling",
        host: "graph.microsoft.com",
        status: 429,
        headers: &[("content-type", "application/json"), ("retry-after", "120"), ("request-id", "a1b2"), ("client-request-id", "a1b2"),
                   ("x-ms-ags-diagnostic", "{\"ServerInfo\":{\"DataCenter\":\"West Europe\"}}")],
        body: "{\"error\":{\"code\":\"activityLimitReached\",\"message\":\"The request has been throttled\",\"innerError\":{\"code\":\"throttledRequest\"}}}",
        baseline: &[],
        layer: Api, vendor: Some("microsoft-graph"), quota: Quota::Rate,
        owns: &["microsoft-graph.headers", "microsoft-graph.body"],
    },
    Fx {
        name: "twilio concurrency 20429",
        host: "api.twilio.com",
        status: 429,
        headers: &[("content-type", "application/json"), ("twilio-request-id", "RQ123"), ("twilio-concurrent-requests", "101")],
        body: "{\"code\": 20429, \"message\": \"Too Many Requests\", \"more_info\": \"https://www.twilio.com/docs/errors/20429\", \"status\": 429}",
        baseline: &[],
        layer: Api, vendor: Some("twilio"), quota: Quota::Concurrency,
        owns: &["twilio.headers", "twilio.body"],
    },
    Fx {
        name: "salesforce total requests",
        host: "na1.salesforce.com",
        status: 403,
        headers: &[("content-type", "application/json;charset=UTF-8"), ("sforce-limit-info", "api-usage=15001/15000")],
        body: "[{\"message\":\"TotalRequests Limit exceeded.\",\"errorCode\":\"REQUEST_LIMIT_EXCEEDED\"}]",
        baseline: &[],
        layer: Api, vendor: Some("salesforce"), quota: Quota::Daily,
        owns: &["salesforce.limit-info", "salesforce.body"],
    },
    Fx {
        name: "salesforce concurrent requests",
        host: "eu1.salesforce.com",
        status: 403,
        headers: &[("content-type", "application/json;charset=UTF-8")],
        body: "[{\"message\":\"ConcurrentRequests (Concurrent API Requests) Limit exceeded.\",\"errorCode\":\"REQUEST_LIMIT_EXCEEDED\"}]",
        baseline: &[],
        layer: Api, vendor: Some("salesforce"), quota: Quota::Concurrency,
        owns: &["salesforce.body"],
    },
    Fx {
        name: "jira burst",
        host: "acme.atlassian.net",
        status: 429,
        headers: &[("content-type", "application/json"), ("retry-after", "5"), ("x-ratelimit-limit", "350"), ("x-ratelimit-remaining", "0"),
                   ("x-ratelimit-reset", "2023-08-07T12:00:05Z"), ("ratelimit-reason", "jira-burst-based"), ("x-arequestid", "abc"), ("atl-traceid", "def")],
        body: "{\"errorMessages\":[\"Rate limit exceeded.\"]}",
        baseline: &[],
        layer: Api, vendor: Some("atlassian"), quota: Quota::Rate,
        owns: &["atlassian.headers"],
    },
    Fx {
        name: "x api v2",
        host: "api.x.com",
        status: 429,
        headers: &[("content-type", "application/problem+json"), ("x-rate-limit-limit", "900"), ("x-rate-limit-remaining", "0"),
                   ("x-rate-limit-reset", "1691410500"), ("x-transaction-id", "abc"), ("x-connection-hash", "def"),
                   ("date", "Mon, 07 Aug 2023 12:00:00 GMT")],
        body: "{\"title\":\"Too Many Requests\",\"detail\":\"Too Many Requests\",\"type\":\"about:blank\",\"status\":429}",
        baseline: &[],
        layer: Api, vendor: Some("x"), quota: Quota::Rate,
        owns: &["x.headers", "x.rate-limit"],
    },
    Fx {
        name: "hubspot daily",
        host: "api.hubapi.com",
        status: 429,
        headers: &[("content-type", "application/json;charset=utf-8"), ("x-hubspot-ratelimit-daily", "250000"), ("x-hubspot-ratelimit-daily-remaining", "0")],
        body: "{\"status\":\"error\",\"message\":\"You have reached your daily limit.\",\"errorType\":\"RATE_LIMIT\",\"correlationId\":\"c-1\",\"policyName\":\"DAILY\"}",
        baseline: &[],
        layer: Api, vendor: Some("hubspot"), quota: Quota::Daily,
        owns: &["hubspot.headers"],
    },
    Fx {
        name: "zendesk per minute",
        host: "acme.zendesk.com",
        status: 429,
        headers: &[("content-type", "text/plain"), ("retry-after", "30"), ("x-rate-limit", "700"), ("x-rate-limit-remaining", "0"), ("x-zendesk-origin-server", "app-1")],
        body: "Number of allowed API requests per minute exceeded",
        baseline: &[],
        layer: Api, vendor: Some("zendesk"), quota: Quota::Rate,
        owns: &["zendesk.headers", "zendesk.body"],
    },
    Fx {
        name: "gitlab throttle",
        host: "gitlab.com",
        status: 429,
        headers: &[("content-type", "text/plain"), ("retry-after", "60"), ("ratelimit-name", "throttle_authenticated_api"), ("ratelimit-limit", "600"),
                   ("ratelimit-observed", "601"), ("ratelimit-remaining", "0"), ("ratelimit-reset", "1691409660"),
                   ("ratelimit-resettime", "Mon, 07 Aug 2023 12:01:00 GMT"), ("date", "Mon, 07 Aug 2023 12:00:00 GMT")],
        body: "Retry later",
        baseline: &[],
        layer: Api, vendor: Some("gitlab"), quota: Quota::Rate,
        owns: &["gitlab.headers"],
    },
    // ---- pass-through and no-marker cases
    Fx {
        name: "origin JSON 429 through cloudflare",
        host: "api.example.com",
        status: 429,
        headers: &[("server", "cloudflare"), ("cf-ray", "8a21-SJC"), ("cf-cache-status", "DYNAMIC"), ("content-type", "application/json"),
                   ("x-app-version", "1.4.2"), ("retry-after", "10")],
        body: "{\"error\":\"rate_limited\",\"message\":\"Too many requests, retry in 10s\"}",
        baseline: &[("server", "cloudflare"), ("cf-ray", "1-SJC"), ("cf-cache-status", "DYNAMIC"), ("x-app-version", "1.4.2")],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        name: "origin 429 through kong",
        host: "gw.example.com",
        status: 429,
        headers: &[("content-type", "application/json"), ("server", "uvicorn"), ("via", "1.1 kong/3.6.1"), ("x-kong-upstream-latency", "3"),
                   ("x-kong-proxy-latency", "0"), ("x-kong-request-id", "5b2b")],
        body: "{\"detail\":\"slow down\"}",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        name: "origin 429 through netlify",
        host: "site.netlify.app",
        status: 429,
        headers: &[("server", "Netlify"), ("x-nf-request-id", "01H-abc"), ("content-type", "application/json"), ("x-fn-version", "3")],
        body: "{\"error\":\"too many requests\"}",
        baseline: &[("server", "Netlify"), ("x-nf-request-id", "01H-x"), ("x-fn-version", "3")],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        name: "envoy answered itself (no upstream time, which every success has)",
        host: "orders.mesh.internal",
        status: 429,
        headers: &[("server", "envoy"), ("content-length", "0")],
        body: "",
        baseline: &[("server", "envoy"), ("x-envoy-upstream-service-time", "8"), ("x-order-api", "v3")],
        layer: Proxy, vendor: Some("envoy"), quota: Quota::Rate,
        owns: &["envoy.local-reply-empty"],
    },
    Fx {
        name: "express-rate-limit origin: a sentence labelled text/html on a JSON host",
        host: "api.acme.io",
        status: 429,
        headers: &[("content-type", "text/html; charset=utf-8"), ("ratelimit-policy", "100;w=900"),
                   ("ratelimit", "limit=100, remaining=0, reset=840"), ("retry-after", "840"), ("x-acme-build", "77")],
        body: "Too many requests, please try again later.",
        baseline: &[("x-acme-build", "77"), ("x-acme-region", "eu")],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        name: "generic rate-limit headers only",
        host: "api.other.io",
        status: 429,
        headers: &[("x-ratelimit-limit", "60"), ("x-ratelimit-remaining", "0"), ("x-ratelimit-reset", "60")],
        body: "",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        name: "bare 429",
        host: "bare.example.com",
        status: 429,
        headers: &[("content-length", "0")],
        body: "",
        baseline: &[],
        layer: Layer::Unknown, vendor: None, quota: Quota::Unknown,
        owns: &[],
    },
    Fx {
        name: "plain 429 through cloudflare, nothing else",
        host: "plain.example.com",
        status: 429,
        headers: &[("server", "cloudflare"), ("cf-ray", "8a22-SJC"), ("content-type", "text/plain")],
        body: "Too Many Requests",
        baseline: &[],
        layer: Layer::Unknown, vendor: None, quota: Quota::Unknown,
        owns: &[],
    },
    Fx {
        name: "wikimedia edge error page",
        host: "en.wikipedia.org",
        status: 429,
        headers: &[("server", "ATS/9.2.5"), ("content-type", "text/html; charset=utf-8"), ("x-cache", "cp3066 int")],
        body: "<!DOCTYPE html>\n<html lang=\"en\">\n<meta charset=\"utf-8\">\n<title>Wikimedia Error</title>\n<div class=\"content\" role=\"main\"><h1>Error</h1><p>Too many requests.</p></div>",
        baseline: &[("server", "mw-web.eqiad.main-5"), ("x-cache", "cp3066 hit")],
        layer: Cdn, vendor: Some("wikimedia"), quota: Quota::Rate,
        owns: &["wikimedia.error-page"],
    },
    // ------------------------------------------------ issue 11 breadth: edges, proxies, app limiters
    Fx {
        // F5's documented default blocking page, with the status the policy was set to send.
        name: "f5 asm blocking page",
        host: "www.example-bank.com",
        status: 429,
        headers: &[("content-type", "text/html; charset=utf-8"), ("cache-control", "no-cache"), ("pragma", "no-cache"),
                   ("connection", "close"), ("set-cookie", "TS01a2b3c4=01abcdef; Path=/")],
        body: "<html><head><title>Request Rejected</title></head><body>The requested URL was rejected. Please consult with your administrator.<br><br>Your support ID is: 4045204596866416688<br><br><a href='javascript:history.back();'>[Go Back]</a></body></html>",
        baseline: &[("server", "Apache"), ("x-powered-by", "PHP/8.2")],
        layer: Cdn, vendor: Some("f5"), quota: Quota::Rate,
        owns: &["f5.asm-blocking-page"],
    },
    Fx {
        // Tengine's 503 page (ngx_http_error_503_page + ngx_http_error_banner), limit_req's default.
        name: "tengine limit_req 503 page",
        host: "m.example-mall.cn",
        status: 503,
        headers: &[("server", "Tengine"), ("content-type", "text/html"), ("retry-after", "1")],
        body: "<!DOCTYPE HTML PUBLIC \"-//IETF//DTD HTML 2.0//EN\">\r\n<html>\r\n<head><title>503 Service Temporarily Unavailable</title></head>\r\n<body bgcolor=\"white\">\r\n<h1>503 Service Temporarily Unavailable</h1>\r\n<p>The server is temporarily unable to service your request due to maintenance downtime or capacity problems. Please try again later.<hr/>Powered by Tengine</body>\r\n</html>\r\n",
        baseline: &[("server", "Tengine"), ("x-mall-trace", "t1")],
        layer: Proxy, vendor: Some("tengine"), quota: Quota::Rate,
        owns: &["tengine.default-page"],
    },
    Fx {
        name: "squid denied with its own error page",
        host: "downloads.example.org",
        status: 429,
        headers: &[("server", "squid/6.10"), ("content-type", "text/html;charset=utf-8"), ("x-squid-error", "ERR_ACCESS_DENIED 0"),
                   ("x-cache", "MISS from proxy01"), ("via", "1.1 proxy01 (squid/6.10)")],
        body: "<!DOCTYPE html PUBLIC \"-//W3C//DTD HTML 4.01//EN\" \"http://www.w3.org/TR/html4/strict.dtd\">\n<html><head>\n<title>ERROR: The requested URL could not be retrieved</title>",
        baseline: &[("server", "nginx"), ("via", "1.1 proxy01 (squid/6.10)"), ("x-dl-mirror", "m1")],
        layer: Proxy, vendor: Some("squid"), quota: Quota::Rate,
        owns: &["squid.error"],
    },
    Fx {
        name: "envoy empty 429, no upstream time, no successes to compare",
        host: "payments.mesh.internal",
        status: 429,
        headers: &[("server", "envoy"), ("content-length", "0"), ("date", "Mon, 07 Aug 2023 12:00:00 GMT")],
        body: "",
        baseline: &[],
        layer: Proxy, vendor: Some("envoy"), quota: Quota::Rate,
        owns: &["envoy.local-reply-empty"],
    },
    Fx {
        name: "empty 429 relayed by envoy (upstream time present)",
        host: "ledger.mesh.internal",
        status: 429,
        headers: &[("server", "envoy"), ("x-envoy-upstream-service-time", "3"), ("content-length", "0")],
        body: "",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        name: "echo rate limiter default 429",
        host: "api.example-go.dev",
        status: 429,
        headers: &[("content-type", "application/json"), ("x-ratelimit-limit", "20"), ("x-ratelimit-remaining", "0"), ("retry-after", "1")],
        body: "{\"message\":\"rate limit exceeded\"}\n",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        name: "ulule limiter default 429",
        host: "api.example-ulule.dev",
        status: 429,
        headers: &[("content-type", "text/plain; charset=utf-8"), ("x-content-type-options", "nosniff"),
                   ("x-ratelimit-limit", "1000"), ("x-ratelimit-remaining", "0"), ("x-ratelimit-reset", "1691409660")],
        body: "Limit exceeded\n",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        name: "fiber limiter default 429",
        host: "api.example-fiber.dev",
        status: 429,
        headers: &[("content-type", "text/plain; charset=utf-8"), ("x-ratelimit-limit", "5"), ("x-ratelimit-remaining", "0"),
                   ("x-ratelimit-reset", "41"), ("retry-after", "41")],
        body: "Too Many Requests",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        name: "bucket4j spring boot starter default 429",
        host: "api.example-java.dev",
        status: 429,
        headers: &[("content-type", "application/json"), ("x-rate-limit-retry-after-seconds", "59")],
        body: "{ \"message\": \"Too many requests!\" }",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        name: "spring boot default error body for 429, HTML on a JSON host is not the case here",
        host: "orders.example-java.dev",
        status: 429,
        headers: &[("content-type", "application/json")],
        body: "{\"timestamp\":\"2023-08-07T12:00:00.000+00:00\",\"status\":429,\"error\":\"Too Many Requests\",\"path\":\"/api/orders\"}",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        name: "rails rate_limit: empty 429 with rails default headers",
        host: "app.example-rails.dev",
        status: 429,
        headers: &[("x-frame-options", "SAMEORIGIN"), ("x-xss-protection", "0"), ("x-content-type-options", "nosniff"),
                   ("x-permitted-cross-domain-policies", "none"), ("referrer-policy", "strict-origin-when-cross-origin"),
                   ("content-type", "text/html"), ("x-request-id", "5f0c2b9e-6d7a-4a43-9d1c-1b2b3c4d5e6f")],
        body: "",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        name: "slowapi default 429",
        host: "api.example-fastapi.dev",
        status: 429,
        headers: &[("content-type", "application/json"), ("server", "uvicorn")],
        body: "{\"error\":\"Rate limit exceeded: 5 per 1 minute\"}",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        name: "django rest framework throttled",
        host: "api.example-django.dev",
        status: 429,
        headers: &[("content-type", "application/json"), ("retry-after", "42"), ("allow", "GET, HEAD, OPTIONS")],
        body: "{\"detail\":\"Request was throttled. Expected available in 42 seconds.\"}",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        name: "laravel throttle middleware",
        host: "app.example-laravel.dev",
        status: 429,
        headers: &[("content-type", "application/json"), ("x-ratelimit-limit", "60"), ("x-ratelimit-remaining", "0"), ("retry-after", "37")],
        body: "{\n    \"message\": \"Too Many Attempts.\"\n}",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        // https://vercel.com/docs/errors (FUNCTION_THROTTLED, 503) in Vercel's plain error format.
        name: "vercel function throttled (platform error)",
        host: "my-app.vercel.app",
        status: 503,
        headers: &[("server", "Vercel"), ("x-vercel-id", "iad1::abcd-1691409600000-0123456789ab"),
                   ("x-vercel-error", "FUNCTION_THROTTLED"), ("content-type", "text/plain; charset=utf-8")],
        body: "503: SERVICE_UNAVAILABLE\nCode: FUNCTION_THROTTLED\nID: iad1::abcd-1691409600000-0123456789ab\n",
        baseline: &[("server", "Vercel"), ("x-vercel-id", "iad1::x"), ("x-vercel-cache", "MISS")],
        layer: Cdn, vendor: Some("vercel"), quota: Quota::Concurrency,
        owns: &["vercel.platform-error"],
    },
    Fx {
        name: "google unusual traffic page",
        host: "scholar.google.com",
        status: 429,
        headers: &[("content-type", "text/html"), ("server", "HTTP server (unknown)"), ("x-xss-protection", "0")],
        body: "<html>\n<head><meta http-equiv=\"content-type\" content=\"text/html; charset=utf-8\"><title>https://scholar.google.com/scholar?q=rate</title></head>\n<body><div><b>About this page</b><br><br>Our systems have detected unusual traffic from your computer network.  This page checks to see if it&#39;s really you sending the requests, and not a robot.",
        baseline: &[("server", "scholar"), ("x-xss-protection", "0")],
        layer: Cdn, vendor: Some("google-cloud-armor"), quota: Quota::Rate,
        owns: &["google-cloud-armor.unusual-traffic"],
    },
    Fx {
        name: "cloudflare 1027 workers daily limit (plain)",
        host: "edge-fn.example-workers.dev",
        status: 429,
        headers: &[("server", "cloudflare"), ("cf-ray", "8a44-LHR"), ("content-type", "text/plain; charset=UTF-8")],
        body: "error code: 1027",
        baseline: CF,
        layer: Cdn, vendor: Some("cloudflare"), quota: Quota::Daily,
        owns: &["cloudflare.1027"],
    },
    // The application's own stack on an answer with nothing else in it.
    Fx {
        name: "express res.sendStatus(429), no successes to compare",
        host: "api.example-node.dev",
        status: 429,
        headers: &[("x-powered-by", "Express"), ("content-type", "text/plain; charset=utf-8"), ("etag", "W/\"11-abc\"")],
        body: "Too Many Requests",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        name: "empty 429 from uvicorn",
        host: "api.example-asgi.dev",
        status: 429,
        headers: &[("server", "uvicorn"), ("content-length", "0")],
        body: "",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        name: "gunicorn app's plain 429",
        host: "www.example-wsgi.dev",
        status: 429,
        headers: &[("server", "gunicorn"), ("content-type", "text/html; charset=utf-8")],
        body: "Too many requests",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        name: "php script's 429 behind cloudflare",
        host: "forum.example-php.dev",
        status: 429,
        headers: &[("server", "cloudflare"), ("cf-ray", "8a33-FRA"), ("x-powered-by", "PHP/8.3.4"), ("content-type", "text/html; charset=UTF-8")],
        body: "Slow down",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        name: "next.js route handler 429",
        host: "www.example-next.dev",
        status: 429,
        headers: &[("x-powered-by", "Next.js"), ("content-type", "text/plain;charset=UTF-8")],
        body: "rate limited",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        name: "classic asp.net 429",
        host: "portal.example-net.dev",
        status: 429,
        headers: &[("server", "Microsoft-IIS/10.0"), ("x-aspnet-version", "4.0.30319"), ("x-powered-by", "ASP.NET")],
        body: "",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        name: "rack app's empty 429 with x-runtime",
        host: "shop.example-rack.dev",
        status: 429,
        headers: &[("x-runtime", "0.004211"), ("content-type", "text/plain")],
        body: "",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        name: "werkzeug development server 429 (plain)",
        host: "localhost:5000",
        status: 429,
        headers: &[("server", "Werkzeug/3.0.1 Python/3.11.6"), ("content-type", "text/plain")],
        body: "slow down",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        // sethvargo/go-limiter httplimit: reset and Retry-After as RFC 1123 dates, Go's http.Error.
        name: "sethvargo go-limiter default 429",
        host: "api.example-golimiter.dev",
        status: 429,
        headers: &[("content-type", "text/plain; charset=utf-8"), ("x-content-type-options", "nosniff"),
                   ("x-ratelimit-limit", "10"), ("x-ratelimit-remaining", "0"),
                   ("x-ratelimit-reset", "Mon, 07 Aug 2023 12:00:30 UTC"), ("retry-after", "Mon, 07 Aug 2023 12:00:30 UTC")],
        body: "Too Many Requests\n",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        // Self-hosted Jira's limiter through Tomcat's error page (body from
        // github.com/ahungry/org-jira issue 365), without Jira's headers: the application
        // server answered.
        name: "tomcat error report page",
        host: "10.20.30.40",
        status: 429,
        headers: &[("content-type", "text/html;charset=utf-8")],
        body: "<!doctype html><html lang=\"en\"><head><title>HTTP Status 429 \u{2013} Too Many Requests</title></head><body><h1>HTTP Status 429 \u{2013} Too Many Requests</h1><hr class=\"line\" /><p><b>Type</b> Status Report</p><p><b>Message</b> Rate limit exceeded.</p><hr class=\"line\" /><h3>Apache Tomcat/9.0.95</h3></body></html>",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        // Jetty's DoSFilter answers sendError(429), which Jetty's ErrorHandler renders.
        name: "jetty error page",
        host: "10.20.30.41",
        status: 429,
        headers: &[("content-type", "text/html;charset=iso-8859-1")],
        body: "<html>\n<head>\n<meta http-equiv=\"Content-Type\" content=\"text/html;charset=utf-8\"/>\n<title>Error 429 Too Many Requests</title>\n</head>\n<body><h2>HTTP ERROR 429 Too Many Requests</h2>\n<table>\n<tr><th>URI:</th><td>/api/items</td></tr>\n<tr><th>STATUS:</th><td>429</td></tr>\n<tr><th>MESSAGE:</th><td>Too Many Requests</td></tr>\n</table>\n<hr><a href=\"https://eclipse.org/jetty\">Powered by Jetty:// 9.4.44.v20210927</a><hr/>\n</body>\n</html>\n",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    // Minimal answers: what each honestly implies.
    Fx {
        // Go's http.Error: any Go program (Traefik and Caddy are Go too, and so are many APIs).
        name: "go net/http bare status text, nothing else",
        host: "svc.example-go.dev",
        status: 429,
        headers: &[("content-type", "text/plain; charset=utf-8"), ("x-content-type-options", "nosniff")],
        body: "Too Many Requests\n",
        baseline: &[],
        layer: Layer::Unknown, vendor: None, quota: Quota::Unknown,
        owns: &[],
    },
    Fx {
        // Not nginx's own layout (no <center>), and nothing to compare with: nginx is only the path.
        name: "title-only 429 page behind nginx, no successes to compare",
        host: "www.example-min.dev",
        status: 429,
        headers: &[("server", "nginx/1.24.0"), ("content-type", "text/html")],
        body: "<html><head><title>429 Too Many Requests</title></head><body><h1>Too Many Requests</h1></body></html>",
        baseline: &[],
        layer: Layer::Unknown, vendor: None, quota: Quota::Unknown,
        owns: &[],
    },
    Fx {
        // The JSON host's own headers are gone and nginx is the only layer in front: most likely
        // nginx's configured page, said with low confidence.
        name: "title-only 429 page from the nginx in front of a JSON API",
        host: "api.example-min.dev",
        status: 429,
        headers: &[("server", "nginx/1.24.0"), ("content-type", "text/html")],
        body: "<html><head><title>429 Too Many Requests</title></head><body><h1>Too Many Requests</h1></body></html>",
        baseline: &[("server", "nginx/1.24.0"), ("x-app-version", "3.1"), ("x-app-node", "n2")],
        layer: Proxy, vendor: Some("nginx"), quota: Quota::Rate,
        owns: &[],
    },
    // ------------------------------------------------ stock pages with little else in them
    Fx {
        name: "cloudflare 1015 page cut before its ray id, no cloudflare headers kept",
        host: "shop.example.com",
        status: 429,
        headers: &[("content-type", "text/html; charset=UTF-8")],
        body: "<!DOCTYPE html>\n<!--[if lt IE 7]> <html class=\"no-js ie6 oldie\" lang=\"en-US\"> <![endif]-->\n<head>\n<title>shop.example.com | 1015: You are being rate limited</title>\n<meta charset=\"UTF-8\" />\n<link rel=\"stylesheet\" id=\"cf_styles-css\" href=\"/cdn-cgi/styles/cf.errors.css\" />\n</head>\n<body>\n<div id=\"cf-wrapper\">\n<div id=\"cf-error-details\" class=\"cf-error-details-wrapper\">\n<h1><span class=\"cf-error-type\">Error</span> <span class=\"cf-error-code\">10",
        baseline: &[("server", "gunicorn"), ("x-request-id", "r1")],
        layer: Cdn, vendor: Some("cloudflare"), quota: Quota::Rate,
        owns: &["cloudflare.error-markup"],
    },
    Fx {
        name: "akamai deny page cut before its reference",
        host: "www.example-retail.com",
        status: 403,
        headers: &[("content-type", "text/html"), ("mime-version", "1.0")],
        body: "<HTML><HEAD>\n<TITLE>Access Denied</TITLE>\n</HEAD><BODY>\n<H1>Access Denied</H1>\n \nYou don't have permission to access \"http&#58;&#47;&#47;www&#46;example-retail&#46;com&#47;api&#47;cart\" on this server.<P>\nRefer",
        baseline: &[("server", "Apache"), ("x-powered-by", "PHP/8.2")],
        layer: Cdn, vendor: Some("akamai"), quota: Quota::Rate,
        owns: &["akamai.deny-truncated"],
    },
    Fx {
        name: "google front end minimal 429 page",
        host: "hello-abc123-uc.a.run.app",
        status: 429,
        headers: &[("content-type", "text/html; charset=UTF-8"), ("server", "Google Frontend")],
        body: "<html><head>\n<meta http-equiv=\"content-type\" content=\"text/html;charset=utf-8\">\n<title>429 Too Many Requests</title>\n</head>\n<body text=#000000 bgcolor=#ffffff>\n<h1>Error: Too Many Requests</h1>\n<h2>Rate exceeded.</h2>\n<h2></h2>\n</body></html>\n",
        baseline: &[("server", "Google Frontend"), ("x-cloud-trace-context", "abc/1;o=1")],
        layer: Cdn, vendor: Some("google-cloud-armor"), quota: Quota::Rate,
        owns: &["google-cloud-armor.gfe-minimal"],
    },
    Fx {
        name: "nginx 429 page cut before its footer",
        host: "api.example-shop.com",
        status: 429,
        headers: &[("content-type", "text/html")],
        body: "<html>\r\n<head><title>429 Too Many Requests</title></head>\r\n<body>\r\n<center><h1>429 Too Many Requests</h1></center>\r\n",
        baseline: &[("x-request-id", "r1")],
        layer: Proxy, vendor: Some("nginx"), quota: Quota::Rate,
        owns: &["nginx.page-layout"],
    },
    Fx {
        name: "apache httpd built-in 429 page",
        host: "www.example-blog.org",
        status: 429,
        headers: &[("server", "Apache/2.4.62 (Debian)"), ("content-type", "text/html; charset=iso-8859-1")],
        body: "<!DOCTYPE HTML PUBLIC \"-//IETF//DTD HTML 2.0//EN\">\n<html><head>\n<title>429 Too Many Requests</title>\n</head><body>\n<h1>Too Many Requests</h1>\n<p>The user has sent too many requests\nin a given amount of time.</p>\n<hr>\n<address>Apache/2.4.62 (Debian) Server at www.example-blog.org Port 443</address>\n</body></html>\n",
        baseline: &[("server", "Apache/2.4.62 (Debian)"), ("x-powered-by", "PHP/8.2.20")],
        layer: Proxy, vendor: Some("apache"), quota: Quota::Rate,
        owns: &["apache.default-page"],
    },
    Fx {
        name: "kong stock body without kong headers",
        host: "gateway.example-corp.net",
        status: 429,
        headers: &[("content-type", "application/json; charset=utf-8"), ("retry-after", "12")],
        body: "{\n  \"message\":\"API rate limit exceeded\"\n}",
        baseline: &[("x-request-id", "r1")],
        layer: Proxy, vendor: Some("kong"), quota: Quota::Rate,
        owns: &["kong.body-only"],
    },
    Fx {
        // https://developer.icepanel.io/developer-guide/getting-started/rate-limits documents this
        // body as the API's own: the short JSON API Gateway also writes is nobody's marker.
        name: "an api's own short json 429 is not a gateway's",
        host: "api.icepanel.io",
        status: 429,
        headers: &[("content-type", "application/json"), ("retry-after", "20")],
        body: "{\n  \"message\": \"Too Many Requests\"\n}",
        baseline: &[("x-request-id", "r1")],
        layer: Layer::Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        // https://docs.aws.amazon.com/apigateway/latest/developerguide/supported-gateway-response-types.html
        // (QUOTA_EXCEEDED, 429, {"message":$context.error.messageString}); a CDN in front that
        // keeps only its own headers.
        name: "api gateway usage-plan quota body without its headers",
        host: "api.example-setlists.net",
        status: 429,
        headers: &[("content-type", "application/json"), ("content-length", "28")],
        body: "{\"message\":\"Limit Exceeded\"}",
        baseline: &[("x-request-id", "r1")],
        layer: Proxy, vendor: Some("aws-api-gateway"), quota: Quota::Daily,
        owns: &["aws-api-gateway.quota-body-only"],
    },
    Fx {
        // https://developer.aliyun.com/ask/278260 (API Gateway public error codes, 403).
        name: "alibaba cloud api gateway flow control (403)",
        host: "district.market.alicloudapi.com",
        status: 403,
        headers: &[("content-type", "application/json; charset=utf-8"), ("x-ca-request-id", "7AD052CB-EE8B-4DFD-BBAF-EFB340E0A5AF"),
                   ("x-ca-error-message", "Throttled by APP Flow Control")],
        body: "",
        baseline: &[("x-ca-request-id", "1")],
        layer: Proxy, vendor: Some("alibaba-cloud-api-gateway"), quota: Quota::Rate,
        owns: &["alibaba-cloud-api-gateway.flow-control"],
    },
    Fx {
        name: "alibaba cloud api gateway quota exhausted (403)",
        host: "ocrapi.market.alicloudapi.com",
        status: 403,
        headers: &[("x-ca-request-id", "5C3E0E4B-1A2B-4C5D-8E9F-0A1B2C3D4E5F"), ("x-ca-error-message", "Quota Exhausted")],
        body: "",
        baseline: &[],
        layer: Proxy, vendor: Some("alibaba-cloud-api-gateway"), quota: Quota::Daily,
        owns: &["alibaba-cloud-api-gateway.quota"],
    },
    Fx {
        // linkerd2-proxy: SyntheticHttpResponse::rate_limited (respond.rs), RateLimitError
        // (server-policy/src/local_rate_limit.rs); empty body, content-length 0.
        name: "linkerd local rate limit",
        host: "orders.shop.svc.cluster.local",
        status: 429,
        headers: &[("content-length", "0"), ("l5d-proxy-error", "total rate limit exceeded: 100rps"), ("date", "Mon, 07 Aug 2023 12:00:00 GMT")],
        body: "",
        baseline: &[("server", "gunicorn"), ("x-request-id", "r1")],
        layer: Proxy, vendor: Some("linkerd"), quota: Quota::Rate,
        owns: &["linkerd.rate-limited", "linkerd.proxy-error"],
    },
    Fx {
        // symfony/symfony ProblemNormalizer (the serializer error renderer's JSON).
        name: "symfony rate limiter problem json",
        host: "api.example-php.dev",
        status: 429,
        headers: &[("content-type", "application/problem+json"), ("retry-after", "60"), ("x-ratelimit-remaining", "0"),
                   ("x-ratelimit-limit", "10")],
        body: "{\"type\":\"https:\\/\\/tools.ietf.org\\/html\\/rfc2616#section-10\",\"title\":\"An error occurred\",\"status\":429,\"detail\":\"Too Many Requests\"}",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
    Fx {
        // hapijs/boom lib/index.js tooManyRequests; output.payload {statusCode, error, message}.
        name: "hapi boom too many requests",
        host: "api.example-node.dev",
        status: 429,
        headers: &[("content-type", "application/json; charset=utf-8"), ("cache-control", "no-cache")],
        body: "{\"statusCode\":429,\"error\":\"Too Many Requests\",\"message\":\"Rate limit exceeded\"}",
        baseline: &[],
        layer: Api, vendor: None, quota: Quota::Rate,
        owns: &[],
    },
];

#[test]
fn every_fixture_gets_its_verdict() {
    let mut failures = Vec::new();
    for fx in FIXTURES {
        let a = run(fx);
        // A fixture names the vendor its rules name; when the API answered and none did, the
        // vendor is the one its host names (the host-derived vendor, `domain.rs`).
        let derived = super::domain::host_vendor(fx.host).map(|h| h.slug);
        let vendor = match fx.vendor {
            None if fx.layer == Api => derived.as_deref(),
            v => v,
        };
        if a.layer != fx.layer || a.vendor.as_deref() != vendor || a.quota != fx.quota {
            failures.push(format!(
                "{}: got {}/{:?}/{} (conf {}), want {}/{:?}/{}\n  evidence: {:#?}",
                fx.name,
                a.layer.as_str(),
                a.vendor,
                a.quota.as_str(),
                a.confidence,
                fx.layer.as_str(),
                vendor,
                fx.quota.as_str(),
                a.evidence
            ));
        }
        assert!((0.0..=1.0).contains(&a.confidence), "{}", fx.name);
    }
    assert!(
        failures.is_empty(),
        "{} of {} fixtures wrong:\n{}",
        failures.len(),
        FIXTURES.len(),
        failures.join("\n")
    );
}

#[test]
fn each_producer_rule_fires_on_its_own_fixtures_and_no_other() {
    use super::matcher::Subject;
    for rule in rules::all()
        .iter()
        .filter(|r| matches!(r.proves, Proves::Producer | Proves::ProducerIfNew))
    {
        let mut fired = Vec::new();
        for fx in FIXTURES {
            let reqs = requests(fx);
            let last = reqs.last().expect("fixture has a response");
            if rule.when.eval(&Subject::new(last)).is_some() {
                fired.push(fx.name);
            }
        }
        let owners: Vec<&str> = FIXTURES
            .iter()
            .filter(|f| f.owns.contains(&rule.id))
            .map(|f| f.name)
            .collect();
        let in_catalogue = !RULES.iter().any(|r| r.id == rule.id);
        if owners.is_empty() && in_catalogue {
            // A catalogue marker without a fixture of its own (those are checked against the
            // vendor's documented wording in catalogue.rs) must still not fire on another
            // vendor's response.
            let strangers: Vec<&str> = FIXTURES
                .iter()
                .filter(|f| fired.contains(&f.name) && f.vendor != Some(rule.vendor))
                .map(|f| f.name)
                .collect();
            assert!(
                strangers.is_empty(),
                "catalogue marker {} fired on {:?}",
                rule.id,
                strangers
            );
            continue;
        }
        assert!(!owners.is_empty(), "rule {} has no fixture", rule.id);
        assert_eq!(
            fired, owners,
            "rule {} fired on {:?}, owned by {:?}",
            rule.id, fired, owners
        );
    }
}

#[test]
fn fixtures_name_only_real_rules() {
    for fx in FIXTURES {
        for id in fx.owns {
            assert!(
                rules::all().iter().any(|r| r.id == *id),
                "{}: unknown rule {id}",
                fx.name
            );
        }
    }
}

#[test]
fn pass_through_is_never_called_cdn() {
    for fx in FIXTURES.iter().filter(|f| f.name.contains("through")) {
        assert_ne!(run(fx).layer, Layer::Cdn, "{}", fx.name);
    }
}

#[test]
fn vendor_quota_cues_need_the_vendors_own_wording() {
    // Plain English that, lower-cased and without spaces, contains OpenAI's "requests per min",
    // Google's "PerMinute", Salesforce's "TotalRequests", HubSpot's "secondly" and Twilio's
    // 20429: the kind must come from generic cues, not from another vendor's reason field.
    static GENERIC: Fx = Fx {
        name: "generic origin with vendor-like words",
        host: "api.generic.example",
        status: 429,
        headers: &[("content-type", "application/json"), ("x-request-id", "r1")],
        body: "{\"error\":\"Too many total requests: 120 requests per minute. Secondly, slow down.\",\"trace\":\"1772460204291\"}",
        baseline: &[("x-request-id", "r0"), ("x-app", "a")],
        layer: Api,
        vendor: None,
        quota: Quota::Rate,
        owns: &[],
    };
    let a = run(&GENERIC);
    assert_eq!(
        (a.layer, a.vendor.as_deref(), a.quota),
        (Api, None, Quota::Rate)
    );
    let q = a
        .evidence
        .iter()
        .find(|e| e.role == Role::Quota)
        .expect("quota evidence");
    for tag in ["[O1]", "[GG1]", "[SF1]", "[HS1]", "[TW1]"] {
        assert!(!q.note.contains(tag), "{}: {}", q.signal, q.note);
    }
}

#[test]
fn bare_429_is_unknown_with_low_confidence() {
    let fx = FIXTURES
        .iter()
        .find(|f| f.name == "bare 429")
        .expect("fixture");
    let a = run(fx);
    assert_eq!(a.layer, Layer::Unknown);
    assert!(a.vendor.is_none());
    assert!(a.confidence <= 0.1, "{}", a.confidence);
}

#[test]
fn evidence_names_what_was_ruled_out() {
    let fx = FIXTURES
        .iter()
        .find(|f| f.name == "origin JSON 429 through cloudflare")
        .expect("fixture");
    let a = run(fx);
    assert!(a.path.iter().any(|p| p == "cloudflare"));
    let path = a
        .evidence
        .iter()
        .find(|e| e.role == Role::Path && e.signal.starts_with("cf-ray"))
        .expect("cf-ray evidence");
    assert!(
        path.note.contains("on every response from api.example.com")
            && path.note.contains("path, not producer"),
        "{}",
        path.note
    );
    assert!(a
        .evidence
        .iter()
        .any(|e| e.role == Role::RuledOut && e.signal == "Cloudflare"));
}

#[test]
fn producer_if_new_is_path_when_on_every_success() {
    // AkamaiGHost on every 200 too: it is the path, not the producer.
    let fx = Fx {
        name: "akamai everywhere",
        host: "h.example",
        status: 429,
        headers: &[
            ("server", "AkamaiGHost"),
            ("content-type", "application/json"),
            ("x-backend", "b1"),
        ],
        body: "{\"error\":\"slow down\"}",
        baseline: &[("server", "AkamaiGHost"), ("x-backend", "b1")],
        layer: Api,
        vendor: None,
        quota: Quota::Rate,
        owns: &[],
    };
    let a = run(&fx);
    assert_eq!(a.layer, Layer::Api);
    assert!(a
        .evidence
        .iter()
        .any(|e| e.role == Role::RuledOut && e.signal.starts_with("server: AkamaiGHost")));
}

#[test]
fn limits_are_attached() {
    let fx = FIXTURES
        .iter()
        .find(|f| f.name == "github primary limit (403)")
        .expect("fixture");
    let a = run(fx);
    let l = a.limits.expect("limits");
    assert_eq!(l.remaining, Some(0.0));
    assert_eq!(l.reset_seconds, Some(1800.0));
    assert_eq!(l.policy.as_deref(), Some("core"));
}

#[test]
fn rate_limited_statuses() {
    let fx = |name: &str| {
        let f = FIXTURES.iter().find(|f| f.name == name).expect("fixture");
        requests(f).pop().expect("response")
    };
    assert!(is_rate_limited(&fx("bare 429")));
    assert!(is_rate_limited(&fx("github primary limit (403)")));
    assert!(is_rate_limited(&fx("salesforce total requests")));
    assert!(is_rate_limited(&fx("azure apim quota policy")));
    assert!(is_rate_limited(&fx("nginx limit_req default 503")));
    assert!(is_rate_limited(&fx("apigee quota (legacy router, 500)")));
    // AWS WAF answers a rate-based rule's CAPTCHA with 405 and a Challenge with 202 [W5]; an
    // ordinary 405 is not a limit.
    let mut waf = fx("aws waf captcha");
    assert!(is_rate_limited(&waf));
    waf.status = 202;
    waf.response_headers = crate::model::Headers::from_pairs([("x-amzn-waf-action", "challenge")]);
    assert!(is_rate_limited(&waf));
    waf.status = 405;
    waf.response_headers = crate::model::Headers::from_pairs([("allow", "GET")]);
    assert!(!is_rate_limited(&waf));
    // Amazon S3's 503 SlowDown and an AWS JSON service's 400 throttling error are limits; an
    // ordinary 400 is not.
    let mut s3 = fx("bare 429");
    s3.status = 503;
    s3.body_excerpt = Some("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>".into());
    assert!(is_rate_limited(&s3));
    let mut ddb = fx("bare 429");
    ddb.status = 400;
    ddb.body_excerpt = Some("{\"__type\":\"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException\",\"message\":\"The level of configured provisioned throughput for the table was exceeded.\"}".into());
    assert!(is_rate_limited(&ddb));
    ddb.body_excerpt = Some("{\"__type\":\"com.amazonaws.dynamodb.v20120810#ValidationException\",\"message\":\"One or more parameter values were invalid\"}".into());
    assert!(!is_rate_limited(&ddb));
    ddb.body_excerpt = None;
    ddb.response_headers = crate::model::Headers::from_pairs([(
        "x-amzn-errortype",
        "ThrottlingException:http://internal.amazon.com/coral/com.amazon.coral.availability/",
    )]);
    assert!(is_rate_limited(&ddb));
    // IIS Dynamic IP Restrictions answers with its denyAction: 403 by default, 401 or 404 when
    // configured (the 401.501/401.502 rows of the IIS status-code table); an ordinary 401/404
    // page is not a limit.
    let mut dipr = fx("iis dynamic ip restrictions 403.502 page");
    assert!(is_rate_limited(&dipr));
    for status in [401, 404] {
        dipr.status = status;
        assert!(is_rate_limited(&dipr), "{status}");
    }
    dipr.body_excerpt = Some("<h3>HTTP Error 404.0 - Not Found</h3>".into());
    assert!(!is_rate_limited(&dipr));
    // Alibaba Cloud API Gateway's flow control and exhausted quota are 403s with the reason in
    // X-Ca-Error-Message; its other 403s (Unauthorized) are not limits.
    assert!(is_rate_limited(&fx(
        "alibaba cloud api gateway flow control (403)"
    )));
    let mut ali = fx("alibaba cloud api gateway quota exhausted (403)");
    assert!(is_rate_limited(&ali));
    ali.response_headers =
        crate::model::Headers::from_pairs([("x-ca-error-message", "Unauthorized")]);
    assert!(!is_rate_limited(&ali));
    // Stack Exchange's throttle_violation comes with HTTP 400; another 400 of its API is not.
    let mut se = fx("bare 429");
    se.status = 400;
    se.body_excerpt = Some("{\"error_id\":502,\"error_message\":\"too many requests from this IP, more requests available in 81714 seconds\",\"error_name\":\"throttle_violation\"}".into());
    assert!(is_rate_limited(&se));
    se.body_excerpt = Some("{\"error_id\":400,\"error_message\":\"site is required\",\"error_name\":\"bad_parameter\"}".into());
    assert!(!is_rate_limited(&se));
    // A WAF block page with no rate-limit evidence is a block, not a rate limit.
    assert!(!is_rate_limited(&fx("sucuri firewall block")));
    // A 403 with rate-limit headers that are not exhausted is an auth error, not a limit.
    let mut r = fx("github primary limit (403)");
    r.response_headers = crate::model::Headers::from_pairs([("x-ratelimit-remaining", "4999")]);
    r.body_excerpt = Some("{\"message\":\"Resource not accessible by integration\"}".into());
    assert!(!is_rate_limited(&r));
    r.status = 503;
    r.response_headers.push("retry-after", "120");
    assert!(is_rate_limited(&r));
}

#[test]
fn each_app_limiter_fires_on_an_api_fixture_and_never_on_another_layer() {
    use super::matcher::Subject;
    for a in super::rules::APP_LIMITERS {
        let fired: Vec<&Fx> = FIXTURES
            .iter()
            .filter(|fx| {
                let reqs = requests(fx);
                let last = reqs.last().expect("fixture has a response");
                a.when.eval(&Subject::new(last)).is_some()
            })
            .collect();
        assert!(
            !fired.is_empty(),
            "application limiter {} has no fixture",
            a.id
        );
        for fx in fired {
            assert_eq!(fx.layer, Api, "{} fired on {}", a.id, fx.name);
            let att = run(fx);
            assert!(
                att.evidence
                    .iter()
                    .any(|e| e.role == Role::Producer && e.note.contains(a.source)),
                "{}: {} not in the evidence {:#?}",
                fx.name,
                a.id,
                att.evidence
            );
        }
    }
}

#[test]
fn each_origin_marker_fires_on_an_api_fixture_and_never_on_another_layer() {
    use super::matcher::Subject;
    for m in super::rules::ORIGIN_MARKERS {
        let fired: Vec<&Fx> = FIXTURES
            .iter()
            .filter(|fx| {
                let reqs = requests(fx);
                let last = reqs.last().expect("fixture has a response");
                m.when.eval(&Subject::new(last)).is_some()
            })
            .collect();
        assert!(!fired.is_empty(), "origin marker {} has no fixture", m.id);
        for fx in fired {
            assert_eq!(fx.layer, Api, "{} fired on {}", m.id, fx.name);
        }
    }
}

/// Minimal answers are said with the confidence their evidence earns: a producer's whole page
/// above the same page cut short, above "the only layer in front" inferred from missing origin
/// headers; and nothing is named when only a path header is left.
#[test]
fn minimal_pages_are_less_sure_than_whole_pages() {
    let conf = |name: &str| {
        let fx = FIXTURES
            .iter()
            .find(|f| f.name == name)
            .unwrap_or_else(|| panic!("fixture {name}"));
        let a = run(fx);
        assert_eq!(a.layer, fx.layer, "{name}");
        a.confidence
    };
    let whole = conf("nginx limit_req default 503");
    let cut = conf("nginx 429 page cut before its footer");
    let inferred = conf("title-only 429 page from the nginx in front of a JSON API");
    assert!(
        whole > cut && cut > inferred,
        "{whole} > {cut} > {inferred}"
    );
    assert!(
        inferred < 0.5,
        "an inferred edge is low confidence: {inferred}"
    );
    let gw_whole = conf("api gateway usage-plan quota");
    let gw_body = conf("api gateway usage-plan quota body without its headers");
    assert!(
        gw_whole > gw_body && gw_body < 0.5,
        "{gw_whole} > {gw_body}, below 0.5"
    );
    let envoy_marker = conf("envoy global rate limit");
    let envoy_inferred = conf("envoy empty 429, no upstream time, no successes to compare");
    assert!(envoy_marker > envoy_inferred && envoy_inferred < 0.5);
    for name in [
        "go net/http bare status text, nothing else",
        "title-only 429 page behind nginx, no successes to compare",
        "bare 429",
    ] {
        assert!(conf(name) <= 0.1, "{name} must stay unknown");
    }
}

const DOC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/attribution.md");
const BEGIN: &str = "<!-- rules:begin (generated by `TOOMANY_WRITE_DOCS=1 cargo test docs_`) -->\n";
const END: &str = "<!-- rules:end -->";

#[test]
fn docs_list_every_rule() {
    let _turn = super::DOCS_LOCK.lock();
    if std::env::var_os("TOOMANY_WRITE_DOCS").is_some() {
        let doc = std::fs::read_to_string(DOC).expect("read docs/attribution.md");
        let (head, rest) = doc.split_once(BEGIN).expect("begin marker");
        let (_, tail) = rest.split_once(END).expect("end marker");
        std::fs::write(DOC, format!("{head}{BEGIN}{}{END}{tail}", rules_markdown()))
            .expect("write docs/attribution.md");
    }
    let doc = std::fs::read_to_string(DOC).expect("read docs/attribution.md");
    for r in rules::all() {
        assert!(
            doc.contains(&format!("`{}`", r.id)),
            "docs/attribution.md lacks rule {}",
            r.id
        );
    }
    for m in super::rules::ORIGIN_MARKERS {
        assert!(
            doc.contains(&format!("`{}`", m.id)),
            "docs/attribution.md lacks origin marker {}",
            m.id
        );
    }
    for a in super::rules::APP_LIMITERS {
        assert!(
            doc.contains(&format!("`{}`", a.id)),
            "docs/attribution.md lacks application limiter {}",
            a.id
        );
    }
    for c in super::rules::CUES {
        assert!(
            doc.contains(&format!("`{}`", c.id)),
            "docs/attribution.md lacks cue {}",
            c.id
        );
    }
    assert!(doc.contains(&rules_markdown()), "docs/attribution.md is out of date: regenerate the table with `TOOMANY_WRITE_DOCS=1 cargo test docs_`");
}

mod props {
    use super::super::*;
    use crate::model::{Headers, Location, Position};
    use proptest::prelude::*;
    use std::sync::Arc;

    fn req(
        status: u16,
        headers: Vec<(String, String)>,
        body: Option<String>,
        host: &str,
    ) -> Request {
        let mut r = Request::at(Location {
            source: Arc::from("p"),
            position: Position::Line(1),
        });
        r.url = format!("https://{host}/x");
        r.status = status;
        r.response_headers = Headers::from_pairs(headers);
        r.body_excerpt = body;
        r
    }

    proptest! {
        /// Arbitrary headers and bodies (unicode names included) never panic, and verdicts stay
        /// in range.
        #[test]
        fn attribution_never_panics(
            heads in prop::collection::vec(("\\PC{0,24}", "\\PC{0,40}"), 0..10),
            ok_heads in prop::collection::vec(("[a-zé-]{1,20}", "\\PC{0,20}"), 0..6),
            body in proptest::option::of("\\PC{0,200}"),
            status in prop::sample::select(vec![429u16, 403, 503, 500, 200]),
        ) {
            let reqs = vec![req(200, ok_heads, None, "h.example"), req(status, heads, body, "h.example")];
            let _ = is_rate_limited(&reqs[1]);
            let a = attribute(&reqs, &[1, 7]);
            prop_assert_eq!(a.len(), 2);
            prop_assert!((0.0..=1.0).contains(&a[0].confidence));
        }

        /// Names that start like a vendor prefix but continue in multi-byte characters.
        #[test]
        fn unicode_header_names(suffix in "[éø€中]{1,6}") {
            let reqs = vec![req(429, vec![(format!("x-akam{suffix}"), "1".into()), (format!("twil{suffix}"), "1".into())], None, "u.example")];
            let _ = attribute(&reqs, &[0]);
        }
    }
}
