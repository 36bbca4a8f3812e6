#!/usr/bin/env python3
"""Label a slice of other projects' access-log fixtures and write its derived 429 copies.

    scripts/access-peers.py SLICE               (SLICE: a directory under tests/fixtures/access-peers/)
    scripts/access-peers.py --root DIR SLICE    (SLICE under DIR instead, e.g. heldout/access-r5)

Every `<format>/<file>` of the slice is read line by line, independently of toomany's readers:
wrappers are taken off (Docker json-file / shippers' JSON `log` `message` `MESSAGE`, CRI, syslog
RFC 3164/5424), then a line is a request when it carries an HTTP status where its format puts
it — the token after a quoted `"METHOD target HTTP/x"` (CLF, nginx, Envoy, Traefik), the ALB /
Classic ELB / HAProxy status fields, the `sc-status` column of a W3C `#Fields:` directive (or the
documented default order without one: CloudFront's 33 TAB-separated fields, IIS's default set),
a JSON record's status key. Writes `SLICE/expected.json` (as the dev slice's) and
`derived/SLICE/` with every fifth request line's status turned into 429 (only the status bytes
change; in a JSON wrapper the inner line's status). A `.gz` file is labelled from its gunzipped
bytes and its derived copy is written gzipped.
"""
import gzip
import json
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "access-peers")
ACCEPT = {
    "apache": ["clf", "nginx"],
    "nginx": ["nginx", "clf"],
    "alb": ["alb"],
    "cloudfront": ["cloudfront", "w3c"],
    "iis": ["w3c"],
    "haproxy": ["haproxy"],
    "traefik": ["traefik", "clf", "nginx"],
    "caddy": ["caddy"],
    "cloudflare": ["cloudflare"],
    "gcp-lb": ["gcp-lb"],
    "envoy": ["envoy"],
    "kong": ["kong"],
}
# files whose records a report may also call JSON lines (an nginx JSON layout that names its
# fields itself rather than by nginx's variables): none in the slices now
ACCEPT_FILE = {}
STATUS_KEYS = [
    "status", "DownstreamStatus", "EdgeResponseStatus", "response_code", "status_code",
    "sc-status", "elb_status_code", "statusCode", "http_status", "responseCode",
]
REQUEST = re.compile(r'"([A-Z][A-Z_-]{1,20}) (\S+)(?: (HTTP/[0-9.]+|HTTP/\d))?"')
# any quoted request (also one a server could not parse: "", "hello", "<BADREQ>") right after a
# CLF time, or the quoted request HAProxy ends its line with
CLF_QUOTED = re.compile(r'\] "(?:[^"\\]|\\.)*"')
HAPROXY_TIMERS = re.compile(r"(?:^| )[+-]?\d+/[+-]?\d+/[+-]?\d+/[+-]?\d+/[+-]?\d+ (\d{3}|-1) ")
METHOD_W3C = re.compile(r"^[A-Z][A-Z_-]{1,20}$")
CRI = re.compile(r"^\d{4}-\d\d-\d\dT\S+ (?:stdout|stderr) [PF] ")
RFC5424 = re.compile(r"^<\d{1,3}>1 \S+ \S+ \S+ \S+ \S+ (?:-|\[.*?\]) ?")
RFC3164 = re.compile(r"^(?:<\d{1,3}>)?[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d (?:\S+ )?[\w./-]+(?:\[\d+\])?: ")
IIS_DEFAULT = ("date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip "
               "cs(User-Agent) cs(Referer) sc-status sc-substatus sc-win32-status time-taken").split()


def status_in_json(obj):
    """(path of keys, value) of the record's status, or None."""
    if not isinstance(obj, dict):
        return None
    for k in STATUS_KEYS:
        if k in obj and isinstance(obj[k], (int, str)) and str(obj[k]).strip().isdigit():
            return ([k], int(str(obj[k]).strip()))
    for k in ("httpRequest", "response", "http", "res"):
        sub = obj.get(k)
        if isinstance(sub, dict):
            got = status_in_json(sub)
            if got:
                return ([k] + got[0], got[1])
    return None


