//! Catalogue rows: Cloud APIs, CRM and support, social and media.

use super::*;

#[rustfmt::skip]
pub(super) static PROVIDERS: &[Provider] = &[
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
            ("atlassian.data-center", 0.8, Any(&[Has("x-ratelimit-fillrate"), Has("x-ratelimit-interval-seconds"), Has("x-seraph-loginreason"), Has("x-asessionid"), Has("x-ausername")]), "",
             "Jira and Confluence Data Center, self-hosted: the token bucket's X-RateLimit-FillRate / -Interval-Seconds (https://confluence.atlassian.com/adminjiraserver/improving-instance-stability-with-rate-limiting-983794911.html) and the Seraph login headers (X-Seraph-LoginReason, X-ASESSIONID, X-AUSERNAME) on every response"),
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
];
