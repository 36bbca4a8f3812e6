#!/usr/bin/env bash
# Regenerate docs/report-screenshot.png: the HTML report of samples/cdn-burst.har in headless
# Debian chromium (apt-get install -y chromium). The flags keep chromium off the network.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cargo run --quiet -- analyze samples/cdn-burst.har -o "$tmp/report.html"
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$tmp/profile" --hide-scrollbars --window-size=1200,1250 \
  --screenshot=docs/report-screenshot.png "file://$tmp/report.html" 2>/dev/null
echo "wrote docs/report-screenshot.png"
