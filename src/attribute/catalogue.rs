//! The provider catalogue: the public APIs and platforms people call most, one row each, with
//! the hosts they answer on, their rate-limit header family, the markers only they send, the
//! documented 429 (or rate-limit 403) wording and the kind of limit each message means, and the
//! source every fact was taken from (the vendor's documentation or the producer's source).
//!
//! Why a catalogue and not more rules: when the layer that answered is the API, the vendor is
//! the API's owner, and for most APIs the host says who that is. A known host is evidence, but
//! weaker than a vendor header or body: a CDN's own error page on `api.example.com` is still the
//! CDN (the engine weighs it; see docs/attribution.md, "Provider catalogue").
//!
//! Rows are data. `markers` are rules like those of `rules.rs` (layer `api`, this vendor);
//! `messages` are the documented stock wording, matched case-insensitively, each both a marker
//! and a tier-1 quota cue that applies when this vendor is the verdict.

use super::matcher::glob;
use super::matcher::M::*;
use super::rules::{Cue, Proves, Rule};
use super::{Layer, Quota, Scope};

/// What kind of service a provider is, for the docs table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Category {
    SourceHosting,
    Chat,
    Payments,
    Commerce,
    Ai,
    Cloud,
    Crm,
    Social,
    Media,
    Registry,
    Certificates,
    Messaging,
    Maps,
    Productivity,
    Identity,
    Observability,
    Finance,
    Data,
    Platform,
}

impl Category {
    pub fn as_str(&self) -> &'static str {
        match self {
            Category::SourceHosting => "source hosting",
            Category::Chat => "chat",
            Category::Payments => "payments",
            Category::Commerce => "commerce",
            Category::Ai => "AI",
            Category::Cloud => "cloud APIs",
            Category::Crm => "CRM and support",
            Category::Social => "social",
            Category::Media => "media",
            Category::Registry => "registries",
            Category::Certificates => "certificates",
            Category::Messaging => "messaging",
            Category::Maps => "maps and geocoding",
            Category::Productivity => "productivity",
            Category::Identity => "identity",
            Category::Observability => "observability",
            Category::Finance => "finance and crypto",
            Category::Data => "data and reference",
            Category::Platform => "platform edges",
        }
    }
}

/// One documented message: the stock wording (as the vendor writes it; matched
/// case-insensitively, JSON spacing ignored) and the kind of limit it means.
#[derive(Debug)]
pub struct Message {
    pub id: &'static str,
    pub text: &'static str,
    pub quota: Option<Quota>,
    pub scope: Option<Scope>,
    pub note: &'static str,
}

#[derive(Debug)]
pub struct Provider {
    /// Slug (NOTES.md "VENDOR SLUG CONVENTION").
    pub vendor: &'static str,
    pub name: &'static str,
    pub category: Category,
    /// Host patterns: `api.stripe.com` exactly, `*` for any run of characters
    /// (`*.slack.com`, `*-aiplatform.googleapis.com`), and an optional path prefix after the
    /// host (`www.googleapis.com/youtube/`). The most specific matching pattern wins.
    pub hosts: &'static [&'static str],
    /// The rate-limit header family the API sends (for the docs and the reader of a verdict).
    pub family: &'static str,
    /// The API's limiter kind when the response says nothing more specific (tier 6).
    pub quota: Quota,
    /// Where the row's facts come from.
    pub source: &'static str,
    /// Vendor-only markers and the messages, as rules (layer `api`, proves `Producer`).
    pub markers: &'static [Rule],
    /// The documented messages, as written.
    pub messages: &'static [Message],
    /// The messages as tier-1 quota cues.
    pub cues: &'static [Cue],
}

/// One catalogue row. `markers: [(id, weight, matcher, detail, note), ...]` are vendor-only headers or
/// bodies; `messages: [(id, weight, "stock wording", quota, scope, note), ...]` are documented
/// messages, each a marker and a quota cue.
macro_rules! provider {
    (
        vendor: $vendor:literal, name: $name:literal, category: $cat:ident, quota: $quota:ident,
        hosts: [$($host:literal),* $(,)?],
        family: $family:literal,
        source: $source:literal,
        markers: [$(($id:literal, $w:literal, $when:expr, $detail:literal, $note:literal)),* $(,)?],
        messages: [$(($mid:literal, $mw:literal, $text:literal, $mq:expr, $ms:expr, $mnote:literal)),* $(,)?] $(,)?
    ) => {
        Provider {
            vendor: $vendor,
            name: $name,
            category: Category::$cat,
            hosts: &[$($host),*],
            family: $family,
            quota: Quota::$quota,
            source: $source,
            markers: &[
                $(Rule {
                    id: $id, vendor: $vendor, layer: Layer::Api, proves: Proves::Producer,
                    weight: $w, when: $when, quota: Some(Quota::$quota), detail: $detail,
                    source: $source, note: $note,
                },)*
                $(Rule {
                    id: $mid, vendor: $vendor, layer: Layer::Api, proves: Proves::Producer,
                    weight: $mw, when: Text($text), quota: Some(Quota::$quota), detail: "",
                    source: $source, note: $mnote,
                },)*
            ],
            messages: &[$(Message { id: $mid, text: $text, quota: $mq, scope: $ms, note: $mnote },)*],
            cues: &[$(Cue {
                id: $mid, tier: 1, when: Text($text), quota: $mq, scope: $ms,
                source: $source, note: $mnote,
            },)*],
        }
    };
}

const RATE: Option<Quota> = Some(Quota::Rate);
const CONC: Option<Quota> = Some(Quota::Concurrency);
const DAILY: Option<Quota> = Some(Quota::Daily);
const TOKENS: Option<Quota> = Some(Quota::Tokens);
const NOQ: Option<Quota> = None;
const NOS: Option<Scope> = None;
const IP: Option<Scope> = Some(Scope::Ip);
const USER: Option<Scope> = Some(Scope::User);
const APP: Option<Scope> = Some(Scope::App);
const KEY: Option<Scope> = Some(Scope::Key);
const RESOURCE: Option<Scope> = Some(Scope::Resource);

/// Does `pattern` (host glob, optional `/path-prefix`) match this host and path? Returns its
/// specificity (literal characters), the most specific match naming the owner.
fn pattern_match(pattern: &str, host: &str, path: &str) -> Option<usize> {
    let (hp, pp) = match pattern.find('/') {
        Some(i) => (&pattern[..i], &pattern[i..]),
        None => (pattern, ""),
    };
    if !glob(hp.as_bytes(), host.as_bytes()) {
        return None;
    }
    if !pp.is_empty() && !path.to_ascii_lowercase().starts_with(pp) {
        return None;
    }
    Some(pattern.bytes().filter(|&c| c != b'*').count())
}

/// Hosts on a vendor's domain that serve its customers' own APIs (a gateway, CDN or load
/// balancer name): they name no API owner.
pub static NOT_OWNED: &[&str] = &[
    "*.execute-api.*.amazonaws.com",
    "*.elb.amazonaws.com",
    "*.lambda-url.*.on.aws",
    "*.cloudfront.net",
    "*.azure-api.net",
    "*.azurefd.net",
    "*.azurewebsites.net",
    "*.azurecontainerapps.io",
    "*.apigee.net",
    "*.run.app",
    "*.appspot.com",
    "*.cloudfunctions.net",
    "*.herokuapp.com",
    "*.vercel.app",
    "*.netlify.app",
    "*.workers.dev",
    "*.pages.dev",
    "*.fly.dev",
    "*.onrender.com",
    "*.up.railway.app",
];

/// The provider whose documented API host this is (most specific pattern wins), with the
/// pattern that matched.
pub fn owner(host: &str, path: &str) -> Option<(&'static Provider, &'static str)> {
    if host.is_empty()
        || NOT_OWNED
            .iter()
            .any(|p| glob(p.as_bytes(), host.as_bytes()))
    {
        return None;
    }
    let mut best: Option<(usize, &'static Provider, &'static str)> = None;
    for p in PROVIDERS {
        for pat in p.hosts {
            if let Some(score) = pattern_match(pat, host, path) {
                if best.is_none_or(|(b, _, _)| score > b) {
                    best = Some((score, p, pat));
                }
            }
        }
    }
    best.map(|(_, p, pat)| (p, pat))
}

/// Products of a larger vendor whose generic markers they share: when both score at the same
/// layer, the product's evidence absorbs the parent's (a Gemini quota error is also a Google API
/// error; it is not a second candidate).
pub static PARENTS: &[(&str, &str)] = &[
    ("google-gemini", "google"),
    ("google-vertex-ai", "google"),
    ("google-maps", "google"),
    ("youtube", "google"),
    ("aws-bedrock", "aws"),
    ("github-packages", "github"),
];

/// The parent vendor of a product, if it has one.
pub fn parent(vendor: &str) -> Option<&'static str> {
    PARENTS.iter().find(|(c, _)| *c == vendor).map(|(_, p)| *p)
}

/// The catalogue row of a vendor slug.
pub fn find(vendor: &str) -> Option<&'static Provider> {
    PROVIDERS.iter().find(|p| p.vendor == vendor)
}

