#!/usr/bin/env python3
"""Hostile use that a one-line bad case cannot express: test_hostile.py STASH_SIM STASH_CALIBRATE CASE,
run from the repository root (ctest does). Interrupted and failed runs must leave the earlier output
byte for byte and no temporary file; outputs that are an input (under another name: a link, a hard
link) are refused and the input stays as it was; a signal ends the forked children too. Each case
prints what it checked and exits non-zero on a failure."""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from asan import signal_and_wait, without_asan_notes  # noqa: E402

ROOT = os.getcwd()
PLATFORM = os.path.join(ROOT, "platforms", "p3.16xl.xml")
WORKLOAD = os.path.join(ROOT, "workloads", "resnet50.json")
# A run of 20 s or more (Release): long enough to be interrupted in the middle.
LONG = [PLATFORM, WORKLOAD, "--instances", "16", "--iterations", "400"]
OLD = b'{"old report": "must survive byte for byte"}\n'

FAILED = []


def check(cond, what):
    """Print one check, and keep it when it failed."""
    print(f"{'ok' if cond else 'FAIL'}: {what}")
    if not cond:
        FAILED.append(what)


def listing(folder):
    return sorted(os.listdir(folder))


def wait_for(pred, seconds=60.0):
    """Poll pred until it holds (True) or seconds pass (False)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.05)
    return False


def temporaries(folder, name):
    """outfile's temporary files of output name in folder: .NAME.XXXXXX"""
    return [f for f in os.listdir(folder) if f.startswith("." + name + ".")]


def children(pid):
    """The pids whose parent is pid (from /proc)."""
    kids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as f:
                stat = f.read()
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces and parentheses, so split after the last ')'.
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[1]) == pid:
            kids.append(int(entry))
    return kids


