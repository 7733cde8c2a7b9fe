#!/usr/bin/env python3
"""csv2workload.py: convert the measured ResNet-50 per-layer CSV into a stash-sim workload.

usage: scripts/csv2workload.py [CSV] [OUT]
       scripts/csv2workload.py --help | --version
  CSV default: ../shared/data/resnet50_v100_bs32_per_layer.csv (relative to the repo root)
  OUT default: workloads/resnet50.json (relative to the repo root)
Standard library only; deterministic (same CSV -> byte-identical JSON).
"""
import csv
import json
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CSV_DEFAULT = os.path.join(REPO, "..", "shared", "data", "resnet50_v100_bs32_per_layer.csv")
OUT_DEFAULT = os.path.join(REPO, "workloads", "resnet50.json")

FWD_COLS = ["fwd_main_us", "fwd_bn_us", "fwd_relu_us", "fwd_other_us"]
BWD_COLS = ["bwd_main_us(dgrad+wgrad)", "bwd_bn_us", "bwd_relu_us", "bwd_other_us", "accumgrad_us"]
BLOCKS_PER_STAGE = [3, 4, 6, 3]           # torchvision resnet50: Bottleneck, [3, 4, 6, 3]
PARAMS_TOTAL = 25557032                   # model_descriptors.csv (torchvision ResNet50_Weights)
STEP_MS = {"fwd": 33.0, "bwd": 64.4, "sgd": 1.3, "total": 98.7}   # single_gpu_throughput.md
OPTIMIZER_S = 0.0013
FC_BIAS = 1000


def dims(s):
    return [int(x) for x in s.split("x")]


def name_layers(rows):
    """torchvision module names, in execution (= CSV) order.
    Each Bottleneck runs conv1, conv2, conv3, then (first block of a stage) downsample.0."""
    names, i = ["conv1"], 1
    for stage, nblocks in enumerate(BLOCKS_PER_STAGE, 1):
        for b in range(nblocks):
            block_in = rows[i]["in"]
            for k in (1, 2, 3):
                names.append("layer%d.%d.conv%d" % (stage, b, k))
            conv3 = rows[i + 2]
            i += 3
            ds = rows[i]
            is_ds = (ds["kind"] == "conv" and ds["w"][2:] == [1, 1] and ds["in"] == block_in
                     and ds["w"][0] == conv3["w"][0])
            if is_ds != (b == 0):
                sys.exit("row %d: downsample expected only in the first block of a stage" % i)
            if is_ds:
                # The residual add + ReLU run after downsample: that row carries relu/other time,
                # conv3 of the same block none (settles the order where the dims are identical).
                if not (conv3["fwd_relu_us"] == 0 and ds["fwd_relu_us"] > 0):
                    sys.exit("row %d: conv3/downsample epilogue check failed" % i)
                names.append("layer%d.%d.downsample.0" % (stage, b))
                i += 1
    if i != len(rows) - 1 or rows[i]["kind"] != "fc":
        sys.exit("expected exactly one fc row after the convs")
    names.append("fc")
    return names


def version():
    """The project's version: VERSION at the repository root, which CMakeLists.txt reads too."""
    with open(os.path.join(REPO, "VERSION"), encoding="utf-8") as f:
        return f.read().strip()


