#!/usr/bin/env bash
# realrun/run.sh: a real training run on this machine against stash-sim's prediction of it
# (docs/validation.md, "A real run on this machine"). Calibrates on one process (per-layer times,
# data preparation, the handoff of a batch from a DataLoader worker) and a gloo allreduce sweep,
# then measures 2-process DDP runs and simulates the same jobs.
#
#   calibration/realrun/run.sh [BUILD_DIR] [--small] [--reps N] [--out DIR]
#   calibration/realrun/run.sh --help | --version
#
# BUILD_DIR holds stash-sim (default: build). --small: fewer images and steps (CI, about a minute);
# the default is the full run whose figures docs/validation.md reports. --reps N: each real run
# (the single-process check and the 2-process runs) measured N times, the repetitions interleaved
# (every run once, then every run again), so that a drift of the machine's speed meets them all
# (default 3; 1 with --small). --out: where everything goes (default calibration/realrun/out/full or
# .../small, gitignored). Exit 77 (skip) when /usr/bin/python3 cannot import torch, torchvision and
# PIL (Debian: apt-get install python3-torch python3-torchvision python3-pil; REALRUN_PYTHON names
# another interpreter); 1 when a simulated time is off the measured one by more than a factor 3 (a
# sanity bound; the real errors are printed); 3 when the full run refuses to report: other
# processes took more than 5% of the machine's CPU during a repetition, or a run's repetitions
# spread by more than 10% (report.py --refuse; --small only warns).
# Measures wall time on this machine: anything else running meanwhile slows the real runs down.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=build
small=0
reps=""
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --small) small=1 ;;
    --reps) reps=${2:?--reps needs a count}; shift ;;
    --reps=*) reps=${1#--reps=} ;;
    --out) out=${2:?--out needs a directory}; shift ;;
    --out=*) out=${1#--out=} ;;
    -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    --version) echo "calibration/realrun/run.sh (stash-sim) $(cat "$root/VERSION")"; exit 0 ;;
    -*) echo "run.sh: error: unknown option '$1'" >&2; exit 2 ;;
    *) build=$1 ;;
  esac
  shift
done
# Every value below is quoted, a word of its own, never code; a control character (a newline in a
# folder's name) would still break the one-line files (sim.args, measured.csv): refused.
for v in "$build" "$out"; do
  case "$v" in *[[:cntrl:]]*) echo "run.sh: error: a control character in '$v': give a path without one" >&2; exit 2 ;; esac
done

PY=${REALRUN_PYTHON:-/usr/bin/python3}  # the system python, with Debian's torch
if ! "$PY" -c 'import torch, torchvision, PIL' 2>/dev/null; then
  echo "run.sh: skipped: $PY cannot import torch, torchvision and PIL (apt-get install python3-torch python3-torchvision python3-pil)" >&2
  exit 77
fi
case "$build" in /*) ;; *) build="$root/$build" ;; esac
sim="$build/stash-sim"
[ -x "$sim" ] || { echo "run.sh: error: no stash-sim in '$build' (build it first, see README)" >&2; exit 1; }

cd "$root"
if [ "$small" = 1 ]; then
  mode=small warmup=3 steps=8 sweep_reps=15 wl_iters=12 prep_batches=40 refuse=""
else
  mode=full warmup=5 steps=30 sweep_reps=40 wl_iters=20 prep_batches=40 refuse=--refuse
fi
reps=${reps:-$([ "$small" = 1 ] && echo 1 || echo 3)}
case "$reps" in ''|*[!0-9]*) echo "run.sh: error: --reps expects a count from 1 to 20, got '$reps'" >&2; exit 2 ;; esac
[ "$reps" -ge 1 ] && [ "$reps" -le 20 ] || { echo "run.sh: error: --reps expects a count from 1 to 20, got '$reps'" >&2; exit 2; }
out=${out:-calibration/realrun/out/$mode}
mkdir -p "$out"
# Repetitions of an earlier run with more of them would be read as this one's: gone first.
for d in "$out"/*/rep[0-9]*; do
  if [ -d "$d" ]; then rm -rf -- "$d"; fi