def alive(pid):
    """Whether pid is a process that still runs (a zombie counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as f:
            stat = f.read()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2:].split()[0] != "Z"


def interrupted(argv, sig, ready, cwd, group=False):
    """Start argv, wait until ready() holds, send sig (to the process group when group, as a terminal's
    Ctrl-C does), and return (exit status, stderr lines, the children seen before the signal)."""
    p = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         start_new_session=group)
    ok = wait_for(lambda: p.poll() is not None or ready(p))
    check(ok and p.poll() is None, f"{os.path.basename(argv[0])} got to the point of interruption")
    time.sleep(0.3)
    kids = children(p.pid)
    if group:
        os.killpg(p.pid, sig)
    _, err, ended = signal_and_wait(p, None if group else sig)
    check(ended, "ended within 30 s of the signal")
    return p.returncode, without_asan_notes(err.decode(errors="replace").splitlines()), kids


def check_interrupt(rc, lines, sig, prog="stash-sim"):
    name = signal.Signals(sig).name
    check(rc == 128 + sig, f"exit {128 + sig} after {name}, got {rc}")
    check(lines == [f"{prog}: interrupted by {name}"], f"one line on stderr after {name}, got {lines[:3]}")


def interrupt_output(sim, tmp, sig):
    out = os.path.join(tmp, "report.json")
    with open(out, "wb") as f:
        f.write(OLD)
    before = listing(tmp)
    rc, lines, _ = interrupted([sim, *LONG, "-o", out], sig, lambda p: temporaries(tmp, "report.json"), tmp)
    check_interrupt(rc, lines, sig)
    with open(out, "rb") as f:
        check(f.read() == OLD, "the earlier report is there byte for byte")
    check(listing(tmp) == before, f"no temporary file left: {listing(tmp)}")


def case_sigint_output(sim, cal, tmp):
    interrupt_output(sim, tmp, signal.SIGINT)


def case_sigterm_output(sim, cal, tmp):
    interrupt_output(sim, tmp, signal.SIGTERM)


def case_failed_run_keeps_output(sim, cal, tmp):
    """A run that fails (bad input, a simulation SimGrid's options refuse) leaves the earlier output."""
    out = os.path.join(tmp, "report.json")
    bad = [[os.path.join(ROOT, "tests/bad/xml_empty.xml"), os.path.join(ROOT, "tests/workloads/tiny.json")],
           [os.path.join(ROOT, "tests/platforms/star2.xml"), os.path.join(ROOT, "tests/bad/json_trailing_comma.json")],
           [os.path.join(ROOT, "tests/platforms/star2.xml"), os.path.join(ROOT, "tests/workloads/tiny.json"),
            "--cfg=network/model:nonsense"],
           ["whatif", os.path.join(ROOT, "tests/platforms/star2.xml"), os.path.join(ROOT, "tests/workloads/tiny.json"),
            "--change", "platform=" + os.path.join(ROOT, "tests/bad/xml_empty.xml")]]
    for argv in bad:
        for extra in (["-o", out], ["-o", out, "--trace", os.path.join(tmp, "t.json")]):
            if argv[0] == "whatif" and "--trace" in extra:
                continue
            with open(out, "wb") as f:
                f.write(OLD)
            with open(os.path.join(tmp, "t.json"), "wb") as f:
                f.write(OLD)
            before = listing(tmp)
            r = subprocess.run([sim, *argv, *extra], cwd=tmp, stdin=subprocess.DEVNULL, capture_output=True)
            what = " ".join(os.path.basename(a) for a in argv + extra)
            check(r.returncode in (1, 2), f"{what}: fails with 1 or 2, got {r.returncode}")
            for name in ("report.json", "t.json"):
                with open(os.path.join(tmp, name), "rb") as f:
                    check(f.read() == OLD, f"{what}: {name} as it was")
            check(listing(tmp) == before, f"{what}: no temporary file left: {listing(tmp)}")


def case_failed_calibrate_keeps_output(sim, cal, tmp):
    """stash-calibrate runs that fail after their outputs are open: a workload the simulator would
    reject (read back from the temporary file), a JSON that cannot be written after the platform
    was rescaled. Every earlier output stays byte for byte."""
    out, platform = os.path.join(tmp, "w.json"), os.path.join(tmp, "p.xml")
    runs = [[cal, "trace", os.path.join(ROOT, "tests/calibration/synthetic.json"), "-o", out, "--samples", "1e20"],
            [cal, "trace", os.path.join(ROOT, "tests/bad/cal/trace_weight_shape_overflow.json"), "-o", out,
             "--samples", "10"],
            [cal, "nccl", os.path.join(ROOT, "tests/calibration/nccl_2080ti_busbw.txt"), "--ranks", "2", "--platform",
             os.path.join(ROOT, "tests/calibration/rtx2080ti_x2.xml"), "--out-platform", platform, "-o",
             os.path.join(tmp, "no_such_dir", "fit.json")]]
    for argv in runs:
        for path in (out, platform):
            with open(path, "wb") as f:
                f.write(OLD)
        before = listing(tmp)
        r = subprocess.run(argv, cwd=tmp, stdin=subprocess.DEVNULL, capture_output=True, text=True)
        what = " ".join(os.path.basename(a) for a in argv[1:])
        check(r.returncode in (1, 3) and len(r.stderr.splitlines()) == 1,
              f"{what}: fails with one line, got {r.returncode}: {r.stderr.splitlines()[:2]}")
        check("/." not in r.stderr, f"{what}: the line names no temporary file: {r.stderr.strip()}")
        for path in (out, platform):
            with open(path, "rb") as f:
                check(f.read() == OLD, f"{what}: {os.path.basename(path)} as it was")
        check(listing(tmp) == before, f"{what}: no temporary file left: {listing(tmp)}")


def case_sigint_trace(sim, cal, tmp):
    """--trace interrupted: no partial trace, plain or gzipped; an earlier trace stays as it was."""
    for name, sig in (("t.json", signal.SIGINT), ("t.json.gz", signal.SIGTERM)):
        trace = os.path.join(tmp, name)
        if name.endswith(".gz"):
            with open(trace, "wb") as f:
                f.write(OLD)
        before = listing(tmp)
        argv = [sim, PLATFORM, WORKLOAD, "--instances", "8", "--iterations", "400", "--trace", trace,
                "-o", os.path.join(tmp, "r.json")]
        rc, lines, _ = interrupted(argv, sig, lambda p, n=name: temporaries(tmp, n), tmp)
        check_interrupt(rc, lines, sig)
        check(listing(tmp) == before, f"{name}: no partial trace, no temporary file: {listing(tmp)}")
        if name.endswith(".gz"):
            with open(trace, "rb") as f:
                check(f.read() == OLD, f"{name}: the earlier trace byte for byte")


def case_signal_children(sim, cal, tmp):
    """--stash and whatif simulate in forked children: a signal to the parent ends them; a Ctrl-C to
    the whole group gives one line, not one per process."""
    out = os.path.join(tmp, "r.json")
    runs = [([sim, *LONG[:4], "--iterations", "100", "--stash", "-o", out], signal.SIGTERM, False),
            ([sim, "whatif", *LONG[:4], "--iterations", "100", "--change", "nic_gbps=100", "-o", out],
             signal.SIGINT, False),
            ([sim, *LONG[:4], "--iterations", "100", "--stash", "-o", out], signal.SIGINT, True)]
    for argv, sig, group in runs:
        with open(out, "wb") as f:
            f.write(OLD)
        before = listing(tmp)
        rc, lines, kids = interrupted(argv, sig, lambda p: children(p.pid), tmp, group)
        what = (f"{argv[1] if argv[1] == 'whatif' else '--stash'} {signal.Signals(sig).name}"
                + (" to the group" if group else ""))
        check_interrupt(rc, lines, sig)
        check(len(kids) >= 1, f"{what}: the run had children ({kids})")
        check(wait_for(lambda: not any(alive(k) for k in kids), 2.0), f"{what}: every child is gone")
        with open(out, "rb") as f:
            check(f.read() == OLD, f"{what}: the earlier report byte for byte")
        check(listing(tmp) == before, f"{what}: no temporary file left: {listing(tmp)}")


def case_calibrate_sigterm(sim, cal, tmp):
    """stash-calibrate compare interrupted: its stash-sim child ends, the earlier -o CSV stays."""
    csv = os.path.join(tmp, "measured.csv")
    with open(csv, "w", encoding="utf-8") as f:
        f.write("args,measured_iteration_s\n")
        f.write(" ".join(LONG) + ",0.5\n")
    out = os.path.join(tmp, "out.csv")
    with open(out, "wb") as f:
        f.write(OLD)
    before = listing(tmp)
    rc, lines, kids = interrupted([cal, "compare", csv, "--bin", sim, "-o", out], signal.SIGTERM,
                                  lambda p: children(p.pid), tmp)
    check_interrupt(rc, lines, signal.SIGTERM, "stash-calibrate")
    check(len(kids) == 1, f"compare ran stash-sim as a child ({kids})")
    check(wait_for(lambda: not any(alive(k) for k in kids), 2.0), "the stash-sim child is gone")
    with open(out, "rb") as f:
        check(f.read() == OLD, "the earlier CSV byte for byte")
    check(listing(tmp) == before, f"no temporary file left: {listing(tmp)}")


def refused(argv, cwd, inputs, expect):
    """argv must exit 2 with the one line expect, and leave every input byte for byte."""
    saved = {}
    for path in inputs:
        with open(path, "rb") as f:
            saved[path] = f.read()
    before = listing(cwd)
    r = subprocess.run(argv, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    what = " ".join(argv[1:])
    check(r.returncode == 2, f"{what}: exit 2, got {r.returncode}")
    check(r.stderr.splitlines() == [expect], f"{what}: the line {expect!r}, got {r.stderr.splitlines()[:3]}")
    for path, data in saved.items():
        with open(path, "rb") as f:
            check(f.read() == data, f"{what}: {os.path.basename(path)} unchanged")
    check(listing(cwd) == before, f"{what}: nothing created")


def case_same_file(sim, cal, tmp):
    """Outputs that are an input or each other under another name: a symbolic link, a hard link, a
    link to a file not there yet."""
    shutil.copy(os.path.join(ROOT, "tests/platforms/star2.xml"), os.path.join(tmp, "p.xml"))
    shutil.copy(os.path.join(ROOT, "tests/workloads/tiny.json"), os.path.join(tmp, "w.json"))
    shutil.copy(os.path.join(ROOT, "tests/platforms/star2.xml"), os.path.join(tmp, "single.xml"))
    os.symlink("p.xml", os.path.join(tmp, "link-to-p.xml"))
    os.link(os.path.join(tmp, "w.json"), os.path.join(tmp, "hard-w.json"))
    os.mkdir(os.path.join(tmp, "sub"))
    os.symlink("../out.json", os.path.join(tmp, "sub", "link-to-out.json"))
    inputs = [os.path.join(tmp, n) for n in ("p.xml", "w.json", "single.xml")]
    sim_err = "stash-sim: error: "
    refused([sim, "p.xml", "w.json", "-o", "link-to-p.xml"], tmp, inputs,
            sim_err + "--output 'link-to-p.xml' would overwrite the platform 'p.xml' (see --help)")
    refused([sim, "p.xml", "w.json", "--trace", "hard-w.json", "-o", "r.json"], tmp, inputs,
            sim_err + "--trace 'hard-w.json' would overwrite the workload 'w.json' (see --help)")
    refused([sim, "p.xml", "w.json", "--trace", "sub/link-to-out.json", "-o", "out.json"], tmp, inputs,
            sim_err + "--trace 'sub/link-to-out.json' and --output 'out.json' are the same file (see --help)")
    refused([sim, "p.xml", "w.json", "--stash", "--stash-single", "single.xml", "-o", "sub/../single.xml"], tmp, inputs,
            sim_err + "--output 'sub/../single.xml' would overwrite --stash-single 'single.xml' (see --help)")
    refused([sim, "whatif", "p.xml", "w.json", "--change", "platform=single.xml", "-o", "./single.xml"], tmp, inputs,
            sim_err + "--output './single.xml' would overwrite the changed platform (--change platform=) 'single.xml' "
            "(see --help)")
    refused([sim, "bench", "allreduce", "p.xml", "-o", "link-to-p.xml"], tmp, inputs,
            sim_err + "--output 'link-to-p.xml' would overwrite the platform 'p.xml' (see --help)")
    trace = os.path.join(tmp, "kineto.json")
    shutil.copy(os.path.join(ROOT, "tests/calibration/synthetic.json"), trace)
    os.symlink("kineto.json", os.path.join(tmp, "link-to-kineto.json"))
    refused([cal, "trace", "kineto.json", "-o", "link-to-kineto.json", "--samples", "10"], tmp, inputs + [trace],
            "stash-calibrate trace: error: -o 'link-to-kineto.json' would overwrite the trace 'kineto.json' "
            "(see --help)")


def case_same_file_inputs(sim, cal, tmp):
    """Every input of a run is on the same-file check's list, whatever option or subcommand brings
    it (issue 30): a price file, the table read beside the instance file, whatif's changed price
    file, plan's instance files (a list, a folder, the catalogue of STASH_SIM_PATH) and the tables
    beside them, the files a row of stash-calibrate compare runs on."""
    for name, src in (("p.xml", "tests/platforms/star2.xml"), ("w.json", "tests/workloads/tiny.json")):
        shutil.copy(os.path.join(ROOT, src), os.path.join(tmp, name))
    with open(os.path.join(tmp, "price.csv"), "w") as f:
        f.write("instance_type,usd_per_h\ntest-star2,0.5\n")
    os.symlink("price.csv", os.path.join(tmp, "link-to-price.csv"))
    os.link(os.path.join(tmp, "price.csv"), os.path.join(tmp, "hard-price.csv"))
    os.link(os.path.join(tmp, "p.xml"), os.path.join(tmp, "hard-p.xml"))
    os.symlink("p.xml", os.path.join(tmp, "plot.svg"))
    for d in ("cat", "dir", "sub"):
        os.mkdir(os.path.join(tmp, d))
    shutil.copy(os.path.join(ROOT, "tests/platforms/star2.xml"), os.path.join(tmp, "cat", "star2.xml"))
    shutil.copy(os.path.join(tmp, "price.csv"), os.path.join(tmp, "cat", "prices.csv"))
    shutil.copy(os.path.join(ROOT, "tests/platforms/star2.xml"), os.path.join(tmp, "dir", "q.xml"))
    with open(os.path.join(tmp, "rows.csv"), "w") as f:
        f.write('args,measured_iteration_s\n"cat/star2.xml w.json --synthetic",0.01\n')
    inputs = [os.path.join(tmp, n) for n in ("p.xml", "w.json", "price.csv", "cat/star2.xml", "cat/prices.csv",
                                             "dir/q.xml", "rows.csv")]
    e = "stash-sim: error: "
    run = [sim, "p.xml", "w.json", "--synthetic"]
    refused([*run, "--price-file", "price.csv", "-o", "link-to-price.csv"], tmp, inputs,
            e + "--output 'link-to-price.csv' would overwrite --price-file 'price.csv' (see --help)")
    refused([*run, "--price-file", "price.csv", "--trace", "hard-price.csv", "-o", "r.json"], tmp, inputs,
            e + "--trace 'hard-price.csv' would overwrite --price-file 'price.csv' (see --help)")
    refused([sim, "cat/star2.xml", "w.json", "--synthetic", "-o", "sub/../cat/prices.csv"], tmp, inputs,
            e + "--output 'sub/../cat/prices.csv' would overwrite prices.csv beside the platform 'cat/prices.csv' "
            "(see --help)")
    refused([sim, "whatif", "p.xml", "w.json", "--synthetic", "--change", "price_file=price.csv", "-o", "./price.csv"],
            tmp, inputs, e + "--output './price.csv' would overwrite the changed price-file (--change price_file=) "
            "'price.csv' (see --help)")
    plan = [sim, "plan", "w.json", "--max-instances", "1", "--algorithms", "ring", "-n", "1", "--warmup", "1"]
    refused([*plan, "--platforms", "p.xml", "-o", "hard-p.xml"], tmp, inputs,
            e + "--output 'hard-p.xml' would overwrite an instance file of --platforms 'p.xml' (see --help)")
    refused([*plan, "--platforms", "dir", "-o", "dir/q.xml"], tmp, inputs,
            e + "--output 'dir/q.xml' would overwrite an instance file of --platforms 'dir/q.xml' (see --help)")
    refused([*plan, "--platforms", "p.xml", "--plot", "plot.svg"], tmp, inputs,
            e + "--plot 'plot.svg' would overwrite an instance file of --platforms 'p.xml' (see --help)")
    env = dict(os.environ, STASH_SIM_PATH=os.path.join(tmp, "cat"))
    r = subprocess.run([*plan, "-o", "cat/prices.csv"], cwd=tmp, env=env, stdin=subprocess.DEVNULL,
                       capture_output=True, text=True)
    check(r.returncode == 2 and "would overwrite prices.csv beside an instance file of --platforms" in r.stderr,
          f"plan over the catalogue, -o onto its price table: exit 2, got {r.returncode}: {r.stderr.strip()}")
    refused([cal, "compare", "rows.csv", "--bin", sim, "-o", "cat/star2.xml"], tmp, inputs,
            "stash-calibrate compare: error: -o 'cat/star2.xml' would overwrite the platform 'cat/star2.xml' of the "
            "row of line 2 (see --help)")
    refused([cal, "compare", "rows.csv", "--bin", sim, "-o", "cat/prices.csv"], tmp, inputs,
            "stash-calibrate compare: error: -o 'cat/prices.csv' would overwrite prices.csv beside the platform "
            "'cat/prices.csv' of the row of line 2 (see --help)")


def case_output_permissions(sim, cal, tmp):
    """An output replaced keeps its permissions and stays behind a link to it; a new one gets the
    umask's."""
    out = os.path.join(tmp, "r.json")
    with open(out, "wb") as f:
        f.write(OLD)
    os.chmod(out, 0o640)
    os.symlink("r.json", os.path.join(tmp, "link.json"))
    small = [os.path.join(ROOT, "tests/platforms/star2.xml"), os.path.join(ROOT, "tests/workloads/tiny.json"),
             "--iterations", "2", "--warmup", "1"]
    r = subprocess.run([sim, *small, "-o", "link.json"], cwd=tmp, stdin=subprocess.DEVNULL, capture_output=True)
    check(r.returncode == 0, f"a run through a link: exit 0, got {r.returncode}")
    check(os.path.islink(os.path.join(tmp, "link.json")), "the link is still a link")
    with open(out, "rb") as f:
        check(f.read() != OLD, "the file it points to holds the new report")
    check(os.stat(out).st_mode & 0o777 == 0o640, f"its mode 0640 kept, got {oct(os.stat(out).st_mode & 0o777)}")
    old_mask = os.umask(0o027)
    try:
        r = subprocess.run([sim, *small, "-o", "new.json"], cwd=tmp, stdin=subprocess.DEVNULL, capture_output=True)
    finally:
        os.umask(old_mask)
    mode = os.stat(os.path.join(tmp, "new.json")).st_mode & 0o777
    check(r.returncode == 0 and mode == 0o640, f"a new report: 0666 less the umask 027 (0640), got {oct(mode)}")
    check(sorted(os.listdir(tmp)) == ["link.json", "new.json", "r.json"], f"no temporary file: {listing(tmp)}")


def case_memory_limit(sim, cal, tmp):
    """Runs under an address-space limit (ulimit -v) from too small to enough, in 16 MiB steps: each
    ends with 0 or the resources error 3 and one line, never an abort (SimGrid's "Failed to allocate
    stack", a libxml2 allocation reported as malformed XML); a failed run leaves the earlier output and
    trace and no temporary file. An AddressSanitizer build reserves terabytes of shadow memory at
    start-up and cannot run under such a limit: skipped (77) there."""
    import resource

    with open(sim, "rb") as f:
        if b"__asan_init" in f.read():
            print("skipped: an AddressSanitizer build cannot run under an address-space limit")
            sys.exit(77)
    out, trace = os.path.join(tmp, "report.json"), os.path.join(tmp, "t.json")
    runs = [[PLATFORM, WORKLOAD, "--arch", "ps", "--instances", "4"],
            [PLATFORM, WORKLOAD, "--instances", "8", "--trace", trace],
            [PLATFORM, WORKLOAD, "--stash"]]
    for argv in runs:
        what = " ".join(os.path.basename(a) for a in argv)
        seen = set()
        for mib in range(48, 1024, 16):
            def limit(mib=mib):
                resource.setrlimit(resource.RLIMIT_AS, (mib << 20, mib << 20))
            for name in (out, trace):
                with open(name, "wb") as f:
                    f.write(OLD)
            before = listing(tmp)
            r = subprocess.run([sim, *argv, "-o", out], cwd=tmp, stdin=subprocess.DEVNULL, capture_output=True,
                               preexec_fn=limit)
            lines = without_asan_notes(r.stderr.decode(errors="replace").splitlines())
            if r.returncode == 127 and "error while loading shared libraries" in r.stderr.decode(errors="replace"):
                continue  # the dynamic loader's, before stash-sim runs
            if r.returncode < 0 and subprocess.run([sim, "--version"], capture_output=True,
                                                   preexec_fn=limit).returncode == r.returncode:
                continue  # the libraries' start-up (SimGrid's static objects), before stash-sim's main runs
            seen.add(r.returncode)
            check(r.returncode in (0, 3), f"{what} under {mib} MiB: exit 0 or 3, got {r.returncode}: {lines[:2]}")
            if r.returncode == 0:
                break
            check(len(lines) == 1 and lines[0].startswith("stash-sim: error: out of memory"),
                  f"{what} under {mib} MiB: one line, out of memory: {lines[:3]}")
            for name in (out, trace):
                with open(name, "rb") as f:
                    check(f.read() == OLD, f"{what} under {mib} MiB: {os.path.basename(name)} as it was")
            check(listing(tmp) == before, f"{what} under {mib} MiB: no temporary file left: {listing(tmp)}")
        check(seen >= {0, 3}, f"{what}: refused under a small limit and simulated under a large one: {sorted(seen)}")


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}


def main():
    if len(sys.argv) != 4 or sys.argv[3] not in CASES:
        sys.exit(f"usage: test_hostile.py STASH_SIM STASH_CALIBRATE CASE ({', '.join(CASES)})")
    sim, cal = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    tmp = tempfile.mkdtemp(prefix="stash-hostile-")
    try:
        CASES[sys.argv[3]](sim, cal, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(1 if FAILED else 0)


if __name__ == "__main__":
    main()
