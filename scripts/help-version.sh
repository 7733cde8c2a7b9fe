# scripts/help-version.sh: sourced first by the project's shell scripts, which keep their arguments:
# --help prints the script's opening comment, --version "PATH (stash-sim) VERSION" (the VERSION file
# at the repository root, which CMakeLists.txt reads too); both exit 0. Any other argument returns.
ss_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
case "${1:-}" in
  -h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
  --version)
    ss_self="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
    echo "${ss_self#"$ss_root"/} (stash-sim) $(cat "$ss_root/VERSION")"
    exit 0 ;;
esac
