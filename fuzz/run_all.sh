#!/usr/bin/env bash
# Run fuzz targets (all, or those named) one after another, each for SECONDS (default 600), one
# libFuzzer worker at a time (the machine is shared), niced. Fork mode with -ignore_crashes:
# a crash is saved to artifacts/TARGET/ and the run goes on, so one run finds every crash it
# can in its time. Prints a summary line per target (wall time, executions, coverage, corpus,
# crashes/timeouts/OOMs, artifacts). Logs: fuzz/logs/TARGET.log.
# Usage: fuzz/run_all.sh [SECONDS] [TARGET...]
set -uo pipefail
cd "$(dirname "$0")"
secs=${1:-600}; shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo +nightly fuzz list)
fi
python3 seeds.py >/dev/null
mkdir -p logs
# Build once, then run the binaries themselves: `cargo fuzz run` would rebuild whenever the
# sources change during the runs (and a starved build costs more than the run).
[ -n "${NO_BUILD:-}" ] || cargo +nightly fuzz build -s none >logs/build.log 2>&1 \
  || { echo "build failed: fuzz/logs/build.log"; exit 1; }
bin=target/x86_64-unknown-linux-gnu/release
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t" "artifacts/$t"
  before=$(ls "artifacts/$t" | wc -l)
  built=$(date -u -r "$bin/$t" +%FT%TZ)
  start=$(date -u +%FT%TZ); s0=$(date +%s)
  nice -n 19 "$bin/$t" "corpus/$t" -artifact_prefix="artifacts/$t/" \
    -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -max_len=65536 \
    >"logs/$t.log" 2>&1
  rc=$?
  s1=$(date +%s)
  last=$(grep -E '^#[0-9]+:' "logs/$t.log" | tail -1)
  after=$(ls "artifacts/$t" | wc -l)
  printf '%s\tbuilt=%s\tstart=%s\t%ss\t%s\trc=%s\tnew_artifacts=%s\n' \
    "$t" "$built" "$start" "$((s1-s0))" "${last:-?}" "$rc" "$((after-before))"
done
