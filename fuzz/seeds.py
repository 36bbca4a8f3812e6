#!/usr/bin/env python3
"""Build the seed corpora in fuzz/corpus/<target>/ (gitignored) from what the repository and
its neighbours already hold, so nothing third-party is committed here:

- samples/ and tests/fixtures/ (ours): HARs, JSON lines;
- tests/corpus/real-har/ (real exporter files, when present beside the checkout), files
  up to MAX_FILE bytes;
- the access-log lines quoted in src/ingest/access/tests.rs (vendor docs, elastic/beats
  fixtures), extracted at run time;
- a few hand-written values for the header parsers.

Usage: python3 fuzz/seeds.py   (from the repository root or fuzz/)
"""

import gzip
import pathlib
import re
import struct

FUZZ = pathlib.Path(__file__).resolve().parent
REPO = FUZZ.parent
CORPUS = FUZZ / "corpus"
SHARED = REPO.parent / "shared" / "corpus" / "real-har"
MAX_FILE = 200 * 1024


def put(target, name, data):
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    (d / name).write_bytes(data)


def small(paths):
    for p in sorted(paths):
        if p.is_file() and p.stat().st_size <= MAX_FILE:
            yield p


def head(p, n=64 * 1024):
    return p.read_bytes()[:n]


def main():
    hars = list(small(REPO.glob("samples/*.har"))) + list(small(REPO.glob("tests/fixtures/**/*.har")))
    if SHARED.is_dir():
        hars += list(small(SHARED.glob("*.har")))
    for p in hars:
        for t in ("har", "check"):
            put(t, p.name, p.read_bytes())
    # One gzipped HAR: the readers sniff gzip by its magic bytes.
    if hars:
        put("har", "gzipped.har.gz", gzip.compress(hars[0].read_bytes()[:32 * 1024]))
    for p in list(REPO.glob("samples/*.jsonl")) + list(REPO.glob("tests/fixtures/**/*.jsonl")):
        put("jsonl", p.name, head(p))
        put("redact", p.name, head(p, 4096))
    for p in hars[:6]:
        put("redact", p.name, head(p, 8192))

    # Access-log lines from the parser's own tests.
    tests = (REPO / "src/ingest/access/tests.rs").read_text(encoding="utf-8")
    consts = dict(
        (m.group(1), m.group(2) or m.group(3))
        for m in re.finditer(r'const (\w+): &str =\s*(?:r#"(.*?)"#|"((?:[^"\\]|\\.)*)");', tests, re.S)
    )
    def unescape(s):
        return s.encode().decode("unicode_escape").encode("latin-1").decode("utf-8", "replace")
    family = {
        # target: [(format index in the target's FORMATS, const names)]
        "access_nginx": [(0, ["BEATS_NGINX", "BEATS_INGRESS"])],
        "access_envoy": [(0, ["ENVOY_DOCS", "ISTIO_DOCS", "ISTIO_RL", "ENVOY_GATEWAY"])],
        "access_alb": [(0, ["ALB_DOCS", "ALB_LAMBDA", "ALB_H2"])],
        "access_w3c": [(0, ["IIS"]), (1, ["CLOUDFRONT"])],
        "access_haproxy": [(0, ["HAPROXY_DOCS", "HAPROXY_5424"])],
        "access_json": [(0, ["CLOUDFLARE"]), (1, ["KONG"]), (2, ["TRAEFIK"]), (3, ["CADDY"]), (4, ["GCP"])],
    }
    for target, groups in family.items():
        for index, names in groups:
            for n in names:
                if n in consts:
                    text = consts[n] if n not in ("CLOUDFRONT", "IIS") else unescape(consts[n])
                    put(target, n.lower(), bytes([index]) + text.encode() + b"\n")
    clf = '127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326\n'
    put("access_nginx", "clf", bytes([1]) + clf.encode())
    put("access_nginx", "traefik_clf", bytes([2]) + (
        '192.168.1.20 - - [26/Apr/2026:10:14:22 +0000] "GET /api/v1/users HTTP/1.1" 429 17 "-" '
        '"python-requests/2.31.0" 1042 "api@docker" "http://172.18.0.3:8080" 3ms\n').encode())
    put("log_format", "nginx",
        "log_format api '$remote_addr [$time_local] \"$request\" $status $request_time "
        "$upstream_status \"$upstream_http_retry_after\"';\n"
        '10.1.1.2 [01/Mar/2024:10:00:01 +0000] "GET /v1/items HTTP/1.1" 429 0.120 429 "12"\n')
    put("log_format", "envoy",
        '[%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%" '
        '%RESPONSE_CODE% %RESPONSE_FLAGS% %DURATION%\n'
        '[2024-09-15T16:27:47.687Z] "GET /x HTTP/1.1" 429 RL 3\n')
    put("log_format", "apache",
        'LogFormat "%h %l %u %t \\"%r\\" %>s %b %D" timed\n' + clf)

    # Header parsers: an 8-byte clock (and for Retry-After a 9th byte: the attempt) + values.
    now = struct.pack("<q", 784111777)  # Sun, 06 Nov 1994 08:49:37 GMT
    for i, v in enumerate(["120", "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT",
                           "Sun Nov  6 08:49:37 1994", "1.5", "-1", "30, 60", "1e3", "soon",
                           "Wed, 21 Oct 2015 07:28:00 GMT\n120"]):
        put("retry_after", f"v{i}", now + bytes([i]) + v.encode())
    for i, block in enumerate([
        "RateLimit: limit=100, remaining=0, reset=30\nRateLimit-Policy: 100;w=60",
        "ratelimit: \"default\";r=0;t=30\nratelimit-policy: \"default\";q=100;w=60",
        "X-RateLimit-Limit: 5000\nX-RateLimit-Remaining: 0\nX-RateLimit-Reset: 784111800\nX-RateLimit-Resource: core",
        "x-ratelimit-limit-requests: 60\nx-ratelimit-remaining-requests: 0\nx-ratelimit-reset-requests: 1m6.5s",
        "#4:10\n#5:0\n#6:Sun, 06 Nov 1994 08:50:37 GMT\n#16:5",
    ]):
        put("ratelimit", f"h{i}", now + block.encode())
    # Limiter specs: every accepted form, then arrival gaps.
    gaps = bytes([0, 0, 0, 10, 0, 0, 3, 232, 0, 1] * 8)
    for i, spec in enumerate(["fixed-window:120/min", "fixed-window:5/s,align=first",
                              "sliding-window:120/min,count-rejected", "token-bucket:2/s,burst=5",
                              "token-bucket:10/min,burst=3,interval=1s", "gcra:2/s,burst=5",
                              "leaky-bucket:2/s,burst=5,nodelay", "leaky-bucket:30/min,delay=2",
                              "concurrency:4", "daily:1000", "fixed-window:100/10s"]):
        put("limiter_spec", f"s{i}", spec.encode() + b"\n" + gaps)
    # Policies: what `--emit-config` writes (toomany.toml / toomany.json), when the debug
    # binary is built; the first byte picks the extension the reader sees (0 toml, 1 json).
    exe = REPO / "target" / "debug" / "toomany"
    if exe.is_file():
        import subprocess, tempfile
        with tempfile.TemporaryDirectory() as d:
            subprocess.run([str(exe), "analyze", str(REPO / "samples" / "api-incident.jsonl"),
                            "--emit-config", d], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            for f in pathlib.Path(d).rglob("toomany.*"):
                if f.suffix in (".toml", ".json"):
                    put("policy", f.name, bytes([0 if f.suffix == ".toml" else 1]) + f.read_bytes())
    for t in sorted(p.name for p in CORPUS.iterdir()):
        print(f"{t}: {len(list((CORPUS / t).iterdir()))} seeds")


if __name__ == "__main__":
    main()
