#!/usr/bin/env python3
"""Source of cases.json: every case transcribed from its cited public source."""
import json
C = []
def add(id, producer, source, host, method, url, status, headers, body, layer, vendor, quota, ra, why):
    C.append({"id": id, "producer": producer, "source": source, "host": host,
              "request": {"method": method, "url": url},
              "response": {"status": status, "headers": headers, "body": body},
              "expected": {"layer": layer, "vendor": vendor, "quota": quota, "retry_after_s": ra},
              "why": why})

add("zendesk-minute", "Zendesk", "https://support.zendesk.com/hc/en-us/community/posts/4600766234138 (headers dict pasted by user, 2022-05-14)",
    "example.zendesk.com", "GET", "https://example.zendesk.com/api/v2/tickets/2426492/metrics.json", 429,
    [["Date", "Sat, 14 May 2022 15:09:59 GMT"], ["Content-Type", "text/plain"], ["Content-Length", "50"],
     ["Connection", "keep-alive"], ["Zendesk-Api-Version", "2022-01-01"], ["retry-after", "1"],
     ["x-rate-limit", "700"], ["x-rate-limit-remaining", "0"], ["cache-control", "max-age=1,public"],
     ["strict-transport-security", "max-age=31536000;"], ["x-zendesk-origin-server", "classic-app-server-7476444d4-q4p2z"],
     ["x-request-id", "70b48ed9ef145866-IAD, 70b48ed9ef145866-IAD"], ["x-runtime", "0.050546"],
     ["x-envoy-upstream-service-time", "52"], ["x-envoy-decorator-operation", "classic.classic.svc.cluster.local:80/*"],
     ["X-Zendesk-Zorg", "yes"], ["CF-Cache-Status", "DYNAMIC"]],
    "Number of allowed API requests per minute exceeded", "api", "zendesk", "rate", 1,
    "body 'per minute exceeded' from Zendesk's app (x-zendesk-origin-server, x-rate-limit) passed through Cloudflare (DYNAMIC); Retry-After 1")

add("telegram-flood", "Telegram Bot API", "https://github.com/hdghg/cjbot/issues/13 (clj-http response map pasted, 2016-07-20)",
    "api.telegram.org", "POST", "https://api.telegram.org/bot<token>/sendMessage", 429,
    [["Server", "nginx/1.10.0"], ["Date", "Wed, 20 Jul 2016 16:25:04 GMT"], ["Content-Type", "application/json"],
     ["Content-Length", "78"], ["Connection", "close"], ["Access-Control-Allow-Origin", "*"],
     ["Access-Control-Expose-Headers", "Content-Length,Content-Type,Date,Server,Connection"]],
    '{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 3"}', "api", "telegram", "rate", None,
    "Telegram's own JSON error shape (ok:false,error_code 429); flood control is a rate limit; no Retry-After header (wait only in body)")

add("telegram-flood-params", "Telegram Bot API", "https://github.com/flathunters/flathunter/issues/88 (logged body, 2020-10-21)",
    "api.telegram.org", "POST", "https://api.telegram.org/bot<token>/sendMessage", 429, [["Content-Type", "application/json"]],
    '{"ok": false, "error_code": 429, "description": "Too Many Requests: retry after 34", "parameters": {"retry_after": 34}}',
    "api", "telegram", "rate", None,
    "Telegram Bot API error with parameters.retry_after; only the body was logged (Content-Type from Bot API docs), no Retry-After header recorded")

add("bluesky-pds", "Bluesky PDS (atproto)", "https://github.com/Gorcenski/skeeter-deleter/issues/5 (atproto_client exception with headers, 2025-04-13)",
    "bsky.social", "GET", "https://bsky.social/xrpc/app.bsky.feed.getActorLikes", 429,
    [["x-powered-by", "Express"], ["access-control-allow-origin", "*"], ["ratelimit-limit", "3000"],
     ["ratelimit-remaining", "0"], ["ratelimit-reset", "1744582868"], ["ratelimit-policy", "3000;w=300"],
     ["content-type", "application/json; charset=utf-8"], ["content-length", "61"], ["etag", "XXXXXX"],
     ["vary", "Accept-Encoding"], ["date", "Sun, 13 Apr 2025 22:20:26 GMT"], ["keep-alive", "timeout=90"],
     ["strict-transport-security", "max-age=63072000"]],
    '{"error":"RateLimitExceeded","message":"Rate Limit Exceeded"}', "api", "bluesky", "rate", None,
    "XRPC error RateLimitExceeded from the PDS; policy 3000;w=300 is a 5-minute rate window; no Retry-After")

add("minio-slowdown-zarr", "MinIO", "https://github.com/JuliaIO/Zarr.jl/issues/144 (HTTP.jl StatusError dump, 2024-04-22)",
    "localhost:9000", "PUT", "http://localhost:9000/zarrdata", 503,
    [["Accept-Ranges", "bytes"], ["Content-Length", "314"], ["Content-Security-Policy", "block-all-mixed-content"],
     ["Content-Type", "application/xml"], ["Retry-After", "120"], ["Server", "MinIO"],
     ["Strict-Transport-Security", "max-age=31536000; includeSubDomains"], ["Vary", "Origin, Accept-Encoding"],
     ["X-Amz-Request-Id", "17C8910F51C5F95B"], ["X-Content-Type-Options", "nosniff"], ["X-Xss-Protection", "1; mode=block"],
     ["Date", "Mon, 22 Apr 2024 09:45:53 GMT"]],
    '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code><Message>Resource requested is unreadable, please reduce your request rate</Message><BucketName>zarrdata</BucketName><Resource>/zarrdata</Resource><RequestId>17C8910F51C5F95B</RequestId><HostId>16de69c3-d609-499d-ae6d-67c17b8d9196</HostId></Error>',
    "api", "minio", "rate", 120, "Server: MinIO, S3 error code SlowDown (documented throttling code), Retry-After 120")

