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
# GoAccess: Debian package `goaccess` (skipped with a note when absent). Tools run one after the
# other, ACCESS_REPS rounds (default 1), each tool's fastest-wall round kept; CPU = user + sys.
# mawk is one thread, so toomany is also run with one worker (-j 1). The table is Markdown,
# ready for docs/performance.md, followed by the issue-10 bars judged on wall time and on CPU.
LINES=${ACCESS_LINES:-4000000}
AREPS=${ACCESS_REPS:-1}
LOG="$DATA/combined-$LINES.log"
cargo build --release --quiet --example gen_combined --example ingest_throughput
[ -f "$LOG" ] || target/release/examples/gen_combined "$LINES" "$LOG"
size=$(stat -c %s "$LOG")
AT=$(mktemp -d)
trap 'rm -rf "$AT" ${T:+"$T"}' EXIT
# ameasure KEY LABEL CMD...: appends "KEY wall cpu peak_KiB|LABEL" to $AT/rows.
ameasure() {
  local key=$1 label=$2; shift 2
  if ! /usr/bin/time -f '%e %U %S %M' -o "$AT/time" "$@" >/dev/null 2>"$AT/err"; then
    echo "$label failed: $(head -c 300 "$AT/err")" >&2
    return
  fi
  read -r secs user sys kb < "$AT/time"
  echo "$key $secs $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }') $kb|$label" >> "$AT/rows"
}
: > "$AT/rows"
echo
echo "### Access log: $(basename "$LOG") ($((size / 1048576)) MiB, $LINES lines; $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) cores)"
echo
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq "$AREPS"); do
  ameasure mawk "mawk '\$9==429'" mawk '$9==429' "$LOG"
  ameasure ingest2 "toomany ingest only, 2 workers" target/release/examples/ingest_throughput "$LOG" 2
  ameasure tm2 "toomany analyze --format json (-j 2)" "$bin" analyze "$LOG" --threads 2 --format json -o "$AT/report.json" --force
  ameasure tm1 "toomany analyze --format json (-j 1)" "$bin" analyze "$LOG" --threads 1 --format json -o "$AT/report.json" --force
  if command -v goaccess >/dev/null; then
    ameasure goaccess "goaccess --log-format=COMBINED" goaccess "$LOG" --log-format=COMBINED -o "$AT/goaccess.json"
  fi
done
command -v goaccess >/dev/null || echo "note: goaccess not installed (apt-get install goaccess): no GoAccess column" >&2
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
awk -v s="$size" '
  {
    split($0, lab, "|"); split(lab[1], a, " ")
    k = a[1]; w = a[2]; c = a[3]; m = a[4]
    if (!(k in wall) || w < wall[k]) { wall[k] = w; cpu[k] = c; rss[k] = m; label[k] = lab[2] }
    if (!(k in seen)) { order[++n] = k; seen[k] = 1 }
  }
  function ratio(a, b) { return (a > 0 && b > 0) ? sprintf("%.2f×", a / b) : "" }
  function verdict(ok) { return ok ? "met" : "NOT met" }
  END {
    mb = s / 1048576
    print "| tool | wall s | CPU s (user+sys) | MB/s (wall) | MB per CPU-s | peak RSS MB | vs GoAccess (wall / CPU) | vs mawk (wall / CPU) |"
    print "|---|---:|---:|---:|---:|---:|---|---|"
    for (i = 1; i <= n; i++) {
      k = order[i]; w = wall[k]; c = cpu[k]
      vg = ""; vm = ""
      if (k != "goaccess" && ("goaccess" in wall)) vg = ratio(wall["goaccess"], w) " / " ratio(cpu["goaccess"], c)
      if (k != "mawk" && ("mawk" in wall)) vm = ratio(wall["mawk"], w) " / " ratio(cpu["mawk"], c)
      printf "| %s | %.2f | %.2f | %.1f | %.1f | %.0f | %s | %s |\n", label[k], w, c, mb / w, (c > 0 ? mb / c : 0), rss[k] * 1.024 / 1000, vg, vm
    }
    print ""
    print "#### Issue 10 bars (this run; speed = file MB over wall seconds, CPU ratio beside it)"
    print ""
    if (("goaccess" in wall) && ("tm2" in wall)) {
      r = wall["goaccess"] / wall["tm2"]
      printf "- analyze (-j 2) vs GoAccess: %.2f× by wall, %.2f× by CPU: %s (bar ≥ 10×)\n", r, cpu["goaccess"] / cpu["tm2"], verdict(r >= 10)
    }
    if (("mawk" in wall) && ("tm2" in wall)) {
      r = wall["mawk"] / wall["tm2"]
      printf "- analyze (-j 2) vs mawk: %.2f× by wall, %.2f× by CPU (-j 1: %.2f× by wall): %s (bar ≥ 0.5×)\n", r, cpu["mawk"] / cpu["tm2"], ("tm1" in wall) ? wall["mawk"] / wall["tm1"] : 0, verdict(r >= 0.5)
    }
    if ("tm2" in rss) {
      p = rss["tm2"] * 1.024 / 1000
      printf "- analyze (-j 2) peak RSS: %.0f MB: %s (bar ≤ 300 MB)\n", p, verdict(p <= 300)
    }
  }' "$AT/rows"