def text_status(line, fields):
    """(start, end) byte offsets of the status token in a text line, or None."""
    if fields is not None:  # a W3C directive gave the columns
        return w3c_status(line, fields)
    # ALB / Classic ELB: the load balancer's status is a field of its own, whatever the request
    # field holds (`"- - -"` when the request could not be parsed; TCP records log `-`)
    toks = [(t.start(), t.end(), t.group()) for t in re.finditer(r"\S+", line)][:12]
    iso = lambda t: re.match(r"\d{4}-\d\d-\d\dT\d\d:", t)
    if len(toks) >= 12 and toks[0][2] in ("http", "https", "h2", "ws", "wss", "grpcs") and iso(toks[1][2]):
        return toks[8][:2] if re.match(r"^\d{3}$", toks[8][2]) else None
    if len(toks) >= 11 and iso(toks[0][2]) and re.match(r"^\S+:\d+$", toks[2][2]):
        return toks[7][:2] if re.match(r"^\d{3}$", toks[7][2]) else None
    m = REQUEST.search(line) or CLF_QUOTED.search(line)
    h = HAPROXY_TIMERS.search(line)
    if h and (not m or h.start() < m.start()):
        return (h.start(1), h.end(1))
    if m:
        after = re.match(r" (\d{3}|-) ", line[m.end():] + " ")
        if after:
            s = m.end() + 1
            return (s, s + len(after.group(1)))
        toks = [(t.start(), t.end(), t.group()) for t in re.finditer(r"\S+", line[: m.start()])]
        # ALB: type time elb client target t t t elb_status ...; Classic ELB: time elb ... status
        if len(toks) >= 12 and re.match(r"\d{4}-\d\d-\d\dT", toks[1][2]):
            return toks[8][:2] if toks[8][2].isdigit() else None
        if len(toks) >= 11 and re.match(r"\d{4}-\d\d-\d\dT", toks[0][2]):
            return toks[7][:2] if toks[7][2].isdigit() else None
        for i, t in enumerate(toks[:-1]):  # HAProxy: the status follows the timers
            if re.match(r"^[+-]?\d+/[+-]?\d+/[+-]?\d+/[+-]?\d+/[+-]?\d+$", t[2]):
                n = toks[i + 1]
                return n[:2] if re.match(r"^\d{3}$", n[2]) else None
        return None
    if "\t" in line:  # CloudFront without directives
        cols = line.split("\t")
        if len(cols) >= 20 and re.match(r"\d{4}-\d\d-\d\d$", cols[0]):
            return w3c_status(line, "date time x-edge-location sc-bytes c-ip cs-method cs(Host) "
                              "cs-uri-stem sc-status".split(), sep="\t")
    toks = line.split(" ")
    if re.match(r"\d{4}-\d\d-\d\d$", toks[0]) and len(toks) >= len(IIS_DEFAULT) - 2:
        # IIS writes sc-status sc-substatus sc-win32-status side by side in every preset
        m = re.search(r" (\d{3}) \d+ \d+ ", line)
        return (m.start(1), m.end(1)) if m else None
    return None


