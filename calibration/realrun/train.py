#!/usr/bin/python3
"""A real data-parallel training run on this machine, CPU only, for calibration/realrun/run.sh.

Trains a small CNN on JPEG images that it generates once into a directory (so that the loader
really opens and decodes files), with DistributedDataParallel over loopback (gloo backend),
one training process per rank, each with a fixed number of torch threads (default 1: a training
process is one core). Writes the measured wall time of every step, and optionally a PyTorch
profiler (Kineto) trace of rank 0 and a gloo allreduce sweep.

Needs only python3, torch, torchvision and PIL (Debian: python3-torch python3-torchvision
python3-pil). Run it with the system python, /usr/bin/python3.

  train.py --data DIR --out DIR [--batch 32] [--workers 1] [--steps 20] [--profile]
  train.py --data DIR --out DIR --allreduce-sweep
  train.py --data DIR --out DIR --measure-handoff [--batch 32] [--workers 1]
  train.py --data DIR --images N --out DIR --generate-only

Outputs in --out:
  steps.csv      rank,step,phase,seconds,data_wait_s: one row per step and rank; phase is warmup,
                 measured or profiled (the profiled steps, and one step of the profiler's
                 warm-up, come after the measured ones, so the profiler's overhead never enters
                 the measured steps); seconds is the wall time
                 from the end of the previous step to the end of this one (time.perf_counter), so
                 it includes the wait for the batch (data_wait_s: the time in next() alone)
  trace.json     with --profile: Chrome trace of rank 0 (torch.profiler, CPU activities,
                 record_shapes): ProfilerStep#N spans, forward/backward ops with their input
                 shapes, the DataLoader __next__ spans, DDP's allreduces
  allreduce.csv  with --allreduce-sweep: bytes,seconds,seconds_min,seconds_mean,samples: median
                 (minimum, mean) time of one dist.all_reduce of a float32 tensor of that many
                 bytes between the ranks, 4 KiB to 64 MiB in powers of 2
  handoff.csv    with --measure-handoff (one process, --workers at least 1): rep,phase,seconds,cpu_s,
                 ready,free_s: the training job's DataLoader, each next() timed (wall and CPU time of
                 this process) after spinning --handoff-wait-ms, then until the worker's result
                 queue holds a message (ready: it did before the call); the previous batch
                 is freed after the timed call (free_s). handoff.json: the summary (handoff.py),
                 handoff_us the median wall time, what run.sh passes to stash-sim as --handoff-us
  run.json       the configuration and the environment (torch version, CPU, cores)
"""
import argparse
import collections
import csv
import json
import os
import random
import socket
import statistics
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F
from PIL import Image, ImageDraw
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler
from torchvision import transforms

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import handoff  # noqa: E402  (same directory)

IMAGE_SIDE = 96  # stored JPEG side, pixels
CROP_SIDE = 64  # network input side after RandomResizedCrop
CLASSES = 10
JPEG_QUALITY = 90
MANIFEST = "manifest.json"


# ---------------------------------------------------------------- data

def _draw_image(i, seed):
    """Image i of the data set, a function of (i, seed) alone: a textured background and a few
    shapes whose kind and colour depend on the label, so the images compress like photos rather
    than like flat colour and the task is learnable."""
    rng = random.Random(seed * 1000003 + i)
    label = i % CLASSES
    base = torch.tensor([rng.randrange(256) for _ in range(3)], dtype=torch.int16)
    gen = torch.Generator().manual_seed(rng.randrange(1 << 62))
    noise = torch.randint(-40, 41, (IMAGE_SIDE, IMAGE_SIDE, 3), generator=gen, dtype=torch.int16)
    pixels = (noise + base).clamp(0, 255).to(torch.uint8)
    img = Image.frombytes("RGB", (IMAGE_SIDE, IMAGE_SIDE), pixels.numpy().tobytes())
    d = ImageDraw.Draw(img)
    hue = (label * 25 % 256, (label * 80 + 60) % 256, (255 - label * 23) % 256)
    for _ in range(3 + label % 4):
        x0, y0 = rng.randrange(IMAGE_SIDE - 16), rng.randrange(IMAGE_SIDE - 16)
        x1, y1 = x0 + rng.randrange(8, 40), y0 + rng.randrange(8, 40)
        fill = tuple(min(255, c + rng.randrange(-30, 31)) for c in hue)
        if label % 2:
            d.ellipse((x0, y0, x1, y1), fill=fill)
        else:
            d.rectangle((x0, y0, x1, y1), fill=fill)
    return img, label


