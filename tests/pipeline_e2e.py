#!/usr/bin/env python3
"""Tensor and pipeline parallelism through the engine (issue 31): on tests/workloads/pipe8.json (8
uniform layers, an embedding and output layer of no time, no optimizer step) the simulated bubble of
each schedule against its closed form, (p-1)/(m+p-1) of the iteration for GPipe and 1F1B and
((p-1)/v)/(m+(p-1)/v) interleaved; the breakdown's parts adding up to the iteration; GPipe and 1F1B
alike; the same run twice byte for byte; the tensor-parallel waits booked as such; the trace's passes in each schedule's order for small p and
m (1F1B: p - s - 1 warm-up forwards on stage s, then one forward and one backward in turn, then the
cool-down backwards; GPipe: the forwards, then the backwards last first). Prints one line
per failure; exit 1 if any. Also gradient accumulation in a data-parallel run (--grad-accum), in
closed form. Usage: pipeline_e2e.py STASH_SIM"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "hostile"))
from asan import without_asan_notes  # noqa: E402

P, M = 4, 8
BASE = ["platforms/p4d.24xl.xml", "tests/workloads/pipe8.json", "--jitter", "0", "--format", "json"]


def run(binary, *args):
    out = subprocess.run([binary] + BASE + list(args), capture_output=True, text=True, timeout=120, check=True)
    return out.stdout


def expected(schedule, p, m, stage):
    """The passes of a stage, written from the schedules' definitions (not from stash-sim's code)."""
    if schedule == "gpipe":
        return ["F%d" % i for i in range(m)] + ["B%d" % i for i in reversed(range(m))]
    warm = min(p - stage - 1, m)
    order = ["F%d" % i for i in range(warm)]
    for i in range(m - warm):
        order += ["F%d" % (warm + i), "B%d" % i]
    return order + ["B%d" % i for i in range(m - warm, m)]


def traced(binary, p, m, *extra, sends=False):
    """The names of the passes on each stage's track of the trace (pid 1, odd tids), by stage; with
    sends, the transfers on the waits tracks (even tids) instead."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "t.json")
        run(binary, "--gpus", str(p), "--pp", str(p), "--grad-accum", str(m), "--iterations", "1", "--warmup", "0",
            "--trace", path, *extra)
        with open(path, encoding="utf-8") as f:
            t = json.load(f)
    events = t["traceEvents"] if isinstance(t, dict) else t
    stages = {}
    for e in events:
        if e.get("ph") != "X" or e.get("pid") != 1:
            continue
        if (not sends and e["tid"] % 2 == 1 and e["name"][0] in "FB") or (
                sends and e["tid"] % 2 == 0 and e["name"].startswith("send ")):
            stages.setdefault((e["tid"] - 1) // 2, []).append((e["ts"], e["name"]))
    return [[n for _, n in sorted(stages[k])] for k in sorted(stages)]


def main():
    binary, failures = sys.argv[1], []

    def check(cond, what):
        if not cond:
            failures.append(what)
            print("pipeline_e2e: " + what)

    results = {}
    for name, extra, v in (("1f1b", [], 1), ("gpipe", ["--schedule", "gpipe"], 1),
                           ("interleaved", ["--schedule", "interleaved", "--virtual-stages", "2"], 2)):
        text = run(binary, "--gpus", str(P), "--pp", str(P), "--grad-accum", str(M), *extra)
        r = json.loads(text)
        results[name] = r
        it, parts = r["iteration_s"], r["breakdown"]
        bubble = (P - 1) / v
        expect = bubble / (M + bubble)
        got = parts["bubble_s"] / it
        check(abs(got - expect) < 0.01, "%s: bubble %.4f of the iteration, closed form %.4f" % (name, got, expect))
        check(abs(r["parallel"]["bubble_closed_form"] - bubble / M) < 1e-12,
              "%s: bubble_closed_form %r, expected %r" % (name, r["parallel"]["bubble_closed_form"], bubble / M))
        check(abs(sum(parts.values()) - it) < 1e-9 * it, "%s: the parts add up to %r, not %r" % (name, sum(parts.values()), it))
        check(r["parallel"]["micro_batches"] == M and r["parallel"]["pp"] == P, "%s: layout %r" % (name, r["parallel"]))
        if name == "1f1b":
            check(run(binary, "--gpus", str(P), "--pp", str(P), "--grad-accum", str(M)) == text,
                  "1f1b: two runs differ")
    a, b = results["1f1b"]["iteration_s"], results["gpipe"]["iteration_s"]
    check(abs(a - b) < 1e-3 * a, "gpipe %r and 1f1b %r differ on uniform stages" % (b, a))
    check(results["interleaved"]["iteration_s"] < a, "interleaving did not shorten the iteration")
    # Tensor parallelism inside the instance: its waits are interconnect, detailed as tensor_parallel.
    r = json.loads(run(binary, "--tp", "2", "--pp", str(P), "--grad-accum", str(M)))
    d, parts = r["breakdown_detail"], r["breakdown"]
    check(d["tensor_parallel_s"] > 0 and parts["network_stall_s"] == 0 and
          parts["interconnect_stall_s"] >= d["tensor_parallel_s"],
          "tp 2: tensor-parallel waits %r, breakdown %r" % (d, parts))
    check(r["parallel"]["tp"] == 2 and r["parallel"]["dp"] == 1, "tp 2: layout %r" % r["parallel"])
    # The trace's pipeline picture: each stage's passes in its schedule's order.
    for schedule in ("1f1b", "gpipe"):
        for p, m in ((2, 2), (4, 4), (4, 8), (2, 5)):
            got = traced(binary, p, m, "--schedule", schedule)
            want = [expected(schedule, p, m, s) for s in range(p)]
            check(got == want, "%s p %d m %d: the trace's passes %r, expected %r" % (schedule, p, m, got, want))
    got = traced(binary, 2, 4, "--schedule", "interleaved", "--virtual-stages", "2")
    for k, passes in enumerate(got):
        ok = len(passes) == 2 * 4 * 2 and all(passes.index("F" + x[1:]) < i for i, x in enumerate(passes)
                                                if x[0] == "B")
        check(ok, "interleaved p 2 m 4 v 2, stage %d: %r" % (k, passes))
    # The transfers between stages: 2 m (p v - 1) a replica, each stage's forward output to the next
    # virtual stage and its backward's to the one before.
    for p, m, extra, v in ((4, 4, (), 1), (2, 5, ("--schedule", "gpipe"), 1),
                           (2, 4, ("--schedule", "interleaved", "--virtual-stages", "2"), 2)):
        got = traced(binary, p, m, *extra, sends=True)
        total = sum(len(x) for x in got)
        check(total == 2 * m * (p * v - 1), "p %d m %d v %d: %d transfers, expected %d" % (p, m, v, total,
                                                                                          2 * m * (p * v - 1)))
    # Memory by hand: GPT-3 175B, t 8, p 16, full recomputation, bf16 (docs/model.md): stage 0 holds
    # the embedding (V h + s h) and 6 layers of 12 h^2 + 13 h parameters over 8 GPUs, 18 bytes each;
    # 16 micro-batches of 6 layers' inputs (2 s b h bytes each); the reserve.
    r = json.loads(subprocess.run(
        [binary, "platforms/p4d.24xl.xml", "workloads/gpt3-175b.json", "--instances", "128", "--tp", "8", "--pp",
         "16", "--global-batch", "1536", "--micro-batch", "1", "--precision", "bf16", "--recompute", "full",
         "--estimate", "--format", "json"], capture_output=True, text=True, check=True).stdout or "{}")
    check("estimated_cpu_s" in r, "--estimate of the 175B run: %r" % r)
    r = json.loads(subprocess.run(
        [binary, "platforms/p4d.24xl.xml", "workloads/gpt3-175b.json", "--instances", "128", "--tp", "8", "--pp",
         "16", "--global-batch", "1536", "--micro-batch", "1", "--precision", "bf16", "--recompute", "full",
         "--iterations", "1", "--warmup", "0", "--format", "json"], capture_output=True, text=True,
        check=True).stdout)
    h, s_, V = 12288, 2048, 51200
    params = (V * h + s_ * h + 6 * (12 * h * h + 13 * h)) / 8
    act = 16 * 6 * 2 * s_ * 1 * h
    want = params * 18 + act + 768 * 2 ** 20
    st0 = r["parallel"]["stages"][0]
    check(abs(st0["params_per_gpu"] - params) < 1e-9 * params, "175B stage 0: %r parameters a GPU, expected %r" % (
        st0["params_per_gpu"], params))
    check(abs(st0["memory_bytes"] - want) < 1e-9 * want, "175B stage 0: %r bytes, expected %r" % (
        st0["memory_bytes"], want))
    # Gradient accumulation in a data-parallel run (tiny.json: 3 ms forward, 6 ms backward on star2's
    # reference GPU): K micro-batches add K - 1 passes of 9 ms and reduce once, after the last.
    one, four = (json.loads(subprocess.run(
        [binary, "tests/platforms/star2.xml", "tests/workloads/tiny.json", "--synthetic", "--jitter", "0",
         "--grad-accum", str(k), "--format", "json"], capture_output=True, text=True, check=True).stdout)
        for k in (1, 4))
    extra = four["breakdown"]["compute_s"] - one["breakdown"]["compute_s"]
    check(abs(extra - 3 * 0.009) < 1e-6, "grad-accum 4: %r s more compute, expected 0.027" % extra)
    ic1, ic4 = one["breakdown"]["interconnect_stall_s"], four["breakdown"]["interconnect_stall_s"]
    check(abs(ic4 - ic1) < 0.01 * ic1, "grad-accum 4: the reduction's wait %r, once as without %r" % (ic4, ic1))
    check(abs(four["throughput_samples_per_s"] * four["iteration_s"] - 4 * one["throughput_samples_per_s"] *
              one["iteration_s"]) < 1e-6, "grad-accum 4: 4 times the samples a step")
    # Passes shorter than the clock's accuracy, and passes whose sleep the clock rounds (issue 39's
    # fuzzing, tests/fuzz/findings/pipeline): simulated without a word on the standard error, and
    # every instant of each stage's iteration booked once (the parts add up to the iteration).
    here = "tests/fuzz/findings/pipeline"
    for name, extra in (("pass-booked-as-asked-tp2", ("--warmup", "1", "--tp", "2", "--pp", "1", "--schedule",
                                                      "1f1b")),
                        ("pass-below-clock-precision-pp4", ("--warmup", "0", "--tp", "1", "--pp", "4"))):
        out = subprocess.run([os.path.abspath(binary), "platform.xml", "workload.json", "--iterations", "1", "--micro-batch", "1",
                              "--format", "json"] + list(extra), cwd=os.path.join(here, name),
                             capture_output=True, text=True, timeout=120)
        err = "".join(without_asan_notes(out.stderr.splitlines(keepends=True)))
        check(out.returncode == 0 and err == "", "%s: exit %d, stderr %r" % (name, out.returncode, err[:300]))
        if out.returncode == 0:
            r = json.loads(out.stdout)
            parts = sum(v for k, v in r["breakdown"].items() if k.endswith("_s"))
            check(abs(parts - r["iteration_s"]) <= 1e-9 * r["iteration_s"],
                  "%s: the parts add up to %r, the iteration is %r" % (name, parts, r["iteration_s"]))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
