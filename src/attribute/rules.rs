//! The fingerprint table: who can produce a rate-limited response and how it looks, and the
//! cues that tell what kind of limit it was. Every row cites its source in
//! `shared/reference/fingerprints.md` (Part 3); docs/attribution.md is generated from these rows.
//!
//! Adding a vendor is adding rows. The engine (`engine.rs`) reads `proves` to separate the
//! *producer* of a response from the layers it merely passed through.

use super::matcher::M::{self, *};
use super::{Layer, Quota, Scope};

/// What a rule's hit says about the layer it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Proves {
    /// A marker only the producing layer emits (its own error page, a generator-only header).
    Producer,
    /// A marker that points at the producer only when the host's successful responses lack it
    /// (e.g. `Server: AkamaiGHost` on the 429 but the origin's Server on every 200).
    ProducerIfNew,
    /// The layer was on the path; says nothing about who produced the response.
    Path,
    /// The layer forwarded the request and an upstream answered: the producer is behind it.
    Upstream,
}

#[derive(Debug)]
pub struct Rule {
    pub id: &'static str,
    pub vendor: &'static str,
    pub layer: Layer,
    pub proves: Proves,
    /// How much a hit counts toward the verdict, 0–1 (combined noisy-or per vendor).
    pub weight: f64,
    pub when: M,
    /// The product's limiter kind, used only when nothing more specific is said.
    pub quota: Option<Quota>,
    /// Short label for summaries ("1015", "limit_req default page").
    pub detail: &'static str,
    /// Source tags in fingerprints.md.
    pub source: &'static str,
    pub note: &'static str,
}

#[allow(clippy::too_many_arguments)]
const fn r(
    id: &'static str,
    vendor: &'static str,
    layer: Layer,
    proves: Proves,
    weight: f64,
    when: M,
    quota: Option<Quota>,
    detail: &'static str,
    source: &'static str,
    note: &'static str,
) -> Rule {
    Rule {
        id,
        vendor,
        layer,
        proves,
        weight,
        when,
        quota,
        detail,
        source,
        note,
    }
}

use Layer::{Cdn, Proxy};
use Proves::{Path, Producer, ProducerIfNew, Upstream};
const RATE: Option<Quota> = Some(Quota::Rate);
const NONE: Option<Quota> = None;

/// Not an AWS service endpoint: AWS's own APIs (Lambda, SNS, …) answer their throttles with the
/// same `x-amzn-ErrorType: TooManyRequestsException` API Gateway uses, so the gateway's marker
/// counts only on a gateway's host or a custom domain.
const NOT_AWS_SERVICE: M = Any(&[
    Not(&Host("*.amazonaws.com")),
    Host("*.execute-api.*.amazonaws.com"),
]);

/// Every rule: the layer rules below, then each catalogue provider's markers
/// (`catalogue.rs`). The engine iterates this, never `RULES` alone.
pub fn all() -> &'static [&'static Rule] {
    static ALL: std::sync::OnceLock<Vec<&'static Rule>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        RULES
            .iter()
            .chain(
                super::catalogue::PROVIDERS
                    .iter()
                    .flat_map(|p| p.markers.iter()),
            )
            .collect()
    })
}