#[rustfmt::skip]
pub static PROVIDERS: &[Provider] = &[
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
    // ------------------------------------------------------------------ AI
    provider! {
        vendor: "openai", name: "OpenAI", category: Ai, quota: Rate,
        hosts: ["api.openai.com"],
        family: "x-ratelimit-limit/-remaining/-reset-requests and -tokens (Go durations: 1s, 6m0s)",
        source: "https://platform.openai.com/docs/guides/error-codes",
        markers: [
            ("openai.headers", 0.9, Any(&[Has("openai-organization"), Has("openai-processing-ms"), Has("openai-version"), Has("openai-project")]), "",
             "openai-* headers come from OpenAI's API itself"),
            ("openai.body", 0.8, Any(&[All(&[Body("rate limit reached for"), Body("organization")]), Body("platform.openai.com"), Body("insufficient_quota")]), "",
             "OpenAI rate-limit / quota error message"),
        ],
        messages: [],
    },
    provider! {
        vendor: "anthropic", name: "Anthropic", category: Ai, quota: Rate,
        hosts: ["api.anthropic.com"],
        family: "anthropic-ratelimit-requests/-tokens/-input-tokens/-output-tokens-limit/-remaining/-reset (RFC 3339), retry-after",
        source: "https://docs.claude.com/en/api/errors",
        markers: [
            ("anthropic.headers", 0.95, Any(&[NamePrefix("anthropic-ratelimit-"), Has("anthropic-organization-id")]), "",
             "anthropic-ratelimit-* / anthropic-organization-id come from Anthropic's API"),
            ("anthropic.body", 0.85, Any(&[Body("\"type\":\"rate_limit_error\""), Body("enforced_spend_limit_reached")]), "",
             "Anthropic error schema (type rate_limit_error)"),
        ],
        messages: [],
    },
    provider! {
        vendor: "azure-openai", name: "Azure OpenAI", category: Ai, quota: Rate,
        hosts: ["*.openai.azure.com", "*.cognitiveservices.azure.com", "*.services.ai.azure.com"],
        family: "x-ratelimit-remaining-requests/-tokens, retry-after and retry-after-ms (milliseconds)",
        source: "https://learn.microsoft.com/en-us/answers/questions/2140040/requests-to-the-chatcompletions-create-operation-u",
        markers: [
            ("azure-openai.quota-link", 0.85, Body("aka.ms/oai/quotaincrease"), "",
             "Azure OpenAI's throttle message links its quota-increase form"),
        ],
        messages: [
            ("azure-openai.msg.token-rate", 0.9, "have exceeded token rate limit of your current", TOKENS, NOS,
             "the deployment's tokens-per-minute allocation"),
            ("azure-openai.msg.operation", 0.8, "Operation under Azure OpenAI API version", NOQ, NOS,
             "Azure OpenAI's throttle message names the operation and API version"),
        ],
    },
    provider! {
        vendor: "google-gemini", name: "Google Gemini API", category: Ai, quota: Rate,
        hosts: ["generativelanguage.googleapis.com"],
        family: "none in headers; google.rpc QuotaFailure (quotaId …PerMinute… / …PerDay…) and RetryInfo in the body",
        source: "https://ai.google.dev/gemini-api/docs/rate-limits",
        markers: [
            ("google-gemini.docs-link", 0.85, Any(&[Body("ai.google.dev/gemini-api/docs/rate-limits"), Body("generativelanguage.googleapis.com/generate_content")]), "",
             "the Gemini API's quota error points at its own rate-limit page / quota metric"),
        ],
        messages: [],
    },
    provider! {
        vendor: "google-vertex-ai", name: "Google Vertex AI", category: Ai, quota: Rate,
        hosts: ["*-aiplatform.googleapis.com", "aiplatform.googleapis.com"],
        family: "none in headers; RESOURCE_EXHAUSTED with the quota metric in the message",
        source: "https://cloud.google.com/vertex-ai/generative-ai/docs/provisioned-throughput/error-code-429",
        markers: [
            ("google-vertex-ai.quota-metric", 0.8, Body("quota exceeded for aiplatform.googleapis.com/"), "",
             "Vertex AI names its quota metric (aiplatform.googleapis.com/…_per_minute…)"),
        ],
        messages: [
            ("google-vertex-ai.msg.shared", 0.7, "Resource exhausted, please try again later.", RATE, NOS,
             "pay-as-you-go: the shared pool had no capacity for the request (not your quota)"),
            ("google-vertex-ai.msg.provisioned", 0.85, "Exceeded the Provisioned Throughput", RATE, NOS,
             "requests beyond the purchased Provisioned Throughput"),
        ],
    },
    provider! {
        vendor: "mistral", name: "Mistral AI", category: Ai, quota: Rate,
        hosts: ["api.mistral.ai", "codestral.mistral.ai"],
        family: "x-ratelimit-limit/-remaining-requests and -tokens; Retry-After on 429",
        source: "https://docs.mistral.ai/deployment/ai-studio/tier",
        markers: [],
        messages: [],
    },
    provider! {
        vendor: "huggingface", name: "Hugging Face", category: Ai, quota: Rate,
        hosts: ["huggingface.co", "api-inference.huggingface.co", "router.huggingface.co", "*.hf.space", "*.endpoints.huggingface.cloud"],
        family: "RateLimit / RateLimit-Policy (IETF) on the Hub; none documented for Inference",
        source: "https://huggingface.co/mistralai/Mistral-7B-Instruct-v0.2/discussions/108",
        markers: [
            ("huggingface.pricing-link", 0.8, Body("huggingface.co/pricing"), "", "Hugging Face's limit message sends the caller to its pricing page"),
        ],
        messages: [
            ("huggingface.msg.free-usage", 0.9, "You reached free usage limit (reset hourly)", RATE, KEY,
             "the free Inference API allowance per token, reset hourly"),
        ],
    },
    provider! {
        vendor: "openrouter", name: "OpenRouter", category: Ai, quota: Rate,
        hosts: ["openrouter.ai"],
        family: "X-RateLimit-Limit/-Remaining/-Reset on the error response",
        source: "https://openrouter.ai/docs/api_reference/limits",
        markers: [
            ("openrouter.provider-metadata", 0.6, All(&[Body("\"metadata\""), Body("\"provider_name\"")]), "",
             "OpenRouter wraps an upstream provider's error with metadata.provider_name"),
        ],
        messages: [],
    },
    provider! {
        vendor: "cohere", name: "Cohere", category: Ai, quota: Rate,
        hosts: ["api.cohere.com", "api.cohere.ai"],
        family: "none documented; per-endpoint requests per minute, trial keys 1,000 calls a month",
        source: "https://docs.cohere.com/docs/rate-limits",
        markers: [],
        messages: [
            ("cohere.msg.per-minute", 0.85, "You are past the per minute request limit", RATE, NOS, "the endpoint's requests-per-minute limit"),
            ("cohere.msg.trial-key", 0.85, "You are using a Trial key, which is limited to", RATE, KEY, "the trial key's per-minute limit"),
            ("cohere.msg.trial-tokens", 0.85, "trial token rate limit exceeded", TOKENS, KEY, "the trial key's tokens-per-minute limit"),
        ],
    },
    provider! {
        vendor: "aws-bedrock", name: "Amazon Bedrock", category: Ai, quota: Rate,
        hosts: ["bedrock-runtime.*.amazonaws.com", "bedrock.*.amazonaws.com", "bedrock-agent-runtime.*.amazonaws.com"],
        family: "none; x-amzn-ErrorType: ThrottlingException, requests- and tokens-per-minute quotas per model and region",
        source: "https://repost.aws/knowledge-center/bedrock-throttling-error",
        markers: [],
        messages: [
            ("aws-bedrock.msg.requests", 0.85, "Too many requests, please wait before trying again", RATE, NOS, "the model's requests-per-minute quota"),
            ("aws-bedrock.msg.request-rate", 0.85, "Your request rate is too high. Reduce the frequency of requests", RATE, NOS, "the model's request-rate quota"),
            ("aws-bedrock.msg.tokens", 0.85, "Too many tokens, please wait before trying again", TOKENS, NOS, "the model's tokens-per-minute quota"),
        ],
    },
    provider! {
        vendor: "groq", name: "Groq", category: Ai, quota: Rate,
        hosts: ["api.groq.com"],
        family: "x-ratelimit-limit/-remaining/-reset-requests (per day) and -tokens (per minute); retry-after on 429",
        source: "https://console.groq.com/docs/rate-limits",
        markers: [
            ("groq.docs-link", 0.9, Body("console.groq.com/docs/rate-limits"), "", "Groq's rate-limit error links its own rate-limit page"),
        ],
        messages: [],
    },
    provider! {
        vendor: "deepseek", name: "DeepSeek API", category: Ai, quota: Concurrency,
        hosts: ["api.deepseek.com"],
        family: "none; no per-user rate limit, but concurrency limits per account and model under load",
        source: "https://platform.deepseek.com/api-docs/quick_start/rate_limit",
        markers: [],
        messages: [],
    },
    provider! {
        vendor: "replicate", name: "Replicate", category: Ai, quota: Rate,
        hosts: ["api.replicate.com"],
        family: "none; 600 prediction creations and 3,000 other requests per minute, stricter as prepaid credit runs low",
        source: "https://replicate.com/docs/topics/predictions/rate-limits",
        markers: [],
        messages: [
            ("replicate.msg.throttled", 0.85, "Request was throttled. Your rate limit resets in", RATE, KEY, "the account's requests per minute"),
        ],
    },
    provider! {
        vendor: "xai", name: "xAI API", category: Ai, quota: Rate,
        hosts: ["api.x.ai"],
        family: "per-model requests per second and tokens per minute per team, by spend tier",
        source: "https://docs.x.ai/developers/rate-limits",
        markers: [],
        messages: [],
    },
    provider! {
        vendor: "together", name: "Together AI", category: Ai, quota: Rate,
        hosts: ["api.together.xyz", "api.together.ai"],
        family: "per-model requests and tokens per minute per account tier",
        source: "https://docs.together.ai/docs/rate-limits",
        markers: [],
        messages: [],
    },
    provider! {
        vendor: "perplexity", name: "Perplexity API", category: Ai, quota: Rate,
        hosts: ["api.perplexity.ai"],
        family: "requests per minute per model, set by the account's usage tier (cumulative credit purchases)",
        source: "https://docs.perplexity.ai/guides/usage-tiers",
        markers: [],
        messages: [],
    },
    // ------------------------------------------------------------------ cloud APIs
    provider! {
        vendor: "google", name: "Google APIs", category: Cloud, quota: Rate,
        hosts: ["*.googleapis.com"],
        family: "none in headers; google.rpc ErrorInfo / QuotaFailure / RetryInfo (retryDelay) in the body",
        source: "https://cloud.google.com/docs/quota_detail/troubleshoot",
        markers: [
            ("google.resource-exhausted", 0.85, All(&[Any(&[Code("RESOURCE_EXHAUSTED"), Body("type.googleapis.com/google.rpc")]),
                                                     Any(&[Body("\"domain\":\"googleapis.com\""), Body("cloud.google.com"), Body("console.developers.google.com"),
                                                           Body("ai.google.dev"), Body("developers.google.com")])]), "",
             "Google API error status RESOURCE_EXHAUSTED / google.rpc details with Google's own domain (ErrorInfo domain googleapis.com, links to its consoles and docs)"),
            ("google.rpc-status", 0.4, Any(&[Code("RESOURCE_EXHAUSTED"), Body("type.googleapis.com/google.rpc")]), "",
             "gRPC's RESOURCE_EXHAUSTED status and google.rpc error details, as Google's APIs write them; every gRPC service and grpc-gateway writes the same, so alone they name no vendor against the host"),
            ("google.usage-limits", 0.85, Any(&[Body("\"domain\":\"usagelimits\""), Body("\"reason\":\"userratelimitexceeded\""),
                                               Body("\"reason\":\"dailylimitexceeded\""), Body("\"reason\":\"ratelimitexceeded\""),
                                               Body("\"reason\":\"quotaexceeded\"")]), "",
             "legacy Google API errors (domain usageLimits, reason …LimitExceeded)"),
        ],
        messages: [],
    },
    provider! {
        vendor: "aws", name: "AWS service APIs", category: Cloud, quota: Rate,
        hosts: ["*.amazonaws.com", "*.amazonaws.com.cn", "*.api.aws"],
        family: "none; x-amzn-ErrorType / error Code (Throttling, ThrottlingException, TooManyRequestsException, RequestLimitExceeded, SlowDown)",
        source: "https://docs.aws.amazon.com/general/latest/gr/api-retries.html",
        markers: [
            ("aws.throttle", 0.8, All(&[Any(&[Body("rate exceeded"), Code("ThrottlingException"), Code("Throttling"), Code("RequestLimitExceeded"),
                                              Code("ProvisionedThroughputExceededException"), Value("x-amzn-errortype", "throttling")]),
                                        Any(&[Has("x-amzn-requestid"), Has("x-amz-request-id"), Has("x-amzn-errortype"), Has("x-amz-id-2")])]), "",
             "an AWS service's throttling error (Throttling / ThrottlingException / RequestLimitExceeded / ProvisionedThroughputExceeded) with AWS request ids"),
            ("aws.s3-slowdown", 0.85, All(&[Body("<code>slowdown</code>"), Any(&[Has("x-amz-request-id"), Has("x-amz-id-2"), Body("<requestid>")])]), "",
             "Amazon S3's SlowDown error (503): the prefix's request rate is scaling"),
        ],
        messages: [
            ("aws.msg.reduce-rate", 0.8, "Please reduce your request rate", RATE, RESOURCE,
             "S3 SlowDown: 3,500 writes / 5,500 reads per second per prefix while it scales"),
            ("aws.msg.request-limit", 0.8, "Request limit exceeded.", RATE, NOS, "EC2 RequestLimitExceeded: the account's API request rate"),
        ],
    },
    provider! {
        vendor: "azure-resource-manager", name: "Azure Resource Manager", category: Cloud, quota: Rate,
        hosts: ["management.azure.com", "management.chinacloudapi.cn", "management.usgovcloudapi.net"],
        family: "x-ms-ratelimit-remaining-subscription-reads/-writes, -tenant-*, -subscription-global-*, x-ms-ratelimit-remaining-resource; Retry-After",
        source: "https://learn.microsoft.com/azure/azure-resource-manager/management/request-limits-and-throttling",
        markers: [
            ("azure-resource-manager.headers", 0.85, NamePrefix("x-ms-ratelimit-remaining-"), "",
             "x-ms-ratelimit-remaining-* count Resource Manager's (and its resource providers') per-hour buckets"),
        ],
        messages: [
            ("azure-resource-manager.msg.throttled", 0.85, "SubscriptionRequestsThrottled", RATE, USER,
             "the subscription's per-principal hourly read/write bucket"),
            ("azure-resource-manager.msg.another-operation", 0.8, "RetryableErrorDueToAnotherOperation", CONC, RESOURCE,
             "the target resource is locked by another operation: contention, not a quota"),
        ],
    },
    provider! {
        vendor: "digitalocean", name: "DigitalOcean API", category: Cloud, quota: Rate,
        hosts: ["api.digitalocean.com"],
        family: "ratelimit-limit/-remaining/-reset (epoch of the oldest request's expiry): 5,000 per hour and 250 per minute per token",
        source: "https://developers.digitalocean.com/documentation/v2/#rate-limit",
        markers: [
            ("digitalocean.body", 0.75, All(&[Body("\"id\":\"too_many_requests\""), Body("api rate limit exceeded")]), "",
             "DigitalOcean's error object: id too_many_requests"),
        ],
        messages: [],
    },
    provider! {
        vendor: "heroku", name: "Heroku Platform API", category: Cloud, quota: Rate,
        hosts: ["api.heroku.com"],
        family: "RateLimit-Remaining; about 4,500 requests per hour per account, refilled continuously",
        source: "https://devcenter.heroku.com/articles/platform-api-reference#rate-limits",
        markers: [],
        messages: [
            ("heroku.msg.rate-limit", 0.7, "Your account reached the API rate limit", RATE, USER,
             "the account's hourly token bucket (APIs built on Heroku's prmd template reuse the wording, so the host decides)"),
        ],
    },
    // ------------------------------------------------------------------ CRM and support
    provider! {
        vendor: "salesforce", name: "Salesforce", category: Crm, quota: Daily,
        hosts: ["*.salesforce.com", "*.my.salesforce.com", "*.force.com"],
        family: "Sforce-Limit-Info: api-usage=18/5000 (daily allocation); no Retry-After",
        source: "https://developer.salesforce.com/docs/platform/salesforce-app-limits-cheatsheet/guide/salesforce-app-limits-platform-api.html",
        markers: [
            ("salesforce.limit-info", 0.85, Has("sforce-limit-info"), "", "Sforce-Limit-Info is Salesforce's API usage header"),
            ("salesforce.body", 0.9, Body("request_limit_exceeded"), "REQUEST_LIMIT_EXCEEDED", "Salesforce errorCode REQUEST_LIMIT_EXCEEDED"),
        ],
        messages: [],
    },
    provider! {
        vendor: "atlassian", name: "Atlassian (Jira, Confluence)", category: Crm, quota: Rate,
        hosts: ["*.atlassian.net", "api.atlassian.com", "*.jira.com"],
        family: "X-RateLimit-Limit/-Remaining/-Reset (ISO 8601), X-RateLimit-NearLimit, RateLimit-Reason, Beta-RateLimit-Policy, Retry-After",
        source: "https://developer.atlassian.com/cloud/jira/platform/rate-limiting/",
        markers: [
            ("atlassian.headers", 0.85, Any(&[Has("x-ratelimit-nearlimit"), Has("beta-ratelimit-policy"), Has("x-beta-ratelimit-reason"),
                                             Value("ratelimit-reason", "jira-"), Has("x-arequestid"), Has("atl-traceid"), Has("atl-request-id")]), "",
             "Atlassian (Jira) rate-limit / request headers"),
        ],
        messages: [],
    },
    provider! {
        vendor: "hubspot", name: "HubSpot", category: Crm, quota: Rate,
        hosts: ["api.hubapi.com", "api.hubspot.com", "api.hubapi.eu"],
        family: "X-HubSpot-RateLimit-Daily/-Daily-Remaining, -Max/-Remaining/-Interval-Milliseconds (or -Secondly)",
        source: "https://developers.hubspot.com/docs/api/usage-details",
        markers: [
            ("hubspot.headers", 0.9, NamePrefix("x-hubspot-"), "", "X-HubSpot-RateLimit-* headers"),
        ],
        messages: [],
    },
    provider! {
        vendor: "zendesk", name: "Zendesk", category: Crm, quota: Rate,
        hosts: ["*.zendesk.com", "*.zdusercontent.com"],
        family: "X-Rate-Limit/-Remaining (per minute), ratelimit-limit/-remaining/-reset, zendesk-ratelimit-<endpoint>, Retry-After",
        source: "https://developer.zendesk.com/api-reference/introduction/rate-limits",
        markers: [
            ("zendesk.headers", 0.85, Any(&[NamePrefix("x-zendesk-"), NamePrefix("zendesk-ratelimit-")]), "", "Zendesk headers"),
            ("zendesk.body", 0.8, Body("number of allowed api requests per minute exceeded"), "", "Zendesk rate-limit message"),
        ],
        messages: [
            ("zendesk.msg.unique-user", 0.8, "You have exceeded the rate limit for updating a single unique user", RATE, RESOURCE,
             "endpoint limit on updates to one user"),
        ],
    },
    provider! {
        vendor: "intercom", name: "Intercom", category: Crm, quota: Rate,
        hosts: ["api.intercom.io", "api.eu.intercom.io", "api.au.intercom.io"],
        family: "X-RateLimit-Limit/-Remaining/-Reset (epoch s; the per-minute limit spread over 10-second windows)",
        source: "https://developers.intercom.com/docs/references/rest-api/errors/rate-limiting",
        markers: [],
        messages: [
            ("intercom.msg.exceeded", 0.85, "Exceeded rate limit of", RATE, APP, "the app's limit per 10-second window (error code rate_limit_exceeded)"),
        ],
    },
    // ------------------------------------------------------------------ social
    provider! {
        vendor: "x", name: "X (Twitter)", category: Social, quota: Rate,
        hosts: ["api.x.com", "api.twitter.com", "upload.twitter.com", "ads-api.x.com", "ads-api.twitter.com"],
        family: "x-rate-limit-limit/-remaining/-reset (epoch s, 15-minute windows), x-app-limit-24hour-*, x-user-limit-24hour-*",
        source: "https://docs.x.com/fundamentals/rate-limits",
        markers: [
            ("x.headers", 0.85, Any(&[NamePrefix("x-app-limit-24hour"), NamePrefix("x-user-limit-24hour"), Has("x-connection-hash"), Has("x-access-level")]), "",
             "X API headers (24-hour app/user limits, transaction id)"),
            ("x.rate-limit", 0.45, All(&[Has("x-rate-limit-limit"), Has("x-rate-limit-reset")]), "",
             "x-rate-limit-limit/-reset (epoch) is X's rate-limit header family, but not X's alone (IBM SVA, Okta send the same trio): weak on its own"),
        ],
        messages: [],
    },
    provider! {
        vendor: "reddit", name: "Reddit", category: Social, quota: Rate,
        hosts: ["oauth.reddit.com", "www.reddit.com", "reddit.com", "old.reddit.com"],
        family: "X-Ratelimit-Used/-Remaining/-Reset (seconds to the end of the period; 60 requests per minute with OAuth)",
        source: "https://github.com/reddit/reddit/wiki/API",
        markers: [],
        messages: [],
    },
    provider! {
        vendor: "linkedin", name: "LinkedIn", category: Social, quota: Daily,
        hosts: ["api.linkedin.com", "www.linkedin.com/voyager/"],
        family: "none; application and member limits per 24 hours, reset at midnight UTC",
        source: "https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/rate-limits",
        markers: [],
        messages: [
            ("linkedin.msg.resource-throttle", 0.8, "Resource level throttle limit", DAILY, NOS,
             "the endpoint's daily application or member limit (resets at midnight UTC)"),
        ],
    },
    provider! {
        vendor: "youtube", name: "YouTube Data API", category: Social, quota: Daily,
        hosts: ["youtube.googleapis.com", "www.googleapis.com/youtube/", "www.googleapis.com/upload/youtube/"],
        family: "none; quota units per day per project (10,000 by default), reset at midnight Pacific Time",
        source: "https://developers.google.com/youtube/data/determine_quota_cost",
        markers: [
            ("youtube.quota-domain", 0.9, Body("\"domain\":\"youtube.quota\""), "", "YouTube's quota errors carry domain youtube.quota"),
        ],
        messages: [
            ("youtube.msg.quota", 0.85, "The request cannot be completed because you have exceeded your", DAILY, APP,
             "the project's daily quota units (reason quotaExceeded): nothing comes back before midnight PT"),
        ],
    },
    provider! {
        vendor: "spotify", name: "Spotify Web API", category: Social, quota: Rate,
        hosts: ["api.spotify.com", "accounts.spotify.com"],
        family: "Retry-After only; the app's calls in a rolling 30-second window",
        source: "https://developer.spotify.com/documentation/web-api/concepts/rate-limits",
        markers: [
            ("spotify.body", 0.7, All(&[Body("\"status\":429"), Body("api rate limit exceeded")]), "",
             "Spotify's error object {error: {status: 429, message}} (Kong's default uses the same words without the status field)"),
        ],
        messages: [],
    },
    provider! {
        vendor: "meta", name: "Meta Graph API (Facebook, Instagram)", category: Social, quota: Rate,
        hosts: ["graph.facebook.com", "graph.instagram.com", "graph-video.facebook.com", "graph.fb.com"],
        family: "X-App-Usage, X-Ad-Account-Usage, X-Business-Use-Case-Usage (JSON percentages and estimated_time_to_regain_access)",
        source: "https://developers.facebook.com/docs/graph-api/overview/rate-limiting/",
        markers: [
            ("meta.usage-headers", 0.9, Any(&[Has("x-app-usage"), Has("x-business-use-case-usage"), Has("x-ad-account-usage"), Has("x-fb-debug"), Has("x-fb-trace-id")]), "",
             "X-App-Usage / X-Business-Use-Case-Usage / x-fb-* headers come from Meta's Graph API"),
        ],
        messages: [
            ("meta.msg.application", 0.85, "Application request limit reached", RATE, APP, "error code 4: the app's platform rate limit"),
            ("meta.msg.user", 0.85, "User request limit reached", RATE, USER, "error code 17: the user's platform rate limit"),
            ("meta.msg.page", 0.85, "Page request limit reached", RATE, RESOURCE, "error code 32: the Page's rate limit"),
            ("meta.msg.custom", 0.8, "Calls to this api have exceeded the rate limit", RATE, NOS, "error code 613: an endpoint's own limit"),
        ],
    },
    provider! {
        vendor: "pinterest", name: "Pinterest API", category: Social, quota: Rate,
        hosts: ["api.pinterest.com", "api-sandbox.pinterest.com"],
        family: "none documented; trial access 1,000 requests per day, standard 100 per second per user per app plus per-category per-minute limits",
        source: "https://developers.pinterest.com/docs/reference/rate-limits/",
        markers: [],
        messages: [],
    },
    provider! {
        vendor: "tiktok", name: "TikTok API", category: Social, quota: Rate,
        hosts: ["open.tiktokapis.com", "open-api.tiktok.com", "business-api.tiktok.com"],
        family: "no rate-limit headers; 600 requests per one-minute sliding window per endpoint; 429 with error code rate_limit_exceeded",
        source: "https://developers.tiktok.com/doc/tiktok-api-v2-rate-limit",
        markers: [
            ("tiktok.body", 0.8, All(&[Body("\"code\":\"rate_limit_exceeded\""), Body("\"log_id\"")]), "",
             "TikTok API v2's error object: code rate_limit_exceeded with a log_id (developers.tiktok.com/doc/tiktok-api-v2-error-handling)"),
        ],
        messages: [],
    },
    // ------------------------------------------------------------------ media
    provider! {
        vendor: "twitch", name: "Twitch Helix API", category: Media, quota: Rate,
        hosts: ["api.twitch.tv", "id.twitch.tv"],
        family: "Ratelimit-Limit/-Remaining/-Reset (epoch s): a token bucket of 800 points per minute per client (and per user)",
        source: "https://dev.twitch.tv/docs/api/guide/",
        markers: [],
        messages: [],
    },
    provider! {
        vendor: "vimeo", name: "Vimeo API", category: Media, quota: Rate,
        hosts: ["api.vimeo.com"],
        family: "X-RateLimit-Limit/-Remaining/-Reset (a timestamp) per app and user",
        source: "https://developer.vimeo.com/guidelines/rate-limiting",
        markers: [],
        messages: [],
    },
    // ------------------------------------------------------------------ registries
    provider! {
        vendor: "docker-hub", name: "Docker Hub", category: Registry, quota: Rate,
        hosts: ["registry-1.docker.io", "index.docker.io", "hub.docker.com", "auth.docker.io", "registry.hub.docker.com"],
        family: "ratelimit-limit: 100;w=21600, ratelimit-remaining, docker-ratelimit-source (pull limits per IP or per user)",
        source: "https://docs.docker.com/docker-hub/usage/pulls/",
        markers: [
            ("docker-hub.ratelimit-source", 0.9, Has("docker-ratelimit-source"), "", "docker-ratelimit-source names the IP or user Docker Hub counts pulls against"),
            ("docker-hub.increase-link", 0.9, Body("docker.com/increase-rate-limit"), "", "Docker Hub's pull-limit error links its increase-rate-limit page"),
        ],
        messages: [
            ("docker-hub.msg.unauthenticated", 0.9, "You have reached your unauthenticated pull rate limit", RATE, IP,
             "anonymous pulls per IPv4 address or IPv6 /64 (10 per hour today; 100 per 6 hours before 2025)"),
            ("docker-hub.msg.pull-limit", 0.85, "You have reached your pull rate limit", RATE, USER, "the account's pull limit"),
        ],
    },
    provider! {
        vendor: "npm", name: "npm registry", category: Registry, quota: Rate,
        hosts: ["registry.npmjs.org", "registry.npmjs.com", "www.npmjs.com", "api.npmjs.org", "replicate.npmjs.com"],
        family: "none published; the public registry sits behind Cloudflare, whose own 1015 page is the edge's, not npm's",
        source: "https://github.com/npm/cli/issues/836",
        markers: [],
        messages: [],
    },
    provider! {
        vendor: "pypi", name: "PyPI", category: Registry, quota: Rate,
        hosts: ["pypi.org", "upload.pypi.org", "files.pythonhosted.org", "test.pypi.org"],
        family: "none; the JSON and index APIs are cached at Fastly without an edge limit, XML-RPC is rate-limited",
        source: "https://docs.pypi.org/api/",
        markers: [],
        messages: [
            ("pypi.msg.xmlrpc", 0.85, "too many requests by the client", RATE, IP, "Warehouse's XML-RPC rate limit (the message says when it may reset)"),
        ],
    },
    provider! {
        vendor: "crates-io", name: "crates.io", category: Registry, quota: Rate,
        hosts: ["crates.io", "static.crates.io", "index.crates.io"],
        family: "none; the 429 body says when to try again (an HTTP-date)",
        source: "https://github.com/rust-lang/crates.io",
        markers: [
            ("crates-io.help-address", 0.8, All(&[Body("help@crates.io"), Body("try again after")]), "",
             "crates.io's publish limit names its help address and the time to retry"),
        ],
        messages: [
            ("crates-io.msg.new-crates", 0.9, "You have published too many new crates in a short period of time", RATE, USER,
             "the new-crate publish rate (a burst, then one per interval)"),
            ("crates-io.msg.versions", 0.9, "You have published too many versions of this crate in the last 24 hours", DAILY, RESOURCE,
             "versions of one crate per 24 hours"),
        ],
    },
    provider! {
        vendor: "maven-central", name: "Maven Central", category: Registry, quota: Rate,
        hosts: ["repo1.maven.org", "repo.maven.apache.org", "central.sonatype.com", "search.maven.org", "central.sonatype.org"],
        family: "none; per-IP and per-organisation limits explained in the 429 body",
        source: "https://central.sonatype.org/faq/429-error",
        markers: [],
        messages: [
            ("maven-central.msg.rate-limit", 0.9, "has hit the rate limit with Maven Central", RATE, IP,
             "the egress IP (or the organisation behind it) downloads too fast"),
            ("maven-central.msg.blocked", 0.85, "violation of the Central terms of service", DAILY, IP,
             "a temporary block of the IP for abusive downloading (403): waiting minutes does not lift it"),
        ],
    },
    provider! {
        vendor: "github-packages", name: "GitHub Packages (ghcr.io)", category: Registry, quota: Rate,
        hosts: ["ghcr.io", "npm.pkg.github.com", "maven.pkg.github.com", "nuget.pkg.github.com", "rubygems.pkg.github.com", "docker.pkg.github.com"],
        family: "none documented; the 429 body states the allowance per minute and the wait",
        source: "https://github.com/github/docs/issues/24504",
        markers: [
            ("github-packages.allowed", 0.85, All(&[Body("toomanyrequests"), Body("allowed:"), Body("/minute")]), "",
             "ghcr.io's throttle body: toomanyrequests: retry-after: …, allowed: N/minute"),
        ],
        messages: [],
    },
    provider! {
        vendor: "rubygems", name: "RubyGems.org", category: Registry, quota: Rate,
        hosts: ["rubygems.org", "api.rubygems.org", "index.rubygems.org"],
        family: "Retry-After; 10 requests per second per IP at the load balancer (15 for the dependency API), and application throttles per IP on sign-in and push",
        source: "https://guides.rubygems.org/rubygems-org-rate-limits/",
        markers: [],
        messages: [],
    },
    provider! {
        vendor: "nuget", name: "NuGet Gallery API", category: Registry, quota: Rate,
        hosts: ["api.nuget.org", "www.nuget.org", "nuget.org", "azuresearch-*.nuget.org"],
        family: "429 {\"statusCode\":429,\"message\":\"Rate limit is exceeded. Try again in N seconds.\"} (Azure API Management's rate-limit wording) and 403 \"Quota exceeded.\"",
        source: "https://learn.microsoft.com/en-us/nuget/api/rate-limits",
        markers: [],
        messages: [],
    },
    // ------------------------------------------------------------------ certificates
    provider! {
        vendor: "letsencrypt", name: "Let's Encrypt (ACME)", category: Certificates, quota: Rate,
        hosts: ["acme-v02.api.letsencrypt.org", "acme-staging-v02.api.letsencrypt.org", "acme-v01.api.letsencrypt.org"],
        family: "Retry-After on the rateLimited problem document; token buckets per account, domain and IP",
        source: "https://letsencrypt.org/docs/rate-limits/",
        markers: [
            ("letsencrypt.acme-problem", 0.6, Body("urn:ietf:params:acme:error:ratelimited"), "",
             "ACME's rateLimited problem type (RFC 8555), which Let's Encrypt's Boulder returns; other ACME CAs use it too, so the host decides"),
            ("letsencrypt.docs-link", 0.85, Body("letsencrypt.org/docs/rate-limits"), "", "Let's Encrypt's errors link its rate-limit page"),
        ],
        messages: [
            ("letsencrypt.msg.certificates", 0.9, "too many certificates already issued", DAILY, RESOURCE,
             "certificates per registered domain (50 a week) or per exact set of names: an allowance that refills over days"),
            ("letsencrypt.msg.new-orders", 0.9, "too many new orders recently", RATE, APP, "new orders per account (300 per 3 hours, refilling continuously)"),
            ("letsencrypt.msg.failed-authorizations", 0.9, "too many failed authorizations recently", RATE, RESOURCE,
             "failed validations per identifier per hour"),
        ],
    },
    // ------------------------------------------------------------------ messaging
    provider! {
        vendor: "sendgrid", name: "Twilio SendGrid", category: Messaging, quota: Rate,
        hosts: ["api.sendgrid.com"],
        family: "X-RateLimit-Limit/-Remaining/-Reset (epoch s) per endpoint and refresh period",
        source: "https://www.twilio.com/docs/sendgrid/api-reference/how-to-use-the-sendgrid-v3-api/rate-limits",
        markers: [
            ("sendgrid.body", 0.75, BodyIs("{\"errors\":[{\"field\":null,\"message\":\"too many requests\"}]}"), "",
             "SendGrid's documented 429 body, exactly"),
        ],
        messages: [],
    },
    provider! {
        vendor: "resend", name: "Resend", category: Messaging, quota: Rate,
        hosts: ["api.resend.com"],
        family: "ratelimit-limit/-remaining/-reset (IETF draft), retry-after; daily and monthly email quotas",
        source: "https://resend.com/docs/api-reference/rate-limit",
        markers: [],
        messages: [],
    },
    provider! {
        vendor: "mailchimp", name: "Mailchimp Marketing API", category: Messaging, quota: Concurrency,
        hosts: ["*.api.mailchimp.com", "mandrillapp.com"],
        family: "none; a limit of 10 simultaneous connections per user",
        source: "https://mailchimp.com/developer/marketing/docs/fundamentals/",
        markers: [],
        messages: [],
    },
    provider! {
        vendor: "postmark", name: "Postmark", category: Messaging, quota: Rate,
        hosts: ["api.postmarkapp.com"],
        family: "none published",
        source: "https://postmarkapp.com/developer/api/overview",
        markers: [],
        messages: [],
    },
    provider! {
        vendor: "emailit", name: "Emailit", category: Messaging, quota: Rate,
        hosts: ["api.emailit.com"],
        family: "ratelimit headers on every send; per-second and per-day limits per workspace",
        source: "https://emailit.com/docs/api-reference/rate-limits/",
        markers: [],
        messages: [
            ("emailit.msg.per-second", 0.85, "Too many requests. Maximum 2 messages per second allowed", RATE, APP, "the workspace's messages per second"),
            ("emailit.msg.daily", 0.85, "Daily sending limit of", DAILY, APP, "the workspace's messages per day (resets at midnight UTC)"),
        ],
    },
    provider! {
        vendor: "twilio", name: "Twilio", category: Messaging, quota: Concurrency,
        hosts: ["api.twilio.com", "*.twilio.com"],
        family: "none; error code 20429 in the body (too many concurrent requests)",
        source: "https://www.twilio.com/docs/api/errors/20429",
        markers: [
            ("twilio.headers", 0.85, NamePrefix("twilio-"), "", "Twilio-* response headers"),
            ("twilio.body", 0.9, Body("twilio.com/docs/errors/"), "20429", "Twilio error JSON (more_info points at the error code page)"),
        ],
        messages: [],
    },
    provider! {
        vendor: "mailgun", name: "Mailgun API", category: Messaging, quota: Rate,
        hosts: ["api.mailgun.net", "api.eu.mailgun.net"],
        family: "429 to be retried as the response defines; sending limits per account and domain",
        source: "https://documentation.mailgun.com/docs/mailgun/quickstart-guide/responses",
        markers: [],
        messages: [],
    },
    // ------------------------------------------------------------------ maps and geocoding
    provider! {
        vendor: "google-maps", name: "Google Maps Platform", category: Maps, quota: Rate,
        hosts: ["maps.googleapis.com", "places.googleapis.com", "routes.googleapis.com", "roads.googleapis.com",
                "addressvalidation.googleapis.com", "routeoptimization.googleapis.com"],
        family: "none; status OVER_QUERY_LIMIT / OVER_DAILY_LIMIT in the body (web services), RESOURCE_EXHAUSTED on the newer APIs",
        source: "https://developers.google.com/maps/documentation/geocoding/requests-geocoding",
        markers: [],
        messages: [
            ("google-maps.msg.over-query-limit", 0.85, "\"status\":\"OVER_QUERY_LIMIT\"", NOQ, NOS,
             "over the key's quota (the documentation does not say which window: the wait tells)"),
            ("google-maps.msg.over-daily-limit", 0.85, "\"status\":\"OVER_DAILY_LIMIT\"", DAILY, KEY,
             "billing not enabled, a self-imposed daily cap reached, or an invalid key: an allowance, not pacing"),
            ("google-maps.msg.rate-limit", 0.8, "You have exceeded your rate-limit for this API", RATE, KEY, "the keyless or per-key request rate"),
        ],
    },
    provider! {
        vendor: "mapbox", name: "Mapbox", category: Maps, quota: Rate,
        hosts: ["api.mapbox.com", "events.mapbox.com"],
        family: "X-Rate-Limit-Interval, X-Rate-Limit-Limit, X-Rate-Limit-Reset (epoch s), per API per account",
        source: "https://docs.mapbox.com/api/overview/",
        markers: [
            ("mapbox.headers", 0.85, Has("x-rate-limit-interval"), "", "X-Rate-Limit-Interval is Mapbox's rate-limit window header"),
        ],
        messages: [],
    },
    provider! {
        vendor: "nominatim", name: "Nominatim (OpenStreetMap)", category: Maps, quota: Rate,
        hosts: ["nominatim.openstreetmap.org"],
        family: "none; an absolute maximum of 1 request per second for the whole application; abusers get a temporary 403 IP block",
        source: "https://operations.osmfoundation.org/policies/nominatim/",
        markers: [],
        messages: [],
    },
    provider! {
        vendor: "foursquare", name: "Foursquare Places", category: Maps, quota: Rate,
        hosts: ["api.foursquare.com", "places-api.foursquare.com"],
        family: "X-RateLimit-Limit/-Remaining/-Reset (hourly; over the limit: 403 with an empty body)",
        source: "https://docs.foursquare.com/developer/reference/v2-rate-limits",
        markers: [],
        messages: [],
    },
    // ------------------------------------------------------------------ productivity
    provider! {
        vendor: "notion", name: "Notion API", category: Productivity, quota: Rate,
        hosts: ["api.notion.com"],
        family: "Retry-After (integer seconds); a per-connection budget per 60 s window and a per-workspace limit",
        source: "https://developers.notion.com/reference/request-limits",
        markers: [
            ("notion.body", 0.85, All(&[Body("\"object\":\"error\""), Body("\"code\":\"rate_limited\"")]), "",
             "Notion's error object with code rate_limited"),
        ],
        messages: [],
    },
    provider! {
        vendor: "airtable", name: "Airtable", category: Productivity, quota: Rate,
        hosts: ["api.airtable.com"],
        family: "none; 5 requests per second per base, 50 per second per token, then a 30-second wait; monthly call limits on Free and Team plans",
        source: "https://support.airtable.com/docs/managing-api-call-limits-in-airtable",
        markers: [],
        messages: [],
    },
    provider! {
        vendor: "asana", name: "Asana", category: Productivity, quota: Rate,
        hosts: ["app.asana.com"],
        family: "Retry-After; per-token requests per minute (150 free, 1,500 paid), concurrent-request and cost limits",
        source: "https://developers.asana.com/docs/rate-limits",
        markers: [],
        messages: [
            ("asana.msg.rate-limit", 0.9, "You've made too many requests and hit a rate limit", RATE, KEY, "the token's requests per minute"),
        ],
    },
    provider! {
        vendor: "dropbox", name: "Dropbox API", category: Productivity, quota: Rate,
        hosts: ["api.dropboxapi.com", "content.dropboxapi.com", "notify.dropboxapi.com", "api.dropbox.com"],
        family: "Retry-After on every rate-limited response; error.reason .tag too_many_requests / too_many_write_operations",
        source: "https://developers.dropbox.com/dbx-performance-guide",
        markers: [
            ("dropbox.error-summary", 0.85, All(&[Body("\"error_summary\""), Any(&[Body("too_many_requests"), Body("too_many_write_operations")])]), "",
             "Dropbox's error object (error_summary) with a rate-limit reason"),
        ],
        messages: [
            ("dropbox.msg.write-operations", 0.8, "too_many_write_operations", CONC, RESOURCE,
             "too many writes in the same Dropbox namespace at once: lock contention, serialise the writes"),
        ],
    },
    provider! {
        vendor: "box", name: "Box Platform API", category: Productivity, quota: Rate,
        hosts: ["api.box.com", "upload.box.com", "dl.boxcloud.com"],
        family: "retry-after; about 1,000 calls per minute per user, per-endpoint limits, a monthly enterprise allowance",
        source: "https://developer.box.com/guides/api-calls/permissions-and-errors/rate-limits/",
        markers: [
            ("box.body", 0.8, All(&[Body("\"type\":\"error\""), Body("\"code\":\"rate_limit_exceeded\"")]), "",
             "Box's error object: type error, code rate_limit_exceeded"),
        ],
        messages: [
            ("box.msg.rate-limit", 0.8, "Request rate limit exceeded, please try again later", RATE, USER, "the user's calls per minute"),
        ],
    },
    provider! {
        vendor: "figma", name: "Figma REST API", category: Productivity, quota: Rate,
        hosts: ["api.figma.com"],
        family: "Retry-After, X-Figma-Plan-Tier, X-Figma-Rate-Limit-Type (low/high), X-Figma-Upgrade-Link; leaky bucket per user, plan and app",
        source: "https://developers.figma.com/docs/rest-api/rate-limits",
        markers: [
            ("figma.headers", 0.9, Any(&[Has("x-figma-rate-limit-type"), Has("x-figma-plan-tier"), Has("x-figma-upgrade-link")]), "",
             "X-Figma-Rate-Limit-Type / -Plan-Tier / -Upgrade-Link are on Figma's 429s"),
        ],
        messages: [],
    },
    provider! {
        vendor: "linear", name: "Linear", category: Productivity, quota: Rate,
        hosts: ["api.linear.app"],
        family: "X-RateLimit-Requests-Limit/-Remaining/-Reset and X-RateLimit-Complexity-* (leaky buckets per hour)",
        source: "https://linear.app/developers/rate-limiting",
        markers: [
            ("linear.headers", 0.85, Any(&[Has("x-ratelimit-complexity-remaining"), Has("x-ratelimit-complexity-limit"), Has("x-complexity")]), "",
             "Linear's GraphQL complexity budget headers"),
            ("linear.body", 0.75, Body("\"code\":\"ratelimited\""), "", "Linear's GraphQL error extensions.code RATELIMITED"),
        ],
        messages: [],
    },
    provider! {
        vendor: "miro", name: "Miro REST API", category: Productivity, quota: Rate,
        hosts: ["api.miro.com"],
        family: "X-RateLimit-Limit/-Remaining (credits per minute)/-Reset (epoch s); credits per minute per user per app (10,000 in the v1 reference), methods weighted by level",
        source: "https://developers.miro.com/v1.0/reference/ratelimiting",
        markers: [
            ("miro.body", 0.85, Any(&[Body("\"code\":\"toomanyrequests\""), Body("\"message\":\"request rate limit exceed\"")]), "",
             "Miro's error object: code tooManyRequests, message \"Request rate limit exceed\" (the user's credits per minute for this app)"),
        ],
        messages: [],
    },
    provider! {
        vendor: "smartsheet", name: "Smartsheet API", category: Productivity, quota: Rate,
        hosts: ["api.smartsheet.com", "api.smartsheet.eu", "api.smartsheet.au", "api.smartsheetgov.com"],
        family: "no headers; 300 requests per minute per access token; error code 4003",
        source: "https://developers.smartsheet.com/api/smartsheet/guides/advanced-topics/scalability-options",
        markers: [
            ("smartsheet.error-4003", 0.85, Body("\"errorcode\":4003"), "",
             "Smartsheet's errorCode 4003 \"Rate limit exceeded.\" (smartsheet.com, Rate limits, retry logic and error handling)"),
        ],
        messages: [],
    },
    provider! {
        vendor: "contentful", name: "Contentful APIs", category: Productivity, quota: Rate,
        hosts: ["cdn.contentful.com", "api.contentful.com", "preview.contentful.com", "graphql.contentful.com", "*.eu.contentful.com"],
        family: "X-Contentful-RateLimit-Second-Limit/-Remaining and X-Contentful-RateLimit-Reset (seconds) on 429",
        source: "https://www.contentful.com/developers/docs/references/content-delivery-api/",
        markers: [
            ("contentful.headers", 0.9, Any(&[Has("x-contentful-ratelimit-reset"), Has("x-contentful-ratelimit-second-limit"), Has("x-contentful-ratelimit-second-remaining")]), "",
             "X-Contentful-RateLimit-* is Contentful's rate-limit family"),
            ("contentful.error-id", 0.85, Body("\"id\":\"ratelimitexceeded\""), "", "Contentful's error object: sys.id RateLimitExceeded"),
        ],
        messages: [
            ("contentful.msg.organization", 0.9, "You have exceeded the rate limit of the Organization this Space belongs to", RATE, APP,
             "the organization's requests per second (Contentful's own SDK test fixtures record this body)"),
        ],
    },
    // ------------------------------------------------------------------ identity
    provider! {
        vendor: "okta", name: "Okta", category: Identity, quota: Rate,
        hosts: ["*.okta.com", "*.oktapreview.com", "*.okta-emea.com", "*.okta-gov.com"],
        family: "X-Rate-Limit-Limit/-Remaining/-Reset (epoch s): org-wide per-minute limits per endpoint, plus a concurrent-transaction limit",
        source: "https://developer.okta.com/docs/reference/rl-best-practices/",
        markers: [
            ("okta.e0000047", 0.9, Body("e0000047"), "", "Okta error E0000047: API call exceeded rate limit"),
        ],
        messages: [
            ("okta.msg.rate-limit", 0.85, "API call exceeded rate limit due to too many requests", RATE, APP,
             "the org's per-minute limit for the endpoint (or its concurrent limit)"),
        ],
    },
    provider! {
        vendor: "sailpoint", name: "SailPoint Identity Security Cloud", category: Identity, quota: Rate,
        hosts: ["*.api.identitynow.com", "*.identitynow.com"],
        family: "Retry-After; 100 requests per access token per 10 seconds",
        source: "https://developer.sailpoint.com/docs/api/rate-limit",
        markers: [],
        messages: [],
    },
    provider! {
        vendor: "auth0", name: "Auth0", category: Identity, quota: Rate,
        hosts: ["*.auth0.com"],
        family: "x-ratelimit-limit/-remaining/-reset (epoch s) on every response; burst and sustained limits per tenant, per endpoint, some per IP or user",
        source: "https://auth0.com/docs/troubleshoot/customer-support/operational-policies/rate-limit-policy",
        markers: [],
        messages: [
            ("auth0.msg.global-limit", 0.8, "Global limit has been reached", RATE, APP,
             "the tenant's global Authentication/Management API bucket (the api_limit tenant log event)"),
        ],
    },
    // ------------------------------------------------------------------ finance and crypto
    provider! {
        vendor: "etherscan", name: "Etherscan API", category: Finance, quota: Rate,
        hosts: ["api.etherscan.io", "api-*.etherscan.io"],
        family: "none; calls per second and per day by plan (the day resets at 00:00 UTC)",
        source: "https://docs.etherscan.io/etherscan-v2/support/rate-limits",
        markers: [],
        messages: [
            ("etherscan.msg.per-second", 0.85, "Max calls per sec rate limit reached", RATE, KEY, "the key's calls per second"),
        ],
    },
    provider! {
        vendor: "binance", name: "Binance API", category: Finance, quota: Rate,
        hosts: ["api.binance.com", "api*.binance.com", "fapi.binance.com", "dapi.binance.com", "testnet.binance.vision", "api.binance.us"],
        family: "X-MBX-USED-WEIGHT-(n)(unit) per IP, X-MBX-ORDER-COUNT-(n)(unit) per account; Retry-After on 429 and on the 418 IP ban",
        source: "https://developers.binance.com/docs/binance-spot-api-docs/rest-api/limits",
        markers: [
            ("binance.weight", 0.9, Any(&[NamePrefix("x-mbx-used-weight"), NamePrefix("x-mbx-order-count")]), "",
             "X-MBX-USED-WEIGHT-* / X-MBX-ORDER-COUNT-* are Binance's request-weight and order counters"),
        ],
        messages: [],
    },
    provider! {
        vendor: "coinbase", name: "Coinbase APIs", category: Finance, quota: Rate,
        hosts: ["api.coinbase.com", "api.exchange.coinbase.com", "api.prime.coinbase.com", "api.cdp.coinbase.com"],
        family: "none documented on Advanced Trade; private endpoints per user, public per IP, per second",
        source: "https://docs.cdp.coinbase.com/advanced-trade/docs/rest-api-rate-limits",
        markers: [],
        messages: [],
    },
    // ------------------------------------------------------------------ data and reference
    provider! {
        vendor: "wikimedia", name: "Wikimedia (Wikipedia, Wikidata, MediaWiki APIs)", category: Data, quota: Rate,
        hosts: ["*.wikipedia.org", "*.wikimedia.org", "*.wikidata.org", "*.wiktionary.org", "*.mediawiki.org", "api.wikimedia.org"],
        family: "none on reads (serial requests and a contactable User-Agent expected); writes rate-limited per user right (error code ratelimited)",
        source: "https://www.mediawiki.org/wiki/API:Etiquette",
        markers: [
            ("wikimedia.ratelimited", 0.8, All(&[Body("\"code\":\"ratelimited\""), Any(&[Body("mediawiki"), Body("\"info\":")])]), "",
             "the MediaWiki Action API's ratelimited error"),
        ],
        messages: [],
    },
    provider! {
        vendor: "semantic-scholar", name: "Semantic Scholar API", category: Data, quota: Rate,
        hosts: ["api.semanticscholar.org", "partner.semanticscholar.org"],
        family: "none; unauthenticated requests share one pool, an API key gets 1 request per second",
        source: "https://www.semanticscholar.org/product/api",
        markers: [
            ("semantic-scholar.key-link", 0.85, Body("semanticscholar.org/product/api"), "", "Semantic Scholar's 429 points at its API-key form"),
        ],
        messages: [
            ("semantic-scholar.msg.apply-for-key", 0.85, "apply for a key for higher rate limits", RATE, IP,
             "the shared unauthenticated pool (or the key's 1 request per second)"),
        ],
    },
    provider! {
        vendor: "algolia", name: "Algolia Search API", category: Data, quota: Rate,
        hosts: ["*.algolia.net", "*.algolianet.com", "*.algolia.io"],
        family: "no headers; an API key's maxQueriesPerIPPerHour (per IP or user token), indexing queue limits",
        source: "https://www.algolia.com/doc/guides/security/api-keys/in-depth/api-key-restrictions",
        markers: [],
        messages: [],
    },
    // ------------------------------------------------------------------ observability
    provider! {
        vendor: "datadog", name: "Datadog API", category: Observability, quota: Rate,
        hosts: ["api.datadoghq.com", "api.datadoghq.eu", "api.*.datadoghq.com", "api.ddog-gov.com", "http-intake.logs.*datadoghq.com", "http-intake.logs.datadoghq.eu"],
        family: "X-RateLimit-Limit, -Period (seconds, calendar-aligned), -Remaining, -Reset, -Name",
        source: "https://docs.datadoghq.com/api/latest/rate-limits/",
        markers: [
            ("datadog.headers", 0.85, All(&[Has("x-ratelimit-period"), Has("x-ratelimit-name")]), "",
             "X-RateLimit-Period with X-RateLimit-Name is Datadog's rate-limit header family"),
        ],
        messages: [],
    },
    provider! {
        vendor: "pagerduty", name: "PagerDuty", category: Observability, quota: Rate,
        hosts: ["api.pagerduty.com", "events.pagerduty.com", "api.eu.pagerduty.com", "events.eu.pagerduty.com"],
        family: "ratelimit-limit/-remaining/-reset (seconds to wait); the v1 Events API answers its limit with 403",
        source: "https://support.pagerduty.com/docs/rest-api-rate-limits",
        markers: [],
        messages: [],
    },
    provider! {
        vendor: "sentry", name: "Sentry", category: Observability, quota: Rate,
        hosts: ["sentry.io", "*.sentry.io"],
        family: "API: X-Sentry-Rate-Limit-Limit/-Remaining/-Reset (epoch s) and -ConcurrentLimit/-ConcurrentRemaining per caller and endpoint; ingest: X-Sentry-Rate-Limits (seconds:categories:scope:reason)",
        source: "https://docs.sentry.io/api/ratelimits",
        markers: [
            ("sentry.api-headers", 0.9, Any(&[Has("x-sentry-rate-limit-limit"), Has("x-sentry-rate-limit-remaining"), Has("x-sentry-rate-limit-concurrentlimit")]), "",
             "X-Sentry-Rate-Limit-* is Sentry's API rate-limit family (a fixed window and a concurrent limit per caller and endpoint)"),
            ("sentry.ingest-limits", 0.9, Has("x-sentry-rate-limits"), "ingest",
             "X-Sentry-Rate-Limits is how Sentry's ingestion (Relay) tells an SDK which event categories are limited (sentry-rust transports/ratelimit.rs parses it)"),
        ],
        messages: [],
    },
    // ------------------------------------------------------------------ platform edges' own APIs
    provider! {
        vendor: "cloudflare", name: "Cloudflare API", category: Platform, quota: Rate,
        hosts: ["api.cloudflare.com"],
        family: "Ratelimit: \"default\";r=50;t=30 and Ratelimit-Policy (IETF), retry-after when exceeded",
        source: "https://developers.cloudflare.com/fundamentals/api/reference/limits/",
        markers: [
            ("cloudflare.api-limit", 0.8, Body("more than 1200 requests per 300 seconds"), "API 1200/5 min",
             "Cloudflare's own API limit (1200 requests per 5 minutes per user), not an edge rule"),
        ],
        messages: [],
    },
    provider! {
        vendor: "vercel", name: "Vercel REST API", category: Platform, quota: Rate,
        hosts: ["api.vercel.com"],
        family: "X-RateLimit-Limit/-Remaining/-Reset (epoch s) per endpoint",
        source: "https://vercel.com/docs/limits",
        markers: [],
        messages: [],
    },
    provider! {
        vendor: "netlify", name: "Netlify API", category: Platform, quota: Rate,
        hosts: ["api.netlify.com"],
        family: "X-RateLimit-Limit/-Remaining/-Reset (epoch s): 500 requests per minute, deploys 3 per minute and 100 per day",
        source: "https://docs.netlify.com/api-and-cli-guides/api-guides/get-started-with-api/#rate-limiting",
        markers: [],
        messages: [],
    },
    provider! {
        vendor: "fastly", name: "Fastly API", category: Platform, quota: Rate,
        hosts: ["api.fastly.com", "rt.fastly.com"],
        family: "Fastly-RateLimit-Remaining / Fastly-RateLimit-Reset (hourly, on non-GET requests)",
        source: "https://www.fastly.com/documentation/reference/api/#rate-limiting",
        markers: [
            ("fastly.api-headers", 0.85, Any(&[Has("fastly-ratelimit-remaining"), Has("fastly-ratelimit-reset")]), "",
             "Fastly-RateLimit-* are sent by Fastly's own API, not by the CDN for its customers"),
        ],
        messages: [],
    },
    provider! {
        vendor: "akamai", name: "Akamai APIs (Fast Purge)", category: Platform, quota: Rate,
        hosts: ["*.akamaiapis.net"],
        family: "X-RateLimit-Limit/-Remaining, X-RateLimit-Limit-Per-Second, -Objects",
        source: "https://techdocs.akamai.com/purge-cache/reference/rate-limit-response-examples",
        markers: [
            ("akamai.fast-purge", 0.7, Has("x-ratelimit-limit-per-second"), "Fast Purge API",
             "Akamai's own APIs (Fast Purge) send X-RateLimit-Limit-Per-Second"),
        ],
        messages: [
            ("akamai.msg.global-service", 0.8, "Global Service Rate Limit Exceeded", RATE, NOS,
             "an Akamai API's service-wide limit, unrelated to the client's own rate limit (techdocs mtls-origin-keystore 429)"),
            ("akamai.msg.account", 0.8, "Account Rate Limit Exceeded", RATE, APP,
             "an Akamai API's per-account limit (techdocs mtls-edge-truststore 429)"),
        ],
    },
    provider! {
        vendor: "riot-games", name: "Riot Games API", category: Media, quota: Rate,
        hosts: ["*.api.riotgames.com"],
        family: "X-App-Rate-Limit / X-App-Rate-Limit-Count and X-Method-Rate-Limit / -Count (limit:window-seconds pairs, e.g. 20:1,100:120), Retry-After, and on a 429 X-Rate-Limit-Type: application | method | service",
        source: "https://developer.riotgames.com/docs/portal#web-apis_rate-limiting",
        markers: [
            ("riot-games.app-rate-limit", 0.85, Any(&[Has("x-app-rate-limit"), Has("x-method-rate-limit")]), "",
             "X-App-Rate-Limit / X-Method-Rate-Limit (limit:window pairs) are Riot's own headers, sent on every response of its API"),
        ],
        messages: [],
    },
    provider! {
        vendor: "openweathermap", name: "OpenWeather", category: Data, quota: Rate,
        hosts: ["api.openweathermap.org", "pro.openweathermap.org", "history.openweathermap.org"],
        family: "none; 429 with {\"cod\":429,\"message\":…} when the subscription's calls per minute (or per month) are exceeded",
        source: "https://openweathermap.org/faq#error429",
        markers: [],
        messages: [
            ("openweathermap.msg.blocked", 0.85, "Your account is temporary blocked due to exceeding of requests limitation of your subscription type", NOQ, APP,
             "OpenWeather's 429: the API key's plan allowance (calls per minute, or the monthly total on the free plan) is exceeded"),
        ],
    },
    provider! {
        vendor: "coingecko", name: "CoinGecko API", category: Finance, quota: Rate,
        hosts: ["api.coingecko.com", "pro-api.coingecko.com"],
        family: "Retry-After on 429; body {\"status\":{\"error_code\":429,\"error_message\":…}}; calls per minute by plan",
        source: "https://docs.coingecko.com/reference/common-errors-rate-limit",
        markers: [],
        messages: [
            ("coingecko.msg.rate-limit", 0.85, "You've exceeded the Rate Limit. Please visit", RATE, APP,
             "CoinGecko's 429 (recorded in many public clients with the pricing link): the plan's calls per minute"),
        ],
    },
    provider! {
        vendor: "musicbrainz", name: "MusicBrainz API", category: Data, quota: Rate,
        hosts: ["musicbrainz.org/ws/", "beta.musicbrainz.org/ws/"],
        family: "none; 503 (not 429) with {\"error\":\"Your requests are exceeding the allowable rate limit…\"} above 1 request per second per IP (or a shared User-Agent's budget)",
        source: "https://musicbrainz.org/doc/MusicBrainz_API/Rate_Limiting",
        markers: [],
        messages: [
            ("musicbrainz.msg.rate", 0.85, "Your requests are exceeding the allowable rate limit", RATE, IP,
             "MusicBrainz answers 503 with this sentence when a client IP (or User-Agent) sends more than about one request per second"),
        ],
    },
    provider! {
        vendor: "api-data-gov", name: "api.data.gov (NASA, FDA, USDA, NREL, FEC APIs)", category: Data, quota: Rate,
        hosts: ["api.data.gov", "api.nasa.gov", "api.fda.gov", "api.nal.usda.gov", "developer.nrel.gov", "api.open.fec.gov", "api.usa.gov"],
        family: "X-RateLimit-Limit, X-RateLimit-Remaining (per key, rolling hour; DEMO_KEY 30/hour, 50/day)",
        source: "https://api.data.gov/docs/developer-manual/#web-service-rate-limits",
        markers: [],
        messages: [
            ("api-data-gov.msg.over-rate-limit", 0.85, "You have exceeded your rate limit. Try again later or contact us", RATE, KEY,
             "the api.data.gov umbrella (API Umbrella) in front of many US federal APIs: the key's hourly limit; its error code OVER_RATE_LIMIT sits in a field the redactor hides"),
        ],
    },
    provider! {
        vendor: "stack-exchange", name: "Stack Exchange API", category: Data, quota: Rate,
        hosts: ["api.stackexchange.com"],
        family: "none in headers; quota_max / quota_remaining and backoff (seconds) in every response's wrapper; throttle errors are HTTP 400 with error_id 502 and error_name throttle_violation",
        source: "https://api.stackexchange.com/docs/throttle",
        markers: [],
        messages: [
            ("stack-exchange.msg.ip-quota", 0.85, "too many requests from this IP, more requests available in", NOQ, IP,
             "a per-IP limit (30 requests a second; 10,000 a day without a key): the message names the seconds until requests are accepted again, and the size of that wait tells the kind"),
            ("stack-exchange.msg.throttle", 0.8, "\"error_name\":\"throttle_violation\"", NOQ, NOS,
             "Stack Exchange's throttle_violation (error_id 502): more than 30 requests a second from one IP, or the quota; sent with HTTP 400"),
        ],
    },
    provider! {
        vendor: "here", name: "HERE Location APIs", category: Maps, quota: Rate,
        hosts: ["*.hereapi.com", "*.api.here.com", "*.ls.hereapi.com"],
        family: "none documented; 429 {\"error\":\"Too Many Requests\",\"error_description\":\"Rate limit for this service has been reached\"}",
        source: "https://github.com/eifinger/here_routing",
        markers: [],
        messages: [
            ("here.msg.rate", 0.85, "Rate limit for this service has been reached", RATE, NOS,
             "HERE's 429 (recorded by the here_routing client and Home Assistant's HERE integration): the project's requests per second for that service"),
        ],
    },
];

