#!/usr/bin/env python3
"""Held-out scenarios for the behaviour detectors (issue 4), written from the issue text and the
brief only (before reading src/detect/).

Each scenario simulates a plausible client against a simulated server (fixed-window or
concurrency limiter, upstream outages) with jitter, latencies, mixed endpoints and background
noise, and writes one gzipped JSON-lines log or HAR. `expected.json` records, per scenario:

- `expect`: finding kinds that must be reported;
- `allow`: kinds that are defensible side effects (neither required nor a false alarm);
- `args`: extra `toomany analyze` arguments (e.g. `--limit 120/min`);
- `action`: recommendation checks (`action`: the action; `burst`: `fix_client` or a rate at
  or under limit x headroom, never `stop_or_reschedule`; `min_rate_per_minute`: a sanity floor
  for the rate target, well under what the server plainly accepted);
- `evidence`: [kind, JSON pointer, value] checks on a finding's evidence (`{"min": n}`: a
  number at least n).

Everything else reported is a false alarm. Run: python3 tests/heldout/gen.py (deterministic).
"""

import gzip
import json
import math
import os
import random
import uuid
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

OUT = os.path.dirname(os.path.abspath(__file__))
SEED = 1000
T0 = datetime(2026, 4, 14, 9, 0, 0, tzinfo=timezone.utc)


