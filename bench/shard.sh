#!/usr/bin/env bash
# bench/shard.sh: what sharded data parallelism costs to simulate: wall time, CPU time and peak
# memory (max RSS) of one iteration of Llama-2 7B (sequence 2048, batch 1, bf16, synthetic data) on
# clusters of p4d.24xlarge with --shard zero3, fsdp-full and fsdp-hybrid (about 150 collectives per
# GPU and iteration), up to MAX_GPUS GPUs; with --no-symmetry too (every instance simulated) up to
# 1024 GPUs for zero3, 128 for the others. Each run is pinned to one core. Memory is not checked (--ignore-memory: unsharded
# activations do not fit a 40 GB A100 at this batch); the figures are the simulator's, not the model's.
# Usage: bench/shard.sh [BUILD_DIR] [MAX_GPUS] [REPEATS]   (defaults: build, 1024, 1)
set -euo pipefail
. "$(dirname "$0")/common.sh"
build=${1:-build}
max=${2:-1024}
reps=${3:-1}
bench_sim "$build"
printf '%-6s %-13s %-14s %10s %10s %11s %14s\n' "gpus" "shard" "instances" "wall_s" "cpu_s" "maxrss_MiB" "iteration_ms"
row() {
  local gpus=$1 mode=$2 sym=$3
  local best="" cbest="" rss=0 out t u sy m c it
  for _ in $(seq "$reps"); do
    out=$( { /usr/bin/time -f '%e %U %S %M' $pin "$bin" platforms/p4d.24xl.xml workloads/llama2-7b-seq2048.json \
             --instances $((gpus / 8)) --shard "$mode" --synthetic --precision bf16 --ignore-memory \
             --iterations 1 --warmup 0 --format json $sym -o /tmp/bench_shard_$$.json; } 2>&1 | tail -n 1)
    read -r t u sy m <<<"$out"
    c=$(awk -v a="$u" -v b="$sy" 'BEGIN { printf "%.2f", a + b }')
    if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$t; fi
    if [ -z "$cbest" ] || awk -v a="$c" -v b="$cbest" 'BEGIN { exit !(a < b) }'; then cbest=$c; fi
    [ "$m" -gt "$rss" ] && rss=$m
  done
  it=$(python3 -c "import json; print('%.1f' % (json.load(open('/tmp/bench_shard_$$.json'))['iteration_s'] * 1e3))")
  rm -f /tmp/bench_shard_$$.json
  printf '%-6s %-13s %-14s %10s %10s %11d %14s\n' "$gpus" "$mode" "${sym:-symmetry}" "$best" "$cbest" $((rss / 1024)) "$it"
}
for mode in zero3 fsdp-full fsdp-hybrid; do
  for gpus in 16 128 1024 4096; do
    [ "$gpus" -le "$max" ] || continue
    row "$gpus" "$mode" ""
    if [ "$gpus" -le 128 ] || { [ "$mode" = zero3 ] && [ "$gpus" -le 1024 ]; }; then
      row "$gpus" "$mode" --no-symmetry
    fi
  done
done
