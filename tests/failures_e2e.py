#!/usr/bin/env python3
"""failures_e2e.py STASH_SIM: failures, checkpoints and restarts (issue 43) through the binary.

- the report's "failures" object is goodput.h's closed form on its own figures (the job's MTBF, the
  write, the interval, the restart), the expected cost is price x instances x the expected time, and
  Young's interval is sqrt(2 x write x MTBF);
- more instances fail more often (lower goodput), a faster target never lowers it, spot instances'
  reclaims add to the failures, --no-failures and --ideal count none (the expected time is the
  failure-free one);
- a language model's table has the failures line; the trace has one checkpoint write, as long as the
  report's write, and none without failures.
"""
import json
import math
import os
import subprocess
import sys
import tempfile

SIM = sys.argv[1]
RUN = ["platforms/p5.48xl.xml", "workloads/gpt2-124m.json", "--tp", "2", "--pp", "2", "--micro-batch", "1",
       "--global-batch", "32", "--tokens", "1e10"]
FAILED = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        FAILED.append(what)


def run(args):
    r = subprocess.run([SIM] + args, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if r.returncode != 0:
        sys.exit(f"{' '.join(args)}: exit {r.returncode}: {r.stderr}")
    return r.stdout


def report(extra, instances=2):
    return json.loads(run(RUN + ["--instances", str(instances), "--format", "json"] + extra))


def main():
    d = report([])
    f = d["failures"]
    m, w, r, t = f["job_mtbf_h"] * 3600, f["checkpoint_write_s"], f["restart_s"], f["checkpoint_interval_s"]
    check(f["on"] and f["checkpoint_interval_young"] and abs(t - math.sqrt(2 * w * m)) <= 1e-9 * t,
          f"Young's interval sqrt(2 x {w:.3g} s x {m:.4g} s): {t:.6g} s")
    work = d["time_to_train_s"]
    wall = work * (1 + w / t) / (1 - (r + (t + w) / 2) / m)
    check(abs(f["expected_time_to_train_s"] - wall) <= 1e-9 * wall and abs(f["goodput"] - work / wall) <= 1e-12,
          f"the closed form: {f['expected_time_to_train_s']:.6g} s against {wall:.6g} s")
    check(abs(f["expected_interruptions"] - wall / m) <= 1e-9 * wall / m, "interruptions = wall / MTBF")
    cost = d["price_usd_per_h"] * d["instances"] * wall / 3600
    check(abs(f["expected_cost_usd"] - cost) <= 1e-9 * cost, "expected cost = price x instances x expected time")
    check(abs(f["job_mtbf_h"] - f["instance_mtbf_h"] / 2) <= 1e-9 * f["job_mtbf_h"] and
          abs(f["instance_mtbf_h"] - 16384 * 54 * 24 / 419 / 8) < 1e-6, "the default MTBF: Llama 3's rate over 8 GPUs, / 2")
    more = report([], instances=4)["failures"]
    check(more["goodput"] < f["goodput"], f"4 instances fail more often than 2: {more['goodput']} < {f['goodput']}")
    fast = report(["--checkpoint-gbps", "1000"])["failures"]
    check(fast["goodput"] >= f["goodput"] and fast["checkpoint_write_s"] < w, "a faster target never lowers goodput")
    for off in (["--no-failures"], ["--ideal"]):
        n = report(off)
        check(not n["failures"]["on"] and n["failures"]["goodput"] == 1 and
              n["failures"]["expected_time_to_train_s"] == n["time_to_train_s"], f"{off[0]}: no failure counted")
    spot = report(["--purchase", "spot"])["failures"]
    check(abs(spot["spot_mtbf_h"] - 7300) < 1e-9 and
          abs(1 / spot["job_mtbf_h"] - 2 * (1 / f["instance_mtbf_h"] + 1 / 7300)) < 1e-12 and spot["goodput"] < f["goodput"],
          "--purchase spot: the reclaims (10% a month: 7300 h) add to the failures")
    every = report(["--checkpoint-every", "30"])["failures"]
    check(not every["checkpoint_interval_young"] and every["checkpoint_interval_s"] == 1800, "--checkpoint-every 30")
    table = run(RUN + ["--instances", "2"])
    check("  failures     goodput " in table, "the table's failures line")
    with tempfile.TemporaryDirectory() as tmp:
        for extra, want in (([], 1), (["--no-failures"], 0)):
            path = os.path.join(tmp, "t.json")
            run(RUN + ["--instances", "2", "--trace", path] + extra)
            ev = json.load(open(path))
            ev = ev["traceEvents"] if isinstance(ev, dict) else ev
            spans = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "checkpoint"]
            check(len(spans) == want, f"{extra or 'failures'}: {want} checkpoint write on the trace, got {len(spans)}")
            if spans and want:
                check(abs(spans[0]["dur"] - w * 1e6) <= 1e-3 + 1e-9 * w * 1e6,
                      f"the write on the trace lasts the report's {w:.6g} s: {spans[0]['dur']} us")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
