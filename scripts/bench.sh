#!/usr/bin/env bash
# Throughput and peak memory of `toomany analyze` on generated inputs (not run by CI).
#   scripts/bench.sh [MB]        default 400
#   scripts/bench.sh access      the access-log comparison alone (see the end)
# Prints MB/s, records/s and peak RSS (GNU time's "Maximum resident set size") per input.
set -euo pipefail
cd "$(dirname "$0")/.."
ONLY=${1:-}
[ "$ONLY" = access ] && set -- 400
MB=${1:-400}
DATA=bench-data
mkdir -p "$DATA"
cargo build --release --quiet --examples --bin toomany
bin=target/release/toomany
if [ "$ONLY" != access ]; then
[ -f "$DATA/har-33k-$MB.har" ] || target/release/examples/gen_har "$MB" "$DATA/har-33k-$MB.har" 600
[ -f "$DATA/har-3k-$MB.har" ]  || target/release/examples/gen_har "$MB" "$DATA/har-3k-$MB.har" 40
[ -f "$DATA/har-1k-$MB.har" ]  || target/release/examples/gen_har "$MB" "$DATA/har-1k-$MB.har" 0
[ -f "$DATA/log-$MB.jsonl" ]   || target/release/examples/gen_jsonl "$MB" "$DATA/log-$MB.jsonl"
# A real browser capture from the shared corpus, its entries repeated up to the target size.
REAL=../shared/corpus/real-har/chrome-har-capturer-0.10.3-cnn.har
inputs=("$DATA/har-33k-$MB.har" "$DATA/har-3k-$MB.har" "$DATA/har-1k-$MB.har" "$DATA/log-$MB.jsonl")
if [ -f "$REAL" ] && command -v python3 >/dev/null; then
  [ -f "$DATA/real-cnn-$MB.har" ] || python3 - "$REAL" "$DATA/real-cnn-$MB.har" "$MB" <<'PY'
import json, sys
src, out, mb = sys.argv[1], sys.argv[2], int(sys.argv[3])
entries = [json.dumps(e) for e in json.load(open(src, encoding="utf-8-sig"))["log"]["entries"]]
with open(out, "w") as f:
    f.write('{"log":{"version":"1.2","creator":{"name":"bench","version":"1"},"entries":[')
    n, first = 0, True
    while n < mb * 1024 * 1024:
        for e in entries:
            f.write(("" if first else ",") + e)
            first, n = False, n + len(e) + 1
    f.write("]}}")
PY
  inputs+=("$DATA/real-cnn-$MB.har")
fi
printf '%-22s %10s %10s %12s %10s %12s\n' input MB records seconds MB/s peak_RSS_MB
for f in "${inputs[@]}"; do
  size=$(stat -c %s "$f")
  /usr/bin/time -f '%e %M' -o /tmp/toomany-bench.time "$bin" analyze "$f" --format json -o /tmp/toomany-bench.json 2>/dev/null
  read -r secs kb < /tmp/toomany-bench.time
  records=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["requests"])' /tmp/toomany-bench.json)
  awk -v n="$(basename "$f")" -v s="$size" -v r="$records" -v t="$secs" -v k="$kb" 'BEGIN {
    printf "%-22s %10.0f %10d %12.2f %10.1f %12.0f\n", n, s/1048576, r, t, (s/1048576)/t, k/1024 }'
done
fi

# --- Access logs (issue 10): a generated nginx `combined` log, toomany against GoAccess and mawk
# on the same file in the same run. ACCESS_LINES (default 4000000, ≈ 680 MB) sets its size.
# GoAccess: Debian package `goaccess` (skipped with a note when absent).
LINES=${ACCESS_LINES:-4000000}
LOG="$DATA/combined-$LINES.log"
cargo build --release --quiet --example gen_combined --example ingest_throughput
[ -f "$LOG" ] || target/release/examples/gen_combined "$LINES" "$LOG"
size=$(stat -c %s "$LOG")
echo
echo "access log: $(basename "$LOG") ($((size / 1048576)) MB, $LINES lines)"
printf '%-34s %10s %10s %10s %12s\n' tool seconds user_s MB/s peak_RSS_MB
measure() { # name, command...
  local name=$1; shift
  /usr/bin/time -f '%e %U %M' -o /tmp/toomany-bench.time "$@" >/dev/null 2>&1 || true
  read -r secs user kb < /tmp/toomany-bench.time
  awk -v n="$name" -v s="$size" -v t="$secs" -v u="$user" -v k="$kb" 'BEGIN {
    printf "%-34s %10.2f %10.2f %10.1f %12.0f\n", n, t, u, (s/1048576)/t, k/1024 }'
}
measure "mawk '\$9==429'" mawk '$9==429' "$LOG"
measure "toomany ingest only (2 workers)" target/release/examples/ingest_throughput "$LOG" 2
measure "toomany analyze --format json" "$bin" analyze "$LOG" --format json -o /tmp/toomany-bench.json --force
if command -v goaccess >/dev/null; then
  measure "goaccess --log-format=COMBINED" goaccess "$LOG" --log-format=COMBINED -o /tmp/toomany-bench-goaccess.json
else
  echo "goaccess not installed (apt-get install goaccess): skipped"
fi
