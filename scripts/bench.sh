#!/usr/bin/env bash
# Throughput, CPU and peak memory of `toomany analyze` against the tools people run instead, on
# generated inputs shaped like real logs (examples/gen_real.rs: unique request and trace ids,
# counting rate-limit headers, dozens of hosts, hundreds of clients, three JSON-lines layouts,
# 1–3 % 429s in bursts; examples/gen_har.rs for HAR). Not run by CI.
#
#   scripts/bench.sh [all|jsonl|access|har]        (default all)
#
# Every input is run by every tool in turn, REPS rounds (default 3), alternating, so a noisy
# shared machine affects them alike; the table gives each tool's median wall and median CPU
# (user + sys) over the rounds and its largest peak RSS (GNU time's "Maximum resident set size").
# Compare ratios within one run, not seconds across runs.
#
# Inputs (generated once into $BENCH_DATA, default bench-data/, gitignored; deterministic by SEED):
#   real-$MB.jsonl    JSONL_MB  (default "200 800"): JSON lines, three layouts mixed
#   real-$MB.log      ACCESS_MB (default 600):       nginx combined, thousands of client IPs
#   har-3k-$MB.har    HAR_MB    (default 100):       HAR from a browser session, large bodies
# Tools (each skipped with a note when absent):
#   toomany analyze -j 2 --format json FILE      (TOOMANY=/path/to/toomany: that binary, no build)
#   jq        JSON lines: the 429s' URLs from every layout; HAR: the 429 entries counted
#   DuckDB    CLI from PyPI, in a venv (never globally):
#               python3 -m venv bench-data/venv && bench-data/venv/bin/pip install duckdb-cli
#             ($DUCKDB, else bench-data/venv/bin/duckdb, else on PATH). Queries below:
#             JSON lines "all": every line's time, host (from the URL where no host field),
#             client and status read and grouped by host, minute and client; "429": the narrow
#             query, 429s per host and minute; access log "regex": every line split by one
#             regular expression and grouped by client IP, minute and status.
#   mawk '$9==429'                  (access log)
#   goaccess --log-format=COMBINED  (access log; Debian package `goaccess`)
#   wiretrail FILE rate-limit --json (HAR; `cargo install wiretrail --version 0.3.2`, $WIRETRAIL)
# TOOMANY_BASE=/path/to/old/toomany adds that build's row to the same run (the baseline).
# SKIP="goaccess jq" leaves those tools out (GoAccess takes minutes a round on a busy machine).
# Then the issue-38 bars, judged on this run's medians. Every round's figures are kept in
# $BENCH_DATA/last-rows.txt; BENCH_ROWS=that-file scripts/bench.sh summarizes them again.
set -euo pipefail
cd "$(dirname "$0")/.."
MODE=${1:-all}
case "$MODE" in all|jsonl|access|har) ;; *) echo "usage: scripts/bench.sh [all|jsonl|access|har]" >&2; exit 2 ;; esac
DATA=${BENCH_DATA:-bench-data}
REPS=${REPS:-3}
SEED=${SEED:-1}
JSONL_MB=${JSONL_MB:-"200 800"}
ACCESS_MB=${ACCESS_MB:-600}
HAR_MB=${HAR_MB:-100}
mkdir -p "$DATA"
# The `dist` profile (fat LTO, one codegen unit; Cargo.toml): what the recorded figures in
# docs/performance.md were measured on, 2–4 % less CPU than `--release` (docs/decisions.md).
if [ -n "${TOOMANY:-}" ]; then
  bin=$TOOMANY
else
  cargo build --profile dist --quiet --bin toomany
  bin=target/dist/toomany