add("minio-slowdown-list", "MinIO", "https://github.com/minio/minio/issues/10818 (mc --debug output, 2020-11-03)",
    "localhost:9000", "GET", "http://localhost:9000/b01/?delimiter=%2F&encoding-type=url&fetch-owner=true&list-type=2&prefix=", 503,
    [["Content-Length", "266"], ["Accept-Ranges", "bytes"], ["Content-Security-Policy", "block-all-mixed-content"],
     ["Content-Type", "application/xml"], ["Date", "Tue, 03 Nov 2020 16:33:26 GMT"], ["Retry-After", "120"],
     ["Server", "MinIO/DEVELOPMENT.2020-11-03T15-14-42Z"], ["Vary", "Origin"], ["X-Amz-Request-Id", "16440C962EA45160"],
     ["X-Xss-Protection", "1; mode=block"]],
    '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code><Message>Please reduce your request</Message><BucketName>b01</BucketName><Resource>/b01/</Resource><RequestId>16440C962EA45160</RequestId><HostId>bb9ddff6-da91-440d-b092-f4c2cbd21399</HostId></Error>',
    "api", "minio", "rate", 120, "Server: MinIO/..., SlowDown error code, Retry-After 120")

add("ollama-queue", "Ollama", "https://github.com/ollama/ollama/issues/4159 (error body, 2024-05-05) and ollama/ollama PR #4144 (returns 503 when the queue is full)",
    "localhost:11434", "POST", "http://localhost:11434/api/generate", 503, [["Content-Type", "application/json; charset=utf-8"]],
    '{"error":"server busy, please try again.  maximum pending requests exceeded"}', "api", "ollama", "concurrency", None,
    "Ollama's scheduler rejects when OLLAMA_MAX_QUEUE pending requests are queued (PR #4144: 503): a concurrency/queue limit; Content-Type is gin's JSON default")

add("hotelbeds-mashery-overrate", "Mashery (in front of Hotelbeds APItude)", "https://github.com/hotelbeds-sdk/hotel-api-sdk-java/issues/14 (logged headers, 2016-06-30)",
    "api.test.hotelbeds.com", "GET", "https://api.test.hotelbeds.com/hotel-api/1.0/hotels", 403,
    [["X-Error-Detail-Header", "Account Over Rate Limit"], ["X-Mashery-Error-Code", "ERR_403_DEVELOPER_OVER_RATE"],
     ["Content-Type", "text/xml"]],
    "", "proxy", "mashery", "daily", None,
    "X-Mashery-Error-Code from the Mashery gateway in front of Hotelbeds; 'Over Rate' is Mashery's per-day allowance (Hotelbeds maintainer: exceeded daily usage, ~50/day)")

add("xero-daylimit", "Xero", "github (Zapier workflow README quoting Xero headers seen on 2026-08-06; find_string id 59831624814)",
    "api.xero.com", "GET", "https://api.xero.com/api.xro/2.0/BankTransactions", 429,
    [["x-rate-limit-problem", "day"], ["x-daylimit-remaining", "0"], ["x-minlimit-remaining", "60"]],
    "", "api", "xero", "daily", None,
    "Xero's X-Rate-Limit-Problem: day and X-DayLimit-Remaining 0 = the 5000/day tenant limit; no Retry-After shown")

add("vault-quota", "HashiCorp Vault", "https://github.com/hashicorp/vault/issues/10191 (vault CLI output of the 429, 2020-10-20); body shape {\"errors\":[...]} per Vault HTTP API",
    "vault:8200", "PUT", "https://vault:8200/v1/pki/issue/testrole", 429, [["Content-Type", "application/json"]],
    '{"errors":["request path \\"pki/issue/testrole\\": rate limit quota exceeded"]}', "api", "vault", "rate", None,
    "Vault's rate-limit resource quota (rate=1 per second); Retry-After only when enable_rate_limit_response_headers is set (not here)")

add("wso2-900804", "WSO2 API Manager", "https://www.cnblogs.com/lori/p/18950065 (throttled response recorded from a WSO2 gateway)",
    "test-apim.pkulaw.com", "GET", "https://test-apim.pkulaw.com/api/v1/resource", 429, [["Content-Type", "application/json"]],
    '{\n"code": "900804",\n"message": "Message throttled out",\n"description": "You have exceeded your quota .You can access API after 2025-Jun-26 04:00:00+0000 UTC",\n"nextAccessTime": "2025-Jun-26 04:00:00+0000 UTC"\n}',
    "proxy", "wso2", "rate", None,
    "WSO2 throttle-out handler JSON (code 900804 subscription-level throttling); gateway in front of the API; subscription tier window not stated -> rate")

add("wso2-900800", "WSO2 API Manager", "https://apim.docs.wso2.com/en/4.6.0/api-developer-portal/rate-limiting/handle-rate-limiting-errors/ (example throttled response)",
    "localhost:8243", "GET", "https://localhost:8243/pizzashack/1.0.0/menu", 429, [["Content-Type", "application/json"]],
    '{\n"code": "900800",\n"message": "Message throttled out",\n"description": "You have exceeded your quota"\n}',
    "proxy", "wso2", "rate", None,
    "WSO2 gateway throttle-out body code 900800 (requests within a designated time period)")


add("loki-ingestion", "Grafana Loki", "https://github.com/grafana/helm-charts/issues/610 (promtail log quoting the 429 body, 2021-08-09)",
    "loki.monitoring:3100", "POST", "http://loki.monitoring:3100/loki/api/v1/push", 429, [["Content-Type", "text/plain; charset=utf-8"]],
    "Ingestion rate limit exceeded (limit: 4194304 bytes/sec) while attempting to ingest '4963' lines totaling '705285' bytes, reduce log volume or contact your Loki administrator to see if the limit can be increased",
    "api", "loki", "rate", None, "Loki distributor's per-tenant ingestion rate limit (bytes/sec); body as promtail quotes it; no Retry-After")

