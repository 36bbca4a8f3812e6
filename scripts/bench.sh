#!/usr/bin/env bash
# Throughput and peak memory of `toomany analyze` against jq, wiretrail and (access logs) GoAccess
# and mawk, on generated inputs. Not run by CI.
#   scripts/bench.sh [issue9]     issue 9's set: JSON lines ~200 MB and ~800 MB, HAR ~100 MB and
#                                 ~400 MB; toomany -j 2 and -j 1, jq, wiretrail (HAR)
#   scripts/bench.sh access       the access-log comparison alone (issue 10, see the end)
#   scripts/bench.sh all          both
#   BENCH_JSONL_MB="50" BENCH_HAR_MB=25 REPS=1 scripts/bench.sh      (a quick run)
#   TOOMANY=/path/to/toomany scripts/bench.sh                          (that binary, no build)
# Every input is run by every tool in turn (toomany -j 2, jq, wiretrail, toomany -j 1), REPS
# rounds, alternating, so a noisy shared machine affects them alike: compare the ratios within one
# run, not seconds across runs. Each tool's least-disturbed (fastest wall) round is kept.
# Peak RSS is GNU time's "Maximum resident set size"; CPU is user + sys seconds.
#   jq (plain filter):  jq -c 'select(.status==429) | .url'                          (JSON lines)
#                       jq '[.log.entries[] | select(.response.status==429)] | length'  (HAR)
#   wiretrail 0.3.2:    wiretrail FILE rate-limit --json   (HAR; on PATH, ~/.cargo/bin or
#                       $WIRETRAIL; `cargo install wiretrail --version 0.3.2`)
# The output is a Markdown table, ready for docs/performance.md, then the issue-9 bars.
set -euo pipefail
cd "$(dirname "$0")/.."
MODE=${1:-issue9}
case "$MODE" in issue9|access|all) ;; *) echo "usage: scripts/bench.sh [issue9|access|all]" >&2; exit 2 ;; esac
DATA=${BENCH_DATA:-bench-data}
mkdir -p "$DATA"
# TOOMANY=path/to/toomany measures that binary instead of building one (inputs must exist or the
# examples be built already).
if [ -n "${TOOMANY:-}" ]; then bin=$TOOMANY; else
  cargo build --release --quiet --examples --bin toomany
  bin=target/release/toomany
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

if [ "$MODE" != access ]; then
JSONL_MB=${BENCH_JSONL_MB:-"200 800"}
HAR_MB=${BENCH_HAR_MB:-"100 400"}
REPS=${REPS:-1}
WT=${WIRETRAIL:-$(command -v wiretrail || { [ -x "$HOME/.cargo/bin/wiretrail" ] && echo "$HOME/.cargo/bin/wiretrail"; } || true)}
[ -n "$WT" ] || echo "note: wiretrail not found (cargo install wiretrail --version 0.3.2); HAR runs without it" >&2
command -v jq >/dev/null || { echo "jq is required" >&2; exit 2; }

inputs=()
for mb in $JSONL_MB; do
  f="$DATA/log-$mb.jsonl"
  [ -f "$f" ] || target/release/examples/gen_jsonl "$mb" "$f"
  inputs+=("$f")
done
for mb in $HAR_MB; do
  f="$DATA/har-3k-$mb.har"
  [ -f "$f" ] || target/release/examples/gen_har "$mb" "$f" 40
  inputs+=("$f")
done

# run LABEL CMD...: one line "LABEL wall_s cpu_s peak_KiB" for CMD (stdout to $T/out). Exit
# statuses up to $OKRC (default 0) are success: wiretrail exits 1 when it found 429s.
run() {
  local rc=0
  /usr/bin/time -f '%e %U %S %M' -o "$T/time" "${@:2}" > "$T/out" 2> "$T/err" || rc=$?
  if [ "$rc" -gt "${OKRC:-0}" ]; then
    echo "$1 failed (exit $rc): $(head -c 300 "$T/err")" >&2; echo "fail 0 0 0" > "$T/time"; fi
  read -r secs user sys kb < <(tail -n 1 "$T/time")
  echo "$1 $secs $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }') $kb"
}