#[rustfmt::skip]
pub static RULES: &[Rule] = &[
    // ---------------------------------------------------------------- CDN / WAF edge
    r("cloudflare.error-headers", "cloudflare", Cdn, Producer, 0.95,
      Any(&[Has("cf-error-type"), Has("cf-error-origin")]), RATE, "error page", "[C5]",
      "Cloudflare sets cf-error-type/cf-error-origin only on error pages it generates itself"),
    r("cloudflare.1015", "cloudflare", Cdn, Producer, 0.95,
      Any(&[Body("error code: 1015"), Body("error 1015"), Body("\"error_code\":1015"),
            All(&[Body("you are being rate limited"), Body("cloudflare")])]),
      RATE, "1015", "[C2, C3]",
      "Cloudflare error 1015: a rate-limiting rule of the site owner blocked this client"),
    r("cloudflare.1027", "cloudflare", Cdn, Producer, 0.95,
      Any(&[Body("error code: 1027"), Body("error 1027"), Body("\"error_code\":1027")]),
      Some(Quota::Daily), "1027", "https://developers.cloudflare.com/support/troubleshooting/http-status-codes/cloudflare-1xxx-errors/error-1027/",
      "Cloudflare error 1027 (\"This website has been temporarily rate limited\"): the site's Workers on the Free plan used up their daily request allowance (https://developers.cloudflare.com/workers/platform/limits/), and Cloudflare answers for the Worker until 00:00 UTC"),
    r("cloudflare.branded-page", "cloudflare", Cdn, Producer, 0.85,
      Any(&[Body("used cloudflare to restrict access"), All(&[Body("/cdn-cgi/"), Body("ray id")])]),
      RATE, "block page", "[C2, C3, C6]",
      "Cloudflare-branded block page (Cloudflare's own pages carry its branding; origin pages do not)"),
    r("cloudflare.challenge", "cloudflare", Cdn, Producer, 0.95,
      Value("cf-mitigated", "challenge"), NONE, "challenge", "[C9, C10]",
      "cf-mitigated: challenge is set only on Cloudflare challenge pages (bot mitigation, not a quota)"),
    r("cloudflare.error-markup", "cloudflare", Cdn, Producer, 0.9,
      Any(&[Body("/cdn-cgi/styles/cf.errors.css"), Body("id=\"cf-error-details\""), Body("class=\"cf-error-code\"")]),
      RATE, "error page (markup)", "https://developers.cloudflare.com/support/troubleshooting/http-status-codes/cloudflare-1xxx-errors/",
      "the markup of Cloudflare's own error pages (its cf.errors.css stylesheet, the cf-error-details block), in the page's head and first lines: a page cut short before its Ray ID still names Cloudflare"),
    r("cloudflare.path", "cloudflare", Cdn, Path, 0.0,
      Any(&[Has("cf-ray"), Value("server", "cloudflare"), Has("cf-cache-status")]), NONE, "", "[C7, C8]",
      "present on every response Cloudflare proxies, the origin's 429s included"),

    r("akamai.reference", "akamai", Cdn, Producer, 0.9,
      Any(&[Body("reference #18."), Body("reference&#32;&#35;18"),
            All(&[Body("access denied"), Body("reference #")]),
            All(&[Body("access denied"), Body("reference&#32;&#35;")])]),
      RATE, "deny page", "[A1, A2]",
      "Akamai edge deny page with its \"Reference #18.…\" error reference"),
    r("akamai.deny-truncated", "akamai", Cdn, Producer, 0.75,
      All(&[Body("<title>access denied</title>"), Body("&#58;&#47;&#47;"), Not(&Body("reference"))]),
      RATE, "deny page (cut)", "[A1, A2]",
      "Akamai's deny page writes the URL HTML-escaped (\"http&#58;&#47;&#47;…\" under <TITLE>Access Denied</TITLE>): cut before its Reference # it is still Akamai's, less surely"),
    r("akamai.ghost", "akamai", Cdn, ProducerIfNew, 0.7,
      Value("server", "akamaighost"), RATE, "AkamaiGHost", "[A1]",
      "Server: AkamaiGHost appears when the Akamai edge generates the response itself"),
    r("akamai.path", "akamai", Cdn, Path, 0.0,
      Any(&[Has("akamai-grn"), NamePrefix("x-akamai-"), Has("akamai-cache-status")]), NONE, "", "[A6]",
      "Akamai request headers present on every response it serves"),

    r("fastly.varnish-page", "fastly", Cdn, Producer, 0.85,
      All(&[Any(&[Body("guru meditation"), Body("varnish cache server")]), Has("x-served-by")]),
      RATE, "synthetic error", "[F1, F2]",
      "Varnish synthetic error page served by a Fastly cache node"),
    r("fastly.synthetic-hit", "fastly", Cdn, Producer, 0.6,
      All(&[Value("x-served-by", "cache-"), Value("x-cache", "hit"), Status(429)]), RATE, "edge rate limit", "[F1, F2, S1]",
      "a 429 must not be cached (RFC 6585), so X-Cache: HIT means Fastly synthesized it at the edge"),
    r("fastly.path", "fastly", Cdn, Path, 0.0,
      Any(&[Value("x-served-by", "cache-"), Value("via", "varnish"), Has("x-timer"), Has("fastly-debug-digest")]),
      NONE, "", "[F1, F4]", "Fastly cache headers present on every response it serves"),

    r("aws-waf.action", "aws-waf", Cdn, Producer, 0.95,
      Has("x-amzn-waf-action"), RATE, "WAF action", "[W5]",
      "x-amzn-waf-action is set by AWS WAF on its CAPTCHA/challenge responses"),
    r("aws-waf.token-cookie", "aws-waf", Cdn, ProducerIfNew, 0.6,
      Value("set-cookie", "aws-waf-token"), RATE, "WAF token", "[W5]",
      "AWS WAF issues its aws-waf-token cookie from challenge responses"),
    r("aws-waf.alb", "aws-waf", Cdn, ProducerIfNew, 0.7,
      All(&[Value("server", "awselb"), Any(&[Status(403), Status(429)])]), RATE, "WAF on ALB", "[W4, W6]",
      "Server: awselb/2.0 marks a response the load balancer generated itself; ALB has no rate limiter, AWS WAF does"),
    r("azure-app-gateway.waf", "azure-application-gateway", Cdn, Producer, 0.85,
      Any(&[Body("<center>microsoft-azure-application-gateway"), All(&[Value("server", "microsoft-azure-application-gateway"), Any(&[Status(403), Status(429)])])]),
      RATE, "WAF block", "[Z1, Z2]",
      "Azure Application Gateway WAF's own error page / Server (not verified in captures: M)"),
    r("cloudfront.blocked", "cloudfront", Cdn, Producer, 0.9,
      All(&[Body("request blocked"), Any(&[Body("generated by cloudfront"), Body("could not be satisfied")])]),
      RATE, "Request blocked", "[W2, W4, W6]",
      "CloudFront's own \"Request blocked\" page: CloudFront answered, usually for an AWS WAF rule (or geo restriction)"),
    r("cloudfront.page", "cloudfront", Cdn, Producer, 0.85,
      All(&[Any(&[Body("generated by cloudfront"), All(&[Body("could not be satisfied"), Body("cloudfront")])]),
            Not(&Body("request blocked"))]),
      RATE, "CloudFront error page", "[W2, W3]",
      "CloudFront-generated HTML error page (\"Generated by cloudfront (CloudFront)\")"),
    r("cloudfront.path", "cloudfront", Cdn, Path, 0.0,
      Any(&[Has("x-amz-cf-id"), Has("x-amz-cf-pop"), Value("via", "cloudfront"), Value("x-cache", "cloudfront")]),
      NONE, "", "[W1]",
      "CloudFront headers (X-Cache: Error from cloudfront included) are on every error it forwards, the origin's too"),

    r("azure-front-door.blocked", "azure-front-door", Cdn, Producer, 0.85,
      All(&[Body("the request is blocked"), Any(&[Has("x-azure-ref"), Has("x-msedge-ref")])]),
      RATE, "WAF block", "[Z1, Z2]", "Front Door WAF default block body (\"The request is blocked.\")"),
    r("azure-front-door.path", "azure-front-door", Cdn, Path, 0.0,
      Any(&[Has("x-azure-ref"), Has("x-msedge-ref"), Has("x-fd-int-roxy-purgeid")]), NONE, "", "[Z2]",
      "x-azure-ref is on every response Front Door serves"),

    r("google-cloud-armor.gfe-page", "google-cloud-armor", Cdn, Producer, 0.9,
      Any(&[Body("error 429 (too many requests)!!1"), Body("sent too many requests to us recently"),
            All(&[Body("that’s an error"), Body("too many requests")])]),
      RATE, "GFE 429 page", "[G1, G3]",
      "Google Front End 429 page (\"Error 429 (Too Many Requests)!!1\") served by Google's edge"),
    r("google-cloud-armor.gfe-minimal", "google-cloud-armor", Cdn, Producer, 0.7,
      All(&[Body("<body text=#000000 bgcolor=#ffffff>"), Body("<h1>error: ")]),
      RATE, "GFE minimal page", "[G1, G3]",
      "the Google Front End's minimal error template (<title>429 Too Many Requests</title>, then <h1>Error: …</h1> in <body text=#000000 bgcolor=#ffffff>), as Google's edge serves it for Cloud Run, App Engine and Google APIs"),
    r("google-cloud-armor.unusual-traffic", "google-cloud-armor", Cdn, Producer, 0.85,
      Any(&[Body("our systems have detected unusual traffic from your computer network"), Body("/sorry/index?continue=")]),
      RATE, "unusual traffic page", "https://support.google.com/websearch/answer/86640",
      "Google's \"Our systems have detected unusual traffic from your computer network\" page (google.com/sorry/index, sent with 429 to automated clients of Search, Scholar, YouTube): Google's front end refused, per client IP, before any Google service answered"),
    r("google-cloud-armor.path", "google-cloud-armor", Cdn, Path, 0.0,
      Any(&[Value("via", "1.1 google"), Value("server", "google frontend")]), NONE, "", "[G1, AN1]",
      "Google load-balancer headers, present on everything behind it (Anthropic's API included)"),

    r("imperva.page", "imperva", Cdn, Producer, 0.9,
      Any(&[Body("incapsula incident id"), Body("_incapsula_resource"), Body("powered by imperva")]),
      RATE, "block page", "[I1]", "Imperva/Incapsula block or challenge page"),
    r("imperva.path", "imperva", Cdn, Path, 0.0,
      Any(&[Has("x-iinfo"), Value("x-cdn", "incapsula"), Value("x-cdn", "imperva"), Value("set-cookie", "incap_ses_"),
            Value("set-cookie", "visid_incap_")]),
      NONE, "", "[I1]", "x-iinfo / x-cdn: Incapsula are on every response Imperva fronts"),

    r("sucuri.block", "sucuri", Cdn, Producer, 0.95,
      Any(&[Has("x-sucuri-block"), Body("sucuri website firewall")]), RATE, "firewall block", "[U1]",
      "X-Sucuri-Block (rule id) and the Sucuri firewall page come only from Sucuri's own blocks"),
    r("sucuri.path", "sucuri", Cdn, Path, 0.0,
      Any(&[Has("x-sucuri-id"), Has("x-sucuri-cache"), Value("server", "sucuri")]), NONE, "", "[U1]",
      "Sucuri proxy headers"),

    r("f5.asm-blocking-page", "f5", Cdn, Producer, 0.9,
      Any(&[Body("the requested url was rejected. please consult with your administrator"),
            All(&[Body("<title>request rejected</title>"), Body("your support id is")])]),
      RATE, "ASM blocking page", "https://clouddocs.f5.com/bigip-next/20-0-1/waf_management/awaf_response_page_overview.html",
      "the default blocking response page of F5's web application firewall (BIG-IP ASM / Advanced WAF, NGINX App Protect): <title>Request Rejected</title>, \"The requested URL was rejected. Please consult with your administrator.\" and the support ID it fills in for <%TS.request.ID()%>; sent as 200 by default, as the configured status (403, 429) when the policy sets one: the WAF refused, before the application"),

    r("vercel.mitigated", "vercel", Cdn, Producer, 0.95,
      Has("x-vercel-mitigated"), RATE, "firewall", "[V1, V2]",
      "x-vercel-mitigated is set when the Vercel firewall acted on the request (rate limit, deny, challenge)"),
    r("vercel.platform-error", "vercel", Cdn, Producer, 0.9,
      Any(&[Has("x-vercel-error"), Body("code: function_throttled")]), CONC, "platform error",
      "https://vercel.com/docs/errors",
      "Vercel's own platform error (x-vercel-error, and the page \"503: SERVICE_UNAVAILABLE / Code: FUNCTION_THROTTLED / ID: region::…\"): the platform refused before the function ran; FUNCTION_THROTTLED is its burst concurrency limit (https://vercel.com/docs/functions/concurrency-scaling)"),
    r("vercel.path", "vercel", Cdn, Path, 0.0,
      Any(&[Has("x-vercel-id"), Has("x-vercel-cache"), Value("server", "vercel")]), NONE, "", "[V1, V2]",
      "x-vercel-id is on every response Vercel serves"),

    r("netlify.unbranded-429", "netlify", Cdn, Producer, 0.35,
      All(&[Any(&[Has("x-nf-request-id"), Value("server", "netlify")]), Status(429), Not(&Value("content-type", "json"))]),
      RATE, "rate-limit rule (inferred)", "[N1]",
      "a non-JSON 429 from a Netlify site: Netlify rate-limit rules block with 429 (low confidence; origin headers outweigh it)"),
    r("netlify.path", "netlify", Cdn, Path, 0.0,
      Any(&[Has("x-nf-request-id"), Value("server", "netlify")]), NONE, "", "[N1]",
      "x-nf-request-id is on every response Netlify serves"),

    r("yahoo.edge-page", "yahoo", Cdn, Producer, 0.85,
      BodyIs("edge: too many requests"), RATE, "edge 429", "https://github.com/ranaroussi/yfinance/issues/2284",
      "Yahoo's edge answers 429 with the plain body \"Edge: Too Many Requests\" (query1/query2.finance.yahoo.com, recorded in yfinance #2284, #2297 and yahoo-finance2 #982): its own front end refused, per IP, before any Yahoo API"),

    r("wikimedia.error-page", "wikimedia", Cdn, Producer, 0.85,
      Body("<title>wikimedia error</title>"), RATE, "edge error page", "https://www.mediawiki.org/wiki/API:Etiquette",
      "Wikimedia's edge error page (its own caching layer answered, for the robot and User-Agent policy)"),

    r("iis.dynamic-ip-page", "iis", Layer::Api, Producer, 0.9,
      Any(&[Body("dynamic ip restriction concurrent request rate limit reached"),
            Body("dynamic ip restriction maximum request rate limit reached"),
            All(&[Body("detailed error - "), Any(&[Body(".501 - "), Body(".502 - ")])])]),
      RATE, "Dynamic IP Restrictions", "https://learn.microsoft.com/en-us/troubleshoot/developer/webapps/iis/www-administration-management/http-status-code",
      "IIS's detailed error page for Dynamic IP Restrictions (substatus 501: \"Too many requests from the same client IP; Dynamic IP Restriction Concurrent request rate limit reached\", 502: \"… Maximum request rate limit reached\"), sent as its denyAction (403 by default, 401 or 404 when configured): the web server hosting the application refused, per client IP, before the application ran"),

    // ---------------------------------------------------------------- proxies and gateways
    r("nginx.default-page", "nginx", Proxy, Producer, 0.9,
      All(&[Any(&[Body("<center>nginx"), Body("<center>openresty")]),
            Not(&Value("server", "apisix")), Not(&Value("server", "kong"))]),
      RATE, "limit_req default page", "[P1, P2]",
      "nginx's built-in error page (limit_req/limit_conn answer 503 by default, 429 when configured)"),
    r("nginx.page-layout", "nginx", Proxy, Producer, 0.55,
      All(&[Any(&[Body("<center><h1>429 too many requests</h1></center>"),
                  Body("<center><h1>503 service temporarily unavailable</h1></center>")]),
            Not(&Body("<center>nginx")), Not(&Body("<center>openresty")),
            Not(&Value("server", "awselb")), Not(&Value("server", "apisix")), Not(&Value("server", "kong"))]),
      RATE, "limit_req page (no footer)", "https://github.com/nginx/nginx/blob/master/src/http/ngx_http_special_response.c",
      "the layout of nginx's built-in 429/503 page (<center><h1>429 Too Many Requests</h1></center>) without its <hr><center>nginx</center> footer: nginx's page cut short, or an nginx-based front end; less sure than the whole page"),
    r("nginx.path", "nginx", Proxy, Path, 0.0,
      Any(&[Value("server", "nginx"), Value("server", "openresty")]), NONE, "", "[P2]",
      "Server: nginx is on every response nginx proxies"),

    r("envoy.ratelimited", "envoy", Proxy, Producer, 0.95,
      Has("x-envoy-ratelimited"), RATE, "rate limit filter", "[P3]",
      "x-envoy-ratelimited is added by Envoy's rate-limit filter to the 429 it generates"),
    r("envoy.local-body", "envoy", Proxy, Producer, 0.9,
      Body("local_rate_limited"), RATE, "local rate limit", "[P3]",
      "\"local_rate_limited\" is the body of Envoy's local rate-limit filter"),
    r("envoy.overloaded", "envoy", Proxy, Producer, 0.8,
      Has("x-envoy-overloaded"), NONE, "overload", "[P3]",
      "x-envoy-overloaded: Envoy shed the request (circuit breaker / overload), capacity not quota"),
    r("envoy.upstream", "envoy", Proxy, Upstream, 0.0,
      Has("x-envoy-upstream-service-time"), RATE, "rate limit (inferred)", "[P3]",
      "Envoy adds x-envoy-upstream-service-time only when an upstream answered"),
    r("envoy.path", "envoy", Proxy, Path, 0.0,
      Any(&[Value("server", "envoy"), Has("x-envoy-decorator-operation")]), NONE, "", "[P3]",
      "Server: envoy / istio-envoy"),
    r("envoy.local-reply-empty", "envoy", Proxy, Producer, 0.45,
      All(&[Value("server", "envoy"), Status(429), BodyEmpty, Not(&Has("x-envoy-upstream-service-time"))]),
      RATE, "local reply (inferred)", "https://www.envoyproxy.io/docs/envoy/latest/configuration/http/http_filters/router_filter",
      "an empty 429 from Envoy without x-envoy-upstream-service-time: the router adds that header to every response an upstream produced, and Envoy's global rate-limit filter answers with an empty 429 of its own (rate_limit_filter.rst); less sure than x-envoy-ratelimited, which can be disabled, or a baseline (suppress_envoy_headers drops the upstream time too)"),

    r("haproxy.page", "haproxy", Proxy, Producer, 0.9,
      Any(&[Body("you have sent too many requests in a given amount of time"),
            Body("request forbidden by administrative rules")]),
      RATE, "deny page", "[P4]", "HAProxy's built-in 429/403 error body"),

    r("apache.default-page", "apache", Proxy, Producer, 0.8,
      Any(&[Body("<p>the user has sent too many requests\nin a given amount of time.</p>"),
            All(&[Body("<!doctype html public \"-//ietf//dtd html 2.0//en\">"), Body("<title>429 too many requests</title>"),
                  Not(&Body("powered by tengine"))])]),
      RATE, "built-in 429 page", "https://github.com/apache/httpd/blob/trunk/modules/http/http_protocol.c",
      "Apache httpd's built-in 429 page (HTML 2.0 doctype, \"The user has sent too many requests in a given amount of time.\"): a module of the web server (mod_security, mod_qos, mod_evasive with 429) refused, not the application"),

    r("traefik.retry-in", "traefik", Proxy, Producer, 0.95,
      Has("x-retry-in"), RATE, "RateLimit middleware", "[P5]",
      "X-Retry-In (a Go duration) is specific to Traefik's RateLimit middleware"),
    r("traefik.inflight", "traefik", Proxy, Producer, 0.8,
      Any(&[Body("max connections reached"), Body("max rate reached")]), RATE, "InFlightReq/oxy", "[P5]",
      "Traefik InFlightReq (\"max connections reached\") or Traefik v1/oxy (\"max rate reached\") body"),

    r("kong.response-latency", "kong", Proxy, Producer, 0.95,
      Has("x-kong-response-latency"), RATE, "rate-limiting plugin", "[P6]",
      "X-Kong-Response-Latency is set only when Kong answered without the upstream"),
    r("kong.server", "kong", Proxy, ProducerIfNew, 0.7,
      Value("server", "kong/"), RATE, "rate-limiting plugin", "[P6]",
      "Server: kong/x.y is on responses Kong generates; proxied ones keep the upstream's Server"),
    r("kong.message", "kong", Proxy, Producer, 0.85,
      All(&[Body("api rate limit exceeded"), Any(&[Value("server", "kong"), Has("x-kong-request-id")])]),
      RATE, "rate-limiting plugin", "[P6]", "Kong's default error_message with Kong headers"),
    r("kong.body-only", "kong", Proxy, Producer, 0.55,
      All(&[Any(&[BodyIs("{\"message\":\"api rate limit exceeded\"}"), BodyIs("{\"message\":\"api quota exceeded\"}"),
                  Body("{\"message\":\"api rate limit exceeded\",\"request_id\":\"")]),
            Not(&Any(&[Has("x-kong-response-latency"), Value("server", "kong"), Has("x-kong-request-id")])),
            // Kong's limit headers carry the period (X-RateLimit-Limit-Minute); a bare
            // X-RateLimit-Limit is the API's own counter, and APIs write this sentence too.
            Not(&Has("x-ratelimit-limit"))]),
      RATE, "rate-limiting plugin (body only)", "[P6]",
      "Kong's stock rate-limiting body ({\"message\":\"API rate limit exceeded\"}, 3.x adds request_id) with none of Kong's headers: the gateway's own wording, less sure than with its headers (an API could write the same)"),
    r("kong.upstream", "kong", Proxy, Upstream, 0.0,
      Any(&[Has("x-kong-upstream-latency"), Value("via", "kong")]), RATE, "rate-limiting plugin (inferred)", "[P6]",
      "X-Kong-Upstream-Latency / Via: kong mean Kong forwarded the request and the upstream answered"),
    r("kong.path", "kong", Proxy, Path, 0.0,
      Any(&[Has("x-kong-request-id"), Has("x-kong-proxy-latency"), Has("x-ratelimit-limit-minute"),
            Has("x-ratelimit-limit-second"), Has("x-ratelimit-limit-hour"), Has("x-ratelimit-limit-day")]),
      NONE, "", "[P6]", "Kong headers (request id, proxy latency, per-period X-RateLimit-*-Minute)"),

    r("aws-api-gateway.error-type", "aws-api-gateway", Proxy, Producer, 0.95,
      All(&[Any(&[Value("x-amzn-errortype", "toomanyrequestsexception"), Value("x-amzn-errortype", "limitexceededexception")]),
            NOT_AWS_SERVICE]),
      RATE, "throttle", "[P7, W1]",
      "x-amzn-ErrorType TooManyRequestsException/LimitExceededException is API Gateway's own throttle or quota"),
    r("aws-api-gateway.body", "aws-api-gateway", Proxy, Producer, 0.6,
      All(&[Any(&[Body("{\"message\":\"too many requests\"}"), Body("{\"message\":\"limit exceeded\"}")]),
            Any(&[Has("x-amz-apigw-id"), Has("apigw-requestid"), Has("x-amzn-requestid")])]),
      RATE, "throttle", "[P7]", "API Gateway's default throttle/quota body"),
    r("aws-api-gateway.quota-body-only", "aws-api-gateway", Proxy, Producer, 0.45,
      All(&[BodyIs("{\"message\":\"limit exceeded\"}"),
            Not(&Any(&[Has("x-amzn-errortype"), Has("x-amz-apigw-id"), Has("apigw-requestid"), Has("x-amzn-requestid")])),
            Not(&Has("x-ratelimit-limit")), NOT_AWS_SERVICE]),
      Some(Quota::Daily), "usage-plan quota (body only)", "https://docs.aws.amazon.com/apigateway/latest/developerguide/supported-gateway-response-types.html",
      "API Gateway's QUOTA_EXCEEDED gateway response (default status 429, body {\"message\":$context.error.messageString} = {\"message\":\"Limit Exceeded\"}) with none of API Gateway's headers (a CDN or proxy in front dropped them): the usage plan's per-key quota, less sure than with x-amzn-ErrorType. Recorded on setlist.fm and other APIs on API Gateway with LimitExceededException. The throttle's {\"message\":\"Too Many Requests\"} is not used alone: APIs write that sentence themselves"),
    r("aws-api-gateway.path", "aws-api-gateway", Proxy, Path, 0.0,
      Any(&[Has("x-amz-apigw-id"), Has("apigw-requestid"), Has("x-amzn-requestid"), Has("x-amzn-trace-id")]), NONE, "", "[P7, W1]",
      "API Gateway request ids are on every response it returns, the integration's included"),

    r("azure-apim.rate", "azure-apim", Proxy, Producer, 0.9,
      Body("rate limit is exceeded. try again in"), RATE, "rate-limit policy", "[P8]",
      "Azure API Management rate-limit policy default message"),
    r("azure-apim.quota", "azure-apim", Proxy, Producer, 0.9,
      Any(&[Body("out of call volume quota"), Body("out of bandwidth quota")]), Some(Quota::Daily),
      "quota policy", "[P8]", "Azure API Management quota policy default message (status 403)"),

    r("apigee.fault", "apigee", Proxy, Producer, 0.95,
      Any(&[Body("policies.ratelimit."), Body("spike arrest violation"), Body("rate limit quota violation")]),
      RATE, "SpikeArrest/Quota", "[P9]", "Apigee SpikeArrest/Quota fault (errorcode policies.ratelimit.*)"),
    r("apigee.router", "apigee", Proxy, ProducerIfNew, 0.6,
      Value("server", "apigee router"), RATE, "legacy router", "[P9]",
      "legacy Apigee Edge answers spike arrests itself with Server: Apigee Router"),

    r("tyk.error", "tyk", Proxy, Producer, 0.7,
      Any(&[Body("{\"error\": \"rate limit exceeded\"}"), Body("{\"error\": \"quota exceeded\"}")]),
      RATE, "rate limiter", "[P10]", "Tyk's default error template for rate limit / quota"),

    r("krakend.abort", "krakend", Proxy, Producer, 0.75,
      All(&[Any(&[Has("x-krakend"), Has("x-krakend-completed")]), BodyEmpty]), RATE, "router rate limit", "[P11]",
      "KrakenD's router rate limit aborts with an empty body (503 endpoint-wide, 429 per client)"),
    r("krakend.path", "krakend", Proxy, Path, 0.0,
      Any(&[Has("x-krakend"), Has("x-krakend-completed")]), NONE, "", "[P11]", "KrakenD response headers"),

    r("apisix.page", "apisix", Proxy, Producer, 0.75,
      All(&[Value("server", "apisix"), Any(&[Body("<center>openresty"), Body("<center>apisix"), BodyEmpty])]),
      RATE, "limit-count/limit-req", "[P15]", "APISIX default rejection (503 by default, often set to 429)"),
    r("caddy.ratelimit", "caddy", Proxy, Producer, 0.45,
      All(&[Value("server", "caddy"), Status(429), Has("retry-after"), BodyEmpty]), RATE, "caddy-ratelimit", "[P12]",
      "caddy-ratelimit answers 429 with Retry-After and an empty body"),
    r("wso2.throttled", "wso2", Proxy, Producer, 0.9,
      Any(&[Body("message throttled out"), Body("900802"), Body("900803")]), RATE, "throttling", "[P13]",
      "WSO2 API Manager throttling fault"),
    r("spring-cloud-gateway.denied", "spring-cloud-gateway", Proxy, Producer, 0.8,
      All(&[Any(&[Has("x-ratelimit-replenish-rate"), Has("x-ratelimit-burst-capacity")]), Status(429), BodyEmpty]),
      RATE, "RequestRateLimiter", "https://docs.spring.io/spring-cloud-gateway/reference/spring-cloud-gateway-server-webflux/gatewayfilter-factories/requestratelimiter-factory.html",
      "Spring Cloud Gateway's RequestRateLimiter (Redis token bucket) denies with an empty 429 carrying its X-RateLimit-Replenish-Rate / Burst-Capacity headers"),
    r("spring-cloud-gateway.path", "spring-cloud-gateway", Proxy, Path, 0.0,
      Any(&[Has("x-ratelimit-replenish-rate"), Has("x-ratelimit-burst-capacity"), Has("x-ratelimit-requested-tokens")]),
      NONE, "", "https://docs.spring.io/spring-cloud-gateway/reference/spring-cloud-gateway-server-webflux/gatewayfilter-factories/requestratelimiter-factory.html",
      "the RequestRateLimiter adds its headers to the responses it lets through too, an upstream's 429 included"),
    r("ibm-api-connect.rate", "ibm-api-connect", Proxy, Producer, 0.85,
      Any(&[Body("\"moreinformation\":\"rate limit exceeded\""), Body("\"moreinformation\":\"assembly rate limit exceeded\"")]),
      RATE, "rate-limit", "https://www.ibm.com/docs/en/api-connect/10.0.x?topic=policies-rate-limit",
      "IBM API Connect (DataPower gateway) rate-limit rejection: {\"httpCode\":\"429\",\"httpMessage\":\"Too Many Requests\",\"moreInformation\":\"Rate Limit exceeded\"}"),
    r("gravitee.limit", "gravitee", Proxy, Producer, 0.85,
      Any(&[Body("rate limit exceeded ! you reach the limit of"), Body("quota exceeded ! you reach the limit of")]),
      RATE, "rate-limit / quota policy", "https://documentation.gravitee.io/apim/create-apis/policies/policy-reference/rate-limit",
      "Gravitee gateway's rate-limit and quota policies: \"Rate limit exceeded ! You reach the limit of N requests per P …\""),
    r("3scale.limits-exceeded", "3scale", Proxy, Producer, 0.7,
      All(&[BodyIs("limits exceeded"), Status(429)]), RATE, "APIcast", "https://github.com/3scale/APIcast/blob/master/doc/parameters.md",
      "3scale APIcast's default answer when an application's usage limits are exceeded: 429 with the text/plain body \"Limits exceeded\" (error_limits_exceeded)"),
    r("alibaba-cloud-api-gateway.flow-control", "alibaba-cloud-api-gateway", Proxy, Producer, 0.95,
      Value("x-ca-error-message", "flow control"), RATE, "flow control",
      "https://developer.aliyun.com/ask/278260",
      "Alibaba Cloud API Gateway writes its own errors in X-Ca-Error-Message (with X-Ca-Request-Id): \"Throttled by USER/APP/API/GROUP/DOMAIN Flow Control\", status 403, means the gateway's flow-control (rate) policy refused before the backend; the public error-code table every Alibaba Cloud Marketplace API documents"),
    r("alibaba-cloud-api-gateway.quota", "alibaba-cloud-api-gateway", Proxy, Producer, 0.95,
      Any(&[Value("x-ca-error-message", "quota exhausted"), Value("x-ca-error-message", "quota expired")]), Some(Quota::Daily), "quota exhausted",
      "https://developer.aliyun.com/ask/278260",
      "Alibaba Cloud API Gateway's X-Ca-Error-Message \"Quota Exhausted\" / \"Quota Expired\" (403): the calls bought for the API are used up; no pacing brings them back"),
    r("alibaba-cloud-api-gateway.path", "alibaba-cloud-api-gateway", Proxy, Path, 0.0,
      Has("x-ca-request-id"), NONE, "", "https://developer.aliyun.com/ask/278260",
      "API Gateway returns X-Ca-Request-Id on every request that reached it, the backend's answers included"),

    r("linkerd.rate-limited", "linkerd", Proxy, Producer, 0.95,
      Value("l5d-proxy-error", "rate limit exceeded"), RATE, "HTTPLocalRateLimitPolicy",
      "https://github.com/linkerd/linkerd2-proxy/blob/main/linkerd/proxy/server-policy/src/local_rate_limit.rs",
      "Linkerd's inbound proxy answers a request over its HTTPLocalRateLimitPolicy with a synthetic 429 (SyntheticHttpResponse::rate_limited, empty body) whose l5d-proxy-error names the limit: \"total rate limit exceeded: 100rps\", \"per-identity …\", \"override …\" (RateLimitError): the mesh's sidecar refused before the application"),
    r("linkerd.proxy-error", "linkerd", Proxy, Producer, 0.85,
      Has("l5d-proxy-error"), RATE, "proxy error",
      "https://github.com/linkerd/linkerd2-proxy/blob/main/linkerd/app/core/src/errors/respond.rs",
      "l5d-proxy-error is set only on the synthetic responses the Linkerd proxy builds itself for errors (respond.rs http_response/grpc_response), never on a response relayed from the application"),

    r("varnish.page", "varnish", Proxy, Producer, 0.8,
      All(&[Any(&[Body("guru meditation"), Body("varnish cache server")]), Not(&Has("x-served-by"))]),
      RATE, "synthetic error", "[F1]", "Varnish synthetic error page (no Fastly node headers)"),

    r("tengine.default-page", "tengine", Proxy, Producer, 0.85,
      Body("<hr/>powered by tengine"),
      RATE, "built-in error page", "https://github.com/alibaba/tengine/blob/master/src/http/ngx_http_special_response.c",
      "Tengine's (Alibaba's nginx fork, also the front of Alibaba Cloud CDN and Taobao) built-in error page: nginx's special response under an HTML 2.0 doctype, ending \"<hr/>Powered by Tengine\" (ngx_http_error_banner); limit_req answers 503 with it. Releases whose table has no 429 page answer a 429 with an empty body"),
    r("squid.error", "squid", Proxy, Producer, 0.9,
      Has("x-squid-error"), RATE, "error page", "https://github.com/squid-cache/squid/blob/master/src/errorpage.cc",
      "X-Squid-Error (ERR_ACCESS_DENIED 0, …) is added by Squid's ErrorState::BuildHttpReply to the error pages Squid itself generates, never to a response it forwards: the forward proxy answered (an http_access deny with deny_info, a delay or maxconn ACL)"),
    r("squid.path", "squid", Proxy, Path, 0.0,
      Any(&[Value("server", "squid"), Value("via", "(squid")]), NONE, "", "http://www.squid-cache.org/Doc/config/via/",
      "Squid adds Via: 1.1 host (squid/x.y) to every response it forwards"),

];

