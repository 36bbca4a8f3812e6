#!/usr/bin/env python3
"""Generate the access-log samples of one incident (deterministic; fake keys only).

    python3 samples/generate_access.py

The incident: a nightly sync job runs on three workers (three IPs, one shared API key,
python-requests) against api.example.com, behind ingress-nginx and, in front of the API pods,
an Envoy sidecar. A dashboard polls every 5 s with its own key throughout.

- nginx's limit_req (`limit_req_status 429`, 30 r/s per key) rejects part of the job's burst
  itself: `$upstream_status` is `-`.
- The Envoy sidecar's local rate limit (25 r/s) rejects more: flag `RL`, details
  `local_rate_limited`, no upstream host. nginx passes those 429s on: its
  `$upstream_status` is 429.
- The API's own per-key quota (120/min) answers 429 with `Retry-After: 30`, which Envoy passes
  through (`via_upstream`) and nginx logs in `$upstream_http_retry_after`.
- The workers retry every 429 after 0.2 s, up to 4 times, ignoring Retry-After.

nginx-incident.log  ingress-nginx, custom log_format (shown in README.md) with
                    $upstream_status, $upstream_http_retry_after, $http_x_api_key
envoy-incident.log  the Envoy sidecar in front of the API, Istio's default text format
"""
import os
import random
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = datetime(2026, 3, 2, 2, 0, 0, tzinfo=timezone.utc)
rng = random.Random(10)

JOB_KEY = "sk_live_51SyncJobSharedKey0000000001"
DASH_KEY = "sk_live_51DashboardKey00000000000002"
WORKERS = ["10.2.0.11", "10.2.0.12", "10.2.0.13"]
DASH_IP = "10.3.0.7"
JOB_UA = "python-requests/2.31.0"
DASH_UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36"
POD = "10.44.1.27:8080"


def clf(t):
    return (BASE + timedelta(seconds=t)).strftime("%d/%b/%Y:%H:%M:%S +0000")


def msec(t):
    return "%.3f" % (BASE + timedelta(seconds=t)).timestamp()


def iso(t):
    return (BASE + timedelta(seconds=t)).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Window:
    """At most `n` per `w` seconds (sliding log), keyed."""

    def __init__(self, n, w):
        self.n, self.w, self.seen = n, w, {}

    def admit(self, key, t):
        s = [x for x in self.seen.get(key, []) if x > t - self.w]
        ok = len(s) < self.n
        if ok:
            s.append(t)
        self.seen[key] = s
        return ok


nginx_limit = Window(30, 1.0)  # limit_req 30 r/s per key (burst allowed)
envoy_limit = Window(25, 1.0)  # local rate limit 25 r/s
api_quota = Window(120, 60.0)  # API: 120/min per key


def request_id():
    return "%032x" % rng.getrandbits(128)


nginx_lines, envoy_lines = [], []


def serve(start, ip, ua, key, method, path):
    """One request through nginx -> Envoy -> API: its status and duration (s)."""
    rid = request_id()
    if not nginx_limit.admit(key, start):
        dur = 0.000
        nginx_lines.append((start + dur, f'{ip} - - [{clf(start + dur)}] "{method} {path} HTTP/1.1" 429 162 "-" "{ua}" rt={dur:.3f} t={msec(start + dur)} us=- ra="-" key="{key}" rid={rid} host=api.example.com'))
        return 429, dur
    t_env = start + 0.001
    eid = rid  # ingress-nginx sends $req_id upstream as X-Request-ID
    tail = f'"{ip}" "{ua}" "{eid}" "api.example.com"'
    if not envoy_limit.admit("all", t_env):
        envoy_lines.append((t_env, f'[{iso(t_env)}] "{method} {path} HTTP/1.1" 429 RL local_rate_limited - "-" 0 18 0 - {tail} "-" inbound|8080|| - 10.44.1.27:8080 10.1.0.5:41234 outbound_.8080_._.api.default.svc.cluster.local default'))
        dur = 0.002
        nginx_lines.append((start + dur, f'{ip} - - [{clf(start + dur)}] "{method} {path} HTTP/1.1" 429 18 "-" "{ua}" rt={dur:.3f} t={msec(start + dur)} us=429 ra="-" key="{key}" rid={rid} host=api.example.com'))
        return 429, dur
    if not api_quota.admit(key, t_env):
        envoy_lines.append((t_env, f'[{iso(t_env)}] "{method} {path} HTTP/1.1" 429 - via_upstream - "-" 0 61 4 3 {tail} "{POD}" inbound|8080|| 127.0.0.6:51002 10.44.1.27:8080 10.1.0.5:41234 outbound_.8080_._.api.default.svc.cluster.local default'))
        dur = 0.006
        nginx_lines.append((start + dur, f'{ip} - - [{clf(start + dur)}] "{method} {path} HTTP/1.1" 429 61 "-" "{ua}" rt={dur:.3f} t={msec(start + dur)} us=429 ra="30" key="{key}" rid={rid} host=api.example.com'))
        return 429, dur
    env_dur = 20 + rng.randint(0, 30)
    envoy_lines.append((t_env, f'[{iso(t_env)}] "{method} {path} HTTP/1.1" 200 - via_upstream - "-" 0 412 {env_dur} {env_dur - 1} {tail} "{POD}" inbound|8080|| 127.0.0.6:51002 10.44.1.27:8080 10.1.0.5:41234 outbound_.8080_._.api.default.svc.cluster.local default'))
    dur = (env_dur + 3) / 1000
    nginx_lines.append((start + dur, f'{ip} - - [{clf(start + dur)}] "{method} {path} HTTP/1.1" 200 412 "-" "{ua}" rt={dur:.3f} t={msec(start + dur)} us=200 ra="-" key="{key}" rid={rid} host=api.example.com'))
    return 200, dur


# Each worker works through its 100 items one request at a time; a 429 is retried after
# 0.2 s, up to 4 times, whatever Retry-After says. The dashboard polls every 5 s.
ITEMS = 100
queue = [(0.05 * w, "job", w, 0, 0) for w in range(len(WORKERS))]
queue += [(i * 5.0 + 0.3, "dash", 0, i, 0) for i in range(36)]
while queue:
    queue.sort()
    t, who, w, item, tries = queue.pop(0)
    if who == "dash":
        serve(t, DASH_IP, DASH_UA, DASH_KEY, "GET", "/v1/status")
        continue
    status, dur = serve(t, WORKERS[w], JOB_UA, JOB_KEY, "GET", f"/v1/items/{w * ITEMS + item}?include=prices")
    if status == 429 and tries < 4:
        queue.append((t + dur + 0.2, who, w, item, tries + 1))
    elif item + 1 < ITEMS:
        queue.append((t + dur + 0.005, who, w, item + 1, 0))

# nginx writes a line when the request ends; whole seconds in $time_local keep file order.
nginx_lines.sort(key=lambda x: x[0])
envoy_lines.sort(key=lambda x: x[0])
with open(os.path.join(HERE, "nginx-incident.log"), "w") as f:
    f.writelines(line + "\n" for _, line in nginx_lines)
with open(os.path.join(HERE, "envoy-incident.log"), "w") as f:
    f.writelines(line + "\n" for _, line in envoy_lines)
print(f"nginx-incident.log: {len(nginx_lines)} lines, envoy-incident.log: {len(envoy_lines)} lines")
