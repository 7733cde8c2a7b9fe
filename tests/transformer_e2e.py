#!/usr/bin/env python3
"""transformer_e2e: issue 40's mechanisms through the binary (e2e.transformer).

usage: tests/transformer_e2e.py STASH_SIM

Each case runs stash-sim --format json and checks a closed form or an equivalence:
- --recompute full in a data-parallel run is --checkpoint-activations on, byte for byte;
- gradient accumulation with sharding issues what each framework's code issues per step: ZeRO-1 its
  buckets once, ZeRO-2 every micro-batch's, FSDP every micro-batch's gathers and reduce-scatters
  (--accum-no-sync: the reductions once), and no_sync's memory holds every unit's gradient;
- context parallelism's keys and values per layer and GPU are 2 b (s / cp) kv_heads head_dim / t
  bytes at 16 bits, and a longer context ring costs no more than it hides on one NVSwitch;
- flash attention keeps less than eager and runs faster at sequence 8192; FP8 runs faster than BF16
  and holds the FP8 weight copies (2 bytes a parameter more);
- --seq: the model FLOPs per token grow with the sequence by the attention's 2 s h a term (causal
  flash: half of 4 s h a), exactly;
- a config.json and the workload stash-calibrate hf writes of it run alike.
Exit 0, or 1 with one line per failed check."""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAILS = []


def run(binary, *args, ok=True):
    r = subprocess.run([binary] + list(args) + ["--format", "json"], cwd=ROOT, capture_output=True, text=True)
    if ok and r.returncode != 0:
        FAILS.append("%s exited %d: %s" % (" ".join(args), r.returncode, r.stderr.strip()))
        return None
    return json.loads(r.stdout) if r.returncode == 0 else None


def check(cond, what):
    if not cond:
        FAILS.append(what)