add("loki-stream", "Grafana Loki", "https://github.com/grafana/loki/issues/4204 (promtail log quoting the 429 body, 2021-08-23)",
    "10.10.12.189:18080", "POST", "http://10.10.12.189:18080/loki/api/v1/push", 429, [["Content-Type", "text/plain; charset=utf-8"]],
    "entry with timestamp 2021-08-23 07:59:26.621124043 +0000 UTC ignored, reason: 'stream rate limit exceeded' for stream: {filename=\"/var/log/b/a.log\", host=\"10.10.12.128\", job=\"a\"},",
    "api", "loki", "rate", None, "Loki per-stream rate limit ('stream rate limit exceeded')")

add("coinmarketcap-1008", "CoinMarketCap", "CoinMarketCap API docs error example as embedded in a Go test (find_string id 36902054289); 1008 = per-minute limit, HTTP 429 per https://pro.coinmarketcap.com/api/documentation/guides/errors-and-rate-limits",
    "pro-api.coinmarketcap.com", "GET", "https://pro-api.coinmarketcap.com/v1/cryptocurrency/quotes/latest?symbol=ETH", 429, [["Content-Type", "application/json"]],
    '{\n    "status": {\n        "timestamp": "2018-06-02T22:51:28.209Z",\n        "error_code": 1008,\n        "error_message": "You\'ve exceeded your API Key\'s HTTP request rate limit. Rate limits reset every minute.",\n        "elapsed": 10,\n        "credit_count": 0\n    }\n}',
    "api", "coinmarketcap", "rate", None, "CMC status.error_code 1008 = per-minute HTTP request rate limit")

add("lichess-html", "Lichess", "https://github.com/lichess-org/api/issues/268 (bot log with the 429 HTML, 2023-07-19; body cut where the log cut it)",
    "lichess.org", "POST", "https://lichess.org/api/bot/game/gN0MXA6F/move/e5f4", 429, [["Content-Type", "text/html; charset=utf-8"]],
    '<!DOCTYPE html>\n<html lang="en">\n  <head>\n    <meta charset="utf-8" />\n    <meta name="viewport" content="width=device-width, initial-scale=1.0" />\n    <title>Too many requests \u2022 lichess.org</title>\n    <meta content="noindex, nofollow" name="robots" />\n  </head>\n  <body>\n    <h1>lichess.org - too many requests</h1>\n    <p>\n      Your network has sent too many',
    "api", "lichess", "rate", None, "lichess.org's own 'too many requests' page; API docs: wait a full minute (rate); no Retry-After")

add("lichess-inbox", "Lichess", "https://github.com/lichess-org/api/issues/90 (response body quoted, 2021-03-01)",
    "lichess.org", "POST", "https://lichess.org/inbox/someuser", 429, [["Content-Type", "application/json"]],
    '{"error":"Error 429: Too many requests! Try again later."}', "api", "lichess", "rate", None,
    "lichess JSON error for inbox; maintainers describe per-minute and per-day message limits, the response does not say which -> rate (docs: wait a minute)")

add("ncbi-eutils", "NCBI E-utilities", "https://github.com/ropensci/rentrez/issues/132 (429 body, 2019-01-24)",
    "eutils.ncbi.nlm.nih.gov", "GET", "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/esearch.fcgi?db=protein&term=X", 429, [["Content-Type", "application/json"]],
    '{"error":"API rate limit exceeded","api-key":"132.246.3.117","count":"26","limit":"3"}', "api", "ncbi", "rate", None,
    "NCBI E-utilities: 3 requests/second without an API key; body 'API rate limit exceeded'")

add("hypixel-throttle", "Hypixel Public API", "https://github.com/HypixelDev/PublicAPI/issues/527 (response quoted, 2022-03-29); 429 + 'Key throttle' per Hypixel API docs",
    "api.hypixel.net", "GET", "https://api.hypixel.net/player?uuid=X", 429, [["Content-Type", "application/json"]],
    '{\n  "success": false,\n  "cause" : "Key Throttle",\n  "throttle": true\n}', "api", "hypixel", "rate", None,
    "Hypixel 'Key Throttle' = per-key requests-per-minute limit (120/min then 300/5min per issues)")

add("tmdb-25", "The Movie Database (TMDB)", "https://github.com/Radarr/Radarr/issues/2017 (Radarr trace log of the 429, 2017-08-29)",
    "api.themoviedb.org", "GET", "https://api.themoviedb.org/3/search/movie?api_key=REDACTED&query=frozen&year=&include_adult=False", 429, [["Content-Type", "application/json;charset=utf-8"]],
    '{"status_code":25,"status_message":"Your request count (1559) is over the allowed limit of 40."}', "api", "tmdb", "rate", None,
    "TMDB status_code 25; 40 requests per 10 s per IP (TMDB docs quoted in streama#311); Retry-After not recorded in the log")

add("infura-project", "Infura", "https://github.com/INFURA/infura/issues/201 (429 body, 2020-05-15)",
    "mainnet.infura.io", "POST", "https://mainnet.infura.io/v3/PROJECT", 429, [["Content-Type", "application/json"]],
    '{"jsonrpc":"2.0","id":3419,"error":{"code":-32005,"message":"project ID request rate exceeded","data":{"rate":{"allowed_rps":50,"backoff_seconds":0,"current_rps":52.3},"see":"https://infura.io/docs/ethereum/json-rpc/ratelimits"}}}',
    "api", "infura", "rate", None, "JSON-RPC error -32005 with allowed_rps: per-second rate limit of the project")

