#!/usr/bin/env python3
"""gen_models.py: generate stash-sim workloads for the models of the Stash study (ICDCS'23) and a
few more.

usage: calibration/gen_models.py [--check | --help | --version]
  (no option)  write workloads/NAME.json for every model below and workloads/README.md
  --check      regenerate in memory; exit 1 naming every file that differs from the one on disk
  --help       print this help; --version: the version

Per-layer parameter counts and forward FLOPs come from the architectures (torchvision's CNNs at
224x224 and 1000 classes, Hugging Face BertForQuestionAnswering, GPT2LMHeadModel and LlamaForCausalLM),
written out below and checked against the published parameter totals, with each layer's parameter tensors. Times come from public
measurements where they exist (../shared/data/single_gpu_fwd_bwd.md) and are estimated otherwise; host
(CPU) times are each layer's operators times the per-operator costs measured in the ResNet-50 trace
(read from workloads/resnet50.json). Every number says which in the workload's provenance block. workloads/resnet50.json is NOT written here (scripts/csv2workload.py
makes it from a measured per-layer trace); its architecture is defined here only to check that the
per-layer parameter counts agree.
Standard library only, no network, deterministic (same script -> byte-identical files).
"""
import functools
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts"))
from studylib import help_version, write_generated  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GENERATED_BY = "python3 calibration/gen_models.py (stdlib only, deterministic; --check compares with the files on disk)"


# ---------------------------------------------------------------------------------------------
# Architectures: one record per conv / linear layer (BatchNorm affine folded into its conv)
# ---------------------------------------------------------------------------------------------

