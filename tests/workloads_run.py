#!/usr/bin/env python3
"""Run every shipped workload on a V100 and a K80 instance (those without times on an H100) and check
the report.

usage: tests/workloads_run.py STASH_SIM_BINARY
Each workloads/*.json goes through the binary on platforms/p3.2xl.xml and platforms/p2.xl.xml
with --format json (real data: the loader path is exercised too); each run must exit 0 and report
its workload and a positive, finite throughput. A pair of REFUSED (its default batch does not fit the
GPU's memory: docs/model.md, "GPU memory") must be refused with the memory line, and then run with
--ignore-memory; any other refusal, or a pair of REFUSED that fits, is a failure (the list stays
current). Prints one line per failure; exit 1 if any.
"""
import glob
import json
import math
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLATFORMS = ["platforms/p3.2xl.xml", "platforms/p2.xl.xml"]
# The workloads without times (the mixtures of experts, from their configs) run where the kernel model
# times them, on one H100 (--ignore-memory: no such model fits one GPU).
UNTIMED_PLATFORMS = ["platforms/p5.48xl.xml"]
# At their default batch, in FP32, these do not fit a 16 GB V100 or a 12 GB K80 (activations kept for
# backward: GPT-2 at sequence 1024, ResNet-152 at batch 80 and BERT-large at sequence 384 and 512 on the K80;
# Llama 2 7B and 13B and the larger language models fit no single GPU at any batch: 16 bytes a parameter of
# weights, gradients and AdamW; GPT-3 1.3B needs 48 GB at sequence 2048).
LLAMA = ("llama2-7b-seq2048 llama2-7b-seq4096 llama2-13b-seq2048 llama2-13b-seq4096 llama2-70b-seq4096 "
         "llama3-8b-seq8192 llama3-70b-seq8192 gpt3-1.3b gpt3-6.7b gpt3-13b gpt3-39b gpt3-175b gpt3-1t "
         "megatron-0.5b megatron-1.7b megatron-3.6b megatron-7.5b megatron-18b megatron-76b megatron-145b "
         "megatron-310b megatron-530b dlperf-gpt-1.5b bloom-181b-prequel")
REFUSED = {
    ("workloads/%s.json" % w, "platforms/%s.xml" % p)
    for p, ws in (("p3.2xl", "gpt2-124m gpt2-355m gpt2-774m gpt2-1.5b " + LLAMA),
                  ("p2.xl", "gpt2-124m gpt2-355m gpt2-774m gpt2-1.5b resnet152 bert-large "
                            "bert-large-seq384 bert-large-seq512 " + LLAMA))
    for w in ws.split()}


def untimed(workload):
    """Whether a workload has no measured times (a config's: only the kernel model times it)."""
    with open(os.path.join(REPO, workload)) as f:
        return json.load(f).get("measured_times") is False


def check(binary, platform, workload):
    """One run; returns an error message or None."""
    cmd = [binary, platform, workload, "--format", "json"]
    if untimed(workload):
        cmd += ["--ignore-memory"]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=60)
    what = "%s on %s" % (workload, platform)
    if (workload, platform) in REFUSED:
        if proc.returncode != 1 or not proc.stderr.startswith("%s: error: needs " % workload):
            return "%s: expected a refusal for memory, got exit %d: %s" % (what, proc.returncode,
                                                                           proc.stderr.strip().splitlines()[:1])
        proc = subprocess.run(cmd + ["--ignore-memory"], cwd=REPO, capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        return "%s: exit %d: %s" % (what, proc.returncode, proc.stderr.strip().splitlines()[:1])
    try:
        report = json.loads(proc.stdout)
    except ValueError as e:
        return "%s: output is not JSON (%s)" % (what, e)
    with open(os.path.join(REPO, workload)) as f:
        model = json.load(f)["model"]
    if report.get("workload") != model:
        return "%s: report names workload %r, the file says %r" % (what, report.get("workload"), model)
    thr = report.get("throughput_samples_per_s")
    if not isinstance(thr, (int, float)) or not math.isfinite(thr) or thr <= 0:
        return "%s: throughput_samples_per_s = %r, expected a positive number" % (what, thr)
    return None


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: tests/workloads_run.py STASH_SIM_BINARY\n")
        return 2
    binary = os.path.abspath(sys.argv[1])
    workloads = sorted(os.path.relpath(p, REPO) for p in glob.glob(os.path.join(REPO, "workloads", "*.json")))
    if not workloads:
        print("no workloads/*.json found")
        return 1
    # SS_TEST_THIN=N (the sanitizer build, tests/CMakeLists.txt): one workload in N, every reader's
    # path still taken; the Release build runs them all.
    every = int(os.environ.get("SS_TEST_THIN", "1") or 1)
    workloads = workloads[::max(every, 1)]
    errors = [e for w in workloads for p in (UNTIMED_PLATFORMS if untimed(w) else PLATFORMS)
              for e in [check(binary, p, w)] if e]
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
