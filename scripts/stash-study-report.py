#!/usr/bin/env python3
"""stash-study-report.py: tables and findings of docs/stash-study.md from the study's sweep CSVs
(scripts/stash-study).

  stash-study-report.py merge OUT.csv IN.csv...   one CSV from several sweeps (union of columns,
                                                  rows in the order given, runs renumbered)
  stash-study-report.py largest CSV...             the single-instance runs with the largest
                                                  interconnect stall (Stash's percent), one per GPU
                                                  family: a line "PLATFORM WORKLOAD BATCH" as the
                                                  sweep was given them, none for a case run at
                                                  Stash's batch size (the mechanism sweep has it)
  stash-study-report.py [--bin STASH_SIM] doc DOC.md INSTANCES.csv BATCHES.csv SCALING.csv MECHANISMS.csv OURS.csv
                                                  rewrite the part of DOC.md between the markers
                                                  '<!-- generated: ... -->' and '<!-- end generated -->'
                                                  (the stalls of its tables: the categories STASH_SIM
                                                  lists, default build/stash-sim)

Standard library only; the output depends on the CSVs and the categories' names alone (same CSVs,
same bytes).
"""
import csv
import io
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from studylib import (CategoryError, Report, categories, default_bin, help_version, replace_file,  # noqa: E402
                      short_name)

REPORT = Report("stash-study")
die = REPORT.die

# The stalls of the table of every run, by category name (stash-sim list categories), in its column
# order: Stash's four (no host stall); the network stall is '-' on a run with no single-instance
# stand-in (one instance).
STALLS = ["interconnect_stall", "network_stall", "prep_stall", "fetch_stall"]
NEEDS_SINGLE = "network_stall"
# The mechanism sweep's variants: (variant, column). Switched off one at a time: the change of the
# interconnect stall; the last two are whole stacks: their stall itself.
MECHS = [("--no-launch", "issuing"), ("--no-framework", "framework"), ("--no-staging", "staging"),
         ("--ddp pytorch", "DDP buckets"), ("--metric-allreduces 0", "metric allreduces"),
         ("--synthetic-sample-bytes 1", "synthetic copies"), ("--no-shm", "SHM transport"),
         ("--no-call-cost", "NCCL call cost"), ("--no-interference", "interference"), ("--jitter 0", "stragglers")]
STACKS = [("--stash-stack ours", "job's own stack"), ("--ideal", "`--ideal`")]
FAMILIES = ("K80, PCIe", "V100, NVLink")


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
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: r.get(k, "") for k in cols})
    replace_file(out, buf.getvalue())


def fnum(r, key):
    v = r.get(key, "")
    return float(v) if v not in ("", None) else None


def config(r):
    return "%s x %s" % (r["instances"], r["platform"])


def refused_memory(r):
    """A run the simulator refused because the job does not fit in the GPU's memory (docs/model.md,
    "GPU memory"): Stash's batch sweeps go up to batches a 16 GB V100 does not hold."""
    return r["status"] != "ok" and " GiB of " in r.get("error", "") and "needs " in r.get("error", "")


def ok(rows, memory=False):
    """The runs that succeeded; any other is an error, but for refusals for memory when memory is true
    (left out: fits() lists them)."""
    bad = [r for r in rows if r["status"] != "ok" and not (memory and refused_memory(r))]
    if bad:
        die("run %s failed: %s" % (bad[0]["run"], bad[0]["error"]))
    return [r for r in rows if r["status"] == "ok"]


def fits(rows):
    """The runs refused for GPU memory, as 'platform model batch' words."""
    return ["%s %s batch %s" % (r["platform_arg"], os.path.basename(r["workload_arg"]).replace(".json", ""),
                                r["batch_arg"]) for r in rows if refused_memory(r)]


def pct(v):
    v = 0.0 if abs(v) < 0.05 else v
    return "%.1f%%" % v


