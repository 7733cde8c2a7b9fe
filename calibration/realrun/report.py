#!/usr/bin/python3
"""Measured against simulated step times of calibration/realrun/run.sh's configurations.

  report.py OUT NAME[:ROLE] ... [--max-ratio 3] [--refuse] [--max-other-cpu 0.05] [--max-spread 0.10]

For each configuration directory OUT/NAME (train.py's steps.csv and run.json, stash-sim's sim.json
and sim.args, the simulator's arguments on one line), and its repetitions OUT/NAME/repK (train.py's
files of the same job run again, run.sh --reps): the measured step time (the median over the
repetitions of each one's median over the measured steps of every rank; the mean, 10th and 90th
percentiles of all their steps beside it; the spread of the repetitions, (largest - smallest) /
median of their medians) and the simulated steady-state iteration, the error (simulated / measured
- 1) and the simulator's breakdown. With --refuse, a run the machine disturbed is not reported: when
other processes took more than --max-other-cpu of the machine's CPU time during a repetition, or the
repetitions spread by more than --max-spread, report.py says which and exits 3 without writing
summary.csv or measured.csv. Then
the handoff of each loader configuration with worker processes (OUT/handoff/bBATCHwWORKERS, train.py
--measure-handoff: the figure the simulator was given as --handoff-us) beside the single-process
run's time in next() in its training loop.
Writes OUT/summary.csv and OUT/measured.csv (args,measured_iteration_s,source: what
`stash-calibrate compare` reads). Exit status 1 if a simulated time is off the measured one by more
than a factor --max-ratio (a sanity bound, not an accuracy claim); 3 when --refuse refuses.
"""
import argparse
import csv
import glob
import json
import os
import statistics
import sys

from handoff import quantile  # same directory


def load_handoff(out, sim):
    """The handoff measured for a run's loader (handoff.json and its run.json), or None when the run
    has no loader processes or nothing was measured for them."""
    if sim["synthetic"] or sim["workers_per_gpu"] < 1:
        return None
    d = os.path.join(out, "handoff", "b%dw%d" % (sim["batch_per_gpu"], sim["workers_per_gpu"]))
    if not os.path.exists(os.path.join(d, "handoff.json")):
        return None
    with open(os.path.join(d, "handoff.json")) as f:
        h = json.load(f)
    with open(os.path.join(d, "run.json")) as f:
        h["run"] = json.load(f)
    h["dir"] = d
    return h


def load_rep(d):
    """One repetition's measured steps (every rank) and its run.json."""
    with open(os.path.join(d, "steps.csv"), newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["phase"] == "measured"]
    with open(os.path.join(d, "run.json")) as f:
        run = json.load(f)
    if not rows:
        sys.exit("report.py: error: %s: no measured step" % os.path.join(d, "steps.csv"))
    return rows, run


def load(out, name):
    d = os.path.join(out, name)
    reps = [d] + sorted(glob.glob(os.path.join(d, "rep[0-9]*")), key=lambda p: int(p.rsplit("rep", 1)[1]))
    loaded = [load_rep(r) for r in reps]
    rows, run = loaded[0]
    with open(os.path.join(d, "sim.json")) as f:
        sim = json.load(f)
    with open(os.path.join(d, "sim.args")) as f:
        args = f.read().strip()
    every = [float(r["seconds"]) for rr, _ in loaded for r in rr]
    medians = [statistics.median(float(r["seconds"]) for r in rr) for rr, _ in loaded]
    shares = [x.get("other_cpu_share") for _, x in loaded]
    wait = [float(r["data_wait_s"]) for r in rows]
    median = statistics.median(medians)
    return {"name": name, "dir": d, "run": run, "sim": sim, "args": args, "n": len(rows),
            "ranks": len({r["rank"] for r in rows}), "median": median, "reps": len(loaded),
            "rep_medians": medians, "spread": (max(medians) - min(medians)) / median,
            "rep_shares": shares, "mean": statistics.mean(every), "p10": quantile(every, 0.1),
            "p90": quantile(every, 0.9), "wait": statistics.median(wait), "handoff": load_handoff(out, sim),
            "sim_handoff_us": sim["options"].get("handoff_us", 0)}


