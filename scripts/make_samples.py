#!/usr/bin/env python3
"""Regenerate samples/ deterministically: python3 scripts/make_samples.py

cdn-burst.har      A Chrome DevTools-style export of a dashboard page. The page loads its static
                   assets, then its script fires 60 API calls in ~1.5 s; Cloudflare's rate-limiting
                   rule answers the tail of the burst with error 1015 (429, Retry-After: 30). Every
                   response carries Cloudflare's path headers (cf-ray, server: cloudflare); the
                   API's own JSON 404 passes through them too.
api-incident.jsonl A JSON-lines client log: three workers sharing one API key against an origin API
                   that allows 120 requests/min (X-RateLimit-* headers, JSON 429 with Retry-After:
                   12). The workers retry after ~12 ms (seconds read as milliseconds) and retry POST
                   writes without an idempotency key.
Secrets in these files are fake and get redacted by toomany on ingestion.
"""
import json, random, datetime as dt

random.seed(429)
T0 = dt.datetime(2026, 11, 3, 14, 2, 5, 120000, tzinfo=dt.timezone.utc)

def iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"

def http_date(t):
    return t.strftime("%a, %d %b %Y %H:%M:%S GMT")

def hdrs(d):
    return [{"name": k, "value": v} for k, v in d]

UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

def cdn_burst():
    entries = []
    t = T0
    ray = 0x8e1f3a2b4c5d6000
    def cf_headers(ctype, when, extra=()):
        nonlocal ray
        ray += 0x1f3
        return [("date", http_date(when)), ("content-type", ctype), ("cf-ray", f"{ray:x}-FRA"),
                ("server", "cloudflare"), ("cf-cache-status", "DYNAMIC"), *extra]
    def entry(method, url, status, rh, resp_h, body, mime, wait, start, page="page_1", req_body=None):
        e = {
            "_initiator": {"type": "script"}, "_priority": "High", "_resourceType": "fetch",
            "cache": {}, "connection": "443", "pageref": page,
            "request": {"method": method, "url": url, "httpVersion": "h2", "headers": hdrs(rh),
                        "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
            "response": {"status": status, "statusText": "", "httpVersion": "h2", "headers": hdrs(resp_h),
                         "cookies": [], "content": {"size": len(body), "mimeType": mime, "text": body},
                         "redirectURL": "", "headersSize": -1, "bodySize": len(body), "_transferSize": len(body) + 300},
            "serverIPAddress": "104.18.20.31", "startedDateTime": iso(start),
            "time": round(wait + 1.5, 3),
            "timings": {"blocked": 0.4, "dns": -1, "ssl": -1, "connect": -1, "send": 0.1, "wait": wait, "receive": 1.0},
        }
        if req_body is not None:
            e["request"]["postData"] = {"mimeType": "application/json", "text": req_body}
        return e
    # Page and static assets.
    page_h = [(":authority", "shop.example.com"), (":method", "GET"), (":path", "/dashboard"), (":scheme", "https"),
              ("user-agent", UA), ("cookie", "session=fake-session-7f3a9c; theme=dark")]
    entries.append(entry("GET", "https://shop.example.com/dashboard", 200, page_h,
                         cf_headers("text/html; charset=utf-8", t), "<html>...</html>", "text/html", 180.0, t, ))
    for i, asset in enumerate(["app.js", "vendor.js", "app.css", "logo.svg", "font.woff2", "chart.js"]):
        st = t + dt.timedelta(milliseconds=210 + 7 * i)
        entries.append(entry("GET", f"https://shop.example.com/static/{asset}", 200,
                             [(":authority", "shop.example.com"), ("user-agent", UA), ("referer", "https://shop.example.com/dashboard")],
                             cf_headers("application/javascript", st, [("cf-cache-status", "HIT")]), "", "application/javascript", 12.0, st))
    # The burst: 60 API calls in ~1.5 s, one per product card.
    token = "Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJkYXNoYm9hcmQtdXNlci00MiJ9.ZmFrZS1zaWduYXR1cmU"
    blocked_after = 40
    for i in range(60):
        st = t + dt.timedelta(milliseconds=900 + i * 25 + random.randint(0, 6))
        url = f"https://api.shop.example.com/v2/products/{1000 + i}/stock?currency=EUR&access_token=fake-at-{i % 3}"
        rh = [(":authority", "api.shop.example.com"), (":method", "GET"), ("accept", "application/json"),
              ("authorization", token), ("origin", "https://shop.example.com"), ("user-agent", UA)]
        api_base = [("access-control-allow-origin", "https://shop.example.com"), ("x-request-id", f"req-{i:04d}-a1"),
                    ("x-ratelimit-limit", "600"), ("x-ratelimit-remaining", str(max(0, 560 - i)))]
        if i < blocked_after:
            if i == 17:
                body = '{"error":"not_found","message":"product 1017 has no stock record"}'
                entries.append(entry("GET", url, 404, rh, cf_headers("application/json", st, api_base), body,
                                     "application/json", 41.0, st))
            else:
                body = json.dumps({"product": 1000 + i, "stock": random.randint(0, 40)})
                entries.append(entry("GET", url, 200, rh, cf_headers("application/json", st, api_base), body,
                                     "application/json", 38.0 + random.random() * 20, st))
        else:
            body = ("<!DOCTYPE html>\n<html><head><title>Access denied | api.shop.example.com used Cloudflare to restrict access</title></head>"
                    "<body><div id=\"cf-wrapper\"><h1><span>Error</span> <span>1015</span></h1>"
                    "<h2>You are being rate limited</h2><p>The owner of this website (api.shop.example.com) has banned you temporarily from accessing this website.</p>"
                    f"<span>Cloudflare Ray ID: <strong>{ray:x}</strong></span></div></body></html>")
            entries.append(entry("GET", url, 429, rh,
                                 cf_headers("text/html; charset=UTF-8", st, [("retry-after", "30"), ("cf-error-type", "ratelimit"),
                                                                              ("x-frame-options", "SAMEORIGIN")]),
                                 body, "text/html", 3.0, st))
    har = {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"},
                   "pages": [{"startedDateTime": iso(t), "id": "page_1", "title": "https://shop.example.com/dashboard",
                              "pageTimings": {"onContentLoad": 420.1, "onLoad": 980.4}}],
                   "entries": entries}}
    with open("samples/cdn-burst.har", "w") as f:
        json.dump(har, f, indent=2)
        f.write("\n")

