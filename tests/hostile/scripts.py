#!/usr/bin/env python3
"""Hostile input to the scripts and to stash-calibrate compare: scripts.py STASH_SIM_BINARY CASE,
run from the repository root (ctest does: hostile.scripts_CASE). Every injection attempt checks
that no file was created (a canary folder the injected commands would write into stays empty) and
that the earlier outputs are byte for byte what they were; every interrupted or failed run that
its earlier output survives and that no temporary file is left. Exits non-zero on a failure."""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from asan import signal_and_wait  # noqa: E402

SWEEP = os.path.join("scripts", "sweep")
SLURM = os.path.join("scripts", "sweep-slurm.sh")
PLOT = os.path.join("scripts", "plot")
BASE = ["--platforms", "tests/platforms/star2.xml", "--workloads", "tests/workloads/tiny.json"]
FAST = ["--", "--synthetic", "--iterations", "2", "--warmup", "1"]

failures = 0
CONTROL = ("newline", "newline and comment", "carriage return", "tab", "escape")


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print(f"FAIL: {what}")


def run(argv, **kw):
    return subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, **kw)


def snapshot(folder):
    """{relative path: bytes} of every file under folder."""
    out = {}
    for root, _, files in os.walk(folder):
        for f in files:
            p = os.path.join(root, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, folder)] = fh.read()
    return out


def payloads(canary):
    """Values that would run a command writing into canary if they ever reached a shell as code,
    and their names. The first ones hold control characters: they must be refused."""
    c = canary
    return [("newline", f"x\ntouch {c}/nl"), ("newline and comment", f"x\ntouch {c}/nl2 #"), ("carriage return", f"x\rtouch {c}/cr"),
            ("tab", f"x\ttouch {c}/tab"), ("escape", "x\x1b[2J"),
            ("semicolon", f"x;touch {c}/semi"), ("dollar", f"$(touch {c}/dollar)"),
            ("backtick", f"`touch {c}/backtick`"), ("pipe", f"x|touch {c}/pipe"),
            ("and", f"x&&touch {c}/and"), ("glob", "*"), ("quotes", "'\"'\""),
            ("spaces", f"a b {c}/space"), ("braces", "{} {#} {1}"), ("redirect", f">{c}/redir")]


class Sandbox:
    """A folder with an earlier output (a good sweep's CSV) and an empty canary folder."""

    def __init__(self, binary, tmp):
        self.binary, self.tmp = binary, tmp
        self.canary = os.path.join(tmp, "canary")
        os.makedirs(self.canary)
        self.out = os.path.join(tmp, "out")
        os.makedirs(self.out)
        self.earlier = os.path.join(self.out, "earlier.csv")
        r = run([SWEEP, "-o", self.earlier, "--bin", binary, *BASE, *FAST])
        check(r.returncode == 0, f"the earlier sweep: {r.stderr.strip()}")
        self.before = snapshot(self.out)

    def after(self, what, allowed=()):
        """No file in the canary folder; the earlier output as it was; nothing else in out but
        the files allowed (no temporary file)."""
        check(os.listdir(self.canary) == [], f"{what}: the canary folder holds {os.listdir(self.canary)}")
        now = snapshot(self.out)
        for k, v in self.before.items():
            check(now.get(k) == v, f"{what}: {k} changed")
        extra = sorted(set(now) - set(self.before) - set(allowed))
        check(not extra, f"{what}: files left in the output folder: {extra}")


def one_error_line(r, prog, what):
    lines = r.stderr.splitlines()
    check(len(lines) == 1 and lines[0].startswith(f"{prog}: error: "),
          f"{what}: expected one '{prog}: error:' line, got exit {r.returncode} {r.stderr!r}")


def sweep_attempt(box, what, argv, new_out):
    """Run a sweep with a hostile value: refused (exit 2, one line naming the option) or run with
    the value as a literal argument (exit 0, the CSV written at new_out)."""
    r = run([SWEEP, "-o", new_out, "--bin", box.binary, *argv])
    if r.returncode == 2:
        one_error_line(r, "sweep", what)
        box.after(what)
    else:
        check(r.returncode == 0, f"{what}: exit {r.returncode}: {r.stderr.strip()}")
        box.after(what, allowed=[os.path.relpath(new_out, box.out)])
        if os.path.exists(new_out):
            os.remove(new_out)
    return r


