#!/usr/bin/env python3
"""whatif-study-report.py: tables of docs/whatif.md from docs/whatif/whatif.csv
(scripts/whatif-study).

  whatif-study-report.py WHATIF.csv DOC.md   rewrites the part of DOC.md between the markers

Standard library only; the output depends on the CSV alone.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from studylib import Report, help_version  # noqa: E402

REPORT = Report("whatif-study")
die = REPORT.die


def comm_share(r, side):
    it = float(r[side + ".iteration_s"])
    return (float(r[side + ".breakdown.interconnect_stall_s"]) + float(r[side + ".breakdown.network_stall_s"])) / it


def main(argv):
    help_version(__file__, __doc__, argv)
    if len(argv) != 2:
        die("usage: whatif-study-report.py WHATIF.csv DOC.md")
    rows = REPORT.read_csv(argv[0], require_ok=False)
    out = ["", "### 25 to 100 Gb/s Ethernet (4 x p3.16xlarge)", "",
           "| model | precision | gradients | communication in the base | speedup |", "|---|---|---|---:|---:|"]
    nic = [r for r in rows if r["question"] == "nic"]
    for r in nic:
        out.append("| %s | %s | %s | %.0f%% | x%.2f |" % (r["model"], r["precision"], r["base_arch"],
                                                       100 * comm_share(r, "base"), float(r["speedup"])))
    heavy = [r for r in nic if comm_share(r, "base") >= 0.5]
    if heavy:
        mean_s = sum(float(r["speedup"]) for r in heavy) / len(heavy)
        mean_c = sum(comm_share(r, "base") for r in heavy) / len(heavy)
        out += ["", "Over the %d configurations whose base spends at least half of the iteration communicating "
                "(%.0f%% on average), the mean speedup is x%.2f; PAI measured x1.7 with communication at 62%%." % (
                    len(heavy), 100 * mean_c, mean_s)]
    out += ["", "### Parameter server to allreduce over NVLink (one p3.16xlarge)", "",
            "| model | precision | communication with the server | with allreduce | speedup |",
            "|---|---|---:|---:|---:|"]
    for r in rows:
        if r["question"] == "ps2ar":
            out.append("| %s | %s | %.0f%% | %.0f%% | x%.2f |" % (r["model"], r["precision"], 100 * comm_share(r, "base"),
                                                               100 * comm_share(r, "changed"), float(r["speedup"])))
    out += [""]
    REPORT.replace_generated(argv[1], out)


if __name__ == "__main__":
    main(sys.argv[1:])