def ms(v):
    v = 0.0 if abs(v) < 5e-5 else v
    return "%.1f" % (v * 1e3)


def dms(v):
    """A change in ms, signed."""
    v = 0.0 if abs(v) < 5e-5 else v
    return "%+.1f" % (v * 1e3) if v else "0.0"


def multi_gpu_single(rows):
    """The single-instance runs with more than one GPU: those with an interconnect stall."""
    return [r for r in rows if r["instances"] == "1" and int(r["gpus"]) > 1]


def top_interconnect(rows):
    return max(rows, key=lambda r: (fnum(r, "stash.interconnect_stall_pct"), -int(r["run"])))


def largest(paths):
    """The cases of the largest interconnect stall (Stash's percent) over the CSVs, one per GPU
    family (K80, V100), as the sweep's arguments, but for a case a run at Stash's batch size (no
    --batches) already is."""
    rows = []
    for path in paths:
        rows += [dict(r, run=str(len(rows) + i)) for i, r in enumerate(ok(read(path), memory=True))]
    cases = []
    for fam in FAMILIES:
        some = [r for r in multi_gpu_single(rows) if family(r) == fam]
        if not some:
            continue
        top = top_interconnect(some)
        if not any(not r["batch_arg"] and r["instances"] == "1" and r["platform_arg"] == top["platform_arg"]
                   and r["workload_arg"] == top["workload_arg"] and r["batch_per_gpu"] == top["batch_per_gpu"]
                   for r in rows):
            cases.append("%s %s %s" % (top["platform_arg"], top["workload_arg"], top["batch_per_gpu"]))
    return cases


def family(r):
    return "K80, PCIe" if r["platform"].startswith("p2.") else "V100, NVLink"


def table(rows, stalls):
    """Every run: configuration, iteration, epoch, cost and Stash's percent of each of the stalls
    (categories' rows)."""
    out = ["| instances | model | iteration (RUN2) | epoch | $ per epoch | %s |" % " | ".join(map(short_name, stalls)),
           "|---|---|---:|---:|---:|" + "---:|" * len(stalls)]
    for r in rows:
        cells = ["-" if c["name"] == NEEDS_SINGLE and not r.get("stash.single_instance")
                 else pct(fnum(r, "stash.%s_pct" % c["name"])) for c in stalls]
        out.append("| %s | %s | %.1f ms | %.1f min | %.2f | %s |" % (
            config(r), r["workload"], fnum(r, "stash.run2_s") * 1e3, fnum(r, "epoch_s") / 60,
            fnum(r, "cost_usd_per_epoch"), " | ".join(cells)))
    return out


def interconnect_findings(inst, batches):
    out = ["| instances | runs | largest interconnect stall | Stash % | where |", "|---|---|---:|---:|---|"]
    for fam in FAMILIES:
        for label, rows in (("Stash's batch sizes", inst), ("batch sweep", batches)):
            rows = [r for r in multi_gpu_single(rows) if family(r) == fam]
            if not rows:
                continue
            top = top_interconnect(rows)
            out.append("| %s | %s | %s ms | %s | %s, %s, batch %s |" % (
                fam, label, ms(fnum(top, "stash.interconnect_stall_s")), pct(fnum(top, "stash.interconnect_stall_pct")),
                config(top), top["workload"], top["batch_per_gpu"]))
    return out


def mechanism_groups(mech):
    """{(platform, workload, batch): {variant: row}}, in the order of the CSV."""
    groups = {}
    for r in mech:
        groups.setdefault((r["platform"], r["workload"], r["batch_per_gpu"]), {})[r["variant"]] = r
    return groups


def ic(r):
    return fnum(r, "stash.interconnect_stall_s")


