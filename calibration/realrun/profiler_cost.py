#!/usr/bin/env python3
"""profiler_cost.py: what PyTorch's profiler adds to each CPU operator, measured on this machine.

usage: /usr/bin/python3 calibration/realrun/profiler_cost.py [--ops N] [--reps R] [--json FILE]
       calibration/realrun/profiler_cost.py --help | --version

Times a loop of N small eager operators (torch.add of two 64-element tensors, the size where an
operator's time is its dispatch), R times without the profiler and R times under torch.profiler
(CPU activities, record_shapes=True: the settings of the traces stash-calibrate trace reads), the
two kinds alternating so that whatever else loads the machine meets both alike. The profiler's cost
per operator is the median of the R paired differences of the time per operator; the spread is the
10th and 90th percentiles of those differences. A profiled training step is slower by about this
much per CPU operator (docs/validation.md, "The profiler's own cost"; issue 29). Prints one line, and
with --json writes {ops, reps, plain_us_per_op, profiled_us_per_op, cost_us_per_op, p10_us, p90_us,
torch}. Exit 77 (skip) when torch cannot be imported.
"""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from studylib import help_version, replace_file  # noqa: E402


def main():
    help_version(__file__, __doc__, sys.argv[1:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ops", type=int, default=2000)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--json")
    a = ap.parse_args()
    if a.ops < 100 or a.reps < 3:
        sys.exit("profiler_cost.py: error: --ops at least 100 and --reps at least 3")
    try:
        import torch
        from torch.profiler import ProfilerActivity, profile
    except ImportError:
        print("profiler_cost.py: skipped: torch cannot be imported", file=sys.stderr)
        sys.exit(77)
    torch.set_num_threads(1)
    x, y = torch.ones(64), torch.ones(64)

    def loop():
        t = time.perf_counter()
        for _ in range(a.ops):
            torch.add(x, y)
        return (time.perf_counter() - t) / a.ops * 1e6

    loop()  # warm-up: the dispatcher's caches
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True):
        loop()
    plain, prof, diff = [], [], []
    for _ in range(a.reps):
        p = loop()
        with profile(activities=[ProfilerActivity.CPU], record_shapes=True):
            q = loop()
        plain.append(p)
        prof.append(q)
        diff.append(q - p)
    diff.sort()
    out = {"ops": a.ops, "reps": a.reps, "plain_us_per_op": statistics.median(plain),
           "profiled_us_per_op": statistics.median(prof), "cost_us_per_op": statistics.median(diff),
           "p10_us": diff[int(0.1 * (len(diff) - 1))], "p90_us": diff[int(0.9 * (len(diff) - 1))],
           "torch": torch.__version__}
    print("profiler cost per CPU operator: %.2f us (p10 %.2f, p90 %.2f; %.2f us an operator without, %.2f with; "
          "%d x %d operators, torch %s)" % (out["cost_us_per_op"], out["p10_us"], out["p90_us"],
                                            out["plain_us_per_op"], out["profiled_us_per_op"], a.reps, a.ops,
                                            out["torch"]))
    if a.json:
        replace_file(a.json, json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