fi
# The generators are built only when an input is missing.
gen() {
  [ -x target/dist/examples/gen_real ] && [ -x target/dist/examples/gen_har ] ||
    cargo build --profile dist --quiet --example gen_real --example gen_har
  "target/dist/examples/$@"
}
DUCK=${DUCKDB:-$( [ -x "$DATA/venv/bin/duckdb" ] && echo "$DATA/venv/bin/duckdb" || command -v duckdb || true)}
[ -n "$DUCK" ] || echo "note: no duckdb (python3 -m venv $DATA/venv && $DATA/venv/bin/pip install duckdb-cli): no DuckDB rows" >&2
WT=${WIRETRAIL:-$(command -v wiretrail || { [ -x "$HOME/.cargo/bin/wiretrail" ] && echo "$HOME/.cargo/bin/wiretrail"; } || true)}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
want() { case " ${SKIP:-} " in *" $1 "*) return 1 ;; esac; }
SEP=$'\x1f' # a byte no log line holds: DuckDB's CSV reader then gives each line whole

# The JSON-lines queries. Columns are declared (no sampling pass); `url` is JSON because one
# layout writes it as an object (url.full).
jsonl_source() {
  cat <<EOF
read_json('$1', format='newline_delimited', ignore_errors=true, columns={
  'time': 'VARCHAR', '@timestamp': 'VARCHAR', 'ts': 'DOUBLE', 'url': 'JSON', 'host': 'VARCHAR',
  'status': 'VARCHAR', 'client': 'VARCHAR', 'service': 'VARCHAR', 'remote_addr': 'VARCHAR',
  'http': 'STRUCT(response STRUCT(status_code INTEGER))'})
EOF
}
jsonl_fields() {
  cat <<EOF
SELECT coalesce(host, regexp_extract(coalesce(url->>'full', url->>'\$'), '^[a-z]+://([^/?#]+)', 1)) AS host,
       coalesce(substr(time, 1, 16), substr("@timestamp", 1, 16), strftime(to_timestamp(ts), '%Y-%m-%dT%H:%M')) AS minute,
       coalesce(client, service, remote_addr) AS client,
       coalesce(try_cast(status AS INTEGER), http.response.status_code) AS status
FROM $(jsonl_source "$1")
EOF
}
duck_jsonl_all() {
  echo "SELECT count(*), sum(n), sum(limited) FROM (SELECT host, minute, client, count(*) AS n,
    count(*) FILTER (WHERE status = 429) AS limited FROM ($(jsonl_fields "$1")) GROUP BY ALL);"
}
duck_jsonl_429() {
  echo "SELECT host, minute, count(*) FROM ($(jsonl_fields "$1")) WHERE status = 429 GROUP BY ALL ORDER BY 3 DESC LIMIT 20;"
}
duck_access_regex() {
  cat <<EOF
SELECT count(*), sum(n), sum(limited) FROM (
  SELECT m.ip, substr(m.time, 1, 17) AS minute, m.status, count(*) AS n,
         count(*) FILTER (WHERE m.status = '429') AS limited
  FROM (SELECT regexp_extract(line,
          '^(\S+) \S+ \S+ \[([^\]]+)\] "(\S+) (\S+)[^"]*" (\d{3}) (\S+) "([^"]*)" "([^"]*)"',
          ['ip', 'time', 'method', 'target', 'status', 'bytes', 'referer', 'agent']) AS m
        FROM read_csv('$1', columns={'line': 'VARCHAR'}, header=false, delim='$SEP', quote='', escape=''))
  GROUP BY ALL);
EOF
}

# run INPUT TOOL CMD...: one row "INPUT|TOOL|wall|cpu|peak_KiB" into $T/rows (stdout to $T/out).
# Exit statuses up to $OKRC (default 0) are success: wiretrail exits 1 when it found 429s.
run() {
  local input=$1 tool=$2 rc=0; shift 2
  /usr/bin/time -f '%e %U %S %M' -o "$T/time" "$@" > "$T/out" 2> "$T/err" || rc=$?
  if [ "$rc" -gt "${OKRC:-0}" ]; then
    echo "$tool on $input failed (exit $rc): $(head -c 300 "$T/err")" >&2; return 0; fi
  read -r secs user sys kb < <(tail -n 1 "$T/time")
  echo "$input|$tool|$secs|$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')|$kb" >> "$T/rows"
}