add("infura-legacy", "Infura", "https://github.com/herdius/herdius-core/pull/58 (error quoted, 2019-05-25)",
    "mainnet.infura.io", "POST", "https://mainnet.infura.io/", 429, [["Content-Type", "application/json"]],
    '{"jsonrpc":"2.0","error":{"code":-32005,"message":"legacy access request rate exceeded","data":{"reason":"project ID not provided","see":"https://infura.io/dashboard"}}}',
    "api", "infura", "rate", None, "Infura -32005 'legacy access request rate exceeded' (keyless access throttled)")

add("accuweather-503", "AccuWeather", "AccuWeather error as recorded in a comment (find_string id 1513036859) and bieniu/accuweather tests; HTTP 503 per the same clients",
    "dataservice.accuweather.com", "GET", "https://dataservice.accuweather.com/locations/v1/cities/autocomplete?q=jerus&apikey=REDACTED", 503, [["Content-Type", "application/json; charset=utf-8"]],
    '{\n  "Code": "ServiceUnavailable",\n  "Message": "The allowed number of requests has been exceeded.",\n  "Reference": "/locations/v1/cities/autocomplete?q=jerus&apikey=REDACTED"\n}',
    "api", "accuweather", "daily", None, "AccuWeather answers 503 ServiceUnavailable 'allowed number of requests has been exceeded' when the key's daily allowance (50/day free) is spent")

add("strava-403", "Strava", "https://github.com/stravalib/stravalib/issues/60 (requests HTTPError text, 2015-10-07); Strava docs (strava/developers.strava.com PR #36): over-limit requests return 403 with a JSON error",
    "www.strava.com", "GET", "https://www.strava.com/api/v3/athlete/activities", 403, [["Content-Type", "application/json; charset=utf-8"]],
    '{"message":"Rate Limit Exceeded","errors":[{"resource":"Application","field":"rate limit","code":"exceeded"}]}',
    "api", "strava", "rate", None, "Strava's documented 403 rate-limit error; it hit just before the 15-minute window rolled over (short-term limit)")

add("metaapi-toomany", "MetaApi (metaapi.cloud)", "https://metaapi.cloud/docs/provisioning/models/tooManyRequestsError/ (documented example body)",
    "mt-provisioning-api-v1.agiliumtrade.agiliumtrade.ai", "GET", "https://mt-provisioning-api-v1.agiliumtrade.agiliumtrade.ai/users/current/accounts", 429, [["Content-Type", "application/json"]],
    '{\n"id": 1,\n"error": "TooManyRequestsError",\n"message": "The /users/current/accounts API allows 10 requests per 60s to avoid overloading our servers. Please wait some time and retry your request or contact support to extend your quota.",\n"metadata": {\n"total": 10,\n"available": 0,\n"needed": 1,\n"resourceId": "user:userId",\n"multiplierId": "accountCount:userId",\n"exceededConfig": "perAccount",\n"exceededPeriod": "60s",\n"recommendedRetryTime": "2022-05-31T09:00:52.361Z",\n"method": "getAccounts",\n"path": "/users/current/accounts"\n}\n}',
    "api", "metaapi", "rate", None, "MetaApi TooManyRequestsError: 10 requests per 60s; docs say a Retry-After header is sent but the example shows none (single quotes in the doc normalised to JSON)")

add("upvest-429", "Upvest", "https://docs.upvest.co/api_errors/too_many_requests (documented example response with headers)",
    "api.upvest.co", "GET", "https://api.upvest.co/accounts", 429,
    [["content-length", "166"], ["content-type", "application/problem+json"], ["date", "Wed, 17 Apr 2024 10:42:01 GMT"],
     ["upvest-request-id", "afcd3c2f-6965-4e1b-bb3e-87a3b481ce29"]],
    '{\n    "type": "https://docs.upvest.co/errors/too_many_requests",\n    "status": 429,\n    "title": "Too many requests",\n    "request_id": "afcd3c2f-6965-4e1b-bb3e-87a3b481ce29"\n}',
    "api", "upvest", "rate", None, "Upvest problem+json too_many_requests ('too many requests in a given amount of time'); no Retry-After")

add("ditto-gateway", "Eclipse Ditto", "eclipse-ditto/ditto documentation/src/main/resources/pages/ditto/protocol/gateway/exceptions/gateway_too_many_requests.md (error payload of the gateway)",
    "ditto.eclipseprojects.io", "GET", "https://ditto.eclipseprojects.io/api/2/things", 429, [["Content-Type", "application/json"]],
    '{\n    "status": 429,\n    "error": "gateway:too.many.requests",\n    "message": "Your Solution is temporarily blocked. Please try again in a few minutes.",\n    "description": "You have sent too many requests at once. Please wait before trying again."\n}',
    "api", "eclipse-ditto", "rate", None, "Ditto's own gateway service error gateway:too.many.requests (part of Ditto, not a third-party proxy)")

add("mclogs-ratelimit", "mclo.gs (Aternos)", "aternosorg/mclogs api/endpoints/rate-error.php (the producer's own code writing the 429)",
    "api.mclo.gs", "POST", "https://api.mclo.gs/1/log", 429, [["Access-Control-Allow-Origin", "*"], ["Content-Type", "application/json"]],
    '{"success":false,"error":"Unfortunately you have exceeded the rate limit for the current time period. Please try again later."}',
    "api", "mclo.gs", "rate", None, "mclo.gs API rate-error endpoint: 'rate limit for the current time period'")

add("hetzner-hourly", "Hetzner Cloud", "https://github.com/Cyclenerd/hcloud-github-runner/issues/5 (curl output of the 429 body, 2025-04-14)",
    "api.hetzner.cloud", "DELETE", "https://api.hetzner.cloud/v1/servers/12345", 429, [["Content-Type", "application/json"], ["Content-Length", "134"]],
    '{\n  "error": {\n    "message": "limit of 3600 requests per hour reached",\n    "code": "rate_limit_exceeded",\n    "details": null\n  }\n}',
    "api", "hetzner", "rate", None, "Hetzner Cloud rate_limit_exceeded: 3600 requests/hour token bucket (refills 1/s) -> rate")