def main():
    if sys.argv[1:2] in (["-h"], ["--help"]):
        sys.stdout.write(__doc__)
        return
    if sys.argv[1:2] == ["--version"]:
        sys.stdout.write("scripts/csv2workload.py (stash-sim) %s\n" % version())
        return
    src = sys.argv[1] if len(sys.argv) > 1 else CSV_DEFAULT
    out = sys.argv[2] if len(sys.argv) > 2 else OUT_DEFAULT
    with open(src, newline="") as f:
        raw = list(csv.DictReader(f))
    rows = []
    for r in raw:
        row = {k: int(r[k]) for k in FWD_COLS + BWD_COLS + ["weight_params", "grad_bytes_fp32"]}
        row.update(kind=r["kind"], **{"in": dims(r["input_dims"]), "w": dims(r["weight_dims"])})
        prod = 1
        for d in row["w"]:
            prod *= d
        if prod != row["weight_params"] or 4 * prod != row["grad_bytes_fp32"]:
            sys.exit("row %s: weight_params/grad_bytes disagree with weight_dims" % r["idx"])
        rows.append(row)
    if len(rows) != 54:
        sys.exit("expected 54 rows, got %d" % len(rows))

    names = name_layers(rows)
    layers, fwd_us, bwd_us = [], 0, 0
    for name, r in zip(names, rows):
        f_us = sum(r[c] for c in FWD_COLS)
        b_us = sum(r[c] for c in BWD_COLS)
        extra = FC_BIAS if r["kind"] == "fc" else 2 * r["w"][0]   # fc bias / following BN gamma+beta
        layers.append({"name": name, "fwd_s": f_us / 1e6, "bwd_s": b_us / 1e6,
                       "params": r["weight_params"] + extra})
        fwd_us, bwd_us = fwd_us + f_us, bwd_us + b_us

    weights = sum(r["weight_params"] for r in rows)
    total = sum(l["params"] for l in layers)
    print("params: conv+fc weights %d + BN affine %d + fc bias %d = %d (model_descriptors.csv %d): %s"
          % (weights, total - weights - FC_BIAS, FC_BIAS, total, PARAMS_TOTAL,
             "OK" if total == PARAMS_TOTAL else "MISMATCH"))
    step_ms = (fwd_us + bwd_us) / 1e3 + OPTIMIZER_S * 1e3
    print("fwd  sum %.3f ms (trace step breakdown %.1f ms)" % (fwd_us / 1e3, STEP_MS["fwd"]))
    print("bwd  sum %.3f ms (trace step breakdown %.1f ms)" % (bwd_us / 1e3, STEP_MS["bwd"]))
    print("fwd+bwd+SGD %.3f ms (trace GPU kernel time per step %.1f ms, diff %+.2f%%)"
          % (step_ms, STEP_MS["total"], 100 * (step_ms / STEP_MS["total"] - 1)))
    if total != PARAMS_TOTAL:
        sys.exit("parameter total mismatch")

    samples, dataset_bytes = 1281167, 146e9
    workload = {
        "schema": "stash-sim-workload/1",
        "model": "resnet50",
        "precision": "fp32",
        "batch_per_gpu": 80,
        "grad_bytes_per_param": 4,
        "reference": {"gpu_model": "Tesla V100-DGXS-32GB", "gpu_flops": 15.7e12, "batch": 32},
        "optimizer_s": OPTIMIZER_S,
        "layers": layers,
        "dataset": {"name": "imagenet-1k", "samples": samples,
                    "bytes_per_sample": round(dataset_bytes / samples),
                    "prep_cpu_s_per_sample": 0.004, "decoded_bytes_per_sample": 3 * 224 * 224},
        "devices": [
            {"gpu_model": "Tesla K80", "fwd_s": 0.12438, "bwd_s": 0.27443,
             "reference_fwd_s": 0.01983, "reference_bwd_s": 0.04626,
             "source": "MEASURED: shared/data/single_gpu_fwd_bwd.md, ResNet-50, batch 16, Torch + cuDNN FP32 "
                       "(github.com/dmikushin/cnn-benchmarks): Tesla K80 (one GK210, AWS p2, cuDNN 5.1.10) "
                       "124.38 + 274.43 ms vs Tesla V100 (AWS P3, cuDNN 7.0.04) 19.83 + 46.26 ms. The ratios "
                       "(6.27 forward, 5.93 backward) are applied to this workload's V100 times; the V100 of "
                       "that benchmark is an SXM2 part, the trace's a DGXS, the same GV100 chip. The cuDNN "
                       "versions differ, as they did on those instances."},
            {"gpu_model": "NVIDIA A100-SXM4-40GB", "samples_per_s": 938, "reference_samples_per_s": 367,
             "source": "MEASURED: shared/data/single_gpu_throughput.md, ResNet-50 v1.5 training, NGC "
                       "PyTorch (NVIDIA/DeepLearningExamples): A100 80GB TF32 938 img/s vs V100-SXM2-16GB "
                       "FP32 367 img/s. TF32 is what FP32 training runs at on an A100 by default; the 40GB "
                       "and 80GB A100 have the same compute (the 80GB part's faster memory is ignored). One "
                       "ratio (0.391) for forward, backward and optimizer."},
        ],
        "provenance": {
            "per_layer_times": "MEASURED: shared/data/resnet50_v100_bs32_per_layer.csv (per-layer GPU kernel times from the pytorch/kineto tb_plugin sample trace traces/resnet50_v100_bs32_workers0.pt.trace.json.gz, Tesla V100-DGXS-32GB, FP32, batch 32). fwd_s = (fwd_main+fwd_bn+fwd_relu+fwd_other) us / 1e6; bwd_s = (dgrad+wgrad + bwd_bn + bwd_relu + bwd_other + accumgrad) us / 1e6; no rounding. Non-conv kernels stay in the row the CSV attributes them to (e.g. conv1's fwd_other presumably holds the maxpool, and the residual add+ReLU sit in the rows of conv3 / downsample.0 that end a block); this attribution was not re-derived from the trace. Sums: fwd %.3f ms (trace step breakdown 33.0 ms), bwd %.3f ms (64.4 ms), fwd+bwd+SGD %.3f ms vs 98.7 ms GPU kernel time per step (single_gpu_throughput.md)." % (fwd_us / 1e3, bwd_us / 1e3, step_ms),
            "layer_names": "DERIVED: torchvision resnet50 module names. CSV row 0 = conv1 (7x7, 3->64); then Bottleneck blocks [3,4,6,3] for layer1..layer4, each in execution order conv1 (1x1), conv2 (3x3), conv3 (1x1), and in block 0 of each stage downsample.0 (1x1 conv on the block input, out = 4*planes) after conv3, as in torchvision Bottleneck.forward. In layer2-4 the downsample row is identified by its input dims (block input, e.g. 32x256x56x56 vs conv3's 32x128x28x28); in layer1.0 conv3 and downsample.0 have identical dims (64x56x56 in, 256x64x1x1), so the order is settled by execution order plus the epilogue: row 3 has no ReLU/other time (bn3 only), row 4 carries the residual add and ReLU, which torchvision runs after downsample. Last row = fc.",
            "params": "DERIVED from MEASURED dims: conv layers = weight_params + 2 x out_channels (gamma+beta of the BatchNorm that follows the conv; conv bias=False in torchvision); fc = 2048*1000 weights + 1000 bias. BN running_mean/var are buffers, not parameters, so no gradients. Total %d = model_descriptors.csv params_total 25,557,032 (conv+fc weights %d + BN affine %d + fc bias 1000)." % (total, weights, total - weights - FC_BIAS),
            "grad_bytes_per_param": "FP32 gradients: 4 bytes (CSV grad_bytes_fp32 = 4 x weight_params).",
            "optimizer_s": "MEASURED: SGD (momentum 0.9) step 1.3 ms GPU kernel time in the same trace's step breakdown (fwd 33.0, bwd 64.4, SGD 1.3 ms of a 98.7 ms step), single_gpu_throughput.md.",
            "reference.gpu_model": "MEASURED: deviceProperties of the trace: Tesla V100-DGXS-32GB (80 SMs, CC 7.0).",
            "reference.batch": "MEASURED: the trace's DataLoader batch_size=32 (input dims 32x3x224x224 in the CSV).",
            "reference.gpu_flops": "NOT FROM shared/data: 15.7e12 is NVIDIA's V100 (SXM2) FP32 peak from the V100 datasheet. ESTIMATE that it applies to the trace's V100-DGXS-32GB: same GV100 GPU (80 SMs) at similar boost clocks; its exact peak was not looked up.",
            "batch_per_gpu": "Default batch = Stash's batch for ResNet-50 (80 per GPU: scripts/run_p3_largeModels.sh and run_p3.8x_dist.sh, stash_methodology.md section 4); layer times, measured at the reference batch 32, scale linearly with the batch (docs/model.md). --batch overrides it.",
            "dataset.name": "ImageNet-1k (ILSVRC-2012) is the dataset of the Stash/DS-Analyzer ResNet-50 runs (stash_methodology.md section 4). The timing trace itself used CIFAR-10 resized to 224.",
            "dataset.samples": "1,281,167 = ILSVRC-2012 training-set image count (public dataset fact, not in shared/data). stash_methodology.md section 4 records SAMPLES=1281166 in the Stash scripts (one less); the difference is immaterial.",
            "dataset.bytes_per_sample": "DERIVED: ~146 GB ImageNet-1k size (DS-Analyzer README, stash_methodology.md section 5) / 1,281,167 samples = %d bytes, taking GB = 1e9 bytes (the source does not say GB vs GiB; with GiB it would be ~122 KB). Approximate: 146 GB is itself a rounded figure." % round(dataset_bytes / samples),
            "dataset.decoded_bytes_per_sample": "DERIVED from Stash's DALI CPU pipeline for ResNet-50 (stash_methodology.md section 4: --dali_cpu; HybridTrainPipe decodes, crops and resizes to 224x224 on the CPU, then images.gpu() and CropMirrorNormalize normalise to FP32 on the GPU): the host-to-device copy is the uint8 3x224x224 crop, 150,528 bytes. The profiler trace's PyTorch DataLoader copied FP32 instead (a 19,267,584-byte batch = 32 x 602,112 bytes, link_bandwidth.md): pass a workload with 602,112 to model that pipeline.",
            "dataset.prep_cpu_s_per_sample": "ESTIMATE (4 ms, plausible range ~3-6 ms): the only measurement is the trace's DataLoader.__next__ = 63-73 ms per 32-sample batch with num_workers=0 (single_gpu_throughput.md; the trace's _SingleProcessDataLoaderIter confirms one process, although the bundled resnet50_profiler_api.py.txt says num_workers=4), i.e. ~2.0-2.3 ms/sample on one core for CIFAR-10 (in-memory 32x32, no JPEG decode) + Resize(256) + CenterCrop(224) + ToTensor + collate. ImageNet training adds reading and JPEG-decoding a ~110 KB (~400x350 px) image, guessed at ~2 ms with libjpeg-turbo/PIL, with RandomResizedCrop+flip costing about the same as the resize/crop it replaces (Normalize is small): ~2.1 + ~2 = ~4 ms. Not measured; the host CPU of the trace is unknown.",
            "generated_by": "scripts/csv2workload.py (python3, stdlib only, deterministic) from shared/data/resnet50_v100_bs32_per_layer.csv; regenerate with: python3 scripts/csv2workload.py",
        },
    }
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        f.write(json.dumps(workload, indent=2) + "\n")
    print("wrote %s (%d layers)" % (os.path.relpath(out, REPO), len(layers)))


if __name__ == "__main__":
    main()