/// The stock 429 body of a rate limiter that runs inside the application (framework
/// middleware): a response with it was produced by the API itself, whoever owns it. Origin
/// evidence for layer `api` (the vendor stays the host's owner, when the catalogue knows it),
/// and not weakened when a JSON API answers with the middleware's text or HTML page.
#[derive(Debug)]
pub struct AppLimiter {
    pub id: &'static str,
    /// The middleware, for the evidence line.
    pub name: &'static str,
    pub weight: f64,
    pub when: M,
    pub source: &'static str,
    pub note: &'static str,
}

const fn app(
    id: &'static str,
    name: &'static str,
    weight: f64,
    when: M,
    source: &'static str,
    note: &'static str,
) -> AppLimiter {
    AppLimiter {
        id,
        name,
        weight,
        when,
        source,
        note,
    }
}

pub static APP_LIMITERS: &[AppLimiter] = &[
    app("express-rate-limit.message", "express-rate-limit", 0.6,
      BodyIs("too many requests, please try again later."),
      "https://github.com/express-rate-limit/express-rate-limit",
      "express-rate-limit's default `message` (Node.js/Express middleware), sent as text/html"),
    app("rack-attack.throttled", "Rack::Attack", 0.6,
      BodyIs("retry later"),
      "https://github.com/rack/rack-attack/blob/main/lib/rack/attack/configuration.rb",
      "Rack::Attack's DEFAULT_THROTTLED_RESPONDER (Ruby/Rails middleware): 429, text/plain \"Retry later\\n\""),
    app("werkzeug.429-page", "Werkzeug (Flask, Flask-Limiter)", 0.6,
      All(&[Body("<title>429 too many requests</title>"), Body("<h1>too many requests</h1>"),
            Any(&[Body("<html lang=en>"), Body("dtd html 3.2 final")])]),
      "https://github.com/pallets/werkzeug/blob/main/src/werkzeug/exceptions.py",
      "Werkzeug's HTTPException page for TooManyRequests (<!doctype html><html lang=en><title>429 Too Many Requests</title><h1>Too Many Requests</h1><p>…</p>; before 2.1 an HTML 3.2 doctype), what Flask-Limiter raises (the limit, \"1 per 1 minute\", as its text); Apache's page has the same title and heading under an HTML 2.0 doctype"),
    app("slowapi.exceeded", "slowapi (FastAPI, Starlette)", 0.5,
      Body("{\"error\":\"rate limit exceeded:"),
      "https://github.com/laurentS/slowapi/blob/master/slowapi/extension.py",
      "slowapi's _rate_limit_exceeded_handler: {\"error\": \"Rate limit exceeded: 5 per 1 minute\"}"),
    app("drf.throttled", "Django REST framework", 0.5,
      Body("request was throttled."),
      "https://www.django-rest-framework.org/api-guide/throttling/",
      "Django REST framework's Throttled exception: {\"detail\":\"Request was throttled. Expected available in N seconds.\"}"),
    app("nestjs-throttler.exception", "@nestjs/throttler (NestJS)", 0.6,
      Body("throttlerexception: too many requests"),
      "https://github.com/nestjs/throttler/blob/master/src/throttler.exception.ts",
      "@nestjs/throttler's ThrottlerException, an HttpException(\"ThrottlerException: Too Many Requests\", 429) that Nest's exception filter sends as {\"statusCode\":429,\"message\":\"ThrottlerException: Too Many Requests\"}"),
    app("fastify-koa-ratelimit.message", "@fastify/rate-limit, koa-ratelimit (Node.js)", 0.55,
      Body("rate limit exceeded, retry in "),
      "https://github.com/fastify/fastify-rate-limit/blob/main/index.js",
      "the default answer of @fastify/rate-limit (an Error \"Rate limit exceeded, retry in 1 minute\" that Fastify sends as {\"statusCode\":429,\"error\":\"Too Many Requests\",\"message\":…}) and of koa-ratelimit (text \"Rate limit exceeded, retry in 1 minute.\", https://github.com/koajs/ratelimit)"),
    app("aspnetcoreratelimit.quota-exceeded", "AspNetCoreRateLimit / WebApiThrottle (.NET)", 0.6,
      Body("api calls quota exceeded! maximum admitted"),
      "https://github.com/stefanprodan/AspNetCoreRateLimit/wiki/IpRateLimitMiddleware",
      "AspNetCoreRateLimit's default QuotaExceededMessage \"API calls quota exceeded! maximum admitted {limit} per {period}.\" (text/plain, with Retry-After and X-Rate-Limit-Limit/-Remaining/-Reset); WebApiThrottle writes the same sentence"),
    app("tollbooth.message", "tollbooth (Go)", 0.5,
      Body("you have reached maximum request limit."),
      "https://github.com/didip/tollbooth/blob/master/limiter/limiter.go",
      "tollbooth's default limiter message \"You have reached maximum request limit.\" (429, text/plain, with X-Rate-Limit-Limit / -Duration)"),
    app("go-chi-httprate.default", "go-chi/httprate (Go)", 0.5,
      All(&[BodyIs("too many requests"), Value("x-content-type-options", "nosniff"),
            Value("content-type", "text/plain; charset=utf-8"), Has("x-ratelimit-limit"), Has("x-ratelimit-reset")]),
      "https://github.com/go-chi/httprate/blob/master/limiter.go",
      "go-chi/httprate's default onRateLimited (and sethvargo/go-limiter's httplimit, whose reset and Retry-After are HTTP dates, https://github.com/sethvargo/go-limiter/blob/main/httplimit/middleware.go): X-RateLimit-Limit/-Remaining/-Reset and Retry-After (the window), then Go's http.Error(w, \"Too Many Requests\", 429) (text/plain; charset=utf-8, X-Content-Type-Options: nosniff). Go's http.Error alone, without the limiter's headers, says only that a Go program answered (Traefik and Caddy are Go too): no evidence of the layer"),
    app("aspnetcore.rate-limiter", "ASP.NET Core rate limiting middleware", 0.45,
      All(&[Status(429), BodyEmpty, Value("server", "kestrel")]),
      "https://github.com/dotnet/aspnetcore/blob/main/src/Middleware/RateLimiting/src/RateLimiterOptions.cs",
      "ASP.NET Core's RateLimiter rejects with RejectionStatusCode (503 by default, no body, no Retry-After unless OnRejected adds them); set to 429 it is an empty 429 with Server: Kestrel, the application's own server. Its default 503 carries nothing that says rate limit, so it stays unattributed"),
    app("laravel.too-many-attempts", "Laravel", 0.5,
      Body("\"message\":\"too many attempts.\""),
      "https://laravel.com/docs/routing#rate-limiting",
      "Laravel's ThrottleRequests middleware (ThrottleRequestsException): {\"message\": \"Too Many Attempts.\"}"),
    app("echo.rate-limiter", "Echo RateLimiter (Go)", 0.5,
      BodyIs("{\"message\":\"rate limit exceeded\"}"),
      "https://github.com/labstack/echo/blob/master/middleware/rate_limiter.go",
      "Echo's RateLimiter middleware denies with ErrRateLimitExceeded = echo.NewHTTPError(429, \"rate limit exceeded\"), which Echo's default error handler writes as {\"message\":\"rate limit exceeded\"} (v5's memory store adds X-RateLimit-Limit/-Remaining and Retry-After)"),
    app("ulule-limiter.default", "ulule/limiter (Go)", 0.5,
      All(&[BodyIs("limit exceeded"), Has("x-ratelimit-limit")]),
      "https://github.com/ulule/limiter/blob/master/drivers/middleware/stdlib/options.go",
      "ulule/limiter's DefaultLimitReachedHandler: http.Error(w, \"Limit exceeded\", 429), after the middleware's X-RateLimit-Limit/-Remaining/-Reset"),
    app("fiber-limiter.default", "Fiber limiter (Go)", 0.45,
      All(&[BodyIs("too many requests"), Has("x-ratelimit-limit"), Has("retry-after"),
            Not(&Value("x-content-type-options", "nosniff"))]),
      "https://github.com/gofiber/fiber/blob/main/middleware/limiter/config.go",
      "Fiber's limiter middleware: LimitReached defaults to c.SendStatus(429), the bare status text \"Too Many Requests\", after X-RateLimit-Limit/-Remaining/-Reset and Retry-After (no nosniff: not Go's http.Error, which go-chi/httprate and sethvargo/go-limiter use)"),
    app("bucket4j-starter.default", "bucket4j-spring-boot-starter (Java)", 0.5,
      Body("{\"message\":\"too many requests!\"}"),
      "https://github.com/MarcGiffing/bucket4j-spring-boot-starter",
      "bucket4j-spring-boot-starter's default http-response-body { \"message\": \"Too many requests!\" } (application/json, with X-Rate-Limit-Retry-After-Seconds); Open VSX documents the same default for its rate limiter"),
    app("spring-boot.error-json", "Spring Boot error response (Java)", 0.45,
      All(&[Body("\"status\":429"), Body("\"error\":\"too many requests\""), Body("\"path\":\"")]),
      "https://github.com/spring-projects/spring-boot/blob/main/spring-boot-project/spring-boot/src/main/java/org/springframework/boot/web/error/DefaultErrorAttributes.java",
      "Spring Boot's default error body {\"timestamp\":…,\"status\":429,\"error\":\"Too Many Requests\",\"path\":…} (DefaultErrorAttributes), what a Resilience4j RequestNotPermitted or a ResponseStatusException(TOO_MANY_REQUESTS) becomes: the application's own error controller answered"),
    app("symfony.problem-json", "Symfony (RateLimiter, TooManyRequestsHttpException)", 0.5,
      All(&[Body("rfc2616#section-10"), Body("\"title\":\"an error occurred\""), Body("\"status\":429")]),
      "https://github.com/symfony/symfony/blob/7.3/src/Symfony/Component/Serializer/Normalizer/ProblemNormalizer.php",
      "Symfony's ProblemNormalizer writes an HttpException as {\"type\":\"https://tools.ietf.org/html/rfc2616#section-10\",\"title\":\"An error occurred\",\"status\":429,\"detail\":\"Too Many Requests\"} (the serializer error renderer, API Platform too), what the RateLimiter component's TooManyRequestsHttpException becomes: the PHP application answered"),
    app("boom.too-many-requests", "hapi Boom / Fastify error JSON (Node.js)", 0.4,
      // The @fastify/rate-limit row already speaks for its own message: not counted twice.
      All(&[Body("\"statuscode\":429"), Body("\"error\":\"too many requests\""), Not(&Body("rate limit exceeded, retry in "))]),
      "https://github.com/hapijs/boom/blob/master/lib/index.js",
      "Node.js frameworks' error payload {\"statusCode\":429,\"error\":\"Too Many Requests\",\"message\":…}: hapi's Boom.tooManyRequests (output.payload: statusCode, error = the status text, message; what hapi-rate-limit throws) and Fastify's default error serializer (a FastifyError with statusCode 429; @fastify/rate-limit's own message has its row): the application's framework answered"),
    app("rails.rate-limit", "Rails rate_limit (Ruby)", 0.4,
      All(&[Status(429), BodyEmpty, Value("x-permitted-cross-domain-policies", "none")]),
      "https://github.com/rails/rails/blob/main/actionpack/lib/action_controller/metal/rate_limiting.rb",
      "Rails' rate_limit refuses with `head :too_many_requests` (an empty 429) and the response still carries Rails' default headers (X-Permitted-Cross-Domain-Policies: none, config.action_dispatch.default_headers, https://guides.rubyonrails.org/configuring.html): the application answered; an edge's or proxy's own 429 does not carry the application's headers"),
];