def mechanism_table(mech, tops):
    out = ["| instance | model | batch | interconnect stall (ms) | Stash % | " +
           " | ".join(label for _, label in MECHS) + " | largest drop | " +
           " | ".join(label for _, label in STACKS) + " |",
           "|---|---|---:|---:|---:|" + "---:|" * len(MECHS) + "---|" + "---:|" * len(STACKS)]
    for (plat, model, batch), by in mechanism_groups(mech).items():
        base = by.get("")
        if base is None:
            die("mechanisms: no run of Stash's stack for %s, %s, batch %s" % (plat, model, batch))
        stall = ic(base)
        cells, drops = [], []
        for variant, label in MECHS:
            d = ic(by[variant]) - stall if variant in by else None
            cells.append(dms(d) if d is not None else "-")
            if d is not None:
                drops.append((d, label))
        d, label = min(drops)
        drop = "%s (%.0f%%)" % (label, -100 * d / stall) if d < -5e-5 and stall > 0 else "none"
        stacks = [ms(ic(by[v])) if v in by else "-" for v, _ in STACKS]
        mark = " **(largest)**" if (plat, model, batch) in tops else ""
        out.append("| %s%s | %s | %s | %s | %s | %s | %s | %s |" % (
            plat, mark, model, batch, ms(stall), pct(fnum(base, "stash.interconnect_stall_pct")), " | ".join(cells),
            drop, " | ".join(stacks)))
    return out


def mechanism_counts(mech):
    """How often each mechanism makes the largest drop, as one sentence."""
    count = {}
    groups = mechanism_groups(mech)
    for by in groups.values():
        stall = ic(by[""])
        drops = [(ic(by[v]) - stall, label) for v, label in MECHS if v in by]
        d, label = min(drops)
        if d < -5e-5:
            count[label] = count.get(label, 0) + 1
    parts = ["%s %d" % (label, count[label]) for _, label in MECHS if label in count]
    return "Largest drop, cases per mechanism (of %d): %s." % (len(groups), ", ".join(parts) or "none")


def network_findings(inst, ours):
    out = ["| job | against | model | slowdown T(RUN1) / T(single) | network stall | Stash % | "
           "job's own stack: slowdown | Stash % |",
           "|---|---|---|---:|---:|---:|---:|---:|"]
    own = {(r["platform"], r["instances"], r["workload"]): r for r in ours}
    best = {}
    for r in inst:
        if r.get("stash.single_instance_same_gpus") != "true":
            continue
        slow = fnum(r, "stash.run1_s") / fnum(r, "stash.single_instance_s")
        key = config(r)
        if key not in best or slow > best[key][0]:
            best[key] = (slow, r)
    for cfg, (slow, r) in sorted(best.items(), key=lambda kv: -kv[1][0]):
        o = own.get((r["platform"], r["instances"], r["workload"]))
        cells = ("%.2fx | %s" % (fnum(o, "stash.run1_s") / fnum(o, "stash.single_instance_s"),
                                 pct(fnum(o, "stash.network_stall_pct")))) if o else "- | -"
        out.append("| %s | %s (%s GPUs) | %s | %.2fx | %s ms | %s | %s |" % (
            cfg, r["stash.single_instance"], r["stash.single_instance_gpus"], r["workload"], slow,
            ms(fnum(r, "stash.network_stall_s")), pct(fnum(r, "stash.network_stall_pct")), cells))
    return out


def cost_findings(inst):
    """Pairs of configurations where the one that costs more per hour trains an epoch slower."""
    out = ["| model | costs more per hour, yet slower | than | first epoch (min) | $ per first epoch |",
           "|---|---|---|---:|---:|"]
    npairs = 0
    groups = {}
    for r in inst:
        groups.setdefault(r["workload"], []).append(r)
    for model, rows in groups.items():
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
            out.append("| %s | %s ($%.2f/h) | %s ($%.2f/h) | %.1f vs %.1f | %.2f vs %.2f |" % (
                model, config(a), fnum(a, "price_usd_per_h") * int(a["instances"]), config(b),
                fnum(b, "price_usd_per_h") * int(b["instances"]), fnum(a, "epoch_s") / 60, fnum(b, "epoch_s") / 60,
                fnum(a, "cost_usd_per_epoch"), fnum(b, "cost_usd_per_epoch")))
    return out, npairs