def case_sweep_injection(binary, tmp):
    """Every list, --variant, --set and the options after '--' with every payload."""
    box = Sandbox(binary, tmp)
    new_out = os.path.join(box.out, "new.csv")
    plat, wl = BASE[1], BASE[3]
    for name, p in payloads(box.canary):
        attempts = [("--platforms", ["--platforms", f"{plat},{p}", "--workloads", wl]),
                    ("--workloads", ["--platforms", plat, "--workloads", p]),
                    ("--variant", ["--variant", p, *BASE]),
                    ("--variant option value", ["--variant", f"--stash-single {p}", *BASE]),
                    ("--set", ["--set", f"nic-gbps={p}", *BASE]),
                    ("--instances", ["--instances", p, *BASE]),
                    ("after --", [*BASE, "--", "--synthetic", p])]
        control = name in CONTROL
        for opt, argv in attempts:
            what = f"{opt} with a {name}"
            extra = [] if opt == "after --" else FAST
            r = sweep_attempt(box, what, argv + extra, new_out)
            if control:
                option = opt.split()[0] if opt != "after --" else "after '--'"
                check(r.returncode == 2 and f"sweep: error: {option}: a control character" in r.stderr,
                      f"{what}: refused naming {option}, got {r.returncode} {r.stderr!r}")
    print("sweep: every payload in every list refused or run as a literal argument")


def case_sweep_paths(binary, tmp):
    """Hostile -o, --results-dir and --bin: literal paths, or refused."""
    box = Sandbox(binary, tmp)
    for name, p in payloads(box.canary):
        control = name in CONTROL
        odd = os.path.join(box.out, "o" + p.replace("/", "_"))
        r = sweep_attempt(box, f"-o with a {name}", [*BASE, *FAST], odd)
        check((r.returncode == 2) == control, f"-o with a {name}: exit {r.returncode}")
        rdir = os.path.join(tmp, "r" + p.replace("/", "_"))
        new_out = os.path.join(box.out, "new.csv")
        r = sweep_attempt(box, f"--results-dir with a {name}", ["--results-dir", rdir, *BASE, *FAST], new_out)
        if os.path.isdir(rdir):
            shutil.rmtree(rdir)
        r = sweep_attempt(box, f"--bin with a {name}", ["--bin", p, *BASE, *FAST], new_out)
        check(r.returncode == 2, f"--bin with a {name}: refused, got {r.returncode}")
    print("sweep: hostile paths are literal paths or refused")


def case_sweep_output(binary, tmp):
    """The CSV may not be an input: a platform, a workload (through a link), a file named in the
    options; the input is left byte for byte."""
    box = Sandbox(binary, tmp)
    plat = os.path.join(box.out, "p.xml")
    shutil.copy("tests/platforms/star2.xml", plat)
    wl = os.path.join(box.out, "w.json")
    shutil.copy("tests/workloads/tiny.json", wl)
    link = os.path.join(tmp, "link.csv")
    os.symlink(wl, link)
    box.before = snapshot(box.out)
    for what, out, argv in [("the platform", plat, ["--platforms", plat, "--workloads", wl]),
                            ("the workload through a link", link, ["--platforms", plat, "--workloads", wl]),
                            ("--stash-single's file", plat,
                             ["--platforms", "tests/platforms/star2.xml", "--workloads", wl,
                              "--variant", f"--stash --stash-single={plat}"])]:
        r = run([SWEEP, "-o", out, "--bin", binary, *argv, *FAST])
        one_error_line(r, "sweep", what)
        check(r.returncode == 2 and "is the same file as the input" in r.stderr, f"{what}: {r.stderr!r}")
        box.after(what)
    for opt in ("-o x.json", "--output=x.json", "--trace t.json"):
        r = run([SWEEP, "-o", os.path.join(box.out, "n.csv"), "--bin", binary, *BASE, "--variant", opt, *FAST])
        one_error_line(r, "sweep", f"--variant '{opt}'")
        check("writes a file" in r.stderr, f"--variant '{opt}': {r.stderr!r}")
        box.after(f"--variant '{opt}'")
    print("sweep: an output that is an input, and options that write files, refused")


def fake_bin(tmp, marks, body):
    """A stand-in stash-sim: the real registry, and body for a run (after it writes its pid into
    marks/)."""
    path = os.path.join(tmp, "fake-sim")
    real = os.path.abspath(sys.argv[1])
    with open(path, "w") as f:
        f.write(f'#!/bin/sh\ncase "$1" in --list-options) exec "{real}" "$@";; esac\n'
                f'echo $$ > "{marks}/$$"\n{body}\n')
    os.chmod(path, 0o755)
    return path


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[-1][0] != "Z"
    except OSError:
        return False