/// A header the application's own stack (its framework or app server) writes and that an edge or
/// proxy answering on its own never carries: on a rate-limited response it is the origin's
/// voice even with no successful responses to compare. Origin evidence for layer `api`, counted
/// only when the host's baseline did not already name the origin's headers.
#[derive(Debug)]
pub struct OriginMarker {
    pub id: &'static str,
    /// The stack, for the evidence line.
    pub name: &'static str,
    pub weight: f64,
    pub when: M,
    pub source: &'static str,
    pub note: &'static str,
}

const fn origin(
    id: &'static str,
    name: &'static str,
    weight: f64,
    when: M,
    source: &'static str,
    note: &'static str,
) -> OriginMarker {
    OriginMarker {
        id,
        name,
        weight,
        when,
        source,
        note,
    }
}

#[rustfmt::skip]
pub static ORIGIN_MARKERS: &[OriginMarker] = &[
    origin("express.x-powered-by", "Express (Node.js)", 0.35, Value("x-powered-by", "express"),
      "https://expressjs.com/en/advanced/best-practice-security.html#reduce-fingerprinting",
      "Express sets X-Powered-By: Express on every response it sends (app.disable('x-powered-by') turns it off)"),
    origin("nextjs.x-powered-by", "Next.js", 0.35, Value("x-powered-by", "next.js"),
      "https://nextjs.org/docs/app/api-reference/config/next-config-js/poweredByHeader",
      "Next.js adds X-Powered-By: Next.js unless poweredByHeader is false"),
    origin("php.x-powered-by", "PHP", 0.35, Value("x-powered-by", "php/"),
      "https://www.php.net/manual/en/ini.core.php#ini.expose-php",
      "PHP adds X-Powered-By: PHP/x.y to what its scripts send when expose_php is on (the default build): a PHP script answered, not the web server's own page"),
    origin("aspnet.version-header", "ASP.NET", 0.35, Any(&[Has("x-aspnet-version"), Has("x-aspnetmvc-version")]),
      "https://learn.microsoft.com/en-us/dotnet/api/system.web.configuration.httpruntimesection.enableversionheader",
      "ASP.NET writes X-AspNet-Version (httpRuntime enableVersionHeader, on by default) and MVC X-AspNetMvc-Version from inside the application"),
    origin("rack.x-runtime", "Rack::Runtime (Ruby)", 0.35, Has("x-runtime"),
      "https://github.com/rack/rack/blob/main/lib/rack/runtime.rb",
      "Rack::Runtime sets X-Runtime to the seconds the Ruby application took: the request reached the application"),
    origin("uvicorn.server", "uvicorn (Python ASGI server)", 0.35, Value("server", "uvicorn"),
      "https://www.uvicorn.org/settings/#http",
      "uvicorn adds Server: uvicorn to every response unless --no-server-header; a proxy in front either overwrites it (nginx, Envoy) or, answering itself, never had it"),
    origin("gunicorn.server", "gunicorn (Python WSGI server)", 0.35, Value("server", "gunicorn"),
      "https://github.com/benoitc/gunicorn/blob/master/gunicorn/http/wsgi.py",
      "gunicorn's default headers carry Server: gunicorn (its SERVER_SOFTWARE) on every response its workers send"),
    origin("werkzeug.server", "Werkzeug development server (Python)", 0.35, Value("server", "werkzeug/"),
      "https://github.com/pallets/werkzeug/blob/main/src/werkzeug/serving.py",
      "Werkzeug's server sends Server: Werkzeug/x Python/y (its version_string) on every response"),
    origin("kestrel.server", "Kestrel (ASP.NET Core)", 0.3, Value("server", "kestrel"),
      "https://learn.microsoft.com/en-us/dotnet/api/microsoft.aspnetcore.server.kestrel.core.kestrelserveroptions.addserverheader",
      "Kestrel adds Server: Kestrel to every response while AddServerHeader is true (the default)"),
];

