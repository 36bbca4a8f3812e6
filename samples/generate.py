#!/usr/bin/env python3
"""Generate the sample incident logs in this directory (deterministic; fake secrets only).

    python3 samples/generate.py

retry-storm.jsonl  four workers of one service share one API key against a 120/min limit; an
                   SDK retrying 3 times inside an app loop of 4 ignores Retry-After; a checkout
                   service retries POST /v1/charges without an idempotency key.
batch-burst.jsonl  a nightly export starts 400 requests in a few seconds against 100/min, its
                   pods come back together when Retry-After expires (no jitter); an LLM job
                   runs out of credit; a dashboard polls every 5 s throughout (clean).
"""
import heapq
import json
import math
import os
import random
from datetime import datetime, timedelta, timezone

BASE = datetime(2026, 3, 2, 14, 0, 0, tzinfo=timezone.utc)
HERE = os.path.dirname(os.path.abspath(__file__))


def ts(t):
    return (BASE + timedelta(seconds=t)).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def http_date(t):
    return (BASE + timedelta(seconds=t)).strftime("%a, %d %b %Y %H:%M:%S GMT")


class WindowLimiter:
    """`limit` starts per fixed window; Retry-After = seconds to the window's end."""

    def __init__(self, limit, window):
        self.limit, self.window, self.counts = limit, window, {}

    def __call__(self, t):
        w = math.floor(t / self.window)
        c = self.counts.get(w, 0)
        reset = (w + 1) * self.window - t
        if c < self.limit:
            self.counts[w] = c + 1
            return True, self.limit - c - 1, reset
        return False, 0, reset


def line(t, method, url, status, dur, client, req_h, resp_h, body=None, req_body=None):
    rec = {
        "time": ts(t),
        "method": method,
        "url": url,
        "status": status,
        "duration_ms": round(dur, 1),
        "client": client,
        "request_headers": req_h,
        "response_headers": resp_h,
    }
    if body is not None:
        rec["response_body"] = body
    if req_body is not None:
        rec["request_body"] = req_body
    return (t, rec)


def simulate(workers, limiter, rng, horizon=3600.0):
    """Workers: dicts with jobs, start, spacing, latency, url(j), method, headers(j, attempt),
    delay(attempt, retry_after) -> seconds or None (give up), body(j)."""
    out = []
    q = []
    for i, w in enumerate(workers):
        heapq.heappush(q, (w["start"], i, 0, 0))
    while q:
        t, i, job, attempt = heapq.heappop(q)
        if t > horizon:
            continue
        w = workers[i]
        ok, remaining, reset = limiter(t)
        ra = max(1, math.ceil(reset))
        if ok:
            status, dur = 200, w["latency"] * (0.7 + 0.6 * rng.random())
            resp = {"Content-Type": "application/json", "X-RateLimit-Limit": str(limiter.limit),
                    "X-RateLimit-Remaining": str(remaining), "X-RateLimit-Reset": str(math.ceil(reset))}
            body = None
        else:
            status, dur = 429, 6 + 6 * rng.random()
            resp = {"Content-Type": "application/json", "Retry-After": w.get("retry_after_fmt", lambda ra, t: str(ra))(ra, t),
                    "X-RateLimit-Limit": str(limiter.limit), "X-RateLimit-Remaining": "0",
                    "X-RateLimit-Reset": str(ra)}
            body = '{"error":{"code":"rate_limited","message":"Too many requests, retry later"}}'
        out.append(line(t, w["method"], w["url"](job), status, dur, w["client"], w["headers"](job, attempt), resp,
                        body, w.get("body", lambda j: None)(job)))
        end = t + dur / 1000.0
        if status != 200:
            d = w["delay"](attempt, ra, rng)
            if d is not None:
                heapq.heappush(q, (end + d, i, job, attempt + 1))
                continue
        if job + 1 < w["jobs"]:
            heapq.heappush(q, (end + w["spacing"] * (0.8 + 0.4 * rng.random()), i, job + 1, 0))
    return out


def write(name, records):
    records.sort(key=lambda r: r[0])
    path = os.path.join(HERE, name)
    with open(path, "w") as f:
        for _, rec in records:
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")
    print(f"{name}: {len(records)} records, {os.path.getsize(path)} bytes")