done
# Paths in measured.csv are relative to the repository root when the output is inside it.
case "$out" in /*) ;; *) out=$(cd "$out" && pwd) ;; esac
rel=${out#"$root"/}
profiled=4  # train.py --profile: 1 step of the profiler's warm-up and 3 profiled steps
# Every rank's batches of the longest run in one epoch (the largest batch is 64): no epoch restarts.
images=$(( (2 * 64 * (warmup + steps + profiled + 1) + 511) / 512 * 512 ))
data="$out/images"
seed=1
# One torch thread per training process (train.py sets it; OMP for anything else that reads it).
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
# train.py and its common arguments, one word each whatever the paths hold (spaces, quotes, '*').
T=("$PY" "$here/train.py" --data "$data" --images "$images" --seed "$seed")
t_all=$(date +%s)
step() { echo; echo "== $*"; }

step "images: $images JPEGs in $data (once; reused when the seed and count match)"
"${T[@]}" --out "$out" --generate-only

step "single-process calibration: per-layer times, optimizer, data preparation (workload.py, batch 32, 1 thread)"
"$PY" "$here/workload.py" --data "$data" --images "$images" --seed "$seed" --batch 32 --iters "$wl_iters" \
  --prep-batches "$prep_batches" -o "$out/workload.json"

step "gloo allreduce sweep, 2 processes over loopback, 4 KiB .. 64 MiB"
"${T[@]}" --out "$out/sweep" --allreduce-sweep --sweep-reps "$sweep_reps"

step "platform: this machine (machine.py), checked with stash-sim bench allreduce"
"$PY" "$here/machine.py" --workload "$out/workload.json" --allreduce "$out/sweep/allreduce.csv" \
  -o "$out/machine.xml" --bench "$sim" | tee "$out/allreduce_check.txt"

# quoted WORD...: the words on one line, each in single quotes unless it is plain (letters, digits,
# _ . / : = , + -), as stash-calibrate compare splits measured.csv's args (a shell's quoting, no
# expansion): a path with a space stays one word.
quoted() {
  local w sep=""
  for w in "$@"; do
    if [[ "$w" =~ ^[A-Za-z0-9_./:=,+-]+$ ]]; then
      printf '%s%s' "$sep" "$w"
    else
      printf "%s'%s'" "$sep" "${w//\'/\'\\\'\'}"
    fi
    sep=" "
  done
  printf '\n'
}

# simulate NAME ARGS...: stash-sim on this machine's platform and workload, the arguments kept in
# NAME/sim.args (for measured.csv, quoted) and the JSON report in NAME/sim.json. The simulated job
# measures the same steps as the real one (warm-up, then steps), so the loaders' head start (the
# batches they prefetched during the warm-up) counts alike in both.
simulate() {
  local name=$1
  shift
  local args=("$rel/machine.xml" "$rel/workload.json" "$@" --bucket-mb 25 --warmup "$warmup" --iterations "$steps")
  quoted "${args[@]}" >"$out/$name/sim.args"
  "$sim" "${args[@]}" --format json -o "$out/$name/sim.json"
}

# name batch workers extra-flags: A is the configuration of the brief, B another batch and loader
# count; the full run adds C (more loader processes) and S (no data loading) to split the error.
configs="A:32:1: B:64:0:"
[ "$small" = 1 ] || configs="$configs C:64:2: S:32:0:--synthetic"

# The handoff: the training process's time in DataLoader.__next__ when a worker has the batch
# ready (receive it, rebuild its tensors from shared memory, send the next indices), measured in
# one process with the DataLoader of each run that has loader processes (batch, workers), and
# passed to stash-sim as --handoff-us: a calibration input, like the per-layer times.
step "handoff: one process takes ready batches from its DataLoader workers (train.py --measure-handoff)"
measured=" "
for c in single:32:1: $configs; do
  IFS=: read -r _ batch workers extra <<<"$c"
  key="b${batch}w${workers}"
  if [ "$workers" -gt 0 ] && [ -z "$extra" ] && [[ "$measured" != *" $key "* ]]; then
    "${T[@]}" --out "$out/handoff/$key" --measure-handoff --batch "$batch" --workers "$workers"
    measured="$measured$key "
  fi
done

# loader_flags BATCH WORKERS EXTRA: the simulator's flags of a run's data loading: --workers,
# --cache 1 (the images are in the page cache), and with loader processes --handoff-us with the
# handoff measured for them; nothing with synthetic data (the simulator rejects them there, as
# --handoff-us without loader processes).
loader_flags() {
  [ "$3" = --synthetic ] && return
  printf -- '--workers %d --cache 1' "$2"
  if [ "$2" -gt 0 ]; then
    "$PY" -c 'import json,sys; print(" --handoff-us %.1f" % json.load(open(sys.argv[1]))["handoff_us"], end="")' \
      "$out/handoff/b$1w$2/handoff.json"
  fi
}

step "single-process profiled run (batch 32, 1 loader process): the trace for stash-calibrate trace"
"${T[@]}" --out "$out/single" --nprocs 1 --batch 32 --workers 1 --warmup "$warmup" --steps "$steps" --profile
# shellcheck disable=SC2046  # flags and their values
simulate single --gpus 1 --batch 32 $(loader_flags 32 1 "")

names="single:check"
for c in $configs; do
  IFS=: read -r name batch workers extra <<<"$c"
  prof=""
  [ "$name" = A ] && prof="--profile"
  step "run $name: 2 DDP processes, batch $batch per process, $workers loader process(es) per rank ${extra}"
  # shellcheck disable=SC2086  # prof and extra are empty or one flag
  "${T[@]}" --out "$out/$name" --batch "$batch" --workers "$workers" --warmup "$warmup" --steps "$steps" $prof $extra
  # shellcheck disable=SC2086,SC2046
  simulate "$name" --batch "$batch" $extra $(loader_flags "$batch" "$workers" "$extra")
  names="$names $name"
done

# The repetitions: every run again, in the same order, reps - 1 times (without the profiler), into
# NAME/repK; report.py takes the median over them and refuses a disturbed run.
for k in $(seq 2 "$reps"); do
  step "repetition $k of $reps: every run again"
  "${T[@]}" --out "$out/single/rep$k" --nprocs 1 --batch 32 --workers 1 --warmup "$warmup" --steps "$steps"
  for c in $configs; do
    IFS=: read -r name batch workers extra <<<"$c"
    # shellcheck disable=SC2086  # extra is empty or one flag
    "${T[@]}" --out "$out/$name/rep$k" --batch "$batch" --workers "$workers" --warmup "$warmup" --steps "$steps" $extra
  done
done

step "measured against simulated ($mode run, $reps repetition(s), $(( $(date +%s) - t_all )) s so far)"
# shellcheck disable=SC2086
"$PY" "$here/report.py" "$out" $names $refuse | tee "$out/report.txt"
grep -q 'error = simulated / measured - 1' "$out/report.txt"

cal="$build/stash-calibrate"
if [ -x "$cal" ]; then
  step "the same prediction by stash-calibrate compare (measured.csv)"
  "$cal" compare "$out/measured.csv" --bin "$sim" | tee "$out/compare.txt"
  step "the trace route: stash-calibrate trace of the single-process trace, against workload.py's direct timing"
  ref=$("$PY" -c 'import json,sys; r=json.load(open(sys.argv[1]))["reference"]; print(r["gpu_flops"]); print(r["gpu_model"])' \
        "$out/workload.json")
  flops=$(echo "$ref" | sed -n 1p)
  model=$(echo "$ref" | sed -n 2p)
  samples=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["dataset"]["samples"])' "$out/workload.json")
  "$cal" trace "$out/single/trace.json" -o "$out/trace-workload.json" --samples "$samples" --gpu-flops "$flops" \
    --gpu-model "$model"
  "$PY" - "$out/workload.json" "$out/trace-workload.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
total = lambda w, k: sum(l[k] for l in w["layers"]) * 1e3
print("%-22s %10s %10s %10s %12s" % ("workload", "fwd ms", "bwd ms", "opt ms", "params"))
for name, w in (("workload.py (timed)", a), ("stash-calibrate trace", b)):
    print("%-22s %10.2f %10.2f %10.2f %12d" % (name, total(w, "fwd_s"), total(w, "bwd_s"), w["optimizer_s"] * 1e3,
                                             sum(l["params"] for l in w["layers"])))
PY
  # The trace's DataLoader span is only the wait when a loader process prepares (a lower bound), so
  # the trace workload is simulated here without data loading, against workload.py's.
  for w in workload.json trace-workload.json; do
    printf '%-22s synthetic single-process step: ' "$w"
    # The column named iteration_s (its position moves as the report gains keys).
    "$sim" "$out/machine.xml" "$out/$w" --gpus 1 --batch 32 --synthetic --format csv |
      "$PY" -c 'import csv,sys; print(next(csv.DictReader(sys.stdin))["iteration_s"])'
  done
fi
echo "run.sh: $out/measured.csv, $out/summary.csv; traces $out/A/trace.json (rank 0 of 2) and $out/single/trace.json (1 process)"
