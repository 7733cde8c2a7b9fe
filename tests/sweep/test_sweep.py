#!/usr/bin/env python3
"""Tests of scripts/sweep and scripts/plot: test_sweep.py STASH_SIM_BINARY CASE, run from the
repository root (ctest does). Each case prints what it checked and exits non-zero on a failure."""

import csv
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

SWEEP = os.path.join("scripts", "sweep")
PLOT = os.path.join("scripts", "plot")
FAST = ["--", "--iterations", "2", "--warmup", "1"]
# 3 platforms x 2 instance counts x 2 GPU counts x 3 workloads = 36 runs; good and bad rows:
# a missing platform, an unknown workload, 4 GPUs on the 1-GPU p3.2xlarge.
LISTS = ["--platforms", "p3.2xl,tests/platforms/star4.xml,nope", "--instances", "1,2",
         "--gpus", "1,4", "--workloads", "resnet50,tests/workloads/tiny.json,nosuch"]
PARTS = ["compute_s", "prep_stall_s", "fetch_stall_s", "interconnect_stall_s", "network_stall_s", "host_stall_s"]

failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print(f"FAIL: {what}")


def run(argv):
    return subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True)


def sweep(binary, out, *extra, lists=LISTS, fast=FAST):
    r = run([SWEEP, "-o", out, "--bin", binary, *extra, *lists, *fast])
    check(r.returncode == 0, f"sweep exit 0, got {r.returncode}: {r.stderr.strip()}")
    return r


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        return reader.fieldnames, list(reader)


def expected_error(row):
    """The start of the error a row must have, or None for a good row."""
    if row["platform_arg"] == "nope":
        return "platforms/nope.xml: error: "
    if row["workload_arg"] == "nosuch":
        return "workloads/nosuch.json: error: "
    if row["platform_arg"] == "p3.2xl" and row["gpus_arg"] == "4":
        return "platforms/p3.2xl.xml: error: --gpus expects a whole number from 1 to 1 for p3.2xlarge, got 4"
    return None


def case_csv(binary, tmp):
    out = os.path.join(tmp, "a.csv")
    r = sweep(binary, out)
    check(r.stderr.strip().splitlines()[-1:] == [f"sweep: 36 runs, 24 failed, CSV in {out}"],
          f"summary line, got {r.stderr.strip()!r}")
    header, rows = read_csv(out)
    check(header[:10] == ["run", "platform_arg", "instances_arg", "gpus_arg", "workload_arg",
                          "batch_arg", "variant", "status", "exit_code", "error"],
          f"input columns first, got {header[:10]}")
    for col in ["iteration_s", "throughput_samples_per_s", "cost_usd_per_epoch",
                "breakdown.compute_s", "breakdown.network_stall_s", "breakdown_pct.compute_pct"]:
        check(col in header, f"column {col}")
    check(len(header) == len(set(header)), "no duplicate column")
    check(len(rows) == 36, f"36 rows, got {len(rows)}")
    check([r["run"] for r in rows] == [str(i) for i in range(1, 37)], "rows in run order")
    # The combination order: platform, instances, gpus, workload, the last varying fastest.
    check([(r["platform_arg"], r["instances_arg"], r["gpus_arg"], r["workload_arg"])
           for r in rows[:4]] == [("p3.2xl", "1", "1", "resnet50"),
                                  ("p3.2xl", "1", "1", "tests/workloads/tiny.json"),
                                  ("p3.2xl", "1", "1", "nosuch"), ("p3.2xl", "1", "4", "resnet50")],
          "combination order")
    ok = 0
    for row in rows:
        want = expected_error(row)
        tag = f"run {row['run']}"
        if want:
            check(row["status"] == "error" and row["exit_code"] == "1",
                  f"{tag}: status error, exit 1, got {row['status']} {row['exit_code']}")
            check(row["error"].startswith(want), f"{tag}: error {row['error']!r} starts {want!r}")
            check(row["iteration_s"] == "", f"{tag}: an error row has no result")
            continue
        ok += 1
        check(row["status"] == "ok" and row["exit_code"] == "0" and row["error"] == "",
              f"{tag}: status ok, got {row['status']} {row['exit_code']} {row['error']!r}")
        for col in ["iteration_s", "throughput_samples_per_s", "cost_usd_per_epoch",
                    "breakdown.compute_s"]:
            check(float(row[col]) > 0, f"{tag}: {col} > 0, got {row[col]!r}")
        total = sum(float(row["breakdown." + p]) for p in PARTS)
        check(math.isclose(total, float(row["iteration_s"]), rel_tol=1e-9),
              f"{tag}: breakdown parts sum to iteration_s")
        check(row["instances"] == row["instances_arg"], f"{tag}: instances as asked")
        gpus = int(row["gpus_arg"]) * int(row["instances_arg"])
        check(row["gpus"] == str(gpus), f"{tag}: {gpus} GPUs in all, got {row['gpus']}")
        check(row["synthetic"] == "false", f"{tag}: JSON false written as false")
        check(len(row["bucket_algorithms"].split()) == int(row["buckets"]),
              f"{tag}: bucket_algorithms, one name per bucket, joined with spaces")
    check(ok == 12, f"12 good rows, got {ok}")
    # Numbers are written as the JSON report writes them, digit for digit.
    good = next(r for r in rows if r["platform_arg"] == "tests/platforms/star4.xml"
                and r["instances_arg"] == "2" and r["gpus_arg"] == "4"
                and r["workload_arg"] == "tests/workloads/tiny.json")
    text = run([binary, "tests/platforms/star4.xml", "tests/workloads/tiny.json", "--instances",
                "2", "--gpus", "4", "--iterations", "2", "--warmup", "1", "--format", "json"]).stdout
    for key in ("iteration_s", "throughput_samples_per_s", "cost_usd_per_epoch"):
        start = text.index(f'"{key}": ') + len(key) + 4
        check(text[start:text.index(",", start)] == good[key],
              f"{key} as the JSON report wrote it, got {good[key]}")


