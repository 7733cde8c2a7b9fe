#!/usr/bin/env python3
"""csv2workload.py: convert the measured ResNet-50 per-layer CSV into a stash-sim workload.

usage: scripts/csv2workload.py [CSV] [OUT] [TRACE]
       scripts/csv2workload.py --help | --version
  CSV default: ../shared/data/resnet50_v100_bs32_per_layer.csv (relative to the repo root)
  OUT default: workloads/resnet50.json (relative to the repo root)
  TRACE default: ../shared/data/traces/resnet50_v100_bs32_workers0.pt.trace.json.gz, the Kineto
    trace the CSV comes from: the host (CPU) times per layer and of the optimizer, and the
    parameter tensors, measured with stash-calibrate trace's attribution rules (docs/calibration.md)
Standard library only; deterministic (same inputs -> byte-identical JSON).
"""
import csv
import gzip
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from studylib import replace_file  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CSV_DEFAULT = os.path.join(REPO, "..", "shared", "data", "resnet50_v100_bs32_per_layer.csv")
OUT_DEFAULT = os.path.join(REPO, "workloads", "resnet50.json")
TRACE_DEFAULT = os.path.join(REPO, "..", "shared", "data", "traces", "resnet50_v100_bs32_workers0.pt.trace.json.gz")

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