def api_incident():
    lines = []
    key = "sk-live-fake-2f9c1e7a5b3d4c6e8f0a"
    workers = ["billing-worker-1", "billing-worker-2", "report-cron"]
    t = T0
    window_start = t
    used = 0
    for i in range(150):
        w = workers[i % 3]
        st = t + dt.timedelta(milliseconds=i * 180 + random.randint(0, 40))
        method = "POST" if i % 5 == 0 else "GET"
        url = "https://api.example.com/v1/charges" if method == "POST" else f"https://api.example.com/v1/customers/{200 + i % 17}"
        def record(st, status, headers, body, attempt):
            return {
                "time": iso(st), "method": method, "url": url, "status": status,
                "duration_ms": round(85 + random.random() * 60, 1) if status != 429 else 6.0,
                "client": w, "request_id": f"{w}-{i}-{attempt}",
                "request_headers": {"Authorization": f"Bearer {key}", "User-Agent": "billing-sdk/3.2 (python)",
                                    "Content-Type": "application/json"},
                "response_headers": headers, "response_body": body,
            }
        used += 1
        remaining = 120 - used
        reset = 60 - int((st - window_start).total_seconds()) % 60
        base = {"Date": http_date(st), "Content-Type": "application/json", "X-RateLimit-Limit": "120",
                "X-RateLimit-Reset": str(reset)}
        if remaining >= 0:
            lines.append(record(st, 200 if method == "GET" else 201,
                                {**base, "X-RateLimit-Remaining": str(remaining)}, "", 1))
        else:
            body = json.dumps({"error": {"type": "rate_limit_exceeded", "message": "Rate limit of 120 requests per minute exceeded. Retry after 12 seconds."}})
            lines.append(record(st, 429, {**base, "X-RateLimit-Remaining": "0", "Retry-After": "12"}, body, 1))
            # The client reads Retry-After: 12 as milliseconds and retries almost at once.
            rt = st
            for attempt in range(2, 5):
                rt = rt + dt.timedelta(milliseconds=12 + random.randint(0, 3))
                lines.append(record(rt, 429, {**base, "Date": http_date(rt), "X-RateLimit-Remaining": "0", "Retry-After": "12"}, body, attempt))
    lines.sort(key=lambda r: r["time"])
    with open("samples/api-incident.jsonl", "w") as f:
        for r in lines:
            f.write(json.dumps(r) + "\n")

cdn_burst()
api_incident()
