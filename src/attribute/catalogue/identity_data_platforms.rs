//! Catalogue rows: Identity, finance, data, observability, platform edges' own APIs and the rest.

use super::*;

#[rustfmt::skip]
pub(super) static PROVIDERS: &[Provider] = &[
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
    provider! {
        vendor: "alchemy", name: "Alchemy", category: Cloud, quota: Rate,
        hosts: ["*.alchemyapi.io", "*.g.alchemy.com"],
        family: "none documented; 429 JSON-RPC error \"Your app has exceeded its compute units per second capacity\"",
        source: "https://docs.alchemy.com/reference/throughput",
        markers: [],
        messages: [
            ("alchemy.msg.cups", 0.85, "exceeded its compute units per second capacity", RATE, NOS,
             "Alchemy's throughput limit: compute units per second for the app"),
        ],
    },
];