def case_deterministic(binary, tmp):
    a, b = os.path.join(tmp, "a.csv"), os.path.join(tmp, "b.csv")
    sweep(binary, a)
    sweep(binary, b, "-j", "1")
    with open(a, "rb") as fa, open(b, "rb") as fb:
        check(fa.read() == fb.read(), "the same sweep twice (-j default, -j 1): identical CSV")


def case_bad_args(binary, tmp):
    out = os.path.join(tmp, "x.csv")
    cases = [
        ("unknown option", [SWEEP, "-o", out, "--bogus", *LISTS], "sweep: error: unknown option '--bogus'"),
        ("missing -o", [SWEEP, "--bin", binary, *LISTS], "sweep: error: missing -o"),
        ("no binary", [SWEEP, "-o", out, "--bin", os.path.join(tmp, "none"), *LISTS],
         "sweep: error: no stash-sim binary at"),
        ("bad list", [SWEEP, "-o", out, "--bin", binary, *LISTS, "--batches", "32,x"],
         "sweep: error: --batches: --batch expects a whole number from 1 to 1e7, got 'x'"),
        ("value out of the registry's range", [SWEEP, "-o", out, "--bin", binary, *LISTS, "--set", "nic-gbps=10,0"],
         "sweep: error: --set nic-gbps: --nic-gbps expects a number from 8e-6 to 800000, got '0'"),
        ("unknown option to sweep", [SWEEP, "-o", out, "--bin", binary, *LISTS, "--set", "colour=red"],
         "sweep: error: 'colour' is not an option of stash-sim training runs"),
        ("unknown option in a variant", [SWEEP, "-o", out, "--bin", binary, *LISTS, "--variant", "--fast"],
         "sweep: error: --variant '--fast': '--fast' is not an option of stash-sim training runs"),
        ("unknown option after --", [SWEEP, "-o", out, "--bin", binary, *LISTS, "--", "-q"],
         "sweep: error: after '--': '-q' is not an option of stash-sim training runs"),
        ("no platforms", [SWEEP, "-o", out, "--bin", binary, "--workloads", "resnet50"],
         "sweep: error: --platforms and --workloads are required"),
        ("option without value", [SWEEP, "--bin", binary, *LISTS, "-o"],
         "sweep: error: option '-o' needs a value"),
        ("run index out of range", [SWEEP, "--bin", binary, *LISTS, "--run-index", "99",
                                    "--results-dir", tmp], "sweep: error: --run-index 99"),
        ("plot without OUTDIR", [PLOT, out], "plot: error: expected SWEEP.csv OUTDIR"),
    ]
    for what, argv, want in cases:
        r = run(argv)
        lines = r.stderr.splitlines()
        check(r.returncode == 2, f"{what}: exit 2, got {r.returncode}")
        check(len(lines) == 1 and lines[0].startswith(want),
              f"{what}: one line starting {want!r}, got {r.stderr!r}")
        check(r.stdout == "", f"{what}: nothing on stdout")
    check(not os.path.exists(out), "no CSV after a usage error")
    r = run([SWEEP, "--help"])
    check(r.returncode == 0 and r.stdout.startswith("usage: scripts/sweep"), "--help")


