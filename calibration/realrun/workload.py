#!/usr/bin/python3
"""The stash-sim workload of train.py's job, measured in ONE process on this machine.

Calibrates on single-process measurements so that the 2-process DDP run is a prediction:
  - per-layer forward and backward seconds of train.py's SmallCNN at --batch, one torch thread
    (a "GPU" of the platform is one training process on one core): each block of model.blocks is
    timed in the forward pass with time.perf_counter; in the backward pass a hook on each block's
    output fires when the gradient reaches it, which is when that block's backward starts, so a
    block's backward is the time to the next hook (to the end of backward() for the first block);
    the loss is booked to the last layer; medians over --iters steps after --warmup;
  - the optimizer step (zero_grad + SGD step, as train.py does it), median;
  - an uninstrumented whole step (forward, loss, backward, optimizer) as a check of the sum;
  - parameters per block, from the module;
  - the data set: image count, mean file size on disk, CPU seconds per sample of what a DataLoader
    worker does (open, read from the page cache, JPEG decode, RandomResizedCrop, flip, ToTensor,
    Normalize, and the batch's collate) timed over --prep-batches batches in this process, and the
    bytes of one decoded sample (the float32 tensor and its int64 label).
The reference device is this machine's core: reference.gpu_model is "cpu-core-<CPU model>" and
reference.gpu_flops the measured rate (forward FLOPs x 3 per step over the measured forward +
backward time), which machine.py copies into the platform's "GPU" hosts, so the simulator scales
nothing (ratio 1).

  workload.py --data DIR [--batch 32] [--iters 20] [-o workload.json]

stash-calibrate trace (the lead's importer of profiler traces) will make the same file from a
trace; this script is the direct measurement to compare it with.
"""
import argparse
import json
import os
import random
import statistics
import sys
import time

import torch
import torch.nn.functional as F
from torch.utils.data import default_collate

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train  # noqa: E402  (same directory)


def timed_step(model, opt, x, y):
    """One training step, instrumented: (per-block fwd seconds, per-block bwd seconds, optimizer s)."""
    blocks = list(model.blocks.children())
    n = len(blocks)
    fwd = [0.0] * n
    stamps = [0.0] * n
    h = x
    for i, blk in enumerate(blocks):
        t0 = time.perf_counter()
        h = blk(h)
        if i == n - 1:
            h = F.cross_entropy(h, y)
        fwd[i] = time.perf_counter() - t0
        if i < n - 1 and h.requires_grad:
            # The gradient of block i's output is ready: block i+1's backward is over, block i's starts.
            h.register_hook(lambda g, i=i: stamps.__setitem__(i, time.perf_counter()))
    t0 = time.perf_counter()
    opt.zero_grad(set_to_none=True)
    zero = time.perf_counter() - t0
    t0 = time.perf_counter()
    h.backward()
    t_end = time.perf_counter()
    bwd = [0.0] * n
    bwd[n - 1] = stamps[n - 2] - t0
    for i in range(n - 2, 0, -1):
        bwd[i] = stamps[i - 1] - stamps[i]
    bwd[0] = t_end - stamps[0]
    t0 = time.perf_counter()
    opt.step()
    return fwd, bwd, zero + time.perf_counter() - t0


def plain_step(model, opt, x, y):
    t0 = time.perf_counter()
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    return time.perf_counter() - t0


def measure_compute(args, x, y):
    torch.manual_seed(args.seed)
    model = train.SmallCNN()
    opt = train.make_optimizer(model)
    model.train()
    runs = []
    for k in range(args.warmup + args.iters):
        r = timed_step(model, opt, x, y)
        if k >= args.warmup:
            runs.append(r)
    n = len(runs[0][0])
    fwd = [statistics.median(r[0][i] for r in runs) for i in range(n)]
    bwd = [statistics.median(r[1][i] for r in runs) for i in range(n)]
    opt_s = statistics.median(r[2] for r in runs)
    plain = [plain_step(model, opt, x, y) for _ in range(args.iters)]
    names = [name for name, _ in model.blocks.named_children()]
    params = [sum(p.numel() for p in blk.parameters()) for blk in model.blocks.children()]
    return names, fwd, bwd, params, opt_s, statistics.median(plain), model