def iso(ms):
    t = T0 + timedelta(milliseconds=ms)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (t.microsecond // 1000)


def httpdate(ms):
    return format_datetime(T0 + timedelta(milliseconds=ms), usegmt=True)


def epoch_s(ms):
    return int((T0 + timedelta(milliseconds=ms)).timestamp())


def rec(t, method, url, status, dur, client=None, req=None, resp=None, body=None, ua=None, ip=None):
    r = {"time": iso(t), "method": method, "url": url, "status": status, "duration_ms": round(dur, 1)}
    if client:
        r["client"] = client
    if ua:
        r["user_agent"] = ua
    if ip:
        r["client_ip"] = ip
    if req:
        r["request_headers"] = req
    if resp:
        r["response_headers"] = resp
    if body is not None:
        r["response_body"] = body
    return r


def lat(rng, median=120.0, sigma=0.5):
    return max(5.0, rng.lognormvariate(math.log(median), sigma))


class FixedWindow:
    """Per-key fixed-window limiter: `limit` requests per `window_s`."""

    def __init__(self, limit, window_s):
        self.limit, self.window = limit, window_s * 1000
        self.counts = {}

    def hit(self, t, key="k"):
        w = int(t // self.window)
        n = self.counts.get((key, w), 0) + 1
        self.counts[(key, w)] = n
        reset_ms = (w + 1) * self.window - t
        ok = n <= self.limit
        return ok, max(0, self.limit - n), reset_ms

    def headers(self, ok, remaining, reset_ms, ra=True):
        h = {
            "x-ratelimit-limit": str(self.limit),
            "x-ratelimit-remaining": str(remaining if ok else 0),
            "x-ratelimit-reset": str(max(1, math.ceil(reset_ms / 1000))),
        }
        if not ok and ra:
            h["Retry-After"] = str(max(1, math.ceil(reset_ms / 1000)))
        return h


def background(rng, recs, start, end, rate, host="https://api.example.com", client="web-frontend"):
    """Unrelated successful traffic on mixed endpoints."""
    paths = ["/v1/me", "/v1/projects", "/v1/projects/{}/members", "/v1/notifications?unread=1", "/v1/search?q=x{}"]
    t = start + rng.expovariate(rate) * 1000
    while t < end:
        p = rng.choice(paths).format(rng.randint(1, 400))
        recs.append(rec(t, "GET", host + p, 200, lat(rng, 90), client=client))
        t += rng.expovariate(rate) * 1000


def bearer(name):
    # Note: names must not be prefixes of one another followed by "0" (padding would merge them).
    return {"Authorization": "Bearer sk_live_" + name.ljust(24, "0")}


def write_jsonl(name, recs):
    recs = sorted(recs, key=lambda r: r["time"])
    with gzip.GzipFile(os.path.join(OUT, name + ".jsonl.gz"), "wb", mtime=0) as f:
        for r in recs:
            f.write((json.dumps(r, separators=(",", ":")) + "\n").encode())
    return name + ".jsonl.gz"


SCEN = {}


def scenario(name, expect=(), allow=(), args=(), action=None, evidence=(), variants=()):
    """`variants`: (suffix, args, action) re-checks of the same file with other arguments."""
    def deco(fn):
        SCEN[name] = dict(fn=fn, expect=sorted(expect), allow=sorted(allow), args=list(args), action=action,
                          evidence=[list(e) for e in evidence], variants=list(variants))
        return fn
    return deco


# ---------------------------------------------------------------------------------------------
# Positives
# ---------------------------------------------------------------------------------------------

@scenario("burst-cron", expect=["burst"], args=["--limit", "120/min"],
          action={"burst": {"limit_per_minute": 120}})
def burst_cron(rng):
    """A cron job fires 600 requests in ~10 s every 10 minutes (60/min on average) against
    120/min, then sleeps; it does not retry. A web frontend trickles along beside it."""
    lim = FixedWindow(120, 60)
    recs = []
    for cycle in range(3):
        base = 60_000 + cycle * 600_000 + rng.uniform(0, 800)
        # 40 workers pull from a queue of 600 ids.
        free = [base + rng.uniform(0, 30) for _ in range(40)]
        for i in range(600):
            w = min(range(40), key=lambda k: free[k])
            t = free[w]
            ok, rem, reset = lim.hit(t)
            d = lat(rng, 550, 0.35) if ok else lat(rng, 25, 0.3)
            recs.append(rec(t, "GET", f"https://api.example.com/v2/invoices/{cycle * 1000 + i}/pdf", 200 if ok else 429,
                            d, client="invoice-cron", req=bearer("cron"), resp=lim.headers(ok, rem, reset)))
            free[w] = t + d + rng.uniform(1, 6)
    # background, counted against the same limiter
    bg = []
    background(rng, bg, 0, 1_800_000, 0.2)
    for r in bg:
        r["request_headers"] = bearer("web")
    recs += bg
    return write_jsonl("burst-cron", recs)


@scenario("burst-etl-headers", expect=["burst"], action={"burst": {"limit_per_minute": 100}})
def burst_etl(rng):
    """No --limit: the server states 100 per 60 s in x-ratelimit-* headers. A UI trickles at
    0.3/s; at 5 min an ETL step sends 300 requests in ~5 s, no retries."""
    lim = FixedWindow(100, 60)
    recs = []
    events = []
    t = 0
    while t < 1_200_000:
        events.append((t, "ui"))
        t += rng.expovariate(0.3) * 1000
    base = 300_400
    for i in range(300):
        events.append((base + i * 16.5 + rng.uniform(-6, 6), "etl"))
    for t, who in sorted(events):
        ok, rem, reset = lim.hit(t)
        if who == "ui":
            url = "https://data.example.net/v1/dashboards/" + str(rng.randint(1, 20))
            c = "ui"
        else:
            url = f"https://data.example.net/v1/rows?table=events&page={rng.randint(1, 10**6)}"
            c = "etl-loader"
        recs.append(rec(t, "GET", url, 200 if ok else 429, lat(rng, 180) if ok else lat(rng, 20),
                        client=c, req={"X-Api-Key": "k-data-7781239aa"}, resp=lim.headers(ok, rem, reset, ra=False)))
    return write_jsonl("burst-etl-headers", recs)


@scenario("storm-nested", expect=["retry_storm"], evidence=[["retry_storm", "/nested_layers/product", 12]])
def storm_nested(rng):
    """An SDK with 3 attempts (0.2 s, 0.4 s backoff with jitter) inside an app loop of 4 rounds
    (5 s apart): up to 12 attempts while the export endpoint is throttled (429, no Retry-After)
    for 100 s."""
    recs = []
    throttled = (30_000, 130_000)
    t = 1000
    job = 0
    while t < 240_000:
        job += 1
        url = f"https://reports.example.com/v1/exports/{job}"
        cur = t
        done = False
        for rnd in range(4):
            for att in range(3):
                limited = throttled[0] <= cur < throttled[1]
                d = lat(rng, 35, 0.3) if limited else lat(rng, 400, 0.4)
                recs.append(rec(cur, "GET", url, 429 if limited else 200, d, client="export-worker",
                                req=bearer("exp"), resp={"content-type": "application/json"},
                                body='{"error":"rate_limited"}' if limited else None))
                if not limited:
                    done = True
                    break
                cur += d
                if att < 2:
                    cur += 200 * 2 ** att * rng.uniform(0.8, 1.2)
            if done:
                break
            cur += rng.uniform(4500, 5500)
        t += rng.uniform(4000, 9000)
    background(rng, recs, 0, 240_000, 0.25, host="https://reports.example.com", client="ui")
    return write_jsonl("storm-nested", recs)


@scenario("storm-tight-loop", expect=["retry_storm"])
def storm_tight(rng):
    """A sync worker retries 503/429 every ~100 ms, up to 25 attempts, during a 2-minute
    upstream brown-out; other workers carry on normally."""
    recs = []
    t = 0
    n = 0
    while t < 600_000:
        n += 1
        url = f"https://inventory.example.com/api/items/{rng.randint(1000, 9999)}/stock"
        cur = t
        for att in range(25):
            bad = 200_000 <= cur < 320_000
            st = rng.choice([429, 503, 503]) if bad else 200
            d = lat(rng, 40, 0.3) if bad else lat(rng, 110, 0.4)
            recs.append(rec(cur, "GET", url, st, d, client="stock-sync", req=bearer("inv")))
            if st == 200:
                break
            cur += d + rng.uniform(90, 130)
        t = max(cur + 500, t + rng.expovariate(0.4) * 1000)
    background(rng, recs, 0, 600_000, 0.3, host="https://inventory.example.com", client="storefront")
    return write_jsonl("storm-tight-loop", recs)


@scenario("ms-misread", expect=["ignored_retry_after"], allow=["retry_storm"],
          evidence=[["ignored_retry_after", "/seconds_read_as_milliseconds", True]])
def ms_misread(rng):
    """A CRM sync reads `Retry-After: 12` as 12 ms: retries ~12-16 ms after each 429, up to 4
    retries, then moves on. 40 req/min limit, fixed window."""
    lim = FixedWindow(40, 60)
    recs = []
    t = 0
    while t < 480_000:
        url = f"https://crm.example.io/v3/contacts/{rng.randint(10**5, 10**6)}"
        cur = t
        for att in range(5):
            ok, rem, reset = lim.hit(cur)
            d = lat(rng, 160) if ok else lat(rng, 22, 0.25)
            resp = {"x-ratelimit-limit": "40", "x-ratelimit-remaining": str(rem)}
            if not ok:
                resp["Retry-After"] = "12"
            recs.append(rec(cur, "GET", url, 200 if ok else 429, d, client="crm-sync", req=bearer("crm"), resp=resp))
            if ok:
                break
            cur += d + 12 + rng.uniform(0.3, 4)
        t = max(cur + 50, t + rng.expovariate(1.1) * 1000)
    return write_jsonl("ms-misread", recs)


@scenario("ignored-fixed-delay", expect=["ignored_retry_after"], allow=["retry_storm", "shared_key_contention"])
def ignored_fixed(rng):
    """Three workers get `Retry-After: 30`-ish (to the window end) and retry after ~2 s (jittered)
    regardless, up to 5 attempts."""
    lim = FixedWindow(60, 60)
    recs = []
    for w in range(3):
        t = rng.uniform(0, 2000)
        while t < 600_000:
            url = f"https://geo.example.org/v1/tiles/{rng.randint(1, 20)}/{rng.randint(1, 999)}/{rng.randint(1, 999)}.json"
            cur = t
            for att in range(5):
                ok, rem, reset = lim.hit(cur)
                d = lat(rng, 90) if ok else lat(rng, 15, 0.3)
                recs.append(rec(cur, "GET", url, 200 if ok else 429, d, client=f"tiler-{w}", req=bearer("geo"),
                                resp=lim.headers(ok, rem, reset)))
                if ok:
                    break
                cur += d + 2000 * rng.uniform(0.8, 1.2)
            t = cur + rng.expovariate(0.45) * 1000
    return write_jsonl("ignored-fixed-delay", recs)


@scenario("ignored-httpdate", expect=["ignored_retry_after"], allow=["retry_storm"])
def ignored_httpdate(rng):
    """Retry-After is an HTTP-date 20 s after the response's Date; the client only parses
    delta-seconds and falls back to 1 s, 2 s, 4 s backoff (with jitter)."""
    recs = []
    t = 0
    while t < 900_000:
        url = f"https://objects.example.com/buckets/media/objects/{uuid.UUID(int=rng.getrandbits(128)).hex[:12]}"
        cur = t
        for att in range(4):
            limited = (cur % 120_000) > 90_000  # the last 30 s of every 2 minutes are throttled
            d = lat(rng, 200) if not limited else lat(rng, 30, 0.3)
            end = cur + d
            resp = {"Date": httpdate(end)}
            if limited:
                resp["Retry-After"] = httpdate(end + 20_000)
            recs.append(rec(cur, "GET", url, 429 if limited else 200, d, client="media-sync", req=bearer("obj"),
                            resp=resp))
            if not limited:
                break
            cur = end + 1000 * 2 ** att * rng.uniform(0.9, 1.1)
        t = cur + rng.expovariate(0.5) * 1000
    return write_jsonl("ignored-httpdate", recs)


@scenario("herd-fixed-backoff", expect=["synchronized_retries"], allow=["retry_storm", "shared_key_contention"])
def herd_fixed(rng):
    """8 workers started by the same scheduler tick every 30 s; a burst limiter refuses most of
    them, and each retries after exactly 1 s, 2 s, 4 s (no jitter): they come back together."""
    recs = []
    for tick in range(10):
        base = 10_000 + tick * 30_000
        # a burst limiter: 2 requests per calendar second
        tokens = {}
        for w in range(8):
            url = f"https://search.example.com/v1/reindex?shard={w}&batch={tick}"
            cur = base + rng.uniform(0, 25)
            for att in range(4):
                sec = int(cur // 1000)
                tokens[sec] = tokens.get(sec, 0) + 1
                ok = tokens[sec] <= 2
                d = lat(rng, 300) if ok else lat(rng, 20, 0.2)
                recs.append(rec(cur, "GET", url, 200 if ok else 429, d, client=f"indexer-{w}",
                                req=bearer("srch")))
                if ok:
                    break
                cur = cur + d + 1000 * 2 ** att
    background(rng, recs, 0, 330_000, 0.5, host="https://search.example.com", client="search-ui")
    return write_jsonl("herd-fixed-backoff", recs)


@scenario("herd-retry-after-date", expect=["synchronized_retries"], allow=["shared_key_contention"])
def herd_ra_date(rng):
    """12 pods share a 60/min account limit (fixed window) and together send ~1.8/s. Refused
    requests carry a Retry-After HTTP-date of the window's end; every pod waits until exactly
    then, so each minute they all come back in the same instant."""
    lim = FixedWindow(60, 60)
    recs = []
    events = []
    for p in range(12):
        t = rng.uniform(0, 6000)
        while t < 600_000:
            events.append([t, p, f"https://pay.example.com/v1/fx/rates?pair={rng.choice(['EURUSD', 'GBPUSD', 'USDJPY', 'AUDUSD'])}&n={rng.randint(1, 10**6)}", 0])
            t += rng.expovariate(0.15) * 1000
    import heapq
    heap = [(e[0], i, e) for i, e in enumerate(events)]
    heapq.heapify(heap)
    seq = len(events)
    while heap:
        t, _, (t0, p, url, att) = heapq.heappop(heap)
        ok, rem, reset = lim.hit(t)
        d = lat(rng, 80) if ok else lat(rng, 12, 0.2)
        end = t + d
        resp = {"Date": httpdate(end)}
        if not ok:
            resp["Retry-After"] = httpdate(t + reset)
        recs.append(rec(t, "GET", url, 200 if ok else 429, d, client=f"fx-pod-{p}", req=bearer("fx"), resp=resp))
        if not ok and att < 3:
            # sleep until the HTTP-date (whole second, never earlier), plus scheduling noise
            back = (math.ceil((t + reset) / 1000) * 1000) + rng.uniform(1, 15)
            seq += 1
            heapq.heappush(heap, (max(back, end + 1), seq, (t0, p, url, att + 1)))
    return write_jsonl("herd-retry-after-date", recs)


@scenario("shared-key-limit", expect=["shared_key_contention"], args=["--limit", "120/min"])
def shared_key_limit(rng):
    """4 services share one API key: each sends ~40/min (under 120/min), together ~160/min.
    Refused calls are dropped (picked up by the next cycle), not retried."""
    lim = FixedWindow(120, 60)
    recs = []
    svcs = [("billing", "/v1/invoices"), ("search-indexer", "/v1/documents"), ("notifier", "/v1/users"),
            ("reports", "/v1/metrics")]
    events = []
    for name, path in svcs:
        t = rng.uniform(0, 3000)
        while t < 600_000:
            events.append((t, name, path))
            t += rng.expovariate(40 / 60) * 1000
    for t, name, path in sorted(events):
        ok, rem, reset = lim.hit(t)
        recs.append(rec(t, "GET", f"https://api.vendor.example{path}/{rng.randint(1, 99999)}", 200 if ok else 429,
                        lat(rng, 140) if ok else lat(rng, 18), client=name, ua=f"{name}/2.3 python-requests/2.32",
                        req=bearer("shared"), resp=lim.headers(ok, rem, reset)))
    return write_jsonl("shared-key-limit", recs)


@scenario("shared-key-headers", expect=["shared_key_contention"])
def shared_key_headers(rng):
    """No `client` field and no --limit: 3 hosts (told apart by user agent and IP) share one key
    with a 100/min limit stated in headers; each sends ~45/min."""
    lim = FixedWindow(100, 60)
    recs = []
    hosts = [("10.0.3.11", "orders-api/1.9 (go-http-client)"), ("10.0.3.12", "fulfilment/4.0 okhttp/4.12"),
             ("10.0.7.40", "crm-bridge/0.8 node-fetch")]
    events = []
    for ip, ua in hosts:
        t = rng.uniform(0, 3000)
        while t < 480_000:
            events.append((t, ip, ua))
            t += rng.expovariate(45 / 60) * 1000
    for t, ip, ua in sorted(events):
        ok, rem, reset = lim.hit(t)
        recs.append(rec(t, "GET", f"https://api.shipping.example/v2/shipments/{rng.randint(1, 10**6)}",
                        200 if ok else 429, lat(rng, 200) if ok else lat(rng, 25), ua=ua, ip=ip,
                        req={"X-Api-Key": "shp_4f9a0c1d2e3f4a5b6c7d8e9f"}, resp=lim.headers(ok, rem, reset)))
    return write_jsonl("shared-key-headers", recs)


@scenario("unsafe-fresh-key", expect=["unsafe_retry"])
def unsafe_fresh_key(rng):
    """Checkout: POST /v1/payments retried after 502/503/429 with a NEW Idempotency-Key on each
    attempt; POST /v1/refunds retried with no key at all; GETs around them."""
    recs = []
    t = 0
    while t < 900_000:
        kind = rng.random()
        if kind < 0.45:
            url = f"https://payments.example.com/v1/customers/cus_{rng.randint(10**6, 10**7)}"
            recs.append(rec(t, "GET", url, 200, lat(rng, 90), client="checkout", req=bearer("pay")))
        else:
            refund = kind > 0.85
            url = "https://payments.example.com/v1/refunds" if refund else "https://payments.example.com/v1/payments"
            cur = t
            body = json.dumps({"amount": rng.randint(100, 9000), "currency": "eur", "order": rng.getrandbits(40)})
            for att in range(3):
                st = rng.choices([201, 502, 503, 429], [0.8, 0.08, 0.06, 0.06])[0] if att == 0 or rng.random() < 0.3 else 201
                req = bearer("pay")
                req["Content-Type"] = "application/json"
                if not refund:
                    req["Idempotency-Key"] = str(uuid.UUID(int=rng.getrandbits(128)))
                d = lat(rng, 700) if st in (201, 502) else lat(rng, 30)
                resp = {"Retry-After": "1"} if st == 429 else {}
                r = rec(cur, "POST", url, st, d, client="checkout", req=req, resp=resp)
                r["request_body"] = body
                recs.append(r)
                if st == 201:
                    break
                cur += d + 1000 * 2 ** att * rng.uniform(1.0, 2.0)
        t += rng.expovariate(0.5) * 1000
    return write_jsonl("unsafe-fresh-key", recs)


# ---------------------------------------------------------------------------------------------
# HAR helpers
# ---------------------------------------------------------------------------------------------

def har_entry(t, method, url, status, wait_ms, page, initiator="script", req_headers=None, resp_headers=None,
              mime="application/json", body=None, size=800, post=None):
    blocked = 0.5
    recv = max(0.3, size / 4000)
    total = blocked + 0.2 + wait_ms + recv
    e = {
        "pageref": page,
        "startedDateTime": iso(t).replace("Z", "+00:00"),
        "time": round(total, 3),
        "request": {
            "method": method, "url": url, "httpVersion": "h2",
            "headers": [{"name": k, "value": v} for k, v in (req_headers or {}).items()],
            "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0 if post is None else len(post),
        },
        "response": {
            "status": status, "statusText": {200: "", 204: "", 429: "", 304: ""}.get(status, ""), "httpVersion": "h2",
            "headers": [{"name": k, "value": v} for k, v in (resp_headers or {}).items()],
            "cookies": [], "content": {"size": size, "mimeType": mime}, "redirectURL": "",
            "headersSize": -1, "bodySize": size, "_transferSize": size + 300,
        },
        "cache": {},
        "timings": {"blocked": blocked, "dns": -1, "ssl": -1, "connect": -1, "send": 0.2, "wait": round(wait_ms, 3),
                    "receive": round(recv, 3)},
        "_initiator": {"type": initiator},
        "_priority": "High",
        "_resourceType": "fetch" if initiator == "script" else "other",
    }
    if post is not None:
        e["request"]["postData"] = {"mimeType": "application/json", "text": post}
    if body is not None:
        e["response"]["content"]["text"] = body
    return e


def write_har(name, pages, entries):
    entries = sorted(entries, key=lambda e: e["startedDateTime"])
    har = {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"},
                   "pages": pages, "entries": entries}}
    with gzip.GzipFile(os.path.join(OUT, name + ".har.gz"), "wb", mtime=0) as f:
        f.write(json.dumps(har).encode())
    return name + ".har.gz"


CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"


@scenario("unsafe-no-key-har", expect=["unsafe_retry"])
def unsafe_har(rng):
    """Browser HAR of a shop SPA: the fetch wrapper retries POST /api/cart/checkout (429,
    Retry-After: 2) after ~2.5 s with no idempotency key; browsing GETs around it."""
    pages = [{"startedDateTime": iso(0).replace("Z", "+00:00"), "id": "page_1", "title": "Shop",
              "pageTimings": {"onContentLoad": 800, "onLoad": 1500}}]
    ents = []
    host = "https://shop.example.com"
    rh = {"User-Agent": CHROME, "Accept": "application/json", "Cookie": "sid=s3cr3t"}
    t = 0
    for i in range(90):
        t += rng.uniform(800, 6000)
        ents.append(har_entry(t, "GET", f"{host}/api/products/{rng.randint(1, 5000)}", 200, lat(rng, 70), "page_1",
                              req_headers=rh, resp_headers={"content-type": "application/json"}))
        if i % 15 == 7:
            cur = t + 500
            post = json.dumps({"cart": f"c{i}", "total": rng.randint(1000, 20000)})
            for att in range(3):
                st = 429 if att < 2 else 200
                w = lat(rng, 40) if st == 429 else lat(rng, 400)
                ents.append(har_entry(cur, "POST", f"{host}/api/cart/checkout", st, w, "page_1", req_headers=dict(rh, **{"Content-Type": "application/json"}),
                                      resp_headers={"content-type": "application/json", **({"retry-after": "2"} if st == 429 else {})},
                                      body='{"error":"too many requests"}' if st == 429 else None, post=post))
                cur += w + 2500 + rng.uniform(0, 300)
            t = cur
    return write_har("unsafe-no-key-har", pages, ents)


@scenario("quota-retry-after", expect=["quota_exhausted"], action={"action": "stop_or_reschedule"})
def quota_ra(rng):
    """A geocoding batch spends its daily allowance; from then on every request gets 429 with
    Retry-After: 40000 (11 h), and the batch keeps sending new lookups every ~2 s."""
    recs = []
    t = 0
    spent = 200_000
    while t < 600_000:
        ok = t < spent
        resp = {"content-type": "application/json"}
        body = None
        if not ok:
            resp["Retry-After"] = "40000"
            body = '{"status":"OVER_QUERY_LIMIT","error_message":"You have exceeded your request quota for this API."}'
        recs.append(rec(t, "GET", f"https://maps.example.com/geocode/json?address=street+{rng.randint(1, 99999)}",
                        200 if ok else 429, lat(rng, 120) if ok else lat(rng, 15), client="geo-batch",
                        req=bearer("maps"), resp=resp, body=body))
        t += rng.uniform(1500, 2500)
    return write_jsonl("quota-retry-after", recs)


@scenario("quota-insufficient", expect=["quota_exhausted"], action={"action": "stop_or_reschedule"})
def quota_insufficient(rng):
    """An LLM API answers `insufficient_quota` (no Retry-After); the summariser keeps submitting
    new documents every ~3 s without retrying any."""
    recs = []
    t = 0
    while t < 420_000:
        ok = t < 60_000
        body = None if ok else json.dumps({"error": {"message": "You exceeded your current quota, please check your plan and billing details.",
                                                      "type": "insufficient_quota", "code": "insufficient_quota"}})
        recs.append(rec(t, "POST", "https://api.llm.example/v1/chat/completions", 200 if ok else 429,
                        lat(rng, 2500, 0.6) if ok else lat(rng, 80), client="summariser",
                        req=dict(bearer("llm"), **{"Content-Type": "application/json"}),
                        resp={"x-request-id": f"req_{rng.getrandbits(48):x}"}, body=body))
        recs[-1]["request_body"] = json.dumps({"model": "m", "messages": [{"role": "user", "content": f"doc {t}"}]})
        t += lat(rng, 2500, 0.6) if ok else rng.uniform(2500, 3500)
    return write_jsonl("quota-insufficient", recs)


@scenario("quota-remaining0", expect=["quota_exhausted"], action={"action": "stop_or_reschedule"})
def quota_remaining0(rng):
    """A daily allowance of 5000 per 24 h: `x-ratelimit-remaining: 0` with `x-ratelimit-reset`
    as a Unix epoch ~14 h ahead (midnight UTC); the client keeps polling its queue."""
    recs = []
    t = 0
    reset = epoch_s(0) + 15 * 3600  # next midnight UTC from 09:00
    left = 40
    while t < 600_000:
        ok = left > 0
        left -= 1
        h = {"x-ratelimit-limit": "5000", "x-ratelimit-remaining": str(max(left, 0)),
             "x-ratelimit-reset": str(reset)}
        recs.append(rec(t, "GET", f"https://api.translate.example/v2/translate?q=s{rng.randint(1, 10**6)}&target=de",
                        200 if ok else 429, lat(rng, 150) if ok else lat(rng, 20), client="i18n-job",
                        req={"X-Api-Key": "tr_9988776655aabbccdd"}, resp=h,
                        body=None if ok else '{"error":"Too Many Requests"}'))
        t += rng.uniform(2000, 4000)
    return write_jsonl("quota-remaining0", recs)


@scenario("concurrency-render", expect=["concurrency_limit"])
def concurrency_render(rng):
    """A render API allows 5 jobs in flight per account. Jobs start at ~0.35/s (low), each runs
    6-25 s; a start while 5 are running is refused at once (no Retry-After). Refused jobs are
    parked, not retried."""
    recs = []
    running = []
    t = 0
    while t < 900_000:
        running = [e for e in running if e > t]
        ok = len(running) < 5
        d = rng.uniform(6000, 25000) if ok else lat(rng, 30, 0.3)
        if ok:
            running.append(t + d)
        recs.append(rec(t, "POST", f"https://render.example.com/v1/jobs/{rng.randint(1, 10**7)}/render", 200 if ok else 429, d,
                        client="video-pipeline", req=dict(bearer("render"), **{"Idempotency-Key": str(uuid.UUID(int=rng.getrandbits(128)))}),
                        body=None if ok else '{"error":"rate limit exceeded"}'))
        t += rng.expovariate(0.35) * 1000
    background(rng, recs, 0, 900_000, 0.1, host="https://render.example.com", client="ops-console")
    return write_jsonl("concurrency-render", recs)


# ---------------------------------------------------------------------------------------------
# Clean cases: no findings at all
# ---------------------------------------------------------------------------------------------

@scenario("clean-page-load-har")
def clean_page(rng):
    """Two browser page loads, each with 80 parallel static assets over HTTP/2 plus a few API
    calls; nothing limited."""
    pages = []
    ents = []
    for p in range(2):
        base = p * 45_000
        pid = f"page_{p + 1}"
        pages.append({"startedDateTime": iso(base).replace("Z", "+00:00"), "id": pid, "title": "News",
                      "pageTimings": {"onContentLoad": 900, "onLoad": 2100}})
        rh = {"User-Agent": CHROME, "Accept": "*/*", "Cookie": "sess=abc"}
        ents.append(har_entry(base, "GET", "https://www.example-news.com/", 200, 180, pid, initiator="other", req_headers=rh,
                              resp_headers={"content-type": "text/html"}, mime="text/html", size=60000))
        for i in range(80):
            ext = rng.choice(["js", "css", "png", "webp", "woff2", "svg"])
            host = rng.choice(["https://static.example-news.com", "https://cdn.example-img.net"])
            t = base + 260 + rng.uniform(0, 350) + (i // 20) * 40
            ents.append(har_entry(t, "GET", f"{host}/assets/{i}-{rng.getrandbits(32):08x}.{ext}", 200, lat(rng, 45, 0.6), pid,
                                  initiator="parser", req_headers=rh, resp_headers={"content-type": "application/octet-stream", "cache-control": "max-age=31536000"},
                                  mime="application/octet-stream", size=rng.randint(2000, 90000)))
        for i in range(6):
            ents.append(har_entry(base + 1200 + i * rng.uniform(100, 900), "GET",
                                  f"https://www.example-news.com/api/v1/feed?section={i}", 200, lat(rng, 120), pid,
                                  req_headers=rh, resp_headers={"content-type": "application/json"}))
    return write_har("clean-page-load-har", pages, ents)


@scenario("clean-steady-limit", args=["--limit", "120/min"])
def clean_steady_limit(rng):
    """10 minutes at ~95/min (Poisson) from two workers against a known 120/min limit."""
    recs = []
    for w in range(2):
        t = rng.uniform(0, 1000)
        while t < 600_000:
            recs.append(rec(t, "GET", f"https://api.example.com/v1/orders/{rng.randint(1, 10**6)}", 200, lat(rng, 150),
                            client=f"sync-{w}", req=bearer("steady")))
            t += rng.expovariate(47.5 / 60) * 1000
    return write_jsonl("clean-steady-limit", recs)


@scenario("clean-steady-nolimit")
def clean_steady_nolimit(rng):
    """A steady 2/s stream with x-ratelimit headers (600/min) far from exhaustion; no --limit."""
    lim = FixedWindow(600, 60)
    recs = []
    t = 0
    while t < 600_000:
        ok, rem, reset = lim.hit(t)
        recs.append(rec(t, rng.choice(["GET", "GET", "GET", "HEAD"]), f"https://cdn-api.example.com/v1/assets/{rng.randint(1, 10**5)}",
                        200, lat(rng, 60), client="asset-mirror", req=bearer("mirror"), resp=lim.headers(ok, rem, reset)))
        t += rng.uniform(350, 650)
    return write_jsonl("clean-steady-nolimit", recs)


@scenario("clean-dashboard-poll", action={"min_rate_per_minute": 30})
def clean_dashboard(rng):
    """A dashboard with 6 widgets polling every 5 s for 10 minutes; now and then a poll gets a
    429 (Retry-After: 5 or none) and the widget simply polls again on its next tick."""
    recs = []
    widgets = ["/api/metrics/cpu", "/api/metrics/mem", "/api/alerts?state=open", "/api/deploys/latest",
               "/api/queues/depth", "/api/errors/rate?window=5m"]
    for i, w in enumerate(widgets):
        t = 200 + i * 37
        while t < 600_000:
            limited = rng.random() < 0.04
            resp = {"content-type": "application/json"}
            if limited and rng.random() < 0.5:
                resp["Retry-After"] = "5"
            recs.append(rec(t, "GET", f"https://grafana.example.internal{w}", 429 if limited else 200,
                            lat(rng, 25) if limited else lat(rng, 140), client="ops-dashboard",
                            req={"Cookie": "grafana_session=abc123", "User-Agent": CHROME}, resp=resp))
            t += 5000 + rng.uniform(-40, 40)
    return write_jsonl("clean-dashboard-poll", recs)


@scenario("clean-api-500s")
def clean_api_500(rng):
    """A normal API client: mixed GET/POST/PUT, occasional 500s; GETs retried once after 1-2 s
    (jitter), POSTs retried once with the same Idempotency-Key, PUTs not retried."""
    recs = []
    t = 0
    while t < 900_000:
        m = rng.choices(["GET", "POST", "PUT"], [0.7, 0.2, 0.1])[0]
        if m == "GET":
            url = f"https://crm.example.com/api/accounts/{rng.randint(1, 5000)}"
        elif m == "POST":
            url = "https://crm.example.com/api/notes"
        else:
            url = f"https://crm.example.com/api/accounts/{rng.randint(1, 5000)}/owner"
        key = str(uuid.UUID(int=rng.getrandbits(128)))
        body = json.dumps({"n": rng.randint(1, 10**6)})
        cur = t
        for att in range(2):
            st = 500 if (att == 0 and rng.random() < 0.03) else (201 if m == "POST" else 200)
            req = bearer("crm")
            if m == "POST":
                req["Idempotency-Key"] = key
            r = rec(cur, m, url, st, lat(rng, 180), client="crm-app", req=req)
            if m != "GET":
                r["request_body"] = body
            recs.append(r)
            if st < 500 or m == "PUT":
                break
            cur += r["duration_ms"] + rng.uniform(1000, 2000)
        t += rng.expovariate(0.8) * 1000
    return write_jsonl("clean-api-500s", recs)


# ---------------------------------------------------------------------------------------------
# Near-misses: close to one detector, but not it
# ---------------------------------------------------------------------------------------------

@scenario("near-spike-under-limit", args=["--limit", "120/min"])
def near_spike(rng):
    """A background trickle of ~0.3/s and, every 3 minutes, a spike of 25 requests in ~2 s;
    each minute stays well under 120, nothing is limited."""
    recs = []
    background(rng, recs, 0, 720_000, 0.3)
    for k in range(4):
        base = 30_000 + k * 180_000
        for i in range(25):
            recs.append(rec(base + i * 80 + rng.uniform(0, 30), "GET", f"https://api.example.com/v1/thumbnails/{rng.randint(1, 10**5)}",
                            200, lat(rng, 120), client="thumbnailer"))
    return write_jsonl("near-spike-under-limit", recs)


@scenario("near-retry-waits-full-ra", allow=["shared_key_contention", "synchronized_retries"])
def near_full_ra(rng):
    """5 workers against 60/min: refused requests wait the whole Retry-After plus 0.2-2 s of
    random spread before retrying (at most twice). Near-miss for ignored_retry_after. The
    fixed-window Retry-After points every refused request at the same window start, so with
    ~40 % refused the retries still bunch there: synchronized_retries is defensible."""
    lim = FixedWindow(60, 60)
    recs = []
    import heapq
    heap = []
    seq = 0
    for w in range(5):
        t = rng.uniform(0, 2000)
        while t < 600_000:
            seq += 1
            heap.append((t, seq, w, f"https://api.example.com/v1/catalog/{rng.randint(1, 10**6)}", 0))
            t += rng.expovariate(0.25) * 1000
    heapq.heapify(heap)
    while heap:
        t, _, w, url, att = heapq.heappop(heap)
        ok, rem, reset = lim.hit(t)
        d = lat(rng, 100) if ok else lat(rng, 15)
        hdr = lim.headers(ok, rem, reset)
        recs.append(rec(t, "GET", url, 200 if ok else 429, d, client=f"catalog-{w}", req=bearer("cat"), resp=hdr))
        if not ok and att < 2:
            seq += 1
            heapq.heappush(heap, (t + d + int(hdr["Retry-After"]) * 1000 + rng.uniform(200, 2000), seq, w, url, att + 1))
    return write_jsonl("near-retry-waits-full-ra", recs)


@scenario("near-full-jitter", allow=["shared_key_contention"])
def near_full_jitter(rng):
    """10 workers started by one scheduler tick every minute; a 5/s burst limiter refuses some
    (429, no Retry-After); they retry GETs (no idempotency key) with full jitter in 1, 2, 4 s
    windows, at most 3 retries. (One key, 10 workers, a per-second allowance their combined
    start exceeds: shared_key_contention is defensible.)"""
    recs = []
    import heapq
    for tick in range(10):
        base = 5_000 + tick * 60_000
        tokens = {}
        heap = [(base + rng.uniform(0, 40), w, 0, f"https://files.example.com/v1/scan?dir={w}&run={tick}") for w in range(10)]
        heapq.heapify(heap)
        while heap:
            t, w, att, url = heapq.heappop(heap)
            sec = int(t // 1000)
            tokens[sec] = tokens.get(sec, 0) + 1
            ok = tokens[sec] <= 5
            d = lat(rng, 250) if ok else lat(rng, 20)
            recs.append(rec(t, "GET", url, 200 if ok else 429, d, client=f"scanner-{w}", req=bearer("files")))
            if not ok and att < 3:
                heapq.heappush(heap, (t + d + rng.uniform(0, 1000 * 2 ** att), w, att + 1, url))
    background(rng, recs, 0, 610_000, 0.3, host="https://files.example.com", client="files-ui")
    return write_jsonl("near-full-jitter", recs)


@scenario("near-shared-key-under", args=["--limit", "120/min"])
def near_shared_under(rng):
    """Two services share one key, each ~10/min against 120/min."""
    recs = []
    for name in ("billing", "reports"):
        t = rng.uniform(0, 5000)
        while t < 900_000:
            recs.append(rec(t, "GET", f"https://api.vendor.example/v1/{name}/{rng.randint(1, 10**5)}", 200, lat(rng, 140),
                            client=name, req=bearer("shared")))
            t += rng.expovariate(10 / 60) * 1000
    return write_jsonl("near-shared-key-under", recs)


@scenario("near-payments-same-key")
def near_same_key(rng):
    """POST /v1/payments retried after 503/429 with the SAME Idempotency-Key, waiting the
    Retry-After (or 1-3 s jittered backoff); at most 2 retries."""
    recs = []
    t = 0
    while t < 900_000:
        key = str(uuid.UUID(int=rng.getrandbits(128)))
        body = json.dumps({"amount": rng.randint(100, 9000), "currency": "usd"})
        cur = t
        for att in range(3):
            st = rng.choices([201, 503, 429], [0.85, 0.08, 0.07])[0] if att < 2 else 201
            d = lat(rng, 600) if st == 201 else lat(rng, 40)
            resp = {"Retry-After": "3"} if st == 429 else {}
            r = rec(cur, "POST", "https://payments.example.com/v1/payments", st, d, client="checkout",
                    req=dict(bearer("pay"), **{"Idempotency-Key": key, "Content-Type": "application/json"}), resp=resp)
            r["request_body"] = body
            recs.append(r)
            if st == 201:
                break
            cur += d + (3000 + rng.uniform(100, 900) if st == 429 else rng.uniform(0, 1000 * 2 ** (att + 1)))
        t += rng.expovariate(0.4) * 1000
    return write_jsonl("near-payments-same-key", recs)


@scenario("near-concurrency-is-rate", args=["--limit", "60/min"])
def near_conc_rate(rng):
    """Long requests (1-12 s) but the 429s come from a 60/min fixed window: the client alternates
    between ~1.3/s and ~0.5/s phases; in-flight counts have nothing to do with the refusals.
    The client does not retry."""
    lim = FixedWindow(60, 60)
    recs = []
    t = 0
    while t < 900_000:
        fast = (t // 120_000) % 2 == 0
        ok, rem, reset = lim.hit(t)
        d = rng.uniform(1000, 12000) if ok else lat(rng, 30)
        recs.append(rec(t, "GET", f"https://reports.example.com/v1/aggregate?id={rng.randint(1, 10**6)}", 200 if ok else 429,
                        d, client="aggregator", req=bearer("agg"), resp=lim.headers(ok, rem, reset)))
        t += rng.expovariate(1.3 if fast else 0.5) * 1000
    return write_jsonl("near-concurrency-is-rate", recs)


@scenario("near-quota-per-minute")
def near_quota_minute(rng):
    """A per-minute limit: `x-ratelimit-remaining: 0` with a reset 5-60 s away and a matching
    Retry-After; the client waits it out (plus spread) before its single retry."""
    lim = FixedWindow(30, 60)
    recs = []
    import heapq
    heap = []
    t = 0
    seq = 0
    while t < 600_000:
        seq += 1
        heap.append((t, seq, f"https://api.weather.example/v1/forecast?lat={rng.uniform(-60, 60):.2f}&lon={rng.uniform(-120, 120):.2f}", 0))
        t += rng.expovariate(0.6) * 1000
    heapq.heapify(heap)
    while heap:
        t, _, url, att = heapq.heappop(heap)
        ok, rem, reset = lim.hit(t)
        d = lat(rng, 110) if ok else lat(rng, 15)
        hdr = lim.headers(ok, rem, reset)
        recs.append(rec(t, "GET", url, 200 if ok else 429, d, client="weather-widget", req={"X-Api-Key": "wx_0011223344556677"},
                        resp=hdr, body=None if ok else '{"message":"API rate limit exceeded"}'))
        if not ok and att < 1:
            seq += 1
            heapq.heappush(heap, (t + d + int(hdr["Retry-After"]) * 1000 + rng.uniform(300, 3000), seq, url, att + 1))
    return write_jsonl("near-quota-per-minute", recs)



# ---------------------------------------------------------------------------------------------
# Second round: harder variants (different shapes of the same behaviours)
# ---------------------------------------------------------------------------------------------

@scenario("burst-har-spa", expect=["burst"], action={"burst": {"limit_per_minute": 100}})
def burst_har_spa(rng):
    """Browser HAR: a list page fires one detail call per row (150 calls in ~2 s) against an API
    stating 100 per 60 s in its headers; the rest of the session is ordinary clicking."""
    pages = []
    ents = []
    lim = FixedWindow(100, 60)
    rh = {"User-Agent": CHROME, "Accept": "application/json", "Authorization": "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJl"}
    evs = []
    t = 0
    while t < 400_000:
        evs.append((t, "click"))
        t += rng.uniform(2000, 9000)
    for k in range(2):
        base = 90_000 + k * 180_000
        for i in range(150):
            evs.append((base + i * 13 + rng.uniform(0, 8), "row"))
    for t, what in sorted(evs):
        ok, rem, reset = lim.hit(t)
        url = (f"https://app.example.com/api/v1/tickets/{rng.randint(1, 10**5)}" if what == "row"
               else f"https://app.example.com/api/v1/{rng.choice(['inbox', 'me', 'teams', 'labels'])}")
        h = {"content-type": "application/json", **lim.headers(ok, rem, reset, ra=False)}
        ents.append(har_entry(t, "GET", url, 200 if ok else 429, lat(rng, 150) if ok else lat(rng, 20), "page_1",
                              req_headers=rh, resp_headers=h))
    pages.append({"startedDateTime": iso(0).replace("Z", "+00:00"), "id": "page_1", "title": "Tickets",
                  "pageTimings": {"onContentLoad": 700, "onLoad": 1300}})
    return write_har("burst-har-spa", pages, ents)


@scenario("unsafe-patch-lost", expect=["unsafe_retry"])
def unsafe_patch_lost(rng):
    """An order service PATCHes order status; on a timeout (status 0, no response) or a 504 the
    HTTP client retries the PATCH after 1-3 s with no idempotency key."""
    recs = []
    t = 0
    while t < 900_000:
        oid = rng.randint(10**5, 10**6)
        if rng.random() < 0.6:
            recs.append(rec(t, "GET", f"https://orders.example.com/v1/orders/{oid}", 200, lat(rng, 80), client="order-svc",
                            req=bearer("ord")))
        else:
            body = json.dumps({"status": rng.choice(["packed", "shipped"]), "at": t})
            cur = t
            for att in range(3):
                st = rng.choices([200, 0, 504], [0.85, 0.08, 0.07])[0] if att < 2 else 200
                d = 30_000 if st == 0 else (lat(rng, 200) if st == 200 else 15_000)
                r = rec(cur, "PATCH", f"https://orders.example.com/v1/orders/{oid}", st, d, client="order-svc",
                        req=dict(bearer("ord"), **{"Content-Type": "application/merge-patch+json"}))
                r["request_body"] = body
                recs.append(r)
                if st == 200:
                    break
                cur += d + rng.uniform(1000, 3000)
        t += rng.expovariate(0.4) * 1000
    return write_jsonl("unsafe-patch-lost", recs)


GOOGLE_DAY = json.dumps({"error": {"code": 429, "status": "RESOURCE_EXHAUSTED",
                                   "message": "Quota exceeded for quota metric 'Queries' and limit 'Queries per day' of service 'places.googleapis.com' for consumer 'project_number:1234567'."}})
GOOGLE_MIN = json.dumps({"error": {"code": 429, "status": "RESOURCE_EXHAUSTED",
                                   "message": "Quota exceeded for quota metric 'Read requests' and limit 'Read requests per minute per user' of service 'sheets.googleapis.com' for consumer 'project_number:1234567'."}})


@scenario("quota-google-daily", expect=["quota_exhausted"], action={"action": "stop_or_reschedule"})
def quota_google_daily(rng):
    """Google-style RESOURCE_EXHAUSTED with limit 'Queries per day' (no Retry-After); the
    enrichment job keeps going through its list."""
    recs = []
    t = 0
    while t < 600_000:
        ok = t < 150_000
        recs.append(rec(t, "GET", f"https://places.googleapis.com/v1/places/ChIJ{rng.getrandbits(40):x}", 200 if ok else 429,
                        lat(rng, 200) if ok else lat(rng, 40), client="enricher", req={"X-Goog-Api-Key": "AIzaSyA1234567890abcdefghijklmnopqrs"},
                        resp={"content-type": "application/json; charset=UTF-8"}, body=None if ok else GOOGLE_DAY))
        t += rng.uniform(800, 1600)
    return write_jsonl("quota-google-daily", recs)


@scenario("near-quota-google-minute")
def near_quota_google_minute(rng):
    """Google-style RESOURCE_EXHAUSTED on a per-minute quota (60 reads/min/user, no
    Retry-After); the client backs off with full jitter (1, 2, 4, 8 s windows) and gets
    through. Not an exhausted daily allowance."""
    lim = FixedWindow(60, 60)
    recs = []
    import heapq
    heap = []
    t = 0
    seq = 0
    while t < 600_000:
        seq += 1
        heap.append((t, seq, f"https://sheets.googleapis.com/v4/spreadsheets/1x{rng.getrandbits(40):x}/values/A1:Z100", 0))
        t += rng.expovariate(0.9) * 1000
    heapq.heapify(heap)
    while heap:
        t, _, url, att = heapq.heappop(heap)
        ok, rem, reset = lim.hit(t)
        d = lat(rng, 250) if ok else lat(rng, 30)
        recs.append(rec(t, "GET", url, 200 if ok else 429, d, client="sheet-sync", req=bearer("goog"),
                        resp={"content-type": "application/json; charset=UTF-8"}, body=None if ok else GOOGLE_MIN))
        if not ok and att < 4:
            seq += 1
            heapq.heappush(heap, (t + d + rng.uniform(0, 1000 * 2 ** att), seq, url, att + 1))
    return write_jsonl("near-quota-google-minute", recs)


@scenario("near-steady-over-limit", args=["--limit", "120/min"])
def near_steady_over(rng):
    """One importer at a steady ~130/min (Poisson) against 120/min: a few 429s each minute,
    dropped and logged, not retried. Steady traffic a little over the limit is not a burst."""
    lim = FixedWindow(120, 60)
    recs = []
    t = 0
    while t < 600_000:
        ok, rem, reset = lim.hit(t)
        recs.append(rec(t, "GET", f"https://api.example.com/v1/products/{rng.randint(1, 10**6)}", 200 if ok else 429,
                        lat(rng, 120) if ok else lat(rng, 15), client="importer", req=bearer("imp"), resp=lim.headers(ok, rem, reset)))
        t += rng.expovariate(130 / 60) * 1000
    return write_jsonl("near-steady-over-limit", recs)


@scenario("near-poll-through-outage")
def near_poll_outage(rng):
    """A status page polls 4 endpoints every 10 s for 15 minutes; a 2-minute upstream outage
    answers 503 (and some 429s) to every poll, and polling simply continues on schedule."""
    recs = []
    eps = ["/api/v2/status.json", "/api/v2/components.json", "/api/v2/incidents/unresolved.json", "/api/v2/scheduled-maintenances/upcoming.json"]
    for i, e in enumerate(eps):
        t = 1000 + i * 211
        while t < 900_000:
            down = 300_000 <= t < 420_000
            st = (429 if rng.random() < 0.3 else 503) if down else 200
            recs.append(rec(t, "GET", f"https://status.example.io{e}", st, lat(rng, 30) if down else lat(rng, 110),
                            client="statuspage-widget", resp={"content-type": "application/json"}))
            t += 10_000 + rng.uniform(-60, 60)
    return write_jsonl("near-poll-through-outage", recs)


@scenario("clean-ci-fanout")
def clean_ci_fanout(rng):
    """A CI pipeline: 20 parallel jobs start together and each downloads 5 artifacts and posts a
    status (with an idempotency key), a few times an hour; nothing is limited."""
    recs = []
    for run in range(3):
        base = 30_000 + run * 900_000
        for j in range(20):
            t = base + rng.uniform(0, 1500)
            for a in range(5):
                d = lat(rng, 900, 0.6)
                recs.append(rec(t, "GET", f"https://artifacts.example.dev/v1/builds/{run}/artifacts/{j}-{a}.tar.zst", 200, d,
                                client=f"ci-job-{j}", req=bearer("ci")))
                t += d + rng.uniform(5, 40)
            r = rec(t + rng.uniform(10_000, 60_000), "POST", f"https://artifacts.example.dev/v1/builds/{run}/status", 201, lat(rng, 60),
                    client=f"ci-job-{j}", req=dict(bearer("ci"), **{"Idempotency-Key": str(uuid.UUID(int=rng.getrandbits(128)))}))
            r["request_body"] = json.dumps({"job": j, "ok": True})
            recs.append(r)
    return write_jsonl("clean-ci-fanout", recs)


@scenario("concurrency-with-retries", expect=["concurrency_limit"], allow=["retry_storm"])
def concurrency_retries(rng):
    """A transcoding API allows 3 jobs in flight; 4 uploader threads each submit a job (4-15 s)
    and retry a refusal after 2-4 s (jittered), at most 3 attempts, then move on."""
    recs = []
    running = []
    import heapq
    heap = [(rng.uniform(0, 3000), w, 0, None) for w in range(4)]
    heapq.heapify(heap)
    while heap:
        t, w, att, url = heapq.heappop(heap)
        if t > 900_000:
            continue
        url = url or f"https://transcode.example.com/v2/jobs?src=s3://in/{rng.getrandbits(40):x}.mov"
        running = [e for e in running if e > t]
        ok = len(running) < 3
        d = rng.uniform(4000, 15000) if ok else lat(rng, 25)
        if ok:
            running.append(t + d)
        recs.append(rec(t, "GET", url, 200 if ok else 429, d, client=f"uploader-{w}", req=bearer("tc"),
                        body=None if ok else '{"error":"throttled"}'))
        if ok or att >= 2:
            heapq.heappush(heap, (t + d + rng.uniform(500, 4000), w, 0, None))
        else:
            heapq.heappush(heap, (t + d + rng.uniform(2000, 4000), w, att + 1, url))
    return write_jsonl("concurrency-with-retries", recs)


@scenario("ms-misread-varying", expect=["ignored_retry_after"], allow=["retry_storm", "shared_key_contention"],
          evidence=[["ignored_retry_after", "/seconds_read_as_milliseconds", True]])
def ms_misread_varying(rng):
    """A Node client passes Retry-After straight to setTimeout: the server's Retry-After is the
    time to its window end (3-60 s), and each retry comes that many *milliseconds* later."""
    lim = FixedWindow(50, 60)
    recs = []
    for w in range(2):
        t = rng.uniform(0, 2000)
        while t < 600_000:
            url = f"https://hooks.example.com/v1/deliveries/{rng.getrandbits(32):x}"
            cur = t
            for att in range(4):
                ok, rem, reset = lim.hit(cur)
                d = lat(rng, 140) if ok else lat(rng, 18, 0.3)
                hdr = lim.headers(ok, rem, reset)
                recs.append(rec(cur, "GET", url, 200 if ok else 429, d, client=f"hook-relay-{w}", req=bearer("hooks"), resp=hdr))
                if ok:
                    break
                cur += d + int(hdr["Retry-After"]) + rng.uniform(0.5, 3)
            t = cur + rng.expovariate(0.5) * 1000
    return write_jsonl("ms-misread-varying", recs)



# ---------------------------------------------------------------------------------------------
# Third round: clients that follow the brief's own advice, and clean browser sessions
# ---------------------------------------------------------------------------------------------

@scenario("near-policy-outage")
def near_policy_outage(rng):
    """A client that follows the recommended policy: on 503 (no Retry-After) it retries GETs
    with full jitter in 1, 2, 4, 8 s windows, at most 4 retries (5 attempts), 30 s deadline.
    A 90-second upstream outage in a 10-minute capture at ~1 req/s."""
    recs = []
    t = 0
    while t < 600_000:
        url = f"https://catalog.example.com/v1/skus/{rng.randint(1, 10**6)}"
        cur, start = t, t
        for att in range(5):
            down = 240_000 <= cur < 330_000
            d = lat(rng, 20) if down else lat(rng, 110)
            recs.append(rec(cur, "GET", url, 503 if down else 200, d, client="pricing", req=bearer("cat")))
            if not down:
                break
            wait = rng.uniform(0, 1000 * 2 ** att)
            if cur + d + wait - start > 30_000:
                break
            cur += d + wait
        t += rng.expovariate(1.0) * 1000
    return write_jsonl("near-policy-outage", recs)


@scenario("clean-dashboard-long-ra")
def clean_dashboard_long_ra(rng):
    """A dashboard polling 4 panels every 5 s; a handful of polls get 429 with Retry-After: 30
    and the panel just polls again on its next 5 s tick (the next regular poll)."""
    recs = []
    panels = ["/api/v1/query?q=up", "/api/v1/query?q=rate_5m", "/api/v1/alerts", "/api/v1/targets"]
    for i, p in enumerate(panels):
        t = 300 + i * 53
        while t < 600_000:
            limited = rng.random() < 0.03
            recs.append(rec(t, "GET", f"https://prom.example.internal{p}", 429 if limited else 200,
                            lat(rng, 20) if limited else lat(rng, 90), client="wallboard",
                            resp={"Retry-After": "30"} if limited else {"content-type": "application/json"}))
            t += 5000 + rng.uniform(-30, 30)
    return write_jsonl("clean-dashboard-long-ra", recs)


@scenario("clean-two-tabs-har")
def clean_two_tabs(rng):
    """One browser, two tabs of the same web app open at once (same session cookie), each
    polling its notifications every 15 s and fetching on clicks; nothing limited."""
    pages, ents = [], []
    for p in range(2):
        pid = f"page_{p + 1}"
        pages.append({"startedDateTime": iso(p * 2000).replace("Z", "+00:00"), "id": pid, "title": f"App {p}",
                      "pageTimings": {"onContentLoad": 600, "onLoad": 1100}})
        rh = {"User-Agent": CHROME, "Cookie": "session=abcdef0123456789", "Accept": "application/json"}
        t = p * 2000 + 500
        while t < 600_000:
            ents.append(har_entry(t, "GET", "https://app.example.com/api/notifications?since=0", 200, lat(rng, 60), pid, req_headers=rh,
                                  resp_headers={"content-type": "application/json"}))
            t += 15_000 + rng.uniform(-50, 50)
        t = p * 2000 + 3000
        while t < 600_000:
            ents.append(har_entry(t, "GET", f"https://app.example.com/api/docs/{rng.randint(1, 900)}", 200, lat(rng, 120), pid,
                                  req_headers=rh, resp_headers={"content-type": "application/json"}))
            t += rng.uniform(3000, 40000)
    return write_har("clean-two-tabs-har", pages, ents)



# ---------------------------------------------------------------------------------------------
# Fourth round: browsers and CORS, identical delays, long-lived requests, coarse timestamps,
# several files
# ---------------------------------------------------------------------------------------------

@scenario("ignored-cors-har", expect=["ignored_retry_after"], allow=["retry_storm"],
          evidence=[["ignored_retry_after", "/hidden_from_page_by_cors", {"min": 1}]])
def ignored_cors_har(rng):
    """Browser HAR: app.example.com calls api.partner.example cross-origin. 429s carry
    `Retry-After: 10` but no Access-Control-Expose-Headers, so the page cannot read it and its
    fetch wrapper retries after ~1 s, then ~2 s."""
    pages = [{"startedDateTime": iso(0).replace("Z", "+00:00"), "id": "page_1", "title": "Partner portal",
              "pageTimings": {"onContentLoad": 700, "onLoad": 1300}}]
    ents = []
    lim = FixedWindow(30, 60)
    rh = {"User-Agent": CHROME, "Origin": "https://app.example.com", "Accept": "application/json",
          "Authorization": "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI5OTkifQ.c2lnbmF0dXJlMg"}
    t = 500
    while t < 480_000:
        url = f"https://api.partner.example/v1/quotes/{rng.randint(1, 10**6)}"
        cur = t
        for att in range(3):
            ok, rem, reset = lim.hit(cur)
            w = lat(rng, 130) if ok else lat(rng, 25)
            h = {"content-type": "application/json", "access-control-allow-origin": "https://app.example.com"}
            if not ok:
                h["retry-after"] = "10"
            ents.append(har_entry(cur, "GET", url, 200 if ok else 429, w, "page_1", req_headers=rh, resp_headers=h))
            if ok:
                break
            cur += w + 1000 * (att + 1) * rng.uniform(0.9, 1.2)
        t = cur + rng.expovariate(0.7) * 1000
    return write_har("ignored-cors-har", pages, ents)


@scenario("no-jitter-identical-delays", expect=["synchronized_retries"], allow=["shared_key_contention"])
def no_jitter_delays(rng):
    """4 queue workers (one key) against a 40/min limit; a 429 (no Retry-After) is retried after
    exactly 2 s, then 4 s (tenacity wait_exponential, no jitter). The 429s happen at different
    moments, so there are no waves, only identical delays."""
    lim = FixedWindow(40, 60)
    recs = []
    import heapq
    heap = []
    seq = 0
    for w in range(4):
        t = rng.uniform(0, 3000)
        while t < 600_000:
            seq += 1
            heap.append((t, seq, w, f"https://ml.example.com/v1/embeddings/{rng.getrandbits(32):x}", 0))
            t += rng.expovariate(0.19) * 1000
    heapq.heapify(heap)
    while heap:
        t, _, w, url, att = heapq.heappop(heap)
        ok, rem, reset = lim.hit(t)
        d = lat(rng, 300) if ok else lat(rng, 20, 0.1)
        recs.append(rec(t, "GET", url, 200 if ok else 429, d, client=f"embed-worker-{w}", req=bearer("ml")))
        if not ok and att < 2:
            seq += 1
            heapq.heappush(heap, (t + d + 2000 * 2 ** att + rng.uniform(0.5, 3), seq, w, url, att + 1))
    return write_jsonl("no-jitter-identical-delays", recs)


@scenario("near-streams-and-rate-limit", args=["--limit", "50/min"])
def near_streams(rng):
    """A client keeps 3 server-sent-event streams open (60 s each, reconnecting) and calls the
    API at ~1/s against 50/min: the 429s follow the start rate, not the (constant) streams in
    flight. Refused calls are not retried."""
    lim = FixedWindow(50, 60)
    recs = []
    for sidx in range(3):
        t = rng.uniform(0, 2000)
        while t < 600_000:
            d = 60_000 + rng.uniform(-200, 200)
            recs.append(rec(t, "GET", f"https://live.example.com/v1/events/stream?topic=t{sidx}", 200, d, client="trader-ui",
                            req=bearer("live"), resp={"content-type": "text/event-stream"}))
            t += d + rng.uniform(50, 300)
    t = 0
    while t < 600_000:
        ok, rem, reset = lim.hit(t)
        recs.append(rec(t, "GET", f"https://live.example.com/v1/quotes/{rng.getrandbits(40):x}", 200 if ok else 429,
                        lat(rng, 80) if ok else lat(rng, 10), client="trader-ui", req=bearer("live"), resp=lim.headers(ok, rem, reset)))
        t += rng.expovariate(1.0) * 1000
    return write_jsonl("near-streams-and-rate-limit", recs)


@scenario("clean-dashboard-har")
def clean_dashboard_har(rng):
    """Browser HAR of a monitoring page: 5 panels poll every 5 s with a `_=<ms>` cache buster
    for 10 minutes; now and then a poll gets 429 (Retry-After: 5) and the next tick polls again."""
    pages = [{"startedDateTime": iso(0).replace("Z", "+00:00"), "id": "page_1", "title": "Monitoring",
              "pageTimings": {"onContentLoad": 500, "onLoad": 900}}]
    ents = []
    rh = {"User-Agent": CHROME, "Accept": "application/json", "Cookie": "sid=zzz"}
    for p in range(5):
        t = 1000 + p * 40
        while t < 600_000:
            limited = rng.random() < 0.03
            ents.append(har_entry(t, "GET", f"https://mon.example.com/api/panels/{p}/data?_={int(epoch_s(t) * 1000 + t % 1000)}",
                                  429 if limited else 200, lat(rng, 20) if limited else lat(rng, 110), "page_1", req_headers=rh,
                                  resp_headers={"content-type": "application/json", **({"retry-after": "5"} if limited else {})}))
            t += 5000 + rng.uniform(-25, 25)
    return write_har("clean-dashboard-har", pages, ents)


@scenario("clean-whole-seconds")
def clean_whole_seconds(rng):
    """An access log with whole-second timestamps: ~3/s steady for 10 minutes, a few 429s with
    Retry-After: 5 each retried once 5-7 s later."""
    recs = []
    t = 0.0
    while t < 600_000:
        limited = rng.random() < 0.01
        url = f"https://api.example.com/v1/feed/{rng.randint(1, 10**6)}"
        r = rec(t, "GET", url, 429 if limited else 200, lat(rng, 60), client="feed-reader",
                resp={"Retry-After": "5"} if limited else None)
        recs.append(r)
        if limited:
            recs.append(rec(t + rng.uniform(5200, 7000), "GET", url, 200, lat(rng, 60), client="feed-reader"))
        t += rng.expovariate(3.0) * 1000
    for r in recs:
        r["time"] = r["time"][:19] + "Z"
    return write_jsonl("clean-whole-seconds", recs)


@scenario("burst-secondary-limit", expect=["burst"], allow=["retry_storm", "ignored_retry_after"],
          variants=[("+limit", ["--limit", "5000/h"], {"burst": {"limit_per_minute": 5000 / 60}})])
def burst_secondary(rng):
    """GitHub-style: a primary allowance of 5000 per hour (x-ratelimit-* with an epoch reset,
    x-ratelimit-resource: core) that is nowhere near spent, and a secondary limit on bursts
    (more than 80 requests in 10 s gets 429 + Retry-After: 60, "secondary rate limit"). A
    release bot fires 250 label/comment calls in ~5 s twice an hour; ordinary traffic around
    (its repeated page GETs right after a 429 are, to the server, early retries)."""
    recs = []
    used = 0
    recent = []
    reset = epoch_s(0) + 3600
    evs = []
    t = 0
    while t < 1_800_000:
        evs.append((t, "ui"))
        t += rng.expovariate(0.2) * 1000
    for k in range(2):
        base = 400_000 + k * 900_000
        for i in range(250):
            evs.append((base + i * 20 + rng.uniform(0, 10), "bot"))
    for t, who in sorted(evs):
        recent = [x for x in recent if x > t - 10_000]
        ok = len(recent) < 80
        if ok:
            recent.append(t)
            used += 1
        h = {"x-ratelimit-limit": "5000", "x-ratelimit-remaining": str(5000 - used), "x-ratelimit-used": str(used),
             "x-ratelimit-reset": str(reset), "x-ratelimit-resource": "core", "x-github-request-id": f"{rng.getrandbits(40):X}"}
        body = None
        if not ok:
            h["retry-after"] = "60"
            body = '{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}'
        url = (f"https://api.github.com/repos/acme/widgets/issues/{rng.randint(1, 4000)}/labels" if who == "bot"
               else f"https://api.github.com/repos/acme/widgets/pulls?page={rng.randint(1, 5)}")
        recs.append(rec(t, "GET", url, 200 if ok else 429, lat(rng, 180) if ok else lat(rng, 30),
                        client="release-bot" if who == "bot" else "dev-portal", req={"Authorization": "token ghp_abcdefghijklmnopqrstuvwxyz0123456789"},
                        resp=h, body=body))
    return write_jsonl("burst-secondary-limit", recs)



# ---------------------------------------------------------------------------------------------
# Fifth round: polls on the clock, unsorted and split logs, IETF RateLimit headers
# ---------------------------------------------------------------------------------------------

@scenario("burst-cron-fleet", expect=["burst"])
def burst_cron_fleet(rng):
    """20 agents (each its own token) fetch their config at every minute boundary (NTP skew
    ±30 ms) for 15 minutes; an 8-per-second limiter refuses 12 of them each time. They do not
    retry: the next fetch is the next minute's. Not synchronized *retries* (those are polls),
    but a burst of first attempts."""
    recs = []
    for minute in range(15):
        base = 60_000 * (minute + 1)
        starts = sorted((base + rng.gauss(0, 15), a) for a in range(20))
        for k, (t, a) in enumerate(starts):
            ok = k < 8
            recs.append(rec(t, "GET", f"https://fleet.example.com/v1/agents/ag-{a:03d}/config", 200 if ok else 429,
                            lat(rng, 60) if ok else lat(rng, 8), client=f"agent-{a:03d}", req=bearer(f"agent{a:03d}x")))
    background(rng, recs, 0, 960_000, 0.2, host="https://fleet.example.com", client="fleet-console")
    return write_jsonl("burst-cron-fleet", recs)


@scenario("ms-misread-unsorted", expect=["ignored_retry_after"], allow=["retry_storm"],
          evidence=[["ignored_retry_after", "/seconds_read_as_milliseconds", True]])
def ms_misread_unsorted(rng):
    """The ms-misread client again, but its log was merged from 4 threads: lines are out of
    time order (each thread's block written at flush)."""
    lim = FixedWindow(40, 60)
    recs = []
    t = 0
    while t < 300_000:
        url = f"https://crm.example.io/v3/accounts/{rng.randint(10**5, 10**6)}"
        cur = t
        for att in range(5):
            ok, rem, reset = lim.hit(cur)
            d = lat(rng, 160) if ok else lat(rng, 22, 0.25)
            resp = {"Retry-After": "8"} if not ok else {}
            r = rec(cur, "GET", url, 200 if ok else 429, d, client="crm-sync", req=bearer("crm"), resp=resp)
            r["thread"] = rng.randint(0, 3)
            recs.append(r)
            if ok:
                break
            cur += d + 8 + rng.uniform(0.3, 4)
        t = max(cur + 50, t + rng.expovariate(1.1) * 1000)
    recs.sort(key=lambda r: (r["thread"], r["time"]))
    with gzip.GzipFile(os.path.join(OUT, "ms-misread-unsorted.jsonl.gz"), "wb", mtime=0) as f:
        for r in recs:
            f.write((json.dumps(r, separators=(",", ":")) + "\n").encode())
    return "ms-misread-unsorted.jsonl.gz"


@scenario("shared-key-split-files", expect=["shared_key_contention"],
          args=["--limit", "120/min", "tests/heldout/shared-key-split-1.jsonl.gz", "tests/heldout/shared-key-split-2.jsonl.gz"])
def shared_key_split(rng):
    """3 services share one key, each ~50/min against 120/min; each service's log is its own
    file (the test passes all three), without a `client` field: user agents tell them apart."""
    lim = FixedWindow(120, 60)
    svcs = [("ledger/3.1 (+java)", "/v1/ledgers"), ("payouts/1.4 python-httpx", "/v1/payouts"), ("kyc-worker/0.9 node", "/v1/persons")]
    events = []
    for i, (ua, path) in enumerate(svcs):
        t = rng.uniform(0, 3000)
        while t < 600_000:
            events.append((t, i, ua, path))
            t += rng.expovariate(50 / 60) * 1000
    per = [[], [], []]
    for t, i, ua, path in sorted(events):
        ok, rem, reset = lim.hit(t)
        per[i].append(rec(t, "GET", f"https://api.bank.example{path}/{rng.randint(1, 10**6)}", 200 if ok else 429,
                          lat(rng, 150) if ok else lat(rng, 20), ua=ua, req=bearer("bank"), resp=lim.headers(ok, rem, reset)))
    write_jsonl("shared-key-split-1", per[1])
    write_jsonl("shared-key-split-2", per[2])
    return write_jsonl("shared-key-split-files", per[0])


@scenario("quota-ietf-headers", expect=["quota_exhausted"], action={"action": "stop_or_reschedule"})
def quota_ietf(rng):
    """IETF draft headers: `RateLimit-Policy: "daily";q=2000;w=86400` and
    `RateLimit: "daily";r=0;t=52000` on 429s after the allowance is spent; the importer keeps
    calling every ~4 s."""
    recs = []
    t = 0
    left = 25
    while t < 500_000:
        ok = left > 0
        left -= 1
        h = {"RateLimit-Policy": '"daily";q=2000;w=86400', "RateLimit": f'"daily";r={max(left, 0)};t={52000 - int(t / 1000)}'}
        recs.append(rec(t, "GET", f"https://api.catalog.example/v1/items?cursor={rng.getrandbits(32):x}", 200 if ok else 429,
                        lat(rng, 180) if ok else lat(rng, 25), client="importer", req={"X-Api-Key": "cat_55aa66bb77cc88dd"}, resp=h))
        t += rng.uniform(3000, 5000)
    return write_jsonl("quota-ietf-headers", recs)


@scenario("near-quota-daily-mentioned", allow=["synchronized_retries"])
def near_quota_daily_mentioned(rng):
    """A free-plan weather API refuses past 60 per minute with `Retry-After` to the minute's
    end; its error body also mentions the plan's daily cap, which is nowhere near spent. The
    widget waits the Retry-After (plus spread) before its one retry. (At ~1.15/s against 60/min
    the refused requests' retries all land in the first seconds of the next window:
    synchronized_retries is defensible, as in near-retry-waits-full-ra.)"""
    lim = FixedWindow(60, 60)
    recs = []
    import heapq
    heap = []
    t = 0
    seq = 0
    while t < 600_000:
        seq += 1
        heap.append((t, seq, f"https://api.weather.example/v1/observations?station={rng.getrandbits(24):x}", 0))
        t += rng.expovariate(1.15) * 1000
    heapq.heapify(heap)
    while heap:
        t, _, url, att = heapq.heappop(heap)
        ok, rem, reset = lim.hit(t)
        d = lat(rng, 110) if ok else lat(rng, 15)
        hdr = lim.headers(ok, rem, reset)
        recs.append(rec(t, "GET", url, 200 if ok else 429, d, client="weather-widget", req={"X-Api-Key": "wx_8877665544332211"},
                        resp=hdr, body=None if ok else '{"error":"rate_limited","message":"Too many requests: 60 per minute allowed on the free plan (daily cap 10000)."}'))
        if not ok and att < 1:
            seq += 1
            heapq.heappush(heap, (t + d + int(hdr["Retry-After"]) * 1000 + rng.uniform(300, 3000), seq, url, att + 1))
    return write_jsonl("near-quota-daily-mentioned", recs)


def main():
    expected = {}
    for i, (name, s) in enumerate(SCEN.items()):
        rng = random.Random(SEED + i)
        fname = s["fn"](rng)
        expected[name] = {"file": fname, "args": s["args"], "expect": s["expect"], "allow": s["allow"],
                          "action": s["action"], "evidence": s["evidence"]}
        for suffix, args, action in s["variants"]:
            expected[name + suffix] = dict(expected[name], args=list(args), action=action)
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")
    print(f"{len(expected)} scenarios")


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1000, help="base seed (the committed set uses 1000)")
    ap.add_argument("--out", default=OUT, help="output directory (default: next to this script)")
    a = ap.parse_args()
    SEED, OUT = a.seed, a.out
    os.makedirs(OUT, exist_ok=True)
    main()