echo "### toomany analyze vs jq and wiretrail ($(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) cores)"
echo
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo '| input | MB | records | tool | wall s | CPU s | MB/s | records/s | peak RSS MiB | vs jq (wall / CPU) | vs wiretrail (wall / CPU) | vs -j 1 (wall) |'
echo '|---|---:|---:|---|---:|---:|---:|---:|---:|---|---|---|'
: > "$T/summary"
for f in "${inputs[@]}"; do
  size=$(stat -c %s "$f")
  case "$f" in
    *.jsonl) filter='select(.status==429) | .url'; jqargs=(-c); records=$(wc -l < "$f") ;;
    *) filter='[.log.entries[] | select(.response.status==429)] | length'; jqargs=(); records= ;;
  esac
  : > "$T/rows"
  for _ in $(seq "$REPS"); do
    run "toomany -j 2" "$bin" analyze -j 2 --format json "$f" >> "$T/rows"
    [ -n "$records" ] || records=$(jq '.summary.requests' "$T/out" 2>/dev/null || echo 0)
    run jq jq "${jqargs[@]}" "$filter" "$f" >> "$T/rows"
    if [ -n "$WT" ] && [[ "$f" == *.har ]]; then
      OKRC=1 run "wiretrail 0.3.2" "$WT" "$f" rate-limit --json >> "$T/rows"
    fi
    run "toomany -j 1" "$bin" analyze -j 1 --format json "$f" >> "$T/rows"
  done
  awk -v n="$(basename "$f")" -v s="$size" -v r="$records" -v sum="$T/summary" '
    {
      t = $0; sub(/ [^ ]+ [^ ]+ [^ ]+$/, "", t)
      m = split($0, a, " ")
      wall = a[m - 2]; cpu = a[m - 1]; kb = a[m]
      if (wall == "fail") next
      if (!(t in best) || wall < best[t]) { best[t] = wall; cpus[t] = cpu; rss[t] = kb }
      if (!(t in seen)) { order[++k] = t; seen[t] = 1 }
    }
    END {
      mb = s / 1048576
      for (i = 1; i <= k; i++) {
        t = order[i]; w = best[t]; c = cpus[t]
        vj = ""; vw = ""; v1 = ""
        if (t ~ /^toomany/ && ("jq" in best)) vj = sprintf("%.2f× / %.2f×", best["jq"] / w, cpus["jq"] / c)
        if (t ~ /^toomany/ && ("wiretrail 0.3.2" in best)) vw = sprintf("%.2f× / %.2f×", best["wiretrail 0.3.2"] / w, cpus["wiretrail 0.3.2"] / c)
        if (t == "toomany -j 2" && ("toomany -j 1" in best)) v1 = sprintf("%.2f×", best["toomany -j 1"] / w)
        recs = sprintf("%.0f", r / w)
        printf "| %s | %.0f | %s | %s | %.2f | %.2f | %.1f | %s | %.0f | %s | %s | %s |\n", n, mb, r, t, w, c, mb / w, recs, rss[t] / 1024, vj, vw, v1
        printf "%s %s %s %s %s %s\n", n, t == "toomany -j 2" ? "tm2" : t == "toomany -j 1" ? "tm1" : t == "jq" ? "jq" : "wt", w, c, rss[t], mb >> sum
      }
    }' "$T/rows"
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
# The issue-9 bars, judged on wall time (the issue's measure) with the CPU-time ratio beside it.
echo "#### Issue 9 bars (this run)"
echo
awk '
  { w[$1, $2] = $3; c[$1, $2] = $4; k[$1, $2] = $5; mb[$1] = $6; if (!($1 in seen)) { names[++n] = $1; seen[$1] = 1 } }
  function verdict(ok) { return ok ? "met" : "NOT met" }
  END {
    big = ""; small = ""
    for (i = 1; i <= n; i++) {
      f = names[i]
      if (((f, "jq") in w) && ((f, "tm2") in w)) {
        r = w[f, "jq"] / w[f, "tm2"]
        printf "- %s: toomany -j 2 is %.2f× jq (wall; CPU %.2f×): %s (bar ≥ 5×)\n", f, r, c[f, "jq"] / c[f, "tm2"], verdict(r >= 5)
      }
      if (((f, "wt") in w) && ((f, "tm2") in w)) {
        r = w[f, "wt"] / w[f, "tm2"]
        printf "- %s: toomany -j 2 is %.2f× wiretrail 0.3.2 (wall; CPU %.2f×): %s (bar ≥ 2×)\n", f, r, c[f, "wt"] / c[f, "tm2"], verdict(r >= 2)
      }
      if (f ~ /\.jsonl$/ && ((f, "tm1") in w) && ((f, "tm2") in w)) {
        r = w[f, "tm1"] / w[f, "tm2"]
        printf "- %s: -j 2 is %.2f× -j 1 (wall): %s (bar ≥ 1.6×)\n", f, r, verdict(r >= 1.6)
      }
      if (f ~ /\.jsonl$/ && ((f, "tm2") in k)) {
        if (small == "" || mb[f] < mb[small]) small = f
        if (big == "" || mb[f] > mb[big]) big = f
      }
    }
    if (big != "" && big != small) {
      p = k[big, "tm2"] / 1024; q = k[small, "tm2"] / 1024
      printf "- peak RSS on %s: %.0f MiB: %s (bar ≤ 300 MB)\n", big, p, verdict(p * 1.048576 <= 300)
      printf "- peak RSS %s / %s: %.2f×: %s (bar ≤ 1.5×)\n", big, small, p / q, verdict(p / q <= 1.5)
    }
  }' "$T/summary"
fi

[ "$MODE" = issue9 ] && exit 0
# --- Access logs (issue 10): a generated nginx `combined` log, toomany against GoAccess and mawk
# on the same file in the same run. ACCESS_LINES (default 4000000, ≈ 680 MB) sets its size.
# GoAccess: Debian package `goaccess` (skipped with a note when absent).
LINES=${ACCESS_LINES:-4000000}
LOG="$DATA/combined-$LINES.log"
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
