#!/usr/bin/env bash
# Memory of `toomany analyze --follow` over a long run (issue 45: the memory after an hour of
# steady input at ~1,000 lines/s within 20 % of the memory after 5 minutes). Not a test: it
# takes as long as it measures.
#
#   scripts/live-bench.sh [EARLY_S [LATE_S [RATE]]]
#     EARLY_S  when the first reading is taken, seconds (default 300: 5 minutes)
#     LATE_S   when the last reading is taken and the run ends, seconds (default 3600: an hour)
#     RATE     lines a second the writer appends (default 1000)
#   LIVE_DATA=/some/dir   where the followed log goes (default ./bench-live; kept out of the
#                         repository); removed afterwards unless KEEP=1
#   ROTATE_MB=N           the writer rotates the log (rename + new file, like logrotate) each
#                         time it passes N MB (default 64), so the disk holds at most two files
#   TOOMANY=/path         that binary instead of a fresh release build
#
# The writer (python3) appends JSON lines stamped with the current time: 40 hosts, 400 clients,
# unique request ids, ~2 % 429s in bursts with Retry-After. The readings are the follower's
# VmRSS (resident now) and VmHWM (peak so far) from /proc, plus the size of its temporary files
# (the full report's events wait there, see docs/live.md). Every READ_EVERY seconds (default 60)
# a row is printed; at the end the late/early ratio of VmRSS. Linux only (/proc).
set -euo pipefail
cd "$(dirname "$0")/.."
EARLY=${1:-300}
LATE=${2:-3600}
RATE=${3:-1000}
EVERY=${READ_EVERY:-60}
ROTATE_MB=${ROTATE_MB:-64}
[ "$EARLY" -lt "$LATE" ] || { echo "EARLY_S must be less than LATE_S" >&2; exit 2; }
command -v python3 > /dev/null || { echo "python3 is required (the writer)" >&2; exit 2; }
DATA=${LIVE_DATA:-bench-live}
mkdir -p "$DATA"
DATA=$(cd "$DATA" && pwd)
if [ -n "${TOOMANY:-}" ]; then bin=$(realpath "$TOOMANY"); else
  cargo build --release --quiet --bin toomany
  bin=$PWD/target/release/toomany
fi
export TMPDIR="$DATA/tmp"
mkdir -p "$TMPDIR"
log="$DATA/app.log"
: > "$log"

python3 - "$log" "$RATE" "$ROTATE_MB" "$LATE" > /dev/null <<'PY' &
import json, os, random, sys, time
log, rate, rotate_mb, late = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rnd = random.Random(1)
hosts = [f"api{i}.example.com" for i in range(40)]
clients = [f"svc-{i}" for i in range(400)]
f = open(log, "a")
start, n, burst_until = time.time(), 0, 0.0
while time.time() - start < late + 30:
    t0 = time.time()
    if t0 > burst_until and rnd.random() < 0.01:
        burst_until, burst_host = t0 + 2, rnd.choice(hosts)
    lines = []
    for _ in range(max(1, rate // 10)):
        n += 1
        host = rnd.choice(hosts)
        limited = t0 < burst_until and host == burst_host or rnd.random() < 0.005
        rec = {"time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t0)) + f".{int(t0 * 1000) % 1000:03d}Z",
               "method": rnd.choice(["GET", "GET", "GET", "POST"]),
               "url": f"https://{host}/v1/items/{rnd.randrange(100000)}?page={rnd.randrange(50)}",
               "status": 429 if limited else 200, "duration_ms": rnd.randrange(5, 900),
               "client": rnd.choice(clients), "request_id": f"req-{n:012d}"}
        if limited:
            rec["response_headers"] = {"retry-after": str(rnd.choice([1, 2, 5, 30]))}
        lines.append(json.dumps(rec))
    f.write("\n".join(lines) + "\n")
    f.flush()
    if f.tell() > rotate_mb * 1024 * 1024:
        f.close()
        os.replace(log, log + ".1")
        f = open(log, "a")
    time.sleep(max(0.0, 0.1 - (time.time() - t0)))
PY
writer=$!
"$bin" analyze --follow --view ndjson --interval 5 -o "$DATA/report.json" --force "$log" \
  > "$DATA/intervals.ndjson" 2> "$DATA/stderr.txt" &
follower=$!
cleanup() {
  kill "$writer" "$follower" 2> /dev/null || true
  [ "${KEEP:-0}" = 1 ] || rm -rf "$DATA"
}
trap cleanup EXIT

kb() { awk -v k="$1" '$1 == k":" { print $2 }' "/proc/$follower/status"; }
echo "| s | lines read | VmRSS MB | VmHWM MB | temp files MB |"
echo "|---|---|---|---|---|"
early_rss=
for ((s = EVERY; s <= LATE; s += EVERY)); do
  sleep "$EVERY"
  kill -0 "$follower" 2> /dev/null || { echo "the follower exited:" >&2; cat "$DATA/stderr.txt" >&2; exit 1; }
  rss=$(kb VmRSS); hwm=$(kb VmHWM)
  read_lines=$(tail -n 1 "$DATA/intervals.ndjson" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"]["requests"])' 2> /dev/null || echo "?")
  # The temporary files are anonymous (unlinked at once): sized through the follower's fds.
  tmp=$(for f in /proc/"$follower"/fd/*; do
      case "$(readlink "$f")" in "$TMPDIR"/*) stat -L -c %s "$f" ;; esac
    done | awk '{ s += $1 } END { printf "%.1f", s / 1e6 }')
  printf "| %d | %s | %.1f | %.1f | %s |\n" "$s" "$read_lines" "$(echo "$rss / 1024" | bc -l)" "$(echo "$hwm / 1024" | bc -l)" "$tmp"
  if [ -z "$early_rss" ] && [ "$s" -ge "$EARLY" ]; then early_rss=$rss; fi
done
late_rss=$(kb VmRSS)
kill -INT "$follower"
wait "$follower" && rc=0 || rc=$?
echo
awk -v e="$early_rss" -v l="$late_rss" -v es="$EARLY" -v ls="$LATE" 'BEGIN {
  printf "early (%d s) VmRSS %.1f MB, late (%d s) %.1f MB: late/early = %.2f\n", es, e / 1024, ls, l / 1024, l / e }'
echo "Ctrl-C: exit $rc"
python3 - "$DATA/report.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
print("report:", s["requests"], "requests,", s["rate_limited"], "rate-limited")
PY
