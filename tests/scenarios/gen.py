"""Scenario corpus for tests/detect_cli.rs: realistic incidents and clean traffic, generated
independently of the Rust simulator in src/detect/testkit.rs. expected.json lists the finding
kinds each file must produce (exactly). Regenerate with:

    cd tests/scenarios && python3 gen.py && for f in *.jsonl *.har; do gzip -9 -f "$f"; done
"""
import hashlib, json, math, random, os
from datetime import datetime, timedelta, timezone

B = datetime(2026, 4, 7, 10, 0, 0, tzinfo=timezone.utc)
OUT = os.path.dirname(os.path.abspath(__file__))
R = random.Random(2024)


def ts(t):
    return (B + timedelta(seconds=t)).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def har_entry(t, method, url, status, dur, page="page_1", req_h=None, resp_h=None, body=None, ua="Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/126.0 Safari/537.36"):
    h = [{"name": "User-Agent", "value": ua}]
    for k, v in (req_h or {}).items():
        h.append({"name": k, "value": v})
    rh = [{"name": k, "value": v} for k, v in (resp_h or {}).items()]
    content = {"size": len(body or ""), "mimeType": "application/json"}
    if body:
        content["text"] = body
    return {"pageref": page, "startedDateTime": ts(t), "time": dur,
            "request": {"method": method, "url": url, "httpVersion": "h2", "headers": h, "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
            "response": {"status": status, "statusText": "", "httpVersion": "h2", "headers": rh, "cookies": [], "content": content, "redirectURL": "", "headersSize": -1, "bodySize": -1},
            "cache": {}, "timings": {"blocked": 1, "dns": -1, "connect": -1, "send": 0, "wait": dur * 0.8, "receive": dur * 0.2, "ssl": -1}}


def write_har(name, entries):
    entries.sort(key=lambda e: e["startedDateTime"])
    har = {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"},
                   "pages": [{"startedDateTime": ts(0), "id": "page_1", "title": "app", "pageTimings": {}}], "entries": entries}}
    json.dump(har, open(os.path.join(OUT, name), "w"))


def write_jsonl(name, recs):
    recs.sort(key=lambda r: r["time"])
    with open(os.path.join(OUT, name), "w") as f:
        for r in recs:
            f.write(json.dumps(r) + "\n")


def rec(t, method, url, status, dur, client=None, req_h=None, resp_h=None, body=None, req_body=None, ua=None):
    r = {"time": ts(t), "method": method, "url": url, "status": status, "duration_ms": round(dur, 1)}
    if client:
        r["client"] = client
    if ua:
        r["user_agent"] = ua
    r["request_headers"] = req_h or {}
    r["response_headers"] = resp_h or {}
    if body:
        r["response_body"] = body
    if req_body:
        r["request_body"] = req_body
    return r


def page_assets(entries, t0, n):
    entries.append(har_entry(t0, "GET", "https://app.example.com/", 200, 150))
    for i in range(n):
        entries.append(har_entry(t0 + 0.15 + R.random() * 0.8, "GET", f"https://cdn.example.net/static/{i:03d}.{['js','css','png','woff2'][i%4]}", 200, 30 + R.random() * 300))


expected = {}

# 1. SPA: page load, a few API calls, one 429 retried once after honouring Retry-After.
e = []
page_assets(e, 0.0, 80)
for k in range(10):
    t = 2.0 + k * 4.0
    e.append(har_entry(t, "GET", f"https://api.example.com/v1/search?q=term{k}", 429 if k == 4 else 200, 12 if k == 4 else 220,
                       req_h={"Origin": "https://app.example.com"}, resp_h={"Retry-After": "5", "Access-Control-Expose-Headers": "Retry-After"} if k == 4 else {}))
    if k == 4:
        e.append(har_entry(t + 5.6, "GET", f"https://api.example.com/v1/search?q=term{k}", 200, 210, req_h={"Origin": "https://app.example.com"}))
write_har("spa-clean.har", e)
expected["spa-clean.har"] = []

# 2. SPA with fetch-retry: 6 widgets load in parallel, get 429, retry 5 times 300 ms apart.
e = []
page_assets(e, 0.0, 40)
allowed = 0
for w in range(6):
    for a in range(6):
        t = 1.5 + w * 0.01 + a * 0.31
        st = 200 if (a == 5 and w < 3) else 429
        e.append(har_entry(t, "GET", f"https://api.example.com/v1/widgets/{w}", st, 9 if st == 429 else 180,
                           req_h={"Origin": "https://app.example.com"}, resp_h={"Retry-After": "10"} if st == 429 else {}))