#[cfg(test)]
mod tests {
    use super::super::{attribute, Layer, Quota};
    use super::*;
    use crate::model::{Headers, Location, Position, Request};
    use std::collections::HashSet;
    use std::sync::Arc;

    /// A concrete host for a pattern: `*` becomes `acme`.
    fn concrete(pattern: &str) -> (String, String) {
        let p = pattern.replace('*', "acme");
        match p.find('/') {
            Some(i) => (p[..i].to_string(), format!("{}x", &p[i..])),
            None => (p, "/v1/x".to_string()),
        }
    }

    fn response(
        host: &str,
        path: &str,
        status: u16,
        headers: &[(&str, &str)],
        body: &str,
    ) -> Request {
        let mut r = Request::at(Location {
            source: Arc::from("catalogue"),
            position: Position::Line(1),
        });
        r.url = format!("https://{host}{path}");
        r.method = "GET".into();
        r.status = status;
        r.response_headers =
            Headers::from_pairs(headers.iter().map(|(n, v)| (n.to_string(), v.to_string())));
        r.body_excerpt = (!body.is_empty()).then(|| body.to_string());
        r
    }

    fn verdict(r: Request) -> super::super::Attribution {
        attribute(&[r], &[0]).remove(0)
    }

    #[test]
    fn glob_matches_like_a_host_pattern() {
        assert!(glob(b"api.stripe.com", b"api.stripe.com"));
        assert!(glob(b"API.Stripe.com", b"api.stripe.com"));
        assert!(!glob(b"api.stripe.com", b"xapi.stripe.com"));
        assert!(glob(b"*.slack.com", b"acme.slack.com"));
        assert!(!glob(b"*.slack.com", b"slack.com"));
        assert!(glob(
            b"*-aiplatform.googleapis.com",
            b"us-central1-aiplatform.googleapis.com"
        ));
        assert!(glob(
            b"bedrock-runtime.*.amazonaws.com",
            b"bedrock-runtime.us-east-1.amazonaws.com"
        ));
        assert!(!glob(
            b"bedrock-runtime.*.amazonaws.com",
            b"bedrock-runtime.amazonaws.org"
        ));
        assert!(glob(b"*", b""));
    }