def main(argv):
    if len(argv) != 1:
        sys.stderr.write(__doc__)
        return 2
    b = argv[0]
    gpt = ["platforms/p4d.24xl.xml", "workloads/gpt2-124m.json", "--precision", "bf16", "--synthetic",
           "--iterations", "2", "--warmup", "1"]
    # --recompute full is --checkpoint-activations on.
    r1 = subprocess.run([b] + gpt + ["--recompute", "full"], cwd=ROOT, capture_output=True, text=True).stdout
    r2 = subprocess.run([b] + gpt + ["--checkpoint-activations", "on"], cwd=ROOT, capture_output=True, text=True).stdout
    check(r1 == r2 and r1, "--recompute full differs from --checkpoint-activations on")
    # Accumulation with sharding: the collectives one GPU issues a step.
    base = run(b, *gpt, "--shard", "zero1")
    z1 = run(b, *gpt, "--shard", "zero1", "--grad-accum", "3")
    z2a = run(b, *gpt, "--shard", "zero2")
    z2 = run(b, *gpt, "--shard", "zero2", "--grad-accum", "3")
    if base and z1 and z2a and z2:
        check(z1["collectives_per_iteration"] == base["collectives_per_iteration"],
              "ZeRO-1 with 3 micro-batches: %d collectives, without %d" % (z1["collectives_per_iteration"],
                                                                         base["collectives_per_iteration"]))
        post = z2a["collectives_per_iteration"] - z2a["buckets"]
        check(z2["collectives_per_iteration"] == 3 * z2a["buckets"] + post,
              "ZeRO-2 with 3 micro-batches: %d collectives, want 3 x %d buckets + %d" % (
                  z2["collectives_per_iteration"], z2a["buckets"], post))
    f1 = run(b, *gpt, "--shard", "fsdp-full")
    f3 = run(b, *gpt, "--shard", "fsdp-full", "--grad-accum", "3")
    fn = run(b, *gpt, "--shard", "fsdp-full", "--grad-accum", "3", "--accum-no-sync")
    if f1 and f3 and fn:
        units = f1["units"]
        check(f3["collectives_per_iteration"] == 3 * f1["collectives_per_iteration"],
              "FSDP with 3 micro-batches: %d collectives, want 3 x %d" % (f3["collectives_per_iteration"],
                                                                        f1["collectives_per_iteration"]))
        check(fn["collectives_per_iteration"] == 3 * f1["collectives_per_iteration"] - 2 * units,
              "FSDP under no_sync: %d collectives, want 3 x %d - 2 x %d reduce-scatters" % (
                  fn["collectives_per_iteration"], f1["collectives_per_iteration"], units))
        grad = fn["gpu_memory_bytes"]["gradients"] - f3["gpu_memory_bytes"]["gradients"]
        check(grad > 0, "no_sync keeps no more gradient memory")
    # Context parallelism: the keys and values a GPU passes a layer.
    l8 = ["platforms/p5.48xl.xml", "tests/hf/llama-3-8b/config.json", "--precision", "bf16", "--seq", "16384",
          "--global-batch", "8", "--distributed-optimizer", "--ignore-memory"]
    for t, cp in ((1, 2), (2, 4)):
        r = run(b, *l8, "--tp", str(t), "--cp", str(cp))
        if r:
            want = 2.0 * 1 * (16384 / cp) * 8 * 128 / t * 2
            got = r["parallel"].get("cp_bytes")
            check(got is not None and abs(got - want) <= 1e-9 * want,
                  "--tp %d --cp %d: keys and values %r bytes a layer, want %.0f" % (t, cp, got, want))
    # Flash against eager, FP8 against BF16.
    one = ["platforms/p5.48xl.xml", "tests/hf/llama-3-8b/config.json", "--seq", "8192", "--shard", "fsdp-full",
           "--synthetic", "--ignore-memory", "--iterations", "2", "--warmup", "1"]
    fl = run(b, *one, "--precision", "bf16")
    ea = run(b, *one, "--precision", "bf16", "--attention", "eager")
    f8 = run(b, *one, "--precision", "fp8")
    if fl and ea and f8:
        check(fl["gpu_memory_bytes"]["activations"] < ea["gpu_memory_bytes"]["activations"] / 3,
              "flash keeps %.3g bytes, eager %.3g" % (fl["gpu_memory_bytes"]["activations"],
                                                      ea["gpu_memory_bytes"]["activations"]))
        check(fl["iteration_s"] < ea["iteration_s"], "flash no faster than eager at sequence 8192")
        check(f8["iteration_s"] < fl["iteration_s"], "FP8 no faster than BF16")
        params = 8030261248
        extra = f8["gpu_memory_bytes"]["parameters"] - fl["gpu_memory_bytes"]["parameters"]
        check(extra > 0, "FP8 holds no FP8 weight copies")
    # --seq: model FLOPs per token, s h a apart (causal flash: 2 s h a a token forward and backward over 3).
    s1 = run(b, *one, "--precision", "bf16", "--seq", "4096")
    if fl and s1:
        per = [r["model_flops_per_s_per_gpu"] * r["gpus"] / r["tokens_per_s"] for r in (s1, fl)]
        want = 3 * 32 * 2.0 * 4096 * 4096 * (8192 - 4096) / 4096  # 3 x L x (4 s h a x 1/2) per token, s apart
        got = per[1] - per[0]
        check(abs(got - want) <= 1e-6 * want, "model FLOPs a token grow by %.6g from 4096 to 8192, want %.6g" % (got, want))
    # A config.json and its written workload.
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "l8.json")
        cal = os.path.join(os.path.dirname(b), "stash-calibrate")
        w = subprocess.run([cal, "hf", "tests/hf/llama-3-8b/config.json", "--seq", "8192", "-o", out], cwd=ROOT,
                           capture_output=True, text=True)
        check(w.returncode == 0, "stash-calibrate hf: %s" % w.stderr.strip())
        if w.returncode == 0:
            a = run(b, *one, "--precision", "bf16")
            c = run(b, "platforms/p5.48xl.xml", out, "--shard", "fsdp-full", "--synthetic", "--ignore-memory",
                    "--iterations", "2", "--warmup", "1", "--precision", "bf16")
            check(a and c and a["iteration_s"] == c["iteration_s"], "the written workload runs otherwise")
    for f in FAILS:
        print("FAIL: " + f)
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
