#!/usr/bin/env python3
"""stash-study-report.py: tables and findings of docs/stash-study.md from the study's sweep CSVs
(scripts/stash-study).

  stash-study-report.py merge OUT.csv IN.csv...   one CSV from several sweeps (union of columns,
                                                  rows in the order given, runs renumbered)
  stash-study-report.py doc DOC.md INSTANCES.csv BATCHES.csv SCALING.csv
                                                  rewrite the part of DOC.md between the markers
                                                  '<!-- generated: ... -->' and '<!-- end generated -->'

Standard library only; the output depends on the CSVs alone (same CSVs, same bytes).
"""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from studylib import Report, help_version  # noqa: E402

REPORT = Report("stash-study")
die = REPORT.die

AMP_FLAG = "--compute-scale"
PARTS = [("interconnect_stall", "interconnect"), ("network_stall", "network"), ("prep_stall", "prep"),
         ("fetch_stall", "fetch")]


def read(path):
    return REPORT.read_csv(path, require_ok=False)


def merge(out, inputs):
    cols, rows = [], []
    for path in inputs:
        for r in read(path):
            for k in r:
                if k not in cols:
                    cols.append(k)
            rows.append(r)
    for i, r in enumerate(rows, 1):
        r["run"] = str(i)
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in cols})


def fnum(r, key):
    v = r.get(key, "")
    return float(v) if v not in ("", None) else None


def precision(r):
    return "AMP what-if" if AMP_FLAG in r["variant"] else "FP32"


def precisions(r):
    """The precisions a run stands for: a K80 (p2) has no FP16 arithmetic to gain from AMP, so its
    FP32 run also stands in the AMP what-if (the study's estimate, docs/stash-study.md)."""
    if r["gpu_model"] == "Tesla K80":
        return ["FP32", "AMP what-if"]
    return [precision(r)]


def config(r):
    return "%s x %s" % (r["instances"], r["platform"])


def ok(rows):
    bad = [r for r in rows if r["status"] != "ok"]
    if bad:
        die("run %s failed: %s" % (bad[0]["run"], bad[0]["error"]))
    return rows


def pct(v):
    v = 0.0 if abs(v) < 0.05 else v
    return "%.1f%%" % v


