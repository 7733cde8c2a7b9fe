#!/usr/bin/env bash
# bench/scale.sh: scale benchmark: wall time and peak memory (max RSS) of stash-sim on clusters of
# p3.16xlarge, ResNet-50, 10 measured iterations (+2 warm-up), ring and hierarchical allreduce, from
# 8 to 4096 GPUs; then one iteration with one allreduce per layer (--bucket-mb 0: 54 collectives, as
# ASTRA-sim's ResNet-50 data-parallel workload) on 1024 GPUs. Each run is pinned to one core; its
# CPU time (user + sys) is printed beside the wall time: the same on an idle core, and the one to
# read when other processes share it.
# Usage: bench/scale.sh [BUILD_DIR] [MAX_GPUS] [DATA] [REPEATS] [EXTRA]   (defaults: build, 4096, synthetic, 1, none)
#   DATA: "synthetic" (--synthetic) or "real" (data loading; needs fewer loader workers at scale),
#         or "defaults": the cluster-scale table of issue 17 instead, every run with the default
#         options but the ones named (allreduce auto, the default fidelity and mechanisms): one
#         allreduce per layer and one iteration at 128 to MAX_GPUS GPUs for ring, hierarchical, tree
#         and auto; 25 MiB buckets and 10 + 2 iterations at MAX_GPUS with auto; real data (the
#         default loader workers) at 1024 GPUs with auto, one allreduce per layer, one iteration.
#   REPEATS: runs per row; the best wall and CPU times and the largest max RSS are printed.
#   EXTRA: one more option for every run, e.g. --no-symmetry (every instance simulated, as before
#         issue 17: the tables of docs/performance.md measured before it).
set -euo pipefail
. "$(dirname "$0")/common.sh"
build=${1:-build}
max=${2:-4096}
data=${3:-synthetic}
reps=${4:-1}
more=${5:-}
bench_sim "$build"
if [ "$data" = defaults ]; then
  # gpus, wall and CPU seconds (best), max RSS, the run's own figure of merit: its options.
  printf '%-6s %-13s %-44s %10s %10s %11s %16s\n' "gpus" "allreduce" "options" "wall_s" "cpu_s" "maxrss_MiB" "wall_ms_per_gpu_it"
  drun() {
    local gpus=$1 alg=$2 iters=$3; shift 3
    local best="" cbest="" rss=0 out t u sy m c
    for _ in $(seq "$reps"); do
      out=$( { /usr/bin/time -f '%e %U %S %M' $pin "$bin" platforms/p3.16xl.xml workloads/resnet50.json \
               --instances $((gpus / 8)) --allreduce "$alg" "$@" $more -o /dev/null; } 2>&1 | tail -n 1)
      read -r t u sy m <<<"$out"
      c=$(awk "BEGIN{printf \"%.2f\", $u + $sy}")
      if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
      if [ -z "$cbest" ] || awk "BEGIN{exit !($c < $cbest)}"; then cbest=$c; fi
      [ "$m" -gt "$rss" ] && rss=$m
    done
    printf '%-6s %-13s %-44s %10s %10s %11.1f %16.4f\n' "$gpus" "$alg" "$*" "$best" "$cbest" \
      "$(awk "BEGIN{print $rss/1024}")" "$(awk "BEGIN{print $best * 1000 / ($gpus * $iters)}")"
  }
  for gpus in 128 512 1024 4096; do
    [ "$gpus" -le "$max" ] || continue
    for alg in ring hierarchical tree auto; do
      drun "$gpus" "$alg" 1 --synthetic --bucket-mb 0 --iterations 1 --warmup 0
    done
  done
  # 10 measured + 2 warm-up iterations: 12 simulated.
  drun "$max" auto 12 --synthetic --iterations 10 --warmup 2
  # Real data: the loaders' cycle is simulated after the measured iteration (docs/model.md).
  [ 1024 -le "$max" ] && drun 1024 auto 1 --bucket-mb 0 --iterations 1 --warmup 0
  exit 0
fi
extra=""
[ "$data" = synthetic ] && extra="--synthetic"

printf '%-6s %-13s %-40s %10s %10s %11s %14s\n' "gpus" "allreduce" "options" "wall_s" "cpu_s" "maxrss_MiB" "iteration_ms"
run() {
  local gpus=$1 alg=$2; shift 2
  local inst=$((gpus / 8))
  local best="" cbest="" rss=0 out t c m it
  for _ in $(seq "$reps"); do
    out=$( { /usr/bin/time -f '%e %U %S %M' $pin "$bin" platforms/p3.16xl.xml workloads/resnet50.json --batch 32 --iterations 10 --warmup 2 \
             --instances "$inst" --allreduce "$alg" --format csv $extra "$@" $more >/tmp/stash-sim-scale.$$; } 2>&1 | tail -n 1)
    read -r t u sy m <<<"$out"
    c=$(awk "BEGIN{printf \"%.2f\", $u + $sy}")
    if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
    if [ -z "$cbest" ] || awk "BEGIN{exit !($c < $cbest)}"; then cbest=$c; fi
    [ "$m" -gt "$rss" ] && rss=$m
    # The column named iteration_s (no field before it holds a comma).
    it=$(awk -F, 'NR==1 {for (i = 1; i <= NF; i++) if ($i == "iteration_s") c = i}
                  NR==2 {printf "%.3f", $c * 1000}' /tmp/stash-sim-scale.$$)
    rm -f /tmp/stash-sim-scale.$$
  done
  printf '%-6s %-13s %-40s %10s %10s %11.1f %14s\n' "$gpus" "$alg" "$extra $*" "$best" "$cbest" "$(awk "BEGIN{print $rss/1024}")" "$it"
}
for gpus in 8 64 512 1024 4096; do
  [ "$gpus" -le "$max" ] || continue
  for alg in ring hierarchical; do
    run "$gpus" "$alg"
  done
done
if [ 1024 -le "$max" ]; then
  for alg in ring hierarchical tree; do
    run 1024 "$alg" --bucket-mb 0 --iterations 1 --warmup 0
  done
fi
