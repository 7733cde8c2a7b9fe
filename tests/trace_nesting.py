#!/usr/bin/env python3
"""Traces that Perfetto loads whole: on every track, slices nest or follow each other exactly.

usage: tests/trace_nesting.py STASH_SIM_BINARY [TRACE.json ...]
Without traces, runs the binary with --trace on a few jobs (the default job of the README, two
instances, parameter servers, loaders that share the CPU with compute, and --trace - on standard
output) and checks each trace; with traces, checks those files. Perfetto drops a complete event
("ph": "X") that starts inside another slice of its track (pid, tid) and ends after it, so the check
works on the values as written (integer nanoseconds from the microseconds with three decimals), not
on the simulator's doubles: sorted by start then longest first, each slice must end no later than
the slice it starts inside. Also: no displayTimeUnit (Perfetto stretches the timeline by it), and
every ts and dur a whole number of nanoseconds. Prints one line per failure; exit 1 if any.
"""
import json
import os
import subprocess
import sys
import tempfile
from decimal import Decimal

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JOBS = [
    "platforms/p3.16xl.xml workloads/resnet50.json",
    "platforms/p3.8xl.xml workloads/resnet50.json --instances 2 --iterations 2 --warmup 1 --cache 0.5",
    "platforms/p3.8xl.xml workloads/resnet50.json --instances 2 --arch ps --servers 2 --iterations 2 --warmup 1",
    "tests/platforms/star2_cpu.xml tests/workloads/tiny.json --cache 1 --gpus 2 --workers 1 --iterations 4",
]
MAX_REPORTED = 5  # overlaps printed per trace (the count is always printed)


def ns(value, what, errors):
    """A ts or dur as written (microseconds) in integer nanoseconds; a non-integer is an error."""
    v = Decimal(value) * 1000
    if v != v.to_integral_value():
        errors.append("%s = %s us is not a whole number of nanoseconds" % (what, value))
    return int(v)


def check_events(doc, label):
    """The failures of one parsed trace, as lines."""
    errors = []
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        return ["%s: no traceEvents array" % label]
    if "displayTimeUnit" in doc:
        errors.append("%s: displayTimeUnit is set (%r): Perfetto would stretch the timeline" %
                      (label, doc["displayTimeUnit"]))
    tracks = {}
    for i, e in enumerate(doc["traceEvents"]):
        if e.get("ph") != "X":
            continue
        bad = []
        ts = ns(e["ts"], "event %d ts" % i, bad)
        dur = ns(e["dur"], "event %d dur" % i, bad)
        if dur < 0:
            bad.append("event %d (%s) has a negative dur %s" % (i, e["name"], e["dur"]))
        errors += ["%s: %s" % (label, b) for b in bad[:1]]
        tracks.setdefault((e["pid"], e["tid"]), []).append((ts, -dur, i, e["name"]))
    slices = sum(len(v) for v in tracks.values())
    if slices == 0:
        errors.append("%s: no slices" % label)
    overlaps = 0
    for (pid, tid), spans in sorted(tracks.items()):
        spans.sort()
        stack = []  # (end, name) of the open slices, innermost last
        for ts, neg_dur, i, name in spans:
            end = ts - neg_dur
            while stack and stack[-1][0] <= ts:
                stack.pop()
            if stack and end > stack[-1][0]:
                overlaps += 1
                if overlaps <= MAX_REPORTED:
                    errors.append("%s: track (%d, %d): '%s' [%d, %d] ns starts inside '%s' and ends %d ns after it"
                                  % (label, pid, tid, name, ts, end, stack[-1][1], end - stack[-1][0]))
                continue  # Perfetto drops it
            stack.append((end, name))
    if overlaps:
        errors.append("%s: %d of %d slices overlap a slice of their track instead of nesting in it "
                      "(Perfetto drops them)" % (label, overlaps, slices))
    return errors


def load(text, label):
    try:
        # Decimals keep the written digits: floats would round them again.
        return json.loads(text, parse_float=Decimal), None
    except ValueError as e:
        return None, "%s: not JSON (%s)" % (label, e)


def run_jobs(binary):
    """Trace each job to a file, and the first to standard output; returns the failures."""
    errors = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, job in enumerate(JOBS):
            path = os.path.join(tmp, "trace%d.json" % n)
            proc = subprocess.run([binary] + job.split() + ["--trace", path], cwd=REPO, capture_output=True,
                                  text=True, timeout=300)
            if proc.returncode != 0:
                errors.append("%s: exit %d: %s" % (job, proc.returncode, proc.stderr.strip()[:200]))
                continue
            with open(path, encoding="utf-8") as f:
                doc, err = load(f.read(), job)
            errors += [err] if err else check_events(doc, job)
            if n == 0:
                errors += check_stdout(binary, job, tmp, path)
    return errors


def check_stdout(binary, job, tmp, path):
    """--trace - writes the same trace to standard output (the report goes to -o)."""
    report = os.path.join(tmp, "report.txt")
    proc = subprocess.run([binary] + job.split() + ["--trace", "-", "-o", report], cwd=REPO, capture_output=True,
                          timeout=300)
    label = job + " --trace -"
    if proc.returncode != 0:
        return ["%s: exit %d: %s" % (label, proc.returncode, proc.stderr.decode(errors="replace").strip()[:200])]
    with open(path, "rb") as f:
        if proc.stdout != f.read():
            return ["%s: standard output differs from the trace written to a file" % label]
    if os.path.exists(os.path.join(REPO, "-")):
        return ["%s: wrote a file named '-' instead of standard output" % label]
    if os.path.getsize(report) == 0:
        return ["%s: the report (-o) is empty" % label]
    return []


def main():
    if len(sys.argv) < 2:
        sys.stderr.write("usage: tests/trace_nesting.py STASH_SIM_BINARY [TRACE.json ...]\n")
        return 2
    if len(sys.argv) > 2:
        errors = []
        for path in sys.argv[2:]:
            with open(path, encoding="utf-8") as f:
                doc, err = load(f.read(), path)
            errors += [err] if err else check_events(doc, path)
    else:
        errors = run_jobs(os.path.abspath(sys.argv[1]))
    for e in errors:
        print(e)
    if not errors:
        print("trace_nesting: every slice nests or follows on its track")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