inputs=()
if [ "$MODE" = all ] || [ "$MODE" = jsonl ]; then
  for mb in $JSONL_MB; do
    f="$DATA/real-$mb.jsonl"; [ -f "$f" ] || gen gen_real jsonl "$mb" "$f" "$SEED"; inputs+=("$f")
  done
fi
if [ "$MODE" = all ] || [ "$MODE" = access ]; then
  for mb in $ACCESS_MB; do
    f="$DATA/real-$mb.log"; [ -f "$f" ] || gen gen_real combined "$mb" "$f" "$SEED"; inputs+=("$f")
  done
fi
if [ "$MODE" = all ] || [ "$MODE" = har ]; then
  for mb in $HAR_MB; do
    f="$DATA/har-3k-$mb.har"; [ -f "$f" ] || gen gen_har "$mb" "$f" 40; inputs+=("$f")
  done
fi
command -v goaccess >/dev/null || echo "note: goaccess not installed (apt-get install goaccess)" >&2
[ -n "$WT" ] || echo "note: wiretrail not found (cargo install wiretrail --version 0.3.2)" >&2

if [ -n "${BENCH_ROWS:-}" ]; then
  # BENCH_ROWS=FILE: summarize rows kept by an earlier run (its last-rows.txt), run nothing.
  cp "$BENCH_ROWS" "$T/rows"