    #[test]
    fn the_most_specific_host_pattern_names_the_owner() {
        let (p, pat) = owner("api.github.com", "/repos").expect("github");
        assert_eq!((p.vendor, pat), ("github", "api.github.com"));
        assert!(owner("api.example.com", "/").is_none());
        assert!(owner("", "/").is_none());
        // A tenant subdomain of a vendor's platform.
        assert_eq!(
            owner("acme.zendesk.com", "/api/v2").map(|(p, _)| p.vendor),
            Some("zendesk")
        );
    }

    #[test]
    fn the_catalogue_covers_the_hundred_most_used_providers() {
        assert!(PROVIDERS.len() >= 100, "{} providers", PROVIDERS.len());
        let categories: HashSet<&str> = PROVIDERS.iter().map(|p| p.category.as_str()).collect();
        for c in [
            "source hosting",
            "chat",
            "payments",
            "commerce",
            "AI",
            "cloud APIs",
            "CRM and support",
            "social",
            "registries",
            "certificates",
            "messaging",
            "maps and geocoding",
            "platform edges",
        ] {
            assert!(categories.contains(c), "no provider in category {c}");
        }
        assert!(find("cloudflare").is_some_and(|p| p.hosts.contains(&"api.cloudflare.com")));
        assert!(find("letsencrypt").is_some());
    }

