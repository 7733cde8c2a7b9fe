#!/usr/bin/env python3
"""profiler_cost.py: what PyTorch's profiler adds to each event it records on the CPU, measured here.

usage: /usr/bin/python3 calibration/realrun/profiler_cost.py [--ops N] [--reps R] [--stack S] [--json FILE]
       calibration/realrun/profiler_cost.py --help | --version

Times a loop of N small eager operators (torch.add of two 64-element tensors, the size where an
operator's time is its dispatch; each called through nested Python frames so that its recorded call
stack has S entries, default 8, the mean of the shared V100 trace's) R times without the profiler and R times under each of three
settings of torch.profiler (CPU activities): record_shapes=True; the same with_stack=True (each
operator called from Python also records the Python call stack); the same with profile_memory=True
(each allocation and free is an instant event "[memory]"). The kinds alternate, so that whatever else
loads the machine meets them alike. Per setting, the cost is the median of the R paired differences
of the time per operator, and the spread the 10th and 90th percentiles of those differences. The
events each setting records are counted in the profiler's list of one profiled loop. What stash-calibrate
trace removes per recorded event (its --profiler-*-us options; docs/calibration.md, "The profiler's
own cost") follows:
  op_us     = cost(shapes)                                        per operator event
  stack_us  = cost(stack) - cost(shapes)                          per operator event with a "Call stack"
  memory_us = (cost(memory) - cost(shapes)) / memory events per operator   per "[memory]" event
Prints one line per figure, and with --json writes them with the counts, the spreads and torch's
version. Exit 77 (skip) when torch cannot be imported.
"""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from studylib import help_version, replace_file  # noqa: E402

SETTINGS = {
    "shapes": {"record_shapes": True},
    "stack": {"record_shapes": True, "with_stack": True},
    "memory": {"record_shapes": True, "profile_memory": True},
}


def quantile(xs, q):
    xs = sorted(xs)
    return xs[int(q * (len(xs) - 1))]


def count_events(profile, activity, loop, kw):
    """The operator events, those with a call stack, and the [memory] events of one profiled loop (the
    profiler's own list: Debian's torch has no Kineto, and its exported trace keeps neither stacks nor
    memory events)."""
    with profile(activities=[activity], **kw) as p:
        loop()
    events = p.events()
    ops = [e for e in events if e.name == "aten::add"]
    stacked = [e for e in ops if e.stack]
    memory = [e for e in events if e.name == "[memory]"]
    depth = statistics.mean(len(e.stack) for e in stacked) if stacked else 0
    return len(ops), len(stacked), len(memory), depth


def main():
    help_version(__file__, __doc__, sys.argv[1:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ops", type=int, default=2000)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--stack", type=int, default=8)
    ap.add_argument("--json")
    a = ap.parse_args()
    if a.ops < 100 or a.reps < 3 or not 2 <= a.stack <= 50:
        sys.exit("profiler_cost.py: error: --ops at least 100, --reps at least 3, --stack from 2 to 50")
    try:
        import torch
        from torch.profiler import ProfilerActivity, profile
    except ImportError:
        print("profiler_cost.py: skipped: torch cannot be imported", file=sys.stderr)
        sys.exit(77)
    torch.set_num_threads(1)
    x, y = torch.ones(64), torch.ones(64)

    def call(d):  # torch.add at the bottom of d Python frames: a call stack of d + 1 entries
        if d > 1:
            call(d - 1)
        else:
            torch.add(x, y)

    def loop():
        t = time.perf_counter()
        for _ in range(a.ops):
            call(depth)
        return (time.perf_counter() - t) / a.ops * 1e6

    depth = 1
    loop()  # warm-up: the dispatcher's caches
    # The frames that give the recorded stacks S entries: those below the loop, and the loop's own.
    depth = max(1, a.stack - round(count_events(profile, ProfilerActivity.CPU, loop, SETTINGS["stack"])[3]) + 1)
    counts = {}
    for name, kw in SETTINGS.items():
        counts[name] = count_events(profile, ProfilerActivity.CPU, loop, kw)
    plain, diff = [], {name: [] for name in SETTINGS}
    for _ in range(a.reps):
        p = loop()
        plain.append(p)
        for name, kw in SETTINGS.items():
            with profile(activities=[ProfilerActivity.CPU], **kw):
                q = loop()
            diff[name].append(q - p)
    cost = {name: statistics.median(d) for name, d in diff.items()}
    ops, stacked, _, entries = counts["stack"]
    mem_ops, _, mem_events, _ = counts["memory"]
    if ops != a.ops or stacked != a.ops or mem_ops != a.ops or mem_events == 0:
        sys.exit("profiler_cost.py: error: the profiled loop recorded %d operators (%d with a call stack) and %d "
                 "[memory] events over %d operators: this torch's profiler does not record what the traces hold"
                 % (ops, stacked, mem_events, a.ops))
    per_op_mem = mem_events / a.ops
    out = {"ops": a.ops, "reps": a.reps, "frames": depth, "stack_entries": entries, "torch": torch.__version__,
           "plain_us_per_op": statistics.median(plain),
           "memory_events_per_op": per_op_mem,
           "op_us": cost["shapes"],
           "stack_us": cost["stack"] - cost["shapes"],
           "memory_us": (cost["memory"] - cost["shapes"]) / per_op_mem}
    for name in SETTINGS:
        out["%s_p10_us" % name] = quantile(diff[name], 0.1)
        out["%s_p90_us" % name] = quantile(diff[name], 0.9)
        out["%s_cost_us" % name] = cost[name]
    print("profiler cost per operator event (record_shapes): %.2f us (p10 %.2f, p90 %.2f; %.2f us an operator "
          "without the profiler; %d x %d operators, torch %s)"
          % (out["op_us"], out["shapes_p10_us"], out["shapes_p90_us"], out["plain_us_per_op"], a.reps, a.ops,
             out["torch"]))
    print("with_stack, more per operator event with a call stack of %.1f entries: %.2f us (the setting's own cost "
          "%.2f, p10 %.2f, p90 %.2f)" % (entries, out["stack_us"], cost["stack"], out["stack_p10_us"],
                                         out["stack_p90_us"]))
    print("profile_memory, per [memory] event: %.2f us (%.1f events an operator; the setting's own cost %.2f us an "
          "operator, p10 %.2f, p90 %.2f)" % (out["memory_us"], per_op_mem, cost["memory"], out["memory_p10_us"],
                                            out["memory_p90_us"]))
    if a.json:
        replace_file(a.json, json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
