#!/usr/bin/env bash
# bench/plan.sh: speed of stash-sim plan's two tiers (issue 43): issue 43's question, GPT-3 175B over
# p4de.24xlarge and p5.48xlarge, 1 to 128 instances, t in 1, 2, 4, 8, p in 1 to 32, micro-batches 1, 2,
# 4, both 1F1B schedules, 1536 sequences a step (36,864 points), its wall time, CPU time (all processes)
# and peak memory: the screen alone (--verify 0), then the screen and the simulation of its best 20
# (the default), on every core as a user's plan runs. The goal: under a minute on 2 cores.
# Usage: bench/plan.sh [BUILD_DIR] [REPEATS]   (defaults: build, 1)
set -euo pipefail
. "$(dirname "$0")/common.sh"
build=${1:-build}
reps=${2:-1}
bench_sim "$build"
query=(plan gpt3-175b --platforms p4de.24xl,p5.48xl --max-instances 128 --tps 1,2,4,8 --pps 1,2,4,8,16,32
  --micro-batches 1,2,4 --schedules 1f1b,interleaved --global-batch 1536)
json=$(mktemp)
trap 'rm -f "$json"' EXIT
printf '%-34s %8s %8s %11s %9s %9s\n' "plan" "wall_s" "cpu_s" "maxrss_MiB" "screened" "simulated"
for verify in 0 20; do
  best_wall="" best_cpu="" rss=0
  for _ in $(seq "$reps"); do
    out=$( { /usr/bin/time -f "%e %U %S %M" "$bin" "${query[@]}" --verify "$verify" --format json >"$json"; } 2>&1 | tail -1)
    read -r wall user sys kb <<<"$out"
    cpu=$(python3 -c "print('%.1f' % ($user + $sys))")
    if [ -z "$best_wall" ] || python3 -c "import sys; sys.exit(0 if $wall < $best_wall else 1)"; then best_wall=$wall best_cpu=$cpu; fi
    [ $((kb / 1024)) -gt "$rss" ] && rss=$((kb / 1024))
  done
  read -r screened verified < <(python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); print(p["screened"], p["verified"])' "$json")
  printf '%-34s %8s %8s %11d %9s %9s\n' "gpt3-175b, 36864 points, --verify $verify" "$best_wall" "$best_cpu" "$rss" "$screened" "$verified"
done