add("discogs-tooquick", "Discogs", "https://github.com/victorloux/discogs-get-collection/issues/1 (discogs_client raises with body['message'], 2019-01-24); response headers of the API from bartve/disconnect#35",
    "api.discogs.com", "GET", "https://api.discogs.com/releases/249504", 429,
    [["server", "nginx"], ["content-type", "application/json"], ["x-discogs-media-type", "discogs.v2"], ["access-control-allow-origin", "*"]],
    '{"message": "You are making requests too quickly."}', "api", "discogs", "rate", None,
    "Discogs: 60 requests/minute per IP; 'making requests too quickly'")

add("twilio-bulk-20429", "Twilio", "https://www.twilio.com/docs/bulk-messaging/api/seek-message-resource (documented 429 error body); code 20429 documented at https://www.twilio.com/docs/api/errors/20429",
    "messaging.twilio.com", "GET", "https://messaging.twilio.com/v2/Messages/SMXXXXXXXX", 429, [["Content-Type", "application/json"]],
    '{\n"errors": [\n{\n"code": 20429,\n"message": "Too many requests. Please retry according to the Retry-After response header.",\n"infoUrl": "https://www.twilio.com/docs/api/errors/20429"\n}\n]\n}',
    "api", "twilio", "concurrency", None, "Twilio error 20429; its error page says it is returned when the account exceeds allowed concurrency to the REST API; Retry-After mentioned but no value shown (infoUrl completed from the code page URL)")

add("telnyx-10011", "Telnyx", "https://developers.telnyx.com/development/api-fundamentals/reliability/rate-limiting (documented 429 body)",
    "api.telnyx.com", "POST", "https://api.telnyx.com/v2/messages", 429, [["Content-Type", "application/json"]],
    '{\n  "errors": [\n    {\n      "code": "10011",\n      "title": "Too many requests",\n      "detail": "You have exceeded the maximum number of allowed requests."\n    }\n  ]\n}',
    "api", "telnyx", "rate", None, "Telnyx error 10011 'exhausted the number of requests allowed in the current window'")

add("pluggy-429", "Pluggy", "https://docs.pluggy.ai/docs/rate-limits (documented 429 body and headers)",
    "api.pluggy.ai", "GET", "https://api.pluggy.ai/transactions?accountId=X", 429, [["Content-Type", "application/json"], ["RateLimit-Limit", "360"]],
    '{\n  "message": "Too many requests. Please try again later (see Retry-After header in seconds)",\n  "code": 429\n}',
    "api", "pluggy", "rate", None, "Pluggy: max requests per minute per IP; RateLimit-Limit 360 shown (other header values cut in the docs excerpt)")

add("heron-429", "Heron Data", "https://docs.herondata.io/errors (documented 429 body)",
    "app.herondata.io", "GET", "https://app.herondata.io/api/transactions", 429, [["Content-Type", "application/json"]],
    '{\n\t"code": 429,\n\t"description": "100 per 1 minute",\n\t"name": "Too Many Requests"\n}',
    "api", "herondata", "rate", None, "Heron Data fixed-window limit '100 per 1 minute'")

add("allo-daily", "Allo", "https://help.withallo.com/en/api-reference/guides/rate-limits (documented 429 body)",
    "api.withallo.com", "GET", "https://api.withallo.com/v1/api/calls", 429, [["Content-Type", "application/json"]],
    '{\n  "code": "API_KEY_QUOTA_EXCEEDED",\n  "details": [\n    {\n      "message": "limit=1000;type=DAILY;reset_in=3600",\n      "field": "DAILY"\n    }\n  ]\n}',
    "api", "allo", "daily", None, "Allo API_KEY_QUOTA_EXCEEDED with type=DAILY (1000/day); reset only in the body")

add("elevenlabs-concurrency", "ElevenLabs", "https://github.com/haguro/elevenlabs-go/pull/25 (example 429 body, 2024-12-09)",
    "api.elevenlabs.io", "POST", "https://api.elevenlabs.io/v1/text-to-speech/VOICE", 429, [["Content-Type", "application/json"]],
    '{\n  "detail": {\n    "status": "too_many_concurrent_requests",\n    "message": "Too many concurrent requests. Your current subscription is associated with a maximum of 5 concurrent requests (running in parallel). This is done such that a single user does not overwhelm our systems and affect other users negatively. Please upgrade your subscription or contact sales if you want to increase this limit."\n  }\n}',
    "api", "elevenlabs", "concurrency", None, "ElevenLabs too_many_concurrent_requests: plan's max concurrent requests")

add("overpass-quota", "Overpass API (overpass-api.de)", "https://github.com/drolbr/Overpass-API/issues/447 (429 body quoted, 2017-11-14)",
    "overpass-api.de", "POST", "https://overpass-api.de/api/interpreter", 429, [["Content-Type", "text/html; charset=utf-8"]],
    '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN"\n    "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">\n<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en" lang="en">\n<head>\n  <meta http-equiv="content-type" content="text/html; charset=utf-8" lang="en"/>\n  <title>OSM3S Response</title>\n</head>\n<body>\n\n<p>The data included in this document is from www.openstreetmap.org. The data is made available under ODbL.</p>\n<p><strong style="color:#FF0000">Error</strong>: runtime error: open64: 0 Success /osm3s_v0.7.54_osm_base Dispatcher_Client::request_read_and_idx::rate_limited. Please check /api/status for the quota of your IP address.\n </p>\n\n</body>\n</html>\n',
    "api", "overpass-api", "rate", None, "Overpass dispatcher 'rate_limited ... quota of your IP address' (per-IP slot quota, slots free over time)")

