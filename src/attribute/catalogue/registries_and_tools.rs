//! Catalogue rows: Registries, certificates, messaging, maps and productivity.

use super::*;

#[rustfmt::skip]
pub(super) static PROVIDERS: &[Provider] = &[
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
];
