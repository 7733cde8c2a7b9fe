#!/usr/bin/env bash
# The screenshot of docs/model.md: the default run's trace (--trace), drawn by docs/trace-viewer.html
# in Debian's Chromium, headless. Usage: scripts/trace-screenshot.sh [BUILD_DIR] [OUT.png]
# Needs: apt-get install chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-build}/stash-sim"
out="${2:-docs/trace-default.png}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" platforms/p3.16xl.xml workloads/resnet50.json --gpus 2 --workers 2 --trace "$tmp/trace.json" >/dev/null
cp docs/trace-viewer.html "$tmp/"
# About three iterations after the warm-up, 2 GPUs of the p3.16xlarge with 2 loader workers each.
chromium --headless --no-sandbox --disable-gpu --allow-file-access-from-files --hide-scrollbars \
  --window-size=1600,470 --virtual-time-budget=10000 --screenshot="$out" \
  "file://$tmp/trace-viewer.html?trace=trace.json&from=500&to=1250&width=1600" 2>/dev/null
echo "trace-screenshot: $out"
