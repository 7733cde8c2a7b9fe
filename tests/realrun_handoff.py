#!/usr/bin/env python3
"""The real run's Python without torch: calibration/realrun/handoff.py on synthetic repetitions,
report.py on a made-up output folder, and every script of calibration/realrun compiled.

usage: tests/realrun_handoff.py
realrun.small runs the scripts where /usr/bin/python3 has torch and skips elsewhere; this test
checks what can be checked everywhere: the handoff's summary (the figure run.sh passes to stash-sim
as --handoff-us) on repetitions whose median, quantiles and exclusions are known, its CSV round
trip, report.py's handoff lines and columns, and that each script compiles. Prints one line per
failure; exit 1 if any.
"""
import csv
import glob
import json
import os
import py_compile
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REALRUN = os.path.join(REPO, "calibration", "realrun")
sys.path.insert(0, REALRUN)
import handoff  # noqa: E402

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def near(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))


def rep(k, phase, us, cpu_us=None, ready=True, free_us=50):
    return {"rep": k, "phase": phase, "seconds": us * 1e-6, "cpu_s": (cpu_us if cpu_us is not None else us / 2) * 1e-6,
            "ready": ready, "free_s": free_us * 1e-6}


def test_summary():
    # Warm-up repetitions and a measured one whose batch was not ready are left out; the rest are
    # 1000, 1100, ..., 1900 us (in a shuffled order) and one slow 9000 us repetition.
    walls = [1500, 1000, 9000, 1900, 1200, 1100, 1700, 1300, 1800, 1600, 1400]
    rows = [rep(0, "warmup", 50000), rep(1, "warmup", 40000)]
    rows += [rep(k + 2, "measured", us) for k, us in enumerate(walls)]
    rows.append(rep(99, "measured", 100, ready=False))
    s = handoff.summarize(rows)
    check(s["reps"] == 11 and s["not_ready"] == 1, "reps %d, not_ready %d: expected 11 and 1" % (s["reps"], s["not_ready"]))
    check(near(s["handoff_us"], 1500), "median %.6f us, expected 1500 (warm-up and not-ready left out)" % s["handoff_us"])
    check(near(s["min_us"], 1000), "min %.6f us, expected 1000" % s["min_us"])
    # sorted: 1000 1100 ... 1900 9000; p10 at index 1.0 -> 1100, p90 at index 9.0 -> 1900
    check(near(s["p10_us"], 1100) and near(s["p90_us"], 1900), "p10 %.6f, p90 %.6f: expected 1100, 1900"
          % (s["p10_us"], s["p90_us"]))
    check(near(s["cpu_us"], 750), "CPU median %.6f us, expected 750" % s["cpu_us"])
    check(near(s["free_us"], 50), "free median %.6f us, expected 50" % s["free_us"])
    # Unknown readiness (None: no queue to look at) counts as ready.
    s = handoff.summarize([rep(0, "measured", 300, ready=None), rep(1, "measured", 500, ready=None)])
    check(s["reps"] == 2 and near(s["handoff_us"], 400), "readiness unknown: %s" % s)
    try:
        handoff.summarize([rep(0, "warmup", 100), rep(1, "measured", 100, ready=False)])
        check(False, "no usable repetition: expected ValueError")
    except ValueError as e:
        check("--handoff-wait-ms" in str(e), "error message without the option to change: %s" % e)


def test_quantile():
    check(near(handoff.quantile([3, 1, 2], 0.5), 2), "quantile of [3, 1, 2] at 0.5")
    check(near(handoff.quantile([1, 2], 0.25), 1.25), "quantile of [1, 2] at 0.25 (interpolated)")
    check(near(handoff.quantile([7], 0.9), 7), "quantile of one value")


