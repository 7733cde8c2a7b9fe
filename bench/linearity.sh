#!/usr/bin/env bash
# bench/linearity.sh: how the simulator's cost grows with the cluster, with the default options:
# the wall time per simulated GPU-iteration at 128 and at MAX_GPUS GPUs (p3.16xlarge clusters,
# ResNet-50, synthetic data, one allreduce per layer, one iteration), and their ratio, for ring,
# hierarchical, tree and auto (issue 17's goal: at most 1.3 from 128 to 4096 GPUs). The best of
# REPEATS runs, each pinned to one core. A benchmark: it prints figures, it checks nothing.
# Usage: bench/linearity.sh [BUILD_DIR] [MAX_GPUS] [REPEATS] [EXTRA]   (defaults: build, 4096, 1, none)
#   EXTRA: one more option for every run, e.g. --no-symmetry (every instance simulated).
set -euo pipefail
. "$(dirname "$0")/common.sh"
build=${1:-build}
max=${2:-4096}
reps=${3:-1}
extra=${4:-}
bench_sim "$build"
case "$max" in '' | *[!0-9]*) echo "bench/linearity.sh: MAX_GPUS '$max' is not a whole number" >&2; exit 2 ;; esac
[ "$max" -gt 128 ] && [ $((max % 8)) -eq 0 ] || { echo "bench/linearity.sh: MAX_GPUS must be a multiple of 8 above 128" >&2; exit 2; }
# The best wall time of REPEATS runs on gpus GPUs with allreduce alg.
best() {
  local gpus=$1 alg=$2 b="" t
  for _ in $(seq "$reps"); do
    t=$( { /usr/bin/time -f '%e' $pin "$bin" platforms/p3.16xl.xml workloads/resnet50.json --synthetic \
           --instances $((gpus / 8)) --allreduce "$alg" --bucket-mb 0 --iterations 1 --warmup 0 $extra -o /dev/null; } 2>&1 | tail -n 1)
    if [ -z "$b" ] || awk "BEGIN{exit !($t < $b)}"; then b=$t; fi
  done
  echo "$b"
}
printf '%-13s %14s %14s %18s %18s %8s\n' "allreduce" "wall_s(128)" "wall_s($max)" "ms/GPU-it(128)" "ms/GPU-it($max)" "ratio"
for alg in ring hierarchical tree auto; do
  a=$(best 128 "$alg")
  b=$(best "$max" "$alg")
  awk -v alg="$alg" -v a="$a" -v b="$b" -v n="$max" 'BEGIN{
    pa = a * 1000 / 128; pb = b * 1000 / n
    printf "%-13s %14.2f %14.2f %18.4f %18.4f %8.2f\n", alg, a, b, pa, pb, pb / pa }'
done