    #[test]
    fn every_row_is_well_formed_and_sourced() {
        let mut slugs = HashSet::new();
        let mut ids: HashSet<&str> = super::super::rules::RULES.iter().map(|r| r.id).collect();
        let mut patterns = HashSet::new();
        for p in PROVIDERS {
            assert!(slugs.insert(p.vendor), "duplicate provider {}", p.vendor);
            assert!(
                p.vendor
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "slug {} breaks the convention (NOTES.md)",
                p.vendor
            );
            assert!(!p.name.is_empty() && !p.family.is_empty(), "{}", p.vendor);
            assert!(
                p.source.starts_with("https://"),
                "{}: source {}",
                p.vendor,
                p.source
            );
            assert!(!p.hosts.is_empty(), "{} has no host", p.vendor);
            for h in p.hosts {
                assert_eq!(
                    *h,
                    h.to_ascii_lowercase(),
                    "{}: host patterns are lower-case",
                    p.vendor
                );
                assert!(patterns.insert(*h), "host pattern {h} is in two rows");
            }
            for m in p.markers {
                assert_eq!(m.vendor, p.vendor, "{}", m.id);
                assert_eq!(m.layer, Layer::Api, "{}", m.id);
                assert!(
                    m.id.starts_with(&format!("{}.", p.vendor)),
                    "{} is not prefixed by its vendor",
                    m.id
                );
                assert!(ids.insert(m.id), "duplicate rule id {}", m.id);
                assert!((0.0..1.0).contains(&m.weight), "{}", m.id);
            }
            for msg in p.messages {
                assert!(
                    msg.text.len() >= 12,
                    "{}: stock wording too short to be specific",
                    msg.id
                );
            }
        }
    }

