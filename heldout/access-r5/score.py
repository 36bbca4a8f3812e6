#!/usr/bin/env python3
"""Score a toomany binary on the held-out access-log slice (issue 39, round 5).

    score.py BIN [--misses]

Per file of slice/expected.json: `BIN analyze FILE --format json` (no format flag: the format is
sniffed). A file is "read whole" when the report's `inputs[0].records` equals the labelled
request lines and its `summary.by_status` agrees with the labelled statuses (so a request line
missed and a non-request line counted in its place is not whole; lines logging `-` for status
are only counted, not compared). "request lines read" sums min(records, labelled) over files.
"format sniffed right": `inputs[0].format` is in the file's accept_formats. On the derived
copies (every fifth request line's status made 429), "429s listed" counts changed lines that
appear in `rate_limited[]` with status 429 at that line.

Prints only the aggregates; --misses adds per-file details (for whoever fixes the readers).
"""
import collections
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SLICE = os.path.join(HERE, "slice")
DERIVED = os.path.join(HERE, "derived", "slice")
TIMEOUT = 300


def analyze(bin_, path):
    """(report dict or None, short error)"""
    try:
        p = subprocess.run([bin_, "analyze", path, "--format", "json"], capture_output=True,
                           timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, "timeout"
    try:
        return json.loads(p.stdout.decode("utf-8", "replace")), ""
    except ValueError:
        err = p.stderr.decode("utf-8", "replace").strip().splitlines()
        return None, f"exit {p.returncode}: {err[0][:160] if err else 'no JSON on stdout'}"


def statuses_agree(report, exp):
    by = (report.get("summary") or {}).get("by_status") or {}
    want = collections.Counter(str(s) for s in exp["statuses"] if s is not None)
    return all(by.get(k, 0) == n for k, n in want.items())


def score_original(bin_, rel, exp, misses):
    report, err = analyze(bin_, os.path.join(SLICE, rel))
    if report is None:
        misses.append(f"{rel}: no report ({err}); expected {exp['requests']} requests")
        return 0, False, False
    inp = (report.get("inputs") or [{}])[0]
    records = inp.get("records") or 0
    fmt = inp.get("format")
    whole = records == exp["requests"] and statuses_agree(report, exp)
    sniffed = fmt in exp["accept_formats"]
    if not whole or not sniffed:
        by = (report.get("summary") or {}).get("by_status")
        misses.append(f"{rel}: format {fmt!r} (accept {exp['accept_formats']}), records {records}"
                      f" of {exp['requests']}, skipped {inp.get('skipped')}, by_status {by}, "
                      f"expected {dict(collections.Counter(map(str, exp['statuses'])))}"
                      + (f", error {inp['error']!r}" if inp.get("error") else ""))
    return min(records, exp["requests"]), whole, sniffed


def score_derived(bin_, d, misses):
    want = {c["line"] for c in d["changed_lines"]}
    if not want:
        return 0
    report, err = analyze(bin_, os.path.join(HERE, d["derived_path"]))
    if report is None:
        misses.append(f"derived {d['file']}: no report ({err}); {len(want)} 429s expected")
        return 0
    got = {r.get("line") for r in report.get("rate_limited") or [] if r.get("status") == 429}
    listed = len(want & got)
    if listed < len(want):
        miss = sorted(want - got)
        misses.append(f"derived {d['file']}: 429s listed {listed}/{len(want)}; "
                      f"missing lines {miss[:10]}{' …' if len(miss) > 10 else ''}")
    return listed


def main(argv):
    if not argv or argv[0].startswith("-"):
        sys.exit(__doc__)
    bin_, show = argv[0], "--misses" in argv[1:]
    expected = json.load(open(os.path.join(SLICE, "expected.json")))
    derived = json.load(open(os.path.join(DERIVED, "expected.json")))
    misses = []
    read = whole = sniffed = 0
    total = sum(e["requests"] for e in expected.values())
    for rel, exp in sorted(expected.items()):
        r, w, s = score_original(bin_, rel, exp, misses)
        read, whole, sniffed = read + r, whole + w, sniffed + s
    listed = sum(score_derived(bin_, d, misses) for d in derived)
    m = sum(len(d["changed_lines"]) for d in derived)
    n = len(expected)
    print(f"files read whole {whole}/{n}, request lines read {100.0 * read / total:.1f}% "
          f"({read}/{total}), format sniffed right {sniffed}/{n}, 429s listed {listed}/{m}")
    if show:
        for line in misses:
            print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
