#!/usr/bin/env python3
"""hostile cost cases (issue 15, "Nothing hangs, and cost is bounded"): what a line of tests/bad cannot say.

Usage: cost.py STASH_SIM STASH_CALIBRATE CASE (ctest: hostile.cost_CASE), run from the repository root.
Each case runs the program under a wall-clock limit (a hang or a quadratic step fails it) and checks
the exit status and the one line of standard error:
- fifo_*: a FIFO given as an input is refused at once (a reader that opened it would wait for a writer);
- big_*: a sparse file just past a reader's size cap is refused before it is read;
- layers_*: one collective per layer over 20,000 layers runs within a time limit; the limits are 4x
  the time measured on a loaded 2-core machine (ps: 7.7 s there, 53 s before the per-part mailboxes;
  allreduce: about 10 s), so a step quadratic in the layers fails them.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from asan import without_asan_notes  # noqa: E402
import tempfile

SIM, CAL, CASE = sys.argv[1], sys.argv[2], sys.argv[3]
STAR2, TINY = "tests/platforms/star2.xml", "tests/workloads/tiny.json"


def run(args, limit_s):
    try:
        r = subprocess.run(args, capture_output=True, text=True, timeout=limit_s, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        sys.exit(f"{CASE}: {' '.join(args)} still running after {limit_s} s")
    return r


def expect_line(r, status, line):
    err = without_asan_notes(r.stderr.splitlines())
    if r.returncode != status or err != [line]:
        sys.exit(f"{CASE}: exit {r.returncode}, stderr {r.stderr!r}; expected exit {status} and {line!r}")


def refused(args, path, what, why):
    expect_line(run(args, 10), 1, f"{path}: error: cannot open {what}: {why}")


def layers_workload(tmp, n):
    w = json.load(open(TINY))
    w["layers"] = [{"name": f"l{i}", "fwd_s": 1e-5, "bwd_s": 2e-5, "params": 1000} for i in range(n)]
    path = os.path.join(tmp, f"layers{n}.json")
    with open(path, "w") as f:
        json.dump(w, f)
    return path


def main():
    with tempfile.TemporaryDirectory(prefix="stash-hostile-") as tmp:
        fifo = os.path.join(tmp, "fifo")
        os.mkfifo(fifo)
        big = os.path.join(tmp, "big")
        cases = {
            "fifo_platform": lambda: refused([SIM, fifo, TINY], fifo, "platform file", "a FIFO, not a regular file"),
            "fifo_workload": lambda: refused([SIM, STAR2, fifo], fifo, "workload file", "a FIFO, not a regular file"),
            "fifo_whatif_platform": lambda: refused(
                [SIM, "whatif", STAR2, TINY, f"--change=platform={fifo}"], fifo, "platform file",
                "a FIFO, not a regular file"),
            "fifo_nccl": lambda: refused([CAL, "nccl", fifo], fifo, "nccl-tests log", "a FIFO, not a regular file"),
            "fifo_astra": lambda: refused([CAL, "astra", fifo, "--clock-ghz", "1"], fifo, "ASTRA-sim workload",
                                          "a FIFO, not a regular file"),
            "fifo_trace": lambda: refused([CAL, "trace", fifo, "-o", os.path.join(tmp, "w.json"), "--samples", "10"],
                                          fifo, "the trace", "a FIFO, not a regular file"),
            "big_platform": lambda: (os.truncate(open(big, "w").name, (64 << 20) + 1),
                                     refused([SIM, big, TINY], big, "platform file", "larger than 64 MiB")),
            "big_workload": lambda: (os.truncate(open(big, "w").name, (256 << 20) + 1),
                                     refused([SIM, STAR2, big], big, "workload file", "larger than 256 MiB")),
            "big_nccl": lambda: (os.truncate(open(big, "w").name, (256 << 20) + 1),
                                 refused([CAL, "nccl", big], big, "nccl-tests log", "larger than 256 MiB")),
            "layers_ps": lambda: expect_ok(run([SIM, STAR2, layers_workload(tmp, 20000), "--arch", "ps",
                                                "--bucket-mb", "0", "--iterations", "1", "--synthetic"], 30)),
            "layers_allreduce": lambda: expect_ok(run([SIM, STAR2, layers_workload(tmp, 20000), "--bucket-mb", "0",
                                                       "--iterations", "1", "--synthetic"], 40)),
        }
        if CASE not in cases:
            sys.exit(f"cost.py: unknown case {CASE!r} ({', '.join(cases)})")
        cases[CASE]()


def expect_ok(r):
    if r.returncode != 0 or without_asan_notes(r.stderr.splitlines()):
        sys.exit(f"{CASE}: exit {r.returncode}, stderr {r.stderr!r}")


if __name__ == "__main__":
    main()
