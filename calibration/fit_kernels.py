#!/usr/bin/env python3
"""fit_kernels.py: the efficiency of a transformer's kernels by GPU generation, fitted on public
microbenchmarks (issue 40; calibration only: no training run is read).

usage: calibration/fit_kernels.py [--check] [--verbose] | --help | --version

Reads calibration/gemm_efficiency.csv and calibration/attention_kernels.csv (their sources:
calibration/kernel_sources.md) and fits, per GPU generation and precision:

  GEMM    achieved / peak = e_max x u(M, N) x K / (K + k0), where u is the SMs' use by the output's
          tiles in whole waves: tiles = ceil(M / tm) ceil(N / tn), u = tiles / (ceil(tiles / SMs) SMs),
          with each generation's large tile and SM count (GENERATIONS below: an ASSUMPTION stated
          there), or the best of three smaller tiles at c, c^2, c^3 of its rate (tile_use). e_max, c
          and k0 by least squares on log(efficiency), over a grid. Training shapes only: M and N of
          256 or more; not power-capped parts.
  attention  achieved / peak = e_max x s / (s + s0) for each fused kernel's forward (KERNELS below:
          FlashAttention-2, -3, -4, cuDNN's, Triton's) at head dimension d, causal or not
          (FlashAttention's benchmark convention for the FLOPs: tfkernels.h), fitted the same way; the backward's e_max from the same kernel's forward+backward figures where a
          source has them (3.5 / eff_fb = 1 / eff_f + 2.5 / eff_b at each sequence), else the
          forward's times the ratio of the generation's FlashAttention-2 (an ESTIMATE, marked).

Prints the fitted table, each row with the rows it was fitted on and its fit's median and largest
|error|, and writes it to sim/kernelfit.inc (generated: do not edit; sim/kernelfit.c includes it and
applies it). --check writes nothing and exits 1 if sim/kernelfit.inc differs from what it would
write. Rows of tier C (third-party readings) and batched GEMMs (torch.bmm) are left out.
"""
import csv
import math
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "sim", "kernelfit.inc")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from studylib import help_version, replace_file  # noqa: E402

# GPU generation of a row's `gpu` cell (its first word), the SMs of the part measured, and the output
# tile of cuBLAS's large-GEMM kernels there (ASSUMPTION: 128 x 128 on Volta, 128 x 256 on Ampere and
# Hopper, 256 x 256 on Blackwell's two-SM MMA; the tile sets where whole waves fall, not the peak).
GENERATIONS = {
    "V100": ("volta", 80, (128, 128)),
    "A100-SXM4": ("ampere", 108, (128, 256)),
    "A100-PCIe": ("ampere", 108, (128, 256)),
    "H100-SXM5": ("hopper", 132, (128, 256)),
    "H100-PCIe": ("hopper", 114, (128, 256)),
    "H100": ("hopper", 132, (128, 256)),
    "H800-SXM5": ("hopper", 132, (128, 256)),
    "H200-SXM": ("hopper", 132, (128, 256)),
    "GH200": ("hopper", 132, (128, 256)),
    "B200": ("blackwell", 148, (256, 256)),
    "GB200": ("blackwell", 148, (256, 256)),
}


def generation(gpu):
    """(generation, SMs, tile) of a row's gpu cell, or None (a part not listed: B300)."""
    for key in sorted(GENERATIONS, key=len, reverse=True):
        if gpu.startswith(key):
            return GENERATIONS[key]
    return None


def precision_class(p):
    p = p.lower()
    return "fp8" if p.startswith("fp8") else "fp16" if p.startswith(("fp16", "bf16")) else None


def waves(m, n, sms, tile):
    tiles = math.ceil(m / tile[0]) * math.ceil(n / tile[1])
    return tiles / (math.ceil(tiles / sms) * sms)