def generate(data_dir, n, seed):
    """Write n JPEGs into data_dir once (deterministic from seed); a manifest records n and seed, so
    a directory made with the same ones is reused. Returns the manifest."""
    path = os.path.join(data_dir, MANIFEST)
    want = {"images": n, "seed": seed, "side": IMAGE_SIDE, "quality": JPEG_QUALITY}
    if os.path.exists(path):
        with open(path) as f:
            have = json.load(f)
        if all(have.get(k) == v for k, v in want.items()):
            return have
    os.makedirs(data_dir, exist_ok=True)
    files = []
    for i in range(n):
        img, label = _draw_image(i, seed)
        name = "img%06d_c%d.jpg" % (i, label)
        img.save(os.path.join(data_dir, name), quality=JPEG_QUALITY)
        files.append([name, label])
    want["files"] = files
    with open(path + ".tmp", "w") as f:
        json.dump(want, f)
    os.replace(path + ".tmp", path)
    return want


def make_transform():
    """The per-sample CPU work after decoding, as an ImageNet training pipeline does it."""
    return transforms.Compose([
        transforms.RandomResizedCrop(CROP_SIDE, scale=(0.35, 1.0)),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize((0.5, 0.5, 0.5), (0.25, 0.25, 0.25)),
    ])


class ImageFiles(Dataset):
    """The generated images: each item opens its file, decodes it with PIL and transforms it."""

    def __init__(self, data_dir, transform=None):
        with open(os.path.join(data_dir, MANIFEST)) as f:
            self.files = json.load(f)["files"]
        self.dir = data_dir
        self.transform = transform or make_transform()

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        name, label = self.files[i]
        with open(os.path.join(self.dir, name), "rb") as f:
            img = Image.open(f).convert("RGB")
        return self.transform(img), label


class Zeros(Dataset):
    """Samples of `tensors` float32 tensors of `floats` elements each (zeros: nothing to prepare),
    as many as ImageFiles holds: for --measure-handoff over other tensor counts and sizes."""

    def __init__(self, size, tensors, floats):
        self.size, self.tensors, self.floats = size, tensors, floats

    def __len__(self):
        return self.size

    def __getitem__(self, i):
        return [torch.zeros(self.floats) for _ in range(self.tensors)]


# ---------------------------------------------------------------- model

def _conv_block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU(inplace=True), nn.MaxPool2d(2))


class SmallCNN(nn.Module):
    """Four conv blocks (conv 3x3, BatchNorm, ReLU, max-pool 2) and two fully connected layers:
    2.21 M parameters, most of them in fc1, so that DDP has two buckets (fc2+fc1 first, 1 MiB cap,
    then the convs) and the first overlaps the convs' backward. self.blocks is the layer list of
    the workload: one entry per block, in forward order."""

    def __init__(self):
        super().__init__()
        side = CROP_SIDE // 16
        self.blocks = nn.Sequential(collections.OrderedDict([
            ("conv1", _conv_block(3, 16)),
            ("conv2", _conv_block(16, 32)),
            ("conv3", _conv_block(32, 64)),
            ("conv4", _conv_block(64, 128)),
            ("fc1", nn.Sequential(nn.Flatten(), nn.Linear(128 * side * side, 1024), nn.ReLU(inplace=True))),
            ("fc2", nn.Linear(1024, CLASSES)),
        ]))

    def forward(self, x):
        return self.blocks(x)


def forward_flops_per_sample(model):
    """Multiply-adds x 2 of the convolutions and linear layers of one sample, per block."""
    flops = collections.OrderedDict()
    side = CROP_SIDE
    for name, blk in model.blocks.named_children():
        f = 0
        for m in blk.modules() if isinstance(blk, nn.Sequential) else [blk]:
            if isinstance(m, nn.Conv2d):
                f += 2 * side * side * m.out_channels * m.in_channels * m.kernel_size[0] * m.kernel_size[1]
            elif isinstance(m, nn.Linear):
                f += 2 * m.in_features * m.out_features
            elif isinstance(m, nn.MaxPool2d):
                side //= 2
        flops[name] = f
    return flops


def make_optimizer(model):
    return torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9, weight_decay=5e-4)


def set_threads(n):
    """A training process computes on n threads (intra-op) and one inter-op thread."""
    torch.set_num_threads(n)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:
        pass  # already set in this process


# ---------------------------------------------------------------- environment