def case_set(binary, tmp):
    """--set NAME=LIST sweeps any option of the registry: a column NAME_arg, the run's own echo of
    the option (options.NAME) agreeing with it."""
    out = os.path.join(tmp, "set.csv")
    r = run([SWEEP, "-o", out, "--bin", binary, "--platforms", "tests/platforms/star4.xml", "--workloads",
             "tests/workloads/tiny.json", "--instances", "2", "--set", "allreduce=ring,tree",
             "--set", "nic-gbps=10,100", *FAST])
    check(r.returncode == 0, f"--set sweep: exit 0, got {r.returncode}: {r.stderr}")
    header, rows = read_csv(out)
    check(len(rows) == 4, f"--set: 2 x 2 runs, got {len(rows)}")
    check(header.index("allreduce_arg") < header.index("nic_gbps_arg") < header.index("variant"),
          "--set columns after the batch, before the variant, in order")
    for row in rows:
        check(row["status"] == "ok" and row["options.allreduce"] == row["allreduce_arg"]
              and float(row["options.nic_gbps"]) == float(row["nic_gbps_arg"]), f"--set: run {row['run']} echoes it")
    check([(r["allreduce_arg"], r["nic_gbps_arg"]) for r in rows] ==
          [("ring", "10"), ("ring", "100"), ("tree", "10"), ("tree", "100")], "--set: combination order")


def case_strict(binary, tmp):
    out = os.path.join(tmp, "s.csv")
    r = run([SWEEP, "-o", out, "--bin", binary, "--strict", *LISTS, *FAST])
    check(r.returncode == 1, f"--strict with failed runs: exit 1, got {r.returncode}")
    check(os.path.exists(out) and len(read_csv(out)[1]) == 36, "--strict still writes the CSV")
    good = ["--platforms", "tests/platforms/star4.xml", "--workloads", "tests/workloads/tiny.json"]
    r = run([SWEEP, "-o", out, "--bin", binary, "--strict", *good, *FAST])
    check(r.returncode == 0, f"--strict, no failed run: exit 0, got {r.returncode}")


def case_index_merge(binary, tmp):
    """--list, --run-index and --merge (a Slurm job array's steps) give the CSV a sweep gives."""
    lists = ["--platforms", "tests/platforms/star4.xml,nope", "--instances", "1,2",
             "--workloads", "tests/workloads/tiny.json", "--variant", "--allreduce ring",
             "--variant", "--synthetic"]
    direct = os.path.join(tmp, "direct.csv")
    sweep(binary, direct, lists=lists)
    r = run([SWEEP, "--list", "--bin", binary, *lists, *FAST])
    lines = r.stdout.splitlines()
    check(r.returncode == 0 and len(lines) == 8, f"--list: 8 lines, got {len(lines)}")
    check(lines[:1] == [f"1\t{binary} tests/platforms/star4.xml tests/workloads/tiny.json "
                        "--instances 1 --allreduce ring --iterations 2 --warmup 1 --format json"],
          f"--list line 1, got {lines[:1]}")
    results = os.path.join(tmp, "results")
    for i in range(len(lines), 0, -1):  # any order
        r = run([SWEEP, "--run-index", str(i), "--results-dir", results, "--bin", binary,
                 *lists, *FAST])
        check(r.returncode == 0, f"--run-index {i}: exit 0, got {r.returncode} {r.stderr!r}")
    merged = os.path.join(tmp, "merged.csv")
    r = run([SWEEP, "--merge", "--results-dir", results, "-o", merged, "--bin", binary,
             *lists, *FAST])
    check(r.returncode == 0, f"--merge: exit 0, got {r.returncode} {r.stderr!r}")
    with open(direct, "rb") as fa, open(merged, "rb") as fb:
        check(fa.read() == fb.read(), "--run-index for each run then --merge: the sweep's CSV")