for k in range(12):
    e.append(har_entry(20 + k * 7.0, "GET", "https://api.example.com/v1/notifications", 200, 90, req_h={"Origin": "https://app.example.com"}))
write_har("spa-retry-loop.har", e)
expected["spa-retry-loop.har"] = ["ignored_retry_after", "retry_after_not_exposed", "retry_storm", "synchronized_retries"]

# 3. Cron burst: 600 in ~10 s against 120/min, no retries.
recs = []
for i in range(600):
    t = 30 + i * 0.017 + R.random() * 0.004
    st = 200 if i < 120 else 429
    recs.append(rec(t, "GET", f"https://api.example.com/v2/customers/{i}", st, 15 if st == 429 else 60, client="cron-sync",
                    req_h={"Authorization": "Bearer sk-test-cron000"}, resp_h={"Retry-After": "40"} if st == 429 else {}))
for k in range(20):
    recs.append(rec(k * 30.0, "GET", "https://api.example.com/v2/health", 200, 20, client="monitor"))
write_jsonl("cron-burst.jsonl", recs)
expected["cron-burst.jsonl"] = ["burst"]

# 4. Three services sharing one key, each ~55/min, limit 120/min (fixed window); 1 retry after RA.
recs = []
counts = {}
evs = []
for s_i, svc in enumerate(["billing", "reports", "crm-sync"]):
    t = s_i * 0.3
    while t < 300:
        evs.append((t, svc, 0))
        t += 60 / 55 * (0.8 + 0.4 * R.random())
evs.sort()
import heapq
q = list(evs)
heapq.heapify(q)
n = 0
while q:
    t, svc, att = heapq.heappop(q)
    w = math.floor(t / 60)
    c = counts.get(w, 0)
    ok = c < 120
    if ok:
        counts[w] = c + 1
    n += 1
    url = f"https://api.example.com/v1/records/{n}" if att == 0 else f"https://api.example.com/v1/records/r{int(t*1000)}"
    ra = math.ceil((w + 1) * 60 - t)
    recs.append(rec(t, "GET", f"https://api.example.com/v1/records/{svc}-{int(t*1000) if att==0 else 'retry'}", 200 if ok else 429, 100 if ok else 10,
                    client=svc, req_h={"X-API-Key": "sk-test-sharedkey123"}, resp_h={} if ok else {"Retry-After": str(ra)}))
write_jsonl("shared-key.jsonl", recs)
expected["shared-key.jsonl"] = ["shared_key_contention"]

# 5. Payments retried after 502/504 without idempotency key.
recs = []
for k in range(25):
    t = k * 6.0
    body = json.dumps({"amount": 100 + k, "currency": "usd"})
    if k % 4 == 1:
        recs.append(rec(t, "POST", "https://pay.example.com/v1/payments", 504, 30000, client="shop-backend", req_h={"Authorization": "Bearer sk-test-pay111"}, req_body=body, body="upstream timeout"))
        recs.append(rec(t + 31.0, "POST", "https://pay.example.com/v1/payments", 201, 400, client="shop-backend", req_h={"Authorization": "Bearer sk-test-pay111"}, req_body=body))
    else:
        recs.append(rec(t, "POST", "https://pay.example.com/v1/payments", 201, 400, client="shop-backend", req_h={"Authorization": "Bearer sk-test-pay111"}, req_body=body))
write_jsonl("payments.jsonl", recs)
expected["payments.jsonl"] = ["unsafe_retry"]

# 5b. Same with a stable idempotency key: clean.
for r in recs:
    r["request_headers"]["Idempotency-Key"] = "key-" + hashlib.sha256(r["request_body"].encode()).hexdigest()[:12]
write_jsonl("payments-idempotent.jsonl", recs)
expected["payments-idempotent.jsonl"] = []

# 6. LLM credit exhausted (headers + body), the client keeps trying every 10 s.
recs = []
for k in range(60):
    t = k * 10.0
    ok = k < 25
    recs.append(rec(t, "POST", "https://api.openai.example/v1/chat/completions", 200 if ok else 429, 2000 if ok else 50, client="assistant",
                    req_h={"Authorization": "Bearer sk-test-llm"},
                    resp_h={"x-ratelimit-limit-requests": "10000", "x-ratelimit-remaining-requests": "9000"} if ok else {"retry-after": "20"},
                    body=None if ok else '{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}',
                    req_body=json.dumps({"n": k})))
write_jsonl("llm-quota.jsonl", recs)
expected["llm-quota.jsonl"] = ["quota_exhausted"]

