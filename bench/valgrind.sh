#!/usr/bin/env bash
# bench/valgrind.sh: memcheck (valgrind) on the default runs and on every input error path:
# stash-sim on the p3.16xlarge with ResNet-50 (one instance, two instances, --stash with 2 iterations,
# whose runs are forked children), stash-calibrate trace on the ResNet-50 profiler trace, and the fuzz targets'
# replay drivers over the bad-input corpus, the shipped files and the fuzz crashers (each reader's
# error paths, in one process each).
# Usage: bench/valgrind.sh [BUILD_DIR]   (default build; a normal build, not a sanitizer one)
# Prints one line per run: its time, memcheck's errors and leaks summed over its processes. "Still
# reachable" is memory held at exit, by SimGrid's (and ns-3's) static state, or inherited by the
# forked --stash runs, which _exit on purpose: not a leak. Exit status 1 on any memcheck error or
# definitely/indirectly lost block.
set -euo pipefail
. "$(dirname "$0")/common.sh"
build="${1:-build}"
command -v valgrind >/dev/null || { echo "bench/valgrind.sh: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
for b in stash-sim stash-calibrate tests/fuzz/replay_workload; do
  [ -x "$build/$b" ] || { echo "bench/valgrind.sh: $build/$b not built" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
vg=(valgrind --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=definite,indirect --trace-children=yes)
status=0
printf '%-26s %7s %6s %10s %10s %10s %12s\n' run seconds errors definitely indirectly possibly "still reach."

# Sum "N bytes" of a leak kind, and the errors, over the logs of a run's processes.
bytes() { { grep -h "$1:" "$2"/vg.*.log || true; } | sed 's/.*: *\([0-9,]*\) bytes.*/\1/' | tr -d , | awk '{s += $1} END {print s + 0}'; }
errors() { { grep -h "ERROR SUMMARY" "$1"/vg.*.log || true; } | awk '{s += $4} END {print s + 0}'; }

check() {
  local name="$1"
  shift
  local dir="$tmp/$name"
  mkdir -p "$dir"
  local t0 t1
  t0=$(date +%s.%N)
  "${vg[@]}" --log-file="$dir/vg.%p.log" "$@" >"$dir/stdout" 2>"$dir/stderr" || true
  t1=$(date +%s.%N)
  local e d i p r
  e=$(errors "$dir")
  d=$(bytes "definitely lost" "$dir")
  i=$(bytes "indirectly lost" "$dir")
  p=$(bytes "possibly lost" "$dir")
  r=$(bytes "still reachable" "$dir")
  printf '%-26s %7.1f %6d %10d %10d %10d %12d\n' "$name" "$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')" "$e" "$d" \
    "$i" "$p" "$r"
  if [ "$e" -ne 0 ] || [ "$d" -ne 0 ] || [ "$i" -ne 0 ]; then
    status=1
    mkdir -p "$build/valgrind"
    cp "$dir"/vg.*.log "$build/valgrind/"
    echo "  logs in $build/valgrind/" >&2
  fi
}

start=$(date +%s)
check sim.p3.16xl "$build/stash-sim" platforms/p3.16xl.xml workloads/resnet50.json
check sim.instances2 "$build/stash-sim" platforms/p3.16xl.xml workloads/resnet50.json --instances 2
check sim.stash "$build/stash-sim" platforms/p3.16xl.xml workloads/resnet50.json --stash --iterations 2 --warmup 1
check calibrate.trace "$build/stash-calibrate" trace tests/calibration/resnet50_v100_bs32_workers0.pt.trace.json.gz \
  -o "$tmp/workload.json" --samples 1281167
check replay.workload "$build/tests/fuzz/replay_workload" tests/fuzz/crashers/workload workloads tests/workloads tests/bad
check replay.platform "$build/tests/fuzz/replay_platform" tests/fuzz/crashers/platform platforms tests/platforms tests/bad
check replay.trace "$build/tests/fuzz/replay_trace" tests/fuzz/crashers/trace tests/calibration tests/bad/cal
echo "total $(($(date +%s) - start)) s"
exit $status