def wait_marks(marks, n, limit=30):
    end = time.monotonic() + limit
    while len(os.listdir(marks)) < n and time.monotonic() < end:
        time.sleep(0.05)
    return [int(m) for m in os.listdir(marks)]


def case_sweep_interrupt(binary, tmp):
    """SIGTERM or SIGINT to a sweep whose runs are running: exit 143 or 130, one line, its runs
    ended, the earlier CSV as it was, no temporary file; a failed merge (the CSV's folder
    read-only) leaves it too."""
    box = Sandbox(binary, tmp)
    for sig, code in ((signal.SIGTERM, 143), (signal.SIGINT, 130)):
        marks = tempfile.mkdtemp(dir=tmp)
        fake = fake_bin(tmp, marks, "exec sleep 60")
        p = subprocess.Popen([SWEEP, "-o", box.earlier, "--bin", fake, "-j", "3", "--instances", "1,2,3",
                              *BASE], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        pids = wait_marks(marks, 3)
        check(len(pids) == 3, f"{sig.name}: 3 runs started, got {len(pids)}")
        _, err, _ = signal_and_wait(p, sig)
        check(p.returncode == code and err.count("\n") == 1 and err.startswith("sweep: interrupted by"),
              f"{sig.name}: exit {code} and one line, got {p.returncode} {err!r}")
        time.sleep(0.2)
        check(not [q for q in pids if alive(q)], f"{sig.name}: runs still alive: {[q for q in pids if alive(q)]}")
        box.after(f"sweep interrupted by {sig.name}")
    print("sweep: interrupted runs leave the earlier CSV and no temporary file")


def case_slurm_injection(binary, tmp):
    """sweep-slurm.sh: a control character anywhere is refused; other payloads in -o, --results-dir
    and the lists end up in the job scripts as literal words: running them (as Slurm would, here by
    hand) creates nothing but the CSV."""
    box = Sandbox(binary, tmp)
    for name, p in payloads(box.canary):
        control = name in CONTROL
        rdir = os.path.join(tmp, "r" + p.replace("/", "_"))
        out = os.path.join(box.out, "s" + p.replace("/", "_"))
        argv = [SLURM, "--dry-run", "-o", out, "--results-dir", rdir, "--bin", binary,
                "--platforms", f"tests/platforms/star2.xml,{p}", "--workloads", "tests/workloads/tiny.json", *FAST]
        r = run(argv)
        if control:
            check(r.returncode == 2 and r.stderr.startswith("sweep-slurm.sh: error: a control character"),
                  f"slurm {name}: refused, got {r.returncode} {r.stderr!r}")
            check(not os.path.exists(rdir), f"slurm {name}: {rdir} made")
            box.after(f"slurm {name}")
            continue
        check(r.returncode == 0, f"slurm {name}: exit {r.returncode} {r.stderr!r}")
        for task in ("1", "2"):
            env = dict(os.environ, SLURM_ARRAY_TASK_ID=task)
            r = run(["bash", os.path.join(rdir, "slurm-array.sh")], env=env)
            check(r.returncode == 0, f"slurm {name}: array task {task}: {r.stderr!r}")
        r = run(["bash", os.path.join(rdir, "slurm-merge.sh")])
        check(r.returncode == 0 and os.path.isfile(out), f"slurm {name}: merge: {r.returncode} {r.stderr!r}")
        box.after(f"slurm {name}", allowed=[os.path.relpath(out, box.out)])
        if os.path.exists(out):
            os.remove(out)
        shutil.rmtree(rdir, ignore_errors=True)
    print("sweep-slurm.sh: payloads refused or literal in the job scripts")


def case_plot(binary, tmp):
    """plot: a CSV value with a control character is refused; a gnuplot that fails or is
    interrupted leaves the earlier figures byte for byte and no temporary folder; the CSV may not
    be one of the outputs."""
    box = Sandbox(binary, tmp)
    figs = os.path.join(box.out, "figs")
    r = run([PLOT, "--bin", binary, box.earlier, figs])
    check(r.returncode == 0, f"plot: {r.stderr!r}")
    box.before = snapshot(box.out)
    with open(box.earlier, encoding="utf-8") as f:
        text = f.read()
    hostile = os.path.join(tmp, "hostile.csv")
    line2 = text.splitlines()[1]
    with open(hostile, "w", encoding="utf-8") as f:
        f.write(text.splitlines()[0] + "\n" + line2.replace("star2", f"\"x\nsystem('touch {box.canary}/g')\n\"", 1)
                + "\n")
    r = run([PLOT, "--bin", binary, hostile, figs])
    check(r.returncode == 1, f"plot, a newline in a value: exit 1, got {r.returncode}")
    one_error_line(r, "plot", "plot, a newline in a value")
    box.after("plot, a newline in a value")
    bad = os.path.join(tmp, "bad-gnuplot")
    os.makedirs(bad)
    for label, body, sig in (("a failing gnuplot", "exit 1", None),
                             ("an interrupted gnuplot", f"touch {tmp}/gp-started; exec sleep 60", signal.SIGTERM)):
        gp = os.path.join(bad, "gnuplot")
        with open(gp, "w") as f:
            f.write(f"#!/bin/sh\n{body}\n")
        os.chmod(gp, 0o755)
        env = dict(os.environ, PATH=bad + os.pathsep + os.environ["PATH"])
        p = subprocess.Popen([PLOT, "--bin", binary, box.earlier, figs], env=env, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if sig:
            end = time.monotonic() + 30
            while not os.path.exists(f"{tmp}/gp-started") and time.monotonic() < end:
                time.sleep(0.05)
            p.send_signal(sig)
        _, err = p.communicate(timeout=60)
        check(p.returncode == (143 if sig else 1) and err.count("\n") == 1,
              f"plot with {label}: exit {p.returncode} {err!r}")
        box.after(f"plot with {label}")
    shutil.copy(box.earlier, os.path.join(figs, "scaling.dat"))
    box.before = snapshot(box.out)
    r = run([PLOT, "--bin", binary, os.path.join(figs, "scaling.dat"), figs])
    check(r.returncode == 1 and "the input is also an output" in r.stderr, f"plot, input as output: {r.stderr!r}")
    box.after("plot, input as output")
    print("plot: hostile values refused, earlier figures kept")


def case_compare(binary, tmp):
    """stash-calibrate compare: a row with -o onto the measured CSV is refused and the CSV kept;
    payloads in a row's args reach stash-sim as literal words, never a shell."""
    cal = os.path.join(os.path.dirname(os.path.abspath(binary)), "stash-calibrate")
    box = Sandbox(binary, tmp)
    measured = os.path.join(box.out, "measured.csv")
    good = "tests/platforms/star2.xml tests/workloads/tiny.json --synthetic --gpus 1"
    with open(measured, "w") as f:
        f.write(f"args,measured_iteration_s\n{good} -o {measured},0.01\n")
    box.before = snapshot(box.out)
    r = run([cal, "compare", measured, "--bin", binary])
    one_error_line(r, f"{measured}:2", "compare, a row writing onto the CSV")
    box.after("compare, a row writing onto the CSV")
    rows = [p for name, p in payloads(box.canary) if "\n" not in p and "\r" not in p and '"' not in p]
    with open(measured, "w") as f:
        f.write("args,measured_iteration_s\n")
        for p in rows:
            f.write(f"\"{good} '{p}'\",0.01\n" if "'" not in p else f"\"{good} x\",0.01\n")
            f.write(f"\"tests/platforms/star2.xml {p.replace(chr(39), '')} --synthetic\",0.01\n")
    box.before = snapshot(box.out)
    r = run([cal, "compare", measured, "--bin", binary, "--timeout", "60"])
    check(r.returncode == 1 and "FAILED" in r.stdout, f"compare payload rows: exit 1 with failed rows, got "
          f"{r.returncode} {r.stderr!r}")
    box.after("compare, payload rows")
    print("compare: rows that write refused, payloads literal")


# A stand-in for calibration/realrun/run.sh's Python (REALRUN_PYTHON), without torch: it logs each
# script's arguments as a JSON line in $FAKE_LOG and writes what run.sh reads next (a platform, a
# workload, a handoff; report.py's measured.csv from the runs' sim.args, as the real one does).
FAKE_PYTHON = r"""#!{python}
import csv, json, os, shutil, sys
argv = sys.argv[1:]
if argv[0] == "-c":
    if "import torch" in argv[1]:
        sys.exit(0)
    os.execv(sys.executable, [sys.executable] + argv)
script, args = os.path.basename(argv[0]), argv[1:]
with open(os.environ["FAKE_LOG"], "a") as f:
    f.write(json.dumps([script] + args) + "\n")
val = lambda flag: args[args.index(flag) + 1]
if script == "train.py":
    os.makedirs(val("--out"), exist_ok=True)
    if "--measure-handoff" in args:
        with open(os.path.join(val("--out"), "handoff.json"), "w") as f:
            json.dump({{"handoff_us": 100.0}}, f)
elif script == "workload.py":
    shutil.copy("tests/workloads/tiny.json", val("-o"))
elif script == "machine.py":
    shutil.copy("tests/platforms/star2.xml", val("-o"))
elif script == "report.py":
    with open(os.path.join(args[0], "measured.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["args", "measured_iteration_s"])
        for name in args[1:]:
            if not name.startswith("--"):
                with open(os.path.join(args[0], name.split(":")[0], "sim.args")) as a:
                    w.writerow([a.read().strip(), "0.01"])
    print("error = simulated / measured - 1")
"""


def case_realrun_paths(binary, tmp):
    """calibration/realrun/run.sh --out with every payload (a space, quotes, $(...), '*', ...): each
    path reaches train.py, the other scripts and stash-sim as one word, sim.args keeps it one word
    for stash-calibrate compare (whose runs then succeed), and nothing runs as code; a control
    character is refused (exit 2) before anything is made. The Python is a stand-in (no torch)."""
    box = Sandbox(binary, tmp)
    fake = os.path.join(tmp, "fake-python")
    with open(fake, "w") as f:
        f.write(FAKE_PYTHON.format(python=sys.executable))
    os.chmod(fake, 0o755)
    build = os.path.join(tmp, "build")  # stash-sim alone: run.sh's stash-calibrate part is skipped
    os.makedirs(build)
    os.symlink(os.path.abspath(binary), os.path.join(build, "stash-sim"))
    cal = os.path.join(os.path.dirname(os.path.abspath(binary)), "stash-calibrate")
    log = os.path.join(tmp, "fake.log")
    env = dict(os.environ, REALRUN_PYTHON=fake, FAKE_LOG=log)
    runsh = os.path.join("calibration", "realrun", "run.sh")
    for name, p in payloads(box.canary):
        out = os.path.join(tmp, "runs", "o " + p)
        if os.path.exists(log):
            os.remove(log)
        r = run(["bash", runsh, build, "--small", "--out", out], env=env)
        if name in CONTROL:
            check(r.returncode == 2 and r.stderr.startswith("run.sh: error: a control character"),
                  f"run.sh --out with a {name}: refused, got {r.returncode} {r.stderr!r}")
            check(not os.path.exists(os.path.join(tmp, "runs")), f"run.sh --out with a {name}: a folder made")
            box.after(f"run.sh --out with a {name}")
            continue
        check(r.returncode == 0, f"run.sh --out with a {name}: exit {r.returncode} {r.stderr[-400:]!r}")
        box.after(f"run.sh --out with a {name}")
        with open(log) as f:
            calls = [json.loads(line) for line in f]
        trains = [c[1:] for c in calls if c[0] == "train.py"]
        check(len(trains) >= 4 and all(c[c.index("--data") + 1] == os.path.join(out, "images") for c in trains),
              f"run.sh --out with a {name}: train.py's --data is not '{out}/images': {trains[:1]}")
        outs = [c[c.index("--out") + 1] for c in trains]
        check(outs[0] == out and all(o.startswith(out + os.sep) for o in outs[1:]),
              f"run.sh --out with a {name}: train.py's --out is not under '{out}': {outs}")
        for run_name in ("single", "A", "B"):
            check(os.path.isfile(os.path.join(out, run_name, "sim.json")),
                  f"run.sh --out with a {name}: no {run_name}/sim.json")
        r = run([cal, "compare", os.path.join(out, "measured.csv"), "--bin", binary])
        check(r.returncode == 0 and r.stdout.count("FAILED") == 0 and len(r.stdout.splitlines()) > 3,
              f"run.sh --out with a {name}: compare of its measured.csv: exit {r.returncode} {r.stdout[-300:]!r} "
              f"{r.stderr!r}")
        box.after(f"run.sh --out with a {name}, compared")
        shutil.rmtree(os.path.join(tmp, "runs"))
    print("realrun/run.sh: --out payloads are one word everywhere, control characters refused")


CASES = {"sweep_injection": case_sweep_injection, "sweep_paths": case_sweep_paths,
         "sweep_output": case_sweep_output, "sweep_interrupt": case_sweep_interrupt,
         "slurm_injection": case_slurm_injection, "plot": case_plot, "compare": case_compare,
         "realrun_paths": case_realrun_paths}


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in CASES:
        sys.stderr.write(f"usage: scripts.py STASH_SIM_BINARY {{{','.join(CASES)}}}\n")
        return 2
    tmp = tempfile.mkdtemp(prefix="stash-hostile.")
    try:
        CASES[sys.argv[2]](sys.argv[1], tmp)
    finally:
        subprocess.run(["chmod", "-R", "u+w", tmp])
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print(f"{failures} check(s) failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
