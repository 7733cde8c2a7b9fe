#!/usr/bin/env bash
# fuzz.sh: fuzz the readers with libFuzzer: build the targets of tests/fuzz with clang (build-fuzz/,
# -DSS_FUZZ=ON: coverage, AddressSanitizer, UndefinedBehaviorSanitizer) and run each for SECONDS.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]   (TARGET: workload, platform, trace, price, plan,
# pipeline; default all)
# Environment: FUZZ_JOBS=N runs N targets at a time (default 1); FUZZ_BUILD=DIR (default build-fuzz).
# Each target keeps its corpus in DIR/corpus/TARGET (seeded from the repository's own files on every
# run, so runs accumulate) and its log in DIR/fuzz-TARGET.log. An input that crashes, leaks, takes
# over 10 s or over 2 GiB is saved to tests/fuzz/crashers/TARGET/: fix the reader, keep the file
# (ctest fuzz.replay.TARGET replays them all). Exit status 1 if any target found something.
# pipeline goes past the readers (tests/fuzz/fuzz_pipeline.c: fuzzed platform, workload and options
# through the validation layer and into the stash-sim binary of the build): it does not stop at a
# finding but records each distinct one in DIR/findings/pipeline/ (index.txt: one line each; a
# folder each with the input, platform.xml, workload.json and the command); its corpus is seeded
# from tests/fuzz/seeds/pipeline/. plan fuzzes stash-sim plan's command line (tests/fuzz/fuzz_plan.c:
# the words of its input, one per NUL or newline, after "plan WORKLOAD"), seeded from
# tests/fuzz/seeds/plan/.
set -euo pipefail
. "$(dirname "$0")/../scripts/help-version.sh"
cd "$(dirname "$0")/.."
seconds="${1:-60}"
[ $# -gt 0 ] && shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(workload platform trace price plan pipeline)
build="${FUZZ_BUILD:-build-fuzz}"
jobs="${FUZZ_JOBS:-1}"
command -v clang >/dev/null || { echo "scripts/fuzz.sh: needs clang (apt-get install clang)" >&2; exit 2; }
for t in "${targets[@]}"; do
  case "$t" in workload | platform | trace | price | plan | pipeline) ;; *) echo "scripts/fuzz.sh: unknown target '$t' (workload, platform, trace, price, plan, pipeline)" >&2; exit 2 ;; esac
done

CC=clang cmake -S . -B "$build" -DSS_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2 --target stash-sim $(printf 'fuzz_%s ' "${targets[@]}") >/dev/null

# Seeds: the repository's files of each kind (gzipped copies too, for the gzip paths; a price file
# with CRLF line ends).
seed() {
  local t="$1" dir="$build/corpus/$1"
  mkdir -p "$dir"
  case "$t" in
    workload) files=(workloads/*.json tests/workloads/*.json tests/bad/*.json tests/bad/*.json.gz) ;;
    platform) files=(platforms/*.xml tests/platforms/*.xml tests/bad/*.xml tests/calibration/*.xml) ;;
    trace) files=(tests/calibration/*.json tests/calibration/truncated.json.gz) ;;
    price) files=(platforms/prices.csv tests/fixtures/prices*.csv tests/bad/price*.csv) ;;
    plan) files=(tests/fuzz/seeds/plan/*) ;;
    pipeline) files=(tests/fuzz/seeds/pipeline/*) ;;
  esac
  for f in "${files[@]}"; do
    cp "$f" "$dir/seed_$(basename "$f")"
  done
  case "$t" in
    workload) gzip -c tests/workloads/tiny.json >"$dir/seed_tiny.json.gz" ;;
    trace) gzip -c tests/calibration/synthetic.json >"$dir/seed_synthetic.json.gz" ;;
    price) sed 's/$/\r/' tests/fixtures/prices_test.csv >"$dir/seed_prices_test_crlf.csv" ;;
  esac
}

declare -A max_len=([workload]=65536 [platform]=131072 [trace]=65536 [price]=65536 [plan]=4096 [pipeline]=512)

run() {
  local t="$1" log="$build/fuzz-$1.log" out="tests/fuzz/crashers/$1"
  mkdir -p "$out"
  seed "$t"
  local before t0
  before=$(find "$out" -type f ! -name '.*' | wc -l)
  t0=$(date +%s)
  # Nothing useful comes on the targets' stdout; stash-calibrate trace prints an error line for
  # most inputs (the sanitizers' and libFuzzer's reports still come; replay a finding to see its
  # own message).
  local mask=1 dict=() timeout=10 found="$build/findings/$t"
  [[ "$found" = /* ]] || found="$PWD/$found"
  mkdir -p "$found"
  [ "$t" = trace ] && mask=3
  [ -f "tests/fuzz/$t.dict" ] && dict=(-dict="tests/fuzz/$t.dict")
  # pipeline: each child has 10 s (FUZZ_PIPELINE_TIMEOUT), libFuzzer's own limit is above it; its
  # inputs are choices read front to back, so they are long from the start (-len_control=0).
  [ "$t" = pipeline ] && timeout=30 && dict=(-len_control=0)
  FUZZ_PIPELINE_FINDINGS="$found" "$build/tests/fuzz/fuzz_$t" "$build/corpus/$t" "${dict[@]}" -max_total_time="$seconds" \
    -max_len="${max_len[$t]}" -timeout=$timeout -rss_limit_mb=2048 -malloc_limit_mb=2048 -artifact_prefix="$out/" \
    -print_final_stats=1 -close_fd_mask=$mask >"$log" 2>&1 || true
  local after execs cov ft corpus took
  took=$(($(date +%s) - t0))
  after=$(find "$out" -type f ! -name '.*' | wc -l)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  corpus=$(find "$build/corpus/$t" -type f | wc -l)
  # A finding stops the target: the time is then shorter than asked.
  local recorded=0
  [ -f "$found/index.txt" ] && recorded=$(wc -l <"$found/index.txt")
  printf '%-9s %6ss %12s execs  cov %5s  ft %6s  corpus %5s  new findings %d (%s)\n' "$t" "$took" \
    "${execs:-?}" "${cov:-?}" "${ft:-?}" "$corpus" $((after - before)) "$log"
  [ "$t" != pipeline ] || printf '%-9s %d distinct findings recorded in %s/index.txt\n' "$t" "$recorded" "$found"
  [ "$after" -eq "$before" ] && [ "$recorded" -eq 0 ]
}

status=0
pids=()
for t in "${targets[@]}"; do
  run "$t" &
  pids+=($!)
  if [ ${#pids[@]} -ge "$jobs" ]; then
    wait "${pids[0]}" || status=1
    pids=("${pids[@]:1}")
  fi
done
for p in "${pids[@]}"; do
  wait "$p" || status=1
done
exit $status