def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def vcpus():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def environment():
    blas = "/usr/lib/x86_64-linux-gnu/libblas.so.3"
    return {"torch": torch.__version__, "python": sys.version.split()[0], "cpu_model": cpu_model(),
            "vcpus": vcpus(), "loadavg_before": os.getloadavg()[0],
            "blas": os.path.realpath(blas) if os.path.exists(blas) else "unknown"}


def busy_cpu_s():
    """CPU seconds this machine's CPUs have spent on anything but idling and waiting for I/O since
    boot (/proc/stat), or None where there is no /proc/stat."""
    try:
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    # user nice system idle iowait irq softirq steal (guest time is counted in user already)
    return (sum(v[:8]) - v[3] - v[4]) / os.sysconf("SC_CLK_TCK")


def own_cpu_s():
    """CPU seconds of this process and of its descendants that have been waited for (the ranks,
    and through them their DataLoader workers)."""
    import resource
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on now (the kernel's choice)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _init(rank, args, port):
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    set_threads(args.threads)
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port, rank=rank,
                            world_size=args.nprocs)


# ---------------------------------------------------------------- training

def _loader(args, rank, dataset):
    sampler = DistributedSampler(dataset, num_replicas=args.nprocs, rank=rank, shuffle=True,
                                 seed=args.seed, drop_last=True)
    gen = torch.Generator()
    gen.manual_seed(args.seed + rank)
    kw = {"persistent_workers": True} if args.workers > 0 else {}
    return sampler, DataLoader(dataset, batch_size=args.batch, sampler=sampler, num_workers=args.workers,
                               generator=gen, drop_last=True, **kw)


def export_trace(prof, path, rank, world):
    """Write the profiler's events as a Kineto trace (the layout of the traces torch.profiler writes
    where PyTorch is built with Kineto, e.g. ../shared/data/traces/*.pt.trace.json.gz):
    {"schemaVersion": 1, "traceEvents": [{"ph": "X", "cat": "Operator", "name", "pid", "tid", "ts",
    "dur", "args": {"Input Dims", "Sequence number", "Fwd thread id", "External id", ...}}]}.
    Debian's python3-torch (1.13) is built without Kineto (torch.autograd.kineto_available() is
    False), and its own export_chrome_trace then drops the input shapes; the events themselves
    (torch.profiler's, the same ones) carry them, so they are written here. Times in microseconds
    from the start of profiling; "Input type" is not recorded by that profiler."""
    pid = os.getpid()
    events = []
    for e in prof.events():
        if e.trace_name is None:
            continue
        args = {"Device": pid, "External id": e.id, "Trace name": "PyTorch Profiler", "Trace iteration": 0}
        if e.input_shapes:
            args["Input Dims"] = [list(s) for s in e.input_shapes]
        if e.sequence_nr >= 0:
            args["Sequence number"] = e.sequence_nr
            args["Fwd thread id"] = e.fwd_thread if e.fwd_thread is not None else 0
        events.append({"ph": "X", "cat": "Operator", "name": e.trace_name, "pid": pid, "tid": str(e.thread),
                       "ts": round(e.time_range.start, 3), "dur": round(e.time_range.elapsed_us(), 3),
                       "args": args})
    events.sort(key=lambda ev: (ev["ts"], -ev["dur"]))
    doc = {"schemaVersion": 1, "distributedInfo": {"backend": "gloo", "rank": rank, "world_size": world},
           "traceSource": "calibration/realrun/train.py: torch %s profiler events (legacy profiler, Kineto "
                          "unavailable) in the Kineto trace layout" % torch.__version__,
           "traceEvents": events}
    with open(path + ".tmp", "w") as f:
        json.dump(doc, f, separators=(",", ":"))
    os.replace(path + ".tmp", path)


def _batches(sampler, loader, total, rank):
    """total batches, starting a new epoch (sampler.set_epoch) when one runs out."""
    epoch = 0
    while True:
        sampler.set_epoch(epoch)
        for b in loader:
            yield b
            total -= 1
            if total == 0:
                return
        epoch += 1
        if rank == 0:
            print("train.py: warning: the data set ran out after %d epoch(s); the first steps of the next "
                  "one wait for the loaders (use more --images)" % epoch, file=sys.stderr)


def _phase(step, args):
    if step < args.warmup:
        return "warmup"
    return "measured" if step < args.warmup + args.steps else "profiled"