    #[test]
    fn every_documented_host_names_its_owner_when_the_api_answered() {
        for p in PROVIDERS {
            for pat in p.hosts {
                let (host, path) = concrete(pat);
                let (found, _) = owner(&host, &path).expect("host resolves");
                assert_eq!(found.vendor, p.vendor, "{pat} resolves to {}", found.vendor);
                let a = verdict(response(
                    &host,
                    &path,
                    429,
                    &[("content-type", "application/json")],
                    "{\"error\":\"slow down\"}",
                ));
                assert_eq!(
                    (a.layer, a.vendor.as_deref()),
                    (Layer::Api, Some(p.vendor)),
                    "{pat}: {:#?}",
                    a.evidence
                );
            }
        }
    }

    #[test]
    fn every_documented_message_is_recognised_with_its_kind() {
        for p in PROVIDERS {
            for msg in p.messages {
                // On a host nobody documents: the wording alone must name the vendor.
                // A JSON fragment is placed as is; plain wording as an error message.
                let body = if msg.text.contains('"') {
                    format!("{{{}}}", msg.text)
                } else {
                    format!("{{\"error\":{{\"message\":\"{}\"}}}}", msg.text)
                };
                let a = verdict(response(
                    "gateway.example.net",
                    "/v1/x",
                    429,
                    &[("content-type", "application/json")],
                    &body,
                ));
                assert_eq!(
                    (a.layer, a.vendor.as_deref()),
                    (Layer::Api, Some(p.vendor)),
                    "{}: {:#?}",
                    msg.id,
                    a.evidence
                );
                if let Some(q) = msg.quota {
                    assert_eq!(a.quota, q, "{}", msg.id);
                }
            }
        }
    }