add("overpass-concurrent", "Overpass API (overpass-api.de)", "https://github.com/drolbr/Overpass-API/issues/229 (response body quoted, 2015-12-21); status 429 per the same project's issues",
    "overpass-api.de", "POST", "https://overpass-api.de/api/interpreter", 429, [["Content-Type", "text/html; charset=utf-8"]],
    '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN"\n    "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">\n<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en" lang="en">\n<head>\n  <meta http-equiv="content-type" content="text/html; charset=utf-8" lang="en"/>\n  <title>OSM3S Response</title>\n</head>\n<body>\n\n<p>The data included in this document is from www.openstreetmap.org. The data is made available under ODbL.</p>\n<p><strong style="color:#FF0000">Error</strong>: runtime error: open64: 0 Success /osm3s_v0.7.51_osm_base Dispatcher_Client::request_read_and_idx::rate_limited. Another request from your IP is still running.\n </p>\n\n</body>\n</html>\n',
    "api", "overpass-api", "concurrency", None, "'Another request from your IP is still running' = per-IP concurrent request limit")

add("quickbooks-429", "Intuit QuickBooks Online", "https://github.com/beanworks/quickbooks-online-v3-sdk/issues/6 (429 body, 2017-07-30)",
    "quickbooks.api.intuit.com", "POST", "https://quickbooks.api.intuit.com/v3/company/123/invoice", 429, [["Content-Type", "application/xml"]],
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<IntuitResponse time="2017-07-30T22:45:22.933-07:00" xmlns="http://schema.intuit.com/finance/v3">\n    <Fault type="SERVICE">\n        <Error code="3001">\n            <Message>message=ThrottleExceeded; errorCode=003001; statusCode=429</Message>\n            <Detail>The request limit was reached.  Try again later</Detail>\n        </Error>\n    </Fault>\n</IntuitResponse>',
    "api", "quickbooks", "rate", None, "Intuit ThrottleExceeded 003001; 500 requests per minute per realm")

add("quickbooks-403", "Intuit QuickBooks Online", "https://github.com/ruckus/quickbooks-ruby/issues/338 (403 throttle body, 2016-10-27)",
    "quickbooks.api.intuit.com", "GET", "https://quickbooks.api.intuit.com/v3/company/123/query?query=select", 403, [["Content-Type", "application/xml"]],
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<IntuitResponse time="2016-10-27T15:07:56.120-07:00" xmlns="http://schema.intuit.com/finance/v3">\n    <Fault type="SERVICE">\n        <Error code="3001">\n            <Message>message=ThrottleExceeded; errorCode=003001; statusCode=403</Message>\n            <Detail>The request limit was reached.  Try again later</Detail>\n        </Error>\n    </Fault>\n</IntuitResponse>',
    "api", "quickbooks", "rate", None, "Same documented ThrottleExceeded 003001 code, served as 403 before Intuit moved to 429")

add("tyk-ors-quota-403", "Tyk gateway (in front of openrouteservice)", "https://github.com/chatziko/location-guard/issues/101 (Firefox devtools headers, 2023-05-02); 403 = daily limit per GIScience/openrouteservice PR #1705 ('yay tyk')",
    "api.openrouteservice.org", "GET", "https://api.openrouteservice.org/geocode/search?text=bassano%20del%20grappa&api_key=REDACTED", 403,
    [["content-length", "33"], ["content-type", "application/json"], ["date", "Tue, 02 May 2023 13:07:35 GMT"], ["server", "nginx/1.23.1"], ["x-generator", "tyk.io"]],
    '{\n    "error": "Quota exceeded"\n}', "proxy", "tyk", "daily", None,
    "x-generator: tyk.io; Tyk's error template (33 bytes = content-length) 'Quota exceeded'; ORS maintainers: 403 = daily quota")

add("tyk-ors-rate-429", "Tyk gateway (in front of openrouteservice)", "https://github.com/GIScience/openrouteservice-r/issues/15 ('[429] Rate limit exceeded', 2018-05-08); body in Tyk's error template",
    "api.openrouteservice.org", "GET", "https://api.openrouteservice.org/geocode/search?text=Heidelberg&api_key=REDACTED", 429, [["content-type", "application/json"]],
    '{\n    "error": "Rate limit exceeded"\n}', "proxy", "tyk", "rate", None,
    "ORS per-minute limit enforced by its Tyk gateway; message 'Rate limit exceeded' as the client printed it")

add("alibaba-throttling-user", "Alibaba Cloud (STS)", "https://github.com/turbot/steampipe-plugin-alicloud/issues/483 ('ErrorCode: Throttling.User. Request was denied due to user flow control.', 2024-12-18); Throttling.User is HTTP 400 in Alibaba Cloud's error center",
    "sts.aliyuncs.com", "POST", "https://sts.aliyuncs.com/?Action=GetCallerIdentity", 400, [["Content-Type", "application/json;charset=utf-8"]],
    '{"Code":"Throttling.User","Message":"Request was denied due to user flow control.","HostId":"sts.aliyuncs.com"}',
    "api", "alibaba-cloud", "rate", None, "documented throttling code Throttling.User (user flow control = per-user request rate)")

add("freshdesk-429", "Freshdesk", "https://github.com/sjkingo/python-freshdesk/issues/91 ('429 Rate Limit Exceeded: API rate-limit has been reached until 9 seconds', 2024-04-20; the client formats the Retry-After header into that message)",
    "example.freshdesk.com", "GET", "https://example.freshdesk.com/api/v2/tickets/123?include=requester", 429, [["Retry-After", "9"]],
    "", "api", "freshdesk", "rate", 9, "Freshdesk per-minute API limit; python-freshdesk reports the Retry-After value (9)")

add("encompass-100002", "ICE Encompass (Ellie Mae) API", "https://github.com/EncompassRest/EncompassRest/issues/338 (429 body, 2020-05-31)",
    "api.elliemae.com", "GET", "https://api.elliemae.com/encompass/v1/loans/c927cfb6-8075-4c5a-bcf7-f5497b48465e", 429, [["Content-Type", "application/json"]],
    '{"code":"100002","message":"Client has exceeded the concurrency limit or daily quota. Please contact your account manager."}',
    "api", "encompass", "concurrency", None, "code 100002 names both concurrency and daily quota; sporadic under 10 parallel loans -> concurrency (doubtful)")

