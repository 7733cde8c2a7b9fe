#!/usr/bin/env python3
"""Invariants the model must hold over the whole catalogue (issue 39): property tests, not examples.

Usage: test_invariants.py STASH_SIM CASE (ctest: property.CASE), run from the repository root.
Every instance file of platforms/ (but SAME's, whose GPUs and links are another file's) and three workloads: a CNN (resnet50), a dense transformer
(gpt2-124m) and a pipeline layout (gpt3-1.3b, --tp 2 --pp 2).

- mfu: MFU is a fraction of the peak: at the workload's precision and every other one the GPU
  has, under the roofline and the peak model, and under --compute-scale 0.25 (whose MFU is of the
  what-if GPU's peak, the peak over the factor), data-parallel and pipelined, and for a mixture of
  experts (MFU on its active parameters) with its experts over the instance's GPUs;
- instances: more instances at the same per-GPU batch never shorten the iteration (each has the
  links of the fewer and a network more). Not asserted inside one instance: a larger set of GPUs may
  have more links per GPU (p3.16xlarge's hybrid cube mesh: 4 GPUs' rings run over more NVLinks each
  than 2 GPUs' one link), which real NCCL uses too;
- micro_batches: fewer micro-batches per step (a smaller global batch at the same micro-batch)
  never lengthen the step, under each schedule;
- memory: more tensor-parallel, context-parallel or expert-parallel ranks never need more memory on a
  GPU (the largest stage's), for a transformer under the kernel model and the roofline, and for a
  mixture of experts (OLMoE) routed in balance;
- effect: every option of a run given a value other than its default either is refused or changes
  the results, in a tensor/pipeline-parallel run, a data-parallel run over EFA and a run on one
  instance; the options whose effect depends on the value (a cap not reached, a buffer never full)
  are listed with the reason.
Runs go two at a time; the whole takes about a minute on 2 cores.
"""
import concurrent.futures as cf
import glob
import json
import os
import subprocess
import sys

SIM, CASE = sys.argv[1], sys.argv[2]
# Instance files whose GPUs, memory and links are another file's, more of them: the sweeps run the other
# (CI's 20 minutes, issue 42). The NVL72 UltraServer is the NVL36's trays, NVLink switch and NICs twice.
SAME = {"u-p6e-gb200x72.xml"}
PLATFORMS = sorted(p for p in glob.glob("platforms/*.xml") if os.path.basename(p) not in SAME)
TOL = 1e-9
failures = []