def train_rank(rank, args, port):
    _init(rank, args, port)
    torch.manual_seed(args.seed)
    model = SmallCNN()
    ddp = DistributedDataParallel(model, bucket_cap_mb=args.bucket_mb) if args.nprocs > 1 else model
    opt = make_optimizer(model)
    if args.synthetic:
        gen = torch.Generator().manual_seed(args.seed + rank)
        fixed = (torch.randn(args.batch, 3, CROP_SIDE, CROP_SIDE, generator=gen),
                 torch.randint(0, CLASSES, (args.batch,), generator=gen))
    else:
        sampler, loader = _loader(args, rank, ImageFiles(args.data))
    # After the measured steps: one step of the profiler's warm-up, then the profiled ones.
    profiled = 1 + args.profile_steps if args.profile else 0
    total = args.warmup + args.steps + profiled
    prof = None
    if args.profile and rank == 0:
        from torch.profiler import ProfilerActivity, profile, schedule
        trace = os.path.join(args.out, "trace.json")
        prof = profile(activities=[ProfilerActivity.CPU], record_shapes=True,
                       schedule=schedule(wait=args.warmup + args.steps, warmup=1, active=args.profile_steps, repeat=1),
                       on_trace_ready=lambda p: export_trace(p, trace, rank, args.nprocs))
        prof.start()
    rows = []
    batches = iter(lambda: fixed, None) if args.synthetic else _batches(sampler, loader, total, rank)
    prev = time.perf_counter()
    for step in range(total):
        x, y = next(batches)
        got = time.perf_counter()
        loss = F.cross_entropy(ddp(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        now = time.perf_counter()
        rows.append((rank, step, _phase(step, args), now - prev, got - prev))
        prev = now
        if prof:
            # Counted in the next step: starting the profiler at the end of the last measured step
            # must not slow that step down.
            prof.step()
    if prof:
        prof.stop()
    with open(os.path.join(args.out, "steps.rank%d.csv" % rank), "w", newline="") as f:
        csv.writer(f).writerows(rows)
    if args.nprocs > 1:
        dist.barrier()
        dist.destroy_process_group()


# ---------------------------------------------------------------- allreduce sweep

def sweep_sizes(lo=4096, hi=64 << 20):
    s = lo
    while s <= hi:
        yield s
        s *= 2


def sweep_rank(rank, args, port):
    """Times dist.all_reduce (sum) of float32 tensors between the ranks: after two untimed ones per
    size, each sample is one operation started after a barrier; the result is the median sample.
    One operation per sample, not the mean of back-to-back ones as nccl-tests does: on a small
    virtual machine the samples are bimodal (on the 2-vCPU machine of docs/validation.md about half
    of the operations up to 1 MiB take 3-5 ms longer than the others, a scheduler tick or the
    wake-up of an idle vCPU), and the median keeps the typical operation; the mean is written
    beside it. The sizes take turns (one sample of each, then the next round), so that a
    slow spell of the machine spreads over all sizes instead of spoiling one."""
    _init(rank, args, port)
    sizes = list(sweep_sizes())
    tensors = [torch.ones(size // 4, dtype=torch.float32) for size in sizes]
    for t in tensors:
        for _ in range(2):
            dist.all_reduce(t)
    samples = [[] for _ in sizes]
    for _ in range(args.sweep_reps):
        for k, t in enumerate(tensors):
            dist.barrier()
            t0 = time.perf_counter()
            dist.all_reduce(t)
            samples[k].append(time.perf_counter() - t0)
    if rank == 0:
        with open(os.path.join(args.out, "allreduce.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["bytes", "seconds", "seconds_min", "seconds_mean", "samples"])
            for size, v in zip(sizes, samples):
                w.writerow([size, statistics.median(v), min(v), statistics.mean(v), len(v)])
    dist.barrier()
    dist.destroy_process_group()


# ---------------------------------------------------------------- handoff

def _spin(seconds):
    """Keep this thread busy for seconds, as a training step keeps it until its next(): a sleep
    would let the vCPU idle, and its wake-up on a virtual machine would be timed as handoff."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def _batch_ready(it):
    """Whether a worker's result queue holds a message (a batch) now, or None where the iterator
    has no such queue to look at (a private attribute of torch's _MultiProcessingDataLoaderIter:
    its _data_queue, a multiprocessing queue, without pin_memory)."""
    reader = getattr(getattr(it, "_data_queue", None), "_reader", None)
    return reader.poll() if reader is not None and hasattr(reader, "poll") else None


def _wait_ready(it, seconds, cap_s=10.0):
    """Spin seconds, then on until a worker's batch is in the result queue (at most cap_s more);
    returns _batch_ready's last answer (False only past the cap)."""
    _spin(seconds)
    end = time.perf_counter() + cap_s
    ready = _batch_ready(it)
    while ready is False and time.perf_counter() < end:
        _spin(0.005)
        ready = _batch_ready(it)
    return ready


def measure_handoff(args):
    """Time the training process's next() on the DataLoader of the training job (--batch,
    --workers, the same sampler and options) when the batch is already there: before each next()
    the process spins --handoff-wait-ms, long enough for the workers to prepare their batches
    (prefetch 2 each), then on until the result queue holds one. One process, no DDP: the measurement is a calibration input, the 2-process
    runs are what is predicted. The previous batch is freed after the timed call, so the time is
    __next__'s alone: receive from the worker's queue, rebuild the tensors from shared memory
    (a file descriptor per tensor through the worker's resource sharer), send the next indices;
    the free (unmapping the shared memory) is timed apart. With --handoff-tensors K the same
    DataLoader loads samples of K zero tensors of --handoff-floats elements instead of the images,
    to see what the handoff grows with. Writes handoff.csv and handoff.json in --out; returns the
    summary."""
    set_threads(args.threads)
    ds = ImageFiles(args.data)
    if args.handoff_tensors:
        ds = Zeros(len(ds), args.handoff_tensors, args.handoff_floats)
    sampler, loader = _loader(args, 0, ds)
    sampler.set_epoch(0)
    warm = args.handoff_warmup
    total = min(warm + args.handoff_reps, len(loader))
    if total <= warm:
        sys.exit("train.py: %d batches per epoch: too few for %d warm-up repetitions (use more --images)"
                 % (len(loader), warm))
    if total < warm + args.handoff_reps:
        print("train.py: warning: %d handoff repetitions, not %d: one epoch has %d batches"
              % (total - warm, args.handoff_reps, len(loader)), file=sys.stderr)
    rows = []
    held = None
    it = iter(loader)
    for rep in range(total):
        ready = _wait_ready(it, args.handoff_wait_ms / 1e3)
        t0, c0 = time.perf_counter(), time.process_time()
        batch = next(it)
        t1, c1 = time.perf_counter(), time.process_time()
        held = batch  # frees the previous batch, outside next() and timed apart
        rows.append({"rep": rep, "phase": "warmup" if rep < warm else "measured", "seconds": t1 - t0,
                     "cpu_s": c1 - c0, "ready": ready, "free_s": time.perf_counter() - t1})
    del it, held
    handoff.write_csv(os.path.join(args.out, "handoff.csv"), rows)
    summary = handoff.summarize(rows)
    summary.update({"batch": args.batch, "workers": args.workers, "wait_ms": args.handoff_wait_ms,
                    "dataset": "zeros" if args.handoff_tensors else "images", "tensors_per_batch": len(batch),
                    "batch_bytes": sum(t.nelement() * t.element_size() for t in batch),
                    "sharing_strategy": mp.get_sharing_strategy(), "pin_memory": False})
    with open(os.path.join(args.out, "handoff.json"), "w") as f:
        json.dump(summary, f, indent=2)
    print("train.py: handoff, batch %d of %d tensor(s), %d bytes, %d worker(s): median %.0f us (p10 %.0f, p90 %.0f), "
          "CPU %.0f us, %d repetitions%s" % (args.batch, len(batch), summary["batch_bytes"], args.workers,
                                             summary["handoff_us"], summary["p10_us"], summary["p90_us"],
                                             summary["cpu_us"], summary["reps"],
                                ", %d not ready left out" % summary["not_ready"] if summary["not_ready"] else ""),
          file=sys.stderr)
    return summary


# ---------------------------------------------------------------- main

def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", required=True, help="image directory (generated there if missing)")
    p.add_argument("--images", type=int, default=4096, help="images to generate (default 4096)")
    p.add_argument("--seed", type=int, default=1, help="seed of the images, the model and the sampler")
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--nprocs", type=int, help="training processes (ranks), default 2 (1 with --measure-handoff)")
    p.add_argument("--threads", type=int, default=1, help="torch threads per training process (default 1)")
    p.add_argument("--batch", type=int, default=32, help="per-process batch (default 32)")
    p.add_argument("--workers", type=int, default=1, help="DataLoader worker processes per rank (default 1)")
    p.add_argument("--bucket-mb", type=float, default=25, help="DDP bucket cap in MiB (default 25)")
    p.add_argument("--warmup", type=int, default=5, help="steps before the measured ones (default 5)")
    p.add_argument("--steps", type=int, default=20, help="measured steps (default 20)")
    p.add_argument("--synthetic", action="store_true", help="no data loading: one fixed random batch, as benchmarks do")
    p.add_argument("--generate-only", action="store_true", help="generate the images and stop")
    p.add_argument("--profile", action="store_true",
                   help="profile rank 0 after the measured steps (one more step warms the profiler up)")
    p.add_argument("--profile-steps", type=int, default=3, help="profiled steps (default 3)")
    p.add_argument("--allreduce-sweep", action="store_true", help="time gloo allreduces instead of training")
    p.add_argument("--sweep-reps", type=int, default=30, help="samples per size of the sweep (default 30)")
    p.add_argument("--measure-handoff", action="store_true",
                   help="time next() on the DataLoader when the batch is ready, in one process, instead of training")
    p.add_argument("--handoff-reps", type=int, default=20, help="timed next() calls of --measure-handoff (default 20)")
    p.add_argument("--handoff-warmup", type=int, default=3, help="untimed next() calls before them (default 3)")
    p.add_argument("--handoff-wait-ms", type=float, default=200,
                   help="spin before each next(), for the workers to have the batch ready (default 200)")
    p.add_argument("--handoff-tensors", type=int, default=0, metavar="K",
                   help="--measure-handoff on samples of K float32 tensors of zeros instead of the images (default: the images)")
    p.add_argument("--handoff-floats", type=int, default=16, metavar="N", help="elements of each of them (default 16)")
    a = p.parse_args(argv)
    if a.nprocs is None:
        a.nprocs = 1 if a.measure_handoff else 2
    if a.nprocs < 1 or a.threads < 1 or a.batch < 1 or a.workers < 0 or a.steps < 1 or a.warmup < 1:
        p.error("--nprocs, --threads, --batch, --steps and --warmup must be at least 1, --workers at least 0")
    if a.allreduce_sweep and a.nprocs < 2:
        p.error("--allreduce-sweep needs --nprocs 2 or more")
    if a.measure_handoff and (a.nprocs != 1 or a.workers < 1 or a.synthetic or a.allreduce_sweep):
        p.error("--measure-handoff needs one process (--nprocs 1) and --workers 1 or more, without --synthetic or "
                "--allreduce-sweep")
    if a.handoff_reps < 1 or a.handoff_warmup < 0 or a.handoff_wait_ms < 0 or a.handoff_tensors < 0 or a.handoff_floats < 1:
        p.error("--handoff-reps and --handoff-floats must be at least 1, --handoff-warmup, --handoff-wait-ms and "
                "--handoff-tensors at least 0")
    return a


def main():
    args = parse_args()
    os.makedirs(args.out, exist_ok=True)
    generate(args.data, args.images, args.seed)
    if args.generate_only:
        return
    info = {"argv": sys.argv[1:], "environment": environment()}
    port = free_port()
    fn = sweep_rank if args.allreduce_sweep else train_rank
    busy0, own0 = busy_cpu_s(), own_cpu_s()
    t0 = time.perf_counter()
    if args.measure_handoff:
        measure_handoff(args)
    elif args.nprocs == 1 and not args.allreduce_sweep:
        train_rank(0, args, port)
    else:
        mp.spawn(fn, args=(args, port), nprocs=args.nprocs, join=True)
    info["wall_s"] = time.perf_counter() - t0
    if busy0 is not None:
        # Other processes' CPU time during the run: the machine's busy time minus ours. On a small
        # machine anything else running (a build, another test) slows the run down; run.sh's
        # report prints this beside the step times.
        other = max(0.0, busy_cpu_s() - busy0 - (own_cpu_s() - own0))
        info["other_cpu_s"] = other
        info["other_cpu_share"] = other / (info["wall_s"] * vcpus())
    if not args.allreduce_sweep and not args.measure_handoff:
        parts = [os.path.join(args.out, "steps.rank%d.csv" % r) for r in range(args.nprocs)]
        with open(os.path.join(args.out, "steps.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["rank", "step", "phase", "seconds", "data_wait_s"])
            for part in parts:
                with open(part, newline="") as g:
                    w.writerows(csv.reader(g))
                os.remove(part)
    with open(os.path.join(args.out, "run.json"), "w") as f:
        json.dump(info, f, indent=2)


if __name__ == "__main__":
    main()
