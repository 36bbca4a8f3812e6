#!/usr/bin/env bash
# Peak memory of `toomany analyze` against the number of input files and the number of
# rate-limited rows kept, on generated inputs. Not run by CI (the big inputs take minutes).
#   scripts/mem-bench.sh files [N...]     N one-line JSON-lines files (default 1000 10000 20000),
#                                         all analysed in one run
#   scripts/mem-bench.sh rows [MB [EVERY]] MB of JSON lines (default 4096), every EVERYth line a
#                                         429 (default 1: all of them), given as one gzip file
#   scripts/mem-bench.sh all              both, at their defaults
#   MEM_DATA=/some/dir                    where the inputs go (default ./bench-mem; keep it out of
#                                         the repository); removed afterwards unless KEEP=1
#   TOOMANY=/path/to/toomany              that binary instead of a fresh release build
# Peak RSS is GNU time's "Maximum resident set size" (`/usr/bin/time -v`); CPU is user + sys.
# The bars (issue 41): 20,000 one-line files and 4 GiB of JSON lines as gzip, each within 300 MB.
set -euo pipefail
cd "$(dirname "$0")/.."
MODE=${1:-all}
case "$MODE" in files|rows|all) ;; *) echo "usage: scripts/mem-bench.sh files|rows|all [...]" >&2; exit 2 ;; esac
[ -x /usr/bin/time ] || { echo "GNU time (/usr/bin/time) is required" >&2; exit 2; }
DATA=${MEM_DATA:-bench-mem}
mkdir -p "$DATA"
DATA=$(cd "$DATA" && pwd)
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$DATA"/files-* "$DATA"/rows-*' EXIT
if [ -n "${TOOMANY:-}" ]; then bin=$(realpath "$TOOMANY"); else
  cargo build --release --quiet --bin toomany
  bin=$PWD/target/release/toomany
fi

# measure LABEL DIR CMD...: "| LABEL | wall s | CPU s | peak RSS MB | exit |", run in DIR.
measure() {
  local label=$1 dir=$2 t rc=0
  shift 2
  t=$(mktemp)
  (cd "$dir" && /usr/bin/time -v -o "$t" "$@" > /dev/null 2> "$t.err") || rc=$?
  awk -v l="$label" -v rc="$rc" -F': ' '
    /Elapsed \(wall clock\)/ { n = split($2, p, ":"); w = 0; for (i = 1; i <= n; i++) w = w * 60 + p[i] }
    /User time/ { u = $2 } /System time/ { s = $2 } /Maximum resident/ { kb = $2 }
    END { printf "| %s | %.2f | %.2f | %.0f | %s |\n", l, w, u + s, kb / 1000, rc }' "$t"
  [ "$rc" -le 1 ] || { echo "failed (exit $rc):" >&2; head -c 600 "$t.err" >&2; }
  rm -f "$t" "$t.err"
}

# gen_files N DIR: N files of one JSON line each (every 10th a 429), one second apart.
gen_files() {
  python3 - "$1" "$2" <<'EOF'
import os, sys
n, d = int(sys.argv[1]), sys.argv[2]
os.makedirs(d, exist_ok=True)
for i in range(n):
    status = 429 if i % 10 == 0 else 200
    with open(os.path.join(d, f"f{i:06d}.jsonl"), "w") as f:
        f.write('{"ts":%d,"method":"GET","url":"https://api.example.com/v1/x/%d","status":%d,'
                '"client":"w%d","response_headers":{"Retry-After":"2"}}\n'
                % (1714564800000 + i * 1000, i % 50, status, i % 4))
EOF
}

# gen_rows MB EVERY: MB of JSON lines on stdout, every EVERYth a 429 with Retry-After and a JSON
# body (the shape of examples/gen_jsonl.rs: four workers, one key, 5,000 URLs).
gen_rows() {
  python3 - "$1" "$2" <<'EOF'
import sys
mb, every = int(sys.argv[1]), int(sys.argv[2])
target, out = mb << 20, sys.stdout.buffer
body = '{\\"error\\":{\\"code\\":\\"rate_limit_exceeded\\",\\"message\\":\\"120 per minute\\"}}'
t, i, written, buf = 1714564800000, 0, 0, []
while written < target:
    t += 7
    lim = i % every == every - 1
    line = ('{"ts":%d,"method":"%s","url":"https://api.example.com/v1/orders/%d?expand=items",'
            '"status":%d,"duration_ms":%d,"client":"worker-%d","request_headers":{"Authorization":'
            '"Bearer sk-test-000000000000000000000042","User-Agent":"orders-sync/1.4",'
            '"Idempotency-Key":"idem-%d"},"response_headers":{"Content-Type":"application/json",'
            '"X-RateLimit-Limit":"120","X-RateLimit-Remaining":"%d","Retry-After":"%s"},'
            '"response_body":"%s"}\n' % (
                t, "POST" if i % 7 == 0 else "GET", i % 5000, 429 if lim else 200, 40 + i % 90,
                i % 4, i, 0 if lim else 119 - i % 120, "12" if lim else "0", body if lim else "")
            ).encode()
    buf.append(line)
    written += len(line)
    i += 1
    if len(buf) >= 10000:
        out.write(b"".join(buf))
        buf = []
out.write(b"".join(buf))
print(f"{i} lines", file=sys.stderr)
EOF
}

echo "### toomany analyze peak memory ($(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) cores)"
echo
echo '| input | wall s | CPU s | peak RSS MB | exit |'
echo '|---|---:|---:|---:|---:|'
if [ "$MODE" != rows ]; then
  counts=(1000 10000 20000)
  if [ "$MODE" = files ] && [ $# -gt 1 ]; then counts=("${@:2}"); fi
  for n in "${counts[@]}"; do
    d="$DATA/files-$n"
    [ -d "$d" ] || gen_files "$n" "$d"
    # One run gets every file (20,000 names fit in the argument list).
    measure "$n one-line files" "$d" sh -c 'exec "$0" analyze --format json -- *.jsonl' "$bin"
  done
fi
if [ "$MODE" != files ]; then
  mb=4096 every=1
  if [ "$MODE" = rows ]; then mb=${2:-4096} every=${3:-1}; fi
  f="$DATA/rows-$mb-$every.jsonl.gz"
  [ -f "$f" ] || gen_rows "$mb" "$every" | gzip -1 > "$f"
  measure "$mb MB of JSON lines (1 in $every a 429), gzip $(( $(stat -c %s "$f") >> 20 )) MB" "$DATA" \
    "$bin" analyze --format json "$f"
fi
