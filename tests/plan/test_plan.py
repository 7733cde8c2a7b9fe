#!/usr/bin/env python3
"""test_plan.py STASH_SIM CASE: stash-sim plan against the single runs it is made of, run from the
repository root (ctest does). Cases:
- consistent: every ranked row's figures are, to the last digit of the JSON, those of the single run
  `stash-sim PLATFORM WORKLOAD --instances N --allreduce A --batch B --samples S --format json`;
  the ranking is sorted by the objective; the CSV has a line per row;
- pareto: the rows marked on the front are exactly those no other row beats in time and in cost
  (brute force over the JSON);
- filters: --budget and --deadline drop the rows beyond them, counted, and the rest stay as they
  were; --global-batch gives each configuration G / GPUs and counts the ones where that is not whole;
- memory: GPT-2 1.5B (batch 1, one instance of three types): the types whose GPU does not hold it are
  refused before simulation, counted per type with the first refusal the single run prints (its
  error line, without the file's name), and the one that holds it is ranked;
- shards: --shards makes each sharding mode a configuration; its rows are the single runs with --shard,
  and what it refuses the single runs refuse (GPT-2 1.5B fits a p4d.24xlarge only sharded);
- hybrid_zero2: --shards fsdp-hybrid,fsdp-hybrid-zero2 over 1 and 2 instances: each row is its single
  run, and the table's shard column is as wide as fsdp-hybrid-zero2 (the columns after it line up);
- deterministic: the same plan twice is byte for byte the same (table, JSON);
- screen: the closed-form screen (issue 43) against the simulation of every configuration of a plan of
  layouts and data-parallel points: within 2% on each layout, 25% on each data-parallel point; --verify 0
  simulates none and ranks the screen's figures, which are those --verify 1000 reports beside the
  simulation's; --verify 5 simulates the screen's first 5, listed first, with the figures of their
  simulation; --max-minutes too small for them simulates fewer and says so, not an error;
- plot: --plot FILE.svg draws an SVG that names each instance type and the front, byte for byte the
  same twice, next to the same report as without --plot; without gnuplot on PATH, one line and exit 3
  before any simulation (skipped, exit 77, when gnuplot is not installed)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

SIM, CASE = sys.argv[1], sys.argv[2]
BASE = ["plan", "tests/workloads/tiny.json", "--platforms", "tests/platforms/star2.xml,tests/platforms/star4.xml",
        "--max-instances", "3", "--synthetic", "--iterations", "3", "--warmup", "1"]
FAILED = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        FAILED.append(what)


def run(args):
    r = subprocess.run([SIM] + args, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if r.returncode != 0:
        sys.exit(f"{CASE}: {' '.join(args)}: exit {r.returncode}: {r.stderr}")
    return r.stdout


def plan(extra=()):
    return json.loads(run(BASE + list(extra) + ["--format", "json"]))


def case_consistent():
    p = plan()
    check(p["configurations"] == 2 * 3 * 3 and p["ranked"] == len(p["rows"]) == 18,
          f"18 configurations ranked: {p['configurations']}, {p['ranked']}")
    keys = ["iteration_s", "throughput_samples_per_s", "epoch_s", "cost_usd_per_epoch", "time_to_train_s",
            "price_usd_per_h", "price_source", "gpus", "batch_per_gpu", "allreduce"]
    for r in p["rows"]:
        single = json.loads(run([r["platform_file"], "tests/workloads/tiny.json", "--instances", str(r["instances"]),
                                 "--allreduce", r["allreduce"], "--batch", str(r["batch_per_gpu"]), "--samples",
                                 repr(p["samples"]), "--synthetic", "--iterations", "3", "--warmup", "1",
                                 "--format", "json"]))
        same = all(r[k] == single[k] for k in keys)
        check(same, f"rank {r['rank']} ({r['platform']} x {r['instances']}, {r['allreduce']}) equals its single run: "
                    + ", ".join(f"{k} {r[k]!r} vs {single[k]!r}" for k in keys if r[k] != single[k]))
        cost = single["price_usd_per_h"] * single["instances"] * single["time_to_train_s"] / 3600
        check(abs(r["cost_usd"] - cost) <= 1e-12 * cost, f"rank {r['rank']}: cost = price x instances x time")
        f = single["failures"]
        check(r["expected_time_to_train_s"] == f["expected_time_to_train_s"] and
              r["expected_cost_usd"] == f["expected_cost_usd"] and r["goodput"] == f["goodput"],
              f"rank {r['rank']}: the time and cost with failures are the single run's")
    times = [r["expected_time_to_train_s"] for r in p["rows"]]
    check(times == sorted(times), "ranked by time to train (with failures)")
    costs = [r["expected_cost_usd"] for r in plan(["--objective", "cost"])["rows"]]
    check(costs == sorted(costs), "--objective cost: ranked by cost")
    csv = run(BASE + ["--format", "csv"]).splitlines()
    check(len(csv) == 19 and csv[0].startswith("schema_version,"), f"CSV: a header and 18 lines, got {len(csv)}")
    # Two instance files of one instance type: the table names each row's file, not the type both
    # share (issue 30: the rows could not be told apart).
    with tempfile.TemporaryDirectory() as d:
        copy = os.path.join(d, "star2-copy.xml")
        shutil.copyfile("tests/platforms/star2.xml", copy)
        table = run(["plan", "tests/workloads/tiny.json", "--platforms", "tests/platforms/star2.xml," + copy,
                     "--max-instances", "1", "--algorithms", "ring", "--synthetic"]).splitlines()
        rows = [l for l in table if " ring " in l]
        check(len(rows) == 2 and any("tests/platforms/star2.xml" in l for l in rows) and any(copy in l for l in rows),
              "two files of one instance type: each row names its file:\n" + "\n".join(rows))


def case_pareto():
    rows = plan()["rows"]
    for r in rows:
        t, c = "expected_time_to_train_s", "expected_cost_usd"
        beaten = any(o is not r and o[t] <= r[t] and o[c] <= r[c] and (o[t] < r[t] or o[c] < r[c]) for o in rows)
        check(r["pareto"] == (not beaten), f"rank {r['rank']}: on the front {r['pareto']}, beaten {beaten}")
    check(any(r["pareto"] for r in rows), "the front is not empty")


def case_filters():
    rows = plan()["rows"]
    costs = sorted(r["expected_cost_usd"] for r in rows)
    budget = costs[len(costs) // 2]
    p = plan(["--budget", repr(budget)])
    over = sum(1 for r in rows if r["expected_cost_usd"] > budget)
    check(p["over_budget"] == over and p["ranked"] == len(rows) - over,
          f"--budget {budget}: {over} over the budget, {p['over_budget']} counted, {p['ranked']} ranked")
    check(all(r["expected_cost_usd"] <= budget for r in p["rows"]), "every kept row within the budget")
    times = sorted(r["expected_time_to_train_s"] for r in rows)
    deadline_h = times[len(times) // 3] / 3600
    p = plan(["--deadline", repr(deadline_h)])
    late = sum(1 for r in rows if r["expected_time_to_train_s"] > deadline_h * 3600)
    check(p["over_deadline"] == late and p["ranked"] == len(rows) - late,
          f"--deadline: {late} past it, {p['over_deadline']} counted")
    p = plan(["--global-batch", "24"])
    # star2 has 2 GPUs, star4 4: 24 / (2, 4, 6, 4, 8, 12) GPUs: 8 (2 x 4 = 8 GPUs: 3) is whole except none
    gpus = {(r["platform"], r["instances"]): r["gpus"] for r in rows}
    whole = sum(3 for g in gpus.values() if 24 % g == 0)
    check(p["ranked"] + p["not_whole_batch"] == 18 and p["ranked"] == whole,
          f"--global-batch 24: {whole} configurations with a whole batch, ranked {p['ranked']}, "
          f"not whole {p['not_whole_batch']}")
    check(all(r["batch_per_gpu"] * r["gpus"] == 24 for r in p["rows"]), "each per-GPU batch is 24 / GPUs")


def case_memory():
    plats = ["p3.16xl", "p4d.24xl", "p5.48xl"]
    p = json.loads(run(["plan", "workloads/gpt2-1.5b.json", "--platforms", ",".join(plats), "--max-instances", "1",
                        "--algorithms", "ring", "--samples", "1000", "--synthetic", "--format", "json"]))
    refused = {r["platform"]: r for r in p["refused_by_platform"]}
    check(p["configurations"] == 3 and p["refused"] == 2 and sorted(refused) == ["p3.16xl", "p4d.24xl"],
          f"two of three refused, per type: {p['refused']}, {sorted(refused)}")
    check([r["platform"] for r in p["rows"]] == ["p5.48xlarge"], f"the H100 is ranked: {p['rows']}")
    for name, r in refused.items():
        single = subprocess.run([SIM, f"platforms/{name}.xml", "workloads/gpt2-1.5b.json", "--synthetic",
                                 "--samples", "1000"], capture_output=True, text=True, stdin=subprocess.DEVNULL)
        line = single.stderr.strip().split(": error: ", 1)[-1]
        check(single.returncode == 1 and r["refused"] == 1 and r["first"] == line,
              f"{name}: the plan's refusal is the single run's: {r['first']!r} vs {line!r}")


def case_shards():
    """--shards: each mode is a configuration of its own (tree only without sharding); every ranked row
    is its single run with --shard, and the refused ones are exactly the single runs refused for
    memory: GPT-2 1.5B at batch 1 fits a p4d.24xlarge only sharded."""
    plats, modes = ["p3.16xl", "p4d.24xl", "p5.48xl"], ["none", "zero2", "zero3", "fsdp-full", "fsdp-grad-op"]
    p = json.loads(run(["plan", "workloads/gpt2-1.5b.json", "--platforms", ",".join(plats), "--max-instances", "1",
                        "--algorithms", "ring,tree", "--shards", ",".join(modes), "--batches", "1", "--samples",
                        "1000", "--synthetic", "--iterations", "2", "--warmup", "1", "--format", "json"]))
    check(p["configurations"] == 3 * (2 + 4), f"3 types x (none: ring, tree; 4 sharded: ring): {p['configurations']}")
    ranked = {(os.path.basename(r["platform_file"]), r["shard"], r["allreduce"]) for r in p["rows"]}
    fits = set()
    for name in plats:
        for mode in modes:
            for alg in (["ring", "tree"] if mode == "none" else ["ring"]):
                args = [f"platforms/{name}.xml", "workloads/gpt2-1.5b.json", "--shard", mode, "--allreduce", alg,
                        "--batch", "1", "--samples", "1000", "--synthetic", "--iterations", "2", "--warmup", "1",
                        "--format", "json"]
                single = subprocess.run([SIM] + args, capture_output=True, text=True, stdin=subprocess.DEVNULL)
                key = (f"{name}.xml", mode, alg)
                if single.returncode == 0:
                    fits.add(key)
                    row = [r for r in p["rows"]
                           if (os.path.basename(r["platform_file"]), r["shard"], r["allreduce"]) == key]
                    one = json.loads(single.stdout)
                    check(len(row) == 1 and row[0]["iteration_s"] == one["iteration_s"],
                          f"{key}: the plan's row is the single run's ({row[0]['iteration_s'] if row else None} vs "
                          f"{one['iteration_s']})")
    check(ranked == fits and p["refused"] == p["configurations"] - len(fits),
          f"ranked = the single runs that fit: {sorted(ranked ^ fits)}")
    p4d = {r["shard"] for r in p["rows"] if r["platform"] == "p4d.24xlarge"}
    check("none" not in p4d and len(p4d) > 0, f"the p4d.24xlarge trains it only sharded: {sorted(p4d)}")


def case_hybrid_zero2():
    extra = ["--max-instances", "2", "--algorithms", "ring", "--shards", "fsdp-hybrid,fsdp-hybrid-zero2"]
    p = json.loads(run(BASE[:4] + BASE[6:] + extra + ["--format", "json"]))
    check(p["configurations"] == 2 * 2 * 2 and len(p["rows"]) == 8, f"8 configurations ranked: {p['configurations']}")
    for r in p["rows"]:
        one = json.loads(run([r["platform_file"], "tests/workloads/tiny.json", "--instances", str(r["instances"]),
                              "--shard", r["shard"], "--samples", repr(p["samples"]), "--synthetic", "--iterations",
                              "3", "--warmup", "1", "--format", "json"]))
        check(r["iteration_s"] == one["iteration_s"], f"{r['platform']} x {r['instances']}, {r['shard']}: the row is "
              f"the single run ({r['iteration_s']} vs {one['iteration_s']})")
    lines = run(BASE[:4] + BASE[6:] + extra).splitlines()
    head = [i for i, line in enumerate(lines) if line.startswith("rank")][0]
    edge = lines[head].index("batch") + len("batch")
    rows = lines[head + 1:head + 9]
    check(len(rows) == 8 and all(line[edge - 1].isdigit() and line[edge] == " " for line in rows),
          f"the batch column ends at {edge} on every row: {rows}")


def case_deterministic():
    for fmt in ("table", "json"):
        a, b = run(BASE + ["--format", fmt]), run(BASE + ["--format", fmt])
        check(a == b, f"{fmt}: the same plan twice is byte for byte the same")


def case_plot():
    if not shutil.which("gnuplot"):
        print("skip: no gnuplot on PATH")
        sys.exit(77)
    with tempfile.TemporaryDirectory() as tmp:
        a, b = os.path.join(tmp, "a.svg"), os.path.join(tmp, "b.svg")
        table = run(BASE + ["--plot", a])
        run(BASE + ["--plot", b])
        check(table == run(BASE), "the report is the same with --plot")
        svg = open(a, encoding="utf-8").read()
        check(svg.lstrip().startswith("<?xml") and "</svg>" in svg, "an SVG file")
        for name in ("test-star2", "test-star4", "Pareto front"):
            check(f">{name}</text>" in svg, f"the SVG names {name}")
        check(open(b, "rb").read() == svg.encode("utf-8"), "the same plan plotted twice: the same SVG byte for byte")
        check(sorted(os.listdir(tmp)) == ["a.svg", "b.svg"], f"no temporary file left: {sorted(os.listdir(tmp))}")
        r = subprocess.run([os.path.abspath(SIM)] + BASE + ["--plot", os.path.join(tmp, "c.png")], capture_output=True,
                           text=True, stdin=subprocess.DEVNULL, env=dict(os.environ, PATH=os.path.join(tmp, "none")))
        check(r.returncode == 3 and r.stdout == "" and r.stderr.count("\n") == 1 and "install it" in r.stderr,
              f"no gnuplot: exit 3, one line, no report: exit {r.returncode}, {r.stderr!r}")
        check(not os.path.exists(os.path.join(tmp, "c.png")), "no gnuplot: no plot")


def case_layouts():
    """A plan of tensor and pipeline layouts (issue 31): each row is its single run's figures (the least
    recomputation that fits named), the layouts that do not divide the GPUs skipped and counted, the
    data-parallel point once, ranked by time, and the table naming the first's limit."""
    base = ["plan", "workloads/gpt2-124m.json", "--platforms", "platforms/p4d.24xl.xml", "--max-instances", "2",
            "--tps", "1,2,3", "--pps", "1,2", "--micro-batches", "1,2", "--schedules", "1f1b,gpipe",
            "--global-batch", "32", "--precision", "bf16", "--tokens", "1e8", "--verify", "1000"]
    p = json.loads(run(base + ["--format", "json"]))
    rows = p["rows"]
    # t 3 divides no instance of 8 GPUs: skipped, not configurations; t x p = 1: one point per instance count.
    check(p["not_dividing_layouts"] == 2 * 2 * 2 * 2, f"not dividing: {p['not_dividing_layouts']}")
    shapes = sorted((r["instances"], r["tp"], r["pp"], r["micro_batch"], r["schedule"]) for r in rows)
    check(len(set(shapes)) == len(shapes) and sum(1 for s in shapes if s[1] * s[2] == 1) == 2,
          f"one data-parallel point per instance count, no row twice: {shapes}")
    check(all(r["schedule"] == "1f1b" for r in rows if r["pp"] == 1), "one schedule without stages")
    keys = ["iteration_s", "time_to_train_s", "gpus", "tokens_per_s", "mfu"]
    for r in rows:
        if r["tp"] * r["pp"] == 1:
            args = ["--batch", str(r["batch_per_gpu"])]
        else:
            args = ["--tp", str(r["tp"]), "--pp", str(r["pp"]), "--micro-batch", str(r["micro_batch"]),
                    "--global-batch", "32", "--recompute", r["recompute"]]
            if r["pp"] > 1:
                args += ["--schedule", r["schedule"]]
            if r["virtual_stages"] > 1:
                args += ["--virtual-stages", str(r["virtual_stages"])]
            args += ["--sequence-parallel"] if r["sequence_parallel"] else []
            args += ["--distributed-optimizer"] if r["distributed_optimizer"] else []
        single = json.loads(run(["platforms/p4d.24xl.xml", "workloads/gpt2-124m.json", "--instances",
                                 str(r["instances"]), "--precision", "bf16", "--tokens", "1e8", "--format", "json"]
                                + args))
        same = all(r[k] == single[k] for k in keys)
        check(same, f"rank {r['rank']} ({r['instances']} x, {r['tp']} x {r['pp']}) equals its single run: "
                    + ", ".join(f"{k} {r[k]!r} vs {single[k]!r}" for k in keys if r[k] != single[k]))
        if r["tp"] * r["pp"] > 1:
            check(single["parallel"]["micro_batches"] == r["micro_batches"] == 32 // (r["micro_batch"] * r["dp"]),
                  f"rank {r['rank']}: micro-batches {r['micro_batches']}")
    times = [r["expected_time_to_train_s"] for r in rows]
    check(times == sorted(times), "ranked by time to train")
    table = run(base)
    check("t x p x d" in table and "the first: " in table and "limited by" in table, f"the table:\n{table}")
    # A workload without a transformer cannot be split.
    r = subprocess.run([SIM, "plan", "tests/workloads/tiny.json", "--platforms", "tests/platforms/star2.xml",
                        "--tps", "2"], capture_output=True, text=True)
    check(r.returncode == 1 and "no \"transformer\"" in r.stderr, f"tiny --tps 2: {r.returncode} {r.stderr!r}")