def test_csv_round_trip():
    rows = [rep(0, "warmup", 2000.5, ready=True), rep(1, "measured", 1234.567, cpu_us=1000.25, ready=False),
            rep(2, "measured", 1500, ready=None, free_us=12.5)]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "handoff.csv")
        handoff.write_csv(path, rows)
        with open(path) as f:
            header = f.readline().strip()
        back = handoff.read_csv(path)
    check(header == ",".join(handoff.FIELDS), "header %r" % header)
    check([r["ready"] for r in back] == [True, False, None], "ready read back as %s" % [r["ready"] for r in back])
    check([r["rep"] for r in back] == [0, 1, 2] and [r["phase"] for r in back] == ["warmup", "measured", "measured"],
          "rep and phase read back")
    check(all(near(a[k], b[k]) for a, b in zip(rows, back) for k in ("seconds", "cpu_s", "free_s")),
          "times read back: %s" % back)
    check(near(handoff.summarize(back)["handoff_us"], 1500), "summary of the CSV read back")


def fake_steps(d, ranks, batch, wait_s, secs=(0.20, 0.21, 0.22), share=0.001):
    """train.py's steps.csv and run.json in d: each rank's measured steps take secs."""
    os.makedirs(d)
    with open(os.path.join(d, "steps.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["rank", "step", "phase", "seconds", "data_wait_s"])
        for r in range(ranks):
            w.writerow([r, 0, "warmup", 1.0, 0.5])
            for k, sec in enumerate(secs):
                w.writerow([r, k + 1, "measured", sec, wait_s])
    with open(os.path.join(d, "run.json"), "w") as f:
        json.dump({"argv": ["--batch", str(batch)], "other_cpu_share": share,
                   "environment": {"cpu_model": "test CPU", "vcpus": 2, "torch": "0"}}, f)


def fake_run(out, name, ranks, batch, workers, wait_s, sim_handoff_us):
    """OUT/NAME as run.sh leaves it: train.py's steps.csv and run.json, stash-sim's sim.json and sim.args."""
    d = os.path.join(out, name)
    fake_steps(d, ranks, batch, wait_s)
    with open(os.path.join(d, "sim.json"), "w") as f:
        json.dump({"iteration_s": 0.2, "gpus": ranks, "batch_per_gpu": batch, "workers_per_gpu": workers,
                   "synthetic": False, "options": {"handoff_us": sim_handoff_us},
                   "breakdown": {"compute_s": 0.19, "prep_stall_s": 0.01, "fetch_stall_s": 0, "interconnect_stall_s": 0,
                                 "network_stall_s": 0}}, f)
    with open(os.path.join(d, "sim.args"), "w") as f:
        f.write("machine.xml workload.json --batch %d --workers %d\n" % (batch, workers))


def test_report():
    """report.py prints the handoff measured for the runs with loader processes, what they were
    simulated with, and the single-process run's wait in its loop; summary.csv gets both figures."""
    with tempfile.TemporaryDirectory() as out:
        fake_run(out, "single", 1, 32, 1, 0.0016, 1500.0)
        fake_run(out, "B", 2, 64, 0, 0.030, 0.0)
        hd = os.path.join(out, "handoff", "b32w1")
        os.makedirs(hd)
        rows = [rep(k, "measured", us, ready=True, free_us=120) for k, us in enumerate((1400, 1500, 1600))]
        summary = dict(handoff.summarize(rows), batch=32, workers=1, tensors_per_batch=2, batch_bytes=1573120)
        with open(os.path.join(hd, "handoff.json"), "w") as f:
            json.dump(summary, f)
        with open(os.path.join(hd, "run.json"), "w") as f:
            json.dump({"other_cpu_share": 0.2}, f)
        p = subprocess.run([sys.executable, os.path.join(REALRUN, "report.py"), out, "single:check", "B"],
                           capture_output=True, text=True)
        check(p.returncode == 0, "report.py exit %d: %s" % (p.returncode, p.stderr))
        lines = p.stdout.splitlines()
        line = [ln for ln in lines if ln.startswith("  batch 32, 1 loader")]
        check(len(line) == 1 and "median 1500 us" in line[0] and "simulated with single 1500.0 us" in line[0]
              and "freeing the previous batch afterwards 120 us" in line[0], "handoff line: %s" % line)
        check(not any(ln.startswith("  batch 64") for ln in lines), "a handoff line for B, which has no loader process")
        check(any("other processes used 20%" in ln for ln in lines), "no warning for the loaded handoff measurement")
        check(any("cross-check: run single" in ln and ": 1600 us" in ln for ln in lines),
              "cross-check line: %s" % [ln for ln in lines if "cross-check" in ln])
        with open(os.path.join(out, "summary.csv"), newline="") as f:
            got = {r["run"]: (r["measured_handoff_us"], r["sim_handoff_us"]) for r in csv.DictReader(f)}
        check(got == {"single": ("1500.0", "1500.0"), "B": ("", "0.0")}, "summary.csv handoff columns: %s" % got)


def test_repetitions():
    """run.sh --reps: the measured time is the median of the repetitions' medians (OUT/NAME, then
    OUT/NAME/repK); --refuse writes nothing and exits 3 when other processes took more than 5% of the
    CPU during a repetition or the repetitions spread by more than 10%; without it, a warning."""
    def report(out, *extra):
        return subprocess.run([sys.executable, os.path.join(REALRUN, "report.py"), out, "B"] + list(extra),
                              capture_output=True, text=True)

    with tempfile.TemporaryDirectory() as out:
        fake_run(out, "B", 2, 64, 0, 0.030, 0.0)  # medians 0.21
        fake_steps(os.path.join(out, "B", "rep2"), 2, 64, 0.030, secs=(0.22, 0.22, 0.23))  # 0.22
        fake_steps(os.path.join(out, "B", "rep10"), 2, 64, 0.030, secs=(0.20, 0.20, 0.20))  # 0.20
        p = report(out, "--refuse")
        check(p.returncode == 0, "quiet repetitions: exit %d: %s" % (p.returncode, p.stderr))
        with open(os.path.join(out, "summary.csv"), newline="") as f:
            row = next(csv.DictReader(f))
        check(row["measured_median_s"] == "0.210000" and row["repetitions"] == "3"
              and row["repetition_spread"] == "0.0952", "median of 0.21, 0.22, 0.20 and spread 0.02 / 0.21: %s" % row)
        with open(os.path.join(out, "measured.csv"), newline="") as f:
            src = next(csv.DictReader(f))["source"]
        check("median over 3 repetition(s) (spread 9.5%)" in src, "measured.csv source: %s" % src)
    with tempfile.TemporaryDirectory() as out:
        fake_run(out, "B", 2, 64, 0, 0.030, 0.0)
        fake_steps(os.path.join(out, "B", "rep2"), 2, 64, 0.030, share=0.3)  # disturbed
        p = report(out, "--refuse")
        check(p.returncode == 3 and "refused" in p.stderr and not os.path.exists(os.path.join(out, "measured.csv"))
              and "other processes took 30% of the machine's CPU time during repetition 2" in p.stdout,
              "a disturbed repetition: exit %d, %s / %s" % (p.returncode, p.stdout, p.stderr))
        p = report(out)
        check(p.returncode == 0 and "warning: run B: other processes took 30%" in p.stdout,
              "without --refuse, a warning: %s" % p.stdout)
    with tempfile.TemporaryDirectory() as out:
        fake_run(out, "B", 2, 64, 0, 0.030, 0.0)
        fake_steps(os.path.join(out, "B", "rep2"), 2, 64, 0.030, secs=(0.30, 0.30, 0.30))  # 43% slower
        p = report(out, "--refuse")
        check(p.returncode == 3 and "its 2 repetitions spread by" in p.stdout,
              "repetitions spread: exit %d, %s" % (p.returncode, p.stdout))


def test_compile():
    scripts = sorted(glob.glob(os.path.join(REALRUN, "*.py")))
    check(len(scripts) >= 5, "only %d scripts in calibration/realrun" % len(scripts))
    with tempfile.TemporaryDirectory() as d:
        for path in scripts:
            try:
                py_compile.compile(path, cfile=os.path.join(d, os.path.basename(path) + "c"), doraise=True)
            except py_compile.PyCompileError as e:
                check(False, "%s does not compile: %s" % (os.path.relpath(path, REPO), e.msg))


def main():
    for t in (test_summary, test_quantile, test_csv_round_trip, test_report, test_repetitions, test_compile):
        t()
    print("realrun_handoff: %d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
