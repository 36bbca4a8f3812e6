#!/usr/bin/env bash
# Golden-report check for engine changes: the JSON reports of two toomany binaries, compared on
# every sample, every real exporter file (tests/corpus/real-har, when present), every input
# under tests/ and any EXTRA files, each with -j 1 and -j 2. Run ids, times of the run and
# fingerprints' key ids are masked; fingerprints themselves are stable through one key file.
#   scripts/compare-reports.sh BASE_BIN NEW_BIN            (exit 1 when any report differs)
#   EXTRA="big.jsonl other.har" scripts/compare-reports.sh BASE NEW
# Not run by CI (it needs two builds); performance sessions run it after every step.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: scripts/compare-reports.sh BASE_BIN NEW_BIN" >&2; exit 2; }
base=$1 new=$2
cd "$(dirname "$0")/.."
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
head -c 32 /dev/urandom > "$T/key"

mask() { sed -E 's/"(fingerprint|run_id|generated_at|elapsed_ms|key_id|toomany_version)": *"[^"]*"/"\1":"X"/g'; }
report() { "$1" analyze -j "$2" --format json --fingerprint-key-file "$T/key" "$3" 2>&1 | mask || true; }

files=()
for f in samples/*.jsonl samples/*.har samples/*.log tests/corpus/real-har/*.har ${EXTRA:-}; do
  [ -f "$f" ] && files+=("$f")
done
while IFS= read -r f; do files+=("$f"); done < <(find tests -type f \( -name '*.har' -o -name '*.jsonl' -o -name '*.log' \) | sort)

runs=0 differ=0
for f in "${files[@]}"; do
  for j in 1 2; do
    runs=$((runs + 1))
    report "$base" "$j" "$f" > "$T/a"
    report "$new" "$j" "$f" > "$T/b"
    if ! cmp -s "$T/a" "$T/b"; then
      differ=$((differ + 1))
      echo "DIFF $f -j $j"
      diff "$T/a" "$T/b" | head -n 8 | sed 's/^/    /' || true
    fi
  done
done
echo "$runs runs, $differ differ"
[ "$differ" -eq 0 ]