def measure_prep(args, ds):
    """CPU seconds per sample of a DataLoader worker's work: __getitem__ of every sample of a batch,
    then default_collate; a warm-up batch first, then --prep-batches batches of shuffled indices.
    Returns the median over batches of the batch's CPU time (time.process_time: this process, one
    thread) per sample, and the same for the wall time: the CPU time is what the simulator wants
    (reference-core seconds) and what another process on the machine does not inflate."""
    rng = random.Random(args.seed)
    order = list(range(len(ds)))
    rng.shuffle(order)
    need = (args.prep_batches + 1) * args.batch
    order = (order * (need // len(order) + 1))[:need]
    torch.manual_seed(args.seed)
    default_collate([ds[i] for i in order[:args.batch]])
    cpu, wall = [], []
    for b in range(1, args.prep_batches + 1):
        t0, c0 = time.perf_counter(), time.process_time()
        default_collate([ds[i] for i in order[b * args.batch:(b + 1) * args.batch]])
        cpu.append((time.process_time() - c0) / args.batch)
        wall.append((time.perf_counter() - t0) / args.batch)
    return statistics.median(cpu), statistics.median(wall)


def sig(v, digits=6):
    return float("%.*g" % (digits, v))


def build(args):
    train.set_threads(args.threads)
    manifest = train.generate(args.data, args.images, args.seed)
    ds = train.ImageFiles(args.data)
    files = [os.path.join(args.data, name) for name, _ in manifest["files"]]
    bytes_per_sample = sum(os.path.getsize(f) for f in files) / len(files)
    busy0, own0, t0 = train.busy_cpu_s(), train.own_cpu_s(), time.perf_counter()
    prep_s, prep_wall_s = measure_prep(args, ds)
    torch.manual_seed(args.seed)
    batch = default_collate([ds[i] for i in range(args.batch)])
    x, y = batch
    decoded = x[0].nelement() * x.element_size() + y.element_size()
    names, fwd, bwd, params, opt_s, plain_s, model = measure_compute(args, x, y)
    other = 0.0
    if busy0 is not None:
        other = max(0.0, train.busy_cpu_s() - busy0 - (train.own_cpu_s() - own0)) / ((time.perf_counter() - t0) * train.vcpus())
    flops_fwd = sum(train.forward_flops_per_sample(model).values()) * args.batch
    rate = 3 * flops_fwd / (sum(fwd) + sum(bwd))
    cpu = train.cpu_model()
    device = "cpu-core-%s" % cpu
    cmd = "/usr/bin/python3 calibration/realrun/workload.py " + " ".join(sys.argv[1:])
    parts = sum(fwd) + sum(bwd) + opt_s
    return {
        "schema": "stash-sim-workload/1",
        "model": "realrun-smallcnn",
        "precision": "fp32",
        "batch_per_gpu": args.batch,
        "grad_bytes_per_param": 4,
        "reference": {"gpu_model": device, "gpu_flops": round(rate), "batch": args.batch},
        "optimizer_s": sig(opt_s),
        "layers": [{"name": n, "fwd_s": sig(f), "bwd_s": sig(b), "params": p}
                   for n, f, b, p in zip(names, fwd, bwd, params)],
        "dataset": {"name": "realrun-jpeg%d" % train.IMAGE_SIDE, "samples": len(files),
                    "bytes_per_sample": sig(bytes_per_sample),
                    "prep_cpu_s_per_sample": sig(prep_s),
                    "decoded_bytes_per_sample": decoded},
        "provenance": {
            "measured_with": "MEASURED on this machine (%s, %d vCPUs, torch %s, %d torch thread(s), one process): %s"
                             % (cpu, train.vcpus(), torch.__version__, args.threads, cmd),
            "per_layer_times": "MEASURED: medians over %d steps after %d warm-up steps of train.py's SmallCNN at batch "
                               "%d on a fixed batch of the data set; a layer is one block of model.blocks (conv, "
                               "BatchNorm, ReLU, max-pool / linear, ReLU); forward timed per block, backward from the "
                               "hook on each block's output to the next (the loss goes to fc2)" % (args.iters, args.warmup, args.batch),
            "check": "sum of layers + optimizer %.6f s; uninstrumented whole step %.6f s (median of %d): %+.1f%%; "
                     "other processes used %.1f%% of the machine's CPU time meanwhile"
                     % (parts, plain_s, args.iters, 100 * (parts / plain_s - 1), 100 * other),
            "optimizer_s": "MEASURED: zero_grad(set_to_none) + SGD momentum step, median",
            "params": "from the module: %d in all" % sum(params),
            "reference": "DERIVED: gpu_model names this machine's core; gpu_flops = 3 x forward FLOPs of the batch "
                         "(%.4g, multiply-add = 2, convs and linears) / measured forward + backward seconds; "
                         "calibration/realrun/machine.py gives the platform's GPU hosts this same speed" % flops_fwd,
            "dataset": "MEASURED: %d generated JPEGs (%dx%d, quality %d, seed %d), mean file size on disk; "
                       "prep_cpu_s_per_sample = CPU seconds (time.process_time) per sample of __getitem__ (open, read "
                       "from the page cache, decode, RandomResizedCrop(%d), flip, ToTensor, Normalize) + collate, "
                       "median over %d batches of %d in this process (wall time %.6g s per sample); decoded bytes = the float32 "
                       "3x%dx%d tensor + its int64 label"
                       % (len(files), train.IMAGE_SIDE, train.IMAGE_SIDE, train.JPEG_QUALITY, args.seed,
                          train.CROP_SIDE, args.prep_batches, args.batch, prep_wall_s, train.CROP_SIDE, train.CROP_SIDE),
        },
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", required=True, help="image directory (train.py's; generated if missing)")
    p.add_argument("--images", type=int, default=4096, help="images to generate if missing (default 4096)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--batch", type=int, default=32, help="reference batch (default 32)")
    p.add_argument("--threads", type=int, default=1, help="torch threads (default 1, as train.py)")
    p.add_argument("--warmup", type=int, default=5, help="steps before measuring (default 5)")
    p.add_argument("--iters", type=int, default=20, help="measured steps (default 20)")
    p.add_argument("--prep-batches", type=int, default=20, help="batches timed for the preparation (default 20)")
    p.add_argument("-o", "--output", default="-", help="workload file (default: standard output)")
    args = p.parse_args()
    w = build(args)
    text = json.dumps(w, indent=2) + "\n"
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w") as f:
            f.write(text)
    t = sum(l["fwd_s"] + l["bwd_s"] for l in w["layers"]) + w["optimizer_s"]
    print("workload.py: batch %d: forward+backward+optimizer %.1f ms, prep %.3f ms/sample (%.1f ms/batch), "
          "%s" % (args.batch, 1e3 * t, 1e3 * w["dataset"]["prep_cpu_s_per_sample"],
                  1e3 * args.batch * w["dataset"]["prep_cpu_s_per_sample"], w["provenance"]["check"]),
          file=sys.stderr)


if __name__ == "__main__":
    main()