def work_fields(rows, names):
    """Each layer's work keys (FLOPs, activation bytes, kept bytes, kernels per sample), by
    calibration/gen_models.py's formulas (layer_work) applied to the CSV's shapes: a conv's input
    and weight dims from its row, its stride from the shapes (the stem's 7x7 conv: 2, padding 3;
    a block's conv2 and downsample.0: the block input's size over conv3's input's; 1 otherwise;
    padding k // 2), each conv followed by its BatchNorm, ReLU where torchvision has one; the stem's
    max pool, each block's residual add + ReLU after its last conv, the average pool, fc and loss
    as torchvision's resnet50 runs them."""
    sys.path.insert(0, os.path.join(REPO, "calibration"))
    import gen_models  # noqa: E402 (the formulas; no workload is generated on import)
    n = gen_models.Net()
    for i, (name, r) in enumerate(zip(names, rows)):
        if r["kind"] == "fc":
            n.pool_linear(name, r["w"][1], hw)
            continue
        cout, cin, k = r["w"][0], r["in"][1], r["w"][2]
        size = (r["in"][2], r["in"][3])
        end = name.endswith("conv3") or name.endswith("downsample.0")
        if name == "conv1":
            hw = n.conv(name, cin, size, cout, k, 2, 3, bn=True, act=True)
            hw = n.maxpool(cout, hw, 3, 2, 1)
            continue
        stride = 1
        if name.endswith("conv2"):
            stride = r["in"][2] // rows[i + 1]["in"][2]
        elif name.endswith("downsample.0"):
            stride = r["in"][2] // rows[i - 1]["in"][2]
        hw = n.conv(name, cin, size, cout, k, stride, k // 2, bn=True, act=not end, into_add=end)
        last = i + 1 == len(names) - 1 or names[i + 1].endswith("conv1")
        if last:
            n.extra(5 * cout * hw[0] * hw[1], ["eltwise"] * 2, ["eltwise"] * 2 + ["grad_sum"],
                    saved=cout * hw[0] * hw[1])
    n.host(["loss", "seed"], ["loss"])
    return gen_models.layer_work(n)


# ---- host (CPU) times of a Kineto trace, by stash-calibrate trace's rules (calibration/cal_profile.c) ----
STEP, DATA, OPT, LAYER, NORM, BWD, ACC, OTHER = range(8)


def _dims(d, k):
    """(product, rank) of Input Dims[k]; (0, 0) when absent or empty."""
    if not isinstance(d, list) or k >= len(d) or not isinstance(d[k], list) or not d[k]:
        return 0, 0
    p = 1
    for x in d[k]:
        p *= x if isinstance(x, (int, float)) else 0
    return p, len(d[k])


def classify(name, args):
    """(kind, [tensor elements]) as cal_profile.c's classify."""
    d = args.get("Input Dims")
    if name.startswith("ProfilerStep#"):
        return STEP, []
    if name.startswith("enumerate(DataLoader)"):
        return DATA, []
    if name.startswith("Optimizer."):
        return OPT, []
    if name == "torch::autograd::AccumulateGrad" or (
            name.startswith("autograd::engine::evaluate_function:") and "AccumulateGrad" in name):
        return ACC, []
    if "Backward" in name and not name.startswith("aten::"):
        return BWD, []
    if (name.startswith("aten::conv") and "backward" not in name) or name == "aten::linear":
        w, r = _dims(d, 1)
        b, _ = _dims(d, 2)
        return (LAYER, [x for x in (w, b) if x > 0]) if w > 0 and r >= 2 else (OTHER, [])
    if name == "aten::addmm":
        w, _ = _dims(d, 2)
        b, _ = _dims(d, 0)
        return (LAYER, [x for x in (w, b) if x > 0]) if w > 0 else (OTHER, [])
    if name == "aten::embedding":
        w, _ = _dims(d, 0)
        return (LAYER, [w]) if w > 0 else (OTHER, [])
    if name in ("aten::batch_norm", "aten::layer_norm"):
        k = 1 if name == "aten::batch_norm" else 2
        return NORM, [x for x in (_dims(d, k)[0], _dims(d, k + 1)[0]) if x > 0]
    return OTHER, []


class Op:
    __slots__ = ("name", "tid", "ts", "end", "ext", "seq", "kind", "tensors", "parent", "special",
                 "layer_op", "self", "i")


def _id(args, key):
    v = args.get(key)
    return int(v) if isinstance(v, (int, float)) and v >= 0 and v == int(v) else -1


def load_trace(path):
    """The operators (nested, sorted by thread and start) and the runtime calls of a trace."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        events = json.load(f)["traceEvents"]
    ops, launches = [], []
    for e in events:
        if e.get("ph") != "X" or not isinstance(e.get("name"), str):
            continue
        cat, args = e.get("cat"), e.get("args") or {}
        if cat == "Runtime" and e["name"] == "cudaLaunchKernel":
            launches.append((_id(args, "external id"), e["dur"]))
        if cat not in ("Operator", "cpu_op", "user_annotation"):
            continue
        o = Op()
        o.name, o.tid, o.ts, o.end = e["name"], str(e.get("tid")), e["ts"], e["ts"] + e["dur"]
        o.ext, o.seq = _id(args, "External id"), _id(args, "Sequence number")
        o.kind, o.tensors = classify(e["name"], args)
        ops.append(o)
    ops.sort(key=lambda o: (o.tid, o.ts, -o.end))
    stack = []
    for i, o in enumerate(ops):
        while stack and (stack[-1].tid != o.tid or o.ts >= stack[-1].end):
            stack.pop()
        o.i, o.self, o.parent = i, o.end - o.ts, stack[-1] if stack else None
        o.special = o.parent.special if o.parent else None
        o.layer_op = o.parent.layer_op if o.parent else None
        if o.parent:
            o.parent.self -= o.end - o.ts
        if o.special is None and o.kind in (DATA, OPT, BWD, ACC):
            o.special = o
        if o.layer_op is None and o.kind == LAYER:
            o.layer_op = o
        stack.append(o)
    for o in ops:
        o.self = max(o.self, 0)
    return ops, launches


def _median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def measure_trace(path):
    """The host figures of a Kineto trace, each the median over its profiler steps: per layer the
    host forward and backward us and the parameter tensors (of the first step); the optimizer's us
    (its step and zero_grad), the top-level operators and cudaLaunchKernel calls of each part; and
    over all steps, per top-level operator name, [calls, us including the time before it]."""
    ops, launches = load_trace(path)
    by_ext = {o.ext: o for o in ops if o.ext >= 0}
    per_step, stats = [], {"fwd": {}, "bwd": {}, "opt": {}}
    for s in sorted((o for o in ops if o.kind == STEP), key=lambda o: o.ts):
        mine = [o for o in ops if s.ts <= o.ts < s.end]
        st = {"counted": {}, "stats": stats, "op_events": sum(1 for o in mine if o.kind != STEP)}
        _trace_forward(mine, st)
        _trace_backward(ops, mine, st)
        _trace_optimizer(mine, st)
        _trace_launches(launches, by_ext, st)
        per_step.append(st)
    nl = len(per_step[0]["fwd"])
    if any(len(p["fwd"]) != nl for p in per_step):
        sys.exit("%s: the profiler steps differ in layers" % path)
    med = {"steps": len(per_step), "tensors": per_step[0]["tensors"], "op_stats": stats,
           "host_fwd_us": [_median([p["fwd"][i] for p in per_step]) for i in range(nl)],
           "host_bwd_us": [_median([p["bwd"][i] for p in per_step]) for i in range(nl)]}
    for k in ("op_events", "opt", "opt_step", "opt_zero", "opt_step_ops", "fwd_ops", "bwd_ops", "launch_fwd", "launch_bwd",
              "launch_opt", "launch_fwd_us", "launch_bwd_us", "launch_opt_us"):
        med[k] = _median([p[k] for p in per_step])
    return med


def _count(st, o, part, layers, layer, gap):
    """Book o's own time to layers[layer], and when it is a top-level operator of its part (its
    parent is not), the time since the previous one (Python, the autograd engine) too."""
    layers[layer] += o.self
    st["counted"][o.i] = part
    if o.parent is not None and st["counted"].get(o.parent.i) == part:
        return False
    layers[layer] += gap
    c = st["stats"][part].setdefault(o.name, [0, 0.0])
    c[0] += 1
    c[1] += o.end - o.ts + gap
    st[part + "_ops"] = st.get(part + "_ops", 0) + 1
    return True


def _trace_forward(mine, st):
    """Layers start at each outermost operator with weights on the training thread and hold the
    operators after it, up to the first autograd node of the step (the backward pass); the
    Python time between two top-level operators goes to the second, unless a DataLoader or
    optimizer operator lies between them."""
    st["ftid"] = next((o.tid for o in mine if o.kind == LAYER and o.special is None), None)
    if st["ftid"] is None:
        sys.exit("no layer (conv, linear, addmm, embedding) in a profiler step")
    bwd_start = min((o.ts for o in mine if o.special is not None and o.special.kind in (BWD, ACC)),
                    default=float("inf"))
    st["layer_of"], st["fwd"], st["tensors"] = {}, [], []
    prev = None
    for o in mine:
        if o.tid != st["ftid"] or o.kind == STEP:
            continue
        if o.special is not None:
            prev = None if o.special is o else prev
            continue
        if o.layer_op is o:
            st["fwd"].append(0.0)
            st["tensors"].append(list(o.tensors))
        if not st["fwd"]:
            continue
        layer = len(st["fwd"]) - 1
        st["layer_of"][o.i] = layer
        if o.kind == NORM:
            st["tensors"][layer] += o.tensors
        if o.ts < bwd_start and _count(st, o, "fwd", st["fwd"], layer, max(0, o.ts - prev.end) if prev else 0):
            prev = o


def _trace_backward(ops, mine, st):
    """An autograd node belongs to the layer of the forward operator with its sequence number;
    AccumulateGrad and the operators between nodes to the node before them; the engine's time
    between two top-level operators of a thread to the second."""
    nl = len(st["fwd"])
    seqs = {}
    for o in mine:
        if o.i in st["layer_of"] and o.seq >= 0:
            seqs[o.seq] = min(seqs.get(o.seq, nl), st["layer_of"][o.i])
    st["bwd"], last, last_tid, prev = [0.0] * nl, nl - 1, None, None
    for o in mine:
        if o.kind == STEP:
            continue
        if not (o.special is not None and o.special.kind in (BWD, ACC)) and (
                o.special is not None or o.tid == st["ftid"]):
            prev = None if prev is not None and o.tid == prev.tid and o.ts >= prev.end else prev
            continue
        if o.tid != last_tid:
            last, last_tid, prev = nl - 1, o.tid, None
        q = o.i
        while o.special is o and o.kind == BWD and q < len(ops) and ops[q].tid == o.tid and ops[q].ts < o.end:
            if ops[q].kind == BWD and ops[q].seq >= 0:
                last = seqs.get(ops[q].seq, last)
                break
            q += 1
        if _count(st, o, "bwd", st["bwd"], last, max(0, o.ts - prev.end) if prev else 0):
            prev = o


def _trace_optimizer(mine, st):
    """The spans of the outermost optimizer operators (Optimizer.step#..., Optimizer.zero_grad#...)."""
    st.update(opt=0.0, opt_step=0.0, opt_zero=0.0, opt_step_ops=0)
    for o in mine:
        if o.special is None or o.special.kind != OPT:
            continue
        st["counted"][o.i] = "opt"
        if o.special is o:
            st["opt"] += o.end - o.ts
            st["opt_step" if ".step" in o.name else "opt_zero"] += o.end - o.ts
            c = st["stats"]["opt"].setdefault(o.name.split("#")[0], [0, 0.0])
            c[0] += 1
            c[1] += o.end - o.ts
        elif o.parent is o.special and ".step" in o.special.name:
            st["opt_step_ops"] += 1


def _trace_launches(launches, by_ext, st):
    """The cudaLaunchKernel calls of the operators counted in each part, and their time."""
    for part in ("fwd", "bwd", "opt"):
        st["launch_" + part], st["launch_%s_us" % part] = 0, 0.0
    for ext, dur in launches:
        o = by_ext.get(ext)
        part = st["counted"].get(o.i) if o is not None else None
        if part:
            st["launch_" + part] += 1
            st["launch_%s_us" % part] += dur


# What an operator and a kernel launch cost the host unprofiled: ~2 us per eager operator, Python
# included (pytorch/pytorch#41383, a maintainer's measurement of x*x) and 4-5 us per raw
# cudaLaunchKernel (stackoverflow.com/questions/53970187); calibration/host_costs.md section 4.
UNPROFILED_OP_US = 2.0
UNPROFILED_LAUNCH_US = 4.5


def host_fields(layers, rows, trace):
    """Add each layer's parameter tensors and host times (measured in the trace) to layers; return
    the optimizer's host seconds and the provenance entries of these figures."""
    m = measure_trace(trace)
    if len(m["tensors"]) != len(layers):
        sys.exit("%s: %d layers in the trace, %d in the CSV" % (trace, len(m["tensors"]), len(layers)))
    launches = m["launch_fwd"] + m["launch_bwd"] + m["launch_opt"]
    profiled_us = sum(m["host_fwd_us"]) + sum(m["host_bwd_us"]) + m["opt"]
    unprofiled_us = m["op_events"] * UNPROFILED_OP_US + launches * UNPROFILED_LAUNCH_US
    factor = round(unprofiled_us / profiled_us, 4)
    for i, (l, r) in enumerate(zip(layers, rows)):
        # torchvision registers a conv's weight, then its BatchNorm's weight and bias; fc: weight, bias
        want = [r["weight_params"], FC_BIAS] if r["kind"] == "fc" else [r["weight_params"], r["w"][0], r["w"][0]]
        if m["tensors"][i] != want or sum(want) != l["params"]:
            sys.exit("layer %d (%s): the trace's tensors %s, the CSV's %s" % (i, l["name"], m["tensors"][i], want))
        l["tensors"] = want
        l["host_fwd_s"] = round(factor * m["host_fwd_us"][i] / 1e6, 9)
        l["host_bwd_s"] = round(factor * m["host_bwd_us"][i] / 1e6, 9)
    ntensors = sum(len(l["tensors"]) for l in layers)
    fwd, bwd = sum(m["host_fwd_us"]) / 1e3, sum(m["host_bwd_us"]) / 1e3
    per_op = {part: {name: [round(c / m["steps"], 3), round(us / c, 1)] for name, (c, us) in sorted(v.items())}
              for part, v in m["op_stats"].items()}
    print("host: fwd %.3f ms, bwd %.3f ms, optimizer %.3f ms per step (median of %d steps; %d tensors)"
          % (fwd, bwd, m["opt"] / 1e3, m["steps"], ntensors))
    prov = {
        "tensors": "DERIVED from the CSV's MEASURED weight dims, in torchvision's registration order: each conv's weight, then the weight (gamma) and bias (beta) of the BatchNorm after it ([weight_params, out_channels, out_channels]); fc [2048 x 1000, 1000]. %d tensors, as torchvision's resnet50 has (stash_methodology.md section 7: 161). The trace's Input Dims of aten::conv2d, aten::batch_norm and aten::linear give the same lists (the script checks it)." % ntensors,
        "host_times": (
            "MEASURED with the profiler on, from ../shared/data/traces/resnet50_v100_bs32_workers0.pt.trace.json.gz (the trace of the CSV), by scripts/csv2workload.py with the attribution rules of stash-calibrate trace (docs/calibration.md; the two agree): each figure is the median over the trace's %d profiler steps of CPU time of the training process. host_fwd_s of a layer: the operators of the training thread from its conv/linear to the next layer's (their spans, which hold their cudaLaunchKernel calls, plus the Python time between two consecutive top-level operators), up to the first autograd node of the step; conv1 holds the max pool, a block's last conv (or downsample.0) the residual add and ReLU, fc the pooling, flatten and the loss. host_bwd_s: the autograd thread's nodes of the layer (by sequence number), the AccumulateGrad and gradient-sum operators after them, and the engine's time between two top-level operators. Per step: forward %.3f ms (%d top-level operators, of which %d cudaLaunchKernel calls take %.3f ms), backward %.3f ms (%d operators; %d launches, %.3f ms). host_optimizer_s %.6f s = Optimizer.step %.3f ms (SGD with momentum: %d top-level operators, 3 in-place ops per tensor and one empty) + Optimizer.zero_grad %.3f ms (one zero_ per tensor) (%d launches, %.3f ms). host_per_op_us lists, per top-level operator, its calls per step and its mean time including the time before it (over all steps): what calibration/gen_models.py estimates the other models' host times from. "
            "CAVEAT: the trace was recorded with record_shapes, profile_memory and with_stack (traces/resnet50_profiler_api.py.txt), which add bookkeeping to each of its ~3,900 operator events and ~2,000 runtime calls per step: these are the host times of the profiled run, an upper bound for an unprofiled one. The profiled run was host-bound in its forward pass (its forward kernels, 32.8 ms, spread over the ~41.5 ms the CPU took to issue them and ended with the last operator). Eager PyTorch is commonly put at ~5-25 us of CPU per operator unprofiled (a third-party description, not a measurement), against 10-320 us per top-level operator here (holding 0 to 13 nested operator events; an aten::add with none takes ~50 us)."
            % (m["steps"], fwd, m["fwd_ops"], m["launch_fwd"], m["launch_fwd_us"] / 1e3, bwd, m["bwd_ops"],
               m["launch_bwd"], m["launch_bwd_us"] / 1e3, m["opt"] / 1e6, m["opt_step"] / 1e3, m["opt_step_ops"],
               m["opt_zero"] / 1e3, m["launch_opt"], m["launch_opt_us"] / 1e3)),
        "host_per_op_us": per_op,
        "host_unprofiled_factor": factor,
        "host_unprofiled": (
            "ESTIMATE: host_fwd_s, host_bwd_s and host_optimizer_s are the profiled figures above times "
            "host_unprofiled_factor %.4f, what the same work costs without the profiler: per step the trace holds "
            "%d operator events and %d cudaLaunchKernel calls; unprofiled, an eager operator costs ~%.1f us "
            "(pytorch/pytorch#41383) and a launch ~%.1f us (stackoverflow.com/questions/53970187), %.3f ms in all, "
            "against the %.3f ms measured with the profiler on (calibration/host_costs.md section 4). The profiled run "
            "itself (cal.trace_resnet50) is simulated from stash-calibrate trace's workload, which keeps the profiled "
            "figures."
            % (factor, m["op_events"], launches, UNPROFILED_OP_US, UNPROFILED_LAUNCH_US, unprofiled_us / 1e3,
               profiled_us / 1e3)),
    }
    return round(factor * m["opt"] / 1e6, 9), prov


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
    trace = sys.argv[3] if len(sys.argv) > 3 else TRACE_DEFAULT
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
    host_optimizer_s, host_prov = host_fields(layers, rows, trace)
    for layer, wk in zip(layers, work_fields(rows, names)):
        layer.update(wk)

    samples, dataset_bytes = 1281167, 146e9
    workload = {
        "schema": "stash-sim-workload/1",
        "model": "resnet50",
        "precision": "fp32",
        "batch_per_gpu": 80,
        "grad_bytes_per_param": 4,
        "reference": {"gpu_model": "Tesla V100-DGXS-32GB", "gpu_flops": 15.7e12, "batch": 32,
                      # the V100's 900 GB/s HBM2 and 80 SMs (DGX Station's V100s are SXM2 parts; NVIDIA V100
                      # datasheet and Volta whitepaper), for the roofline model
                      "memory_gbytes_per_s": 900, "sm_count": 80},
        "optimizer": "sgd_momentum",
        "optimizer_s": OPTIMIZER_S,
        "host_optimizer_s": host_optimizer_s,
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
            "work": "DERIVED from the CSV's layer shapes (input and weight dims; strides and the block structure as in torchvision's Bottleneck) by calibration/gen_models.py's layer_work: fwd_flops / bwd_flops (2 x weights x output pixels; backward 2 x, conv1 1 x: no data gradient), fwd_bytes / bwd_bytes (FP32 activation traffic of the conv, its BatchNorm and ReLU, the max pool, residual add + ReLU, average pool; weights excluded), act_bytes (what autograd keeps for the backward pass, FP32: a conv's output as its BatchNorm's input, the BatchNorm's output where the in-place ReLU or the next conv keeps it (not conv3's and downsample's, which go to the residual add), the block's ReLU output, the max pool's output and int64 indices), fwd_kernels / bwd_kernels (per host operator, by class). Traffic and kernel counts are ESTIMATES of eager PyTorch; gen_models.py asserts these keys equal the architecture's.",
            "optimizer": "sgd_momentum: the trace's SGD with momentum 0.9 (and Stash's script's).",
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
            "generated_by": "scripts/csv2workload.py (python3, stdlib only, deterministic) from shared/data/resnet50_v100_bs32_per_layer.csv and the trace it comes from (host times, tensors); regenerate with: python3 scripts/csv2workload.py",
        },
    }
    workload["provenance"].update(host_prov)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    replace_file(out, json.dumps(workload, indent=2) + "\n")
    print("wrote %s (%d layers)" % (os.path.relpath(out, REPO), len(layers)))


if __name__ == "__main__":
    main()
