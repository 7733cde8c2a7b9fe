# bench/common.sh: sourced first by every benchmark of bench/, which keeps its arguments: --help and
# --version (scripts/help-version.sh), then the repository root as the working folder. bench_sim
# BUILD_DIR sets bin (BUILD_DIR/stash-sim) and pin (taskset on core 0, or nothing without taskset)
# for the benchmarks that time stash-sim, and exits 1 when the binary or GNU time is missing.
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/help-version.sh"
cd "$ss_root"
# bench_best REPS CMD...: run CMD (pinned, its output dropped) REPS times; best_wall and best_cpu (s,
# user + sys) are the least of them, rss_mib the largest peak memory.
bench_best() {
  local reps=$1 out wall user sys kb cpu
  shift
  best_wall="" best_cpu="" rss_mib=0
  for _ in $(seq "$reps"); do
    # shellcheck disable=SC2086
    out=$( { /usr/bin/time -f "%e %U %S %M" $pin "$@" >/dev/null; } 2>&1 | tail -1)
    read -r wall user sys kb <<<"$out"
    cpu=$(python3 -c "print('%.2f' % ($user + $sys))")
    if [ -z "$best_wall" ] || python3 -c "import sys; sys.exit(0 if $wall < $best_wall else 1)"; then best_wall=$wall; fi
    if [ -z "$best_cpu" ] || python3 -c "import sys; sys.exit(0 if $cpu < $best_cpu else 1)"; then best_cpu=$cpu; fi
    [ $((kb / 1024)) -gt "$rss_mib" ] && rss_mib=$((kb / 1024))
  done
  return 0
}
bench_sim() {
  local me
  me="bench/$(basename "$0")"
  bin="$1/stash-sim"
  [ -x "$bin" ] || { echo "$me: $bin not built (cmake --build $1)" >&2; exit 1; }
  [ -x /usr/bin/time ] || { echo "$me: needs GNU time (apt-get install time)" >&2; exit 1; }
  pin=""
  if command -v taskset >/dev/null; then pin="taskset -c 0"; fi
}