def run(args):
    r = subprocess.run([SIM] + args + ["--format", "json"], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if r.returncode:
        return None, (r.stderr.splitlines() or [""])[0]
    return json.loads(r.stdout), None


def run_all(jobs):
    with cf.ThreadPoolExecutor(2) as ex:
        return list(ex.map(run, jobs))


def gpus_of(platform):
    with open(platform) as f:
        return f.read().count('prop id="gpu_model"')


def precisions(platform):
    """The precisions the instance's GPU has a rate for."""
    with open(platform) as f:
        text = f.read()
    out = ["fp32"]
    for p, key in (("tf32", "tf32_tflops"), ("amp", "fp16_tflops"), ("bf16", "bf16_tflops"), ("fp8", "fp8_tflops")):
        if key in text:
            out.append(p)
    return out


def check(cond, what):
    if not cond:
        failures.append(what)


def case_mfu():
    jobs, names = [], []
    for p in PLATFORMS:
        n = gpus_of(p)
        inst = max(1, 4 // n)
        for prec in precisions(p):
            for extra in ([], ["--compute-model", "peak"], ["--compute-scale", "0.25"]):
                if extra[:2] == ["--compute-model", "peak"] and prec != "fp32":
                    continue  # peak scales the workload's own precision only (refused otherwise)
                base = ["--precision", prec, "--iterations", "2", "--ignore-memory"] + extra
                jobs.append([p, "workloads/gpt2-124m.json"] + base)
                names.append("%s gpt2-124m %s" % (p, " ".join(base)))
                if prec in ("bf16", "fp8") and not extra:
                    # The kernel model at a long sequence, context-parallel: causal flash attention
                    # counted as run keeps MFU a fraction.
                    long = ["tests/hf/llama-3-8b/config.json", "--seq", "131072", "--cp", "4", "--global-batch",
                            "4", "--distributed-optimizer", "--instances", str(max(1, 4 // n))]
                    jobs.append([p] + long + base)
                    names.append("%s llama-3-8b seq 131072 cp 4 %s" % (p, " ".join(base)))
                    # A mixture of experts over the instance's GPUs: MFU on the active parameters.
                    moe = ["tests/hf-moe/olmoe-1b-7b/config.json", "--seq", "2048", "--ep", str(min(n, 8)),
                           "--instances", str(inst)]
                    jobs.append([p] + moe + base)
                    names.append("%s olmoe ep %d %s" % (p, min(n, 8), " ".join(base)))
                jobs.append([p, "workloads/gpt3-1.3b.json", "--tp", "2", "--pp", "2", "--instances", str(inst),
                             "--global-batch", str(8 * max(1, n * inst // 4))] + base)
                names.append("%s gpt3-1.3b tp2 pp2 %s" % (p, " ".join(base)))
    ran = 0
    for name, (d, err) in zip(names, run_all(jobs)):
        if d is None:
            check(err, "%s: refused without a line" % name)
            continue
        ran += 1
        check(0 < d["mfu"] <= 1 + TOL, "%s: MFU %.4f" % (name, d["mfu"]))
    check(ran > len(jobs) // 2, "only %d of %d runs ran" % (ran, len(jobs)))
    print("mfu: %d runs, %d refused (a GPU without the rate or memory)" % (ran, len(jobs) - ran))


def case_instances():
    jobs, keys = [], []
    for p in PLATFORMS:
        for w in ("resnet50", "gpt2-124m"):
            for n in (1, 2, 4):
                jobs.append([p, "workloads/%s.json" % w, "--instances", str(n), "--iterations", "3", "--synthetic",
                             "--ignore-memory"])
                keys.append((p, w, n))
    res = dict(zip(keys, run_all(jobs)))
    for p in PLATFORMS:
        for w in ("resnet50", "gpt2-124m"):
            its = [res[(p, w, n)][0] for n in (1, 2, 4)]
            check(all(its), "%s %s: a run refused: %s" % (p, w, [res[(p, w, n)][1] for n in (1, 2, 4)]))
            if not all(its):
                continue
            t = [d["iteration_s"] for d in its]
            check(t[0] <= t[1] * (1 + TOL) and t[1] <= t[2] * (1 + TOL),
                  "%s %s: iteration over 1, 2, 4 instances %s" % (p, w, t))
    print("instances: %d runs" % len(jobs))


def case_micro_batches():
    jobs, keys = [], []
    for p in PLATFORMS:
        n = gpus_of(p)
        inst = max(1, 4 // n)
        d = n * inst // 4
        for sched in ("gpipe", "1f1b", "interleaved"):
            for m in (2, 4, 8):
                extra = ["--schedule", sched] + (["--virtual-stages", "2", "--partition", "6,6,6,6"]
                                                 if sched == "interleaved" else [])
                jobs.append([p, "workloads/gpt3-1.3b.json", "--tp", "2", "--pp", "2", "--instances", str(inst),
                             "--micro-batch", "1", "--global-batch", str(m * d), "--ignore-memory",
                             "--iterations", "2"] + extra)
                keys.append((p, sched, m))
    res = dict(zip(keys, run_all(jobs)))
    for p in PLATFORMS:
        for sched in ("gpipe", "1f1b", "interleaved"):
            rs = [res[(p, sched, m)] for m in (2, 4, 8)]
            check(all(r[0] for r in rs), "%s %s: refused: %s" % (p, sched, [r[1] for r in rs]))
            if not all(r[0] for r in rs):
                continue
            t = [r[0]["iteration_s"] for r in rs]
            check(t[0] <= t[1] * (1 + TOL) and t[1] <= t[2] * (1 + TOL),
                  "%s %s: step of 2, 4, 8 micro-batches %s" % (p, sched, t))
    print("micro_batches: %d runs" % len(jobs))


def case_memory():
    jobs, keys = [], []
    runs = [("gpt3-1.3b", ["workloads/gpt3-1.3b.json", "--pp", "2", "--global-batch", "32"], "--tp", (1, 2, 4)),
            ("llama-3-8b", ["tests/hf/llama-3-8b/config.json", "--seq", "32768", "--tp", "2", "--global-batch", "16",
                            "--distributed-optimizer"], "--cp", (1, 2, 4)),
            ("olmoe", ["tests/hf-moe/olmoe-1b-7b/config.json", "--seq", "4096", "--moe-imbalance", "1",
                       "--distributed-optimizer"], "--ep", (2, 4, 8))]
    for p in PLATFORMS:
        n = gpus_of(p)
        if n < 8:
            continue
        for prec in [q for q in precisions(p) if q in ("fp32", "bf16")]:
            for name, args, opt, sizes in runs:
                for k in sizes:
                    jobs.append([p] + args + [opt, str(k), "--precision", prec, "--ignore-memory", "--iterations",
                                              "1"])
                    keys.append((p, prec, name, k))
    res = dict(zip(keys, run_all(jobs)))
    compared = 0
    for p in PLATFORMS:
        for prec in ("fp32", "bf16"):
            for name, args, opt, sizes in runs:
                got = [res.get((p, prec, name, k)) for k in sizes]
                if not all(g and g[0] for g in got):
                    continue  # a run the GPU or precision refuses (a config needs the kernel model)
                mem = [max(s["memory_bytes"] for s in g[0]["parallel"]["stages"]) for g in got]
                compared += 1
                check(all(mem[i + 1] <= mem[i] * (1 + TOL) for i in range(len(mem) - 1)),
                      "%s %s %s: memory per GPU over %s %s: %s" % (p, prec, name, opt, sizes, mem))
    check(compared > 0, "no layout compared")
    print("memory: %d runs, %d series compared" % (len(jobs), compared))


# The results an option could change (the echo of the options is left out).
RESULT = ["iteration_s", "throughput_samples_per_s", "cost_usd_per_epoch", "breakdown", "breakdown_detail", "limit",
          "first_iteration_s", "time_to_train_s", "tokens_per_s", "mfu", "parallel", "gpu_memory_bytes", "init_s",
          "simulated_s", "samples", "moe", "failures"]
# Not run options, or options whose purpose is not the results.
NOT_RESULTS = {"format", "output", "trace", "estimate", "max-minutes", "stash", "stash-stack", "stash-single",
               "tp", "pp", "cp", "ep", "verbose", "min-bytes", "max-bytes", "iters", "platform", "workload"}
# Options whose effect depends on their value or on the instance: given here a value that the
# run does not reach, they leave it as it was. Each says why.
VALUE_DEPENDENT = {
    "ignore-memory": "the runs fit in memory: nothing is refused",
    "prefetch": "the loaders keep ahead at 2 already",
    "cache": "the dataset fits in the page cache already",
    "launch-queue": "the host never runs 1024 launches ahead",
    "cuda-sync": "loss.item() after each step waits for the GPU already (with --no-item-sync it adds 2.1 ms)",
    "no-shm": "every GPU pair of these instances is peer-to-peer",
    "allreduce": "on one instance auto is ring",
    "no-symmetry": "2 instances are simulated whole anyway",
    "oversub": "the switch core is not the bottleneck of 2 instances",
    "nccl-version": "2.2 and the default choose the same protocols at these sizes",
    "channels-last": "at fp32 no layout transposes are made",
    "no-cudnn-tf32": "a V100 or a transformer has no TF32 convolution",
    "sync": "it states the default (synchronous SGD), to be explicit beside --async",
    "attention": "flash is what auto picks where the GPU has a fused kernel (the mixture of experts' H100)",
    "etp": "1 is --tp's value, the default, in the mixture-of-experts context",
    "micro-batch": "1 is the config workload's batch per GPU, the default, in the mixture-of-experts context",
    "no-nvls": "NVLS runs the tree's work inside an instance, and NCCL's model picks the ring for the mixture of "
               "experts' data-parallel gradients (the other contexts' GPUs have no NVLS and refuse it)",
}
CONTEXTS = {
    "mp": ["platforms/p4d.24xl.xml", "workloads/gpt2-124m.json", "--tp", "2", "--pp", "2", "--instances", "2"],
    # The ring: NCCL's model takes its tree at 2 instances (issue 42), where the NICs' channels (--no-multi-nic)
    # do not show.
    "dp_efa": ["platforms/p4d.24xl.xml", "workloads/resnet50.json", "--instances", "2", "--iterations", "4",
               "--allreduce", "ring"],
    "dp_one": ["platforms/p3.16xl.xml", "workloads/resnet50.json", "--iterations", "4"],
    "moe": ["platforms/p5.48xl.xml", "tests/hf-moe/olmoe-1b-7b/config.json", "--seq", "1024", "--ep", "4",
            "--instances", "2", "--grad-accum", "2"],
}
# Enum names that mean the default or "as the file says", and the value to give where the first other
# one is the workloads' own (their times are fp32).
DEFAULTISH = {"auto", "workload", "off"}
PREFER = {"precision": "amp", "purchase": "capacity-block"}  # on-demand is what auto takes for these types


def other_value(o):
    """A value of option o other than its default (None: no such value to give)."""
    k = o["kind"]
    if k == "switch":
        return []
    if k == "enum":
        if o["name"] in PREFER:
            return [PREFER[o["name"]]]
        dflt = o["default"].split(" ")[0].rstrip(":")
        vals = [v for v in o["values"] if v != dflt and v not in DEFAULTISH]
        return [vals[0]] if vals else None
    if k in ("count", "real", "size"):
        lo, hi = o["min"], o["max"]
        try:
            d = float(o["default"])
        except (TypeError, ValueError):
            d = None
        v = 2 * d if d and d > 0 else (lo if lo and lo > 0 else 1)
        if hi is not None and v > hi:
            v = (lo + hi) / 2
        return [str(int(v)) if k == "count" else repr(v)]
    return None


def case_effect():
    listed = json.loads(subprocess.run([SIM, "--list-options", "--format", "json"], capture_output=True,
                                       text=True).stdout)["options"]
    jobs, names = [], []
    for ctx, base in CONTEXTS.items():
        jobs.append(base)
        names.append((ctx, None))
        for o in listed:
            if o["positional"] or o["name"] in NOT_RESULTS or "run" not in o["commands"]:
                continue
            if "--" + o["name"] in base:
                continue
            v = other_value(o)
            if v is None:
                continue
            jobs.append(base + ["--" + o["name"]] + v)
            names.append((ctx, o["name"]))
    results = run_all(jobs)
    bases = {ctx: r for (ctx, name), r in zip(names, results) if name is None}
    same = 0
    for (ctx, name), (d, err), args in zip(names, results, jobs):
        if name is None:
            check(d is not None, "%s: the base run is refused: %s" % (ctx, err))
            continue
        if d is None:
            continue  # refused: the rule's business, or a value the context cannot take
        b = bases[ctx][0]
        if all(d.get(k) == b.get(k) for k in RESULT):
            same += 1
            check(name in VALUE_DEPENDENT, "%s: --%s (%s) was accepted and changed nothing" %
                  (ctx, name, " ".join(args[len(CONTEXTS[ctx]):])))
    print("effect: %d runs, %d without effect, each listed with its reason" % (len(jobs), same))


{"mfu": case_mfu, "instances": case_instances, "micro_batches": case_micro_batches, "memory": case_memory,
 "effect": case_effect}[CASE]()
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
