#!/usr/bin/env bash
# trace-screenshot.sh: the screenshot of docs/model.md: the default run's trace (--trace), drawn by
# docs/trace-viewer.html in Debian's Chromium, headless.
# Usage: scripts/trace-screenshot.sh [BUILD_DIR] [OUT.png]
# Needs: apt-get install chromium.
set -euo pipefail
. "$(dirname "$0")/../scripts/help-version.sh"
cd "$(dirname "$0")/.."
bin="${1:-build}/stash-sim"
out="${2:-docs/trace-default.png}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The default job, as the README runs it.
"$bin" platforms/p3.16xl.xml workloads/resnet50.json --trace "$tmp/trace.json" >/dev/null
cp docs/trace-viewer.html "$tmp/"
# The spans "iteration 3" to "iteration 5" (1073.9 to 1827.2 ms): the second to the fourth measured
# iterations, after the warm-up iterations 0 and 1 (568.6 and 248.6 ms) and the first measured one,
# iteration 2 (248.6 ms); all 8 GPUs and their allreduce tracks, and the 8 loader workers and the
# host thread of GPU 0 only (the others are alike).
chromium --headless --no-sandbox --disable-gpu --allow-file-access-from-files --hide-scrollbars \
  --window-size=1600,830 --virtual-time-budget=10000 --screenshot="$out" \
  "file://$tmp/trace-viewer.html?trace=trace.json&from=1073.9&to=1827.2&width=1600&hide=GPU%20%5B1-7%5D%20(loader%7Chost)" \
  2>/dev/null
echo "trace-screenshot: $out"