def case_slurm(binary, tmp):
    """scripts/sweep-slurm.sh, with a stand-in sbatch that runs the jobs here, gives the CSV a
    sweep gives; the array packs --per-task combinations per task."""
    lists = ["--platforms", "tests/platforms/star4.xml,nope", "--instances", "1,2",
             "--workloads", "tests/workloads/tiny.json", "--variant", "--synthetic",
             "--variant", ""]
    direct = os.path.join(tmp, "direct.csv")
    sweep(binary, direct, lists=lists)
    slurm_csv = os.path.join(tmp, "slurm.csv")
    env = dict(os.environ, PATH=os.path.abspath("tests/sweep/fake-slurm") + os.pathsep
               + os.environ.get("PATH", ""))
    r = subprocess.run(["scripts/sweep-slurm.sh", "-o", slurm_csv, "--results-dir",
                        os.path.join(tmp, "results"), "--per-task", "3", "--bin", binary,
                        *lists, *FAST], env=env, capture_output=True, text=True)
    check(r.returncode == 0, f"sweep-slurm.sh exit 0, got {r.returncode}: {r.stderr.strip()}")
    check("8 runs in 3 array tasks" in r.stderr, f"8 runs in 3 tasks, got {r.stderr.strip()!r}")
    with open(direct, "rb") as fa:
        want = fa.read()
    got = b""
    if os.path.exists(slurm_csv):
        with open(slurm_csv, "rb") as fb:
            got = fb.read()
    check(want == got, "the Slurm array and merge: the sweep's CSV")
    r = run(["scripts/sweep-slurm.sh", "-o", slurm_csv, *lists])
    check(r.returncode == 2 and r.stderr.startswith("sweep-slurm.sh: error: missing --results-dir"),
          f"sweep-slurm.sh usage error: exit 2, got {r.returncode} {r.stderr!r}")


def case_plot(binary, tmp):
    out = os.path.join(tmp, "p.csv")
    sweep(binary, out)
    files = [f"{name}.{ext}" for name in ("breakdown", "throughput_cost", "scaling")
             for ext in ("dat", "gp", "png", "svg")]
    svgs = []
    for outdir in (os.path.join(tmp, "plots1"), os.path.join(tmp, "plots2")):
        r = run([PLOT, "--bin", binary, out, outdir])
        check(r.returncode == 0, f"plot exit 0, got {r.returncode}: {r.stderr.strip()}")
        check(sorted(r.stdout.splitlines()) == sorted(os.path.join(outdir, f) for f in files),
              f"plot lists the files it wrote, got {r.stdout!r}")
        for f in files:
            path = os.path.join(outdir, f)
            check(os.path.isfile(path) and os.path.getsize(path) > 0, f"{f} written, non-empty")
        with open(os.path.join(outdir, "breakdown.png"), "rb") as f:
            check(f.read(8) == b"\x89PNG\r\n\x1a\n", "breakdown.png is a PNG")
        with open(os.path.join(outdir, "scaling.svg"), encoding="utf-8") as f:
            text = f.read()
            check(text.startswith("<?xml") and "<svg" in text, "scaling.svg is an SVG")
        svgs.append(text)
        with open(os.path.join(outdir, "breakdown.dat"), encoding="utf-8") as f:
            dat = f.read()
            check("1 x test-star4" in dat and "2 x p3.2xlarge" in dat, "bars per instance configuration")
    check(svgs[0] == svgs[1], "the same plot twice: identical SVG")
    # A figure redraws from the files left in OUTDIR.
    outdir = os.path.join(tmp, "plots1")
    os.remove(os.path.join(outdir, "scaling.png"))
    r = subprocess.run(["gnuplot", "scaling.gp"], cwd=outdir, capture_output=True, text=True)
    check(r.returncode == 0 and os.path.getsize(os.path.join(outdir, "scaling.png")) > 0,
          "gnuplot scaling.gp in OUTDIR redraws the figure")
    # One model, one platform, one run: still three figures.
    one = os.path.join(tmp, "one.csv")
    sweep(binary, one, lists=["--platforms", "tests/platforms/star4.xml", "--workloads",
                              "tests/workloads/tiny.json"])
    r = run([PLOT, "--bin", binary, one, os.path.join(tmp, "plots3")])
    check(r.returncode == 0 and len(r.stdout.splitlines()) == 12, "one run: 12 files")
    # Only error rows: one error line, exit 1.
    bad = os.path.join(tmp, "bad.csv")
    sweep(binary, bad, lists=["--platforms", "nope", "--workloads", "resnet50"])
    r = run([PLOT, f"--bin={binary}", bad, os.path.join(tmp, "plots4")])
    check(r.returncode == 1 and r.stderr.startswith("plot: error: ") and
          len(r.stderr.splitlines()) == 1, f"no ok row: exit 1, one line, got {r.stderr!r}")
    # The parts drawn are the binary's categories (stash-sim list categories): their keys the
    # columns read, their labels the legend; all but the host stall, in the report's order.
    cats = json.loads(run([binary, "list", "categories", "--format", "json"]).stdout)
    with open(os.path.join(tmp, "plots1", "breakdown.dat"), encoding="utf-8") as f:
        check("\n# configuration\tcompute_pct\tprep_pct\tfetch_pct\tinterconnect_pct\tnetwork_pct\tbubble_pct\titeration_ms\n"
              in f.read(), "breakdown.dat: a column per part drawn")
    with open(os.path.join(tmp, "plots1", "breakdown.gp"), encoding="utf-8") as f:
        gp = f.read()
    titles = [c["label"] for c in cats if c["name"] != "host_stall"]
    check(len(titles) == 6 and all(f"title '{t}'" in gp for t in titles), f"the legend: the labels {titles}")
    # A binary that lacks a category drawn, or none: one error line, exit 2, no figure.
    fake = os.path.join(tmp, "fake-stash-sim")
    with open(fake, "w", encoding="utf-8") as f:
        f.write("#!/bin/sh\necho '%s'\n" % json.dumps([c for c in cats if c["name"] != "fetch_stall"]))
    os.chmod(fake, 0o755)
    for what, argv, want in (
            ("no fetch_stall", [PLOT, "--bin", fake, out, os.path.join(tmp, "plots5")],
             f"plot: error: '{fake}' lists no category 'fetch_stall' (it lists compute, prep_stall, "),
            ("no binary", [PLOT, "--bin", os.path.join(tmp, "none"), out, os.path.join(tmp, "plots5")],
             f"plot: error: no stash-sim binary at '{os.path.join(tmp, 'none')}'"),
            ("--bin without a file", [PLOT, out, os.path.join(tmp, "plots5"), "--bin"],
             "plot: error: --bin needs a file")):
        r = run(argv)
        check(r.returncode == 2 and r.stderr.startswith(want) and len(r.stderr.splitlines()) == 1 and not r.stdout,
              f"plot, {what}: exit 2, one line {want!r}, got {r.returncode} {r.stderr!r}")
    check(not os.path.exists(os.path.join(tmp, "plots5")), "plot: no figure without the categories")


