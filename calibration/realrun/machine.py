#!/usr/bin/python3
"""A stash-sim platform file for "this machine running 2 CPU training processes" (calibration/realrun).

(Not named machine.py: a script's directory comes first on sys.path, and that name would hide
Python's own platform module from every import in train.py and torch.)

  machine.py --workload workload.json --allreduce allreduce.csv -o machine.xml [--bench STASH_SIM]

Reads the workload that workload.py measured (its reference device is this machine's core) and
the gloo allreduce sweep of train.py --allreduce-sweep, and writes a platform (docs/formats.md):
  - gpu0, gpu1: the two training processes, one core each (one torch thread). Their speed and
    gpu_model are the workload's reference gpu_flops and gpu_model, so the simulator runs the
    measured layer times unscaled (ratio 1). With one torch thread (the default) they carry
    compute_on="cpu": their work runs on the cpu host's cores, where it competes with the loader
    processes as on the real machine (docs/model.md, "CPU training");
  - cpu: all the vCPUs (1Gf = one core of this machine, where the preparation time was measured),
    shared by the training processes and the loaders. With --threads above 1 a training process
    is several cores, which one "GPU" execution cannot be: the training processes then keep their
    own hosts, and the cpu host gets the vCPUs they leave over (all of them when that is less than
    one per training process, which makes loading optimistic);
  - disk "pagecache": an ESTIMATE; the runs use --cache 1 (the images were just written, they are
    in the page cache, and reading them from there is part of the measured preparation time), so
    the disk is never read;
  - link "loopback" between gpu0 and gpu1 (SPLITDUPLEX: each direction its own bandwidth), fitted to
    the sweep: a 2-rank ring allreduce of S bytes is 2 steps of S/2 bytes (reduce-scatter, then
    allgather), t(S) = 2 (alpha + S / (2 B)) = 2 alpha + S / B, which is exactly what stash-sim's
    ring gives on one link of latency alpha and bandwidth B (docs/model.md). (2 alpha, 1 / B) is the
    least-squares fit of t(S) = a + b S to the median times, weighted by 1 / t^2 so that every
    size counts by its relative error; points more than 3 x the median relative residual off
    (at most a quarter of them) are dropped once and the fit is repeated;
  - links "handoff_gpuI" (cpu -> gpuI): a DataLoader worker hands its batch to the training process
    through shared memory (no device copy on a CPU run): an ESTIMATE of 20 GB/s and 5 us makes it
    negligible, as it is.
With --bench, runs `STASH_SIM bench allreduce` on the new file over the sweep's sizes and prints the
simulated time beside the measured one with the error per size.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import statistics

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

HANDOFF_BPS = 20e9
HANDOFF_LATENCY_US = 5
PAGECACHE_BPS = 5e9


def read_sweep(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    pts = [(int(r["bytes"]), float(r["seconds"])) for r in rows]
    if len(pts) < 3:
        sys.exit("machine.py: %s: need at least 3 sizes, got %d" % (path, len(pts)))
    return pts


def wls(pts):
    """(a, b) minimising sum(((a + b S - t) / t)^2); a is clamped at 0 (then b refitted)."""
    w = [1 / (t * t) for _, t in pts]
    sw = sum(w)
    sx = sum(wi * s for wi, (s, _) in zip(w, pts))
    sy = sum(wi * t for wi, (_, t) in zip(w, pts))
    sxx = sum(wi * s * s for wi, (s, _) in zip(w, pts))
    sxy = sum(wi * s * t for wi, (s, t) in zip(w, pts))
    det = sw * sxx - sx * sx
    a = (sy * sxx - sx * sxy) / det
    b = (sw * sxy - sx * sy) / det
    if a < 0:
        a, b = 0.0, sxy / sxx
    if b <= 0:
        sys.exit("machine.py: the sweep's times do not grow with the size: no bandwidth to fit")
    return a, b


def fit(pts):
    """The fit and the sizes it dropped as outliers."""
    a, b = wls(pts)
    res = [abs((a + b * s - t) / t) for s, t in pts]
    cut = 3 * statistics.median(res)
    worst = sorted(range(len(pts)), key=lambda i: -res[i])[:len(pts) // 4]
    drop = sorted(i for i in worst if res[i] > cut)
    if drop:
        a, b = wls([p for i, p in enumerate(pts) if i not in drop])
    return a / 2, 1 / b, [pts[i][0] for i in drop]


def meminfo_gib():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) / 2**20
    except OSError:
        pass
    return 0


def xml_attr(s):
    return s.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace("--", "- -")


def render(work, alpha, bw, dropped, args, vcpus, cpu):
    ref = work["reference"]
    gpu_model, speed = ref["gpu_model"], int(round(ref["gpu_flops"]))
    train_cores = args.procs * args.threads
    on_cpu = args.threads == 1
    shared = not on_cpu and vcpus - train_cores < args.procs
    loader_cores = vcpus if on_cpu or shared else vcpus - train_cores
    compute_on = '      <prop id="compute_on" value="cpu"/>\n' if on_cpu else ""

    sweep = os.path.relpath(args.allreduce) if not os.path.isabs(args.allreduce) else args.allreduce
    dropped_txt = ("; dropped as outliers: " + ", ".join("%d" % s for s in dropped)) if dropped else "; no outlier dropped"
    gpus = "".join(
        '    <host id="gpu%d" speed="%df">\n'
        '      <prop id="role" value="gpu"/>\n'
        '      <prop id="gpu_model" value="%s"/>\n'
        '%s'
        '    </host>\n' % (i, speed, xml_attr(gpu_model), compute_on) for i in range(args.procs))
    links = "".join(
        '    <link id="handoff_gpu%d" bandwidth="%dBps" latency="%dus" sharing_policy="SPLITDUPLEX">\n'
        '      <prop id="class" value="pcie"/>\n'
        '    </link>\n' % (i, HANDOFF_BPS, HANDOFF_LATENCY_US) for i in range(args.procs))
    pair_links = []
    routes = []
    for i in range(args.procs):
        for j in range(i + 1, args.procs):
            name = "loopback" if args.procs == 2 else "loopback_%d_%d" % (i, j)
            pair_links.append(
                '    <link id="%s" bandwidth="%dBps" latency="%.3fus" sharing_policy="SPLITDUPLEX">\n'
                '      <prop id="class" value="socket"/>\n'
                '    </link>\n' % (name, round(bw), alpha * 1e6))
            routes.append('    <route src="gpu%d" dst="gpu%d"><link_ctn id="%s" direction="UP"/></route>\n' % (i, j, name))
    for i in range(args.procs):
        routes.append('    <route src="cpu" dst="gpu%d"><link_ctn id="handoff_gpu%d" direction="DOWN"/></route>\n' % (i, i))
    if on_cpu:
        cpu_note = (f"cpu host: all {vcpus} vCPUs -> core={loader_cores}, shared by the {args.procs} training processes "
                    "(their GPU hosts compute_on=cpu: one core each) and the loader processes, as on this machine.")
    else:
        cpu_note = (f"cpu host: the loaders' cores = {vcpus} vCPUs - {train_cores} used by the training processes "
                    f"= {vcpus - train_cores} -> core={loader_cores}.")
        if shared:
            cpu_note += (" Fewer than one per training process: all %d vCPUs are given to the loaders instead, "
                         "which makes loading optimistic (the training processes of several threads keep their own "
                         "hosts)." % vcpus)
    return f"""<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <!-- generated by calibration/realrun/machine.py; rerun calibration/realrun/run.sh, do not edit -->
  <!-- This machine ({xml_attr(cpu)}, {vcpus} vCPUs) running {args.procs} CPU training processes of calibration/realrun/train.py (PyTorch DDP, gloo over loopback), {args.threads} torch thread(s) each. MEASURED: {xml_attr(args.workload)} (workload.py) and {xml_attr(sweep)} (train.py allreduce-sweep). -->
  <zone id="realrun" routing="Full">
    <prop id="instance_type" value="realrun-local"/>
    <!-- price 0: not a cloud instance. network_gbps: this machine has no NIC in the job (one "instance", no routes to a NIC, so instances must stay 1); the format needs a positive figure and the simulator reads it from the NIC links only, so 1 is a placeholder -->
    <prop id="price_usd_per_h" value="0"/>
    <prop id="vcpus" value="{vcpus}"/>
    <prop id="memory_gib" value="{meminfo_gib():.1f}"/>
    <prop id="network_gbps" value="1"/>
    <!-- {cpu_note} 1Gf = one core of this machine, where prep_cpu_s_per_sample was measured. Disk pagecache: ESTIMATE {PAGECACHE_BPS / 1e9:g} GB/s, never read with cache 1 (the images are in the page cache and reading them from there is part of the measured preparation). -->
    <host id="cpu" speed="1Gf" core="{loader_cores}">
      <prop id="role" value="cpu"/>
      <disk id="pagecache" read_bw="{PAGECACHE_BPS:.0f}Bps" write_bw="{PAGECACHE_BPS:.0f}Bps"/>
    </host>
    <!-- GPU hosts: one training process each, {args.threads} torch thread(s). speed {speed}f and gpu_model = the workload's reference device (MEASURED by workload.py: forward + backward FLOPs / seconds on one core), so layer times run unscaled -->
{gpus}    <!-- handoff_gpuI: a DataLoader worker hands its batch to the training process through shared memory; nothing is copied to a device on a CPU run. ESTIMATE {HANDOFF_BPS / 1e9:g} GB/s, {HANDOFF_LATENCY_US} us: negligible, as it is -->
{links}    <!-- loopback: gloo over TCP on lo between the training processes. FITTED to the allreduce sweep (median of each size, 2 ranks): t(S) = 2 (alpha + S / (2 B)) = 2 alpha + S / B, weighted least squares on relative error: alpha = {alpha * 1e6:.3f} us, B = {bw / 1e9:.4f} GB/s ({len(args.sizes)} sizes {args.sizes[0]}..{args.sizes[-1]} bytes{dropped_txt}). SPLITDUPLEX: each direction has B; UP = gpu i to gpu j, i < j -->
{"".join(pair_links)}{"".join(routes)}  </zone>
</platform>
"""


def bench(binary, xml, pts):
    out = subprocess.run([binary, "bench", "allreduce", xml, "--min-bytes", str(pts[0][0]), "--max-bytes",
                          str(pts[-1][0]), "--format", "csv"], check=True, capture_output=True, text=True).stdout
    sim = {int(r["size_bytes"]): float(r["time_s"]) for r in csv.DictReader(out.splitlines())}
    print("%10s %12s %12s %8s" % ("bytes", "measured_us", "simulated_us", "error"))
    errs = []
    for s, t in pts:
        if s in sim:
            e = sim[s] / t - 1
            errs.append(abs(e))
            print("%10d %12.1f %12.1f %+7.1f%%" % (s, t * 1e6, sim[s] * 1e6, 100 * e))
    print("median |error| %.1f%%, max %.1f%%" % (100 * statistics.median(errs), 100 * max(errs)))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--workload", required=True, help="workload.json written by workload.py")
    p.add_argument("--allreduce", required=True, help="allreduce.csv written by train.py --allreduce-sweep")
    p.add_argument("-o", "--output", required=True, help="platform file to write")
    p.add_argument("--procs", type=int, default=2, help="training processes (default 2)")
    p.add_argument("--threads", type=int, default=1, help="torch threads per training process (default 1)")
    p.add_argument("--bench", metavar="STASH_SIM", help="check the file with STASH_SIM bench allreduce")
    args = p.parse_args()
    import train  # only for the machine's description (cheap; torch is imported anyway)
    with open(args.workload) as f:
        work = json.load(f)
    pts = read_sweep(args.allreduce)
    args.sizes = [s for s, _ in pts]
    alpha, bw, dropped = fit(pts)
    text = render(work, alpha, bw, dropped, args, train.vcpus(), train.cpu_model())
    with open(args.output, "w") as f:
        f.write(text)
    print("machine.py: %s: loopback alpha %.1f us, B %.3f GB/s (2-rank ring: t = 2 alpha + S / B)%s"
          % (args.output, alpha * 1e6, bw / 1e9, "; outliers dropped: %s" % dropped if dropped else ""))
    if args.bench:
        bench(args.bench, args.output, pts)


if __name__ == "__main__":
    main()