class Net:
    """Layers in forward order. Each: name, params, fwd FLOPs per sample (multiply-add = 2),
    kind, the element counts the roofline estimate (small models) needs, the parameter tensors
    (elements of each, in the order the model registers them) and the host operators it issues:
    host_fwd, the classes (HOST_FWD) of the top-level operators of its forward, and host_bwd, those
    (HOST_BWD) of its autograd nodes, AccumulateGrads and gradient sums. As a profiler trace books
    them (calibration/cal_profile.c), a layer holds the operators after its conv / linear up to the
    next layer's."""

    def __init__(self):
        self.layers = []

    def conv(self, name, cin, hw, cout, k, s=1, p=0, groups=1, bias=False, bn=False, act=False, into_add=False):
        """into_add: the output (the BatchNorm's) goes only to a residual add, which keeps nothing."""
        h, w = hw
        ho, wo = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
        weights = cout * (cin // groups) * k * k
        # torchvision registers the conv's weight (and bias), then the BatchNorm's weight and bias.
        tensors = [weights] + ([cout] if bias else []) + ([cout, cout] if bn else [])
        ops = ["conv"] + (["batchnorm"] if bn else []) + (["eltwise"] if act else [])
        self.layers.append({
            "name": name, "kind": "grouped" if groups > 1 else "dense", "conv": groups == 1,
            "params": sum(tensors), "tensors": tensors, "host_fwd": list(ops),
            "host_bwd": ops + ["accumulate"] * len(tensors),
            "flops": 2 * weights * ho * wo, "weights": weights,
            "in": cin * h * w, "out": cout * ho * wo,
            # elementwise passes after the conv, in element reads+writes per sample: BatchNorm in
            # training reads twice (statistics, normalise) and writes once; an in-place ReLU reads
            # and writes once.
            "elem_rw": cout * ho * wo * ((3 if bn else 0) + (2 if act else 0)),
            # backward: BatchNorm reads the gradient and its input twice (the reductions, then the
            # input gradient) and writes once (5); ReLU reads the gradient and its output, writes (3).
            "elem_rw_bwd": cout * ho * wo * ((5 if bn else 0) + (3 if act else 0)),
            # kept for the backward pass (what autograd saves: a conv its input and weight, a training
            # BatchNorm its input and per-channel mean and invstd, an in-place ReLU its result, an add
            # nothing): the conv's output (BatchNorm's input) and, with a BatchNorm, its output when the
            # in-place ReLU or the next conv keeps it; not when it goes only to a residual add (into_add:
            # the add's ReLU keeps the sum instead, counted by the block's extra). The per-channel
            # statistics (2 x cout floats a batch) are left out.
            "saved": cout * ho * wo * (2 if bn and not into_add else 1)})
        return (ho, wo)

    def linear(self, name, fin, fout, bias=True, tokens=1, act=False):
        weights = fin * fout
        tensors = [weights] + ([fout] if bias else [])
        ops = ["linear"] + (["eltwise"] if act else [])
        self.layers.append({
            "name": name, "kind": "dense", "params": sum(tensors), "tensors": tensors, "host_fwd": list(ops),
            "host_bwd": ops + ["accumulate"] * len(tensors),
            "flops": 2 * weights * tokens, "weights": weights, "in": fin * tokens,
            "out": fout * tokens, "elem_rw": fout * tokens * (2 if act else 0),
            "elem_rw_bwd": fout * tokens * (3 if act else 0), "saved": fout * tokens})

    def extra(self, elem_rw, fwd=(), bwd=(), saved=0):
        """Elementwise work (pooling, residual add, concat, shuffle) booked to the last layer, and
        the host operators that do it (forward, backward); saved: the elements of its outputs kept
        for the backward pass. Its backward moves as many elements as its forward (ESTIMATE: the
        gradient read and written in place of the input and output)."""
        self.layers[-1]["elem_rw"] += elem_rw
        self.layers[-1]["elem_rw_bwd"] += elem_rw
        self.layers[-1]["saved"] += saved
        self.host(fwd, bwd)

    def host(self, fwd=(), bwd=()):
        """Host operators booked to the last layer: forward classes fwd, backward classes bwd."""
        self.layers[-1]["host_fwd"] += list(fwd)
        self.layers[-1]["host_bwd"] += list(bwd)

    def maxpool(self, c, hw, k, s, p=0, ceil=False):
        """A max pool of the c x hw output of the last layer (its reads and writes); the new hw."""
        q = pool(hw, k, s, p, ceil)
        # kept: its output and the int64 indices of the maxima (2 x 4 bytes per output element)
        self.extra(c * (hw[0] * hw[1] + q[0] * q[1]), ["eltwise"], ["eltwise"], saved=3 * c * q[0] * q[1])
        return q

    def pool_linear(self, name, c, hw, classes=1000, pool_ops=("eltwise", "view")):
        """Global average pool of the c x hw output of the last layer, then the classifier Linear;
        pool_ops: the host operators between them (pool, flatten, dropout)."""
        self.extra(c * hw[0] * hw[1], pool_ops, pool_ops, saved=c)
        self.linear(name, c, classes)


def pool(hw, k, s, p=0, ceil=False):
    def one(n):
        span = n + 2 * p - k
        return (-(-span // s) if ceil else span // s) + 1
    return (one(hw[0]), one(hw[1]))


def alexnet():
    # torchvision alexnet.py ("one weird trick" variant): features 0,3,6,8,10 conv+ReLU,
    # maxpools at 2,5,12, AdaptiveAvgPool(6,6), classifier Dropout/Linear 1,4,6.
    n, hw = Net(), (224, 224)
    hw = n.conv("features.0", 3, hw, 64, 11, 4, 2, bias=True, act=True)
    hw = n.maxpool(64, hw, 3, 2)
    hw = n.conv("features.3", 64, hw, 192, 5, 1, 2, bias=True, act=True)
    hw = n.maxpool(192, hw, 3, 2)
    hw = n.conv("features.6", 192, hw, 384, 3, 1, 1, bias=True, act=True)
    hw = n.conv("features.8", 384, hw, 256, 3, 1, 1, bias=True, act=True)
    hw = n.conv("features.10", 256, hw, 256, 3, 1, 1, bias=True, act=True)
    hw = n.maxpool(256, hw, 3, 2)
    assert hw == (6, 6)
    n.host(["eltwise", "view", "eltwise"], ["eltwise", "view", "eltwise"])   # avgpool, flatten, Dropout
    n.linear("classifier.1", 256 * 6 * 6, 4096, act=True)
    n.host(["eltwise"], ["eltwise"])                                          # Dropout
    n.linear("classifier.4", 4096, 4096, act=True)
    n.linear("classifier.6", 4096, 1000)
    return n


VGG_CFGS = {"vgg11": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
            "vgg16": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M",
                      512, 512, 512, "M"],
            "vgg19": [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M",
                      512, 512, 512, 512, "M"]}


def vgg(cfg):
    # torchvision vgg.py make_layers(batch_norm=False): each conv 3x3 pad 1 with bias then ReLU
    # (two Sequential indices), each "M" a 2x2 maxpool (one index); classifier Linear 0,3,6.
    n, hw, cin, idx = Net(), (224, 224), 3, 0
    for v in VGG_CFGS[cfg]:
        if v == "M":
            hw = n.maxpool(cin, hw, 2, 2)
            idx += 1
        else:
            hw = n.conv("features.%d" % idx, cin, hw, v, 3, 1, 1, bias=True, act=True)
            cin, idx = v, idx + 2
    assert hw == (7, 7)
    n.host(["eltwise", "view"], ["eltwise", "view"])                         # avgpool, flatten
    n.linear("classifier.0", 512 * 7 * 7, 4096, act=True)
    n.host(["eltwise"], ["eltwise"])                                          # Dropout
    n.linear("classifier.3", 4096, 4096, act=True)
    n.host(["eltwise"], ["eltwise"])                                          # Dropout
    n.linear("classifier.6", 4096, 1000)
    return n


RESNET_BLOCKS = {"resnet18": ("basic", [2, 2, 2, 2]), "resnet34": ("basic", [3, 4, 6, 3]), "resnet50": ("bottleneck", [3, 4, 6, 3]),
                 "resnet101": ("bottleneck", [3, 4, 23, 3]), "resnet152": ("bottleneck", [3, 8, 36, 3])}


def resnet(arch):
    # torchvision resnet.py: conv1 7x7/2 + bn1 + ReLU, maxpool 3/2; stages of BasicBlock
    # (conv1 3x3, conv2 3x3) or Bottleneck (conv1 1x1, conv2 3x3 with the stride, conv3 1x1,
    # expansion 4); downsample.0 (1x1 conv) + downsample.1 (BN) runs after the last conv of the
    # block; convs have no bias; fc Linear with bias.
    block, counts = RESNET_BLOCKS[arch]
    expansion = 1 if block == "basic" else 4
    n = Net()
    hw = n.conv("conv1", 3, (224, 224), 64, 7, 2, 3, bn=True, act=True)
    hw = n.maxpool(64, hw, 3, 2, 1)
    cin = 64
    for stage, (planes, nblocks) in enumerate(zip([64, 128, 256, 512], counts), 1):
        for b in range(nblocks):
            stride = 2 if stage > 1 and b == 0 else 1
            pre, cout = "layer%d.%d." % (stage, b), planes * expansion
            if block == "basic":
                h1 = n.conv(pre + "conv1", cin, hw, planes, 3, stride, 1, bn=True, act=True)
                ho = n.conv(pre + "conv2", planes, h1, planes, 3, 1, 1, bn=True, into_add=True)
            else:
                h1 = n.conv(pre + "conv1", cin, hw, planes, 1, bn=True, act=True)
                h2 = n.conv(pre + "conv2", planes, h1, planes, 3, stride, 1, bn=True, act=True)
                ho = n.conv(pre + "conv3", planes, h2, cout, 1, bn=True, into_add=True)
            if stride != 1 or cin != cout:
                n.conv(pre + "downsample.0", cin, hw, cout, 1, stride, bn=True, into_add=True)
            # residual add (r2 w1) + ReLU (r1 w1); backward: their nodes and the sum of the two
            # gradients of the block's input (identity and conv1)
            n.extra(5 * cout * ho[0] * ho[1], ["eltwise"] * 2, ["eltwise"] * 2 + ["grad_sum"],
                    saved=cout * ho[0] * ho[1])
            cin, hw = cout, ho
    assert cin == 512 * expansion
    n.pool_linear("fc", cin, hw)
    return n


def mobilenet_v2():
    # torchvision mobilenetv2.py: features.0 ConvBNReLU6 3->32 /2; InvertedResidual blocks
    # features.1..17 (t, c, n, s) = (1,16,1,1) (6,24,2,2) (6,32,3,2) (6,64,4,2) (6,96,3,1)
    # (6,160,3,2) (6,320,1,1): [pw expand conv.0.0 + BN conv.0.1 + ReLU6 if t != 1], dw 3x3
    # conv.J.0 + BN + ReLU6, pw-linear conv.J+1 + BN conv.J+2; residual add when stride 1 and
    # in == out; features.18 ConvBNReLU6 320->1280 1x1; classifier.1 Linear 1280->1000.
    n, cin, idx = Net(), 32, 1
    hw = n.conv("features.0.0", 3, (224, 224), 32, 3, 2, 1, bn=True, act=True)
    for t, c, reps, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                          (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]:
        for i in range(reps):
            stride, hidden, j = (s if i == 0 else 1), cin * t, 0
            pre, h = "features.%d.conv." % idx, hw
            if t != 1:
                h = n.conv(pre + "0.0", cin, h, hidden, 1, bn=True, act=True)
                j = 1
            h = n.conv(pre + "%d.0" % j, hidden, h, hidden, 3, stride, 1, groups=hidden, bn=True, act=True)
            residual = stride == 1 and cin == c
            h = n.conv(pre + "%d" % (j + 1), hidden, h, c, 1, bn=True, into_add=residual)
            if residual:
                n.extra(3 * c * h[0] * h[1], ["eltwise"], ["eltwise", "grad_sum"], saved=c * h[0] * h[1])
            cin, hw, idx = c, h, idx + 1
    hw = n.conv("features.18.0", 320, hw, 1280, 1, bn=True, act=True)
    n.pool_linear("classifier.1", 1280, hw, pool_ops=("eltwise", "view", "eltwise"))   # pool, flatten, Dropout
    return n


def shufflenet_v2_x0_5():
    # torchvision shufflenetv2.py, stages_repeats [4, 8, 4], stages_out_channels
    # [24, 48, 96, 192, 1024]: conv1 (conv 3x3/2 no bias + BN + ReLU), maxpool 3/2;
    # InvertedResidual stride 2 = branch1 (dw 3x3/2 .0 + BN .1, pw .2 + BN .3 + ReLU) then
    # branch2 (pw .0 + BN + ReLU, dw 3x3 .3 + BN .4, pw .5 + BN .6 + ReLU) on the block input;
    # stride 1 = branch2 on half of the channels; then concat + channel shuffle; conv5 1x1 +
    # BN + ReLU, global mean, fc.
    n = Net()
    hw = n.conv("conv1.0", 3, (224, 224), 24, 3, 2, 1, bn=True, act=True)
    hw = n.maxpool(24, hw, 3, 2, 1)
    cin = 24
    for stage, reps, cout in [(2, 4, 48), (3, 8, 96), (4, 4, 192)]:
        for i in range(reps):
            pre, bf = "stage%d.%d." % (stage, i), cout // 2
            if i == 0:
                h = n.conv(pre + "branch1.0", cin, hw, cin, 3, 2, 1, groups=cin, bn=True)
                n.conv(pre + "branch1.2", cin, h, bf, 1, bn=True, act=True)
                h = n.conv(pre + "branch2.0", cin, hw, bf, 1, bn=True, act=True)
                h = n.conv(pre + "branch2.3", bf, h, bf, 3, 2, 1, groups=bf, bn=True)
            else:
                h = n.conv(pre + "branch2.0", bf, hw, bf, 1, bn=True, act=True)
                h = n.conv(pre + "branch2.3", bf, h, bf, 3, 1, 1, groups=bf, bn=True)
            h = n.conv(pre + "branch2.5", bf, h, bf, 1, bn=True, act=True)
            # concat (r1 w1) + channel shuffle (r1 w1). Host: chunk (stride 1), cat, then shuffle's
            # view, transpose, contiguous (a copy), view; backward: their nodes, and with stride 2 the
            # sum of the gradients of the block input (both branches read it).
            fwd = (["view"] if i else []) + ["eltwise", "view", "view", "eltwise", "view"]
            n.extra(4 * cout * h[0] * h[1], fwd, fwd + ([] if i else ["grad_sum"]), saved=cout * h[0] * h[1])
            cin, hw = cout, h
    hw = n.conv("conv5.0", 192, hw, 1024, 1, bn=True, act=True)
    n.pool_linear("fc", 1024, hw, pool_ops=("eltwise",))                     # x.mean([2, 3])
    return n


def squeezenet1_0():
    # torchvision squeezenet.py version 1_0: features.0 conv 7x7/2 (bias) + ReLU, maxpools
    # 3/2 ceil_mode at 2, 6, 11; Fire modules at 3,4,5,7,8,9,10,12 = squeeze 1x1, expand1x1,
    # expand3x3 (pad 1), all with bias and ReLU, outputs concatenated; classifier.1 = final conv
    # 512->1000 1x1 (bias) + ReLU, then AdaptiveAvgPool(1).
    n = Net()
    hw = n.conv("features.0", 3, (224, 224), 96, 7, 2, bias=True, act=True)
    cin = 96
    fires = {3: (16, 64), 4: (16, 64), 5: (32, 128), 7: (32, 128), 8: (48, 192), 9: (48, 192),
             10: (64, 256), 12: (64, 256)}
    for idx in range(3, 13):
        if idx in (6, 11):
            hw = n.maxpool(cin, hw, 3, 2, ceil=True)
            continue
        if idx == 3:
            hw = n.maxpool(cin, hw, 3, 2, ceil=True)
        sq, ex = fires[idx]
        pre = "features.%d." % idx
        n.conv(pre + "squeeze", cin, hw, sq, 1, bias=True, act=True)
        n.conv(pre + "expand1x1", sq, hw, ex, 1, bias=True, act=True)
        n.conv(pre + "expand3x3", sq, hw, ex, 3, 1, 1, bias=True, act=True)
        # concat: read and write both halves; backward: its node and the sum of the squeeze output's
        # two gradients
        n.extra(2 * 2 * ex * hw[0] * hw[1], ["eltwise"], ["eltwise", "grad_sum"], saved=2 * ex * hw[0] * hw[1])
        cin = 2 * ex
    assert hw == (13, 13)
    n.host(["eltwise"], ["eltwise"])                                          # Dropout
    n.conv("classifier.1", 512, hw, 1000, 1, bias=True, act=True)
    n.extra(1000 * hw[0] * hw[1], ["eltwise", "view"], ["eltwise", "view"])   # avgpool, flatten
    return n


BERT_CFGS = {  # Hugging Face bert-base-uncased / bert-large-uncased config.json
    "bert-base": {"hidden": 768, "layers": 12, "heads": 12, "inter": 3072, "vocab": 30522,
                  "max_pos": 512, "type_vocab": 2, "hf_name": "bert-base-uncased"},
    "bert-large": {"hidden": 1024, "layers": 24, "heads": 16, "inter": 4096, "vocab": 30522,
                   "max_pos": 512, "type_vocab": 2, "hf_name": "bert-large-uncased"},
}


def bert_layer_flops(c, seq):
    """Forward FLOPs per sequence of one encoder layer: (attention, intermediate+output)."""
    h, i = c["hidden"], c["inter"]
    attn = 4 * 2 * seq * h * h + 2 * 2 * seq * seq * h     # Q, K, V, output dense; QK^T and AV
    ffn = 2 * 2 * seq * h * i                              # intermediate.dense, output.dense
    return attn, ffn


# Host operators of BertForQuestionAnswering's layers (transformers' modeling_bert.py, eager), as
# classes of HOST_FWD / HOST_BWD; each layer's AccumulateGrads (one per tensor) are added to them.
BERT_HOST = {
    # word, token_type, position embedding lookups, two adds, LayerNorm, dropout, and the attention
    # mask's cast, 1 - mask, x -10000 (eltwise); the position / token-type buffer slices, expand
    # and the mask's two unsqueezes (views). Backward: the lookups', adds', LayerNorm's, dropout's
    # nodes (the mask needs no gradient).
    "embeddings": (["eltwise"] * 10 + ["view"] * 5, ["eltwise"] * 7),
    # query, key, value, output dense and the two attention matmuls (QK^T, probabilities x V);
    # three view+permute (transpose_for_scores), key transpose, context permute and view (views);
    # scale, mask add, softmax, dropout, contiguous copy, dropout, residual add, LayerNorm. The
    # layer's input feeds query, key, value and the residual: three gradient sums.
    "attention": (["linear"] * 6 + ["view"] * 9 + ["eltwise"] * 8,
                  ["linear"] * 6 + ["view"] * 9 + ["eltwise"] * 8 + ["grad_sum"] * 3),
    # intermediate dense, GELU, output dense, dropout, residual add, LayerNorm; the attention
    # output feeds intermediate and the residual: one gradient sum.
    "intermediate+output": (["linear"] * 2 + ["eltwise"] * 4, ["linear"] * 2 + ["eltwise"] * 4 + ["grad_sum"]),
    # qa_outputs, split, two squeezes (views), two contiguous copies; then (booked here, as a trace
    # books them) two cross-entropy losses for start and end and their mean (add, div).
    "qa_outputs": (["view"] * 3 + ["eltwise"] * 4 + ["loss"] * 2, ["view"] * 3 + ["eltwise"] * 4 + ["loss"] * 2),
}


def bert_qa(model, seq):
    # transformers BertForQuestionAnswering: BertModel(add_pooling_layer=False) + qa_outputs
    # Linear(hidden, 2). Embeddings: word + position + token_type tables + LayerNorm (a gather:
    # no FLOPs counted). Each encoder layer: attention (query, key, value, output.dense + its
    # LayerNorm) and the feed-forward part (intermediate.dense, output.dense + its LayerNorm).
    # Parameter tensors in registration order: embeddings word, position, token_type, LayerNorm
    # weight and bias; per layer query, key, value, attention output dense (weight, bias each),
    # its LayerNorm, intermediate dense, output dense, its LayerNorm; qa_outputs weight and bias.
    c, n = BERT_CFGS[arch(model)], Net()
    h, i = c["hidden"], c["inter"]
    layer = functools.partial(transformer_layer, n, BERT_HOST, c, seq)
    layer("bert.embeddings", "embedding", [c["vocab"] * h, c["max_pos"] * h, c["type_vocab"] * h, h, h], 0, 0,
          "embeddings")
    attn, ffn = bert_layer_flops(c, seq)
    for k in range(c["layers"]):
        pre = "bert.encoder.layer.%d." % k
        layer(pre + "attention", "attention", [h * h, h] * 4 + [h, h], attn, 4 * h * h, "attention")
        layer(pre + "intermediate+output", "ffn", [i * h, i, h * i, h, h, h], ffn, 2 * h * i, "intermediate+output")
    n.linear("qa_outputs", h, 2, tokens=seq)
    n.host(*BERT_HOST["qa_outputs"])
    # at amp/bf16 (transformer_traffic): its 16-bit copy of the last LayerNorm's FP32 output and the
    # FP32 log-softmax outputs of the two cross-entropies (the 2 s elements its FP32 count keeps)
    n.layers[-1]["saved_half_bytes"] = 2 * seq * h + 4 * n.layers[-1]["saved"]
    return n


def transformer_traffic(part, c, seq):
    """Elementwise traffic of a transformer layer beyond its input and output (element reads +
    writes per sequence, forward) and the elements it keeps for the backward pass, counted from
    the eager operators (transformers' modeling_bert.py / modeling_gpt2.py); 1-byte dropout masks
    count a quarter of an element. ESTIMATE: kernels may fuse or re-read differently.
    attention: the input read twice more (Q, K, V are three matmuls; GPT-2's fused c_attn reads it
    once but writes 3 s h: the same total), Q K V written (3 s h), read by QK^T and AV (3), the
    context written (1), its contiguous copy (2), output dense (read 1, write 1), dropout (2),
    residual add (3), LayerNorm's two reads (2; its write is the output): 20 s h; scores written
    (1), scaled (2), masked (2), softmaxed (2), dropped out (2), read by AV (1): 10 a s^2. Kept:
    Q K V (3 s h), the context (1), the residual sum (1), the output (1), dropout masks (0.25 s h,
    0.25 a s^2), softmax output and dropped probabilities (2 a s^2).
    ffn: intermediate written (i s), GELU (2 i s), output dense read (i s), its write (s h),
    dropout (2), residual (3), LayerNorm's reads (2): 4 i s + 8 s h; kept: GELU's input and output
    (2 i s; GPT-2's gelu_new 5 i s, below), dropout mask (0.25 s h), residual sum (1) and output (1).
    embedding: BERT's three lookups (read + write 6 s h), two adds (6), LayerNorm (2), dropout (2)
    less the output: 15 s h; GPT-2's two lookups (4), one add (3), dropout (1 read): 8 s h. Kept: the
    output and the dropout mask (and BERT's LayerNorm input).
    head (GPT-2's ln_f + lm_head + loss): LayerNorm (3 s h), the logits' shifted contiguous copy (2 s V),
    log-softmax (2 s V), the loss's read (1 s V); kept: ln_f's output (s h), the logits the model
    returns and the log-softmax output (2 s V).
    The kept tensors of a BERT attention + ffn pair, 16.5 s h + 2.25 a s^2 elements = 66 s h + 9 a s^2
    bytes, are Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large Transformer
    Models", arXiv:2205.05198, section 4.1: s b h (34 + 5 a s / h) bytes with 2-byte activations and
    1-byte dropout masks) with 4-byte activations: 2 (32 s h + 4 a s^2) + 2 s h + a s^2. GPT-2's
    gelu_new is eager arithmetic (transformers activations.py NewGELUActivation: 0.5 x (1 + tanh(c (x
    + 0.044715 x^3)))) whose nodes keep 5 i s: pow its input x, tanh its result, the last multiply
    both factors (0.5 x and 1 + tanh), c_proj the product; BERT's F.gelu keeps its input only.

    The third value: the BYTES kept at amp/bf16 (torch.autocast; workloads' act_bytes_half). The op
    lists of the PyTorch AMP docs (pytorch.org/docs/stable/amp.html, "Autocast Op Reference"): the
    matmuls (linear, addmm, matmul, bmm) run in 16 bits ("CUDA Ops that can autocast to float16");
    softmax, log_softmax, cross_entropy, layer_norm and pow run in FP32 ("... to float32"); every
    other op (embedding, add, dropout, gelu, tanh, mul, where) in its inputs' widest type (an FP16
    + FP32 add gives FP32). Autocast caches only the casts of leaf tensors that require grad, the
    weights (aten/src/ATen/autocast_mode.cpp, cached_cast: "cache fp16 casts of fp32 model weights
    (leaves)"), so each matmul that reads an FP32 activation saves its own 16-bit copy of it: BERT's
    query, key and value three copies of the layer input. A LayerNorm's FP32 output is kept by no
    node (the matmuls keep their copies, a residual add nothing), so at half each part counts what
    its own nodes keep, its input's copies included, not its output. Per sequence, in bytes:
    attention, BERT: 3 copies of the input (6 s h), Q K V (6), the context (2), the output dropout
    mask (1), the residual sum the FP32 LayerNorm keeps (4): 19 s h; GPT-2: ln_1's FP32 input (4),
    c_attn's copy (2), Q K V (6), the context (2), the mask (1): 15 s h. Scores, both: the softmax's
    FP32 output (4 a s^2; BERT's scores are FP32 already, promoted by the FP32 attention mask), the
    dropout mask (1), the 16-bit probabilities the AV matmul keeps (2; GPT-2 casts them back to V's
    type, BERT's matmul makes the copy): 7 a s^2. ffn, BERT: the intermediate dense's copy (2 s h),
    GELU's FP16 input and the output dense's copy of its output (4 i s), the mask (1), the residual
    sum (4): 7 s h + 4 i s; GPT-2: ln_2's FP32 input (4 s h), c_fc's copy (2), the mask (1): 7 s h;
    gelu_new: pow's FP32 copy of x (4 i s, pow is an FP32 op, so tanh and 1 + tanh are FP32: 4 + 4),
    0.5 x in FP16 (2), c_proj's copy of the FP32 product (2): 16 i s. embedding, BERT: the
    LayerNorm's FP32 input (4 s h) and the mask (1): 5 s h; GPT-2 the mask: 1 s h (embeddings run
    in FP32). head (GPT-2): ln_f's FP32 input (4 s h), lm_head's copy (2), the FP16 logits the
    model returns (2 s V) and the FP32 log-softmax output (4 s V): 6 s h + 6 s V. A BERT attention +
    ffn pair: 42 s h + 7 a s^2 bytes (FP32 66 s h + 9 a s^2; x 0.5 would say 33 s h + 4.5 a s^2)."""
    if c.get("llama"):
        return llama_traffic(part, c, seq)
    s, h, a, i, v = seq, c["hidden"], c["heads"], c["inter"], c["vocab"]
    bert = "type_vocab" in c
    if part == "attention":
        return (20 * s * h + 10 * a * s * s, 6.25 * s * h + 2.25 * a * s * s,
                (19 if bert else 15) * s * h + 7 * a * s * s)
    if part == "ffn":
        return 4 * i * s + 8 * s * h, (2 if bert else 5) * i * s + 2.25 * s * h, 7 * s * h + (4 if bert else 16) * i * s
    if part == "embedding" and c.get("alibi"):
        # BLOOM: one lookup (read + write 2) and the embedding LayerNorm's two reads (its write is the output): 4 s h; kept:
        # the LayerNorm's input and the output (2 s h); at amp/bf16 the LayerNorm (an FP32 op) keeps its FP32 input: 4 s h
        # bytes. No dropout, no position lookup. ALiBi's bias (heads x s elements a sequence) is left out.
        return 4 * s * h, 2 * s * h, 4 * s * h
    if part == "embedding":
        return (15 if bert else 8) * s * h, (2.25 if bert else 1.25) * s * h, (5 if bert else 1) * s * h
    return 3 * s * h + 5 * s * v, s * h + 2 * s * v, 6 * s * h + 6 * s * v


def llama_traffic(part, c, seq):
    """transformer_traffic for LlamaForCausalLM (Llama 2), counted the same way from the eager operators of
    transformers' modeling_llama.py @5dd4a63 (the 4.49 line: eager_attention_forward, the rotary cos and sin
    computed once per forward in LlamaModel) and loss/loss_utils.py ForCausalLMLoss, at FP32, with
    attn_implementation="eager" (as GPT-2's: the scores are materialised and masked, not skipped) and
    use_cache=False. ESTIMATE, as GPT-2's and BERT's. The differences from GPT-2: RMSNorm is eager arithmetic
    (x.to(float32), which is x at FP32, pow(2), mean, + eps, rsqrt, x * rsqrt, weight *), rotary embeddings
    are applied to q and k in every layer, SwiGLU has three matmuls and an elementwise SiLU x up, there are
    no biases and no dropout (attention_dropout 0: F.dropout with p = 0 returns its input, no kernel, no
    mask; ATen's _dropout_impl), and one entry holds a whole LlamaDecoderLayer (part "decoder").
    decoder, element reads + writes per sequence beyond its input read once and its output written once:
    input_layernorm 6 s h (pow writes x^2, mean reads it, x * rsqrt reads x and writes, weight * reads and
    writes; the per-row statistics, s elements, are left out), q k v proj 6 (each reads the norm's output,
    writes), rotary 20 (per q and k: x cos 2, the neg 1 and cat 2 of rotate_half, x sin 2, the add 3; cos and
    sin, s x head_dim, left out), QK^T reads q and k (2), AV reads v and writes the context (2), its
    transpose's contiguous copy (2), o_proj (2), the residual add (3), post_attention_layernorm 7 (its pow
    reads the residual sum), gate and up read the norm's output (2), down writes (1), the residual add reads
    2 (its write is the output): 55 s h; gate and up written (2 i s), SiLU (2), SiLU x up (3), down's read
    (1): 8 i s; scores written (1), scaled (2), masked (2: the causal mask, s x s, read by every head, left
    out), softmaxed (2), read by AV (1): 8 a s^2 (GPT-2 10: no dropout). Kept (autograd's saved tensors;
    a mul by cos or sin keeps only cos or sin, which need no gradient): the input layernorm's x * rsqrt and
    its output (the q k v input) (2 s h), q and k after rotary (2; QK^T), v (1; AV), the context (1;
    o_proj), the residual sum (1; the second norm's pow and mul), that norm's x * rsqrt and output (2), the
    output (1; the next layer's norm) = 10 s h; gate's output (SiLU's input), SiLU's output, up's output
    (the product's factors) and the product (down's input): 4 i s; the softmax output, which AV keeps too
    (the dropout returns it): 1 a s^2. No masks.
    embedding (model.embed_tokens): the table rows read (1 s h; the write is the output); kept: the output.
    The causal mask LlamaModel builds once per forward (full, triu, the in-place multiply by a comparison:
    ~5.5 s^2 reads + writes, 0.1% of one layer's score traffic) and the rotary tables are left out.
    head (model.norm + lm_head + loss): the final RMSNorm 6 s h, lm_head's read (1), log-softmax (2 s V),
    the loss's read (1 s V, as GPT-2's; ForCausalLMLoss's logits.float() is the logits at FP32, no copy):
    7 s h + 3 s V; kept: the norm's x * rsqrt and output (2 s h), the logits the model returns and the
    log-softmax output (2 s V).
    At amp/bf16 (bytes, each part counting what its own nodes keep, its FP32 input included, as GPT-2's):
    decoder: the FP32 input kept by the norm's pow and mul (4 s h) and its FP32 x * rsqrt (4), the three
    16-bit copies of the norm's FP32 output for q, k, v proj (6), q and k after rotary: FP32 (the FP16 q
    and k times the FP32 cos and sin, which LlamaModel computes with autocast off and casts to the FP32
    embeddings' dtype), so QK^T keeps 16-bit copies (4), v (FP16, 2), the context (2), the FP32 residual
    sum (4), the second norm's x * rsqrt (4) and the two copies for gate and up (4): 34 s h; gate's output,
    SiLU's output, up's output and the product, all FP16: 8 i s; the FP32 softmax output (4; the scores are
    FP32 once the FP32 mask is added, and .to(query.dtype) keeps FP32 since q is FP32) and the AV matmul's
    16-bit copy of it (2): 6 a s^2. embedding: nothing (the indices, 8 s bytes, left out as GPT-2's). head:
    the FP32 input (4 s h), x * rsqrt (4), lm_head's copy (2), the FP16 logits (2 s V), the FP32 log-softmax
    output (4 s V; logits.float()'s FP32 copy is kept by no node): 10 s h + 6 s V.
    Grouped-query attention (Llama-2 70B, Llama 3: kv_heads < heads; k_proj and v_proj write h_kv = h kv_heads /
    heads per token): the q k v proj term is 3 reads + the writes s h + 2 s h_kv (6 s h without), rotary 10 s h
    + 10 s h_kv, and eager_attention_forward's repeat_kv copies k and v to the query heads' width (expand, then
    reshape: a copy reading s h_kv and writing s h each, 2 s h + 2 s h_kv; without grouped-query attention
    repeat_kv returns its input). So the decoder's elementwise traffic is 45 s h + 14 s h_kv (+ 8 i s + 8 a s^2);
    55 s h without. What is kept does not change: QK^T keeps q and the REPEATED k, AV the repeated v (each s h;
    the reshape's clone, the expand and the unsqueeze keep nothing, and the rotary add keeps nothing), so 10 s h
    at FP32 and 34 s h at amp/bf16 (the repeated k is FP32, rotary's output, and QK^T keeps its 16-bit copy; v
    is FP16) as above."""
    s, h, a, i, v = seq, c["hidden"], c["heads"], c["inter"], c["vocab"]
    if part == "decoder":
        hkv = kv_hidden(c)
        # norm 6, the matmuls' and residuals' other terms 23, q k v proj 4 s h + 2 s h_kv, rotary 10 (s h + s h_kv),
        # repeat_kv 2 (s h + s h_kv) with grouped-query attention only
        rw = 29 * s * h + 4 * s * h + 2 * s * hkv + 10 * (s * h + s * hkv) + (2 * (s * h + s * hkv) if hkv < h else 0)
        return rw + 8 * i * s + 8 * a * s * s, 10 * s * h + 4 * i * s + a * s * s, 34 * s * h + 8 * i * s + 6 * a * s * s
    if part == "embedding":
        return s * h, s * h, 0
    assert part == "head", part
    return 7 * s * h + 3 * s * v, 2 * s * h + 2 * s * v, 10 * s * h + 6 * s * v


def checkpoint_bytes(part, c, seq):
    """What a layer keeps per sequence when Hugging Face's gradient checkpointing is on (the workloads'
    ckpt_bytes, ckpt_bytes_half), or None for a layer outside the checkpointed blocks. gradient_checkpointing_enable()
    (transformers >= 4.35, modeling_utils.py: gradient_checkpointing_kwargs default {"use_reentrant": True},
    functools.partial(torch.utils.checkpoint.checkpoint, ...)) makes the model call each of its blocks through
    torch.utils.checkpoint: GPT2Model every GPT2Block (self._gradient_checkpointing_func(block.__call__,
    hidden_states, None, attention_mask, ...)), BertEncoder every BertLayer (layer_module.__call__,
    hidden_states, attention_mask, ...), LlamaModel every LlamaDecoderLayer (modeling_llama.py @5dd4a63:
    decoder_layer.__call__, hidden_states, causal_mask, position_ids, ..., position_embeddings). A
    checkpointed call runs the block under no_grad and saves only its inputs; its backward runs the block's
    forward again with grad, then that graph's backward (torch.utils.checkpoint docs: "the checkpointed part
    does not save intermediate activations, and instead recomputes them in backward pass"). The embeddings,
    the final norm and the head are outside the blocks and keep what they keep without checkpointing.
    Kept per block: its hidden_states input, s x h elements, FP32 at amp/bf16 too (the embeddings' output is
    FP32, and each block's output is an FP32 residual sum: the 16-bit output of attention and MLP added to
    the FP32 residual, or BERT's FP32 LayerNorm output), so ckpt_bytes_half = ckpt_bytes = 4 s h. The other
    inputs are the same tensor in every block (the attention mask; Llama's causal mask and rotary cos and
    sin), built once per forward and left out as the act_bytes leave them out. A block that spans two
    entries (GPT-2's and BERT's attention and feed-forward parts) gives its input at the first entry and 0
    at the second: the second is recomputed with the first, keeps nothing of its own.
    Accounting: at FP32 each layer's act_bytes count its own output where the next layer keeps it
    (transformer_traffic), at amp/bf16 its input's copies; so at FP32 the embeddings' act_bytes already hold
    the first block's input and nothing holds the last block's output, which the head keeps: the same s x h
    elements, the sum is exact either way."""
    if part in ("attention", "decoder"):
        return 4 * seq * c["hidden"], 4 * seq * c["hidden"]
    return (0, 0) if part == "ffn" else None


def transformer_layer(n, host_table, c, seq, name, part, tensors, flops, weights, host):
    """Append one layer of a transformer to n: part (embedding, attention, ffn, decoder, head) gives its
    traffic (transformer_traffic), host its operators in host_table. Backward elementwise traffic:
    twice the forward's (ESTIMATE: each op reads the incoming gradient and a kept tensor, writes a
    gradient; the matmuls inside read for both the data and the weight gradient)."""
    fwd, bwd = host_table[host]
    rw, saved, saved_half = transformer_traffic(part, c, seq)
    h = c["hidden"]
    n.layers.append({"name": name, "kind": "embedding" if part == "embedding" else "dense",
                     "params": sum(tensors), "tensors": tensors, "flops": flops, "weights": weights,
                     "in": 0 if part == "embedding" else seq * h, "out": seq * (c["vocab"] if part == "head" else h),
                     "elem_rw": rw, "elem_rw_bwd": 2 * rw, "saved": saved, "saved_half_bytes": saved_half,
                     "host_fwd": list(fwd), "host_bwd": bwd + ["accumulate"] * len(tensors)})
    if checkpoint_bytes(part, c, seq) is not None:
        n.layers[-1]["ckpt"] = checkpoint_bytes(part, c, seq)


def bert_pretraining_fwd_flops(model, seq):
    """BertForPreTraining forward FLOPs per sequence as NVIDIA DeepLearningExamples PyTorch
    BERT (commit 26c26761) runs it: encoder, pooler, NSP head, and the MLM head (transform
    dense + decoder to the vocabulary) on EVERY position (prediction_scores over the whole
    sequence)."""
    c = BERT_CFGS[model]
    h = c["hidden"]
    attn, ffn = bert_layer_flops(c, seq)
    return (c["layers"] * (attn + ffn) + 2 * h * h + 2 * h * 2
            + 2 * seq * h * h + 2 * seq * h * c["vocab"])


GPT2_CFGS = {  # Hugging Face gpt2 / gpt2-medium / gpt2-large / gpt2-xl config.json (GPT2LMHeadModel)
    "gpt2-124m": {"hidden": 768, "layers": 12, "heads": 12, "hf_name": "gpt2"},
    "gpt2-355m": {"hidden": 1024, "layers": 24, "heads": 16, "hf_name": "gpt2-medium"},
    "gpt2-774m": {"hidden": 1280, "layers": 36, "heads": 20, "hf_name": "gpt2-large"},
    "gpt2-1.5b": {"hidden": 1600, "layers": 48, "heads": 25, "hf_name": "gpt2-xl"},
}
for _c in GPT2_CFGS.values():
    _c.update(inter=4 * _c["hidden"], vocab=50257, max_pos=1024)
GPT2_SEQ_LEN = 1024   # n_positions: the models' full context, as GPT-2 was trained
# Published parameter totals (../shared/data/model_descriptors.csv, computed from the HF configs with
# the tied wte counted once).
GPT2_PARAMS = {"gpt2-124m": 124439808, "gpt2-355m": 354823168, "gpt2-774m": 774030080, "gpt2-1.5b": 1557611200}

# Host operators of GPT2LMHeadModel's layers (transformers' modeling_gpt2.py, eager attention), as
# classes of HOST_FWD / HOST_BWD (ESTIMATE, as BERT_HOST); AccumulateGrads are added per tensor.
GPT2_HOST = {
    # input_ids.view, position ids (arange, unsqueeze), wte and wpe lookups, their add, dropout.
    # Backward: the lookups', add's and dropout's nodes.
    "embeddings": (["view"] * 2 + ["eltwise"] * 5, ["eltwise"] * 4),
    # ln_1; c_attn (Conv1D: addmm between two views); split, three split_heads (view + permute),
    # key transpose; QK^T, the scale (full + div), the causal mask's slices and where, softmax,
    # dropout, AV; merge_heads (permute, contiguous copy, view); c_proj (addmm, two views); residual
    # dropout and add. The block input feeds ln_1 and the residual: one gradient sum.
    "attention": (["linear"] * 4 + ["eltwise"] * 9 + ["view"] * 16,
                  ["linear"] * 4 + ["eltwise"] * 8 + ["view"] * 16 + ["grad_sum"]),
    # ln_2; c_fc (addmm, two views); gelu_new (pow, mul, add, mul, tanh, add, mul, mul); c_proj
    # (addmm, two views); dropout; residual add; one gradient sum.
    "mlp": (["linear"] * 2 + ["eltwise"] * 11 + ["view"] * 4, ["linear"] * 2 + ["eltwise"] * 11 + ["view"] * 4 + ["grad_sum"]),
    # ln_f, view, lm_head (a matmul with the tied wte), the shifted logits' and labels' slices and
    # contiguous copies, two views, cross-entropy.
    "head": (["eltwise"] * 3 + ["view"] * 5 + ["linear", "loss"], ["eltwise"] * 2 + ["view"] * 4 + ["linear", "loss"]),
}
# BLOOM (bloom-*): GPT-2's operators (CHOICE, as the GPT-3-style workloads: the blocks and the head are modelled as
# GPT2LMHeadModel's), except the embedding, written out from transformers' BloomModel.forward (modeling_bloom.py
# @0078a6c; ESTIMATE as GPT2_HOST): the word_embeddings lookup, word_embeddings_layernorm, the default attention mask
# (torch.ones) and build_alibi_tensor (torch.tensor of the base, arange, pow, cumsum, the - 1 and the * mask, the
# slopes' product; two indexings and a reshape: views; at 64 heads, a power of 2, no extra slopes). The causal mask
# it builds is left out: GPT-2's attention operators, kept in every block, already slice and apply one. Backward: the
# lookup's and the LayerNorm's nodes.
BLOOM_HOST = dict(GPT2_HOST, embeddings=(["eltwise"] * 9 + ["view"] * 3, ["eltwise"] * 2))


def gpt2_lm(model, seq, c=None):
    # transformers GPT2LMHeadModel: transformer.wte (vocab x h), wpe (1024 x h); per block h.N: ln_1,
    # attn.c_attn (Conv1D h -> 3h), attn.c_proj (h -> h), ln_2, mlp.c_fc (h -> 4h), mlp.c_proj (4h -> h);
    # ln_f; lm_head Linear(h, vocab, bias=False) with its weight TIED to wte (one parameter, counted
    # in transformer.wte; its gradient gets both uses' contributions, ready when the embedding's
    # backward ends). Tensors in registration order (named_parameters lists the tied weight once).
    # BLOOM (c["alibi"]; transformers BloomForCausalLM, modeling_bloom.py @0078a6c): transformer.word_embeddings
    # (vocab x h) and word_embeddings_layernorm (weight, bias), no position embeddings (ALiBi's per-head bias has no
    # parameters); per block h.N input_layernorm, self_attention.query_key_value (Linear h -> 3h, bias),
    # self_attention.dense (h -> h), post_attention_layernorm, mlp.dense_h_to_4h, mlp.dense_4h_to_h (the same tensors
    # as GPT-2's block, in the same order); ln_f; lm_head tied to word_embeddings. c: a configuration other than
    # model's own (the BLOOM-176B check).
    c, n = c or GPT2_CFGS[model], Net()
    h, i, v = c["hidden"], c["inter"], c["vocab"]
    if c.get("alibi"):
        layer = functools.partial(transformer_layer, n, BLOOM_HOST, c, seq)
        layer("transformer.word_embeddings+layernorm", "embedding", [v * h, h, h], 0, 0, "embeddings")
        names = ("self_attention", "mlp")
    else:
        layer = functools.partial(transformer_layer, n, GPT2_HOST, c, seq)
        layer("transformer.wte+wpe", "embedding", [v * h, c["max_pos"] * h], 0, 0, "embeddings")
        names = ("attn", "mlp")
    attn, ffn = bert_layer_flops(c, seq)
    for k in range(c["layers"]):
        pre = "transformer.h.%d." % k
        layer(pre + names[0], "attention", [h, h, h * 3 * h, 3 * h, h * h, h], attn, 4 * h * h, "attention")
        layer(pre + names[1], "ffn", [h, h, h * i, i, i * h, h], ffn, 2 * h * i, "mlp")
    layer("transformer.ln_f+lm_head", "head", [h, h], 2 * seq * h * v, h * v, "head")
    return n


# GPT-3-style models as Megatron-LM trains them: GPT-2's architecture (learned position embeddings, LayerNorm,
# GELU, FFN 4h, biases, the output layer tied to the input embedding; Megatron's GPTModel has the same tensors
# as GPT2LMHeadModel), 2048-token sequences, the GPT-2 BPE vocabulary (50257) padded to 51200 rows. Shapes (h,
# L, a): GPT-3's Table 2.1 (Brown et al. 2020) for 1.3B, 6.7B, 13B, 175B as Megatron-based configs give them
# (microsoft/Megatron-DeepSpeed examples_deepspeed/rebase/ds_pretrain_gpt_1.3B.sh @77ecb16, "configs from GPT-3
# paper": XL 1.3B 24 layers / 2048 / 16 heads, 6.7B 32 / 4096 / 32, 13B 40 / 5120 / 40, 175B 96 / 12288 / 96,
# seq_len 2048; NVIDIA/NeMo-Framework-Launcher launcher_scripts/conf/training/gpt3/175b.yaml @056a90e: 96 layers,
# hidden 12288, 96 heads, ffn 4 x hidden, 2048 tokens), Narayanan et al. SC'21 Table 1 for 39B and 1T (see
# GPT3_PUBLISHED). All read with the code search; NOT in shared/data.
GPT3_CFGS = {
    "gpt3-1.3b": {"hidden": 2048, "layers": 24, "heads": 16},
    "gpt3-6.7b": {"hidden": 4096, "layers": 32, "heads": 32},
    "gpt3-13b": {"hidden": 5120, "layers": 40, "heads": 40},
    "gpt3-39b": {"hidden": 8192, "layers": 48, "heads": 64},
    "gpt3-175b": {"hidden": 12288, "layers": 96, "heads": 96},
    "gpt3-1t": {"hidden": 25600, "layers": 128, "heads": 160},
}
GPT3_SEQ_LEN = 2048   # GPT-3's context; "All models use a vocabulary size of 51,200 and a sequence length of 2048" (Megatron-LM README)
GPT3_VOCAB = 51200    # the same README sentence; see gpt3_vocab_note
for _c in GPT3_CFGS.values():
    _c.update(inter=4 * _c["hidden"], vocab=GPT3_VOCAB, max_pos=GPT3_SEQ_LEN, hf_name=None, megatron=True)
# The published sizes each total is checked against: (billions as published, rule, source). "nominal": GPT-3's
# Table 2.1 n_params, model names rounded by the authors (their 13B has d_model 5140, their vocabulary is 50257
# unpadded), checked within 1.5%; "table": Narayanan et al.'s Table 1 column "Number of parameters (billion)",
# computed with their formula P = 12 l h^2 (1 + 13 / (12 h) + (V + s) / (12 l h)) (section 5.1, V = 51,200, s =
# 2048), which this architecture reproduces exactly (plus the final LayerNorm's 2h, which the formula leaves
# out), checked to the table's one decimal.
GPT3_PUBLISHED = {
    "gpt3-1.3b": ("1.3", "nominal", "GPT-3 XL, Brown et al. 2020 Table 2.1"),
    "gpt3-6.7b": ("6.7", "nominal", "GPT-3 6.7B, Brown et al. 2020 Table 2.1"),
    "gpt3-13b": ("13.0", "nominal", "GPT-3 13B, Brown et al. 2020 Table 2.1"),
    "gpt3-39b": ("39.1", "table", "Narayanan et al. SC'21 Table 1, the 39.1B row (64 heads, hidden 8192, 48 layers)"),
    "gpt3-175b": ("175.0", "nominal", "GPT-3 175B, Brown et al. 2020 Table 2.1"),
    "gpt3-1t": ("1008.0", "table", "Narayanan et al. SC'21 Table 1, the 1008.0B row (160 heads, hidden 25600, 128 layers)"),
}
# More Megatron-style GPT models, built, timed and checked as the GPT-3-style ones above (is_gpt3), with their own
# provenance (family): "sc21", the other rows of Narayanan et al. SC'21 Table 1 (Megatron-LM's weak-scaling runs);
# "dlperf", the GPT configurations of Oneflow-Inc/DLPerf's Megatron-LM benchmark (on V100s); "bloom", the test shape
# BigScience settled on before BLOOM-176B's final one (the chronicles' "prequel"): BLOOM's architecture, ALiBi (no
# position embeddings), a LayerNorm after the word embedding, its 250880-row padded vocabulary. All at sequence 2048.
# Read with the code search and fetched repositories (NOT in shared/data); the sources are in NEW_GPT_SHAPES_READ.
NEW_GPT_CFGS = {
    "megatron-1.7b": {"hidden": 2304, "layers": 24, "heads": 24, "family": "sc21", "size": "1.7B"},
    "megatron-3.6b": {"hidden": 3072, "layers": 30, "heads": 32, "family": "sc21", "size": "3.6B"},
    "megatron-7.5b": {"hidden": 4096, "layers": 36, "heads": 32, "family": "sc21", "size": "7.5B"},
    "megatron-18b": {"hidden": 6144, "layers": 40, "heads": 48, "family": "sc21", "size": "18B"},
    "megatron-76b": {"hidden": 10240, "layers": 60, "heads": 80, "family": "sc21", "size": "76B"},
    "megatron-145b": {"hidden": 12288, "layers": 80, "heads": 96, "family": "sc21", "size": "145B"},
    "megatron-310b": {"hidden": 16384, "layers": 96, "heads": 128, "family": "sc21", "size": "310B"},
    "megatron-530b": {"hidden": 20480, "layers": 105, "heads": 128, "family": "sc21", "size": "530B"},
    "megatron-0.5b": {"hidden": 1536, "layers": 16, "heads": 16, "family": "dlperf", "size": "0.5B"},
    "dlperf-gpt-1.5b": {"hidden": 2304, "layers": 24, "heads": 24, "family": "dlperf", "size": "1.5B"},
    "bloom-181b-prequel": {"hidden": 14336, "layers": 72, "heads": 64, "family": "bloom", "size": "181B",
                           "vocab": 250880, "alibi": True},
}
BLOOM_VOCAB_WORDS = 250680   # the BLOOM tokenizer's vocabulary (tr11-176B-ml README: "Vocabulary size is 250,680 tokens")
for _m, _c in NEW_GPT_CFGS.items():
    # ALiBi: no position embeddings (max_pos 0: no wpe rows in the parameter count)
    GPT3_CFGS[_m] = dict(_c, inter=4 * _c["hidden"], vocab=_c.get("vocab", GPT3_VOCAB),
                         max_pos=0 if _c.get("alibi") else GPT3_SEQ_LEN, hf_name=None, megatron=True)
_SC21_READ = ("Narayanan et al. SC'21 Table 1 (column 'Number of parameters (billion)'; the paper is not read here and the "
              "Megatron-LM README shows the table as an image: the 1.7, 18.4, 145.6, 310.1 and 529.6 rows, with their heads, "
              "hidden sizes and layers, were read in a public summary of the paper found with find_string, the 3.6, 7.5 and "
              "76.1 rows are recalled; the formula reproduces all of them)")
_DLPERF_REPORT = ("Oneflow-Inc/DLPerf reports/GPT/dlperf_gpt_test_report_210512.md @c86f9b9 (column 'Number of parameters "
                  "(billion)', which is the formula's count divided by 2^30, not 10^9: the check recomputes all five of its "
                  "shapes, DLPERF_PARAMS)")
GPT3_PUBLISHED.update({
    "megatron-1.7b": ("1.7", "table", "%s, the 1.7B row (24 heads, hidden 2304, 24 layers)" % _SC21_READ),
    "megatron-3.6b": ("3.6", "table", "%s, the 3.6B row (32 heads, hidden 3072, 30 layers)" % _SC21_READ),
    "megatron-7.5b": ("7.5", "table", "%s, the 7.5B row (32 heads, hidden 4096, 36 layers)" % _SC21_READ),
    "megatron-18b": ("18.4", "table", "%s, the 18.4B row (48 heads, hidden 6144, 40 layers)" % _SC21_READ),
    "megatron-76b": ("76.1", "table", "%s, the 76.1B row (80 heads, hidden 10240, 60 layers)" % _SC21_READ),
    "megatron-145b": ("145.6", "table", "%s, the 145.6B row (96 heads, hidden 12288, 80 layers)" % _SC21_READ),
    "megatron-310b": ("310.1", "table", "%s, the 310.1B row (128 heads, hidden 16384, 96 layers)" % _SC21_READ),
    "megatron-530b": ("529.6", "table", "%s, the 529.6B row (128 heads, hidden 20480, 105 layers)" % _SC21_READ),
    "megatron-0.5b": ("0.498", "dlperf", "%s, the 1536x16 cases ('498M', 0.498)" % _DLPERF_REPORT),
    "dlperf-gpt-1.5b": ("1.539", "dlperf", "%s, the 2304x24 cases ('1.5B', 1.539)" % _DLPERF_REPORT),
    "bloom-181b-prequel": ("181", "billions", "bigscience-workshop/bigscience train/tr11-176B-ml/chronicles-prequel.md @59a90ee, "
                           "'Size 181B' in every table of the NHIDDEN=14336 / NLAYERS=72 runs (whole billions)"),
})
# A second published size: dlperf-gpt-1.5b has the shape of SC'21 Table 1's 1.7B model.
GPT3_PUBLISHED_ALSO = {"dlperf-gpt-1.5b": GPT3_PUBLISHED["megatron-1.7b"]}
# DLPerf's report, every (hidden, layers) it runs and its "Number of parameters (billion)" column (read in the report):
# each is (12 l h^2 + 13 l h + (V + s) h) / 2^30 with V = 51,200, s = 2048, to its three decimals (check_architectures).
DLPERF_PARAMS = {(768, 12): "0.117", (1536, 16): "0.498", (2304, 24): "1.539", (3072, 16): "1.840", (3072, 32): "3.529"}
# BLOOM-176B itself (tr11-176B-ml README and .slurm: NLAYERS 70, NHEADS 112, the same hidden, vocabulary and flags): its
# published total, 176,247,271,424 parameters with 3,596,615,680 embedding parameters (the bigscience/bloom model card,
# read in public copies with find_string), which this architecture must give at that shape (check_architectures).
BLOOM_176B = {"layers": 70, "heads": 112, "params": 176247271424, "embedding": 3596615680}
GPT2_CFGS.update(GPT3_CFGS)
GPT3_VOCAB_NOTE = ("the GPT-2 BPE's 50257 words padded to 51200 rows: Megatron-LM pads the vocabulary to a multiple of "
                   "make_vocab_size_divisible_by (128) x the tensor-parallel size (_vocab_size_with_padding, read in public "
                   "copies of Megatron-LM), which gives 51200 at t = 8, and its README's scaling runs state 'All models use a "
                   "vocabulary size of 51,200 and a sequence length of 2048' (read in copies of NVIDIA/Megatron-LM README.md); "
                   "the padded rows are in the embedding, the output matmul and the softmax like the others")
_MDS = "microsoft/Megatron-DeepSpeed examples_deepspeed/rebase/ds_pretrain_gpt_1.3B.sh @77ecb16 ('configs from GPT-3 paper')"
GPT3_SHAPES_READ = {
    "gpt3-1.3b": "GPT-3 XL of Brown et al. 2020 Table 2.1 (24 layers, d_model 2048); 16 heads of 128 as Megatron configs give it (%s: GPT-3 XL 1.3B num_layers 24, hidden_size 2048, num_attn_heads 16)" % _MDS,
    "gpt3-6.7b": "GPT-3 6.7B of Brown et al. 2020 Table 2.1 (32 layers, d_model 4096, 32 heads of 128); %s: num_layers 32, hidden_size 4096, num_attn_heads 32" % _MDS,
    "gpt3-13b": "GPT-3 13B of Brown et al. 2020 Table 2.1 (40 layers, 40 heads of 128); %s: num_layers 40, hidden_size 5120, num_attn_heads 40" % _MDS,
    "gpt3-39b": "Narayanan et al. SC'21 Table 1's 39.1B model (64 heads, hidden 8192, 48 layers; the table is recalled, not read here: the Megatron-LM README shows it as an image); corroborated by alpa-projects/alpa benchmark/parax/paper_manual_gpt_suite.py, whose '39B' is (hidden 8192, 48 layers, 64 heads, vocabulary 51200)",
    "gpt3-175b": "GPT-3 175B of Brown et al. 2020 Table 2.1 (96 layers, d_model 12288, 96 heads of 128); %s: num_layers 96, hidden_size 12288, num_attn_heads 96; NVIDIA/NeMo-Framework-Launcher launcher_scripts/conf/training/gpt3/175b.yaml @056a90e: num_layers 96, hidden_size 12288, num_attention_heads 96, ffn_hidden_size 4 x hidden_size, encoder_seq_length 2048, make_vocab_size_divisible_by 128" % _MDS,
    "gpt3-1t": "Narayanan et al. SC'21 Table 1's 1008.0B model (160 heads, hidden 25600, 128 layers, trained on 3072 A100s at t = 8, p = 64; the table is recalled, not read here: the Megatron-LM README shows it as an image); corroborated by a public Megatron launch script found with find_string ('1T' : HIDDEN_SIZE=25600, NUM_HEAD=160, NUM_LAYERS=128)",
}
GPT3_SHAPE_NOTES = {
    "gpt3-1.3b": "GPT-3's Table 2.1 lists 24 heads of d_head 128 for XL (24 x 128 = 3072, not d_model 2048; as read in Alpa's paper_manual_gpt_suite.py copy of the table, '1.3B': 2048, 24 layers, 24 heads); 16 heads keep d_head = 128 with h = 2048. ",
    "gpt3-13b": "GPT-3's Table 2.1 says d_model 5140 (Alpa's copy of the table: 5140), not divisible by its 40 heads; Megatron-based GPT-3 13B configs use 5120 (5120 / 40 = 128, the table's d_head), as here. ",
}
_SC21_SCRIPT = ("NVIDIA/Megatron-LM examples/sc21/run_table_1.sh @6985e58 (its README: 'Table 1 showing weak-scaling throughput "
                "for GPT models ranging from 1 billion to 1 trillion parameters'), MODEL_SIZE=%s: NLS=%d, HS=%d, NAH=%d; "
                "examples/sc21/CONFIG.sh at that commit: --seq-length 2048 --max-position-embeddings 2048, the GPT-2 BPE "
                "(--vocab-file, --merge-file), --fp16")
_DLPERF_SCRIPT = ("Oneflow-Inc/DLPerf Megatron-LM/README.md and Megatron-LM/scripts/mutil_perf_pretrain_gpt_dp_mp_pp.sh @10f7979 "
                  "(NVIDIA/Megatron-LM @8aa4619 pretrain_gpt.py on 8x Tesla V100-SXM2-16GB nodes: SEQ_LENGTH=2048, "
                  "--max-position-embeddings 2048, gpt2-vocab.json and gpt2-merges.txt, --fp16, --checkpoint-activations), "
                  "%s; its report (reports/GPT/dlperf_gpt_test_report_210512.md @c86f9b9): 'All models use a vocabulary size "
                  "of 51,200 and a sequence length of 2048'")
NEW_GPT_SHAPES_READ = {
    "megatron-0.5b": _DLPERF_SCRIPT % "the script's defaults NUM_LAYERS=16, HIDDEN_SIZE=1536, NUM_ATTENTION_HEADS=16 and the README's DP/MP/2D/PP cases '..._1536x16' (hidden 1536, 16 heads, 16 layers), the report's model size '498M'",
    "dlperf-gpt-1.5b": _DLPERF_SCRIPT % "the README's cases '..._2304x24' (run as '... 24 2304 24': 24 layers, hidden 2304, 24 heads), the report's model size '1.5B'; the same shape as SC'21 Table 1's 1.7B model (megatron-1.7b), kept as its own workload to name DLPerf's configuration",
    "bloom-181b-prequel": ("bigscience-workshop/bigscience train/tr11-176B-ml/chronicles-prequel.md @59a90ee (BLOOM's trials before its training "
                           "started): the 48-node contender, final-round, NHEADs and GBS-variation tables of Feb 21-25 2022 on 'NHIDDEN=14336 / "
                           "NLAYERS=72', 'all NHEADS=64 (above too)' ('NLAYERS=72 NHIDDEN=14336 NHEADS=64' in the GBS variations), 'Size "
                           "181B'; the prequel does not list its other flags (its 20B and 200B runs say SEQ_LEN=2048, VOCAB_LENGTH=250k), "
                           "which are taken from BLOOM-176B's (train/tr11-176B-ml/README.md @39ed811: SEQ_LEN=2048, '--position-embedding-type "
                           "alibi', '--embed-layernorm', 'torch.nn.functional.gelu', the tied embedding layers of its --pp-partition-method "
                           "note, 'Vocabulary size is 250,680 tokens', an embedding of 'v*h: 250880*14336', one layer '12*h**2 + 13*h' (FFN "
                           "4h, biases); tr11-176B-ml.slurm @dc8d99f: --pad-vocab-size-to 250880, --embed-layernorm, --position-embedding-type "
                           "alibi, --bf16). The final BLOOM-176B has 70 layers and 112 heads (the same README); this is the 72-layer, "
                           "64-head shape tested before it"),
}
NEW_GPT_SHAPES_READ.update({m: _SC21_SCRIPT % (c["size"], c["layers"], c["hidden"], c["heads"])
                            for m, c in NEW_GPT_CFGS.items() if c["family"] == "sc21"})
BLOOM_VOCAB_NOTE = ("the BLOOM tokenizer's %d words padded to 250880 rows: tr11-176B-ml.slurm @dc8d99f passes --pad-vocab-size-to "
                    "250880 (and its README sizes the embedding as 250880 x 14336; the bigscience/bloom model card's 3,596,615,680 "
                    "embedding parameters are that product); 250880 is also 250680 rounded up to a multiple of make_vocab_size_divisible_by "
                    "(128) x the tensor-parallel size, as Megatron-DeepSpeed pads without that flag, at t = 4 (512; the final run) and at "
                    "t = 8 (1024; most prequel runs). The prequel's own runs only say 'VOCAB_LENGTH=250k'. The padded rows are in the "
                    "embedding, the output matmul and the softmax like the others" % BLOOM_VOCAB_WORDS)


def new_gpt_name(model):
    """How the provenance names a NEW_GPT_CFGS model (with its shape)."""
    c = NEW_GPT_CFGS[arch(model)]
    shape = "%d layers, hidden %d, %d heads" % (c["layers"], c["hidden"], c["heads"])
    if c["family"] == "sc21":
        return "the %s GPT model of Narayanan et al.'s SC'21 Table 1 as Megatron-LM trains it (GPT-2's architecture, %s)" % (c["size"], shape)
    if c["family"] == "dlperf":
        return "DLPerf's Megatron-LM GPT %s configuration (GPT-2's architecture as Megatron-LM trains it, %s)" % (c["size"], shape)
    return "BigScience's BLOOM architecture at its 181B prequel shape (ALiBi, an embedding LayerNorm, %s)" % shape


def gpt_family(model):
    """The family of a GPT-style workload added after the GPT-3 ones (NEW_GPT_CFGS: sc21, dlperf, bloom), else None."""
    return NEW_GPT_CFGS.get(arch(model), {}).get("family")


def vocab_note(model):
    """Where the workload's vocabulary rows come from."""
    if gpt_family(model) == "bloom":
        return BLOOM_VOCAB_NOTE
    if gpt_family(model) == "dlperf":
        return (GPT3_VOCAB_NOTE + ". DLPerf's report states the same 51,200 for all its models (and its parameter column "
                "counts 51,200 rows); Megatron-LM's padding (128 x t) would give 50304 rows in its runs at t = 1, 51200 only at "
                "t = 8: 51,200 is taken, as the report says")
    return GPT3_VOCAB_NOTE


def is_gpt3(model):
    return arch(model) in GPT3_CFGS


def gpt3_params_check(model, params):
    """None if params agrees with the published size of model (GPT3_PUBLISHED), else why not."""
    c = GPT3_CFGS[model]
    h, L, v, s = c["hidden"], c["layers"], c["vocab"], c["max_pos"]
    formula = 12 * L * h * h + 13 * L * h + (v + s) * h   # Narayanan et al.'s P, multiplied out
    if c.get("alibi"):
        # BLOOM: no position embeddings (s = 0 above), a LayerNorm after the word embedding and ln_f: the tr11-176B-ml
        # README's own count, l (12 h^2 + 13 h) + v h + 4 h
        if params != formula + 4 * h:
            return "%d parameters, l (12 h^2 + 13 h) + V h + 4 h gives %d" % (params, formula + 4 * h)
    elif params != formula + 2 * h:
        return "%d parameters, Narayanan et al.'s formula + the final LayerNorm gives %d" % (params, formula + 2 * h)
    for published, rule, _ in [GPT3_PUBLISHED[model]] + ([GPT3_PUBLISHED_ALSO[model]] if model in GPT3_PUBLISHED_ALSO else []):
        if rule == "table" and "%.1f" % (params / 1e9) != published:
            return "%.3fB parameters, the table says %sB" % (params / 1e9, published)
        if rule == "nominal" and abs(params / (float(published) * 1e9) - 1) > 0.015:
            return "%.3fB parameters, more than 1.5%% from the published %sB" % (params / 1e9, published)
        if rule == "dlperf" and "%.3f" % (formula / 2**30) != published:
            return "%.4f x 2^30 parameters by Narayanan et al.'s formula, DLPerf's report says %s" % (formula / 2**30, published)
        if rule == "billions" and "%d" % round(params / 1e9) != published:
            return "%.3fB parameters, the published size is %sB" % (params / 1e9, published)
    return None


LLAMA_CFGS = {  # config.json of each (LlamaForCausalLM): meta-llama/Llama-2-7b-hf, -13b-hf, -70b-hf, Meta-Llama-3-8B, -70B
    "llama2-7b": {"hidden": 4096, "layers": 32, "heads": 32, "kv_heads": 32, "inter": 11008, "vocab": 32000,
                  "max_pos": 4096, "seqs": (2048, 4096), "hf_name": "meta-llama/Llama-2-7b-hf"},
    "llama2-13b": {"hidden": 5120, "layers": 40, "heads": 40, "kv_heads": 40, "inter": 13824, "vocab": 32000,
                   "max_pos": 4096, "seqs": (2048, 4096), "hf_name": "meta-llama/Llama-2-13b-hf"},
    "llama2-70b": {"hidden": 8192, "layers": 80, "heads": 64, "kv_heads": 8, "inter": 28672, "vocab": 32000,
                   "max_pos": 4096, "seqs": (4096,), "hf_name": "meta-llama/Llama-2-70b-hf"},
    "llama3-8b": {"hidden": 4096, "layers": 32, "heads": 32, "kv_heads": 8, "inter": 14336, "vocab": 128256,
                  "max_pos": 8192, "seqs": (8192,), "hf_name": "meta-llama/Meta-Llama-3-8B"},
    "llama3-70b": {"hidden": 8192, "layers": 80, "heads": 64, "kv_heads": 8, "inter": 28672, "vocab": 128256,
                   "max_pos": 8192, "seqs": (8192,), "hf_name": "meta-llama/Meta-Llama-3-70B"},
}
for _c in LLAMA_CFGS.values():
    _c.update(llama=True)
# Where each config's values were read (public copies of config.json; NOT in shared/data). The Llama 2
# 7B/13B ones with find_string; the others with the docs search, each copy naming the original in its
# _name_or_path (or, for the 8B, uploaded from it).
LLAMA_CONFIG_READ = {
    "llama2-70b": "Hugging Face copies TheBloke/Llama-2-70B-fp16 and NousResearch/Nous-Puffin-70B (_name_or_path meta-llama/Llama-2-70b-hf): hidden_size 8192, num_hidden_layers 80, num_attention_heads 64, num_key_value_heads 8, intermediate_size 28672, vocab_size 32000, max_position_embeddings 4096, tie_word_embeddings false, rms_norm_eps 1e-05",
    "llama3-8b": "Hugging Face copies pandyamarut/Meta-Llama-3-8B and FriendliAI/Meta-Llama-3-8B-int8 (model_name_or_path meta-llama/Meta-Llama-3-8B): hidden_size 4096, num_hidden_layers 32, num_attention_heads 32, num_key_value_heads 8, intermediate_size 14336, vocab_size 128256, max_position_embeddings 8192, rope_theta 500000.0, tie_word_embeddings false, attention_bias false, mlp_bias false, attention_dropout 0.0",
    "llama3-70b": "Hugging Face copies kittn/Meta-Llama-3-70B-quant (_name_or_path meta-llama/Meta-Llama-3-70B) and DukeNLP/Prob-Gen-70B (a Meta-Llama-3-70B fine-tune): hidden_size 8192, num_hidden_layers 80, num_attention_heads 64, num_key_value_heads 8, intermediate_size 28672, vocab_size 128256, max_position_embeddings 8192, rope_theta 500000.0, tie_word_embeddings false, attention_bias false, attention_dropout 0.0",
}
# Published parameter totals, as transformers' num_parameters() gives them (NOT in shared/data; read in
# public copies with find_string: KerasNLP's llama backbone_presets "params": 6738415616; Ray's
# vicuna-13b DeepSpeed example, a Llama-2-13B fine-tune, "Reconstructed Trainable fp32 state dict with 363
# params 13015864320 elements"), and the 13B's tensor count from the same log.
LLAMA_PARAMS = {"llama2-7b": 6738415616, "llama2-13b": 13015864320, "llama2-70b": 68976648192,
                "llama3-8b": 8030261248, "llama3-70b": 70553706496}
LLAMA_TENSORS = {"llama2-13b": 363}
# Where the totals of the newer ones were read (find_string, public copies; NOT in shared/data).
LLAMA_PARAMS_READ = {
    "llama2-70b": "the together Python library's fine-tuning price table (model_param_count: 'togethercomputer/llama-2-70b': 68976648192) and an ALCF AuroraGPT-70B note (TOTAL_PARAMS=68976648192 for 80 layers, hidden 8192, 64 heads, 8 KV heads, FFN 28672); a public record of the Hugging Face API's safetensors.total for meta-llama/Llama-2-70b-hf gives 68976653312, which is this count plus the 80 layers' rotary inv_freq buffers (64 each, 5120) that checkpoint stores (its Llama-2-7b-hf figure, 6738417664, exceeds 6738415616 by 32 x 64 the same way)",
    "llama3-8b": "Ollama's model_info for Llama 3 8B (general.parameter_count 8030261248, llama.context_length 8192, head_count_kv 8, feed_forward_length 14336, vocab_size 128256) and a public record of the Hugging Face API's safetensors.total for meta-llama/Llama-3.1-8B, the same shapes (8030261248)",
    "llama3-70b": "a public record of the Hugging Face API's safetensors.total for meta-llama/Llama-3.1-70B (70553706496), whose shapes are Llama 3 70B's (hidden 8192, 80 layers, 64 heads, 8 KV heads, FFN 28672, vocabulary 128256, untied: oumi's Llama 3.1 recipe README), and catalogues of Llama-3.3-70B-Instruct, the same shapes (parameterCount 70553706496)",
}
# Host operators of LlamaForCausalLM (transformers' modeling_llama.py @5dd4a63, the 4.49 line; eager
# attention, use_cache=False, no attention_mask: packed sequences), as classes of HOST_FWD / HOST_BWD
# (ESTIMATE, as BERT_HOST); AccumulateGrads are added per tensor. A matmul is a "linear" (as GPT-2's QK^T
# and AV); a no-op .to() or .contiguous(), F.dropout with p = 0 (returns its input) and slices are views.
LLAMA_HOST = {
    # embed_tokens; cache_position (arange), position_ids (unsqueeze); the causal mask (full, triu, arange,
    # reshape, gt, mul_, two unsqueezes, expand); the rotary cos and sin (inv_freq's two unsqueezes, float,
    # expand; position_ids' unsqueeze and float; two floats, the matmul, transpose; cat, cos, sin, two muls
    # by attention_scaling, two .to). Backward: the embedding's node (nothing else needs a gradient).
    "embeddings": (["eltwise"] * 13 + ["view"] * 15 + ["linear"], ["eltwise"]),
    # input_layernorm (to, pow, mean, add, rsqrt, mul, to, mul); q, k, v proj, each view + transpose; rotary
    # on q and k (two unsqueezes of cos and sin; per tensor mul, two slices, neg, cat, mul, add); the key's
    # transpose, QK^T, x scaling, the mask's slice and add, softmax, .to, dropout (p = 0), AV, transpose,
    # contiguous (a copy), reshape, contiguous (none), o_proj; residual add; post_attention_layernorm
    # (8); gate_proj, SiLU, up_proj, mul, down_proj; residual add. Backward: the same nodes less the no-ops
    # (to, dropout, the second contiguous, the unsqueezes of cos and sin, the mask's slice), and 11 gradient
    # sums: the layer input (pow, mul, residual), the first norm's output (q, k, v), q and k (mul, two
    # slices each), the residual sum (pow, mul, residual), the second norm's output (gate, up).
    "decoder": (["linear"] * 9 + ["eltwise"] * 30 + ["view"] * 23,
                ["linear"] * 9 + ["eltwise"] * 30 + ["view"] * 13 + ["grad_sum"] * 11),
    # The same with grouped-query attention (Llama-2 70B, Llama 3): eager_attention_forward's repeat_kv on the key
    # and the value, each an unsqueeze ([:, :, None]) and an expand (views) and a reshape of the expanded tensor
    # (a copy, eltwise). Backward, per tensor: the reshape's view and clone nodes (no kernel: views), the
    # expand's sum over the repeats (eltwise), the unsqueeze's node (view).
    "decoder_gqa": (["linear"] * 9 + ["eltwise"] * 32 + ["view"] * 27,
                    ["linear"] * 9 + ["eltwise"] * 32 + ["view"] * 19 + ["grad_sum"] * 11),
    # norm (8, as above); hidden_states[:, slice(0, None), :] (an alias); lm_head; ForCausalLMLoss:
    # logits.float() (a no-op at FP32), labels' pad, slice and contiguous copy, two views, .to, cross_entropy.
    # Backward: the norm's 6 nodes and the sum of its input's two gradients (pow, mul), the alias, lm_head,
    # the view, the loss.
    "head": (["eltwise"] * 8 + ["view"] * 8 + ["linear", "loss"],
             ["eltwise"] * 6 + ["view"] * 2 + ["linear", "loss", "grad_sum"]),
}


def kv_hidden(c):
    """The width of k_proj's and v_proj's outputs: h x kv_heads / heads (h without grouped-query attention)."""
    assert c["hidden"] * c["kv_heads"] % c["heads"] == 0
    return c["hidden"] * c["kv_heads"] // c["heads"]


def llama_layer_flops(c, seq):
    """Forward FLOPs per sequence of one LlamaDecoderLayer: the attention counted as BERT's and GPT-2's
    (q and o proj 4 s h^2, k and v proj 4 s h h_kv with h_kv = h kv_heads / heads: 8 s h^2 without grouped-query
    attention; QK^T and AV over the full s x s scores, 4 s^2 h: eager attention masks the upper triangle, it does
    not skip it, and every query head multiplies the full head dimension) and SwiGLU's three matmuls (gate, up,
    down: 6 s h i)."""
    h = c["hidden"]
    return 4 * seq * h * h + 4 * seq * h * kv_hidden(c) + 4 * seq * seq * h + 3 * 2 * seq * h * c["inter"]


def llama_lm(model, seq):
    # transformers LlamaForCausalLM: model.embed_tokens (vocab x h); per decoder layer model.layers.N (one
    # entry: input_layernorm, self_attn q/k/v/o_proj, post_attention_layernorm, mlp gate/up/down_proj, no
    # biases; rotary position embeddings have no parameters); model.norm; lm_head Linear(h, vocab,
    # bias=False), NOT tied (tie_word_embeddings false: its own parameters, in the last entry). Tensors in
    # registration order (LlamaDecoderLayer registers self_attn, mlp, input_layernorm,
    # post_attention_layernorm): q, k, v, o, gate, up, down, the two norms' weights. Grouped-query attention
    # (kv_heads < heads): k_proj and v_proj are Linear(h, h_kv), h_kv = head_dim x kv_heads.
    c, n = LLAMA_CFGS[arch(model)], Net()
    h, i, v, hkv = c["hidden"], c["inter"], c["vocab"], kv_hidden(c)
    layer = functools.partial(transformer_layer, n, LLAMA_HOST, c, seq)
    layer("model.embed_tokens", "embedding", [v * h], 0, 0, "embeddings")
    for k in range(c["layers"]):
        layer("model.layers.%d" % k, "decoder", [h * h, hkv * h, hkv * h, h * h] + [i * h] * 3 + [h, h],
              llama_layer_flops(c, seq), 2 * h * h + 2 * h * hkv + 3 * h * i,
              "decoder" if hkv == h else "decoder_gqa")
    layer("model.norm+lm_head", "head", [h, v * h], 2 * seq * h * v, h * v, "head")
    return n


# Each workload: (architecture, sequence length) for the transformers; the CNNs are their own.
VARIANTS = {"bert-base": ("bert-base", 512), "bert-large": ("bert-large", 512),
            "bert-base-seq128": ("bert-base", 128), "bert-base-seq512": ("bert-base", 512),
            "bert-large-seq128": ("bert-large", 128), "bert-large-seq512": ("bert-large", 512),
            "bert-base-seq384": ("bert-base", 384), "bert-large-seq384": ("bert-large", 384)}
VARIANTS.update({m: (m, GPT3_SEQ_LEN if m in GPT3_CFGS else GPT2_SEQ_LEN) for m in GPT2_CFGS})
VARIANTS.update({"%s-seq%d" % (m, s): (m, s) for m, c in LLAMA_CFGS.items() for s in c["seqs"]})


def arch(model):
    """The architecture of a workload (bert-base-seq128 -> bert-base)."""
    return VARIANTS.get(model, (model, 0))[0]


def seq_len(model):
    return VARIANTS[model][1]


def is_bert(model):
    return arch(model) in BERT_CFGS


def is_llama(model):
    return arch(model) in LLAMA_CFGS


def is_transformer(model):
    return is_bert(model) or is_llama(model) or arch(model) in GPT2_CFGS


ARCHS = {
    "alexnet": alexnet, "vgg11": lambda: vgg("vgg11"), "vgg16": lambda: vgg("vgg16"),
    "vgg19": lambda: vgg("vgg19"), "resnet18": lambda: resnet("resnet18"), "resnet34": lambda: resnet("resnet34"), "resnet50": lambda: resnet("resnet50"),
    "resnet101": lambda: resnet("resnet101"), "resnet152": lambda: resnet("resnet152"),
    "mobilenet_v2": mobilenet_v2, "shufflenet_v2_x0_5": shufflenet_v2_x0_5,
    "squeezenet1_0": squeezenet1_0,
}

# torchvision *_Weights.IMAGENET1K_V1 meta: num_params and _ops (GMACs per 224x224 image), read in
# copies of pytorch/vision torchvision/models/{alexnet,resnet,vgg,mobilenetv2,shufflenetv2,
# squeezenet}.py found with find_string; ResNet-18/50, VGG-16, AlexNet also in
# ../shared/data/model_descriptors.csv.
TORCHVISION = {
    "alexnet": (61100840, 0.714), "resnet18": (11689512, 1.814), "resnet34": (21797672, 3.664), "resnet50": (25557032, 4.089),
    "resnet101": (44549160, 7.801), "resnet152": (60192808, 11.514), "vgg11": (132863336, 7.609),
    "vgg16": (138357544, 15.47), "vgg19": (143667240, 19.632), "mobilenet_v2": (3504872, 0.301),
    "shufflenet_v2_x0_5": (1366792, 0.04), "squeezenet1_0": (1248424, 0.819),
}
# Parameter tensors of torchvision's models (../shared/data/stash_methodology.md section 7).
TORCHVISION_TENSORS = {"alexnet": 16, "vgg11": 22, "squeezenet1_0": 52, "resnet18": 62, "resnet50": 161,
                       "mobilenet_v2": 158, "shufflenet_v2_x0_5": 170}
# model_descriptors.csv computes BertModel WITH its pooler (dense hidden x hidden + bias).
BERT_WITH_POOLER = {"bert-base": 109482240, "bert-large": 335141888}


# ---------------------------------------------------------------------------------------------
# Measurements and estimation constants (each with its source)
# ---------------------------------------------------------------------------------------------

# The reference device's memory bandwidth and SMs, for the roofline model (--compute-model roofline):
# the V100's 900 GB/s HBM2 and 80 SMs (NVIDIA Tesla V100 datasheet and Volta whitepaper, as
# scripts/gen_platforms.py cites them for the V100 instance files).
REF = {"gpu_model": "Tesla V100-SXM2-16GB", "gpu_flops": 15.7e12, "batch": 16, "memory_gbytes_per_s": 900,
       "sm_count": 80}
CNNB = "../shared/data/single_gpu_fwd_bwd.md (github.com/dmikushin/cnn-benchmarks README @ 1a67201, Torch + cuDNN, FP32, batch 16, 224x224)"
# (table heading in single_gpu_fwd_bwd.md, V100 fwd/bwd ms, K80 fwd/bwd ms) per minibatch of 16
MEASURED = {
    "alexnet": ("AlexNet", (3.18, 6.66), (15.98, 31.63)),
    "vgg16": ("VGG-16", (23.76, 52.69), (153.67, 295.74)),
    "vgg19": ("VGG-19", (27.73, 60.24), (179.85, 347.85)),
    "resnet18": ("ResNet-18", (6.16, 14.16), (37.87, 74.88)),
    "resnet34": ("ResNet-34", (10.14, 22.37), (64.79, 124.24)),
    "resnet101": ("ResNet-101", (31.64, 82.11), (199.41, 486.11)),
    "resnet152": ("ResNet-152", (44.80, 117.58), (283.68, 700.15)),
}
RESNET50_CNNB_MS = (19.83, 46.26)       # same table, ResNet-50 V100 row (comparison only)

# Roofline estimate of the small models (see small_model_times).
HBM2_PEAK_BPS = 900e9      # V100 HBM2 peak, NVIDIA V100 datasheet; NOT in shared/data
STREAM_EFF = 0.75          # ESTIMATE: fraction of peak that streaming elementwise kernels reach
DW_BW_FRACTION = 0.25      # ESTIMATE from pytorch/pytorch#18631, see small_model_times

# BERT: ../shared/data/single_gpu_throughput.md, row "BERT-base pretrain | FP32 bs32, NGC PyTorch |
# V100-SXM2-16GB | 119.60 sentences/s" (Oneflow-Inc/DLPerf report table 5-2).
BERT_PRETRAIN_SEQ_PER_S = 119.60
BERT_PRETRAIN_SEQ_LEN = 128   # DLPerf NVIDIADeepLearningExamples/PyTorch/BERT/scripts/single_node_train.sh
BERT_BWD_FWD = 2.0            # ESTIMATE: see bert_times
ADAMW_FACTOR = 2.0            # ESTIMATE: see optimizer provenance

# ResNet-50 SGD step, workloads/resnet50.json optimizer_s (MEASURED, kineto trace, V100, SGD momentum).
SGD_STEP_S, SGD_STEP_PARAMS = 0.0013, 25557032

# Host (CPU) time per operator: classes of top-level operators and the operators of the ResNet-50
# trace they are measured on (workloads/resnet50.json provenance host_per_op_us: calls per step and
# mean us of each, the Python / autograd-engine time before it included). "sum": the class is one of
# each (a module's operators); "mean": any one of them (their call-weighted mean).
HOST_FWD = {
    "conv": ("sum", ["aten::conv2d"]),
    "linear": ("sum", ["aten::linear"]),
    "batchnorm": ("sum", ["aten::batch_norm", "aten::add"]),    # training: num_batches_tracked += 1
    "eltwise": ("mean", ["aten::relu_", "aten::add_", "aten::max_pool2d", "aten::adaptive_avg_pool2d"]),
    "view": ("sum", ["aten::flatten"]),
    "loss": ("sum", ["aten::cross_entropy_loss"]),
    "seed": ("sum", ["aten::zeros", "aten::ones_like"]),         # between the loss and the backward pass
}
HOST_BWD = {
    "conv": ("sum", ["CudnnConvolutionBackward"]),
    "linear": ("sum", ["AddmmBackward", "TBackward", "aten::sum", "aten::view"]),   # with the bias reduction
    "batchnorm": ("sum", ["CudnnBatchNormBackward"]),
    "eltwise": ("mean", ["ReluBackward1", "AddBackward0", "MaxPool2DWithIndicesBackward", "MeanBackward1"]),
    "view": ("sum", ["ViewBackward"]),
    "loss": ("sum", ["NllLossBackward", "LogSoftmaxBackward"]),
    "grad_sum": ("sum", ["aten::add"]),                          # a tensor's gradients from two uses
    "accumulate": ("sum", ["torch::autograd::AccumulateGrad"]),  # one per parameter tensor
}
# In-place operators per parameter tensor of an optimizer step (PyTorch's SGD and transformers'
# AdamW, read in their step loops): the trace's SGD (momentum, no weight decay): buf.mul_, buf.add_,
# p.add_; Stash's SGD adds weight decay 1e-4 (d_p.add); AdamW with weight decay 0: exp_avg.mul_.add_,
# exp_avg_sq.mul_.addcmul_, sqrt, add_(eps), p.addcdiv_.
OPT_OPS_TRACE, OPT_OPS_SGD_WD, OPT_OPS_ADAMW = 3, 4, 7

IMAGENET_SAMPLES, IMAGENET_BYTES = 1281167, 146e9      # as workloads/resnet50.json
# RedPajama-Data-1T's dataset card (huggingface.co/datasets/togethercomputer/RedPajama-Data-1T, README
# "Dataset Summary"): tokens per source, in billions (see dataset()).
REDPAJAMA_TOKENS_B = {"Commoncrawl": 878, "C4": 175, "GitHub": 59, "Books": 26, "ArXiv": 28, "Wikipedia": 24,
                      "StackExchange": 20}
REDPAJAMA_TOKENS = sum(REDPAJAMA_TOKENS_B.values()) * 10**9
OWT_TRAIN_TOKENS = 9035582198                          # nanoGPT data/openwebtext/prepare.py (see dataset())
SQUAD2_TRAIN_JSON_BYTES, SQUAD2_TRAIN_ANSWERABLE = 42123633, 86821

# Stash's per-GPU batches (../shared/data/stash_methodology.md section 4) and data pipelines.
MODELS = {  # name: (default batch, pipeline, batch note)
    "alexnet": (256, "dali-gpu", "Stash's batch for alexnet (run_p3.8x_dist.sh, analyze.py models_256)"),
    "resnet18": (128, "dali-gpu", "Stash's batch for resnet18 (run_p3.8x_dist.sh, analyze.py models_128)"),
    "mobilenet_v2": (128, "dali-gpu", "Stash's batch for mobilenet_v2 (run_p3.8x_dist.sh, analyze.py models_128)"),
    "shufflenet_v2_x0_5": (256, "dali-gpu", "Stash's batch for shufflenet_v2_x0_5 (run_p3.8x_dist.sh, analyze.py models_256)"),
    "squeezenet1_0": (256, "dali-gpu", "Stash's batch for squeezenet1_0 (run_p3.8x_dist.sh, analyze.py models_256)"),
    "vgg11": (80, "dali-cpu", "Stash's batch for vgg11 (run_p3_largeModels.sh, run_p3.8x_dist.sh, analyze.py models_80)"),
    "vgg16": (80, "dali-cpu", "CHOICE: vgg16 is not in Stash's batch lists (only its VGG depth sweep); 80 as Stash's other large models (resnet50, vgg11)"),
    "vgg19": (80, "dali-cpu", "CHOICE: vgg19 is not in Stash's batch lists (only its VGG depth sweep); 80 as Stash's other large models (resnet50, vgg11)"),
    "resnet34": (128, "dali-gpu", "CHOICE: resnet34 is not in Stash's batch lists (only its ResNet depth sweep); 128 as resnet18"),
    "resnet101": (80, "dali-cpu", "CHOICE: resnet101 is not in Stash's batch lists (only its ResNet depth sweep); 80 as Stash's other large models (resnet50, vgg11)"),
    "resnet152": (80, "dali-cpu", "CHOICE: resnet152 is not in Stash's batch lists (only its ResNet depth sweep); 80 as Stash's other large models (resnet50, vgg11)"),
    "bert-base": (4, "squad", "Stash's BERT batch (tool/run_bert.sh: -b 4); Stash ran bert-large-uncased, bert-base is an addition with the same setup"),
    "bert-large": (4, "squad", "Stash's BERT batch (tool/run_bert.sh: -b 4)"),
    "bert-base-seq128": (32, "squad", "CHOICE: 32, BERT's fine-tuning batch at sequence 128 (Devlin et al.: batch 32 for GLUE)"),
    "bert-base-seq512": (8, "squad", "CHOICE: 8 (a quarter of the sequence-128 batch: about the same tokens per step)"),
    "bert-large-seq128": (16, "squad", "CHOICE: 16, half of bert-base's (3x the parameters and activations)"),
    "bert-large-seq512": (4, "squad", "CHOICE: 4, Stash's bert-large batch at sequence 512"),
    "bert-base-seq384": (24, "squad", "24, Lambda's FP32 batch for BERT-base SQuAD on a 16 GB GPU (lambdal/deeplearning-benchmark pytorch/scripts/config_v1/config_pytorch_16GB.sh @357c49a, PyTorch_bert_base_squad_FP32_PARAMS: NVIDIA DeepLearningExamples' scripts/run_squad.sh, whose run_squad.py call fixes --max_seq_length=384 --doc_stride=128 (@0663b67))"),
    "bert-large-seq384": (8, "squad", "8, Lambda's FP32 batch for BERT-large SQuAD on a 16 GB GPU (lambdal/deeplearning-benchmark pytorch/scripts/config_v1/config_pytorch_16GB.sh @357c49a, PyTorch_bert_large_squad_FP32_PARAMS: NVIDIA DeepLearningExamples' scripts/run_squad.sh, --max_seq_length=384 --doc_stride=128 (@0663b67))"),
    "gpt2-124m": (8, "openwebtext", "CHOICE: 8 sequences of 1024 tokens (nanoGPT's train_gpt2.py runs 12 per GPU in BF16/AMP; FP32 needs about twice the activation memory)"),
    "gpt2-355m": (4, "openwebtext", "CHOICE: 4 sequences of 1024 tokens"),
    "gpt2-774m": (2, "openwebtext", "CHOICE: 2 sequences of 1024 tokens"),
    "gpt2-1.5b": (1, "openwebtext", "CHOICE: 1 sequence of 1024 tokens: its FP32 weights, gradients and AdamW moments alone take 16 bytes x 1.56e9 = 25 GB, more than a 16 GB V100 holds without sharding (ZeRO) or offloading"),
}


def llama_batch_note(model):
    c, params, seq = LLAMA_CFGS[arch(model)], LLAMA_PARAMS[arch(model)], seq_len(model)
    return ("CHOICE: 1 sequence of %d tokens, the smallest batch: %s fits no single GPU unsharded at any batch, "
            "its FP32 weights, gradients and the two AdamW moments alone taking 16 bytes x %d parameters = %.0f GB, "
            "more than an 80 GB A100 or H100 holds, before any activation; training it takes ZeRO/FSDP sharding, "
            "offloading or tensor/pipeline parallelism, which this workload does not describe (the simulator "
            "refuses the run for memory unless --ignore-memory). Sequence %d: %s"
            % (seq, c["hf_name"], params, 16 * params / 1e9, seq,
               "Llama 2's context (max_position_embeddings 4096), as it was pretrained" if seq == 4096 else
               "LLaMA 1's context, half of Llama 2's: the shorter of the pair"))


def big_model_batch_note(model):
    """The batch note of the workloads added with their transformer block (Llama-2 70B, Llama 3, the GPT-3-style
    ones): batch 1, what their weights, gradients and AdamW state take, and one sequence's activations (act_bytes
    summed, FP32, no checkpointing), computed from the workload's layers."""
    if gpt_family(model):
        return new_gpt_batch_note(model)
    net, seq = build(model), seq_len(model)
    params = sum(l["params"] for l in net.layers)
    act = sum(w["act_bytes"] for w in layer_work(net))
    state = 16 * params
    if state > 80e9:
        where = "one GPU"
        fit = ("more than an 80 GB A100 or H100 holds, before any activation (one sequence's FP32 activations add "
               "%.0f GB: act_bytes summed, no checkpointing)" % (act / 1e9))
    else:
        where = "one GPU" if state + act > 80e9 else "one V100 (16 or 32 GB)"
        fit = ("more than the reference 16 GB V100 holds; with one sequence's FP32 activations (act_bytes summed, no "
               "checkpointing: %.0f GB) %.0f GB, %s" %
               (act / 1e9, (state + act) / 1e9, "more than an 80 GB A100 or H100 holds" if state + act > 80e9 else
                "more than a 32 GB V100 holds (an 80 GB A100 or H100 would hold it, before the framework's workspace "
                "and fragmentation)"))
    if is_gpt3(model):
        who = "the GPT-3-style %s model" % arch(model).split("-")[1].upper()
        how = ("Megatron-LM trains it with tensor and pipeline parallelism and a distributed optimizer, in 16-bit "
               "mixed precision")
        context = "GPT-3's context (n_ctx 2048) and the sequence length of Megatron-LM's GPT scaling runs"
    else:
        who = LLAMA_CFGS[arch(model)]["hf_name"]
        how = "training it takes ZeRO/FSDP sharding, offloading or tensor/pipeline parallelism"
        context = ("Llama 2's context (max_position_embeddings 4096), as it was pretrained" if seq == 4096 else
                   "Llama 3's context (max_position_embeddings 8192), as it was pretrained")
    return ("CHOICE: 1 sequence of %d tokens, the smallest batch: %s does not fit %s unsharded, its FP32 weights, "
            "gradients and the two AdamW moments alone taking 16 bytes x %d parameters = %.0f GB, %s; %s. The workload's "
            "transformer block describes the architecture for a tensor/pipeline split; unsplit, on a GPU it does not fit, "
            "the simulator refuses the run for memory unless --ignore-memory. Sequence %d: %s"
            % (seq, who, where, params, state / 1e9, fit, how, seq, context))


# How Megatron-LM ran SC'21 Table 1's models: tensor- and pipeline-parallel sizes (TP, PP) in examples/sc21/run_table_1.sh
# @6985e58, each with --activations-checkpoint-method uniform.
SC21_TP_PP = {"1.7B": (1, 1), "3.6B": (2, 1), "7.5B": (4, 1), "18B": (8, 1), "76B": (8, 4), "145B": (8, 8),
              "310B": (8, 16), "530B": (8, 35)}


def new_gpt_batch_note(model):
    """big_model_batch_note for NEW_GPT_CFGS' workloads (the same figures; one of them fits a V100 without activations)."""
    net, seq, c = build(model), seq_len(model), NEW_GPT_CFGS[arch(model)]
    params = sum(l["params"] for l in net.layers)
    act = sum(w["act_bytes"] for w in layer_work(net))
    state, family = 16 * params, c["family"]
    gb = "(act_bytes summed, no checkpointing: %.0f GB)" % (act / 1e9)
    if state <= 16e9:
        fit = ("fit the reference 16 GB V100, but one sequence's FP32 activations %s bring it to %.0f GB, more than "
               "it holds%s" % (gb, (state + act) / 1e9, " (a 32 GB V100 would hold it, before the framework's "
                                                                      "workspace and fragmentation)" if state + act <= 32e9 else ""))
    elif state > 80e9:
        fit = "fit no single GPU: more than an 80 GB A100 or H100 holds, before one sequence's FP32 activations %s" % gb
    else:
        fit = ("do not fit the reference 16 GB V100; with one sequence's FP32 activations %s %.0f GB, %s"
               % (gb, (state + act) / 1e9, "more than an 80 GB A100 or H100 holds" if state + act > 80e9 else
                  "more than a 32 GB V100 holds (an 80 GB A100 or H100 would hold it, before the framework's workspace and "
                  "fragmentation)"))
    if family == "sc21":
        who = "Narayanan et al.'s %s GPT model (SC'21 Table 1)" % c["size"]
        how = ("Megatron-LM ran it with tensor-parallel size %d and pipeline-parallel size %d, activation recomputation and "
               "16-bit mixed precision on A100s (examples/sc21/run_table_1.sh @6985e58)" % SC21_TP_PP[c["size"]])
        context = "the sequence length of Megatron-LM's GPT scaling runs (examples/sc21/CONFIG.sh: --seq-length 2048)"
    elif family == "dlperf":
        who = "DLPerf's Megatron-LM GPT %s configuration" % c["size"]
        how = ("DLPerf ran it with Megatron-LM's data, tensor and pipeline parallelism, activation checkpointing and 16-bit "
               "mixed precision on 16 GB V100s (Megatron-LM/scripts/mutil_perf_pretrain_gpt_dp_mp_pp.sh @10f7979)")
        context = "the sequence length of DLPerf's runs (the script's SEQ_LENGTH=2048)"
    else:
        who = "BigScience's 181B BLOOM prequel shape"
        how = ("BigScience trained BLOOM with Megatron-DeepSpeed's tensor, pipeline and data parallelism, its BF16 optimizer "
               "sharding the optimizer states ('its own zero stage 1 equivalent', tr11-176B-ml.slurm), in BF16 on 80 GB A100s")
        context = "BLOOM's training sequence length (tr11-176B-ml README: SEQ_LEN=2048)"
    return ("CHOICE: 1 sequence of %d tokens, the smallest batch. %s: its FP32 weights, gradients and the two AdamW moments "
            "(16 bytes x %d parameters = %.0f GB) %s; %s. The workload's transformer block describes the architecture for a "
            "tensor/pipeline split; unsplit, on a GPU it does not fit, the simulator refuses the run for memory unless "
            "--ignore-memory. Sequence %d: %s" % (seq, who[0].upper() + who[1:], params, state / 1e9, fit, how, seq, context))


LEGACY_LLAMA = ("llama2-7b", "llama2-13b")   # batch notes as written before the transformer block (kept unchanged)
MODELS.update({m: (1, "redpajama", llama_batch_note(m) if arch(m) in LEGACY_LLAMA else functools.partial(big_model_batch_note, m))
               for m in VARIANTS if is_llama(m)})
MODELS.update({m: (1, "redpajama", functools.partial(big_model_batch_note, m)) for m in GPT3_CFGS})
ORDER = ["alexnet", "resnet18", "vgg11", "mobilenet_v2", "shufflenet_v2_x0_5", "squeezenet1_0",
         "resnet101", "resnet152", "vgg16", "vgg19", "resnet34", "bert-base", "bert-large", "bert-base-seq128", "bert-base-seq512",
         "bert-large-seq128", "bert-large-seq512", "bert-base-seq384", "bert-large-seq384", "gpt2-124m", "gpt2-355m", "gpt2-774m", "gpt2-1.5b",
         "llama2-7b-seq2048", "llama2-7b-seq4096", "llama2-13b-seq2048", "llama2-13b-seq4096",
         "llama2-70b-seq4096", "llama3-8b-seq8192", "llama3-70b-seq8192",
         "gpt3-1.3b", "gpt3-6.7b", "gpt3-13b", "gpt3-39b", "gpt3-175b", "gpt3-1t"] + list(NEW_GPT_CFGS)


def sig(x, digits=6):
    """Fixed formatting for floats in the files: 6 significant digits."""
    return float("%.*g" % (digits, x))


def build(model):
    if is_bert(model):
        net = bert_qa(model, seq_len(model))
        net.host(["seed"])
    elif is_llama(model):
        net = llama_lm(model, seq_len(model))
        net.host(["seed"])
    elif is_transformer(model):
        net = gpt2_lm(model, seq_len(model))
        net.host(["seed"])
    else:
        net = ARCHS[model]()
        net.host(["loss", "seed"], ["loss"])   # CrossEntropyLoss; the training loop before backward
    return net


def total_flops(net):
    return sum(l["flops"] for l in net.layers)


def split_by_flops(net, fwd_s, bwd_s):
    f = total_flops(net)
    return [(fwd_s * l["flops"] / f, bwd_s * l["flops"] / f) for l in net.layers]


# ---------------------------------------------------------------------------------------------
# Times on the reference V100 at batch 16: measured, or estimated with the rule stated
# ---------------------------------------------------------------------------------------------

def measured_times(model, net):
    title, (vf, vb), _ = MEASURED[model]
    text = ("Totals MEASURED: %s, %s row 'Tesla V100 | 7.0.04': forward %.2f ms, backward %.2f ms per "
            "batch of 16. Per-layer split ESTIMATE: each conv/linear layer gets the share of the total "
            "equal to its share of the model's forward FLOPs (fwd_s_i = %.2f ms x F_i / F, bwd_s_i = %.2f ms "
            "x F_i / F, F_i the layer's forward FLOPs in fwd_flops_per_sample_by_layer); pooling, BN, ReLU "
            "and dropout time is thereby spread over the layers in proportion to FLOPs, not where it runs. "
            "The benchmark's network is assumed to be torchvision's (same layer shapes; cnn-benchmarks "
            "uses fb.resnet.torch ResNets with the stride in the 3x3 conv, as torchvision, and the "
            "'one weird trick' AlexNet)." % (CNNB, title, vf, vb, vf, vb))
    return vf / 1e3, vb / 1e3, split_by_flops(net, vf / 1e3, vb / 1e3), "MEASURED", text


def vgg11_times(net):
    v16 = build("vgg16")
    ratio = total_flops(net) / total_flops(v16)
    _, (vf, vb), _ = MEASURED["vgg16"]
    text = ("Totals ESTIMATE: VGG-11 is not in %s; VGG-16's MEASURED V100 times (forward %.2f ms, backward "
            "%.2f ms per batch of 16) scaled by the forward-FLOP ratio %.1f / %.1f GFLOP = %.4f, i.e. VGG-11 "
            "is assumed to run at VGG-16's achieved FLOP rate (same 3x3 conv + FC design, so the same cuDNN "
            "kernels) and with VGG-16's backward/forward ratio %.3f. Per-layer split by forward FLOPs as "
            "for the measured models (fwd_s_i = total x F_i / F)."
            % (CNNB, vf, vb, total_flops(net) / 1e9, total_flops(v16) / 1e9, ratio, vb / vf))
    fwd, bwd = vf * ratio / 1e3, vb * ratio / 1e3
    return fwd, bwd, split_by_flops(net, fwd, bwd), "ESTIMATE", text


def roofline_layer_s(layer, rate, batch):
    """Forward seconds per sample of one layer: the conv/linear at the calibrated FLOP rate or at
    its memory bound (depthwise/grouped convs at a fraction of the bandwidth), plus its
    elementwise passes at streaming bandwidth."""
    bw = HBM2_PEAK_BPS * STREAM_EFF
    conv_bytes = 4 * (layer["in"] + layer["out"]) + 4 * layer["weights"] / batch
    conv_bw = bw * (DW_BW_FRACTION / STREAM_EFF if layer["kind"] == "grouped" else 1.0)
    return max(layer["flops"] / rate, conv_bytes / conv_bw) + 4 * layer["elem_rw"] / bw


def calibrated_rate():
    """The conv FLOP rate at which the roofline reproduces ResNet-18's measured V100 forward."""
    r18, batch, target = build("resnet18"), REF["batch"], MEASURED["resnet18"][1][0] / 1e3
    lo, hi = 1e11, 1e16
    for _ in range(200):
        mid = (lo * hi) ** 0.5
        if batch * sum(roofline_layer_s(l, mid, batch) for l in r18.layers) > target:
            lo = mid
        else:
            hi = mid
    return hi


def small_model_times(model, net):
    rate, batch = calibrated_rate(), REF["batch"]
    _, (rf, rb), _ = MEASURED["resnet18"]
    ratio = rb / rf
    per = [batch * roofline_layer_s(l, rate, batch) for l in net.layers]
    fwd = sum(per)
    flat = rf / 1e3 * total_flops(net) / total_flops(build("resnet18"))
    grouped = sum(l["flops"] for l in net.layers if l["kind"] == "grouped") / total_flops(net)
    checks = ", ".join("%s %.2f ms (measured %.2f)" % (m, batch * sum(roofline_layer_s(l, rate, batch)
                       for l in build(m).layers) * 1e3, MEASURED[m][1][0]) for m in ("resnet101", "resnet152"))
    text = (
        "Totals and per-layer times ESTIMATE (%s is not in %s): a roofline calibrated on ResNet-18. "
        "Per layer and sample, forward time = max(F / R, conv bytes / B_conv) + elementwise bytes / B, where "
        "F = forward FLOPs, conv bytes = 4 x (input + output elements) + 4 x weights / 16, elementwise bytes "
        "= 4 x element reads+writes of the BatchNorm (3 per output element in training), ReLU/ReLU6 (2), "
        "residual add (3), concat/channel shuffle (2 each), pooling (in + out) booked to the layer before; "
        "B = %.0f GB/s = %.2f x the V100's %.0f GB/s HBM2 peak (datasheet, NOT in shared/data; ESTIMATE of "
        "what streaming kernels reach); B_conv = B for dense convs and linears, %.0f GB/s (%.2f x peak) for "
        "depthwise/grouped convs: ESTIMATE from pytorch/pytorch issue #18631, where a synchronized timing of "
        "a 3x3 depthwise conv on 2x32x512x512 FP32 took 1.02 ms on a Titan Xp, 134 MB moved = 131 GB/s = "
        "0.24 of its 548 GB/s peak (Titan Xp peak from NVIDIA's spec, NOT in shared/data). R = %.2f TFLOP/s "
        "is fitted so that the same roofline gives ResNet-18's MEASURED V100 forward %.2f ms at batch 16 "
        "(flat FLOP rate of ResNet-18: %.2f TFLOP/s); as a check, it predicts %s. This is the penalty for "
        "depthwise/grouped convs and thin, high-resolution layers: this model's estimate is %.2fx what "
        "scaling ResNet-18's time by FLOPs alone would give (%.3f ms); %.1f%% of its FLOPs are in grouped "
        "convs. Backward = forward x %.3f per layer (ResNet-18's MEASURED backward/forward ratio %.2f / "
        "%.2f); PyTorch's depthwise backward (weight gradient) is known to be slower than that, so the "
        "backward may be optimistic. Kernel-launch overhead is not modelled: the times are a throughput "
        "estimate for large batches (Stash ran %d per GPU); at batch 16 a real V100 would take longer. "
        "Uncertainty: about a factor 1.5 either way."
        % (model, CNNB, bw_gbps(), STREAM_EFF, HBM2_PEAK_BPS / 1e9, HBM2_PEAK_BPS * DW_BW_FRACTION / 1e9,
           DW_BW_FRACTION, rate / 1e12, rf, batch * total_flops(build("resnet18")) / (rf / 1e3) / 1e12,
           checks, fwd / flat, flat * 1e3, 100 * grouped, ratio, rb, rf, MODELS[model][0]))
    return fwd, fwd * ratio, [(t, t * ratio) for t in per], "ESTIMATE", text


def bw_gbps():
    return HBM2_PEAK_BPS * STREAM_EFF / 1e9


def bert_rate():
    """Achieved training FLOP rate (fwd+bwd = 3 x fwd FLOPs) of the measured BERT-base pretraining."""
    return 3 * bert_pretraining_fwd_flops("bert-base", BERT_PRETRAIN_SEQ_LEN) * BERT_PRETRAIN_SEQ_PER_S


def bert_times(model, net):
    """BERT's and GPT-2's times: their FLOPs at the measured BERT-base pretraining FLOP rate."""
    rate, batch, f, seq = bert_rate(), REF["batch"], total_flops(net), seq_len(model)
    if is_bert(model):
        task, gpt_note = "%s question answering" % BERT_CFGS[arch(model)]["hf_name"], ""
    elif is_llama(model):
        c = LLAMA_CFGS[arch(model)]
        task = "%s causal language modelling (LlamaForCausalLM, eager attention), the untied LM head over the %d-word vocabulary on every position" % (c["hf_name"], c["vocab"])
        gpt_note = (" No FP32 V100 training measurement of a model of this size is in shared/data, and none can exist "
                    "without sharding: its FP32 weights, gradients and AdamW moments alone (16 bytes x %d parameters = "
                    "%.0f GB) fit no single GPU; hence this FLOP-rate ESTIMATE. Its %d-wide GEMMs would run more "
                    "efficiently than BERT-base's 768-wide ones; the eager attention over %d x %d scores per head "
                    "(masked, not skipped) and the rotary and RMSNorm elementwise passes, which BERT does not have, "
                    "less." % (LLAMA_PARAMS[arch(model)], 16 * LLAMA_PARAMS[arch(model)] / 1e9, c["hidden"], seq, seq))
    elif gpt_family(model):
        c = GPT3_CFGS[arch(model)]
        params = sum(l["params"] for l in net.layers)
        task = ("%s, causal language modelling with the tied LM head over the %d-row padded vocabulary on every position"
                % (new_gpt_name(model), c["vocab"]))
        state = 16 * params
        gpt_note = (" No FP32 V100 training measurement of this model is in shared/data (%s); its FP32 weights, gradients and "
                    "AdamW moments alone take 16 bytes x %d parameters = %.0f GB%s; hence this FLOP-rate ESTIMATE, computed as for "
                    "the gpt2 and gpt3 workloads (eager PyTorch, transformers' GPT-2 operators%s). Its %d-wide GEMMs would run "
                    "%s efficiently than BERT-base's 768-wide ones; the eager causal attention over %d x %d scores per head "
                    "(masked, not skipped) and the %d-wide log-softmax less."
                    % ("BigScience's BLOOM figures are BF16 on A100s" if c.get("alibi") else
                       "DLPerf's Megatron-LM figures are 16-bit mixed precision with activation checkpointing, on V100s" if
                       c["family"] == "dlperf" else "Megatron-LM's published figures are 16-bit mixed precision on A100s, with "
                       "fused kernels", params, state / 1e9,
                       " (a 16 GB V100 holds them, not with one sequence's activations)" if state <= 16e9 else
                       ", which no single GPU holds" if state > 80e9 else ", more than a 16 GB V100 holds",
                       ", with BLOOM's embedding" if c.get("alibi") else "", c["hidden"],
                       "somewhat more" if c["hidden"] < 2048 else "more", seq, seq, c["vocab"]))
    elif is_gpt3(model):
        c = GPT3_CFGS[arch(model)]
        params = sum(l["params"] for l in net.layers)
        task = ("a GPT-3-style model as Megatron-LM trains it (GPT-2's architecture, %d layers, hidden %d, %d heads), causal "
                "language modelling with the tied LM head over the %d-row padded vocabulary on every position"
                % (c["layers"], c["hidden"], c["heads"], c["vocab"]))
        gpt_note = (" No FP32 V100 training measurement of a model of this size is in shared/data (Megatron-LM's published "
                    "figures are 16-bit mixed precision on A100s, with fused kernels); its FP32 weights, gradients and AdamW "
                    "moments alone (16 bytes x %d parameters = %.0f GB) fit %s; hence this FLOP-rate ESTIMATE, computed as for "
                    "the gpt2 workloads (eager PyTorch, transformers' GPT-2 operators). Its %d-wide GEMMs would run more "
                    "efficiently than BERT-base's 768-wide ones; the eager causal attention over %d x %d scores per head "
                    "(masked, not skipped) and the %d-wide log-softmax less."
                    % (params, 16 * params / 1e9, "no single GPU" if 16 * params > 80e9 else "no 16 GB V100",
                       c["hidden"], seq, seq, c["vocab"]))
    else:
        task = "%s causal language modelling, the tied LM head over the 50257-word vocabulary on every position" % GPT2_CFGS[model]["hf_name"]
        gpt_note = (" No public FP32 V100 training measurement of GPT-2 was found (search of the docs and pages "
                    "corpora: benchmarks found are AMP/TF32 on newer GPUs), hence this FLOP-rate ESTIMATE; GPT-2's "
                    "wider layers (at 1.5B) would run GEMMs somewhat more efficiently than BERT-base's, the eager "
                    "causal attention (scores masked, not skipped) and the 50257-wide log-softmax less.")
    total = batch * 3 * f / rate
    fwd, bwd = total / (1 + BERT_BWD_FWD), total * BERT_BWD_FWD / (1 + BERT_BWD_FWD)
    text = (
        "Totals ESTIMATE by FLOPs from a MEASURED throughput: ../shared/data/single_gpu_throughput.md row "
        "'BERT-base pretrain | FP32 bs32, NGC PyTorch | V100-SXM2-16GB | 119.60 sentences/s' (Oneflow-Inc/"
        "DLPerf report table 5-2; NVIDIA DeepLearningExamples PyTorch BERT @ 26c26761, max_seq_length 128 in "
        "DLPerf's scripts/single_node_train.sh). Its forward FLOPs per sequence, %.2f GFLOP, count the "
        "encoder, pooler, NSP head and the MLM head (transform + decoder to the 30522-word vocabulary) on all "
        "128 positions, as BertForPreTraining.forward at that commit computes prediction_scores for the "
        "whole sequence; training = 3 x forward (backward = 2 matmuls per forward matmul) gives an achieved "
        "%.2f TFLOP/s (%.0f%% of the 15.7 TFLOP/s peak). The step measured includes the LAMB optimizer and "
        "gradient clipping, not subtracted (a few %% slower than pure fwd+bwd, so this estimate leans slow). "
        "This model (%s, sequence %d, %.2f GFLOP forward per sequence) is assumed to "
        "run at the same rate: fwd+bwd at batch 16 = 16 x 3 x %.2f GFLOP / %.2f TFLOP/s = %.1f ms; "
        "%s comes from bert-base's measurement in the same way (by FLOPs). Not modelled: the "
        "attention %s over %d^2 scores per head is memory-bound and grows faster with the "
        "sequence than the matmuls, so at sequence %d vs the measured 128 the real time is likely %s "
        "longer. Backward/forward = %.1f: ESTIMATE, the matmul FLOP ratio (input and weight gradients); "
        "single_gpu_fwd_bwd.md has no transformer, its GEMM-heavy CNNs measure 2.09 (AlexNet) to 2.22 "
        "(VGG-16). Per-layer split by forward FLOPs (fwd_s_i = fwd x F_i / F); %s is a "
        "gather (0 FLOPs) and gets 0 s, its gradient (a scatter-add into the word table) is ready last.%s"
        % (bert_pretraining_fwd_flops("bert-base", BERT_PRETRAIN_SEQ_LEN) / 1e9, rate / 1e12,
           100 * rate / REF["gpu_flops"], task, seq, f / 1e9, f / 1e9,
           rate / 1e12, total * 1e3, "bert-large" if model in ("bert-base", "bert-large") else "this model",
           "softmax" if is_llama(model) else "softmax/dropout", seq, seq,
           "~10%" if seq <= 512 else "more than 10%", BERT_BWD_FWD, net.layers[0]["name"], gpt_note))
    return fwd, bwd, split_by_flops(net, fwd, bwd), "ESTIMATE", text


def times(model, net):
    if model in MEASURED:
        return measured_times(model, net)
    if model == "vgg11":
        return vgg11_times(net)
    if is_transformer(model):
        return bert_times(model, net)
    return small_model_times(model, net)


# ---------------------------------------------------------------------------------------------
# Host (CPU) times: operators per layer x the per-operator cost measured in the ResNet-50 trace
# ---------------------------------------------------------------------------------------------

def read_resnet50():
    with open(os.path.join(REPO, "workloads", "resnet50.json")) as f:
        return json.load(f)


@functools.lru_cache(maxsize=None)
def host_costs():
    """The host us of one operator of each class (forward, backward), of one optimizer operator per
    tensor and of zero_grad per tensor, from workloads/resnet50.json's measured host_per_op_us."""
    w = read_resnet50()
    per = w["provenance"]["host_per_op_us"]
    f = w["provenance"]["host_unprofiled_factor"]  # the profiled trace's costs, unprofiled
    tensors = sum(len(l["tensors"]) for l in w["layers"])
    out = {"tensors": tensors, "opt_op": f * per["opt"]["Optimizer.step"][1] / (tensors * OPT_OPS_TRACE),
           "zero": f * per["opt"]["Optimizer.zero_grad"][1] / tensors}
    for part, table in (("fwd", HOST_FWD), ("bwd", HOST_BWD)):
        measured, out[part] = per[part], {}
        unused = set(measured) - {n for _, names in table.values() for n in names}
        if unused or any(n not in measured for _, names in table.values() for n in names):
            sys.exit("gen_models.py: resnet50.json's host_per_op_us (%s) does not match HOST_%s" % (part, part.upper()))
        for cls, (how, names) in table.items():
            calls = sum(measured[n][0] for n in names)
            out[part][cls] = f * (sum(measured[n][1] for n in names) if how == "sum" else
                                  sum(measured[n][0] * measured[n][1] for n in names) / calls)
    return out


def host_layer_us(layer):
    """(forward, backward) host us of a layer: its operators times their classes' costs."""
    c = host_costs()
    return sum(c["fwd"][k] for k in layer["host_fwd"]), sum(c["bwd"][k] for k in layer["host_bwd"])


def host_optimizer_s(net, model):
    """optimizer.step and zero_grad on the host: per tensor, its in-place operators and a zero_."""
    c = host_costs()
    ops = OPT_OPS_ADAMW if is_transformer(model) else OPT_OPS_SGD_WD
    return sum(len(l["tensors"]) for l in net.layers) * (ops * c["opt_op"] + c["zero"]) / 1e6


def op_counts(ops):
    """How many operators of each class ops (a list of classes) holds, in the order of first use."""
    counts = {}
    for k in ops:
        counts[k] = counts.get(k, 0) + 1
    return counts


def check_host():
    """The operators written out for ResNet-50 are those of its trace, class by class, so that the
    estimate applied to it gives the measured totals (up to the medians' difference from means)."""
    w, net, c = read_resnet50(), build("resnet50"), host_costs()
    per = w["provenance"]["host_per_op_us"]
    for part, table in (("fwd", HOST_FWD), ("bwd", HOST_BWD)):
        counts = op_counts([k for l in net.layers for k in l["host_" + part]])
        for cls, (how, names) in table.items():
            calls = [per[part][n][0] for n in names]
            if any(x != counts.get(cls, 0) for x in calls) if how == "sum" else sum(calls) != counts.get(cls, 0):
                sys.exit("gen_models.py: resnet50 has %d %s operators of class %s, its trace %s"
                         % (counts.get(cls, 0), part, cls, calls))
    est = [sum(host_layer_us(l)[k] for l in net.layers) for k in (0, 1)]
    meas = [1e6 * sum(l[k] for l in w["layers"]) for k in ("host_fwd_s", "host_bwd_s")]
    opt = c["tensors"] * (OPT_OPS_TRACE * c["opt_op"] + c["zero"]) / 1e6
    # The costs are means over the trace's steps, resnet50.json's figures medians: a few % apart.
    if any(abs(e / m - 1) > 0.05 for e, m in zip(est + [opt], meas + [w["host_optimizer_s"]])):
        sys.exit("gen_models.py: the host estimate gives resnet50 %s us, its trace %s" % (est + [opt], meas))
    return est, meas, opt, w["host_optimizer_s"]


def host_provenance(model, net):
    """The provenance of the host times and tensors of a generated workload."""
    c, (est, meas, opt, opt_meas) = host_costs(), check_host()
    fwd_us = sum(host_layer_us(l)[0] for l in net.layers)
    bwd_us = sum(host_layer_us(l)[1] for l in net.layers)
    ntensors = sum(len(l["tensors"]) for l in net.layers)
    ops = OPT_OPS_ADAMW if is_transformer(model) else OPT_OPS_SGD_WD
    costs = "; ".join("%s %.1f / %s us" % (k, c["fwd"][k], "%.1f" % c["bwd"][k] if k in c["bwd"] else "-")
                      for k in HOST_FWD) + "; backward only: " + "; ".join(
                          "%s %.1f us" % (k, c["bwd"][k]) for k in HOST_BWD if k not in HOST_FWD)
    classes, bclasses = ("; ".join("%s = %s" % (k, " + ".join(names) if how == "sum" else
                                                "the call-weighted mean of " + ", ".join(names))
                                   for k, (how, names) in table.items()) for table in (HOST_FWD, HOST_BWD))
    text = (
        "ESTIMATE: host_fwd_s / host_bwd_s of a layer = the number of host operators it issues in each class x that "
        "class's cost per operator, MEASURED in the ResNet-50 Kineto trace times resnet50.json's "
        "host_unprofiled_factor %.4f (workloads/resnet50.json, provenance "
        "host_times and host_per_op_us: the mean time of each top-level operator of the training thread (forward) or "
        "of the autograd thread (backward), including the Python or autograd-engine time before it; its cudaLaunchKernel "
        "calls are inside). Cost per operator, forward / backward: %s. Classes, forward: %s; backward: %s. Operators "
        "per layer (host_ops_by_layer): written out from the model's code (torchvision / transformers, eager PyTorch): "
        "a conv gives conv, its BatchNorm batchnorm, its ReLU eltwise; a Linear linear; pooling, residual adds, "
        "concatenations, dropout, softmax, GELU, LayerNorm, embedding lookups and copies eltwise; flatten, view, "
        "permute, split view; backward the same nodes, plus one accumulate (AccumulateGrad) per parameter tensor and "
        "a grad_sum per extra use of a tensor; operators after a layer's conv / linear are booked to it, as a trace "
        "books them. Applied to ResNet-50 (operator counts checked against its trace, class by class) this gives "
        "%.3f / %.3f ms against the measured %.3f / %.3f ms (the costs are means over the trace's steps, the measured "
        "figures medians; one step's backward ran 3 ms long). This model: %d forward and %d backward operators, "
        "%.3f ms forward, %.3f ms backward per iteration (independent of the batch). Ops the trace does not have "
        "(GELU, softmax, LayerNorm, matmul, dropout, cat...) cost what their class costs there: uncertain by ~2x "
        "each. host_optimizer_s = %d tensors x (%d in-place operators x %.1f us + zero_grad's %.1f us) = %.3f ms: "
        "the trace's SGD step costs %.1f us per operator (Optimizer.step / (161 tensors x 3)) and its zero_grad %.1f "
        "us per tensor (ResNet-50 with 3: %.3f ms, measured %.3f ms); %s. CAVEAT: the trace ran with the profiler's "
        "record_shapes, profile_memory and with_stack, which inflate every operator's host time; the factor is "
        "resnet50.json's ESTIMATE of what they cost unprofiled (provenance host_unprofiled), not a measurement."
        % (read_resnet50()["provenance"]["host_unprofiled_factor"], costs, classes, bclasses, est[0] / 1e3, est[1] / 1e3, meas[0] / 1e3, meas[1] / 1e3,
           sum(len(l["host_fwd"]) for l in net.layers), sum(len(l["host_bwd"]) for l in net.layers),
           fwd_us / 1e3, bwd_us / 1e3, ntensors, ops, c["opt_op"], c["zero"], host_optimizer_s(net, model) * 1e3,
           c["opt_op"], c["zero"], opt * 1e3, opt_meas * 1e3,
           "transformers' AdamW (weight decay 0): 7 per tensor" if is_transformer(model) else
           "Stash's SGD (momentum 0.9, weight decay 1e-4): 4 per tensor"))
    by_layer = {}
    for l in net.layers:
        f, b = host_layer_us(l)
        by_layer[l["name"]] = "fwd %s = %.1f us; bwd %s = %.1f us" % (
            describe(l["host_fwd"]), f, describe(l["host_bwd"]), b)
    return text, by_layer


# CUDA kernels per host operator of each class (ESTIMATE, from what eager PyTorch launches: a cuDNN
# conv 1 forward, data + weight gradient backward; a Linear's addmm 1, backward two matmuls and the
# bias reduction; a training BatchNorm 1 and the num_batches_tracked add 1, backward 1; an
# elementwise op 1 (pooling, add, ReLU, dropout, softmax, LayerNorm, a copy); a view none; the loss
# log-softmax + NLL; seeding the backward (ones_like) 1; a gradient sum 1; AccumulateGrad an
# in-place add into the existing .grad (zero_grad without set_to_none): 1). cuDNN may run helper
# kernels (transposes, split-K reductions) besides; fused attention and optimizer kernels launch fewer.
KERNELS_FWD = {"conv": 1, "linear": 1, "batchnorm": 2, "eltwise": 1, "view": 0, "loss": 2, "seed": 1}
KERNELS_BWD = {"conv": 2, "linear": 3, "batchnorm": 1, "eltwise": 1, "view": 0, "loss": 2, "grad_sum": 1,
               "accumulate": 1}


def layer_work(net):
    """The work keys of every layer of net, per sample at FP32 (docs/formats.md): FLOPs (backward =
    data + weight gradient = 2 x forward; the first layer has no data gradient: 1 x), activation
    bytes (4 x elements: the conv / linear's input and output, its elementwise passes; backward the
    output gradient read twice, the input read for the weight gradient and its gradient written
    (not by the first layer), the elementwise passes' backward), the bytes kept for the backward
    pass (the first layer also keeps its input), the kernels of its host operators, and the elements
    its main kernel writes per sample (the output forward; the data gradient, its input's size,
    backward; the first layer, which has none, its output: the weight gradient's work grows with
    its output too), which set the thread blocks of the roofline's waves, and the elements cuDNN
    transposes between PyTorch's default NCHW layout and the NHWC layout of its tensor-core kernels
    around a dense convolution (forward its input and output; backward the data-gradient call's
    output gradient and input gradient, and the weight-gradient call's input and output gradient;
    the first layer has the latter only): the Channels Last method card of MosaicML Composer
    (docs.mosaicml.com, "Channels Last": cuDNN transposes NCHW tensors to NHWC before the
    convolution and back after it)."""
    out = []
    for k, l in enumerate(net.layers):
        first = k == 0
        d = 1 if first else 2
        out.append({"fwd_flops": l["flops"], "bwd_flops": d * l["flops"],
                    "fwd_bytes": num(4 * (l["in"] + l["out"] + l["elem_rw"])),
                    "bwd_bytes": num(4 * (2 * l["out"] + d * l["in"] + l["elem_rw_bwd"])),
                    "act_bytes": num(4 * (l["saved"] + (l["in"] if first else 0))),
                    **({"act_bytes_half": num(l["saved_half_bytes"])} if "saved_half_bytes" in l else {}),
                    **({"ckpt_bytes": num(l["ckpt"][0]), "ckpt_bytes_half": num(l["ckpt"][1])} if "ckpt" in l else {}),
                    "fwd_kernels": sum(KERNELS_FWD[x] for x in l["host_fwd"]),
                    "bwd_kernels": sum(KERNELS_BWD[x] for x in l["host_bwd"]) - (1 if first and l["host_bwd"][0] == "conv" else 0),
                    "fwd_outputs": l["out"], "bwd_outputs": l["out"] if first or not l["in"] else l["in"],
                    "fwd_nchw_elements": l["in"] + l["out"] if l.get("conv") else 0,
                    "bwd_nchw_elements": (1 if first else 2) * (l["in"] + l["out"]) if l.get("conv") else 0})
    return out


def num(x):
    """A whole number as an int (the JSON files write no '.0')."""
    assert x == int(x), x
    return int(x)


def describe(ops):
    return " + ".join("%d %s" % (n, k) for k, n in op_counts(ops).items())


# ---------------------------------------------------------------------------------------------
# Workload files
# ---------------------------------------------------------------------------------------------

STASH_CNN_RUN = (
    "How Stash ran it (aakash-sharma/DS-Analyzer tool/image_classification/pytorch-imagenet-dali-mp.py, read, "
    "not run): PyTorch + DALI, torchvision model, SGD (momentum 0.9, weight decay 1e-4), --amp (apex O1), apex "
    "DistributedDataParallel constructed as DDP(model, args.delay_allreduce): the second positional parameter "
    "of apex DDP is message_size, so message_size = True = 1 element and every gradient tensor gets its own "
    "allreduce as soon as it is ready (overlapping backward); the closest stash-sim setting is --bucket-mb 0.")
STASH_BERT_RUN = (
    "How Stash ran it (aakash-sharma/DS-Analyzer tool/BERT/bert_squad_dist_stash.py and tool/run_bert.sh, "
    "read, not run): transformers BertForQuestionAnswering.from_pretrained('bert-large-uncased') (the "
    "comment there says 12-layer, the checkpoint has 24), FP32 (no autocast or --amp use in the script), "
    "transformers AdamW lr 5e-5, torch DistributedDataParallel (default 25 MB buckets), 8 GPUs x batch 4, "
    "DataLoader num_workers=0 (use -w 0 to mimic: the training process loads its own batches).")
NOT_STASH = (
    "Not in the Stash study: %s is an addition (Stash's transformer: %s). Assumed setup: eager PyTorch + "
    "transformers, FP32, AdamW (transformers-style loop, weight decay 0), torch DistributedDataParallel.")
AMP_NOTE = (
    "4 bytes: FP32 gradients. Stash's CNN runs used --amp (apex O1), which keeps FP32 master weights and "
    "FP32 gradients, so 4 bytes also holds for them; the BERT script is plain FP32.")
CHECKPOINT_NOTE = (
    "DERIVED: ckpt_bytes and ckpt_bytes_half, what the layers of Hugging Face's checkpointed blocks keep when "
    "gradient_checkpointing_enable() is on: %s the block's hidden_states input, %d bytes a sequence (s x h; FP32 "
    "at amp/bf16 too: the hidden states between blocks stay FP32 under autocast)%s; the embeddings and the head "
    "are in no block (calibration/gen_models.py, checkpoint_bytes, with the sources). activation_checkpointing false: the "
    "workload runs without checkpointing unless --checkpoint-activations on (a CHOICE: transformers' default); "
    "its times are those of a run without it, and the simulator adds the recomputed forward.")
PRECISION_NOTE = (
    "fp32: every time here is FP32 compute on the V100 (no Tensor Cores). Stash ran the CNNs with --amp "
    "(mixed precision), which would be faster (e.g. ResNet-50 v1.5 on a V100-SXM2-16GB: 1200 img/s AMP vs "
    "367 img/s FP32, single_gpu_throughput.md); no AMP measurement of these models is in shared/data.")


def k80_range():
    """Range of the measured K80/V100 time ratios (forward and backward) over the measured models."""
    ratios = [k / v for _, vs, ks in MEASURED.values() for v, k in zip(vs, ks)]
    return "%.1f-%.1fx" % (min(ratios), max(ratios))


def k80_device(model):
    title, (vf, vb), (kf, kb) = MEASURED[model]
    return {"gpu_model": "Tesla K80", "fwd_s": sig(kf / 1e3), "bwd_s": sig(kb / 1e3),
            "reference_fwd_s": sig(vf / 1e3), "reference_bwd_s": sig(vb / 1e3),
            "source": "MEASURED: %s, %s, batch 16: Tesla K80 (one GK210, AWS p2, cuDNN 5.1.10) %.2f + %.2f ms vs "
                      "Tesla V100 (AWS P3, cuDNN 7.0.04) %.2f + %.2f ms: ratios %.2f forward, %.2f backward, "
                      "applied to every layer. The cuDNN versions differ, as they did on those instances."
                      % (CNNB, title, kf, kb, vf, vb, kf / vf, kb / vb)}


def token_stream(name, tokens, seq, token_bytes=2):
    """A dataset read as random seq-token windows of one token stream of token_bytes-wide tokens (uint16, or
    uint32 for a vocabulary past 65536 words), decoded to int64 inputs and targets (the provenance entries say
    where each figure comes from)."""
    return {"name": name, "samples": tokens // seq, "bytes_per_sample": token_bytes * seq, "prep_cpu_s_per_sample": 0.00001,
            "decoded_bytes_per_sample": 2 * 8 * seq}


def dataset(model):
    pipeline = MODELS[model][1]
    if pipeline == "openwebtext":
        seq = seq_len(model)
        ds = token_stream("openwebtext", OWT_TRAIN_TOKENS, seq)
        prov = {
            "dataset.name": "OpenWebText (the open reproduction of GPT-2's WebText) tokenized with the GPT-2 BPE as nanoGPT's data/openwebtext/prepare.py writes it: one uint16 token stream (train.bin), read by random %d-token windows (x) and the next-token targets (y)." % seq,
            "dataset.samples": "DERIVED: %d training tokens (nanoGPT data/openwebtext/prepare.py comment and README, 'train has ~9B tokens (9,035,582,198)', read in public copies with find_string; NOT in shared/data) // %d tokens per sample = %d sequences per epoch." % (OWT_TRAIN_TOKENS, seq, OWT_TRAIN_TOKENS // seq),
            "dataset.bytes_per_sample": "DERIVED: %d uint16 tokens = %d bytes (train.bin, ~17 GB for 9.0e9 tokens)." % (seq, 2 * seq),
            "dataset.decoded_bytes_per_sample": "DERIVED: x and y, %d tokens each, as int64 (nanoGPT's get_batch: torch.from_numpy(...astype(np.int64))) = 2 x 8 x %d bytes." % (seq, seq),
            "dataset.prep_cpu_s_per_sample": "ESTIMATE 10 us: a memmap slice of %d tokens and its cast to int64 per sample (no decoding); the file is read from the page cache after the first epoch." % seq,
        }
        return ds, prov
    if pipeline == "redpajama":
        seq = seq_len(model)
        vocab = GPT2_CFGS[arch(model)]["vocab"] if is_gpt3(model) else LLAMA_CFGS[arch(model)]["vocab"]
        token_bytes = 2 if vocab <= 65536 else 4
        ds = token_stream("redpajama-data-1t", REDPAJAMA_TOKENS, seq, token_bytes)
        family = gpt_family(model)
        if family:
            same = ("chosen, as for the gpt3 workloads, because it is the open corpus of the other large workloads (the "
                    "Llama and GPT-3 ones: the data side stays the same across them)")
            stand_in = {
                "sc21": ("the data of Megatron-LM's SC'21 scaling runs, which were benchmark runs ('these results are from "
                         "benchmark runs and these models were not trained to convergence', the Megatron-LM README of 2020-2024; "
                         "examples/sc21/CONFIG.sh leaves the data path to the user); %s" % same),
                "dlperf": ("the data of DLPerf's short benchmark runs (a sample corpus: the script's DATA_PATH="
                           "/data/gpt/gpt_sample_dataset_text_document, TRAIN_ITERS 130-520); %s" % same),
                "bloom": ("BLOOM's pretraining data, which is not fully public (the tr11-176B-ml README: '46 Languages in 1.5TB "
                          "of deduplicated massively cleaned up text, converted into 350B unique tokens'); %s" % same),
            }[family]
            if family == "bloom":
                tokenizer = ("the BLOOM tokenizer (%d words; the embedding's 250880 rows are that vocabulary padded) into one "
                             "token stream of 4-byte tokens (the vocabulary does not fit 16 bits), as Megatron-DeepSpeed's "
                             "preprocess_data.py writes an indexed binary of the documents' tokens" % BLOOM_VOCAB_WORDS)
                counted = "BLOOM tokens"
            else:
                tokenizer = ("the GPT-2 BPE (50257 words, Megatron-LM's GPT2BPETokenizer from gpt2-vocab.json and "
                             "gpt2-merges.txt; the embedding's 51200 rows are that vocabulary padded) into one uint16 token "
                             "stream, as Megatron-LM's preprocess_data.py writes an indexed binary of the documents' tokens")
                counted = "GPT-2 BPE tokens"
            consumer = "the model takes the window as input and the window shifted by one token as labels"
        elif is_gpt3(model):
            stand_in = ("GPT-3's pretraining data, which is not public (300 billion tokens of filtered Common Crawl, WebText2, "
                        "Books1, Books2 and Wikipedia, as Brown et al. 2020 state: recalled, not read in this work); chosen "
                        "over OpenWebText, the gpt2 workloads' dataset, because it is the open corpus of the other large "
                        "workloads (the Llama ones: the data side stays the same across them) and of the size of a GPT-3 "
                        "run (OpenWebText's 9.0e9 tokens would be revisited ~33 times in 300e9)")
            tokenizer = ("the GPT-2 BPE (50257 words, Megatron-LM's GPT2BPETokenizer; the embedding's 51200 rows are that "
                         "vocabulary padded) into one uint16 token stream, as Megatron-LM's preprocess_data.py writes an "
                         "indexed binary of the documents' tokens")
            consumer = "the model takes the window as input and the window shifted by one token as labels"
            counted = "GPT-2 BPE tokens"
        elif arch(model).startswith("llama3"):
            stand_in = ("Llama 3's pretraining data, which is not public (over 15 trillion tokens, as Meta's Llama 3 "
                        "announcement states: recalled, not read in this work)")
            tokenizer = ("the Llama 3 tokenizer (128256 words) into one uint32 token stream (the vocabulary does not fit "
                         "16 bits), as nanoGPT's prepare.py does for OpenWebText")
            consumer = "LlamaForCausalLM takes the window as input_ids and as labels and shifts the labels itself"
            counted = "Llama 3 tokens"
        else:
            stand_in = ("Llama 2's pretraining data, which is not public (2 trillion tokens, as Touvron et al. 2023 state: "
                        "recalled, not read in this work)")
            tokenizer = ("the Llama 2 tokenizer (32000 words) into one uint16 token stream, as nanoGPT's prepare.py does "
                         "for OpenWebText")
            consumer = "LlamaForCausalLM takes the window as input_ids and as labels and shifts the labels itself"
            counted = "Llama tokens"
        prov = {
            "dataset.name": "CHOICE: RedPajama-Data-1T (togethercomputer, Hugging Face datasets), 'a clean-room, fully open-source implementation of the LLaMa dataset' (its card), as the public stand-in for %s. Assumed pipeline: the text tokenized once with %s, read by random %d-token windows; %s." % (stand_in, tokenizer, seq, consumer),
            "dataset.samples": "DERIVED + ESTIMATE: %d tokens (the dataset card's per-source counts, %s billion, summed; its total row says '1.2 Trillion'; read in the card with the docs search, NOT in shared/data) // %d tokens per sample = %d sequences per epoch. ESTIMATE: the card does not say which tokenizer counted the tokens; they are taken as %s." % (REDPAJAMA_TOKENS, " + ".join("%s %d" % kv for kv in REDPAJAMA_TOKENS_B.items()), seq, REDPAJAMA_TOKENS // seq, counted),
            "dataset.bytes_per_sample": ("DERIVED: %d uint16 tokens = %d bytes (the vocabulary, %d words, fits 16 bits)." % (seq, 2 * seq, vocab)
                                         if token_bytes == 2 else
                                         "DERIVED: %d uint32 tokens = %d bytes (the vocabulary, %d words, does not fit 16 bits)." % (seq, 4 * seq, vocab)),
            "dataset.decoded_bytes_per_sample": "DERIVED: %s, %d tokens each, as int64 = 2 x 8 x %d bytes." % ("the input and the labels" if is_gpt3(model) else "input_ids and labels", seq, seq),
            "dataset.prep_cpu_s_per_sample": "ESTIMATE 10 us, as openwebtext's: a memmap slice of %d tokens and its cast to int64 per sample (no decoding)." % seq,
        }
        return ds, prov
    if pipeline == "squad":
        seq = seq_len(model)
        ds = {"name": "squad-v2.0-train-answerable", "samples": SQUAD2_TRAIN_ANSWERABLE,
              "bytes_per_sample": round(SQUAD2_TRAIN_JSON_BYTES / SQUAD2_TRAIN_ANSWERABLE),
              "prep_cpu_s_per_sample": 0.0001, "decoded_bytes_per_sample": 8 * (2 * seq + 2)}
        prov = {
            "dataset.name": "SQuAD v2.0 training set, answerable questions only: Stash's script reads train-v2.0.json and makes one sample per answer (read_squad loops over qa['answers'], which is empty for the unanswerable questions), then tokenizes everything once at start-up with BertTokenizerFast('bert-large-uncased')(contexts, questions, truncation=True, padding=True). NOTE: not SQuAD v1.1 and not max_seq_length 384 with a document stride, as the usual run_squad.py setup would be.",
            "dataset.samples": "ESTIMATE (public dataset figure, NOT in shared/data): %d answerable training questions of SQuAD 2.0 (Rajpurkar et al. 2018: 130,319 training questions, 43,498 of them unanswerable), one answer each in the training set. The 130,319 total was verified in the Hugging Face squad_v2 dataset card; the answerable count was not re-verified here." % SQUAD2_TRAIN_ANSWERABLE,
            "dataset.bytes_per_sample": "DERIVED: train-v2.0.json = %d bytes (with dev-v2.0.json's 4,370,528 it sums to the 46,494,161-byte download_size of the Hugging Face squad_v2 card; NOT in shared/data) / %d samples. The script reads the JSON once before training, so this only matters for a cold-cache first epoch." % (SQUAD2_TRAIN_JSON_BYTES, SQUAD2_TRAIN_ANSWERABLE),
            "dataset.decoded_bytes_per_sample": "DERIVED from the script: it copies input_ids and attention_mask (int64, %d tokens each) and start/end positions (int64) to the GPU per sample: 8 x (2 x %d + 2) bytes. Sequence length %d: padding=True pads to the longest pair in the whole training set and truncation=True cuts at the tokenizer's model_max_length, 512; SQuAD has contexts longer than 512 WordPiece tokens, so every sample is 512 tokens (ESTIMATE that at least one pair exceeds 512, which is what BERT's 384-token document stride exists for)." % (seq, seq, seq),
            "dataset.prep_cpu_s_per_sample": "ESTIMATE 0.1 ms: samples are pre-tokenized lists in memory; per sample the Dataset builds 5 tensors from Python lists of up to 512 ints (torch.tensor) and the DataLoader collates them, tens of microseconds each. Tokenization (minutes for the whole set) happens once before training and is not simulated.",
        }
        if model not in ("bert-base", "bert-large"):
            prov["dataset.decoded_bytes_per_sample"] = "DERIVED as for Stash's script (input_ids and attention_mask int64, start/end positions int64: 8 x (2 x %d + 2) bytes), with every pair padded or truncated to %d tokens (tokenizer padding='max_length', max_length=%d: CHOICE of this workload; pairs longer than that lose context unless a document stride splits them, which would add samples)." % (seq, seq, seq)
        return ds, prov
    samples = IMAGENET_SAMPLES
    common = {
        "dataset.name": "ImageNet-1k (ILSVRC-2012) training set, as Stash ran the CNNs (stash_methodology.md section 4).",
        "dataset.samples": "1,281,167 = ILSVRC-2012 training-set image count (public dataset fact, as workloads/resnet50.json; Stash's scripts say SAMPLES=1281166).",
        "dataset.bytes_per_sample": "DERIVED as in workloads/resnet50.json: ~146 GB ImageNet-1k (DS-Analyzer README, stash_methodology.md section 5) / 1,281,167 = %d bytes, GB taken as 1e9 bytes." % round(IMAGENET_BYTES / samples),
    }
    if pipeline == "dali-cpu":
        ds = {"name": "imagenet-1k", "samples": samples, "bytes_per_sample": round(IMAGENET_BYTES / samples),
              "prep_cpu_s_per_sample": 0.004, "decoded_bytes_per_sample": 224 * 224 * 3}
        common["dataset.prep_cpu_s_per_sample"] = "ESTIMATE 4 ms, workloads/resnet50.json's estimate (read, decode, random-resized-crop, resize on one core; see its provenance). %s: Stash ran resnet50 and vgg11 with DALI's CPU pipeline (--dali_cpu); the other large models get it by choice." % ("Stash's setting" if model == "vgg11" else "CHOICE")
        common["dataset.decoded_bytes_per_sample"] = "DERIVED from Stash's DALI CPU pipeline (HybridTrainPipe with dali_cpu: ImageDecoderRandomCrop and Resize to 224x224 on the CPU, then images.gpu() and CropMirrorNormalize on the GPU): the host-to-device copy is the uint8 224x224x3 crop, 150,528 bytes; the FP32 normalisation happens on the GPU."
    else:
        ds = {"name": "imagenet-1k", "samples": samples, "bytes_per_sample": round(IMAGENET_BYTES / samples),
              "prep_cpu_s_per_sample": 0.001, "decoded_bytes_per_sample": 3 * 224 * 224 * 4}
        common["dataset.prep_cpu_s_per_sample"] = "ESTIMATE 1 ms (range ~0.5-1.5 ms): Stash ran the small models with DALI's GPU pipeline (decoder device 'mixed': nvJPEG; resize and crop-mirror-normalize on the GPU; stash_methodology.md section 4). The CPU still reads the file and, with nvJPEG's hybrid backend used for images below ~1 Mpixel (all of ImageNet's ~400x350), does the Huffman decoding, roughly 40-50% of a SIMD libjpeg-turbo decode; workloads/resnet50.json guesses ~2 ms for a full decode, so ~1 ms with the file read and batching. Not measured."
        common["dataset.decoded_bytes_per_sample"] = "ESTIMATE 602,112 bytes (3x224x224 FP32, what a PyTorch DataLoader would copy): with DALI's mixed decoder what crosses PCIe is nvJPEG's host output (Huffman-decoded DCT coefficients, ~2 bytes x 1.5 samples per pixel x ~0.14 Mpixel = ~0.4 MB per ImageNet image), the same order; the decoded crop itself is produced on the GPU."
    return ds, common


def workload(model):
    net = build(model)
    fwd, bwd, per, status, time_text = times(model, net)
    params = sum(l["params"] for l in net.layers)
    batch, pipeline, batch_note = MODELS[model]
    if callable(batch_note):
        batch_note = batch_note()
    transformer = is_transformer(model)
    opt_factor = ADAMW_FACTOR if transformer else 1.0
    layers = [dict({"name": l["name"], "fwd_s": sig(f), "bwd_s": sig(b), "params": l["params"], "tensors": l["tensors"],
                    "host_fwd_s": sig(host_layer_us(l)[0] / 1e6), "host_bwd_s": sig(host_layer_us(l)[1] / 1e6)}, **wk)
              for l, (f, b), wk in zip(net.layers, per, layer_work(net))]
    ds, ds_prov = dataset(model)
    w = {"schema": "stash-sim-workload/1", "model": model, "precision": "fp32", "batch_per_gpu": batch,
         "grad_bytes_per_param": 4, "reference": dict(REF), "optimizer": "adamw" if transformer else "sgd_momentum",
         "optimizer_s": sig(SGD_STEP_S * params / SGD_STEP_PARAMS * opt_factor),
         "host_optimizer_s": sig(host_optimizer_s(net, model)), "layers": layers,
         "dataset": ds}
    tf, tf_text = transformer_block(model)
    if tf is not None:
        w["transformer"] = tf
    if transformer:
        w["activation_checkpointing"] = False
    if model in MEASURED:
        w["devices"] = [k80_device(model)]
    prov = {"summary": "%s: %d layers, %d parameters, %.3f GFLOP forward per sample (x3 = %.3f GFLOP forward+backward); on the reference V100 at batch 16: forward %.3f ms, backward %.3f ms (%s)."
            % (model, len(layers), params, total_flops(net) / 1e9, 3 * total_flops(net) / 1e9, fwd * 1e3,
               bwd * 1e3, "totals MEASURED, per-layer split ESTIMATE" if status == "MEASURED" else "ESTIMATE")}
    prov.update(arch_provenance(model, net, params))
    if tf_text is not None:
        prov["transformer"] = tf_text
    prov["per_layer_times"] = time_text
    prov["tensors"] = tensors_provenance(model, net)
    prov["host_times"], prov["host_ops_by_layer"] = host_provenance(model, net)
    prov["reference"] = ("Tesla V100-SXM2-16GB, batch 16: %s. gpu_flops 15.7e12 = NVIDIA's V100 SXM2 FP32 peak (datasheet, NOT in shared/data), used by the simulator only as a ratio to other devices' peaks." % ("the GPU of the DLPerf BERT-base measurement the times derive from; batch 16 as the CNN workloads (the times are per-sample FLOP estimates, any batch would do)" if transformer else "the V100 of cnn-benchmarks (AWS P3, i.e. V100-SXM2-16GB) and its batch"))
    if model in MEASURED:
        prov["devices"] = "Tesla K80: MEASURED forward/backward of this model in the same benchmark (see the entry's source)."
    else:
        prov["devices"] = "None: this model was not measured on another device. On a K80 the simulator falls back to the peak-FLOPS ratio (15.7 / 4.37 = 3.6x), which flatters the K80: the models measured on both take %s longer on a K80 (single_gpu_fwd_bwd.md)." % k80_range()
    if transformer:
        prov["optimizer_s"] = "DERIVED + ESTIMATE: workloads/resnet50.json's MEASURED SGD step (1.3 ms for 25,557,032 parameters, V100) scaled by parameter count (%d), times %.1f for AdamW (ESTIMATE): the script's transformers AdamW is an unfused per-tensor loop of ~7 kernels (two moment updates, sqrt, add eps, addcdiv; weight decay 0) moving ~18 x 4 bytes per parameter, vs ~8-11 x 4 bytes for PyTorch's SGD with momentum (with or without weight decay): a factor 1.6-2.3." % (params, ADAMW_FACTOR)
    else:
        prov["optimizer_s"] = "DERIVED: workloads/resnet50.json's MEASURED SGD (momentum) step, 1.3 ms for 25,557,032 parameters on a V100 (kineto trace), scaled by parameter count (%d): a memory-bound update costs about the same per parameter. Stash's script also uses SGD with momentum (and weight decay 1e-4)." % params
    if transformer:
        first, second = (("model.layers.N", None) if is_llama(model) else
                         ("bert.encoder.layer.N.attention", ".intermediate+output") if is_bert(model) else
                         ("transformer.h.N.self_attention", ".mlp") if GPT2_CFGS[arch(model)].get("alibi") else
                         ("transformer.h.N.attn", ".mlp"))
        prov["activation_checkpointing"] = CHECKPOINT_NOTE % (
            first + (" (a LlamaDecoderLayer, one block) keeps" if second is None
                     else ", the first entry of a block, keeps"),
            max(l.get("ckpt", (0, 0))[0] for l in net.layers),
            "" if second is None else "; %s, recomputed with it, 0" % second)
    prov["grad_bytes_per_param"] = AMP_NOTE
    prov["precision"] = PRECISION_NOTE
    prov["batch_per_gpu"] = batch_note + "."
    prov["batch_scaling"] = "The simulator scales layer times linearly with the batch from the reference batch 16. Measured on a V100 (single_gpu_fwd_bwd.md batch sweeps), ResNet-34 takes 33.74 + 74.76 ms at batch 64 vs 4 x (10.14 + 22.37) ms: large batches are ~17% cheaper per sample than linear scaling from 16 says, so times at Stash's batches lean slow."
    prov.update(ds_prov)
    prov["stash_run"] = (STASH_CNN_RUN if not transformer else STASH_BERT_RUN if model in ("bert-base", "bert-large")
                         else NOT_STASH % (model, "bert-large" if is_bert(model) else "none"))
    prov["generated_by"] = GENERATED_BY
    prov["fwd_flops_per_sample_by_layer"] = {l["name"]: l["flops"] for l in net.layers}
    w["provenance"] = prov
    return w, {"model": model, "layers": len(layers), "params": params, "fwd_flops": total_flops(net),
               "batch": batch, "fwd_ms": fwd * 1e3, "bwd_ms": bwd * 1e3, "status": status,
               "k80": model in MEASURED, "tensors": sum(len(l["tensors"]) for l in layers), "host_ms": host_ms(w)}


def transformer_block(model):
    """The workload's "transformer" block (decoder-only language models: GPT-2, GPT-3-style, Llama; None for BERT
    and the CNNs) and its provenance: the architecture the simulator derives tensor and pipeline splits from."""
    if is_llama(model):
        c = LLAMA_CFGS[arch(model)]
        block = {"layers": c["layers"], "hidden": c["hidden"], "heads": c["heads"], "kv_heads": c["kv_heads"],
                 "ffn": c["inter"], "gated_ffn": True, "seq": seq_len(model), "vocab": c["vocab"], "tied_embeddings": False}
        text = ("DERIVED from %s's config.json (the architecture entry): layers = num_hidden_layers, hidden = hidden_size, "
                "heads = num_attention_heads, kv_heads = num_key_value_heads (%s), ffn = intermediate_size, gated_ffn true "
                "(SwiGLU: gate_proj, up_proj, down_proj, three h x ffn matrices), vocab = vocab_size = embed_tokens' and "
                "lm_head's rows (transformers pads nothing), tied_embeddings false (tie_word_embeddings false: lm_head has its "
                "own weight); seq = this workload's sequence length. The layers array: model.embed_tokens first, one entry "
                "per decoder layer (layers_per_block 1), model.norm+lm_head (the final RMSNorm, the LM head and the loss) last."
                % (c["hf_name"], "grouped-query attention" if c["kv_heads"] < c["heads"] else "= heads: no grouped-query attention"))
        return block, text
    if arch(model) in GPT2_CFGS:
        c = GPT2_CFGS[arch(model)]
        block = {"layers": c["layers"], "hidden": c["hidden"], "heads": c["heads"], "kv_heads": c["heads"],
                 "ffn": c["inter"], "gated_ffn": False, "seq": seq_len(model), "vocab": c["vocab"], "tied_embeddings": True}
        if c.get("alibi"):
            text = ("DERIVED from the shapes in the architecture entry (layers, hidden, heads); ffn = 4 x hidden; vocab %d: the "
                    "embedding's rows as Megatron-DeepSpeed uses them, %s. kv_heads = heads (multi-head attention), gated_ffn "
                    "false (GELU MLP: dense_h_to_4h and dense_4h_to_h, two h x ffn matrices), tied_embeddings true (the LM "
                    "head's weight is the word embedding); seq = this workload's sequence length. ALiBi has no parameters and "
                    "the block no field for the position encoding. The layers array: transformer.word_embeddings+layernorm "
                    "first, two entries per block (layers_per_block 2: self_attention, mlp), transformer.ln_f+lm_head (the final "
                    "LayerNorm, the LM head and the loss) last." % (c["vocab"], BLOOM_VOCAB_NOTE))
            return block, text
        if gpt_family(model):
            where = ("the shapes in the architecture entry (layers, hidden, heads); ffn = 4 x hidden; vocab %d: the "
                     "embedding's rows as Megatron-LM uses them, %s" % (c["vocab"], vocab_note(model)))
        elif is_gpt3(model):
            where = ("the shapes in the architecture entry (layers, hidden, heads); ffn = 4 x hidden; vocab %d: the "
                     "embedding's rows as Megatron-LM uses them, %s" % (c["vocab"], GPT3_VOCAB_NOTE))
        else:
            where = ("%s's config.json (n_layer, n_embd, n_head; ffn = n_inner, null, i.e. 4 x n_embd); vocab %d = "
                     "vocab_size = wte's rows (transformers does not pad GPT-2's vocabulary)" % (c["hf_name"], c["vocab"]))
        text = ("DERIVED from %s. kv_heads = heads (multi-head attention), gated_ffn false (GELU MLP: c_fc and c_proj, two "
                "h x ffn matrices), tied_embeddings true (the LM head's weight is the token embedding); seq = this "
                "workload's sequence length. The layers array: transformer.wte+wpe first, two entries per block "
                "(layers_per_block 2: attn, mlp), transformer.ln_f+lm_head (the final LayerNorm, the LM head and the "
                "loss) last." % where)
        return block, text
    return None, None


def tensors_provenance(model, net):
    n = sum(len(l["tensors"]) for l in net.layers)
    if is_llama(model):
        return ("DERIVED from the architecture, in the order transformers registers them (named_parameters): "
                "model.embed_tokens (1); per decoder layer self_attn's q_proj, k_proj, v_proj, o_proj, mlp's gate_proj, "
                "up_proj, down_proj weights, then input_layernorm's and post_attention_layernorm's weights (9: no "
                "biases; LlamaDecoderLayer registers self_attn and mlp before its two norms); model.norm's weight and "
                "lm_head's weight (2, the last entry; not tied): 1 + 9 x %d + 2 = %d tensors.%s"
                % (LLAMA_CFGS[arch(model)]["layers"], n, " The same count as a DeepSpeed ZeRO-3 checkpoint of a "
                   "Llama-2-13B fine-tune reconstructs (363 params; the script asserts it)."
                   if arch(model) in LLAMA_TENSORS else ""))
    if GPT2_CFGS.get(arch(model), {}).get("alibi"):
        return ("DERIVED from the architecture, in the order transformers' BloomForCausalLM registers them (named_parameters, "
                "the tied lm_head weight listed once, as word_embeddings): transformer.word_embeddings and "
                "word_embeddings_layernorm's weight and bias (3); per block, in the self_attention entry input_layernorm's "
                "weight and bias, query_key_value's and dense's weight and bias (6), in the mlp entry "
                "post_attention_layernorm's, dense_h_to_4h's and dense_4h_to_h's (6); ln_f's weight and bias in the last "
                "entry (2): 3 + 12 x %d + 2 = %d tensors." % (GPT2_CFGS[arch(model)]["layers"], n))
    if arch(model) in GPT2_CFGS:
        return ("DERIVED from the architecture, in the order transformers registers them (named_parameters, the tied "
                "lm_head weight listed once, as wte): transformer.wte and wpe (2); per block, in the attn entry ln_1's "
                "weight and bias, c_attn's and c_proj's weight and bias (6), in the mlp entry ln_2's, c_fc's and "
                "c_proj's (6); ln_f's weight and bias in the last entry (2): 2 + 12 x %d + 2 = %d tensors."
                % (GPT2_CFGS[model]["layers"], n))
    if is_bert(model):
        c = BERT_CFGS[arch(model)]
        return ("DERIVED from the architecture, in the order transformers registers them: bert.embeddings word, "
                "position and token_type tables, LayerNorm weight and bias (5); per encoder layer, in the attention "
                "entry the query, key, value and output dense weights and biases and the output LayerNorm's weight "
                "and bias (10), in the intermediate+output entry the intermediate and output dense weights and "
                "biases and the output LayerNorm's (6); qa_outputs weight and bias (2): 5 + 16 x %d + 2 = %d "
                "tensors (BertModel's 5 + 16 x %d + the pooler's 2, less the pooler, which "
                "BertForQuestionAnswering does not have, plus qa_outputs)." % (c["layers"], n, c["layers"]))
    return ("DERIVED from the architecture, in the order torchvision registers them: each conv's weight, its bias "
            "where it has one, then the weight and bias of the BatchNorm that follows it (folded into the conv's "
            "entry); each Linear's weight and bias. %d tensors%s." % (n, " = stash_methodology.md section 7's count "
                                                                     "for torchvision's %s (the script asserts it)" % model
                                                                     if model in TORCHVISION_TENSORS else ""))


NARAYANAN_FORMULA_READ = ("SC'21 section 5.1; the formula read in NVIDIA/NeMo-Framework-Launcher auto_configurator/autoconfig/utils.py "
                          "@8efbe22 (calculate_model_size, gpt3: 12 L h^2 (1 + 13 / (12 h) + (V + s) / (12 L h))) and in a public "
                          "summary of the paper found with find_string)")


def new_gpt_arch_provenance(model, net, params):
    """arch_provenance of NEW_GPT_CFGS' workloads."""
    f, c, seq = total_flops(net), GPT3_CFGS[arch(model)], seq_len(model)
    h, v, L = c["hidden"], c["vocab"], c["layers"]
    published, rule, source = GPT3_PUBLISHED[arch(model)]
    kfl = 24 * seq * L * h * h * (1 + seq / (6 * h) + v / (12 * L * h))
    flops = ("DERIVED, forward per sequence of %d tokens, multiply-add = 2 FLOPs, matmuls only: per block 24 s h^2 + 4 s^2 h (QK^T "
             "and AV over the full s x s scores: eager attention masks the upper triangle, it does not skip it) = %.1f GFLOP; the LM "
             "head 2 s h V = %.1f GFLOP. LayerNorm, GELU, softmax, dropout, the loss%s and the embedding gathers are not counted. "
             "Total %.3f GFLOP (Korthikanti et al.'s model FLOPs per sequence, 24 s L h^2 (1 + s / (6 h) + V / (12 L h)), the same "
             "count: %.3f GFLOP; the script asserts it)." % (seq, sum(bert_layer_flops(c, seq)) / 1e9, 2 * seq * h * v / 1e9,
                                                             ", ALiBi's bias add" if c.get("alibi") else "", f / 1e9, kfl / 1e9))
    tied = ("TIED EMBEDDINGS: the output layer's weight IS the word embedding (one tensor, counted once, in %s); the LM head layer "
            "holds only ln_f's %d parameters but does the %d x %d matmul, and the embedding's gradient sums both uses (with "
            "pipeline parallelism %s keeps a copy on the last stage and allreduces the two stages' gradients)."
            % (net.layers[0]["name"], 2 * h, h, v, "Megatron-DeepSpeed" if c.get("alibi") else "Megatron-LM"))
    if c.get("alibi"):
        b = BLOOM_176B
        return {
            "architecture": "%s: BigScience's BLOOM architecture as Megatron-DeepSpeed trains it (--position-embedding-type alibi, --embed-layernorm): ALiBi position encoding (a fixed per-head linear bias added to the attention scores; NO position embeddings), a LayerNorm after the word embedding, pre-LayerNorm blocks, GELU, FFN 4h, biases, the output layer tied to the word embedding; %d layers, hidden %d, %d heads of %d, FFN %d, vocabulary %d (%s), trained as a causal language model on sequences of %d tokens (every sample that long). Shapes and flags: %s. Modelled, for its operators, traffic and host costs, as the gpt3 workloads are: transformers' GPT2LMHeadModel blocks and head with this configuration and eager attention (CHOICE), ALiBi's bias add taken as GPT-2's scaling of the scores (one elementwise pass over them; transformers' BloomAttention fuses both into the QK^T baddbmm); the embedding as transformers' BloomModel runs it (BLOOM_HOST and transformer_traffic in the generator). Left unmodelled: BLOOM's GELU (a custom autograd function) keeps only its input where GPT-2's gelu_new keeps 5 i s, and Megatron-DeepSpeed's fused kernels would issue fewer operators and move fewer bytes." % (new_gpt_name(model), L, h, c["heads"], h // c["heads"], c["inter"], v, BLOOM_VOCAB_NOTE, seq, NEW_GPT_SHAPES_READ[arch(model)]),
            "layer_names": "Hugging Face BloomForCausalLM module names: transformer.word_embeddings+layernorm (the word embedding and word_embeddings_layernorm), per block transformer.h.N.self_attention (input_layernorm + self_attention.query_key_value + self_attention.dense) and transformer.h.N.mlp (post_attention_layernorm + mlp.dense_h_to_4h + mlp.dense_4h_to_h), then transformer.ln_f+lm_head (the final LayerNorm and the LM head with the loss).",
            "params": "DERIVED: word_embeddings %d x %d + word_embeddings_layernorm 2h; per block 12h^2 + 13h = %d (input_layernorm 2h, query_key_value 3h^2 + 3h, dense h^2 + h, post_attention_layernorm 2h, dense_h_to_4h 4h^2 + 4h, dense_4h_to_h 4h^2 + h); ln_f 2h; no position embeddings. Total %d = l (12 h^2 + 13 h) + V h + 4 h, the tr11-176B-ml README's own model-size formula ('(l*(12*h**2 + 13*h) + v*h + 4*h)'; Narayanan et al.'s with s = 0 and the two LayerNorms outside the blocks; the script asserts it), %.3fB; published: %sB (%s; the script asserts it). The same code at BLOOM-176B's shape (%d layers, %d heads) gives %s parameters with a %s-parameter embedding, the bigscience/bloom model card's figures (read in public copies with find_string; the script asserts both). %s" % (v, h, 12 * h * h + 13 * h, params, params / 1e9, published, source, b["layers"], b["heads"], "{:,}".format(b["params"]), "{:,}".format(b["embedding"]), tied),
            "flops": flops,
        }
    if rule == "dlperf":
        check = ("published: %sB, %s; the script asserts that Narayanan et al.'s P / 2^30 = %.4f rounds to it%s"
                 % (published, source, (params - 2 * h) / 2**30,
                    "; and SC'21 Table 1's %sB for the same shape (%s; asserted at the table's one decimal)"
                    % GPT3_PUBLISHED_ALSO[arch(model)][::2] if arch(model) in GPT3_PUBLISHED_ALSO else ""))
    else:
        check = "published: %sB, %s (computed with that formula; the script asserts equality at the table's one decimal)" % (published, source)
    return {
        "architecture": "%s. Architecture: learned position embeddings, pre-LayerNorm blocks, GELU, FFN 4h, biases, the output layer tied to the input embedding; %d layers, hidden %d, %d heads of %d, FFN %d, vocabulary %d (%s), %d positions, trained as a causal language model on sequences of %d tokens (every sample that long). Shapes: %s. DENSE attention in every layer. Modelled, for its operators, traffic and host costs, as transformers' GPT2LMHeadModel with this configuration and eager attention (CHOICE: the gpt2 and gpt3 workloads' method; Megatron-LM's fused kernels would issue fewer operators and move fewer bytes)." % (new_gpt_name(model), L, h, c["heads"], h // c["heads"], c["inter"], v, vocab_note(model), c["max_pos"], seq, NEW_GPT_SHAPES_READ[arch(model)]),
        "layer_names": "Hugging Face GPT2LMHeadModel module names, as the gpt2 and gpt3 workloads: transformer.wte+wpe (token and position embeddings), per block transformer.h.N.attn (ln_1 + attn.c_attn + attn.c_proj) and transformer.h.N.mlp (ln_2 + mlp.c_fc + mlp.c_proj), then transformer.ln_f+lm_head (the final LayerNorm and the LM head with the loss). Megatron-LM's names for the same tensors: embedding word and position embeddings; per layer input_layernorm, self_attention query_key_value and dense, post_attention_layernorm, mlp dense_h_to_4h and dense_4h_to_h; final_layernorm.",
        "params": "DERIVED: wte %d x %d + wpe %d x %d; per block 12h^2 + 13h = %d (ln_1 2h, c_attn 3h^2 + 3h, c_proj h^2 + h, ln_2 2h, c_fc 4h^2 + 4h, c_proj 4h^2 + h); ln_f 2h. Total %d = Narayanan et al.'s P = 12 l h^2 (1 + 13 / (12 h) + (V + s) / (12 l h)) with V = %d, s = %d (%s) + the final LayerNorm's 2h (the script asserts it), %.3fB; %s. %s" % (v, h, c["max_pos"], h, 12 * h * h + 13 * h, params, v, c["max_pos"], NARAYANAN_FORMULA_READ, params / 1e9, check, tied),
        "flops": flops,
    }


def arch_provenance(model, net, params):
    f = total_flops(net)
    if is_llama(model) and arch(model) not in LEGACY_LLAMA:
        c, seq = LLAMA_CFGS[arch(model)], seq_len(model)
        h, i, v, hkv = c["hidden"], c["inter"], c["vocab"], kv_hidden(c)
        per = 2 * h * h + 2 * h * hkv + 3 * h * i + 2 * h
        return {
            "architecture": "transformers LlamaForCausalLM, %s config.json (%s; hidden_act silu; no biases; the values as public copies of that file give them, read with the docs search, NOT in shared/data; the parameter total they give equals the published one). Grouped-query attention: %d query heads of %d share %d key-value heads (%d query heads a group), so k_proj and v_proj are h x h_kv = %d x %d. modeling_llama.py @5dd4a63 (the 4.49 line: eager_attention_forward repeats k and v to the %d query heads with repeat_kv) with attn_implementation='eager' (CHOICE: as the GPT-2 and Llama 2 workloads; SDPA or FlashAttention would skip the masked half of the scores and keep none of them) and use_cache=False, trained as a causal language model on sequences of %d tokens (every sample that long)." % (c["hf_name"], LLAMA_CONFIG_READ[arch(model)], c["heads"], h // c["heads"], c["kv_heads"], c["heads"] // c["kv_heads"], h, hkv, c["heads"], seq),
            "layer_names": "Hugging Face module names: model.embed_tokens, one entry per LlamaDecoderLayer model.layers.N (input_layernorm + self_attn q/k/v/o_proj with the rotary embedding + post_attention_layernorm + mlp gate/up/down_proj), then model.norm+lm_head (the final RMSNorm and the LM head with the loss).",
            "params": "DERIVED: embed_tokens %d x %d; per decoder layer 2h^2 + 2 h h_kv + 3hi + 2h = %d (q_proj and o_proj h x h, k_proj and v_proj h_kv x h with h_kv = %d, gate_proj and up_proj i x h, down_proj h x i, two RMSNorm weights h; no biases, the rotary embedding has no parameters); model.norm h; lm_head %d x %d, its own (not tied). Total %d = the published %d (read in %s; the script asserts it)." % (v, h, per, hkv, v, h, params, LLAMA_PARAMS[arch(model)], LLAMA_PARAMS_READ[arch(model)]),
            "flops": "DERIVED, forward per sequence of %d tokens, multiply-add = 2 FLOPs, matmuls only: per decoder layer 4 s h^2 (q and o_proj) + 4 s h h_kv (k and v_proj) + 6 s h i (gate, up, down_proj) + 4 s^2 h (QK^T and AV over the full s x s scores for every query head: eager attention masks the upper triangle, it does not skip it; as the GPT-2 and BERT workloads count them) = %.1f GFLOP; the LM head 2 s h V = %.1f GFLOP. RMSNorm, rotary, repeat_kv's copies, SiLU, softmax, the loss and the embedding gather are not counted. Total %.3f GFLOP." % (seq, llama_layer_flops(c, seq) / 1e9, 2 * seq * h * v / 1e9, f / 1e9),
        }
    if gpt_family(model):
        return new_gpt_arch_provenance(model, net, params)
    if is_gpt3(model):
        c, seq = GPT3_CFGS[arch(model)], seq_len(model)
        h, v = c["hidden"], c["vocab"]
        published, rule, source = GPT3_PUBLISHED[arch(model)]
        return {
            "architecture": "A GPT-3-style model as Megatron-LM trains it: GPT-2's architecture (learned position embeddings, pre-LayerNorm blocks, GELU, FFN 4h, biases, the output layer tied to the input embedding), %d layers, hidden %d, %d heads of %d, FFN %d, vocabulary %d (%s), %d positions, trained as a causal language model on sequences of %d tokens (every sample that long). Shapes: %s. %sDENSE attention in every layer (Megatron-LM's, not GPT-3's alternating dense and locally banded sparse layers). Modelled, for its operators, traffic and host costs, as transformers' GPT2LMHeadModel with this configuration and eager attention (CHOICE: the gpt2 workloads' method; Megatron-LM's fused kernels would issue fewer operators and move fewer bytes)." % (c["layers"], h, c["heads"], h // c["heads"], c["inter"], v, GPT3_VOCAB_NOTE, c["max_pos"], seq, GPT3_SHAPES_READ[arch(model)], GPT3_SHAPE_NOTES.get(arch(model), "")),
            "layer_names": "Hugging Face GPT2LMHeadModel module names, as the gpt2 workloads: transformer.wte+wpe (token and position embeddings), per block transformer.h.N.attn (ln_1 + attn.c_attn + attn.c_proj) and transformer.h.N.mlp (ln_2 + mlp.c_fc + mlp.c_proj), then transformer.ln_f+lm_head (the final LayerNorm and the LM head with the loss). Megatron-LM's names for the same tensors: embedding word and position embeddings; per layer input_layernorm, self_attention query_key_value and dense, post_attention_layernorm, mlp dense_h_to_4h and dense_4h_to_h; final_layernorm.",
            "params": "DERIVED: wte %d x %d + wpe %d x %d; per block 12h^2 + 13h = %d (ln_1 2h, c_attn 3h^2 + 3h, c_proj h^2 + h, ln_2 2h, c_fc 4h^2 + 4h, c_proj 4h^2 + h); ln_f 2h. Total %d = Narayanan et al.'s P = 12 l h^2 (1 + 13 / (12 h) + (V + s) / (12 l h)) with V = %d, s = %d (SC'21 section 5.1, recalled, not read here) + the final LayerNorm's 2h (the script asserts it), %.3fB; published: %sB, %s (%s; the script asserts %s). TIED EMBEDDINGS: the output layer's weight IS the word embedding (one tensor, counted once, in transformer.wte+wpe); the LM head layer holds only ln_f's %d parameters but does the %d x %d matmul, and the embedding's gradient sums both uses (with pipeline parallelism Megatron-LM keeps a copy on the last stage and allreduces the two stages' gradients)." % (v, h, c["max_pos"], h, 12 * h * h + 13 * h, params, v, c["max_pos"], params / 1e9, published, source, "rounded by the authors, not the exact count" if rule == "nominal" else "computed with that formula", "agreement within 1.5%" if rule == "nominal" else "equality at the table's one decimal", 2 * h, h, v),
            "flops": "DERIVED, forward per sequence of %d tokens, multiply-add = 2 FLOPs, matmuls only: per block 24 s h^2 + 4 s^2 h (QK^T and AV over the full s x s scores: eager attention masks the upper triangle, it does not skip it) = %.1f GFLOP; the LM head 2 s h V = %.1f GFLOP. LayerNorm, GELU, softmax, dropout, the loss and the embedding gathers are not counted. Total %.3f GFLOP (Korthikanti et al.'s model FLOPs per sequence, 24 s L h^2 (1 + s / (6 h) + V / (12 L h)), the same count: %.3f GFLOP)." % (seq, sum(bert_layer_flops(c, seq)) / 1e9, 2 * seq * h * v / 1e9, f / 1e9, 24 * seq * c["layers"] * h * h * (1 + seq / (6 * h) + v / (12 * c["layers"] * h)) / 1e9),
        }
    if is_llama(model):
        c, seq = LLAMA_CFGS[arch(model)], seq_len(model)
        h, i, v = c["hidden"], c["inter"], c["vocab"]
        per = 4 * h * h + 3 * h * i + 2 * h
        return {
            "architecture": "transformers LlamaForCausalLM, %s config.json (hidden_size %d, num_hidden_layers %d, num_attention_heads %d, num_key_value_heads %d: no grouped-query attention, intermediate_size %d, vocab_size %d, max_position_embeddings 4096, hidden_act silu, tie_word_embeddings false, no biases (attention_bias and mlp_bias: LlamaConfig's default false), attention_dropout 0.0 (absent from the file: LlamaConfig's default); the values as public copies of that file give them, read with find_string, NOT in shared/data; the parameter total they give equals the published one), modeling_llama.py @5dd4a63 (the 4.49 line) with attn_implementation='eager' (CHOICE: as the GPT-2 workloads; SDPA or FlashAttention would skip the masked half of the scores and keep none of them) and use_cache=False, trained as a causal language model on sequences of %d tokens (every sample that long)." % (c["hf_name"], h, c["layers"], c["heads"], c["kv_heads"], i, v, seq),
            "layer_names": "Hugging Face module names: model.embed_tokens, one entry per LlamaDecoderLayer model.layers.N (input_layernorm + self_attn q/k/v/o_proj with the rotary embedding + post_attention_layernorm + mlp gate/up/down_proj), then model.norm+lm_head (the final RMSNorm and the LM head with the loss).",
            "params": "DERIVED: embed_tokens %d x %d; per decoder layer 4h^2 + 3hi + 2h = %d (q, k, v, o_proj h x h each, gate_proj and up_proj i x h, down_proj h x i, two RMSNorm weights h; no biases, the rotary embedding has no parameters); model.norm h; lm_head %d x %d, its own (not tied). Total %d = the published %d (transformers' num_parameters(); the script asserts it)." % (v, h, per, v, h, params, LLAMA_PARAMS[arch(model)]),
            "flops": "DERIVED, forward per sequence of %d tokens, multiply-add = 2 FLOPs, matmuls only: per decoder layer 8 s h^2 (q, k, v, o_proj) + 6 s h i (gate, up, down_proj) + 4 s^2 h (QK^T and AV over the full s x s scores: eager attention masks the upper triangle, it does not skip it; as the GPT-2 and BERT workloads count them) = %.1f GFLOP; the LM head 2 s h V = %.1f GFLOP. RMSNorm, rotary, SiLU, softmax, the loss and the embedding gather are not counted. Total %.3f GFLOP." % (seq, llama_layer_flops(c, seq) / 1e9, 2 * seq * h * v / 1e9, f / 1e9),
        }
    if arch(model) in GPT2_CFGS:
        c, seq = GPT2_CFGS[model], seq_len(model)
        h, v = c["hidden"], c["vocab"]
        return {
            "architecture": "transformers GPT2LMHeadModel, %s config (n_layer %d, n_embd %d, n_head %d, n_inner 4 x n_embd = %d, vocab %d, n_positions 1024), eager attention, trained as a causal language model on sequences of %d tokens (the full context; every sample is that long)." % (c["hf_name"], c["layers"], h, c["heads"], c["inter"], v, seq),
            "layer_names": "Hugging Face module names, split as the BERT workloads: transformer.wte+wpe (token and position embeddings), per block transformer.h.N.attn (ln_1 + attn.c_attn + attn.c_proj) and transformer.h.N.mlp (ln_2 + mlp.c_fc + mlp.c_proj), then transformer.ln_f+lm_head (the final LayerNorm and the LM head with the loss).",
            "params": "DERIVED: wte %d x %d + wpe 1024 x %d; per block 12h^2 + 13h = %d (ln_1 2h, c_attn 3h^2 + 3h, c_proj h^2 + h, ln_2 2h, c_fc 4h^2 + 4h, c_proj 4h^2 + h); ln_f 2h. Total %d = the published %d (../shared/data/model_descriptors.csv; the script asserts it). TIED EMBEDDINGS: lm_head.weight IS transformer.wte.weight (one tensor, counted once, in transformer.wte+wpe); the LM head layer holds only ln_f's %d parameters but does the %d x %d matmul, and the embedding's gradient sums both uses, so its allreduce can start only after the embedding's backward, the last." % (v, h, h, 12 * h * h + 13 * h, params, GPT2_PARAMS[model], 2 * h, h, v),
            "flops": "DERIVED, forward per sequence of %d tokens, multiply-add = 2 FLOPs, matmuls only: per block 24 s h^2 + 4 s^2 h (QK^T and AV over the full s x s scores: eager attention masks the upper triangle, it does not skip it); the LM head 2 s h V = %.1f GFLOP. LayerNorm, GELU, softmax, dropout, the loss and the embedding gathers are not counted. Total %.3f GFLOP." % (seq, 2 * seq * h * v / 1e9, f / 1e9),
        }
    if is_bert(model):
        c, seq = BERT_CFGS[arch(model)], seq_len(model)
        h = c["hidden"]
        pooler = h * h + h
        return {
            "architecture": "transformers BertForQuestionAnswering over %s (config: %d layers, hidden %d, %d heads, intermediate %d, vocab %d, 512 positions, 2 token types): BertModel(add_pooling_layer=False) + qa_outputs Linear(%d, 2). Sequence length %d (see dataset.decoded_bytes_per_sample)." % (c["hf_name"], c["layers"], h, c["heads"], c["inter"], c["vocab"], h, seq),
            "layer_names": "Hugging Face module names: bert.embeddings (word, position, token_type tables + LayerNorm), per encoder layer bert.encoder.layer.N.attention (self.query/key/value + output.dense + output.LayerNorm) and bert.encoder.layer.N.intermediate+output (intermediate.dense + output.dense + output.LayerNorm), then qa_outputs.",
            "params": "DERIVED: embeddings (%d + 512 + 2) x %d + 2 x %d; per layer 12h^2 + 13h = %d (attention 4(h^2+h) + 2h, feed-forward 2 x h x %d + %d + h + 2h); qa_outputs %d. Total %d = model_descriptors.csv's BertModel count %d minus the pooler (%d: dense h x h + bias), which BertForQuestionAnswering does not have (add_pooling_layer=False, read in transformers' modeling_bert.py copies), plus qa_outputs (%d)." % (c["vocab"], h, h, 12 * h * h + 13 * h, c["inter"], c["inter"], 2 * h + 2, params, BERT_WITH_POOLER[arch(model)], pooler, 2 * h + 2),
            "flops": "DERIVED, forward per sequence of %d tokens, multiply-add = 2 FLOPs, matmuls only: per layer 24 s h^2 (Q, K, V, output: 8 s h^2; feed-forward: 16 s h^2) + 4 s^2 h (QK^T and attention x V); qa_outputs 4 s h. Softmax, LayerNorm, GELU, dropout and the embedding gather are not counted. Total %.3f GFLOP." % (seq, f / 1e9),
        }
    tv_params, tv_gmacs = TORCHVISION[model]
    return {
        "architecture": "torchvision models.%s(num_classes=1000) at 224x224, written out layer by layer in calibration/gen_models.py from torchvision's model definition." % model,
        "layer_names": "torchvision module names, one entry per conv / linear layer in forward order; a conv's following BatchNorm (gamma, beta) is folded into the conv's entry; biases included where the module has them (BN running mean/var are buffers, no gradients).",
        "params": "DERIVED from the architecture: total %d = torchvision's num_params %d (%s_Weights.IMAGENET1K_V1 meta, verified in copies of pytorch/vision torchvision/models/*.py; the script asserts the equality)." % (params, tv_params, model),
        "flops": "DERIVED, forward per 224x224 image, multiply-add = 2 FLOPs, conv and linear layers only (2 x weights x output pixels; biases, BN, ReLU, pooling not counted): %.4f GFLOP = 2 x %.4f GMACs; torchvision's meta _ops gives %.3f GMACs (script asserts agreement within 2%%)." % (f / 1e9, f / 2e9, tv_gmacs),
    }


# ---------------------------------------------------------------------------------------------
# README, checks, main
# ---------------------------------------------------------------------------------------------

def host_ms(w):
    """A workload's host times per iteration, ms: forward, backward, optimizer."""
    return tuple(1e3 * x for x in (sum(l["host_fwd_s"] for l in w["layers"]),
                                   sum(l["host_bwd_s"] for l in w["layers"]), w["host_optimizer_s"]))


def resnet50_row():
    w = read_resnet50()
    scale = 16 / w["reference"]["batch"]
    return {"model": "resnet50", "layers": len(w["layers"]), "params": sum(l["params"] for l in w["layers"]),
            "fwd_flops": total_flops(build("resnet50")), "batch": w["batch_per_gpu"],
            "fwd_ms": scale * 1e3 * sum(l["fwd_s"] for l in w["layers"]),
            "bwd_ms": scale * 1e3 * sum(l["bwd_s"] for l in w["layers"]), "status": "MEASURED*",
            "k80": any(d["gpu_model"] == "Tesla K80" for d in w.get("devices", [])),
            "tensors": sum(len(l["tensors"]) for l in w["layers"]), "host_ms": host_ms(w)}


def readme(rows):
    out = ["# Workloads", "",
           "Generated by `python3 calibration/gen_models.py` (do not edit; `--check` verifies it), except",
           "`resnet50.json`, which `python3 scripts/csv2workload.py` makes from a measured per-layer trace, and",
           "the mixtures of experts (`mixtral-8x7b`, `mixtral-8x22b`, `qwen3-30b-a3b`, `qwen3-235b-a22b`,",
           "`deepseek-v3`, `gpt-oss-120b`, `llama-4-scout`), which `python3 scripts/gen-moe-workloads` writes",
           "with `stash-calibrate hf` from their configs in `tests/hf-moe/` (no times: the kernel model times",
           "them; docs/model.md, \"Mixtures of experts\").",
           "Each file's `provenance` block says where every number comes from (MEASURED, DERIVED or ESTIMATE).", "",
           "| model | layers | params | tensors | fwd+bwd GFLOP/sample | default batch | V100 fwd ms @16 | V100 bwd ms @16 | times | K80 entry | host fwd / bwd / optimizer ms |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---|---|---|"]
    for r in rows:
        status = {"MEASURED": "measured", "ESTIMATE": "estimated", "MEASURED*": "measured*"}[r["status"]]
        out.append("| %s | %d | %s | %d | %.2f | %d | %.2f | %.2f | %s | %s | %.2f / %.2f / %.2f |" % ((
            r["model"], r["layers"], "{:,}".format(r["params"]), r["tensors"], 3 * r["fwd_flops"] / 1e9, r["batch"],
            r["fwd_ms"], r["bwd_ms"], status, "yes" if r["k80"] else "no") + tuple(r["host_ms"])))
    out += ["",
            "fwd+bwd GFLOP = 3 x forward (conv/linear/attention matmuls, multiply-add = 2). Times are on a",
            "Tesla V100-SXM2-16GB at batch 16, FP32. measured: the forward and backward totals are measured",
            "(`../shared/data/single_gpu_fwd_bwd.md`, cnn-benchmarks, Torch + cuDNN 7.0). measured*: resnet50's",
            "per-layer times are a PyTorch profiler trace at batch 32 on a V100-DGXS-32GB, shown here halved",
            "(the same table measures %.2f + %.2f ms at batch 16: the older Torch/cuDNN stack is %.2fx slower)."
            % (RESNET50_CNNB_MS[0], RESNET50_CNNB_MS[1], sum(RESNET50_CNNB_MS) / resnet50_ms(rows)),
            "",
            "## Rules",
            "",
            "- Parameters and FLOPs per layer come from the architectures (torchvision at 224x224 and 1000",
            "  classes; Hugging Face `BertForQuestionAnswering`, `GPT2LMHeadModel`, `LlamaForCausalLM`); one",
            "  entry per conv/linear layer with the following BatchNorm folded in (transformers: per attention",
            "  and feed-forward part, Llama per decoder layer). The generator asserts the published parameter",
            "  totals.",
            "- Where a model's forward and backward totals are measured, they are split over the layers in",
            "  proportion to each layer's forward FLOPs. That split is an estimate: BN, ReLU and pooling time",
            "  is spread by FLOPs rather than booked where it runs.",
            "- vgg11 runs at VGG-16's measured FLOP rate. mobilenet_v2, shufflenet_v2_x0_5 and squeezenet1_0",
            "  come from a roofline calibrated on ResNet-18 (conv FLOP rate fitted to ResNet-18's measured",
            "  forward; memory-bound elementwise passes; depthwise/grouped convs at a quarter of the DRAM",
            "  bandwidth): they are throughput estimates for Stash's large batches, uncertain by ~1.5x.",
            "- BERT runs at the FLOP rate of a measured BERT-base pretraining throughput (V100, FP32), at",
            "  the sequence length of Stash's SQuAD script (512: it pads to the longest pair).",
            "- bert-base / bert-large are Stash's SQuAD setup at sequence 512 (batch 4); bert-*-seq128 and",
            "  bert-*-seq512 are the same question-answering models at sequence 128 / 512 with chosen batches;",
            "  bert-*-seq384 at sequence 384, the setup of NVIDIA DeepLearningExamples' SQuAD fine-tuning",
            "  (scripts/run_squad.sh: --max_seq_length=384) that Lambda's benchmark runs, at Lambda's FP32",
            "  batches on a 16 GB GPU (24, 8). All of them get their times by the same rule (FLOPs at the",
            "  measured rate), so their per-sample times differ only by their FLOPs.",
            "- gpt2-124m/355m/774m/1.5b: Hugging Face `GPT2LMHeadModel` (gpt2, -medium, -large, -xl) at",
            "  sequence length 1024 on OpenWebText; parameters asserted against the published totals, the",
            "  LM head's weight tied to the token embedding and counted once, in `transformer.wte+wpe`.",
            "  Their times are ESTIMATES at the measured BERT-base FLOP rate (no public FP32 V100 GPT-2",
            "  training measurement found). Default batches 8/4/2/1: a CHOICE; gpt2-1.5b's FP32 weights,",
            "  gradients and AdamW state alone (25 GB) exceed a 16 GB V100.",
            "- llama2-7b/13b-seq2048/seq4096: Hugging Face `LlamaForCausalLM` (meta-llama/Llama-2-7b-hf,",
            "  -13b-hf: RMSNorm, rotary embeddings, SwiGLU, no biases, no dropout, an untied LM head) with eager",
            "  attention at sequence 2048 (LLaMA 1's context) and 4096 (Llama 2's), one entry per decoder layer;",
            "  parameters asserted against the published totals (6,738,415,616 and 13,015,864,320). Times are",
            "  ESTIMATES at the measured BERT-base FLOP rate, as GPT-2's. Default batch 1: a CHOICE, the models",
            "  fit no single GPU unsharded at any batch (FP32 weights, gradients and AdamW state: 16 bytes a",
            "  parameter, 108 GB and 208 GB), so the simulator refuses them for memory without `--ignore-memory`.",
            "  Dataset RedPajama-Data-1T (a CHOICE: the open reproduction of the LLaMA pretraining data; its",
            "  card's token count, whose tokenizer it does not name, taken as Llama tokens).",
            "- llama2-70b-seq4096, llama3-8b-seq8192, llama3-70b-seq8192: `LlamaForCausalLM` as above",
            "  (meta-llama/Llama-2-70b-hf, Meta-Llama-3-8B, Meta-Llama-3-70B) with grouped-query attention (8",
            "  key-value heads: k_proj and v_proj h x h/8 or h/4; eager attention's repeat_kv copies k and v to",
            "  the query heads), at each model's pretraining context (4096; 8192). Parameters asserted against",
            "  the published totals (68,976,648,192; 8,030,261,248; 70,553,706,496). Llama 3's 128256-word",
            "  vocabulary takes uint32 tokens (4 bytes a token in the stream). Batch 1: a CHOICE, they fit no",
            "  single GPU unsharded (16 bytes a parameter: 1104, 128 and 1129 GB).",
            "- gpt3-1.3b/6.7b/13b/39b/175b/1t: GPT-3-style models as Megatron-LM trains them (GPT-2's",
            "  architecture, FFN 4h, biases, learned positions, the LM head tied to the token embedding, dense",
            "  attention), sequence 2048, the GPT-2 BPE vocabulary padded to 51200 rows (Megatron-LM's",
            "  padding at t = 8; its README's scaling runs use 51,200). Shapes from GPT-3's Table 2.1 as",
            "  Megatron configs give them (1.3B with 16 heads of 128; 13B with h 5120, not the paper's 5140)",
            "  and Narayanan et al. SC'21 Table 1 (39B, 1T). Parameters asserted against Narayanan et al.'s",
            "  formula (plus the final LayerNorm) and the published sizes (GPT-3's rounded names within 1.5%;",
            "  39.1B and 1008.0B at one decimal); forward FLOPs asserted equal to Korthikanti et al.'s model",
            "  FLOPs. Operators, traffic and host costs as the gpt2 workloads (eager transformers GPT-2), times",
            "  ESTIMATES at the measured BERT-base FP32 rate (Megatron-LM runs them in 16 bits with fused",
            "  kernels). Dataset RedPajama-Data-1T with the GPT-2 BPE (a CHOICE: the same open corpus as the",
            "  Llama workloads). Batch 1: a CHOICE; none fits a V100 unsharded, 6.7B and up no single GPU.",
            "- megatron-1.7b/3.6b/7.5b/18b/76b/145b/310b/530b: the other GPT models of Narayanan et al. SC'21",
            "  Table 1 (shapes from Megatron-LM's examples/sc21/run_table_1.sh; 39B and 1T are gpt3-39b and",
            "  gpt3-1t), built, timed and checked as the gpt3 workloads: parameters asserted against the",
            "  table's 1.7 ... 529.6 billions at one decimal (Narayanan et al.'s formula plus the final",
            "  LayerNorm). megatron-0.5b and dlperf-gpt-1.5b: the GPT configurations of DLPerf's Megatron-LM",
            "  benchmark (hidden 1536 x 16 layers, 2304 x 24; V100s), vocabulary 51,200 as its report states;",
            "  its parameter column (0.498, 1.539) is the same formula's count divided by 2^30, which the",
            "  generator asserts for all five of its shapes (dlperf-gpt-1.5b is megatron-1.7b's shape: both",
            "  published sizes are asserted). bloom-181b-prequel: BigScience's 72-layer, hidden 14336, 64-head",
            "  test shape before BLOOM-176B (its chronicles' prequel, 'Size 181B'), BLOOM's architecture as",
            "  tr11-176B-ml gives it: ALiBi (no position embeddings), a LayerNorm after the word embedding,",
            "  the 250,680-word vocabulary padded to 250880 rows (4-byte tokens in the stream); the same code",
            "  at BLOOM-176B's shape is asserted to give its model card's 176,247,271,424 parameters. Its",
            "  blocks and head are modelled as the gpt3 workloads' (GPT-2's operators), its embedding as",
            "  transformers' BloomModel. Dataset, batch 1 and memory notes as the gpt3 workloads'.",
            "- `transformer` (the decoder-only language models: gpt2-*, gpt3-*, megatron-*, dlperf-gpt-*,",
            "  bloom-*, llama*): the architecture (`layers`, `hidden`, `heads`, `kv_heads`, `ffn`, `gated_ffn`,",
            "  `seq`, `vocab`, `tied_embeddings`)",
            "  the simulator derives tensor and pipeline splits from; `vocab` is the embedding's real row count",
            "  (padded where the framework pads). Their `layers` are the input embedding, the same number of",
            "  entries per transformer layer (GPT: attn and mlp; Llama: one decoder layer), then the final norm",
            "  with the output layer and the loss.",
            "- Backward/forward ratios come from the closest measured model (BERT: 2.0, the matmul ratio).",
            "- The optimizer step scales resnet50's measured SGD step by parameter count (BERT: x2 for AdamW).",
            "- Only measured models carry a `Tesla K80` device entry; elsewhere a K80 is scaled by peak",
            "  FLOPS, which flatters it (measured K80/V100 time ratios %s, the peak ratio 3.6x)." % k80_range(),
            "- All times are FP32. Stash ran the CNNs with `--amp`, which would be faster.",
            "- `tensors`: each layer's parameter tensors in registration order (torchvision: conv weight, conv",
            "  bias if any, then the following BatchNorm's weight and bias; Linear weight and bias), as DDP",
            "  buckets and apex's per-tensor allreduce see them; the totals are asserted against torchvision's.",
            "- Host times (the training process's CPU issuing each layer's operators, the optimizer step and",
            "  zero_grad; not scaled with the batch): resnet50's are MEASURED per layer in its profiler trace;",
            "  the others are ESTIMATES, each layer's operators (written out from the model's code, by class:",
            "  conv, batchnorm, linear, elementwise, view, loss; backward nodes, one AccumulateGrad per tensor,",
            "  gradient sums) times the cost per operator of that class measured in the same trace. That trace",
            "  ran with the profiler's shapes, memory and stack recording on, which inflates every operator's",
            "  host time: all of them, resnet50's included, are the profiled figures times %.4f, an ESTIMATE of"
            % read_resnet50()["provenance"]["host_unprofiled_factor"],
            "  what they cost unprofiled (`scripts/csv2workload.py`, resnet50.json's `host_unprofiled`).",
            "- Work per layer and sample (`fwd_flops`, `bwd_flops`, `fwd_bytes`, `bwd_bytes`, `act_bytes`,",
            "  `fwd_kernels`, `bwd_kernels`; docs/formats.md), DERIVED from the architectures with the rules",
            "  of `layer_work` and `transformer_traffic` in calibration/gen_models.py (backward FLOPs 2 x",
            "  forward, 1 x for the first layer; FP32 activation traffic of the conv/linear and its",
            "  elementwise passes, weights excluded; `act_bytes`: the tensors autograd keeps for backward,",
            "  FP32, 1-byte dropout masks (Korthikanti et al. 2022's count; a BatchNorm output that goes only",
            "  to a residual add is not kept); `act_bytes_half` (transformers only; the CNNs' x 0.5 holds):",
            "  the bytes kept under torch.autocast, counted from the AMP docs' op lists (matmuls 16-bit, each",
            "  with its own copy of an FP32 input; LayerNorm, softmax, pow FP32); kernels per host operator",
            "  by class): the traffic and",
            "  kernel counts are ESTIMATES of what eager PyTorch does. resnet50's come from its CSV's shapes",
            "  (scripts/csv2workload.py) and are asserted equal to the architecture's. `optimizer`:",
            "  sgd_momentum for the CNNs (Stash's SGD), adamw for the transformers.",
            "- `ckpt_bytes`, `ckpt_bytes_half` (transformers only; `checkpoint_bytes` in the generator): what",
            "  each layer of a block that Hugging Face's `gradient_checkpointing_enable()` wraps in",
            "  torch.utils.checkpoint keeps with it: the block's FP32 input (4 s h bytes a sequence, at amp/bf16",
            "  too) at its first entry, 0 at GPT-2's and BERT's second; embeddings and head in no block.",
            "  `activation_checkpointing` false, transformers' default (`--checkpoint-activations on` turns it",
            "  on; docs/model.md, \"Activation checkpointing\").", ""]
    return "\n".join(out)


def resnet50_ms(rows):
    """resnet50's fwd+bwd ms at batch 16 as the README table shows it."""
    r = [x for x in rows if x["model"] == "resnet50"][0]
    return r["fwd_ms"] + r["bwd_ms"]


def check_resnet50():
    """resnet50.json's per-layer names, parameter counts and tensors must be those of the architecture."""
    got = [(l["name"], l["params"], l.get("tensors")) for l in read_resnet50()["layers"]]
    want = [(l["name"], l["params"], l["tensors"]) for l in build("resnet50").layers]
    if got != want:
        bad = [(i, g, w) for i, (g, w) in enumerate(zip(got, want)) if g != w]
        sys.exit("gen_models.py: workloads/resnet50.json disagrees with torchvision resnet50 (%d vs %d layers); "
                 "first differences (index, file, architecture): %s" % (len(got), len(want), bad[:3]))
    want = layer_work(build("resnet50"))
    if [{k: l.get(k) for k in want[0]} for l in read_resnet50()["layers"]] != want:
        sys.exit("gen_models.py: workloads/resnet50.json's work keys (scripts/csv2workload.py, from the CSV's shapes) "
                 "differ from the architecture's")


def check_architectures():
    for model in TORCHVISION:
        net = build(model)
        params, gmacs = sum(l["params"] for l in net.layers), total_flops(net) / 2e9
        tv_params, tv_gmacs = TORCHVISION[model]
        if params != tv_params:
            sys.exit("gen_models.py: %s has %d parameters, torchvision says %d" % (model, params, tv_params))
        if abs(gmacs / tv_gmacs - 1) > 0.02:
            sys.exit("gen_models.py: %s has %.4f GMACs, torchvision's _ops says %.3f" % (model, gmacs, tv_gmacs))
        ntensors = sum(len(l["tensors"]) for l in net.layers)
        if ntensors != TORCHVISION_TENSORS.get(model, ntensors):
            sys.exit("gen_models.py: %s has %d parameter tensors, torchvision %d" % (model, ntensors,
                                                                                    TORCHVISION_TENSORS[model]))
    for model, with_pooler in BERT_WITH_POOLER.items():
        h = BERT_CFGS[model]["hidden"]
        params = sum(l["params"] for l in build(model).layers)
        if params != with_pooler - (h * h + h) + (2 * h + 2):
            sys.exit("gen_models.py: %s has %d parameters, expected model_descriptors.csv's %d - pooler + qa head"
                     % (model, params, with_pooler))
    for model, published in GPT2_PARAMS.items():
        params = sum(l["params"] for l in build(model).layers)
        if params != published:
            sys.exit("gen_models.py: %s has %d parameters, the published count is %d" % (model, params, published))
    for model in GPT3_CFGS:
        net, c = build(model), GPT3_CFGS[model]
        why = gpt3_params_check(model, sum(l["params"] for l in net.layers))
        if why:
            sys.exit("gen_models.py: %s has %s" % (model, why))
        # Korthikanti et al.'s model FLOPs, 24 s L h^2 (1 + s / (6 h) + V / (12 L h)) a sequence forward, multiplied out
        s_, L, h, v = GPT3_SEQ_LEN, c["layers"], c["hidden"], c["vocab"]
        if total_flops(net) != 24 * s_ * L * h * h + 4 * s_ * s_ * L * h + 2 * s_ * h * v:
            sys.exit("gen_models.py: %s has %d forward FLOPs, Korthikanti et al.'s count differs" % (model, total_flops(net)))
    # DLPerf's parameter column is Narayanan et al.'s count / 2^30 for every shape it runs (V = 51,200, s = 2048)
    for (h, L), published in DLPERF_PARAMS.items():
        if "%.3f" % ((12 * L * h * h + 13 * L * h + (GPT3_VOCAB + GPT3_SEQ_LEN) * h) / 2**30) != published:
            sys.exit("gen_models.py: DLPerf's %dx%d GPT has %s 'billion' parameters, not the formula's count / 2^30" % (h, L, published))
    # BLOOM-176B: the bloom architecture at its final shape gives the model card's totals
    c = dict(GPT3_CFGS["bloom-181b-prequel"], layers=BLOOM_176B["layers"], heads=BLOOM_176B["heads"])
    net = gpt2_lm("bloom-181b-prequel", GPT3_SEQ_LEN, c)
    if (sum(l["params"] for l in net.layers), net.layers[0]["tensors"][0]) != (BLOOM_176B["params"], BLOOM_176B["embedding"]):
        sys.exit("gen_models.py: BLOOM-176B's shape gives %d parameters (embedding %d), its model card %d (%d)"
                 % (sum(l["params"] for l in net.layers), net.layers[0]["tensors"][0], BLOOM_176B["params"], BLOOM_176B["embedding"]))
    for name, published in LLAMA_PARAMS.items():
        net = build("%s-seq%d" % (name, LLAMA_CFGS[name]["seqs"][0]))
        params, ntensors = sum(l["params"] for l in net.layers), sum(len(l["tensors"]) for l in net.layers)
        if params != published or ntensors != LLAMA_TENSORS.get(name, ntensors):
            sys.exit("gen_models.py: %s has %d parameters in %d tensors, the published count is %d (%s tensors)"
                     % (name, params, ntensors, published, LLAMA_TENSORS.get(name, "?")))


def check_llama():
    """act_bytes and act_bytes_half of llama2-7b-seq2048's first decoder layer against the tensors written
    out by hand (llama_traffic's docstring), bytes per sequence."""
    s, h, a, i = 2048, 4096, 32, 11008
    fp32 = 4 * (s * h            # the input norm's x * rsqrt
                + s * h          # its output, kept by q, k, v proj
                + 2 * s * h      # q and k after rotary, kept by QK^T
                + s * h          # v, kept by AV
                + a * s * s      # the softmax output, kept by softmax and AV
                + s * h          # the context, kept by o_proj
                + s * h          # the residual sum, kept by the second norm's pow and mul
                + 2 * s * h      # that norm's x * rsqrt and output (gate and up's input)
                + 4 * i * s      # gate's output, SiLU's output, up's output, their product
                + s * h)         # the output, kept by the next layer's norm
    half = (4 * s * h + 4 * s * h  # the FP32 input (pow, mul) and x * rsqrt
            + 3 * 2 * s * h        # q, k, v proj: a 16-bit copy of the FP32 norm output each
            + 2 * 2 * s * h        # QK^T's 16-bit copies of the FP32 rotary q and k
            + 2 * s * h            # v (FP16)
            + 2 * s * h            # the context (FP16)
            + 4 * s * h + 4 * s * h  # the FP32 residual sum, the second norm's x * rsqrt
            + 2 * 2 * s * h        # gate and up: a copy each
            + 4 * 2 * i * s        # gate out, SiLU out, up out, the product (FP16)
            + 4 * a * s * s        # the FP32 softmax output
            + 2 * a * s * s)       # AV's 16-bit copy of it
    net = build("llama2-7b-seq2048")
    work = {l["name"]: w for l, w in zip(net.layers, layer_work(net))}["model.layers.0"]
    got = (work["act_bytes"], work["act_bytes_half"])
    if got != (fp32, half) or got != (1233125376, 1270874112):
        sys.exit("gen_models.py: llama2-7b-seq2048 layer 0 keeps %s bytes (fp32, amp), by hand %s" % (got, (fp32, half)))


def check_gqa():
    """llama2-70b-seq4096's first decoder layer (grouped-query attention) against its terms written out by hand:
    parameters, forward FLOPs, forward bytes (llama_traffic's docstring) and act_bytes (unchanged by the grouping:
    QK^T and AV keep the repeated k and v)."""
    s, h, a, i, hkv = 4096, 8192, 64, 28672, 8192 * 8 // 64
    params = 2 * h * h + 2 * h * hkv + 3 * h * i + 2 * h        # q, o; k, v; gate, up, down; two norms
    flops = 2 * s * (2 * h * h + 2 * h * hkv + 3 * h * i) + 4 * s * s * h
    rw = (6 * s * h                       # input_layernorm
          + 3 * s * h + s * h + 2 * s * hkv  # q, k, v proj: three reads of the norm's output, their writes
          + 10 * (s * h + s * hkv)         # rotary on q and k
          + 2 * (s * h + s * hkv)          # repeat_kv's copies of k and v
          + 2 * s * h + 2 * s * h          # QK^T's reads; AV's read of v and write of the context
          + 2 * s * h + 2 * s * h          # the context's contiguous copy; o_proj
          + 3 * s * h + 7 * s * h          # residual add; post_attention_layernorm
          + 2 * s * h + s * h + 2 * s * h  # gate and up read; down writes; the residual reads
          + 8 * i * s + 8 * a * s * s)     # the SwiGLU intermediates; the scores
    net = build("llama2-70b-seq4096")
    layer, work = net.layers[1], layer_work(net)[1]
    got = (layer["params"], work["fwd_flops"], work["fwd_bytes"], work["act_bytes"])
    want = (params, flops, 4 * (2 * s * h + rw), 4 * (10 * s * h + 4 * i * s + a * s * s))
    if got != want or params != 855654400:
        sys.exit("gen_models.py: llama2-70b-seq4096 layer 0 has %s (params, fwd_flops, fwd_bytes, act_bytes), by hand %s"
                 % (got, want))


def check_half():
    """act_bytes_half of one BERT-base attention and ffn layer at sequence 128 against the tensors
    written out by hand (transformer_traffic's docstring), bytes per sequence, and the pair's total
    against 42 s h + 7 a s^2."""
    s, h, a, i = 128, 768, 12, 3072
    attn = (3 * 2 * s * h          # query, key, value: one FP16 copy of the FP32 input each
            + 3 * 2 * s * h        # Q, K, V (FP16) kept by QK^T and AV
            + 2 * s * h            # the context kept by the output dense
            + 1 * s * h            # the output dropout's bool mask
            + 4 * s * h            # the FP32 residual sum kept by the LayerNorm
            + 4 * a * s * s        # the FP32 softmax output
            + 1 * a * s * s        # the attention dropout's mask
            + 2 * a * s * s)       # the FP16 copy of the probabilities kept by AV
    ffn = 2 * s * h + 2 * i * s + 2 * i * s + 1 * s * h + 4 * s * h   # copy, GELU in, dense copy, mask, sum
    work = {l["name"]: w for l, w in zip(build("bert-base-seq128").layers, layer_work(build("bert-base-seq128")))}
    got = (work["bert.encoder.layer.0.attention"]["act_bytes_half"],
           work["bert.encoder.layer.0.intermediate+output"]["act_bytes_half"])
    if got != (attn, ffn) or (attn, ffn) != (3244032, 2260992) or attn + ffn != 42 * s * h + 7 * a * s * s:
        sys.exit("gen_models.py: bert-base-seq128 layer 0 keeps %s bytes at amp (attention, ffn), by hand %s"
                 % (got, (attn, ffn)))


def check_checkpoint():
    """ckpt_bytes of three transformers against the block inputs written out by hand (s x h x 4 bytes a
    sequence at the first entry of each block, 0 at GPT-2's and BERT's second, none outside the blocks), and
    Llama's embedding keeping at FP32 what its first block keeps (checkpoint_bytes' accounting)."""
    cases = {"llama2-7b-seq2048": ("model.layers.", 2048 * 4096 * 4, None),
             "gpt2-124m": ("transformer.h.", 1024 * 768 * 4, ".mlp"),
             "bert-base-seq128": ("bert.encoder.layer.", 128 * 768 * 4, ".intermediate+output")}
    for model, (prefix, hand, second) in cases.items():
        def expect(name):
            return None if not name.startswith(prefix) else 0 if second and name.endswith(second) else hand
        net = build(model)
        work = list(zip(net.layers, layer_work(net)))
        got = [(l["name"], w.get("ckpt_bytes"), w.get("ckpt_bytes_half")) for l, w in work]
        want = [(l["name"], expect(l["name"]), expect(l["name"])) for l, _ in work]
        if got != want:
            sys.exit("gen_models.py: %s's ckpt_bytes %s, by hand %s" % (model, got, want))
        if model.startswith("llama") and (hand, work[0][1]["act_bytes"]) != (33554432, hand):
            sys.exit("gen_models.py: %s's embedding keeps %d bytes at FP32, its first block's input %d"
                     % (model, work[0][1]["act_bytes"], hand))


def outputs():
    """Every generated file: relative path -> text."""
    check_architectures()
    check_half()
    check_checkpoint()
    check_llama()
    check_gqa()
    check_resnet50()
    files, rows = {}, []
    for model in ORDER:
        w, row = workload(model)
        files["workloads/%s.json" % model] = json.dumps(w, indent=2) + "\n"
        rows.append(row)
    rows.insert(ORDER.index("resnet18") + 1, resnet50_row())
    files["workloads/README.md"] = readme(rows)
    return files


def main():
    args = sys.argv[1:]
    help_version(__file__, __doc__, args)
    if args not in ([], ["--check"]):
        sys.stderr.write("usage: calibration/gen_models.py [--check | --help | --version]\n")
        return 2
    files = outputs()
    return write_generated("gen_models.py", dict(sorted(files.items())), args == ["--check"],
                           "python3 calibration/gen_models.py")


if __name__ == "__main__":
    sys.exit(main())