def w3c_status(line, fields, sep=None):
    if "sc-status" not in fields:
        return None
    idx = fields.index("sc-status")
    sep = sep or ("\t" if "\t" in line else " ")
    spans, pos, i = [], 0, 0
    # quoted W3C values may hold the separator
    for m in re.finditer(r'"[^"]*"|[^%s]+' % re.escape(sep), line):
        spans.append((m.start(), m.end(), m.group()))
    if idx >= len(spans):
        return None
    if "cs-method" in fields and fields.index("cs-method") < len(spans):
        method = spans[fields.index("cs-method")][2].strip('"')
        if not re.match(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$", method):
            return None  # not an HTTP method: IIS's FTP service logs `[2]USER`
    s, e, tok = spans[idx]
    tok = tok.strip('"')
    if not re.match(r"^\d{3}$", tok):
        return None
    if line[s] == '"':
        s += 1
    return (s, s + 3)


def unwrap(line):
    """(prefix, inner, json_wrapper) of a wrapped line; json_wrapper = (obj, key) when JSON."""
    if line.startswith("{"):
        try:
            obj = json.loads(line)
        except ValueError:
            return ("", line, None)
        for k in ("log", "message", "MESSAGE"):
            v = obj.get(k) if isinstance(obj, dict) else None
            if isinstance(v, str) and not status_in_json(obj):
                inner = v.rstrip("\n")
                return ("", inner, (obj, k))
        return ("", line, None)
    for rx in (CRI, RFC5424, RFC3164):
        m = rx.match(line)
        if m:
            return (line[: m.end()], line[m.end():], None)
    return ("", line, None)


def label(path):
    raw = read_bytes(path).decode("utf-8", "surrogateescape")
    lines = raw.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    fields = None
    out = []  # per line: None, "directive", or (status, rewrite-to-429 function)
    for n, line in enumerate(lines, 1):
        line = line.rstrip("\r")
        if not line.strip():
            out.append(None)
            continue
        if line.startswith("#"):
            m = re.match(r"#Fields:\s*(.*)", line)
            if m:
                fields = m.group(1).split()
            out.append("directive")
            continue
        prefix, inner, jw = unwrap(line)
        inner_json = None
        if inner.lstrip().startswith("{"):
            try:
                inner_json = json.loads(inner)
            except ValueError:
                inner_json = None
        if inner_json is not None:
            got = status_in_json(inner_json)
            if not got or got[1] < 100:
                out.append("other")
                continue
            keys, st = got

            def rewrite(obj=inner_json, keys=keys, prefix=prefix, jw=jw, inner=inner):
                tgt = obj
                for k in keys[:-1]:
                    tgt = tgt[k]
                old = tgt[keys[-1]]
                tgt[keys[-1]] = "429" if isinstance(old, str) else 429
                text = replace_json_value(inner, keys[-1], old)
                return rewrap(prefix, text, jw)

            out.append((st, rewrite))
            continue
        span = text_status(inner, fields)
        if not span:
            out.append("other")
            continue
        st = inner[span[0]:span[1]]
        st = int(st) if st.isdigit() else None

        def rewrite(inner=inner, span=span, prefix=prefix, jw=jw):
            return rewrap(prefix, inner[: span[0]] + "429" + inner[span[1]:], jw)

        out.append((st, rewrite))
    return lines, out


def replace_json_value(text, key, old):
    """The record's text with key's value turned into 429, nothing else changed."""
    q = json.dumps(key)
    pat = re.compile(re.escape(q) + r'(\s*:\s*)("?)' + re.escape(str(old)) + r'\2')
    m = pat.search(text)
    assert m, (key, old, text[:200])
    return text[: m.start()] + q + m.group(1) + m.group(2) + "429" + m.group(2) + text[m.end():]


def rewrap(prefix, inner, jw):
    if jw is None:
        return prefix + inner
    obj, key = jw
    obj = dict(obj)
    obj[key] = inner + ("\n" if obj[key].endswith("\n") else "")
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def read_bytes(path):
    """The file's bytes, gunzipped when the name ends in .gz (toomany sniffs gzip too)."""
    data = open(path, "rb").read()
    return gzip.decompress(data) if path.endswith(".gz") else data


def main(slice_):
    base = os.path.join(ROOT, slice_)
    expected, derived = {}, []
    for fmt in sorted(os.listdir(base)):
        d = os.path.join(base, fmt)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            rel = f"{fmt}/{name}"
            lines, out = label(os.path.join(d, name))
            req = [i + 1 for i, o in enumerate(out) if isinstance(o, tuple)]
            if not req:
                print(f"{rel}: no HTTP request line, left out of the slice")
                continue
            other = [i + 1 for i, o in enumerate(out) if o == "other"]
            fam = fmt.split("-", 1)[1] if fmt.startswith("wrapped-") else fmt
            expected[rel] = {
                "format": fmt,
                "accept_formats": ACCEPT_FILE.get(rel, ACCEPT[fam]),
                "lines": len(lines),
                "requests": len(req),
                "statuses": [out[i - 1][0] for i in req],
                "hosts": [None] * len(req),
                "request_lines": req,
                "non_request_lines": other,
                "status_source": "scripts/access-peers.py",
                "notes": "",
            }
            changed, new_lines = [], list(lines)
            for k, i in enumerate(req):
                if out[i - 1][0] is None:
                    continue
                if len([c for c in req[:k] if out[c - 1][0] is not None]) % 5 == 0:
                    new_lines[i - 1] = out[i - 1][1]()
                    changed.append({"line": i, "original_status": out[i - 1][0]})
            dpath = os.path.join(ROOT, "derived", slice_, rel)
            os.makedirs(os.path.dirname(dpath), exist_ok=True)
            rawb = read_bytes(os.path.join(d, name))
            tail = "\n" if rawb.endswith(b"\n") else ""
            text = "\n".join(new_lines) + tail
            out_bytes = text.encode("utf-8", "surrogateescape")
            if name.endswith(".gz"):  # keep the derived copy gzipped like its original
                out_bytes = gzip.compress(out_bytes, mtime=0)
            open(dpath, "wb").write(out_bytes)
            derived.append({"slice": slice_, "file": rel, "derived_path": f"derived/{slice_}/{rel}",
                            "format": fmt, "changed_lines": changed, "requests": len(req)})
    with open(os.path.join(base, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")
    with open(os.path.join(ROOT, "derived", slice_, "expected.json"), "w") as f:
        json.dump(derived, f, indent=1)
        f.write("\n")
    print(f"{slice_}: {len(expected)} files, {sum(e['requests'] for e in expected.values())} "
          f"requests, {sum(len(d['changed_lines']) for d in derived)} derived 429s")


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) == 3 and args[0] == "--root":
        ROOT = args[1]
        args = args[2:]
    if len(args) != 1:
        sys.exit("usage: scripts/access-peers.py [--root DIR] SLICE")
    main(args[0])