def tile_use(m, n, sms, tile, c):
    """The SMs' use by the best of the generation's tile and three smaller ones (halved in N, then in
    both, then N halved again), a smaller tile running at c, c^2, c^3 of the large one's rate per SM:
    cuBLAS's heuristics pick smaller tiles where the large ones leave SMs idle."""
    tm, tn = tile
    shapes = ((tm, tn), (tm, tn // 2), (tm // 2, tn // 2), (tm // 2, tn // 4))
    return max(waves(m, n, sms, t) * c ** i for i, t in enumerate(shapes))


def grid_fit(rows, model, emax_grid, second_grid):
    """The (e_max, second) minimising the squared log errors of model(row, second) x e_max against
    each row's efficiency: for each second, the best e_max is the geometric mean of the ratios."""
    best = None
    for sec in second_grid:
        logs = [math.log(r["eff"] / model(r, sec)) for r in rows]
        e = math.exp(sum(logs) / len(logs))
        if emax_grid and not emax_grid[0] <= e <= emax_grid[1]:
            continue
        err = sum((l - math.log(e)) ** 2 for l in logs)
        if best is None or err < best[0]:
            best = (err, e, sec)
    _, e, sec = best
    errors = [abs(e * model(r, sec) / r["eff"] - 1) for r in rows]
    return e, sec, statistics.median(errors), max(errors)


def gemm_rows():
    out = {}
    for r in csv.DictReader(open(os.path.join(ROOT, "calibration", "gemm_efficiency.csv"), encoding="utf-8")):
        gen, prec = generation(r["gpu"]), precision_class(r["precision"])
        if not gen or not prec or r["tier"] == "C" or "bmm" in r["library"] or "(inferred)" in r["gpu"]:
            continue
        m, n, k = int(r["m"]), int(r["n"]), int(r["k"])
        if min(m, n) < 256:  # a decode-sized or narrow GEMM (DeepBench's RNN shapes): not a training shape
            continue
        if "500 W" in r["gpu"]:  # a power-capped part: its peak is not the datasheet's
            continue
        eff = float(r["tflops_per_s"]) / float(r["peak_tflops_per_s"])
        out.setdefault((gen[0], prec), []).append({"id": r["id"], "m": m, "n": n, "k": k, "sms": gen[1],
                                                   "tile": gen[2], "eff": eff})
    return out


def fit_gemms():
    fits = []
    for (gen, prec), rows in sorted(gemm_rows().items()):
        def model(r, ck):
            return tile_use(r["m"], r["n"], r["sms"], r["tile"], ck[0]) * r["k"] / (r["k"] + ck[1])
        # Too few rows to fix the small tiles' rate or the short K's cost: the tile alone, no k0.
        grid = [(0.5 + 0.02 * i, 32 * j) for i in range(26) for j in range(64)] if len(rows) >= 6 else [(1.0, 0)]
        e, ck, med, worst = grid_fit(rows, model, (0.05, 1.0), grid)
        fits.append((gen, prec, e, ck[0], ck[1], rows[0]["tile"], len(rows), med, worst))
    return fits


# The fused attention kernels fitted per generation, by the short name --attention-kernel gives them,
# and the sources' names of their rows; the first of each generation is its default (the fastest its
# sources give: FlashAttention-3 on Hopper, -4 on Blackwell; -2 on Ampere).
KERNELS = {"ampere": (("fa2", ("FlashAttention-2",)), ("triton", ("FlashAttention Triton",))),
           "hopper": (("fa3", ("FlashAttention-3",)), ("fa2", ("FlashAttention-2",)),
                      ("cudnn", ("cuDNN fused attention",)),
                      ("triton", ("Triton (tutorial FA2)", "Triton tutorial FA2 (triton_tutorial_flash_v2)"))),
           "blackwell": (("fa4", ("FlashAttention-4 (flash_attn.cute, SM100 fwd)",
                                  "FlashAttention-4 (flash_attn.cute, SM100 2CTA fwd)")),)}


def short_kernel(gen, kernel):
    """The short name of a row's kernel on generation gen, or None (not fitted)."""
    for short, names in KERNELS.get(gen, ()):
        if kernel in names:
            return short
    return None
PEAK = {("ampere", "fp16"): 312, ("hopper", "fp16"): 989, ("hopper", "fp8"): 1979, ("blackwell", "fp16"): 2250,
        ("blackwell", "fp8"): 4500}


def attention_rows():
    out = {}
    for r in csv.DictReader(open(os.path.join(ROOT, "calibration", "attention_kernels.csv"), encoding="utf-8")):
        gen, prec = generation(r["gpu"]), precision_class(r["precision"])
        if not gen or not prec or r["tier"] == "C" or not r["seq"] or "(inferred)" in r["gpu"]:
            continue
        short = short_kernel(gen[0], r["kernel"])
        if not short:
            continue
        if (gen[0], prec) not in PEAK or r["direction"] not in ("fwd", "fwd+bwd"):
            continue
        key = (gen[0], short, prec, int(r["head_dim"]), int(r["causal"] or 0), r["direction"])
        out.setdefault(key, []).append({"id": r["id"], "s": int(r["seq"]),
                                        "eff": float(r["tflops_per_s"]) / PEAK[(gen[0], prec)]})
    return out


def fit_attention():
    rows = attention_rows()
    s0s = [0] + [32 * i for i in range(1, 257)]
    fitted = {}
    for key, rs in sorted(rows.items()):
        fitted[key] = grid_fit(rs, lambda r, s0: r["s"] / (r["s"] + s0), (0.01, 1.0), s0s) + (len(rs),)
    out = []
    for key, (e, s0, med, worst, n) in sorted(fitted.items()):
        gen, kernel, prec, d, causal, direction = key
        if direction != "fwd":
            continue
        # The backward: from this kernel's forward+backward, else the generation's FlashAttention-2 ratio.
        fb = fitted.get((gen, kernel, prec, d, causal, "fwd+bwd"))
        how = "measured"
        if fb:
            bwd = 2.5 / (3.5 / fb[0] - 1 / e)
        else:
            f2, f2fb = (fitted.get((gen, "fa2", "fp16", d, causal, x)) for x in ("fwd", "fwd+bwd"))
            if f2 and f2fb:
                bwd = e * (2.5 / (3.5 / f2fb[0] - 1 / f2[0])) / f2[0]
                how = "ESTIMATE, FlashAttention-2's backward/forward"
            else:
                bwd = e * 0.75
                how = "ESTIMATE, 3/4 of the forward (no figure)"
        out.append((gen, kernel, prec, d, causal, e, s0, bwd, how, n, med, worst))
    # Kernels whose figures are forward+backward only (Ampere's): the forward is the combined curve's
    # (FA2's paper: forward and backward at about the same share of peak), an ESTIMATE.
    for key, (e, s0, med, worst, n) in sorted(fitted.items()):
        gen, kernel, prec, d, causal, direction = key
        if direction == "fwd+bwd" and (gen, kernel, prec, d, causal, "fwd") not in fitted:
            out.append((gen, kernel, prec, d, causal, e, s0, e, "ESTIMATE, the forward+backward figure", n, med,
                        worst))
    return sorted(out)


def render(gemms, attention):
    lines = ["/* kernelfit.inc: the fits of kernelfit.h, included by kernelfit.c. GENERATED by",
             " * calibration/fit_kernels.py from calibration/gemm_efficiency.csv and",
             " * calibration/attention_kernels.csv: do not edit (calibration.kernels_up_to_date checks it). */",
             "const ss_gemm_fit ss_gemm_fits[] = {"]
    for gen, prec, e, c, k0, tile, n, med, worst in gemms:
        row = "    {\"%s\", \"%s\", %.4f, %.2f, %d, %d, %d}," % (gen, prec, e, c, k0, tile[0], tile[1])
        lines.append(row + " /* %d rows: median |error| %.1f%%, largest %.1f%% */" % (n, 100 * med, 100 * worst))
    lines += ["    {NULL, NULL, 0, 0, 0, 0, 0}};", "", "const ss_attention_fit ss_attention_fits[] = {"]
    for gen, kernel, prec, d, causal, e, s0, bwd, how, n, med, worst in attention:
        lines.append("    /* %d rows, |error| median %.1f%%, largest %.1f%%; backward: %s */" % (
            n, 100 * med, 100 * worst, how))
        lines.append("    {\"%s\", \"%s\", \"%s\", %d, %d, %.4f, %d, %.4f}," % (
            gen, kernel, prec, d, causal, e, s0, bwd))
    lines += ["    {NULL, NULL, NULL, 0, 0, 0, 0, 0}};", "",
              "/* Each generation's default attention kernel (the first KERNELS lists), then NULL. */",
              "const char* const ss_attention_defaults[] = {" +
              ", ".join('"%s", "%s"' % (gen, ks[0][0]) for gen, ks in sorted(KERNELS.items())) + ", NULL};", ""]
    return formatted("\n".join(lines))


def formatted(text):
    """text as the repository's .clang-format lays it out, as a C file of sim/ would be."""
    like = os.path.join(ROOT, "sim", "kernelfit.c")
    p = subprocess.run(["clang-format", "--style=file", "--assume-filename=" + like], input=text, capture_output=True,
                       text=True, cwd=ROOT, check=True)
    return p.stdout


def main():
    args = sys.argv[1:]
    help_version(__file__, __doc__, args)
    if any(a not in ("--check", "--verbose") for a in args):
        sys.stderr.write("usage: calibration/fit_kernels.py [--check] [--verbose] | --help | --version\n")
        return 2
    text = render(fit_gemms(), fit_attention())
    if "--verbose" in args or "--check" not in args:
        print(text)
    if "--check" in args:
        old = open(OUT, encoding="utf-8").read() if os.path.exists(OUT) else ""
        if old != text:
            print("fit_kernels: sim/kernelfit.inc is not what calibration/fit_kernels.py writes (run it)",
                  file=sys.stderr)
            return 1
        return 0
    replace_file(OUT, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