def cheapest(inst):
    out = ["| model | fastest first epoch (RUN2) | cheapest first epoch (RUN2) | cheapest cached epoch (RUN3) |",
           "|---|---|---|---|"]
    groups = {}
    for r in inst:
        groups.setdefault(r["workload"], []).append(r)
    for model, rows in groups.items():
        fast = min(rows, key=lambda r: (fnum(r, "epoch_s"), int(r["run"])))
        cheap = min(rows, key=lambda r: (fnum(r, "cost_usd_per_epoch"), int(r["run"])))
        warm = min(rows, key=lambda r: (fnum(r, "stash.run3_cost_usd_per_epoch"), int(r["run"])))
        out.append("| %s | %s, %.1f min ($%.2f) | %s, $%.2f (%.1f min) | %s, $%.2f (%.1f min) |" % (
            model, config(fast), fnum(fast, "epoch_s") / 60, fnum(fast, "cost_usd_per_epoch"), config(cheap),
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
            out.append("| %s | %d of %d | %s, %s |" % (label, len(hits), len(inst), config(r), r["workload"]))
    return out


def negative_prep(inst):
    """The runs whose cached real-data run (RUN3) is faster than the synthetic one (RUN1)."""
    return [r for r in inst if fnum(r, "stash.prep_stall_s") < 0]


def batch_table(batches):
    sizes = sorted({int(r["batch_per_gpu"]) for r in batches})
    out = ["| instance | model | " + " | ".join("batch %s" % b for b in sizes) + " |",
           "|---|---|" + "---:|" * len(sizes)]
    groups = {}
    for r in batches:
        groups.setdefault((config(r), r["workload"]), {})[int(r["batch_per_gpu"])] = r
    for (cfg, model), by in groups.items():
        cells = ["%s ms, %s" % (ms(fnum(by[b], "stash.interconnect_stall_s")),
                                pct(fnum(by[b], "stash.interconnect_stall_pct"))) if b in by else "-" for b in sizes]
        out.append("| %s | %s | %s |" % (cfg, model, " | ".join(cells)))
    return out


def scaling_table(rows):
    counts = sorted({int(r["instances"]) for r in rows})
    out = ["| instance | model | " + " | ".join("x %d" % n for n in counts) + " |",
           "|---|---|" + "---:|" * len(counts)]
    groups = {}
    for r in rows:
        groups.setdefault((r["platform"], r["workload"]), {})[int(r["instances"])] = r
    for (plat, model), by in groups.items():
        base = fnum(by[counts[0]], "throughput_samples_per_s") if counts[0] in by else None
        cells = []
        for n in counts:
            if n not in by:
                cells.append("-")
                continue
            t = fnum(by[n], "throughput_samples_per_s")
            cells.append("%.0f (%.2fx)" % (t, t / base) if base else "%.0f" % t)
        out.append("| %s | %s | %s |" % (plat, model, " | ".join(cells)))
    return out


def doc(binary, path, inst_csv, batch_csv, scaling_csv, mech_csv, ours_csv):
    try:
        stalls = categories(binary, STALLS)
    except CategoryError as e:
        die(str(e))
    inst = ok(read(inst_csv))
    batches_all = read(batch_csv)
    batches = ok(batches_all, memory=True)
    too_big = fits(batches_all)
    scaling = ok(read(scaling_csv))
    mech = ok(read(mech_csv))
    ours = ok(read(ours_csv))
    costs, npairs = cost_findings(inst)
    tops = set()
    for fam in FAMILIES:
        some = [r for r in multi_gpu_single(inst + batches) if family(r) == fam]
        if some:
            t = top_interconnect(some)
            tops.add((t["platform"], t["workload"], t["batch_per_gpu"]))
    neg = negative_prep(inst)
    lines = [REPORT.begin, "",
             "### Interconnect stall",
             "",
             "The largest interconnect stall (Stash's: T(RUN1) - T(RUN0), in percent of T(RUN1)) over every",
             "single-instance run with more than one GPU, at Stash's batch sizes and in the batch sweep:",
             ""] + interconnect_findings(inst, batches) + [
             "",
             "### Which mechanism carries the interconnect stall",
             "",
             "Each multi-GPU instance, model and batch of `mechanisms.csv`: the interconnect stall with Stash's",
             "stack (ms per iteration and Stash's percent), then how much it changes (ms) when one mechanism is",
             "switched off (`--no-launch`, `--no-framework`, `--no-staging`; `--ddp pytorch`: DDP's 25 MiB",
             "buckets instead of one allreduce per tensor; `--metric-allreduces 0`; `--synthetic-sample-bytes 1`:",
             "the synthetic batch copied almost empty), the one whose removal lowers it most (its share of the",
             "stall), and the stall itself with the job's own stack (`--stash-stack ours`) and with `--ideal`",
             "(ms). The changes do not add up: the mechanisms overlap one another.",
             "",
             mechanism_counts(mech),
             "",
             ] + mechanism_table(mech, tops) + [
             "",
             "### Network stall: several instances against one",
             "",
             "For each job whose GPUs exist on one instance, the model with the largest slowdown of the",
             "synthetic run over the network (RUN1) against the same GPUs on one instance (SINGLE), with",
             "Stash's stack, and the same model with the job's own stack (`--stash-stack ours`, `ours.csv`):",
             ""] + network_findings(inst, ours) + [
             "",
             "### More expensive is not always faster",
             "",
             "%d pairs of configurations (same model) where the one that costs more per hour takes longer" % npairs,
             "per epoch; the pair with the largest gap for each model:",
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
             "In %d of %d runs the cached real-data run (RUN3, DALI) is faster than the synthetic one (RUN1," % (
                 len(neg), len(inst)),
             "pageable fp32 batches): Stash's prep stall RUN3 - RUN1 is negative, shown as 0% (Stash's `max(0, ...)`).",
             "",
             "### Interconnect stall against batch size",
             "",
             "Per iteration and in Stash's percent, single instances, every model, from `batches.csv`%s" % (
                 ":" if not too_big else " (%d runs do not fit in the GPU's memory and are left out: %s):" % (
                     len(too_big), ", ".join(too_big))),
             "",
             "<details><summary>table</summary>",
             ""] + batch_table(batches) + [
             "",
             "</details>",
             "",
             "### Scaling to 8 instances",
             "",
             "Throughput in samples/s (speed-up over one instance) of the real job with the default page",
             "cache and the options of Stash's stack, from `scaling.csv` (figure above):",
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
             "<details><summary>table</summary>",
             ""] + table(inst, stalls) + [
             "",
             "</details>",
             "",
             REPORT.end]
    REPORT.replace_generated(path, lines[1:-1])


def main(argv):
    help_version(__file__, __doc__, argv)
    binary = default_bin()
    if len(argv) >= 2 and argv[0] == "--bin":
        binary, argv = argv[1], argv[2:]
    if len(argv) >= 3 and argv[0] == "merge":
        merge(argv[1], argv[2:])
    elif len(argv) >= 2 and argv[0] == "largest":
        for case in largest(argv[1:]):
            print(case)
    elif len(argv) == 7 and argv[0] == "doc":
        doc(binary, *argv[1:])
    else:
        die("usage: stash-study-report.py [--bin STASH_SIM] merge OUT.csv IN.csv... | largest CSV... | "
            "doc DOC.md INSTANCES.csv BATCHES.csv SCALING.csv MECHANISMS.csv OURS.csv")


if __name__ == "__main__":
    main(sys.argv[1:])