    #[test]
    fn a_host_does_not_outweigh_an_edge_or_proxy_page() {
        let cf = [
            ("server", "cloudflare"),
            ("cf-ray", "8a1b2c3d4e5f6789-SJC"),
            ("content-type", "text/plain"),
        ];
        let a = verdict(response(
            "api.github.com",
            "/repos",
            429,
            &cf,
            "error code: 1015",
        ));
        assert_eq!(
            (a.layer, a.vendor.as_deref()),
            (Layer::Cdn, Some("cloudflare"))
        );
        let page = "<html>\r\n<head><title>429 Too Many Requests</title></head>\r\n<body>\r\n<center><h1>429 Too Many Requests</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>";
        let a = verdict(response(
            "api.openai.com",
            "/v1/chat/completions",
            429,
            &[("server", "nginx"), ("content-type", "text/html")],
            page,
        ));
        assert_eq!(
            (a.layer, a.vendor.as_deref()),
            (Layer::Proxy, Some("nginx"))
        );
        // The host line is there, and marked as outweighed.
        assert!(a
            .evidence
            .iter()
            .any(|e| e.signal == "host api.openai.com" && e.note.contains("outweighed")));
    }

    #[test]
    fn an_origin_429_through_a_cdn_on_a_known_host_is_the_api() {
        let h = [
            ("server", "cloudflare"),
            ("cf-ray", "8a1b2c3d4e5f6789-SJC"),
            ("content-type", "application/json"),
        ];
        let a = verdict(response(
            "api.openai.com",
            "/v1/chat/completions",
            429,
            &h,
            "{\"error\":{\"message\":\"slow down\"}}",
        ));
        assert_eq!(
            (a.layer, a.vendor.as_deref(), a.quota),
            (Layer::Api, Some("openai"), Quota::Rate)
        );
        assert!(a.path.iter().any(|p| p == "cloudflare"));
    }

    #[test]
    fn a_vendor_marker_outweighs_the_host() {
        // Anthropic's own headers on a host documented for someone else: the markers decide.
        let h = [
            ("content-type", "application/json"),
            ("anthropic-ratelimit-requests-remaining", "0"),
        ];
        let a = verdict(response("api.openai.com", "/v1/x", 429, &h, "{}"));
        assert_eq!(a.vendor.as_deref(), Some("anthropic"));
    }
}
