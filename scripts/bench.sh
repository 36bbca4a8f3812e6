#!/usr/bin/env bash
# Throughput and peak memory of `toomany analyze` against jq and wiretrail, on generated inputs
# (not run by CI). Issue 9's benchmark:
#   scripts/bench.sh                 JSON lines ~200 MB and ~800 MB, HAR ~100 MB
#   BENCH_JSONL_MB="50" BENCH_HAR_MB=25 REPS=1 scripts/bench.sh      (a quick run)
# Each input is run by every tool in turn (toomany 2 threads, jq, wiretrail, toomany 1 thread),
# REPS rounds, alternating, so a noisy shared machine affects them alike: compare the ratios
# within one run, not seconds across runs. Peak RSS is GNU time's "Maximum resident set size".
#   jq (plain filter):  jq -c 'select(.status==429) | .url'            (JSON lines)
#                       jq '[.log.entries[] | select(.response.status==429)] | length'   (HAR)
#   wiretrail 0.3.2:    wiretrail FILE rate-limit --json    (HAR; if on PATH or $WIRETRAIL;
#                       `cargo install wiretrail --version 0.3.2`)
set -euo pipefail
cd "$(dirname "$0")/.."
JSONL_MB=${BENCH_JSONL_MB:-"200 800"}
HAR_MB=${BENCH_HAR_MB:-100}
REPS=${REPS:-1}
DATA=${BENCH_DATA:-bench-data}
mkdir -p "$DATA"
cargo build --release --quiet --examples --bin toomany
bin=target/release/toomany
WT=${WIRETRAIL:-$(command -v wiretrail || true)}
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

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# run LABEL CMD...: wall seconds and peak RSS (KiB) of CMD, stdout to $T/out.
run() {
  /usr/bin/time -f '%e %M' -o "$T/time" "${@:2}" > "$T/out" 2> "$T/err" || {
    echo "$1 failed: $(head -c 300 "$T/err")" >&2; echo "fail 0" > "$T/time"; }
  read -r secs kb < "$T/time"
  echo "$1 $secs $kb"
}

printf '%-20s %-18s %8s %9s %9s %12s %10s %8s\n' input tool MB seconds MB/s records/s peak_MiB ratio
for f in "${inputs[@]}"; do
  size=$(stat -c %s "$f")
  case "$f" in
    *.jsonl) filter='select(.status==429) | .url'; jqargs=(-c) ;;
    *) filter='[.log.entries[] | select(.response.status==429)] | length'; jqargs=() ;;
  esac
  : > "$T/rows"
  for _ in $(seq "$REPS"); do
    run "toomany(2t)" "$bin" analyze --threads 2 --format json "$f" >> "$T/rows"
    records=$(jq '.summary.requests' "$T/out")
    run jq jq "${jqargs[@]}" "$filter" "$f" >> "$T/rows"
    if [ -n "$WT" ] && [[ "$f" == *.har ]]; then
      run "wiretrail" "$WT" "$f" rate-limit --json >> "$T/rows"
    fi
    run "toomany(1t)" "$bin" analyze --threads 1 --format json "$f" >> "$T/rows"
  done
  # Best of REPS per tool (the least disturbed run), then ratios against jq and wiretrail.
  awk -v n="$(basename "$f")" -v s="$size" -v r="$records" '
    $2 != "fail" { if (!($1 in best) || $2 < best[$1]) { best[$1] = $2; rss[$1] = $3 }; if (!($1 in seen)) { order[++k] = $1; seen[$1] = 1 } }
    END {
      mb = s / 1048576
      for (i = 1; i <= k; i++) {
        t = order[i]; secs = best[t]
        ratio = ""
        if (t ~ /^toomany/ && ("jq" in best)) ratio = sprintf("%.2fx jq", best["jq"] / secs)
        if (t ~ /^toomany/ && ("wiretrail" in best)) ratio = ratio sprintf(" %.2fx wiretrail", best["wiretrail"] / secs)
        if (t == "toomany(2t)" && ("toomany(1t)" in best)) ratio = ratio sprintf(" %.2fx 1t", best["toomany(1t)"] / secs)
        recs = (t ~ /^toomany/) ? sprintf("%.0f", r / secs) : "-"
        printf "%-20s %-18s %8.0f %9.2f %9.1f %12s %10.0f  %s\n", n, t, mb, secs, mb / secs, recs, rss[t] / 1024, ratio
      }
    }' "$T/rows"
done
