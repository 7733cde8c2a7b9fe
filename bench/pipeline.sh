#!/usr/bin/env bash
# bench/pipeline.sh: speed of tensor- and pipeline-parallel runs (issue 31): wall time, CPU time
# (user + sys) and peak memory (max RSS) of one iteration of GPT-3 175B on 1024 GPUs (128
# p4d.24xlarge, t 8, p 16, d 8, batch 1536: Narayanan et al.'s split) and of the 1T-parameter model
# on 3072 GPUs (384 p4d.24xlarge, t 8, p 64, d 6, batch 3072), at bf16 with full recomputation, each
# pinned to one core; then the same with the interleaved schedule (v 2) and sequence parallelism.
# The estimate of each (--estimate, sim/estimate.c) is printed beside it.
# Usage: bench/pipeline.sh [BUILD_DIR] [REPEATS]   (defaults: build, 1)
set -euo pipefail
. "$(dirname "$0")/common.sh"
build=${1:-build}
reps=${2:-1}
bench_sim "$build"
printf '%-10s %-6s %-34s %10s %10s %11s %12s\n' "model" "gpus" "split" "wall_s" "cpu_s" "maxrss_MiB" "estimate_s"
prun() {
  local model=$1 inst=$2 gpus=$3 split=$4; shift 4
  local est
  # shellcheck disable=SC2086
  est=$($bin p4d.24xl "$model" --instances "$inst" $split --precision bf16 --recompute full --micro-batch 1 \
    --iterations 1 --warmup 0 --estimate --format json "$@" | python3 -c 'import json,sys; print("%.2f" % json.load(sys.stdin)["estimated_cpu_s"])')
  # shellcheck disable=SC2086
  bench_best "$reps" "$bin" p4d.24xl "$model" --instances "$inst" $split --precision bf16 --recompute full \
    --micro-batch 1 --iterations 1 --warmup 0 "$@"
  printf '%-10s %-6s %-34s %10s %10s %11d %12s\n' "$model" "$gpus" "$split $*" "$best_wall" "$best_cpu" "$rss_mib" "$est"
}
prun gpt3-175b 128 1024 "--tp 8 --pp 16 --global-batch 1536"
prun gpt3-175b 128 1024 "--tp 8 --pp 16 --global-batch 1536" --schedule interleaved --virtual-stages 2 --sequence-parallel
prun gpt3-1t 384 3072 "--tp 8 --pp 64 --global-batch 3072" --ignore-memory
prun gpt3-1t 384 3072 "--tp 8 --pp 64 --global-batch 3072" --schedule interleaved --virtual-stages 2 --sequence-parallel --ignore-memory
# The planner over Llama-2 70B: up to 16 instances of 4 types, t in 1..8, p in 1..16, both 1F1B
# schedules, 512 sequences a step (issue 31's goal: under 3 minutes). Not pinned: it runs its
# configurations on every core, as a user's plan does.
out=$( { /usr/bin/time -f "%e %U %S %M" "$bin" plan llama2-70b-seq4096 --platforms p4d.24xl,p4de.24xl,p5.48xl,g5.48xl \
  --max-instances 16 --tps 1,2,4,8 --pps 1,2,4,8,16 --micro-batches 1 --schedules 1f1b,interleaved \
  --global-batch 512 --precision bf16 --distributed-optimizer --tokens 1e9 >/dev/null; } 2>&1 | tail -1)
read -r wall user sys kb <<<"$out"
printf '\nplan llama2-70b-seq4096, 4 types x 1-16 instances: wall %s s, CPU %s s (all processes: user %s, sys %s)\n' \
  "$wall" "$(python3 -c "print('%.1f' % ($user + $sys))")" "$user" "$sys"