def retry_storm():
    rng = random.Random(4)
    key = "Bearer sk-test-4f9a2c7e1b8d4a6f9e3c5b7a"
    ua = "orders-sync/1.8 python-requests/2.31"

    def nested(attempt, ra, rng):
        # SDK: 3 attempts 200 ms apart; app loop: 4 rounds 3 s apart. Retry-After ignored.
        if attempt + 1 >= 12:
            return None
        return 3.0 if (attempt + 1) % 3 == 0 else 0.2

    workers = []
    for k in range(4):
        workers.append({
            "client": f"orders-sync-{k + 1}", "jobs": 40, "start": k * 0.41, "spacing": 0.9, "latency": 180,
            "method": "GET", "url": lambda j, k=k: f"https://api.example.com/v1/orders/{1000 * (k + 1) + j}",
            "headers": lambda j, a: {"Authorization": key, "User-Agent": ua, "Accept": "application/json"},
            "delay": nested,
        })

    def checkout_delay(attempt, ra, rng):
        return None if attempt + 1 >= 3 else 1.0 + rng.random()

    workers.append({
        "client": "checkout", "jobs": 30, "start": 2.0, "spacing": 2.5, "latency": 320,
        "method": "POST", "url": lambda j: "https://api.example.com/v1/charges",
        "headers": lambda j, a: {"Authorization": key, "User-Agent": "checkout/3.2 node-fetch/3", "Content-Type": "application/json"},
        "body": lambda j: json.dumps({"amount": 1000 + 7 * j, "currency": "eur", "customer": f"cus_{j:04d}"}),
        "delay": checkout_delay,
    })
    records = simulate(workers, WindowLimiter(120, 60.0), rng, horizon=240.0)
    write("retry-storm.jsonl", records)


def batch_burst():
    rng = random.Random(9)
    key = "Bearer sk-test-8c1d5e9f2a4b6c8d0e1f3a5b"

    def honour_no_jitter(attempt, ra, rng):
        return None if attempt + 1 >= 3 else float(ra)

    workers = []
    for k in range(6):
        workers.append({
            "client": f"export-pod-{k}", "jobs": 45, "start": 20.0 + k * 0.004, "spacing": 0.0, "latency": 40,
            "method": "GET", "url": lambda j, k=k: f"https://api.example.com/v2/invoices?page={k * 50 + j}",
            "headers": lambda j, a: {"Authorization": key, "User-Agent": "nightly-export/2.0 go-http-client/1.1"},
            "delay": honour_no_jitter,
            "retry_after_fmt": lambda ra, t: str(ra),
        })
    records = simulate(workers, WindowLimiter(100, 60.0), rng, horizon=600.0)

    # A dashboard polling three widgets every 5 s (clean).
    for r in range(48):
        for wdg in range(3):
            t = r * 5.0 + wdg * 0.04 + rng.random() * 0.02
            records.append(line(t, "GET", f"https://dash.example.com/api/widgets/{wdg}", 200, 60 + rng.random() * 50,
                                "dashboard", {"User-Agent": "Mozilla/5.0 Firefox/128.0", "Cookie": "session=s3cr3t-test"},
                                {"Content-Type": "application/json"}))

    # An LLM summarizer that runs out of credit and keeps going.
    llm_key = "Bearer sk-test-llm-0a1b2c3d4e5f6a7b8c9d"
    for j in range(40):
        t = 5.0 + j * 4.5
        ok = j < 18
        body = None if ok else ('{"error":{"message":"You exceeded your current quota, please check your plan and '
                                'billing details.","type":"insufficient_quota","code":"insufficient_quota"}}')
        resp = {"Content-Type": "application/json"}
        if not ok:
            resp["Retry-After"] = "86400"
        records.append(line(t, "POST", "https://api.llm.example/v1/chat/completions", 200 if ok else 429,
                            900 + rng.random() * 600 if ok else 40, "summarizer",
                            {"Authorization": llm_key, "User-Agent": "summarizer/0.9 openai-python/1.40"}, resp, body,
                            json.dumps({"model": "small", "messages": [{"role": "user", "content": f"doc {j}"}]})))
    write("batch-burst.jsonl", records)


if __name__ == "__main__":
    retry_storm()
    batch_burst()