def table(rows, prec):
    out = ["| instances | model | iteration (RUN2) | epoch | $ per epoch | interconnect | network | prep | fetch |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        if prec not in precisions(r):
            continue
        net = pct(fnum(r, "stash.network_stall_pct")) if r.get("stash.single_instance") else "-"
        out.append("| %s | %s | %.1f ms | %.1f min | %.2f | %s | %s | %s | %s |" % (
            config(r), r["workload"], fnum(r, "stash.run2_s") * 1e3, fnum(r, "epoch_s") / 60,
            fnum(r, "cost_usd_per_epoch"), pct(fnum(r, "stash.interconnect_stall_pct")), net,
            pct(fnum(r, "stash.prep_stall_pct")), pct(fnum(r, "stash.fetch_stall_pct"))))
    return out


def interconnect_findings(inst, batches):
    out = []
    for prec in ("FP32", "AMP what-if"):
        for family, label in (("p2", "K80, PCIe"), ("p3", "V100, NVLink")):
            rows = [r for r in inst + batches
                    if precision(r) == prec and r["platform"].startswith(family + ".") and r["instances"] == "1"
                    and int(r["gpus"]) > 1]
            if not rows:
                continue
            top = max(rows, key=lambda r: (fnum(r, "stash.interconnect_stall_pct"), -int(r["run"])))
            out.append("| %s | %s | %s | %s, %s, batch %s |" % (
                prec, label, pct(fnum(top, "stash.interconnect_stall_pct")), config(top), top["workload"],
                top["batch_per_gpu"]))
    return ["| precision | instances | largest interconnect stall (Stash %) | where |", "|---|---|---:|---|"] + out


def network_findings(inst):
    out = ["| precision | job | against | model | slowdown T(RUN1) / T(single) | network stall (Stash %) |",
           "|---|---|---|---|---:|---:|"]
    best = {}
    for r in inst:
        if r.get("stash.single_instance_same_gpus") != "true":
            continue
        slow = fnum(r, "stash.run1_s") / fnum(r, "stash.single_instance_s")
        key = (precision(r), config(r))
        if key not in best or slow > best[key][0]:
            best[key] = (slow, r)
    for (prec, cfg), (slow, r) in sorted(best.items(), key=lambda kv: (kv[0][0] != "FP32", -kv[1][0])):
        out.append("| %s | %s | %s (%s GPUs) | %s | %.2fx | %s |" % (
            prec, cfg, r["stash.single_instance"], r["stash.single_instance_gpus"], r["workload"], slow,
            pct(fnum(r, "stash.network_stall_pct"))))
    return out


def cost_findings(inst):
    """Pairs of configurations where the one that costs more per hour trains an epoch slower."""
    out = ["| precision | model | costs more per hour, yet slower | than | first epoch (min) | $ per first epoch |",
           "|---|---|---|---|---:|---:|"]
    npairs = 0
    groups = {}
    for r in inst:
        for prec in precisions(r):
            groups.setdefault((prec, r["workload"]), []).append(r)
    for (prec, model), rows in groups.items():
        found = []
        for a in rows:
            for b in rows:
                pa = fnum(a, "price_usd_per_h") * int(a["instances"])
                pb = fnum(b, "price_usd_per_h") * int(b["instances"])
                if pa > pb and fnum(a, "epoch_s") > fnum(b, "epoch_s"):
                    found.append((fnum(a, "epoch_s") / fnum(b, "epoch_s"), a, b))
        npairs += len(found)
        if found:
            ratio, a, b = max(found, key=lambda t: (t[0], -int(t[1]["run"]), -int(t[2]["run"])))
            out.append("| %s | %s | %s ($%.2f/h) | %s ($%.2f/h) | %.1f vs %.1f | %.2f vs %.2f |" % (
                prec, model, config(a), fnum(a, "price_usd_per_h") * int(a["instances"]), config(b),
                fnum(b, "price_usd_per_h") * int(b["instances"]), fnum(a, "epoch_s") / 60, fnum(b, "epoch_s") / 60,
                fnum(a, "cost_usd_per_epoch"), fnum(b, "cost_usd_per_epoch")))
    return out, npairs


def cheapest(inst):
    out = ["| precision | model | fastest first epoch (RUN2) | cheapest first epoch (RUN2) | cheapest cached epoch (RUN3) |",
           "|---|---|---|---|---|"]
    groups = {}
    for r in inst:
        for prec in precisions(r):
            groups.setdefault((prec, r["workload"]), []).append(r)
    for (prec, model), rows in groups.items():
        fast = min(rows, key=lambda r: (fnum(r, "epoch_s"), int(r["run"])))
        cheap = min(rows, key=lambda r: (fnum(r, "cost_usd_per_epoch"), int(r["run"])))
        warm = min(rows, key=lambda r: (fnum(r, "stash.run3_cost_usd_per_epoch"), int(r["run"])))
        out.append("| %s | %s | %s, %.1f min ($%.2f) | %s, $%.2f (%.1f min) | %s, $%.2f (%.1f min) |" % (
            prec, model, config(fast), fnum(fast, "epoch_s") / 60, fnum(fast, "cost_usd_per_epoch"), config(cheap),
            fnum(cheap, "cost_usd_per_epoch"), fnum(cheap, "epoch_s") / 60, config(warm),
            fnum(warm, "stash.run3_cost_usd_per_epoch"), fnum(warm, "stash.run3_epoch_s") / 60))
    return out


NOTE_KINDS = [("prep vs fetch", "prep vs fetch: the two views split data stalls differently"),
              ("communication:", "communication: RUN2's collectives differ from RUN1's"),
              ("data:", "data: RUN2 - RUN1 differs from RUN2's waits for data"),
              ("compute:", "compute: RUN0 differs from RUN2's compute"),
              ("instance file has", "the single-instance stand-in has fewer GPUs than the job")]


def notes_table(inst):
    out = ["| note | runs | example |", "|---|---:|---|"]
    for key, label in NOTE_KINDS:
        hits = [r for r in inst if key in r.get("stash.notes", "")]
        if hits:
            r = hits[0]
            out.append("| %s | %d of %d | %s, %s, %s |" % (label, len(hits), len(inst), config(r), r["workload"],
                                                          precision(r)))
    return out


def batch_table(batches):
    out = ["| precision | instance | model | " + " | ".join("batch %s" % b for b in
                                                           sorted({int(r["batch_per_gpu"]) for r in batches})) + " |"]
    sizes = sorted({int(r["batch_per_gpu"]) for r in batches})
    out.append("|---|---|---|" + "---:|" * len(sizes))
    groups = {}
    for r in batches:
        groups.setdefault((precision(r), config(r), r["workload"]), {})[int(r["batch_per_gpu"])] = r
    for (prec, cfg, model), by in groups.items():
        cells = [pct(fnum(by[b], "stash.interconnect_stall_pct")) if b in by else "-" for b in sizes]
        out.append("| %s | %s | %s | %s |" % (prec, cfg, model, " | ".join(cells)))
    return out


def scaling_table(rows):
    counts = sorted({int(r["instances"]) for r in rows})
    out = ["| precision | instance | model | " + " | ".join("x %d" % n for n in counts) + " |",
           "|---|---|---|" + "---:|" * len(counts)]
    groups = {}
    for r in rows:
        groups.setdefault((precision(r), r["platform"], r["workload"]), {})[int(r["instances"])] = r
    for (prec, plat, model), by in groups.items():
        base = fnum(by[counts[0]], "throughput_samples_per_s") if counts[0] in by else None
        cells = []
        for n in counts:
            if n not in by:
                cells.append("-")
                continue
            t = fnum(by[n], "throughput_samples_per_s")
            cells.append("%.0f (%.2fx)" % (t, t / base) if base else "%.0f" % t)
        out.append("| %s | %s | %s | %s |" % (prec, plat, model, " | ".join(cells)))
    return out


def doc(path, inst_csv, batch_csv, scaling_csv):
    inst = ok(read(inst_csv))
    batches = ok(read(batch_csv))
    scaling = ok(read(scaling_csv))
    costs, npairs = cost_findings(inst)
    lines = [REPORT.begin, "",
             "### Interconnect stall",
             "",
             "The largest interconnect stall (Stash's percent: (T(RUN1) - T(RUN0)) / T(RUN1)) over every",
             "single-instance run with more than one GPU, at Stash's batch sizes and in the batch sweep:",
             ""] + interconnect_findings(inst, batches) + [
             "",
             "### Network stall: several instances against one",
             "",
             "For each job whose GPUs exist on one instance, the model with the largest slowdown of the",
             "synthetic run over the network (RUN1) against the same GPUs on one instance (SINGLE):",
             ""] + network_findings(inst) + [
             "",
             "### More expensive is not always faster",
             "",
             "%d pairs of configurations (same model and precision) where the one that costs more per hour" % npairs,
             "takes longer per epoch; the pair with the largest gap for each model:",
             ""] + costs + [
             "",
             "Fastest and cheapest configuration per model, for the first epoch (RUN2: every sample read",
             "from the volume) and for an epoch with every sample in the page cache (RUN3):",
             ""] + cheapest(inst) + [
             "",
             "### Differential against timeline",
             "",
             "Where the two views of RUN2 differ by more than 2% of the iteration (the runs' `stash.notes`):",
             ""] + notes_table(inst) + [
             "",
             "### Interconnect stall against batch size",
             "",
             "Stash's percent, single instances, every model, from `batches.csv`:",
             "",
             "<details><summary>table</summary>",
             ""] + batch_table(batches) + [
             "",
             "</details>",
             "",
             "### Scaling to 8 instances",
             "",
             "Throughput in samples/s (speed-up over one instance) of the real job with the default page",
             "cache, from `scaling.csv` (figure above):",
             "",
             "<details><summary>table</summary>",
             ""] + scaling_table(scaling) + [
             "",
             "</details>",
             "",
             "### Every run at Stash's batch sizes",
             "",
             "Stash's percentages (interconnect / T(RUN1), or / T(SINGLE) over several instances; network /",
             "T(SINGLE); prep / T(RUN3); fetch / T(RUN2)); iteration, epoch and $ of RUN2, the real job.",
             "",
             "<details><summary>FP32</summary>",
             ""] + table(inst, "FP32") + [
             "",
             "</details>",
             "",
             "<details><summary>AMP what-if (V100 compute x 0.306)</summary>",
             ""] + table(inst, "AMP what-if") + [
             "",
             "</details>",
             "",
             REPORT.end]
    REPORT.replace_generated(path, lines[1:-1])


def main(argv):
    help_version(__file__, __doc__, argv)
    if len(argv) >= 3 and argv[0] == "merge":
        merge(argv[1], argv[2:])
    elif len(argv) == 5 and argv[0] == "doc":
        doc(argv[1], argv[2], argv[3], argv[4])
    else:
        die("usage: stash-study-report.py merge OUT.csv IN.csv... | doc DOC.md INSTANCES.csv BATCHES.csv SCALING.csv")


if __name__ == "__main__":
    main(sys.argv[1:])
