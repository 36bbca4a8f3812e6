#!/usr/bin/env python3
"""Turn cases.json into one HAR 1.2 file per case: cases/<id>.har (one entry)."""
import json, os, sys
from urllib.parse import urlsplit, parse_qsl

HERE = os.path.dirname(os.path.abspath(__file__))
STATUS_TEXT = {429: "Too Many Requests", 400: "Bad Request", 403: "Forbidden",
               503: "Service Unavailable", 420: "Enhance Your Calm", 500: "Internal Server Error"}


def header_list(pairs):
    return [{"name": n, "value": v} for n, v in pairs]


def mime_of(headers, body):
    for n, v in headers:
        if n.lower() == "content-type":
            return v
    b = (body or "").lstrip()
    if b.startswith("{") or b.startswith("["):
        return "application/json"
    if b.startswith("<"):
        return "text/html"
    return "text/plain"


def entry(case, started):
    req, resp = case["request"], case["response"]
    url = req["url"]
    parts = urlsplit(url)
    body = resp.get("body") or ""
    headers = resp.get("headers") or []
    status = int(resp["status"])
    return {
        "startedDateTime": started,
        "time": 120.0,
        "request": {
            "method": req.get("method", "GET"), "url": url, "httpVersion": "HTTP/1.1",
            "cookies": [],
            "headers": header_list([["Host", parts.netloc], ["User-Agent", "heldout5/1.0"],
                                    ["Accept", "*/*"]]),
            "queryString": [{"name": k, "value": v} for k, v in parse_qsl(parts.query)],
            "headersSize": -1, "bodySize": 0,
        },
        "response": {
            "status": status, "statusText": resp.get("status_text") or STATUS_TEXT.get(status, ""),
            "httpVersion": "HTTP/1.1", "cookies": [], "headers": header_list(headers),
            "content": {"size": len(body.encode()), "mimeType": mime_of(headers, body), "text": body},
            "redirectURL": "", "headersSize": -1, "bodySize": len(body.encode()),
        },
        "cache": {},
        "timings": {"blocked": -1, "dns": -1, "connect": -1, "ssl": -1, "send": 1.0,
                    "wait": 118.0, "receive": 1.0},
    }


def started_of(case):
    # Use the response's own Date header when present so HTTP-date Retry-After values keep
    # their recorded meaning; else a fixed time.
    from email.utils import parsedate_to_datetime
    for n, v in case["response"].get("headers") or []:
        if n.lower() == "date":
            try:
                d = parsedate_to_datetime(v)
                return d.strftime("%Y-%m-%dT%H:%M:%S.000Z")
            except (TypeError, ValueError):
                pass
    return "2026-12-01T12:00:00.000Z"


def main():
    cases = json.load(open(os.path.join(HERE, "cases.json")))
    out = os.path.join(HERE, "cases")
    os.makedirs(out, exist_ok=True)
    ids = set()
    for c in cases:
        assert c["id"] not in ids, c["id"]
        ids.add(c["id"])
        har = {"log": {"version": "1.2", "creator": {"name": "heldout5-make", "version": "1"},
                       "pages": [], "entries": [entry(c, started_of(c))]}}
        with open(os.path.join(out, c["id"] + ".har"), "w") as f:
            json.dump(har, f, indent=1)
    print(f"wrote {len(cases)} HAR files to {out}")


if __name__ == "__main__":
    sys.exit(main())