def case_stash(binary, tmp):
    """--stash rows: the differential columns, parts adding up to RUN2, the single-instance stand-in
    of a 2-instance job; bad rows still errors; the plot draws the differential breakdown."""
    out = os.path.join(tmp, "s.csv")
    sweep(binary, out, "--stash", lists=["--platforms", "p3.8xl,nope", "--instances", "1,2", "--workloads",
                                         "tests/workloads/tiny.json,nosuch"])
    _, rows = read_csv(out)
    check(len(rows) == 8, f"8 rows, got {len(rows)}")
    good = [r for r in rows if r["status"] == "ok"]
    check(len(good) == 2, f"2 good rows, got {len(good)}")
    for r in good:
        parts = sum(float(r[f"stash.{p}"]) for p in ("compute_s", "interconnect_stall_s", "network_stall_s",
                                                      "prep_stall_s", "fetch_stall_s"))
        run2 = float(r["stash.run2_s"])
        check(math.isclose(parts, run2, rel_tol=1e-9), f"run {r['run']}: parts {parts} sum to RUN2 {run2}")
        check(float(r["stash.run2_s"]) == float(r["iteration_s"]), f"run {r['run']}: the report is RUN2's")
        single = r.get("stash.single_instance", "")
        check(single == ("p3.16xlarge" if r["instances"] == "2" else ""),
              f"run {r['run']}: single-instance stand-in {single!r}")
    for r in rows:
        if r["status"] != "ok":
            check(r["error"].startswith(("platforms/nope.xml: error: ", "workloads/nosuch.json: error: ")),
                  f"run {r['run']}: error names the file: {r['error']!r}")
    r = run([PLOT, "--bin", binary, out, os.path.join(tmp, "plots")])
    check(r.returncode == 0, f"plot exit 0, got {r.returncode}: {r.stderr.strip()}")
    with open(os.path.join(tmp, "plots", "breakdown.gp"), encoding="utf-8") as f:
        check("differential" in f.read(), "the breakdown plot draws the differential (Stash) columns")


CASES = {"csv": case_csv, "deterministic": case_deterministic, "bad_args": case_bad_args,
         "strict": case_strict, "index_merge": case_index_merge, "slurm": case_slurm,
         "plot": case_plot, "stash": case_stash, "set": case_set}


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in CASES:
        sys.stderr.write(f"usage: test_sweep.py STASH_SIM_BINARY {{{','.join(CASES)}}}\n")
        return 2
    binary, name = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix=f"stash-sweep-test-{name}.")
    try:
        CASES[name](binary, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{name}: {'ok' if not failures else f'{failures} failure(s)'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
