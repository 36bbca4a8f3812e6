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
  # The `dist` profile (fat LTO, one codegen unit; Cargo.toml): what the recorded figures in
  # docs/performance.md were measured on, ~2–4 % less CPU than `--release` (docs/decisions.md).
  cargo build --profile dist --quiet --examples --bin toomany
  bin=target/dist/toomany
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
  [ -f "$f" ] || target/dist/examples/gen_jsonl "$mb" "$f"
  inputs+=("$f")
done
for mb in $HAR_MB; do
  f="$DATA/har-3k-$mb.har"
  [ -f "$f" ] || target/dist/examples/gen_har "$mb" "$f" 40
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
# GoAccess: Debian package `goaccess` (skipped with a note when absent). Tools run one after the
# other, ACCESS_REPS rounds (default 1), each tool's fastest-wall round kept; CPU = user + sys.
# mawk is one thread, so toomany is also run with one worker (-j 1). The table is Markdown,
# ready for docs/performance.md, followed by the issue-10 bars judged on wall time and on CPU.
LINES=${ACCESS_LINES:-4000000}
AREPS=${ACCESS_REPS:-1}
LOG="$DATA/combined-$LINES.log"
[ -f "$LOG" ] || target/dist/examples/gen_combined "$LINES" "$LOG"
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
  # The ingest-only row needs the example built from the same tree as the binary: with TOOMANY
  # set it runs only when the example sits beside that binary (…/dist/examples/).
  ex=$(dirname "$bin")/examples/ingest_throughput
  [ -x "$ex" ] && [ ! "$ex" -ot "$bin" ] && ameasure ingest2 "toomany ingest only, 2 workers" "$ex" "$LOG" 2
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
