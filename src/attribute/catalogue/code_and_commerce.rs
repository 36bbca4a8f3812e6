//! Catalogue rows: Source hosting, chat, payments and commerce.

use super::*;

#[rustfmt::skip]
pub(super) static PROVIDERS: &[Provider] = &[
    // ------------------------------------------------------------------ source hosting
    provider! {
        vendor: "github", name: "GitHub", category: SourceHosting, quota: Rate,
        hosts: ["api.github.com", "uploads.github.com", "github.com", "raw.githubusercontent.com",
                "objects.githubusercontent.com", "codeload.github.com", "gist.githubusercontent.com"],
        family: "x-ratelimit-limit/-remaining/-used/-reset (epoch s) + x-ratelimit-resource; retry-after on secondary limits",
        source: "https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api",
        markers: [
            ("github.resource", 0.9, Has("x-ratelimit-resource"), "", "x-ratelimit-resource names a GitHub rate-limit bucket"),
            ("github.request-id", 0.8, Has("x-github-request-id"), "", "x-github-request-id is sent by GitHub's API itself"),
            ("github.body", 0.75, Any(&[Body("docs.github.com/rest"), Body("secondary rate limit")]), "",
             "GitHub rate-limit message pointing at its docs"),
        ],
        messages: [
            ("github.msg.primary", 0.8, "API rate limit exceeded for", RATE, NOS,
             "primary limit: requests per hour per user, app or IP (60 unauthenticated, 5,000 authenticated)"),
        ],
    },
    provider! {
        vendor: "gitlab", name: "GitLab", category: SourceHosting, quota: Rate,
        hosts: ["gitlab.com", "registry.gitlab.com"],
        family: "RateLimit-Name/-Limit/-Observed/-Remaining/-Reset (epoch) + RateLimit-ResetTime (HTTP-date), Retry-After",
        source: "https://docs.gitlab.com/ee/security/rate_limits.html",
        markers: [
            ("gitlab.headers", 0.85, Any(&[Has("ratelimit-name"), Has("ratelimit-observed"), Has("ratelimit-resettime"), Has("x-gitlab-meta")]), "",
             "GitLab RateLimit-Name/-Observed/-ResetTime"),
        ],
        messages: [],
    },
    provider! {
        vendor: "bitbucket", name: "Bitbucket Cloud", category: SourceHosting, quota: Rate,
        hosts: ["api.bitbucket.org", "bitbucket.org"],
        family: "X-RateLimit-Limit/-Remaining (rolling one-hour window), Retry-After on 429",
        source: "https://support.atlassian.com/bitbucket-cloud/docs/api-request-limits/",
        markers: [],
        messages: [],
    },
    // ------------------------------------------------------------------ chat
    provider! {
        vendor: "slack", name: "Slack", category: Chat, quota: Rate,
        hosts: ["slack.com", "*.slack.com", "hooks.slack.com"],
        family: "Retry-After only (per-method tiers: 1+/20+/50+/100+ per minute per workspace per app)",
        source: "https://docs.slack.dev/apis/web-api/rate-limits",
        markers: [
            ("slack.body", 0.9, Body("\"error\":\"ratelimited\""), "", "Slack Web API error ratelimited"),
            ("slack.headers", 0.85, Any(&[Has("x-slack-req-id"), Has("x-slack-backend"), Has("x-slack-unique-id")]), "",
             "X-Slack-* headers come from Slack's API"),
        ],
        messages: [],
    },
    provider! {
        vendor: "discord", name: "Discord", category: Chat, quota: Rate,
        hosts: ["discord.com", "discordapp.com", "*.discord.com"],
        family: "X-RateLimit-Limit/-Remaining/-Reset/-Reset-After/-Bucket; -Scope and -Global on 429 only",
        source: "https://docs.discord.com/developers/topics/rate-limits",
        markers: [
            ("discord.headers", 0.9, Any(&[Has("x-ratelimit-bucket"), Has("x-ratelimit-scope"), Has("x-ratelimit-global")]), "",
             "X-RateLimit-Bucket/-Scope/-Global are Discord's"),
            ("discord.body", 0.85, All(&[Body("you are being rate limited"), Body("\"global\"")]), "",
             "Discord 429 body (message, retry_after, global)"),
        ],
        messages: [],
    },
    provider! {
        vendor: "telegram", name: "Telegram Bot API", category: Chat, quota: Rate,
        hosts: ["api.telegram.org"],
        family: "none; parameters.retry_after (seconds) in the body",
        source: "https://core.telegram.org/bots/api#responseparameters",
        markers: [
            ("telegram.body", 0.85, All(&[Body("\"error_code\":429"), Body("\"retry_after\"")]), "",
             "Bot API error object: error_code 429 with parameters.retry_after"),
        ],
        messages: [
            ("telegram.msg.retry-after", 0.75, "Too Many Requests: retry after", RATE, NOS, "Telegram's flood control (limits are unspecified, per chat and per bot)"),
        ],
    },
    provider! {
        vendor: "microsoft-graph", name: "Microsoft Graph", category: Chat, quota: Rate,
        hosts: ["graph.microsoft.com", "graph.microsoft.us", "microsoftgraph.chinacloudapi.cn"],
        family: "Retry-After (seconds); no remaining/limit headers on most workloads",
        source: "https://learn.microsoft.com/graph/throttling",
        markers: [
            ("microsoft-graph.headers", 0.85, Any(&[Has("x-ms-ags-diagnostic"), Has("x-ms-resource-unit"), Has("x-ms-throttle-limit-percentage")]), "",
             "Microsoft Graph diagnostic headers"),
            ("microsoft-graph.body", 0.8, Any(&[Body("activitylimitreached"), Body("throttledrequest"), Body("the request has been throttled")]), "",
             "Microsoft Graph throttling error"),
        ],
        messages: [
            ("microsoft-graph.msg.too-many", 0.75, "Too many requests from Identifier:", RATE, NOS,
             "Graph's throttle error (code TooManyRequests) naming the throttled category"),
        ],
    },
    // ------------------------------------------------------------------ payments
    // ------------------------------------------------------------------ (chat, continued)
    provider! {
        vendor: "zoom", name: "Zoom API", category: Chat, quota: Rate,
        hosts: ["api.zoom.us", "zoom.us/oauth/"],
        family: "X-RateLimit-Category (Light/Medium/Heavy/Resource-intensive), X-RateLimit-Type (QPS or daily), X-RateLimit-Limit/-Remaining, Retry-After",
        source: "https://developers.zoom.us/docs/commerce/rate-limits/",
        markers: [
            ("zoom.headers", 0.85, Any(&[Has("x-ratelimit-category"), Has("x-zm-trackingid")]), "",
             "X-RateLimit-Category names the Zoom API's request type"),
        ],
        messages: [
            ("zoom.msg.per-second", 0.85, "You have reached the maximum per-second rate limit for this API", RATE, APP,
             "the account's requests per second for this request type"),
            ("zoom.msg.daily", 0.85, "You have reached the maximum daily rate limit for this API", DAILY, APP, "the account's daily limit for this request type"),
        ],
    },
    provider! {
        vendor: "stripe", name: "Stripe", category: Payments, quota: Rate,
        hosts: ["api.stripe.com", "files.stripe.com", "connect.stripe.com"],
        family: "no rate-limit headers; Stripe-Rate-Limited-Reason and Stripe-Should-Retry on 429",
        source: "https://docs.stripe.com/rate-limits",
        markers: [
            ("stripe.headers", 0.9, Any(&[Has("stripe-rate-limited-reason"), Has("stripe-should-retry"), Has("stripe-version")]), "",
             "Stripe-* response headers come from Stripe's API"),
            ("stripe.body", 0.85, Any(&[Body("too many requests hit the api too quickly"), Body("another api request or stripe process")]), "",
             "Stripe rate-limit / lock_timeout message"),
        ],
        messages: [],
    },
    provider! {
        vendor: "paypal", name: "PayPal", category: Payments, quota: Rate,
        hosts: ["api-m.paypal.com", "api.paypal.com", "api-m.sandbox.paypal.com", "api.sandbox.paypal.com"],
        family: "none (limits unpublished); PayPal-Debug-Id on every response",
        source: "https://developer.paypal.com/api/rest/reference/rate-limiting",
        markers: [
            ("paypal.debug-id", 0.8, Has("paypal-debug-id"), "", "PayPal-Debug-Id is on every PayPal REST response"),
        ],
        messages: [
            ("paypal.msg.rate-limit-reached", 0.8, "RATE_LIMIT_REACHED", RATE, NOS,
             "PayPal's temporary rate limit on traffic that looks anomalous (limits are not published)"),
            ("paypal.msg.failed-attempts", 0.8, "Your request has been blocked due to multiple failed attempts", RATE, NOS,
             "Payouts' block after repeated failed attempts (RATE_LIMIT_VALIDATION_FAILURES)"),
        ],
    },
    provider! {
        vendor: "adyen", name: "Adyen", category: Payments, quota: Rate,
        hosts: ["*.adyen.com", "*.adyenpayments.com"],
        family: "none; errorCode 00_500 with detail \"too many requests\"",
        source: "https://docs.adyen.com/errors/internal",
        markers: [
            ("adyen.too-many", 0.8, All(&[Body("00_500"), Body("too many requests")]), "",
             "Adyen's internal error 00_500 whose detail says too many requests: its rate limit"),
        ],
        messages: [],
    },
    provider! {
        vendor: "square", name: "Square", category: Payments, quota: Rate,
        hosts: ["connect.squareup.com", "connect.squareupsandbox.com"],
        family: "none (limits unpublished)",
        source: "https://developer.squareup.com/docs/build-basics/handling-errors",
        markers: [
            ("square.rate-limited", 0.85, All(&[Body("\"code\":\"rate_limited\""), Body("rate_limit_error")]), "",
             "Square error object: code RATE_LIMITED, category RATE_LIMIT_ERROR"),
        ],
        messages: [
            ("square.msg.rate-limited", 0.75, "This request was rate limited. Please retry later", RATE, NOS, "Square's rate limit (limits are not published)"),
        ],
    },
    provider! {
        vendor: "checkout-com", name: "Checkout.com", category: Payments, quota: Rate,
        hosts: ["api.checkout.com", "api.sandbox.checkout.com", "*.api.checkout.com"],
        family: "none; 100 read and 100 write requests per second per account",
        source: "https://www.checkout.com/docs/developer-resources/api/api-rate-limits",
        markers: [],
        messages: [],
    },
    provider! {
        vendor: "klarna", name: "Klarna", category: Payments, quota: Rate,
        hosts: ["api.klarna.com", "api-na.klarna.com", "api-oc.klarna.com", "api.playground.klarna.com", "api-na.playground.klarna.com"],
        family: "rate-limit headers with the remaining quota; limits per merchant_id and operation",
        source: "https://docs.klarna.com/api-reference/rate-limit",
        markers: [],
        messages: [],
    },
    provider! {
        vendor: "paddle", name: "Paddle", category: Payments, quota: Rate,
        hosts: ["api.paddle.com", "sandbox-api.paddle.com"],
        family: "Retry-After on 429",
        source: "https://developer.paddle.com/errors/shared/too_many_requests",
        markers: [
            ("paddle.docs-link", 0.85, Body("developer.paddle.com/errors/shared/too_many_requests"), "", "Paddle's error links its own too_many_requests page"),
        ],
        messages: [
            ("paddle.msg.ip-rate", 0.85, "IP address exceeded the allowed rate limit", RATE, IP, "Paddle's per-IP rate limit"),
        ],
    },
    // ------------------------------------------------------------------ commerce
    provider! {
        vendor: "shopify", name: "Shopify", category: Commerce, quota: Rate,
        hosts: ["*.myshopify.com", "partners.shopify.com"],
        family: "X-Shopify-Shop-Api-Call-Limit: 32/40 (REST leaky bucket), Retry-After; GraphQL extensions.cost.throttleStatus",
        source: "https://shopify.dev/docs/api/admin-rest/usage/rate-limits",
        markers: [
            ("shopify.headers", 0.9, Any(&[Has("x-shopify-shop-api-call-limit"), NamePrefix("x-shopify-"), Has("x-shopid")]), "",
             "X-Shopify-* headers come from Shopify's API"),
            ("shopify.body", 0.8, Any(&[Body("calls per second for api client"), Body("\"code\":\"throttled\"")]), "",
             "Shopify throttle message"),
        ],
        messages: [],
    },
    provider! {
        vendor: "bigcommerce", name: "BigCommerce", category: Commerce, quota: Rate,
        hosts: ["api.bigcommerce.com", "*.mybigcommerce.com"],
        family: "X-Rate-Limit-Requests-Left, -Requests-Quota, -Time-Window-Ms, -Time-Reset-Ms (milliseconds)",
        source: "https://docs.bigcommerce.com/developer/docs/overview/api-fundamentals/rate-limits",
        markers: [
            ("bigcommerce.headers", 0.85, Any(&[Has("x-rate-limit-time-reset-ms"), Has("x-rate-limit-requests-left"), Has("x-rate-limit-time-window-ms")]), "",
             "X-Rate-Limit-Time-Reset-Ms / -Requests-Left / -Time-Window-Ms are BigCommerce's quota headers"),
        ],
        messages: [],
    },
    provider! {
        vendor: "etsy", name: "Etsy", category: Commerce, quota: Rate,
        hosts: ["openapi.etsy.com", "api.etsy.com"],
        family: "x-limit-per-second, x-remaining-this-second, x-limit-per-day, x-remaining-today (24-hour sliding window)",
        source: "https://developers.etsy.com/documentation/essentials/rate-limits",
        markers: [
            ("etsy.headers", 0.85, Any(&[Has("x-remaining-this-second"), Has("x-remaining-today"), Has("x-limit-per-day")]), "",
             "x-remaining-this-second / x-remaining-today are Etsy's per-second and per-day allowance headers"),
        ],
        messages: [],
    },
];