add("x-code88", "X (Twitter) API", "https://docs.x.com/fundamentals/rate-limits (documented 429 body; x-rate-limit-* headers shown on the same page with example values of a successful response)",
    "api.x.com", "GET", "https://api.x.com/2/tweets/search/recent?query=x", 429, [["Content-Type", "application/json"]],
    '{\n  "errors": [{\n    "code": 88,\n    "message": "Rate limit exceeded"\n  }]\n}', "api", "x", "rate", None,
    "X/Twitter error code 88 'Rate limit exceeded' (15-minute windows)")

add("icepanel-429", "IcePanel", "https://developer.icepanel.io/developer-guide/getting-started/rate-limits (documented 429 body)",
    "api.icepanel.io", "POST", "https://api.icepanel.io/v1/landscapes/X/versions/latest/model/objects", 429, [["Content-Type", "application/json"]],
    '{\n "message": "Too Many Requests"\n}', "api", "icepanel", "rate", None,
    "IcePanel per-minute limits; docs say Retry-After is sent but show no value")

add("sinch-problem", "Sinch", "https://developers.sinch.com/docs/errors/registry/too-many-requests (documented problem body)",
    "numbers.api.sinch.com", "GET", "https://numbers.api.sinch.com/v1/projects/P/activeNumbers", 429, [["Content-Type", "application/problem+json"]],
    '{ "type": "https://developers.sinch.com/docs/errors/registry/too-many-requests", "title": "Too Many Requests", "detail": "The request rate limit has been exceeded." }',
    "api", "sinch", "rate", None, "Sinch error registry too-many-requests: request rate limit exceeded (host chosen among Sinch API hosts)")

add("prisjakt-hourly", "Prisjakt", "https://developer.prisjakt.nu/docs/sections/rate-limit (documented example of a rate-limited response)",
    "api.prisjakt.nu", "GET", "https://api.prisjakt.nu/products/123", 429,
    [["X-Rate-Limit-Limit", "10000"], ["X-Rate-Limit-Remaining", "0"], ["X-Rate-Limit-Reset", "600000"]],
    "", "api", "prisjakt", "rate", None,
    "Prisjakt: limit per hour (X-Rate-Limit-Limit 10000/hour), reset in milliseconds (600000 = 10 min); an hourly window counts as rate")

add("firecrawl-429", "Firecrawl", "https://github.com/firecrawl/firecrawl/issues/819 (current 429 body quoted by the maintainer, 2024-10-24)",
    "api.firecrawl.dev", "POST", "https://api.firecrawl.dev/v1/crawl", 429, [["Content-Type", "application/json"]],
    '{"success": false, "error": "Rate limit exceeded. Consumed (req/min): 11, Remaining (req/min): 0. Upgrade your plan at https://firecrawl.dev/pricing for increased rate limits or please retry after 25s, resets at Wed Oct 23 2024 23:13:13 GMT+0000 (Coordinated Universal Time)"}',
    "api", "firecrawl", "rate", None, "req/min limit; the wait (25s) is only in the body text, no Retry-After header (the issue asks for one)")

add("kucoin-429000", "KuCoin", "https://github.com/ccxt/ccxt/issues/16185 (ccxt error with the body, 2022-12-23)",
    "api.kucoin.com", "GET", "https://api.kucoin.com/api/v3/market/orderbook/level2?symbol=SDL-USDT", 429, [["Content-Type", "application/json"]],
    '{"code":"429000","msg":"Too Many Requests"}', "api", "kucoin", "rate", None,
    "KuCoin code 429000 (request rate limit / busy; docs: 429 when a rate limit is exceeded)")

add("finnhub-429", "Finnhub", "https://github.com/finnhubio/Finnhub-API/issues/466 (FinnhubAPIException with the 429 text, 2021-11-01)",
    "finnhub.io", "GET", "https://finnhub.io/api/v1/quote?symbol=AAPL&token=REDACTED", 429, [["Content-Type", "text/plain; charset=utf-8"]],
    "API limit reached. Please try again later. Remaining Limit: 0", "api", "finnhub", "rate", None,
    "Finnhub per-second/per-minute API limit ('Remaining Limit: 0')")

add("signatureapi-429", "SignatureAPI", "https://signatureapi.com/docs/v1/errors/too-many-requests (documented example response)",
    "api.signatureapi.com", "POST", "https://api.signatureapi.com/v1/envelopes", 429, [["Content-Type", "application/problem+json"]],
    '{\n  "type": "https://signatureapi.com/docs/v1/errors/too-many-requests",\n  "title": "Too Many Requests",\n  "status": 429,\n  "detail": "Too many requests for this user. Retry after the number of seconds in the Retry-After header."\n}',
    "api", "signatureapi", "rate", None, "SignatureAPI too-many-requests problem; Retry-After referenced but no value in the example")

add("wikimedia-ua-block", "Wikimedia (Wikipedia API)", "https://github.com/spencermountain/wtf_wikipedia/issues/334 (429 body quoted, 2020-01-29)",
    "en.wikipedia.org", "GET", "https://en.wikipedia.org/w/api.php?action=query&format=json&titles=X", 429, [["Content-Type", "text/plain"]],
    "Scripted requests from your IP have been blocked, please contact noc@wikimedia.org, and see also https://meta.wikimedia.org/wiki/User-Agent_policy",
    "api", "wikimedia", "unknown", None,
    "Wikimedia's own edge blocks scripted traffic from the IP; the response states no window or kind of limit -> unknown; layer api because Wikimedia runs the edge itself (doubtful: could be read as cdn)")

