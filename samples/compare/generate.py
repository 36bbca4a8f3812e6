#!/usr/bin/env python3
"""Generate the before/after pair for `toomany compare` (deterministic; fake secrets only).

    python3 samples/compare/generate.py

before.har  a nightly sync starts 200 GETs in 1.6 s against a 100-per-minute window; the
            second hundred are refused with Retry-After and retried when it expires.
after.har   the same 200 GETs spaced by the plan toomany gave for before.har (75/min, one
            start every 800 ms, one in flight): no 429 at all.

`toomany compare samples/compare/before.har --against samples/compare/after.har` says improved,
with the burst resolved; swapping the sides says regressed.
"""
import json
import math
import os
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
LIMIT, WINDOW = 100, 60.0


def iso(base, t):
    return (base + timedelta(seconds=t)).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def entry(base, t, i, status, dur, retry_after=None, remaining=0, reset=0):
    headers = [
        {"name": "Content-Type", "value": "application/json"},
        {"name": "X-RateLimit-Limit", "value": str(LIMIT)},
        {"name": "X-RateLimit-Remaining", "value": str(remaining)},
        {"name": "X-RateLimit-Reset", "value": str(int(math.ceil(reset)))},
    ]
    if retry_after is not None:
        headers.append({"name": "Retry-After", "value": str(retry_after)})
    body = '{"error":"rate_limited","message":"Too many requests"}' if status == 429 else '{"id":%d}' % i
    return {
        "startedDateTime": iso(base, t),
        "time": dur,
        "request": {
            "method": "GET",
            "url": f"https://api.example.com/v1/items/{i}",
            "httpVersion": "HTTP/1.1",
            "headers": [
                {"name": "Authorization", "value": "Bearer sk_fake_compare_0123456789abcdef"},
                {"name": "User-Agent", "value": "nightly-sync/2.3"},
            ],
            "queryString": [],
            "cookies": [],
            "headersSize": -1,
            "bodySize": 0,
        },
        "response": {
            "status": status,
            "statusText": "Too Many Requests" if status == 429 else "OK",
            "httpVersion": "HTTP/1.1",
            "headers": headers,
            "cookies": [],
            "content": {"size": len(body), "mimeType": "application/json", "text": body},
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": len(body),
        },
        "cache": {},
        "timings": {"send": 0, "wait": dur, "receive": 0},
    }


def run(base, starts):
    """starts: [(t, item)] first attempts; a 429 is retried when its Retry-After expires."""
    counts, entries, queue = {}, [], sorted(starts)
    while queue:
        t, i = queue.pop(0)
        w = math.floor(t / WINDOW)
        reset = (w + 1) * WINDOW - t
        dur = 40.0
        if counts.get(w, 0) < LIMIT:
            counts[w] = counts.get(w, 0) + 1
            entries.append(entry(base, t, i, 200, dur, remaining=LIMIT - counts[w], reset=reset))
        else:
            wait = int(math.ceil(reset))
            entries.append(entry(base, t, i, 429, dur, retry_after=wait, reset=reset))
            queue.append((t + dur / 1000 + wait + 0.05 + 0.003 * (i % 7), i))
            queue.sort()
    entries.sort(key=lambda e: e["startedDateTime"])
    return entries


def write(name, entries):
    har = {"log": {"version": "1.2", "creator": {"name": "samples/compare/generate.py", "version": "1"},
                   "pages": [], "entries": entries}}
    with open(os.path.join(HERE, name), "w") as f:
        json.dump(har, f, indent=1)
        f.write("\n")


before = datetime(2026, 11, 2, 2, 0, 0, tzinfo=timezone.utc)
after = datetime(2026, 11, 9, 2, 0, 0, tzinfo=timezone.utc)
write("before.har", run(before, [(i * 0.008, i) for i in range(200)]))
write("after.har", run(after, [(i * 0.8, i) for i in range(200)]))