# 7. Concurrency limit of 3: 6 workers, 3-6 s renders, retry once after 2-4 s.
recs = []
inflight = []
q = [(k * 0.7, k, 0, 0) for k in range(6)]
heapq.heapify(q)
while q:
    t, k, job, att = heapq.heappop(q)
    inflight = [x for x in inflight if x > t]
    if len(inflight) >= 3:
        st, d = 429, 15
    else:
        st, d = 200, 3000 + R.random() * 3000
        inflight.append(t + d / 1000)
    recs.append(rec(t, "GET", f"https://pdf.example.com/v1/render/{k}-{job}", st, d, client=f"worker-{k}", req_h={"Authorization": "Bearer sk-test-pdf"},
                    resp_h={"Retry-After": "2"} if st == 429 else {}, body='{"error":"rate limit exceeded"}' if st == 429 else None))
    end = t + d / 1000
    if st == 429 and att < 1:
        heapq.heappush(q, (end + 2 + 2 * R.random(), k, job, att + 1))
    elif job < 20:
        heapq.heappush(q, (end + 0.2 + R.random() * 0.3, k, job + 1, 0))
write_jsonl("concurrency.jsonl", recs)
expected["concurrency.jsonl"] = ["concurrency_limit"]

# 8. Dashboard polling every 5 s, 8 widgets, 1 h, the odd 429 (no retry, next poll on cadence).
recs = []
for rnd in range(180):
    for w in range(8):
        t = rnd * 5.0 + w * 0.02 + R.random() * 0.05
        st = 429 if R.random() < 0.01 else 200
        recs.append(rec(t, "GET", f"https://grafana.example.com/api/ds/query?panel={w}", st, 12 if st == 429 else 80 + R.random() * 200,
                        ua="Mozilla/5.0 Firefox/128.0", req_h={"Cookie": "grafana_session=abc"}, resp_h={"Retry-After": "10"} if st == 429 else {}))
write_jsonl("dashboard.jsonl", recs)
expected["dashboard.jsonl"] = []

# 9. Steady 100/min for 30 min against 120/min (checked with --limit too).
recs = []
t = 0.0
i = 0
while t < 600:
    recs.append(rec(t, "GET", f"https://api.example.com/v1/events?cursor={i}", 200, 150 + R.random() * 80, client="ingestor", req_h={"Authorization": "Bearer sk-test-ing"}))
    t += 0.6 * (0.85 + 0.3 * R.random())
    i += 1
write_jsonl("steady.jsonl", recs)
expected["steady.jsonl"] = []

# 10. Herd: 40 workers limited together, all back exactly after Retry-After 30.
recs = []
for w in range(40):
    t = 5.0 + w * 0.002
    recs.append(rec(t, "GET", f"https://api.example.com/v1/jobs/{w}", 200 if w < 10 else 429, 40 if w < 10 else 8, client=f"w{w}",
                    req_h={"Authorization": f"Bearer sk-test-w{w}"}, resp_h={} if w < 10 else {"Retry-After": "30"}))
    if w >= 10:
        t2 = t + 0.008 + 30.0
        st = 200 if w < 25 else 429
        recs.append(rec(t2, "GET", f"https://api.example.com/v1/jobs/{w}", st, 40 if st == 200 else 8, client=f"w{w}",
                        req_h={"Authorization": f"Bearer sk-test-w{w}"}, resp_h={} if st == 200 else {"Retry-After": "30"}))
        if st == 429:
            recs.append(rec(t2 + 0.008 + 30.0, "GET", f"https://api.example.com/v1/jobs/{w}", 200, 40, client=f"w{w}", req_h={"Authorization": f"Bearer sk-test-w{w}"}))
write_jsonl("herd.jsonl", recs)
expected["herd.jsonl"] = ["synchronized_retries"]

# 11. Retry-After 5 read as ms: ~5 ms retries, 4 attempts.
recs = []
for k in range(30):
    t = k * 2.0
    for a in range(4):
        st = 429 if (k % 3 != 0 and a < 3) or (k % 3 != 0 and a == 3 and k % 2) else 200
        recs.append(rec(t, "PUT", f"https://api.example.com/v1/docs/{k}", st, 7 if st == 429 else 120, client="editor",
                        req_h={"Authorization": "Bearer sk-test-ed"}, resp_h={"Retry-After": "5"} if st == 429 else {}, req_body="doc"))
        t += (7 if st == 429 else 120) / 1000 + 0.005 + R.random() * 0.001
        if st == 200:
            break
write_jsonl("ms-misread.jsonl", recs)
# PUTs retried after 429s only: idempotent, no unsafe_retry (issue 11)
expected["ms-misread.jsonl"] = ["ignored_retry_after", "retry_storm"]

# (expected.json is maintained by hand: it states what a person would diagnose.)
print("ok")
