#!/usr/bin/env python3
"""Robustness sweep (local, not run by CI): regenerate the held-out scenarios with other seeds
and count misses and false alarms per scenario.

    cargo build && python3 tests/heldout/sweep.py --seeds 2000 3000 4000
"""
import argparse, json, os, subprocess, sys, tempfile
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

ap = argparse.ArgumentParser()
ap.add_argument("--seeds", type=int, nargs="+", default=[2000, 3000, 4000])
ap.add_argument("--bin", default=os.path.join(ROOT, "target/debug/toomany"))
a = ap.parse_args()
miss, false, runs = defaultdict(list), defaultdict(list), 0
for seed in a.seeds:
    out = tempfile.mkdtemp(prefix=f"heldout-{seed}-")
    subprocess.run([sys.executable, os.path.join(HERE, "gen.py"), "--seed", str(seed), "--out", out], check=True,
                   stdout=subprocess.DEVNULL)
    exp = json.load(open(os.path.join(out, "expected.json")))
    runs += 1
    for name, s in exp.items():
        args = [os.path.join(out, x[len("tests/heldout/"):]) if x.startswith("tests/heldout/") else x for x in s["args"]]
        r = subprocess.run([a.bin, "analyze", os.path.join(out, s["file"]), *args, "--format", "json"],
                           capture_output=True, check=True)
        rep = json.loads(r.stdout)
        got = {f["kind"] for f in rep["findings"]}
        for k in set(s["expect"]) - got:
            miss[name].append(f"{k}@{seed}")
        for k in got - set(s["expect"]) - set(s["allow"]):
            false[name].append(f"{k}@{seed}")
        for kind, pointer, want in s.get("evidence", []):
            f = next((f for f in rep["findings"] if f["kind"] == kind), None)
            got = f["evidence"] if f else None
            for part in pointer.strip("/").split("/"):
                got = got.get(part) if isinstance(got, dict) else None
            ok = (isinstance(got, (int, float)) and got >= want["min"]) if isinstance(want, dict) else got == want
            if not ok:
                miss[name].append(f"evidence {kind}{pointer}={got}@{seed}")
        act = s.get("action") or {}
        rec = rep.get("recommendation") or {}
        if "action" in act and rec.get("action") != act["action"]:
            miss[name].append(f"action:{rec.get('action')}@{seed}")
        if "min_rate_per_minute" in act and not (rec.get("rate_per_minute") or 0) >= act["min_rate_per_minute"]:
            miss[name].append(f"rate:{rec.get('rate_per_minute')}@{seed}")
        if "burst" in act:
            lim = act["burst"]["limit_per_minute"]
            if rec.get("action") == "stop_or_reschedule" or not (
                    rec.get("action") == "fix_client" or (rec.get("rate_per_minute") or 1e9) <= lim * 0.75 + 1e-6):
                miss[name].append(f"burst-action:{rec.get('action')}/{rec.get('rate_per_minute')}@{seed}")
names = list(exp)
print(f"{runs} seeds x {len(names)} scenarios")
for n in names:
    if miss[n] or false[n]:
        print(f"{n:<28} missed {miss[n]}  false {false[n]}")
print("total missed", sum(len(v) for v in miss.values()), "false", sum(len(v) for v in false.values()))