def disturbed(r, max_other, max_spread):
    """Why run r's measurement is not this job's alone (a sentence), or None."""
    why = []
    for k, share in enumerate(r["rep_shares"]):
        if share is not None and share > max_other:
            why.append("other processes took %.0f%% of the machine's CPU time during repetition %d (bound %.0f%%)"
                       % (100 * share, k + 1, 100 * max_other))
    if r["reps"] > 1 and r["spread"] > max_spread:
        why.append("its %d repetitions spread by %.1f%% (%s ms; bound %.0f%%)"
                   % (r["reps"], 100 * r["spread"], ", ".join("%.1f" % (1e3 * m) for m in r["rep_medians"]),
                      100 * max_spread))
    return "; ".join(why) or None


def print_handoff(res):
    """The handoffs measured, once per loader configuration, and what each run was simulated with."""
    seen = {}
    for r in res:
        h = r["handoff"]
        if h is not None:
            seen.setdefault(h["dir"], (h, []))[1].append(r)
    if not seen:
        return
    print("handoff (calibration, one process: train.py --measure-handoff; stash-sim's --handoff-us): the training "
          "process's time in DataLoader.__next__ when the batch is ready")
    for h, runs in seen.values():
        print("  batch %d, %d loader process(es), %d tensors of %d bytes in all: median %.0f us (p10..p90 %.0f..%.0f, "
              "min %.0f), CPU %.0f us, over %d repetitions%s; freeing the previous batch afterwards %.0f us (not in it); "
              "simulated with %s" % (
                  h["batch"], h["workers"], h["tensors_per_batch"], h["batch_bytes"], h["handoff_us"], h["p10_us"],
                  h["p90_us"], h["min_us"], h["cpu_us"], h["reps"],
                  " (%d not ready left out)" % h["not_ready"] if h["not_ready"] else "", h["free_us"],
                  ", ".join("%s %.1f us" % (r["name"], r["sim_handoff_us"]) for r in runs)))
        share = h["run"].get("other_cpu_share")
        if share is not None and share > 0.05:
            print("  warning: other processes used %.0f%% of the machine's CPU time during this measurement"
                  % (100 * share))
    for r in res:
        if r["handoff"] is not None and r["ranks"] == 1:
            print("  cross-check: run %s's time in next() in its training loop, where the worker is ahead (median "
                  "over its measured steps, which also free the previous batch): %.0f us" % (r["name"], 1e6 * r["wait"]))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out")
    p.add_argument("configs", nargs="+", help="NAME or NAME:ROLE (ROLE is printed; default predicted)")
    p.add_argument("--max-ratio", type=float, default=3.0)
    p.add_argument("--refuse", action="store_true",
                   help="write nothing and exit 3 when the machine disturbed a run (the two bounds below)")
    p.add_argument("--max-other-cpu", type=float, default=0.05,
                   help="the largest share of the machine's CPU other processes may take during a repetition")
    p.add_argument("--max-spread", type=float, default=0.10,
                   help="the largest spread of a run's repetitions, (largest - smallest) / median")
    a = p.parse_args()
    if not (0 < a.max_other_cpu < 1 and 0 < a.max_spread < 1 and a.max_ratio > 1):
        sys.exit("report.py: error: --max-other-cpu and --max-spread in (0, 1), --max-ratio above 1")
    res = []
    for c in a.configs:
        name, _, role = c.partition(":")
        r = load(a.out, name)
        r["role"] = role or "predicted"
        r["error"] = r["sim"]["iteration_s"] / r["median"] - 1
        res.append(r)
    print("%-6s %-9s %-22s %9s %9s %15s %12s %9s %8s  %s" % ("run", "role", "configuration", "measured", "mean",
                                                              "p10..p90", "reps, spread", "simulated", "error",
                                                              "simulated breakdown (ms)"))
    for r in res:
        cfg = "%dp b%s %s" % (r["sim"]["gpus"], r["sim"]["batch_per_gpu"],
                              "synthetic" if r["sim"]["synthetic"] else "w%s" % r["sim"]["workers_per_gpu"])
        bd = r["sim"]["breakdown"]
        parts = "compute %.1f, prep %.1f, comm %.1f" % (1e3 * bd["compute_s"], 1e3 * (bd["prep_stall_s"] + bd["fetch_stall_s"]),
                                                       1e3 * (bd["interconnect_stall_s"] + bd["network_stall_s"]))
        print("%-6s %-9s %-22s %7.1fms %7.1fms %6.1f..%6.1fms %4d, %5.1f%% %7.1fms %+7.1f%%  %s" % (
            r["name"], r["role"], cfg, 1e3 * r["median"], 1e3 * r["mean"], 1e3 * r["p10"], 1e3 * r["p90"], r["reps"],
            100 * r["spread"], 1e3 * r["sim"]["iteration_s"], 100 * r["error"], parts))
    refused = []
    for r in res:
        why = disturbed(r, a.max_other_cpu, a.max_spread)
        if why:
            print("%s: run %s: %s: its step times are not this job's alone" % ("refused" if a.refuse else "warning",
                                                                            r["name"], why))
            refused.append(r["name"])
    print("measured: the median over the repetitions of each one's median over the measured steps of every rank "
          "(%d steps per rank and repetition; mean and p10..p90 over all the steps; spread: (largest - smallest) / "
          "median of the repetitions' medians); simulated: stash-sim's steady-state iteration; error = simulated / "
          "measured - 1; configuration: processes (p), batch per process (b), loader processes per rank (w)"
          % (res[0]["n"] // res[0]["ranks"]))
    if a.refuse and refused:
        print("report.py: refused: the machine disturbed run(s) %s (above); nothing written: run again on a quiet "
              "machine" % ", ".join(refused), file=sys.stderr)
        return 3
    print_handoff(res)
    with open(os.path.join(a.out, "summary.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["run", "role", "batch", "workers", "synthetic", "measured_median_s", "measured_mean_s",
                    "measured_p10_s", "measured_p90_s", "measured_data_wait_s", "steps", "simulated_s", "error",
                    "sim_compute_s", "sim_prep_s", "sim_comm_s", "other_cpu_share", "measured_handoff_us",
                    "sim_handoff_us", "repetitions", "repetition_spread"])
        for r in res:
            bd = r["sim"]["breakdown"]
            w.writerow([r["name"], r["role"], r["sim"]["batch_per_gpu"], r["sim"]["workers_per_gpu"],
                        int(r["sim"]["synthetic"]), "%.6f" % r["median"], "%.6f" % r["mean"], "%.6f" % r["p10"],
                        "%.6f" % r["p90"], "%.6f" % r["wait"], r["n"], "%.6f" % r["sim"]["iteration_s"],
                        "%.4f" % r["error"], "%.6f" % bd["compute_s"], "%.6f" % (bd["prep_stall_s"] + bd["fetch_stall_s"]),
                        "%.6f" % (bd["interconnect_stall_s"] + bd["network_stall_s"]),
                        "%.3f" % r["run"].get("other_cpu_share", float("nan")),
                        "%.1f" % r["handoff"]["handoff_us"] if r["handoff"] else "", "%.1f" % r["sim_handoff_us"],
                        r["reps"], "%.4f" % r["spread"]])
    with open(os.path.join(a.out, "measured.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["args", "measured_iteration_s", "source"])
        for r in res:
            env = r["run"]["environment"]
            w.writerow([r["args"], "%.6f" % r["median"],
                        "MEASURED: median over %d repetition(s) (spread %.1f%%) of the median of %d steps (%d ranks) of "
                        "/usr/bin/python3 calibration/realrun/train.py %s; %s, %d vCPUs, torch %s; %s"
                        % (r["reps"], 100 * r["spread"], r["n"], r["ranks"], " ".join(r["run"]["argv"]),
                           env["cpu_model"], env["vcpus"], env["torch"], os.path.join(r["dir"], "steps.csv"))])
    bad = [r for r in res if not (1 / a.max_ratio <= 1 + r["error"] <= a.max_ratio)]
    for r in bad:
        print("report.py: %s: simulated %.1f ms is off the measured %.1f ms by more than a factor %g"
              % (r["name"], 1e3 * r["sim"]["iteration_s"], 1e3 * r["median"], a.max_ratio), file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
