#!/usr/bin/env bash
# Run every fuzz target (or those named) one after another, each for SECONDS (default 600), in
# one process (no -jobs/-workers: the machine is shared), and print a summary line per target:
# duration, executions, coverage, corpus size, and whether it crashed. Logs: fuzz/logs/.
# Usage: fuzz/run_all.sh [SECONDS] [TARGET...]
set -uo pipefail
cd "$(dirname "$0")"
secs=${1:-600}; shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo +nightly fuzz list)
fi
[ -d corpus ] || python3 seeds.py >/dev/null
mkdir -p logs
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t"
  start=$(date +%s)
  cargo +nightly fuzz run -s none "$t" "corpus/$t" -- \
    -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
    >"logs/$t.log" 2>&1
  rc=$?
  end=$(date +%s)
  last=$(grep -E '^#[0-9]+' "logs/$t.log" | tail -1)
  execs=$(grep -E '^stat::number_of_executed_units' "logs/$t.log" | awk '{print $2}')
  crash=$(grep -Eo 'artifacts/[^ ]+' "logs/$t.log" | tail -1)
  printf '%s\t%ss\texecs=%s\t%s\trc=%s\t%s\n' "$t" "$((end-start))" "${execs:-?}" "$last" "$rc" "${crash:-no crash}"
done
