#!/usr/bin/env bash
# bench/moe.sh: speed of mixture-of-experts runs (issue 41): wall time, CPU time (user + sys) and peak
# memory (max RSS) of DeepSeek-V3 (the shipped workload, 671B parameters, 256 experts) on 2048 GPUs
# (256 p5.48xlarge, pipeline 16, expert 64, data 128, 4096 sequences a step: 32 micro-batches of 1),
# at bf16 with full recomputation, with the all-to-all's NCCL and DeepEP dispatchers, each pinned to
# one core (issue 41's goal: under 10 s); then the planner over Mixtral 8x7B's layouts with --eps.
# The estimate of each run (--estimate, sim/estimate.c) is printed beside it.
# Usage: bench/moe.sh [BUILD_DIR] [REPEATS]   (defaults: build, 1)
set -euo pipefail
. "$(dirname "$0")/common.sh"
build=${1:-build}
reps=${2:-1}
bench_sim "$build"
# 61 layers over 16 stages: 3 on the first (the embedding's), 2 on the last (the loss's), 4 elsewhere.
part=3,4,4,4,4,4,4,4,4,4,4,4,4,4,4,2
printf '%-12s %-6s %-44s %10s %10s %11s %12s\n' "model" "gpus" "split" "wall_s" "cpu_s" "maxrss_MiB" "estimate_s"
mrun() {
  local est
  est=$($bin p5.48xl deepseek-v3 --instances 256 --pp 16 --ep 64 --partition "$part" --global-batch 4096 \
    --micro-batch 1 --distributed-optimizer --recompute full --iterations 1 --warmup 0 --estimate --format json "$@" |
    python3 -c 'import json,sys; print("%.2f" % json.load(sys.stdin)["estimated_cpu_s"])')
  bench_best "$reps" "$bin" p5.48xl deepseek-v3 --instances 256 --pp 16 --ep 64 --partition "$part" \
    --global-batch 4096 --micro-batch 1 --distributed-optimizer --recompute full --iterations 1 --warmup 0 "$@"
  printf '%-12s %-6s %-44s %10s %10s %11d %12s\n' deepseek-v3 2048 "p 16 e 64 d 128 $*" "$best_wall" "$best_cpu" \
    "$rss_mib" "$est"
}
mrun
mrun --moe-dispatcher deepep
# The planner over Mixtral 8x7B on p5.48xlarge: 1 to 8 instances, t 1 or 2, e 1 to 8, p 1 or 2, 64
# sequences a step. Not pinned: it runs its configurations on every core, as a user's plan does.
out=$( { /usr/bin/time -f "%e %U %S %M" "$bin" plan mixtral-8x7b --platforms p5.48xl --max-instances 8 \
  --tps 1,2 --eps 1,2,4,8 --pps 1,2 --micro-batches 1 --global-batch 64 --sequence-parallel \
  --distributed-optimizer >/dev/null; } 2>&1 | tail -1)
read -r wall user sys kb <<<"$out"
printf '\nplan mixtral-8x7b, 1-8 p5.48xlarge, t 1-2, e 1-8, p 1-2: wall %s s, CPU %s s (all processes)\n' \
  "$wall" "$(python3 -c "print('%.1f' % ($user + $sys))")"
