#!/usr/bin/env bash
# Load on `toomany mock` over loopback: 100 keep-alive connections for 10 s (examples/mock_load.rs),
# then three checks on the mock's own log:
#   1. every answered request is logged (log lines = the client's answers),
#   2. one line per sequence number (no line lost, doubled or torn),
#   3. the limiter's decisions are right for the elapsed time: never more admitted than
#      burst + rate × (last arrival − first arrival), and every decision equal to a replay of the
#      logged arrival times through the same token bucket (the mock's CPU may be starved on a
#      busy machine, so "demand never paused" cannot be assumed: the replay sees the same gaps).
# Prints the client's figures, the mock's CPU seconds (user+sys) and the checks; exits 1 when a
# check fails. Not a test: timing depends on the machine.
#
#   scripts/mock-bench.sh [CONNECTIONS] [SECONDS] [LIMIT]
#   (defaults: 100 10 token-bucket:5000/s,burst=1000)
set -euo pipefail
cd "$(dirname "$0")/.."

conns=${1:-100}
secs=${2:-10}
limit=${3:-token-bucket:5000/s,burst=1000}

cargo build --release --quiet --bin toomany --example mock_load
bin=target/release/toomany
load=target/release/examples/mock_load

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$bin" mock --limit "$limit" --max-connections $((conns + 16)) --log "$dir/mock.jsonl" \
    >"$dir/out" 2>"$dir/err" &
mock=$!
for _ in $(seq 1 100); do
    grep -q '^listening on ' "$dir/out" 2>/dev/null && break
    sleep 0.05
done
addr=$(sed -n 's|^listening on http://||p' "$dir/out")
[ -n "$addr" ] || { echo "the mock did not start"; cat "$dir/err"; exit 1; }

"$load" "$addr" "$conns" "$secs" | tee "$dir/load.json"
# The mock's CPU (utime + stime, clock ticks) before it stops.
read -r utime stime < <(awk '{print $14, $15}' "/proc/$mock/stat")
kill -TERM "$mock"
wait "$mock"
tail -1 "$dir/err"

python3 - "$dir/load.json" "$dir/mock.jsonl" "$limit" "$utime" "$stime" <<'EOF'
import json, re, sys, datetime
load = json.load(open(sys.argv[1]))
lines = [json.loads(l) for l in open(sys.argv[2])]
limit = sys.argv[3]
ticks = 100.0
cpu = (int(sys.argv[4]) + int(sys.argv[5])) / ticks
ok = True
def check(name, good, detail):
    global ok
    ok &= good
    print(f"{'ok  ' if good else 'FAIL'} {name}: {detail}")
check("every request logged", len(lines) == load["requests"],
      f"{len(lines)} log lines, {load['requests']} answers")
seqs = [l["seq"] for l in lines]
check("one line per sequence number", sorted(seqs) == list(range(1, len(lines) + 1)),
      f"{len(set(seqs))} distinct of {len(lines)}")
def t(l):
    return datetime.datetime.fromisoformat(l["time"].replace("Z", "+00:00")).timestamp()
m = re.match(r"token-bucket:(\d+)/s,burst=(\d+)$", limit)
if m:
    rate, burst = int(m.group(1)), int(m.group(2))
    lines.sort(key=lambda l: l["seq"])
    times = [t(l) for l in lines]
    span = max(times) - min(times)
    admitted = sum(1 for l in lines if l["status"] == 200)
    # Never more than the bucket allows over the run.
    bound = burst + rate * span
    check("never over the limit", admitted <= bound + 1,
          f"{admitted} admitted over {span:.3f} s; at most burst {burst} + {rate}/s × {span:.3f} s = {bound:.1f}")
    # Replay the logged arrivals through the same token bucket: each decision must be the one
    # the model makes at that arrival. The log's times are to the microsecond, the model's to
    # the nanosecond: a decision within a microsecond's refill of the threshold is not judged
    # (and the replay follows the mock's decision there).
    tokens, last, wrong, close = float(burst), times[0], 0, 0
    eps = rate * 2e-6
    for l, at in zip(lines, times):
        tokens = min(float(burst), tokens + max(0.0, at - last) * rate)
        last = max(last, at)
        mock_ok = l["status"] == 200
        if abs(tokens - 1.0) <= eps:
            close += 1
            model_ok = mock_ok
        else:
            model_ok = tokens >= 1.0
        wrong += model_ok != mock_ok
        if mock_ok:
            tokens -= 1.0
    check("each decision is the model's at its arrival time", wrong == 0,
          f"{wrong} of {len(lines)} differ from a replay of the logged arrivals ({close} within 1 µs of the threshold not judged); "
          f"idle refill: {admitted} admitted vs {burst} + {rate}/s × {span:.3f} s = {bound:.0f} when demand never pauses")
else:
    print(f"(no decision check for {limit})")
print(f"mock CPU {cpu:.2f} s (user+sys) for {len(lines)} requests: {1e6 * cpu / max(len(lines), 1):.1f} µs each; "
      f"client CPU {load['client_cpu_s']:.2f} s")
print(f"{load['per_second']:.0f} requests/s with {load['connections']} connections")
sys.exit(0 if ok else 1)
EOF