add("trakt-post-limit", "Trakt", "https://github.com/glensc/python-pytrakt/pull/36 (X-Ratelimit header value of a 429, 2024-01-08); Trakt docs: 429 with Retry-After and X-Ratelimit",
    "api.trakt.tv", "POST", "https://api.trakt.tv/sync/history", 429,
    [["X-Ratelimit", '{"name":"AUTHED_API_POST_LIMIT","period":1,"limit":1,"remaining":0,"until":"2024-01-08T22:31:48Z"}']],
    "", "api", "trakt", "rate", None,
    "Trakt AUTHED_API_POST_LIMIT: 1 POST per 1-second period; Retry-After value not recorded")

add("apisix-429-openresty", "Apache APISIX", "https://github.com/apache/apisix/issues/5107 (limit-count rejection body, rejected_code 429, 2021-09-21)",
    "127.0.0.1:9080", "GET", "http://127.0.0.1:9080/order/list?pageSize=10", 429, [["Content-Type", "text/html; charset=utf-8"]],
    "<html>\n<head><title>429 Too Many Requests</title></head>\n<body>\n<center><h1>429 Too Many Requests</h1></center>\n<hr><center>openresty</center>\n</body>\n</html>",
    "proxy", "apisix", "rate", None,
    "APISIX limit-count (10 per 60 s by remote_addr) rejected in front of the backend; body is OpenResty's default page; no headers recorded beyond the HTML body (Content-Type added)")

add("weibo-10023", "Sina Weibo Open API", "https://github.com/sinaweibosdk/weibo_android_sdk/issues/467 (error body, 2019-06-22); 10023 is Weibo's documented 'User requests out of rate limit' code, served with HTTP 403",
    "api.weibo.com", "GET", "https://api.weibo.com/2/statuses/public_timeline.json", 403, [["Content-Type", "application/json;charset=UTF-8"]],
    '{\n    "error": "User requests out of rate limit!",\n    "error_code": 10023,\n    "request": "/2/statuses/public_timeline.json"\n}',
    "api", "weibo", "rate", None, "error_code 10023 per-user hourly limit (user_limit 150 per HOURS in the same issue) -> rate")

add("accuweather-503-fixture", "AccuWeather", "bieniu/accuweather tests (test_requests_exceeded_error payload; find_string id 12979317707); HTTP 503 per AccuWeather clients (find_string id 38128893943)",
    "dataservice.accuweather.com", "GET", "https://dataservice.accuweather.com/locations/v1/cities/geoposition/search?apikey=REDACTED&q=52.0677904%2C19.4795644", 503, [["Content-Type", "application/json; charset=utf-8"]],
    '{"Code": "ServiceUnavailable", "Message": "The allowed number of requests has been exceeded."}',
    "api", "accuweather", "daily", None, "same documented AccuWeather allowance error without Reference; free keys get 50 calls/day")

add("saturn-l1-limitreq", "Filecoin Saturn L1 CDN node", "filecoin-saturn/L1-node@f40048e8549063800f1fe14530d9ecfb6a1b794e container/nginx/nginx.conf (limit_req_status 429, 300r/s per IP), conf.d/shared.conf (always-added headers), conf.d/proxy.conf (map 429 -> Retry-After '10'); server_tokens off; body = nginx's built-in 429 page",
    "strn.pl", "GET", "https://strn.pl/ipfs/bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi", 429,
    [["Server", "nginx"], ["Content-Type", "text/html"], ["Saturn-Node-Id", "NODE_ID"], ["Saturn-Node-Version", "NODE_VERSION"],
     ["Saturn-Transfer-Id", "0f1e2d3c4b5a69788796a5b4c3d2e1f0"], ["Server-Timing", "nginx;dur=0, nginx_uct;dur=, nginx_uht;dur=, nginx_urt;dur="],
     ["Timing-Allow-Origin", "*"], ["Strict-Transport-Security", "max-age=63072000; includeSubDomains; preload"], ["Retry-After", "10"],
     ["Access-Control-Allow-Origin", "*"], ["Access-Control-Allow-Methods", "GET, POST, OPTIONS"],
     ["Access-Control-Allow-Headers", "DNT,User-Agent,X-Requested-With,If-Modified-Since,Cache-Control,Content-Type,Range,Traceparent"],
     ["Access-Control-Expose-Headers", "*"], ["Accept-Ranges", "none"]],
    "<html>\r\n<head><title>429 Too Many Requests</title></head>\r\n<body>\r\n<center><h1>429 Too Many Requests</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n",
    "cdn", "saturn", "rate", 10,
    "Saturn's CDN edge (L1 node, nginx inside) answers itself via limit_req per IP; Saturn-Node-* headers mark the edge; Retry-After 10 from its map; node id/version/transfer id are placeholders")

add("akeneo-429", "Akeneo PIM", "akeneo/pim-api-docs PR #512 content/rest-api/responses.md (documented 429 example, 2021-08-18)",
    "example.cloud.akeneo.com", "GET", "https://example.cloud.akeneo.com/api/rest/v1/products", 429, [["Retry-After", "15"]],
    "", "api", "akeneo", "rate", 15, "Akeneo PIM API rate limit; Retry-After: 15 in the documented example; no body shown")

add("zulip-ratelimit", "Zulip", "https://github.com/zulip/zulip/issues/5413 (429 body from the API, 2017-06-15); status 429 per zerver/middleware.py in zulip/zulip PR #4872",
    "chat.zulip.org", "GET", "https://chat.zulip.org/json/messages?anchor=newest", 429, [["Content-Type", "application/json"]],
    '{"msg":"API usage exceeded rate limit","retry-after":0.2033631802,"result":"error"}', "api", "zulip", "rate", None,
    "Zulip per-user request rate limiter; wait only in the body's retry-after field (no header recorded)")

json.dump(C, open("cases.json", "w"), indent=1)
print(len(C), "cases")
