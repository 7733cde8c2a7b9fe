#!/usr/bin/env python3
"""ps-study-report.py: figures and tables of docs/ps.md from the CSVs of scripts/ps-study.

  ps-study-report.py OUTDIR DOC.md

reads OUTDIR/servers.csv and OUTDIR/init.csv, writes OUTDIR/servers.{dat,gp,png,svg} and
OUTDIR/init.{dat,gp,png,svg} (gnuplot), and rewrites the part of DOC.md between the markers.
Standard library and gnuplot only; the output depends on the CSVs alone.
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from studylib import Report, help_version, replace_file  # noqa: E402

REPORT = Report("ps-study")
die = REPORT.die


def series(rows, key):
    """{series value: [(workers, row)]}, in the CSV's order."""
    out = {}
    for r in rows:
        out.setdefault(r[key], []).append((int(r["gpus"]), r))
    return out


def gnuplot(outdir, name, dat, script):
    """NAME.dat and NAME.gp written, and gnuplot run, in a staging folder inside outdir; the four
    files then renamed into outdir: a failed or interrupted run leaves the earlier ones as they were
    and no half-drawn PNG or SVG."""
    stage = tempfile.mkdtemp(dir=outdir, prefix=".ps-study.")
    try:
        replace_file(os.path.join(stage, name + ".dat"), dat)
        replace_file(os.path.join(stage, name + ".gp"), script)
        r = subprocess.run(["gnuplot", name + ".gp"], cwd=stage, capture_output=True, text=True)
        if r.returncode != 0:
            die("gnuplot %s.gp: %s" % (name, r.stderr.strip()))
        mask = os.umask(0)
        os.umask(mask)
        for ext in ("dat", "gp") + tuple(e for _, e in TERMS):
            f = os.path.join(stage, name + "." + ext)
            os.chmod(f, 0o666 & ~mask)
            os.replace(f, os.path.join(outdir, name + "." + ext))
    finally:
        shutil.rmtree(stage, ignore_errors=True)


TERMS = [("pngcairo", "png"), ("svg", "svg")]


def plot(outdir, name, by, header, point, settings, plots):
    """NAME.dat, a block per series of by (each headed by header(key), a line point(workers, row)
    per point), and NAME.gp drawing plots with the settings, to NAME.png and NAME.svg."""
    dat = "".join(
        "# %s\n" % header(k) + "".join(point(n, r) + "\n" for n, r in pts) + "\n\n" for k, pts in by.items())
    script = "".join(
        "set terminal %s noenhanced size 800,520 font 'DejaVu Sans,11' background '#ffffff'\n"
        "set output '%s.%s'\n%sset grid\nplot %s\nunset output\n" % (term, name, ext, settings, plots)
        for term, ext in TERMS)
    gnuplot(outdir, name, dat, script)


def plot_servers(outdir, rows):
    by = series(rows, "servers")
    plots = ", ".join("'servers.dat' index %d using 1:2 with linespoints lw 2 pt 7 title '%s server%s'"
                      % (i, k, "" if k == "1" else "s") for i, k in enumerate(by))
    plot(outdir, "servers", by, lambda k: "%s server(s): workers, samples/s" % k,
         lambda n, r: "%d\t%s" % (n, r["throughput_samples_per_s"]),
         "set title 'ASGD with parameter servers: throughput against workers (MobileNetV2, p3.2xlarge workers)'\n"
         "set xlabel 'workers (one V100 each)'\nset ylabel 'samples/s'\nset logscale x 2\nset key top left\n", plots)


def plot_init(outdir, rows):
    by = series(rows, "init_io")
    plots = []
    for i, mode in enumerate(by):
        plots.append("'init.dat' index %d using 1:2 with linespoints lw 2 pt 7 title '%s start-up'" % (i, mode))
    plots.append("'init.dat' index 0 using 1:3 with linespoints lw 2 pt 5 dt 2 title 'training (1e6 samples)'")
    plot(outdir, "init", by, lambda mode: "%s start-up: workers, start-up s, training s" % mode,
         lambda n, r: "%d\t%s\t%.9g" % (n, r["init_s"], float(r["time_to_train_s"]) - float(r["init_s"])),
         "set title 'Start-up reads from shared storage against training time (8 servers)'\n"
         "set xlabel 'workers (one V100 each)'\nset ylabel 'seconds'\nset logscale x 2\nset logscale y\n"
         "set key top center\n", ", ".join(plots))


def tables(servers, init):
    by = series(servers, "servers")
    counts = [n for n, _ in next(iter(by.values()))]
    out = ["Throughput in samples/s (per-worker staleness on average) against workers:", "",
           "| servers | " + " | ".join("%d workers" % n for n in counts) + " |",
           "|---|" + "---:|" * len(counts)]
    for k, pts in by.items():
        cells = ["%.0f (%.1f)" % (float(r["throughput_samples_per_s"]), float(r["staleness_mean"])) for _, r in pts]
        out.append("| %s | %s |" % (k, " | ".join(cells)))
    one = by.get("1", [])
    for (n, a), (m, b) in zip(one, one[1:]):
        gain = float(b["throughput_samples_per_s"]) / float(a["throughput_samples_per_s"])
        if m == 2 * n and gain < 1.2:
            out += ["", "With one server, throughput stops growing past %d workers: x%.2f from %d to %d workers "
                    "(%.0f to %.0f samples/s)." % (n, gain, n, m, float(a["throughput_samples_per_s"]),
                                                   float(b["throughput_samples_per_s"]))]
            break
    out += ["", "Start-up (8 servers) and its share of the time to train 1e6 samples:", "",
            "| start-up | " + " | ".join("%d workers" % n for n, _ in next(iter(series(init, "init_io").values())))
            + " |", "|---|" + "---:|" * len(counts)]
    for mode, pts in series(init, "init_io").items():
        cells = ["%.1f s (%.0f%%)" % (float(r["init_s"]), 100 * float(r["init_s"]) / float(r["time_to_train_s"]))
                 for _, r in pts]
        out.append("| %s | %s |" % (mode, " | ".join(cells)))
    return out


def main(argv):
    help_version(__file__, __doc__, argv)
    if len(argv) != 2:
        die("usage: ps-study-report.py OUTDIR DOC.md")
    outdir, doc = argv
    servers = REPORT.read_csv(os.path.join(outdir, "servers.csv"))
    init = REPORT.read_csv(os.path.join(outdir, "init.csv"))
    plot_servers(outdir, servers)
    plot_init(outdir, init)
    REPORT.replace_generated(doc, [""] + tables(servers, init) + [""])


if __name__ == "__main__":
    main(sys.argv[1:])
