#!/usr/bin/env bash
# install-deps.sh: install what stash-sim needs to build and test on Debian (run as root, or
# with sudo available). Usage: scripts/install-deps.sh (SS_NO_TORCH=1: without PyTorch)
set -euo pipefail
. "$(dirname "$0")/../scripts/help-version.sh"
pkgs="build-essential cmake pkg-config libsimgrid-dev libxml2-dev libcjson-dev libcunit1-dev zlib1g-dev python3 parallel gnuplot-nox valgrind clang-format"
# The real run of calibration/realrun (ctest realrun.small) needs Debian's PyTorch, CPU only: with
# its dependencies 177 packages, 147 MB to download, 636 MB installed, about 30 s to unpack
# (Debian 12). SS_NO_TORCH=1 leaves them out, and that test is then skipped.
[ "${SS_NO_TORCH:-0}" = 1 ] || pkgs="$pkgs python3-torch python3-torchvision python3-pil"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi
