#!/usr/bin/env python3
"""score.py BIN [--misses]: run `BIN analyze cases/<id>.har --format json` for every case in
cases.json and print aggregates only. --misses prints per-case details (for the lead only)."""
import json, os, re, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))


# Alternative spellings of one brand, listed by the collector before any result was seen.
ALIASES = [
    {"vault", "hashicorp", "hashicorpvault"}, {"loki", "grafana", "grafanaloki"},
    {"tmdb", "themoviedb"}, {"quickbooks", "intuit"}, {"ncbi", "nih"},
    {"encompass", "elliemae", "icemortgage"}, {"wikimedia", "wikipedia"},
    {"alibabacloud", "aliyun", "alibaba"}, {"x", "twitter"}, {"saturn", "strn", "filecoinsaturn"},
    {"eclipseditto", "ditto"}, {"overpassapi", "overpass"}, {"mclogs", "mclogsgs"},
    {"allo", "withallo"},
]


def same_vendor(got, exp):
    g, e = norm(got), norm(exp)
    return g == e or any(g in a and e in a for a in ALIASES)


def norm(v):
    return re.sub(r"[-_ .]", "", (v or "").lower())


def ra_right(expected, got):
    if expected is None:
        return got is None
    if got is None:
        return False
    return abs(float(got) - float(expected)) <= max(1.0, 0.02 * float(expected))


def analyze(binary, case_id):
    har = os.path.join(HERE, "cases", case_id + ".har")
    p = subprocess.run([binary, "analyze", har, "--format", "json"], capture_output=True,
                       text=True, timeout=120)
    if p.returncode not in (0, 1):
        return None, f"exit {p.returncode}: {p.stderr.strip()[:200]}"
    try:
        rep = json.loads(p.stdout)
    except json.JSONDecodeError as e:
        return None, f"bad json: {e}"
    rl = rep.get("rate_limited") or []
    return (rl[0] if rl else {}), None


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    misses = "--misses" in sys.argv[1:]
    if len(args) != 1:
        sys.exit("usage: score.py BIN [--misses]")
    binary = args[0]
    cases = json.load(open(os.path.join(HERE, "cases.json")))
    t = dict(n=0, layer=0, vendor=0, quota=0, quota_lenient=0, ra=0, listed=0, errors=0)
    o = dict(n=0, listed=0, vendor=0, errors=0)
    detail = []
    for c in cases:
        exp = c["expected"]
        got, err = analyze(binary, c["id"])
        is429 = int(c["response"]["status"]) == 429
        if err:
            (t if is429 else o)["errors"] += 1
            got = {}
        listed = bool(got)
        g_layer, g_vendor, g_quota = got.get("layer"), got.get("vendor"), got.get("quota")
        g_ra = (got.get("retry_after") or {}).get("seconds")
        ok_layer = g_layer == exp["layer"]
        ok_vendor = listed and same_vendor(g_vendor, exp["vendor"])
        ok_quota = g_quota == exp["quota"]
        ok_quota_l = ok_quota or (exp["quota"] == "monthly" and g_quota == "daily")
        ok_ra = listed and ra_right(exp["retry_after_s"], g_ra)
        if is429:
            t["n"] += 1
            t["listed"] += listed
            t["layer"] += ok_layer
            t["vendor"] += ok_vendor
            t["quota"] += ok_quota
            t["quota_lenient"] += ok_quota_l
            t["ra"] += ok_ra
            wrong = not (ok_layer and ok_vendor and ok_quota and ok_ra)
        else:
            o["n"] += 1
            o["listed"] += listed
            o["vendor"] += ok_vendor
            wrong = not (listed and ok_vendor)
        if wrong or err:
            detail.append((c["id"], c["response"]["status"], exp,
                           dict(listed=listed, layer=g_layer, vendor=g_vendor, quota=g_quota,
                                retry_after_s=g_ra, error=err)))
    pct = lambda a, b: f"{100.0 * a / b:.0f}%" if b else "n/a"
    n = t["n"]
    print(f"429 cases: {n} | listed {t['listed']}/{n} | layer right {pct(t['layer'], n)} "
          f"({t['layer']}/{n}) | vendor right {pct(t['vendor'], n)} ({t['vendor']}/{n}) | "
          f"quota kind right {pct(t['quota'], n)} ({t['quota']}/{n}; "
          f"{t['quota_lenient']}/{n} counting monthly->daily) | Retry-After right {t['ra']}/{n}"
          + (f" | errors {t['errors']}" if t["errors"] else ""))
    print(f"400/403/503 cases: {o['n']} | listed as rate-limited {o['listed']}/{o['n']} | "
          f"with right vendor {o['vendor']}/{o['n']}"
          + (f" | errors {o['errors']}" if o["errors"] else ""))
    if misses:
        for cid, st, exp, got in detail:
            print(f"MISS {cid} [{st}] expected {json.dumps(exp)} got {json.dumps(got)}")


if __name__ == "__main__":
    main()