def case_space():
    """The layout space (issue 43): Megatron-Core's recipes by default (sequence parallelism where t > 1,
    the distributed optimizer), each of --sequence-parallels, --distributed-optimizers, --recomputes,
    --vpps and --precisions a dimension of the plan when given, and each row saying which are on."""
    space = ["plan", "workloads/gpt2-124m.json", "--platforms", "p5.48xl", "--max-instances", "1", "--tps", "1,2",
             "--pps", "1,2", "--micro-batches", "2", "--schedules", "1f1b,interleaved", "--global-batch", "32",
             "--tokens", "1e8"]
    base = space + ["--precision", "bf16", "--verify", "0", "--format", "json"]
    rows = json.loads(run(base))["rows"]
    lay = [r for r in rows if r["tp"] * r["pp"] > 1]
    check(all(r["sequence_parallel"] == (r["tp"] > 1) and r["distributed_optimizer"] for r in lay) and
          not any(r["sequence_parallel"] or r["distributed_optimizer"] for r in rows if r["tp"] * r["pp"] == 1),
          "by default: sequence parallelism where t > 1 and the distributed optimizer on every layout")
    key = lambda r: (r["tp"], r["pp"], r["schedule"], r["virtual_stages"])
    both = json.loads(run(space + ["--sequence-parallels", "off,on", "--distributed-optimizers", "off,on",
                                       "--precisions", "bf16,fp8", "--verify", "0", "--format", "json"]))["rows"]
    for k in set(key(r) for r in lay):
        tp = k[0]
        got = sorted((r["sequence_parallel"], r["distributed_optimizer"], r["precision"]) for r in both if key(r) == k)
        want = sorted((sp, do, p) for sp in ((False, True) if tp > 1 else (False,)) for do in (False, True)
                      for p in ("bf16", "fp8"))
        check(got == want, f"layout {k}: every combination of the lists, sequence parallelism only with t > 1: {got}")
    rec = json.loads(run(base[:-4] + ["--recomputes", "none,full", "--vpps", "2,3", "--verify", "0", "--format",
                                      "json"]))["rows"]
    inter = [r for r in rec if r["schedule"] == "interleaved"]
    check(set(r["recompute"] for r in rec if r["tp"] * r["pp"] > 1) == {"none", "full"},
          "--recomputes none,full: both recomputations ranked")
    check(set(r["virtual_stages"] for r in inter) <= {2, 3} and
          all(r["virtual_stages"] == 1 for r in rec if r["schedule"] != "interleaved"),
          f"--vpps 2,3: the interleaved rows' chunks: {sorted(set(r['virtual_stages'] for r in inter))}")
    table = run(base[:-4] + ["--verify", "3"])
    check("recompute, sp, do" in table and " sp do bf16" in table, f"the table says which are on:\n{table}")