/// A cue about the kind of limit. Lower tiers win (fingerprints.md Part 1, Q1–Q6).
#[derive(Debug)]
pub struct Cue {
    pub id: &'static str,
    pub tier: u8,
    pub when: M,
    pub quota: Option<Quota>,
    pub scope: Option<Scope>,
    pub source: &'static str,
    pub note: &'static str,
}

const fn c(
    id: &'static str,
    tier: u8,
    when: M,
    quota: Option<Quota>,
    scope: Option<Scope>,
    source: &'static str,
    note: &'static str,
) -> Cue {
    Cue {
        id,
        tier,
        when,
        quota,
        scope,
        source,
        note,
    }
}

/// Google's quota names are CamelCase tokens (`…PerMinute…`, `…PerDay…`); after lower-casing
/// and removing spaces, plain English ("100 requests per minute") reads the same, so the
/// Google cues also need Google's error schema.
const GOOGLE_QUOTA: M = Any(&[
    Body("resource_exhausted"),
    Body("quota_limit"),
    Body("quotaid"),
    Body("usagelimits"),
]);
const CONC: Option<Quota> = Some(Quota::Concurrency);
const DAILY: Option<Quota> = Some(Quota::Daily);
const TOKENS: Option<Quota> = Some(Quota::Tokens);

