"""The handoff of calibration/realrun: what taking a ready batch from a DataLoader worker costs the
training process, summarised from train.py --measure-handoff's repetitions (standard library only,
so that tests/realrun_handoff.py checks it where torch is missing).

A repetition is one timed next() on the DataLoader's iterator after the training process has spun
long enough for the worker to have the batch ready: (rep, phase, seconds, cpu_s, ready, free_s),
phase "warmup" or "measured", seconds the wall time of next(), cpu_s the training process's CPU
time in it, ready whether the worker's result queue held a message before the call (None where the
iterator's queue could not be looked at), free_s the wall time of freeing the previous batch
afterwards (unmapping its shared memory: not part of the handoff, reported beside it). The figure is the median wall time over the measured
repetitions that were ready: the median, not the minimum, because a step pays the typical handoff,
and not the mean, because on a small virtual machine a few repetitions wait milliseconds for an idle
vCPU to wake up (docs/validation.md).
"""
import csv
import statistics

FIELDS = ["rep", "phase", "seconds", "cpu_s", "ready", "free_s"]


def quantile(v, q):
    """The q-quantile of v, interpolated between the two nearest values (numpy's default)."""
    v = sorted(v)
    k = (len(v) - 1) * q
    i = int(k)
    return v[i] if i + 1 >= len(v) else v[i] + (v[i + 1] - v[i]) * (k - i)


def summarize(rows):
    """The summary of repetitions (dicts with FIELDS' keys; seconds and cpu_s numbers, ready True,
    False or None): handoff_us (the median wall time of the usable ones, in microseconds),
    p10_us, p90_us, min_us, cpu_us (their median CPU time), free_us (their median free_s), reps
    (usable), not_ready (measured but not ready, left out). Raises ValueError when no measured
    repetition is usable."""
    measured = [r for r in rows if r["phase"] == "measured"]
    usable = [r for r in measured if r["ready"] is not False]
    if not usable:
        raise ValueError("no measured repetition found its batch ready (%d measured): wait longer "
                         "before next() (--handoff-wait-ms)" % len(measured))
    wall = [1e6 * float(r["seconds"]) for r in usable]
    return {"handoff_us": statistics.median(wall), "p10_us": quantile(wall, 0.1), "p90_us": quantile(wall, 0.9),
            "min_us": min(wall), "cpu_us": statistics.median(1e6 * float(r["cpu_s"]) for r in usable),
            "free_us": statistics.median(1e6 * float(r["free_s"]) for r in usable), "reps": len(usable),
            "not_ready": len(measured) - len(usable)}


def _ready(text):
    return {"1": True, "0": False}.get(text)


def read_csv(path):
    """The repetitions of a handoff.csv (train.py's, FIELDS as its header; ready 1, 0 or empty)."""
    with open(path, newline="") as f:
        return [dict(r, rep=int(r["rep"]), seconds=float(r["seconds"]), cpu_s=float(r["cpu_s"]),
                     ready=_ready(r["ready"]), free_s=float(r["free_s"])) for r in csv.DictReader(f)]


def write_csv(path, rows):
    """Write repetitions as read_csv reads them."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(FIELDS)
        for r in rows:
            ready = "" if r["ready"] is None else int(bool(r["ready"]))
            w.writerow([r["rep"], r["phase"], "%.9f" % r["seconds"], "%.9f" % r["cpu_s"], ready, "%.9f" % r["free_s"]])