def case_screen():
    # Under the sanitizers (SS_TEST_QUICK, tests/CMakeLists.txt): one instance type, one instance count.
    quick = os.environ.get("SS_TEST_QUICK") == "1"
    base = ["plan", "workloads/gpt2-124m.json", "--platforms", "p4d.24xl" if quick else "p4d.24xl,p5.48xl",
            "--max-instances", "1" if quick else "2", "--tps",
            "1,2,4", "--pps", "1,2,4", "--micro-batches", "1,2", "--schedules", "1f1b,interleaved", "--global-batch",
            "32", "--precision", "bf16", "--tokens", "1e8", "--format", "json"]
    full = json.loads(run(base + ["--verify", "1000"]))
    rows = full["rows"]
    check(full["screened"] == full["verified"] == len(rows) > (10 if quick else 40) and all(r["verified"] for r in rows),
          f"--verify 1000: every row simulated: {full['screened']}, {full['verified']}, {len(rows)}")
    for r in rows:
        err = r["screen_time_to_train_s"] / r["expected_time_to_train_s"] - 1
        bound = 0.02 if r["tp"] * r["pp"] > 1 else 0.25
        check(abs(err) <= bound and abs(r["screen_error"] - err) < 1e-12,
              f"{r['platform']} x {r['instances']}, {r['tp']} x {r['pp']} x {r['dp']}, micro-batch {r['micro_batch']} "
              f"{r['schedule']}: the screen {100 * err:+.2f}% off the simulation (at most {100 * bound:.0f}%)")
    key = lambda r: (r["platform"], r["instances"], r["tp"], r["pp"], r["micro_batch"], r["schedule"])
    sim = {key(r): r for r in rows}
    none = json.loads(run(base + ["--verify", "0"]))
    check(none["verified"] == 0 and not any(r["verified"] for r in none["rows"]) and len(none["rows"]) == len(rows),
          f"--verify 0: nothing simulated, every row ranked: {none['verified']}, {len(none['rows'])}")
    check(all(r["expected_time_to_train_s"] == r["screen_time_to_train_s"] == sim[key(r)]["screen_time_to_train_s"] and
              r["expected_cost_usd"] == r["screen_cost_usd"] == sim[key(r)]["screen_cost_usd"] for r in none["rows"]),
          "--verify 0: each row's figures are the screen's, as --verify 1000 reports them")
    times = [r["expected_time_to_train_s"] for r in none["rows"]]
    check(times == sorted(times), "--verify 0: ranked by the screen's time to train")
    five = json.loads(run(base + ["--verify", "5"]))
    first = [key(r) for r in five["rows"][:5]]
    check(five["verified"] == 5 and all(r["verified"] for r in five["rows"][:5]) and
          not any(r["verified"] for r in five["rows"][5:]), f"--verify 5: the first 5 rows simulated: {five['verified']}")
    check(sorted(first) == sorted(key(r) for r in none["rows"][:5]),
          "--verify 5: the screen's first 5 are the ones simulated")
    check(all(r["time_to_train_s"] == sim[key(r)]["time_to_train_s"] for r in five["rows"][:5]),
          "--verify 5: their figures are their simulation's")
    cut = json.loads(run(base + ["--verify", "5", "--max-minutes", "0.001"]))
    check(cut["verified"] + cut["verify_cut"] == 5 and cut["verified"] < 5,
          f"--max-minutes 0.001: {cut['verified']} simulated, {cut['verify_cut']} beyond it")
    table = run(base[:-2] + ["--verify", "5"])
    check("screened in closed form: " in table and "the screen's error on the 5 simulated" in table and
          "more ranked by the screen alone" in table, f"the table says what was screened and simulated:\n{table}")


CASES = {k[5:]: v for k, v in globals().items() if k.startswith("case_")}
if CASE not in CASES:
    sys.exit(f"test_plan.py: unknown case {CASE} ({', '.join(CASES)})")
CASES[CASE]()
sys.exit(1 if FAILED else 0)