/// Tier 1: explicit reason fields; tier 5: wording. Tiers 2–4 (header names and windows, the
/// IETF policy, the size of the wait) and 6 (the product's limiter) are computed by the engine.
#[rustfmt::skip]
pub static CUES: &[Cue] = &[
    c("stripe.reason.concurrency", 1, Value("stripe-rate-limited-reason", "concurrency"), CONC, None, "[ST1]",
      "Stripe-Rate-Limited-Reason names a concurrency limit"),
    c("stripe.reason.resource", 1, Value("stripe-rate-limited-reason", "resource-specific"), RATE, Some(Scope::Resource),
      "[ST1]", "Stripe-Rate-Limited-Reason: resource-specific"),
    c("stripe.reason.rate", 1, Value("stripe-rate-limited-reason", "rate"), RATE, None, "[ST1]",
      "Stripe-Rate-Limited-Reason names a rate limit"),
    c("stripe.lock-timeout", 1, Body("another api request or stripe process"), CONC, Some(Scope::Resource), "[ST1]",
      "Stripe lock_timeout: another request holds the same object"),
    c("jira.burst", 1, Value("ratelimit-reason", "jira-burst-based"), RATE, None, "[J1]", "RateLimit-Reason: burst"),
    c("jira.per-issue", 1, Value("ratelimit-reason", "per-issue"), RATE, Some(Scope::Resource), "[J1]",
      "RateLimit-Reason: per-issue writes"),
    c("jira.quota", 1, Any(&[Value("ratelimit-reason", "quota"), Value("x-beta-ratelimit-reason", "quota")]), DAILY, None,
      "[J1]", "RateLimit-Reason: tenant quota (points allowance)"),
    c("hubspot.daily", 1, Body("\"policyname\":\"daily\""), DAILY, None, "[HS1]", "HubSpot policyName DAILY"),
    c("hubspot.secondly", 1, Any(&[Body("secondly_rolling"), Body("\"policyname\":\"secondly\"")]), RATE, None, "[HS1]",
      "HubSpot policyName (TEN_)SECONDLY(_ROLLING)"),
    c("discord.scope.user", 1, Value("x-ratelimit-scope", "user"), RATE, Some(Scope::User), "[D1]",
      "X-RateLimit-Scope: user (per-user route bucket)"),
    c("discord.scope.global", 1, Value("x-ratelimit-scope", "global"), RATE, Some(Scope::App), "[D1]",
      "X-RateLimit-Scope: global (the bot/app's global limit)"),
    c("discord.scope.shared", 1, Value("x-ratelimit-scope", "shared"), RATE, Some(Scope::Resource), "[D1]",
      "X-RateLimit-Scope: shared (a shared resource's limit)"),
    c("openai.insufficient-quota", 1, Body("insufficient_quota"), DAILY, Some(Scope::App), "[O1]",
      "insufficient_quota: billing credit exhausted; do not retry"),
    c("openai.type-tokens", 1, Any(&[Body("\"type\":\"tokens\""), Body("tokens per min (tpm)"), Body("tokens per day (tpd)")]), TOKENS,
      Some(Scope::App), "[O1]", "OpenAI error type tokens (TPM/TPD): a token budget"),
    c("openai.per-day", 1, Body("requests per day (rpd)"), DAILY, Some(Scope::App), "[O1]",
      "OpenAI requests-per-day limit: an allowance until the day rolls over"),
    c("openai.type-requests", 1, Any(&[Body("\"type\":\"requests\""), Body("requests per min (rpm)")]), RATE, Some(Scope::App),
      "[O1]", "OpenAI error type requests (RPM)"),
    c("anthropic.spend-limit", 1, Any(&[Body("enforced_spend_limit_reached"), Body("spend limit")]), DAILY, None, "[AN1]",
      "Anthropic spend limit reached: billing, not retryable"),
    c("google.per-day", 1, Any(&[All(&[Body("perday"), GOOGLE_QUOTA]), Body("\"reason\":\"dailylimitexceeded\"")]), DAILY, None,
      "[GG1]", "Google quota name / reason says per day"),
    c("google.tokens", 1, All(&[Body("resource_exhausted"), Body("tokens")]), TOKENS, None, "[GG1]",
      "Google quota name counts tokens"),
    c("google.per-user", 1, Body("\"reason\":\"userratelimitexceeded\""), RATE, Some(Scope::User), "[GG1]",
      "Google reason userRateLimitExceeded"),
    c("google.per-minute", 1, Any(&[All(&[Body("perminute"), GOOGLE_QUOTA]), Body("\"reason\":\"ratelimitexceeded\"")]), RATE,
      None, "[GG1]", "Google quota name / reason says per minute"),
    c("salesforce.concurrent", 1, All(&[Body("concurrentrequests"), Body("request_limit_exceeded")]), CONC, None, "[SF1]",
      "Salesforce ConcurrentRequests limit"),
    c("salesforce.total", 1, All(&[Body("totalrequests"), Body("request_limit_exceeded")]), DAILY, None, "[SF1]",
      "Salesforce TotalRequests (rolling 24 h)"),
    c("twilio.20429", 1, All(&[Body("20429"), Any(&[Body("twilio"), NamePrefix("twilio-")])]), CONC, None, "[TW1]",
      "Twilio 20429: too many concurrent requests"),
    c("apigee.spike-arrest", 1, Any(&[Body("spikearrestviolation"), Body("spike arrest violation")]), RATE, None, "[P9]",
      "Apigee SpikeArrest"),
    c("apigee.quota", 1, Any(&[Body("quotaviolation"), Body("rate limit quota violation")]), DAILY, None, "[P9]",
      "Apigee Quota policy (allowance over minute/hour/day/month)"),
    c("github.secondary", 1, Body("secondary rate limit"), RATE, None, "[H1]", "GitHub secondary rate limit"),
    c("aws-api-gateway.quota", 1, All(&[Value("x-amzn-errortype", "limitexceededexception"), NOT_AWS_SERVICE]), DAILY, Some(Scope::Key), "[P7]",
      "API Gateway usage-plan quota (per API key, day/week/month)"),
    c("aws-api-gateway.throttle", 1, All(&[Value("x-amzn-errortype", "toomanyrequestsexception"), NOT_AWS_SERVICE]), RATE, None, "[P7]",
      "API Gateway throttle (rate/burst)"),
    c("aws-api-gateway.quota-body", 1, All(&[BodyIs("{\"message\":\"limit exceeded\"}"), NOT_AWS_SERVICE]), DAILY, Some(Scope::Key),
      "https://docs.aws.amazon.com/apigateway/latest/developerguide/supported-gateway-response-types.html",
      "API Gateway's QUOTA_EXCEEDED body \"Limit Exceeded\": the usage plan's per-key day/week/month quota"),
    c("alibaba.domain-daily", 1, Value("x-ca-error-message", "throttled by domain flow control"), DAILY, None,
      "https://developer.aliyun.com/ask/278260",
      "Alibaba Cloud API Gateway's default second-level domain allows 1,000 calls a day: a daily allowance"),
    c("alibaba.quota", 1, Any(&[Value("x-ca-error-message", "quota exhausted"), Value("x-ca-error-message", "quota expired")]), DAILY, Some(Scope::App),
      "https://developer.aliyun.com/ask/278260",
      "Alibaba Cloud API Gateway: the bought call quota is used up or expired"),
    c("alibaba.user-flow", 1, Value("x-ca-error-message", "throttled by user flow control"), RATE, Some(Scope::User),
      "https://developer.aliyun.com/ask/278260",
      "Alibaba Cloud API Gateway's per-user flow control"),
    c("alibaba.app-flow", 1, Value("x-ca-error-message", "throttled by app flow control"), RATE, Some(Scope::App),
      "https://developer.aliyun.com/ask/278260",
      "Alibaba Cloud API Gateway's per-application (AppKey) flow control"),
    c("alibaba.api-flow", 1, Any(&[Value("x-ca-error-message", "throttled by api flow control"), Value("x-ca-error-message", "throttled by group flow control")]), RATE, None,
      "https://developer.aliyun.com/ask/278260",
      "Alibaba Cloud API Gateway's per-API / per-group flow control"),
    c("azure-apim.quota", 1, Any(&[Body("out of call volume quota"), Body("out of bandwidth quota")]), DAILY, None, "[P8]",
      "APIM quota policy"),
    c("azure-apim.rate", 1, Body("rate limit is exceeded. try again in"), RATE, None, "[P8]", "APIM rate-limit policy"),
    c("tyk.quota", 1, Body("{\"error\": \"quota exceeded\"}"), DAILY, Some(Scope::Key), "[P10]",
      "Tyk quota (per key allowance), status 403"),
    c("traefik.inflight", 1, Body("max connections reached"), CONC, None, "[P5]", "Traefik InFlightReq (concurrency)"),
    c("ietf.concurrency", 1, Value("ratelimit-policy", "concurrent-requests"), CONC, None, "[S3]",
      "RateLimit-Policy qu=concurrent-requests"),
    c("vercel.function-throttled", 1, Any(&[Value("x-vercel-error", "function_throttled"), Body("code: function_throttled")]), CONC, None,
      "https://vercel.com/docs/functions/concurrency-scaling",
      "Vercel FUNCTION_THROTTLED: the functions' burst concurrency limit (1000 concurrent executions per 10 s per region), not a request quota"),
    c("cloudflare.workers-daily", 1, Any(&[Body("error code: 1027"), Body("error 1027"), Body("\"error_code\":1027")]), DAILY, Some(Scope::App),
      "https://developers.cloudflare.com/workers/platform/limits/",
      "Cloudflare 1027: the Workers Free plan's daily request allowance is used up (resets 00:00 UTC); pacing does not bring it back"),
    c("zoom.daily", 1, Value("x-ratelimit-type", "daily"), DAILY, None, "https://developers.zoom.us/docs/commerce/rate-limits/",
      "Zoom's X-RateLimit-Type: Daily-limit (the request type's daily allowance)"),
    c("x.app", 1, NamePrefix("x-app-limit-24hour"), None, Some(Scope::App), "[X1]", "X per-app 24-hour limit headers"),
    c("x.user", 1, NamePrefix("x-user-limit-24hour"), None, Some(Scope::User), "[X1]", "X per-user 24-hour limit headers"),
    c("iis.dynamic-ip-concurrent", 1, Any(&[Body("concurrent request rate limit reached"), All(&[Body("detailed error - "), Body(".501 - ")]),
                                            LogField("sc-substatus=501")]),
      CONC, Some(Scope::Ip), "https://learn.microsoft.com/en-us/troubleshoot/developer/webapps/iis/www-administration-management/http-status-code",
      "IIS Dynamic IP Restrictions substatus 501: too many concurrent requests from one client IP"),
    c("iis.dynamic-ip-rate", 1, Any(&[Body("maximum request rate limit reached"), All(&[Body("detailed error - "), Body(".502 - ")]),
                                      LogField("sc-substatus=502")]),
      RATE, Some(Scope::Ip), "https://learn.microsoft.com/en-us/troubleshoot/developer/webapps/iis/www-administration-management/http-status-code",
      "IIS Dynamic IP Restrictions substatus 502: too many requests from one client IP in the configured interval"),
    c("aspnetcoreratelimit.short-period", 1,
      All(&[Body("quota exceeded! maximum admitted"),
            Any(&[Body("s."), Body("m."), Body("h."), Body("per second"), Body("per minute"), Body("per hour")])]),
      RATE, None, "https://github.com/stefanprodan/AspNetCoreRateLimit/wiki/IpRateLimitMiddleware",
      "AspNetCoreRateLimit names the rule's period (1s, 15m, 12h): a rate window, whatever the word quota says"),
    c("aspnetcoreratelimit.long-period", 1,
      All(&[Body("quota exceeded! maximum admitted"), Any(&[Body("d."), Body("per day"), Body("per week")])]),
      DAILY, None, "https://github.com/stefanprodan/AspNetCoreRateLimit/wiki/IpRateLimitMiddleware",
      "AspNetCoreRateLimit's period in days (1d, 7d): an allowance until it rolls over"),
    c("google.vertex-generic", 1, Body("resource has been exhausted (e.g. check quota)"), RATE, None, "[GG1]",
      "Vertex AI's generic RESOURCE_EXHAUSTED: the per-minute shared quota"),
    // Tier 5: wording in the body. Order matters within the tier: a stated short window beats
    // the word "quota", which Google also uses for per-minute limits.
    c("wording.billing", 5, Any(&[Body("billing"), Body("credit balance"), Body("payment required")]), DAILY, None,
      "[Q5]", "billing / credit wording: an allowance, not a rate"),
    c("wording.concurrent", 5, Any(&[Body("concurrent"), Body("in flight"), Body("in-flight"), Body("simultaneous")]),
      CONC, None, "[Q5]", "concurrency wording"),
    c("wording.tokens", 5, Any(&[Body("tokens per"), Body("token rate"), Body("token limit"), Body("tokens limit")]),
      TOKENS, None, "[Q5]", "token-budget wording"),
    c("wording.short-window", 5, Any(&[Body("per second"), Body("per minute"), Body("per hour"), Body("per 10 seconds"),
                                       Body("requests/min"), Body("req/s")]),
      RATE, None, "[Q5]", "a short window stated in the body"),
    c("wording.daily", 5, Any(&[Body("per day"), Body("daily"), Body("per month"), Body("monthly"), Body("quota")]), DAILY,
      None, "[Q5]", "allowance wording (per day / monthly / quota)"),
    c("wording.rate", 5, Any(&[Body("requests per"), Body("rate limit"), Body("slow down"), Body("throttl")]),
      RATE, None, "[Q5]", "rate wording"),
];
