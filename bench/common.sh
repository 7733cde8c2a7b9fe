# bench/common.sh: sourced first by every benchmark of bench/, which keeps its arguments: --help and
# --version (scripts/help-version.sh), then the repository root as the working folder. bench_sim
# BUILD_DIR sets bin (BUILD_DIR/stash-sim) and pin (taskset on core 0, or nothing without taskset)
# for the benchmarks that time stash-sim, and exits 1 when the binary or GNU time is missing.
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/help-version.sh"
cd "$ss_root"
bench_sim() {
  local me
  me="bench/$(basename "$0")"
  bin="$1/stash-sim"
  [ -x "$bin" ] || { echo "$me: $bin not built (cmake --build $1)" >&2; exit 1; }
  [ -x /usr/bin/time ] || { echo "$me: needs GNU time (apt-get install time)" >&2; exit 1; }
  pin=""
  if command -v taskset >/dev/null; then pin="taskset -c 0"; fi
}
