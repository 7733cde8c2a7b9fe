#!/usr/bin/env bash
# bench/run.sh: wall time and peak memory (max RSS) of stash-sim runs, best of N, printed as a table.
# Usage: bench/run.sh [BUILD_DIR] [REPEATS]   (default build, 5)
set -euo pipefail
. "$(dirname "$0")/common.sh"
build=${1:-build}
reps=${2:-5}
bench_sim "$build"
printf '%-70s %12s %12s\n' "run" "wall_s(best)" "maxrss_MiB"
run() {
  local best="" rss=0
  for _ in $(seq "$reps"); do
    out=$( { /usr/bin/time -f '%e %M' "$bin" "$@" >/dev/null; } 2>&1 | tail -n 1)
    t=${out% *}; m=${out#* }
    if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
    [ "$m" -gt "$rss" ] && rss=$m
  done
  printf '%-70s %12s %12.1f\n' "$*" "$best" "$(awk "BEGIN{print $rss/1024}")"
}
run platforms/p3.16xl.xml workloads/resnet50.json
run platforms/p3.16xl.xml workloads/resnet50.json --iterations 100
run platforms/p3.16xl.xml workloads/resnet50.json --cache 0 --workers 8
run platforms/p3.2xl.xml workloads/resnet50.json
