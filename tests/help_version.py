#!/usr/bin/env python3
"""--help and --version of every program and script of the repository.

usage: tests/help_version.py STASH_SIM STASH_CALIBRATE VERSION
Runs each program (the two binaries, stash-calibrate's subcommands, the scripts under scripts/,
bench/ and calibration/) with --help and with --version. Each must exit 0 with nothing on stderr
and a first line on stdout that names the program; the first line of --version must also end with
VERSION (ctest passes CMake's PROJECT_VERSION, read from the VERSION file), and so must the VERSION
file itself. Prints one line per failure; exit 1 if any.
"""
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# (path from the repository root, the name its first lines must contain)
SCRIPTS = [
    ("scripts/sweep", "sweep"),
    ("scripts/plot", "plot"),
    ("scripts/sweep-slurm.sh", "sweep-slurm.sh"),
    ("scripts/stash-study", "stash-study"),
    ("scripts/stash-study-report.py", "stash-study-report.py"),
    ("scripts/ps-study", "ps-study"),
    ("scripts/ps-study-report.py", "ps-study-report.py"),
    ("scripts/whatif-study", "whatif-study"),
    ("scripts/whatif-study-report.py", "whatif-study-report.py"),
    ("scripts/validate", "validate"),
    ("scripts/validate-devices", "validate-devices"),
    ("scripts/validate-batch", "validate-batch"),
    ("scripts/validate-memory", "validate-memory"),
    ("scripts/latency-table", "latency-table"),
    ("scripts/validate-compare", "validate-compare"),
    ("scripts/trace-screenshot.sh", "trace-screenshot.sh"),
    ("scripts/fuzz.sh", "fuzz.sh"),
    ("scripts/install-deps.sh", "install-deps.sh"),
    ("scripts/check-format", "check-format"),
    ("scripts/gen_platforms.py", "gen_platforms.py"),
    ("scripts/csv2workload.py", "csv2workload.py"),
    ("calibration/gen_models.py", "gen_models.py"),
    ("calibration/fit_kernels.py", "fit_kernels.py"),
    ("scripts/validate-llm", "validate-llm"),
    ("scripts/validate-moe", "validate-moe"),
    ("scripts/gen-moe-workloads", "gen-moe-workloads"),
    ("calibration/realrun/run.sh", "run.sh"),
    ("calibration/realrun/profiler_cost.py", "profiler_cost.py"),
    ("bench/run.sh", "bench/run.sh"),
    ("bench/scale.sh", "bench/scale.sh"),
    ("bench/linearity.sh", "bench/linearity.sh"),
    ("bench/trace.sh", "bench/trace.sh"),
    ("bench/moe.sh", "bench/moe.sh"),
    ("bench/valgrind.sh", "bench/valgrind.sh"),
    ("bench/work-fit", "work-fit"),
    ("bench/plan.sh", "bench/plan.sh"),
    ("scripts/screen-check", "screen-check"),
]
CAL_COMMANDS = ["trace", "nccl", "astra", "compare"]


def interpreter(path):
    """How to run a script: by its #! line, so that no execute bit is needed."""
    with open(os.path.join(REPO, path), encoding="utf-8") as f:
        first = f.readline()
    if "python" in first:
        return [sys.executable]
    if "bash" in first:
        return ["bash"]
    return []


def check(cmd, name, version, what):
    """Run cmd (a list) and return the failures of its --help or --version (what)."""
    label = " ".join(os.path.relpath(c, REPO) if os.path.isabs(c) else c for c in cmd)
    try:
        p = subprocess.run(cmd, cwd=REPO, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return ["%s: cannot run: %s" % (label, e)]
    errors = []
    first = p.stdout.splitlines()[0] if p.stdout.strip() else ""
    if p.returncode != 0:
        errors.append("%s: exit %d, expected 0 (stderr: %s)" % (label, p.returncode, p.stderr.strip()[:200]))
    if p.stderr:
        errors.append("%s: writes to stderr: %s" % (label, p.stderr.strip()[:200]))
    if not first.strip():
        errors.append("%s: the first line of stdout is empty" % label)
    elif name not in first:
        errors.append("%s: the first line does not name %s: %r" % (label, name, first))
    if what == "--version" and not first.rstrip().endswith(" " + version):
        errors.append("%s: the first line does not end with the version %s: %r" % (label, version, first))
    return errors


def main():
    if len(sys.argv) != 4:
        sys.stderr.write("usage: tests/help_version.py STASH_SIM STASH_CALIBRATE VERSION\n")
        return 2
    sim, cal, version = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
    errors = []
    with open(os.path.join(REPO, "VERSION"), encoding="utf-8") as f:
        if f.read().strip() != version:
            errors.append("VERSION does not hold CMake's project version %s" % version)
    runs = [([sim], "stash-sim", "stash-sim"), ([cal], "stash-calibrate", "stash-calibrate")]
    runs += [([cal, c], "stash-calibrate " + c, "stash-calibrate") for c in CAL_COMMANDS]
    runs += [(interpreter(path) + [path], name, name) for path, name in SCRIPTS]
    for cmd, help_name, version_name in runs:
        errors += check(cmd + ["--help"], help_name, version, "--help")
        errors += check(cmd + ["--version"], version_name, version, "--version")
    for e in errors:
        print(e)
    if not errors:
        print("help_version: %d programs answer --help and --version (%s)" % (len(runs), version))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