else
echo "### toomany analyze against its peers ($(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) cores, $REPS rounds)"
echo
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
: > "$T/rows"
for f in "${inputs[@]}"; do
  n=$(basename "$f")
  for _ in $(seq "$REPS"); do
    run "$n" "toomany -j 2" "$bin" analyze -j 2 --format json "$f"
    if [ -n "${TOOMANY_BASE:-}" ]; then run "$n" "base -j 2" "$TOOMANY_BASE" analyze -j 2 --format json "$f"; fi
    case "$f" in
      *.jsonl)
        if want jq; then run "$n" jq jq -c 'select(((.status // .http.response.status_code) | tostring) == "429")
          | (.url | if type == "object" then .full else . end) // .request_uri' "$f"; fi
        if [ -n "$DUCK" ] && want duckdb; then
          run "$n" "duckdb all lines" "$DUCK" -noheader -list -c "$(duck_jsonl_all "$f")"
          run "$n" "duckdb 429s" "$DUCK" -noheader -list -c "$(duck_jsonl_429 "$f")"
        fi ;;
      *.log)
        if want mawk; then run "$n" mawk mawk '$9==429' "$f"; fi
        if [ -n "$DUCK" ] && want duckdb; then run "$n" "duckdb regex" "$DUCK" -noheader -list -c "$(duck_access_regex "$f")"; fi
        if command -v goaccess >/dev/null && want goaccess; then
          run "$n" goaccess goaccess "$f" --log-format=COMBINED -o "$T/goaccess.json"; fi ;;
      *.har)
        if want jq; then run "$n" jq jq '[.log.entries[] | select(.response.status==429)] | length' "$f"; fi
        if [ -n "$WT" ] && want wiretrail; then OKRC=1 run "$n" "wiretrail 0.3.2" "$WT" "$f" rate-limit --json; fi ;;
    esac
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
cp "$T/rows" "$DATA/last-rows.txt" # every round's figures, for a second look (BENCH_ROWS)
fi
sizes=""
for f in "${inputs[@]}"; do sizes="$sizes $(basename "$f")=$(stat -L -c %s "$f")"; done
awk -F'|' -v sizes="$sizes" '
  function median(list,   a, n, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  function verdict(ok) { return ok ? "met" : "NOT met" }
  BEGIN { m = split(sizes, s, " "); for (i = 1; i <= m; i++) { split(s[i], kv, "="); bytes[kv[1]] = kv[2] } }
  {
    k = $1 SUBSEP $2
    walls[k] = walls[k] " " $3; cpus[k] = cpus[k] " " $4
    if ($5 + 0 > rss[k] + 0) rss[k] = $5
    if (!(k in seen)) { seen[k] = 1; order[++n] = k }
  }
  END {
    print "| input | MB | tool | wall s | CPU s | MB/s (wall) | peak RSS MiB | toomany vs it (wall / CPU) |"
    print "|---|---:|---|---:|---:|---:|---:|---|"
    for (i = 1; i <= n; i++) {
      split(order[i], p, SUBSEP); f = p[1]; t = p[2]
      w[f, t] = median(walls[order[i]]); c[f, t] = median(cpus[order[i]]); r[f, t] = rss[order[i]] / 1024
      mb = bytes[f] / 1048576
      vs = ""
      if (t != "toomany -j 2" && ((f, "toomany -j 2") in w))
        vs = sprintf("%.2f× / %.2f×", w[f, t] / w[f, "toomany -j 2"], c[f, t] / c[f, "toomany -j 2"])
      printf "| %s | %.0f | %s | %.2f | %.2f | %.0f | %.0f | %s |\n", f, mb, t, w[f, t], c[f, t], mb / w[f, t], r[f, t], vs
    }
    print ""
    print "#### Issue 38 bars (this run, medians)"
    print ""
    big = ""; small = ""
    for (f in bytes) {
      mb = bytes[f] / 1048576; tm = f SUBSEP "toomany -j 2"
      if (!(tm in w)) continue
      if (f ~ /\.jsonl$/) {
        if (big == "" || bytes[f] > bytes[big]) big = f
        if (small == "" || bytes[f] < bytes[small]) small = f
        if (mb < 400) {
          printf "- %s: %.0f MB/s wall: %s (bar ≥ 500)\n", f, mb / w[tm], verdict(mb / w[tm] >= 500)
          if ((f, "duckdb all lines") in c)
            printf "- %s: CPU %.2f s = %.2f× DuckDB reading every line (%.2f s): %s (bar ≤ 2×)\n", f, c[tm], c[tm] / c[f, "duckdb all lines"], c[f, "duckdb all lines"], verdict(c[tm] <= 2 * c[f, "duckdb all lines"])
        }
      }
      if (f ~ /\.log$/) {
        printf "- %s: %.0f MB/s wall: %s (bar ≥ 500)\n", f, mb / w[tm], verdict(mb / w[tm] >= 500)
        if ((f, "duckdb regex") in c)
          printf "- %s: CPU %.2f s = %.2f× DuckDB regex (%.2f s): %s (bar ≤ 1×)\n", f, c[tm], c[tm] / c[f, "duckdb regex"], c[f, "duckdb regex"], verdict(c[tm] <= c[f, "duckdb regex"])
        if ((f, "mawk") in w)
          printf "- %s: %.2f× mawk by wall: %s (bar ≥ 1×)\n", f, w[f, "mawk"] / w[tm], verdict(w[f, "mawk"] >= w[tm])
      }
      if (f ~ /\.har$/ && ((f, "jq") in w))
        printf "- %s: %.2f× jq by wall: %s (bar ≥ 10×)\n", f, w[f, "jq"] / w[tm], verdict(w[f, "jq"] >= 10 * w[tm])
    }
    if (big != "") {
      peak = r[big, "toomany -j 2"]
      printf "- peak RSS on %s: %.0f MiB: %s (bar ≤ 300 MB)\n", big, peak, verdict(peak * 1.048576 <= 300)
      if (big != small)
        printf "- peak RSS %s / %s: %.2f× for %.1f× the records (flat: near 1)\n", big, small, peak / r[small, "toomany -j 2"], bytes[big] / bytes[small]
    }
  }' "$T/rows"
