#!/usr/bin/env python3
"""hostile cost cases (issue 15, "Nothing hangs, and cost is bounded"): what a line of tests/bad cannot say.

Usage: cost.py STASH_SIM STASH_CALIBRATE CASE (ctest: hostile.cost_CASE), run from the repository root.
Each case runs the program under a wall-clock limit (a hang or a quadratic step fails it) and checks
the exit status and the one line of standard error:
- fifo_*: a FIFO given as an input is refused at once (a reader that opened it would wait for a writer);
- big_*: a sparse file just past a reader's size cap is refused before it is read;
- progress: a long run (and a long bench) whose standard error is a terminal shows its iterations
  (sizes) there, each over the last (a run's with its simulated time, growing), and ends the line;
  one whose standard error is a pipe does not;
- layers_*: one collective per layer over 20,000 layers runs within a time limit; the limits are 4x
  the time measured on a loaded 2-core machine (ps: 7.7 s there, 53 s before the per-part mailboxes;
  allreduce: about 10 s), so a step quadratic in the layers fails them; times SS_TEST_SLOWDOWN (set
  to 3 by ctest for the sanitizer build, which runs them about 3 times as long).
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from asan import without_asan_notes  # noqa: E402
import tempfile

SIM, CAL, CASE = sys.argv[1], sys.argv[2], sys.argv[3]
SLOWDOWN = float(os.environ.get("SS_TEST_SLOWDOWN", "1"))
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


def price_rows(tmp, n):
    """A price file of n rows of other types, then star2's (issue 30: the duplicate check was
    quadratic, 80,000 rows took 22 s)."""
    path = os.path.join(tmp, f"prices{n}.csv")
    with open(path, "w") as f:
        f.write("instance_type,usd_per_h,region\n")
        f.writelines(f"type{i:08d}.xlarge,1.0,us-east-1\n" for i in range(n))
        f.write("test-star2,0.5,us-east-1\n")
    return path


def astra_layers(tmp, n):
    """An ASTRA-sim workload of n layers (issue 30: the unique-name check was quadratic, 40,000 layers
    took 5 s)."""
    path = os.path.join(tmp, f"astra{n}.txt")
    with open(path, "w") as f:
        f.write(f"DATA\n{n}\n")
        f.writelines(f"l{i}\t-1\t1000\tNONE\t0\t1000\tNONE\t0\t1000\tALLREDUCE\t4096\t10\n" for i in range(n))
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
            "progress": progress,
            "layers_ps": lambda: expect_ok(run([SIM, STAR2, layers_workload(tmp, 20000), "--arch", "ps",
                                                "--bucket-mb", "0", "--iterations", "1", "--synthetic"], 30 * SLOWDOWN)),
            "layers_allreduce": lambda: expect_ok(run([SIM, STAR2, layers_workload(tmp, 20000), "--bucket-mb", "0",
                                                       "--iterations", "1", "--synthetic"], 40 * SLOWDOWN)),
        }
        # 1,000,000 rows or layers: linear readers take a few seconds (0.08 s for 80,000 price rows,
        # 0.56 s for 40,000 layers on this machine); quadratic ones hours.
        cases["price_rows"] = lambda: expect_ok(run([SIM, STAR2, TINY, "--synthetic", "--iterations", "1", "--warmup",
                                                     "1", "--price-file", price_rows(tmp, 1000000)], 60 * SLOWDOWN))
        cases["astra_layers"] = lambda: expect_ok(run([CAL, "astra", astra_layers(tmp, 300000), "--clock-ghz", "1",
                                                       "-o", os.path.join(tmp, "a.json")], 60 * SLOWDOWN))
        if CASE not in cases:
            sys.exit(f"cost.py: unknown case {CASE!r} ({', '.join(cases)})")
        cases[CASE]()


def on_terminal(args, limit_s):
    """Run args with standard error on a pseudo-terminal (standard output to a pipe): exit status and
    what the terminal received."""
    import pty
    import select
    import time
    master, slave = pty.openpty()
    p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    got, end = b"", time.monotonic() + limit_s
    while time.monotonic() < end:
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the terminal closed with the program's end
                break
            if not chunk:
                break
            got += chunk
        elif p.poll() is not None:
            break
    else:
        p.kill()
        sys.exit(f"{CASE}: {' '.join(args)} still running after {limit_s} s")
    p.stdout.read()
    os.close(master)
    return p.wait(), got.decode(errors="replace").replace("\r\n", "\n")


def progress():
    # 8 instances: a larger cluster is simulated by 8 (docs/model.md, "Identical instances"); 200
    # iterations: estimated at more than the 3 s from which a run shows its progress (engine.c).
    run_args = [SIM, "platforms/p3.16xl.xml", "workloads/resnet50.json", "--instances", "8", "--iterations", "200", "--synthetic"]
    bench_args = [SIM, "bench", "allreduce", "platforms/p3.16xl.xml", "--instances", "8", "--iters", "40",
                  "--max-bytes", "64Mi"]
    for args, unit in ((run_args, "iteration"), (bench_args, "size")):
        rc, text = on_terminal(args, 120)
        shown = [t for t in text.split("\r") if t.startswith("stash-sim: " + unit)]
        if rc != 0 or len(shown) < 2 or not shown[-1].endswith("\n"):
            sys.exit(f"{CASE}: {' '.join(args)} on a terminal: exit {rc}, expected lines 'stash-sim: {unit} K of N ...' "
                     f"each over the last and a final newline, got {text[-300:]!r}")
        last = shown[-1].split()
        if last[2] != last[4]:
            sys.exit(f"{CASE}: the last progress line is not the end: {shown[-1]!r}")
        if unit == "iteration":
            # the simulated time shown grows with the iterations: "(simulated time T s)"
            times = [float(t.split("(simulated time ")[1].split(" s)")[0]) for t in shown]
            if len(times) != len(shown) or times != sorted(times) or not times[-1] > 0:
                sys.exit(f"{CASE}: the iterations' simulated times do not grow: {times}")
        r = run(args, 120)
        if r.returncode != 0 or "stash-sim: " + unit in r.stderr:
            sys.exit(f"{CASE}: {' '.join(args)} with standard error a pipe: exit {r.returncode}, no progress "
                     f"expected, got {r.stderr[-300:]!r}")
        print(f"ok: {unit} progress on a terminal ({len(shown)} updates, ends '{shown[-1].strip()}'), none on a pipe")


def expect_ok(r):
    if r.returncode != 0 or without_asan_notes(r.stderr.splitlines()):
        sys.exit(f"{CASE}: exit {r.returncode}, stderr {r.stderr!r}")


if __name__ == "__main__":
    main()
