#!/usr/bin/env python3
"""test_install: short names (sim/catalog.c), `stash-sim list`, `cmake --install` and the files
generated from the option registry (scripts/gen-from-options), one case per ctest.

usage: test_install.py CASE --source DIR --build DIR --bin STASH_SIM [--cmake CMAKE]
Cases: install.prefix, catalog.resolve, catalog.list, gen.options. Exit 0 when every check holds,
1 otherwise (each failed check on stderr).
"""

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

failures = 0
checks = 0


def check(cond, what, detail=""):
    global failures, checks
    checks += 1
    if not cond:
        failures += 1
        print(f"check failed: {what}" + (f"\n  {detail}" if detail else ""), file=sys.stderr)
    return cond


def run(cmd, cwd=None, env_path=None, extra_env=None, timeout=300):
    """Run cmd; STASH_SIM_PATH is env_path ("" when None: the test never sees the caller's)."""
    env = dict(os.environ)
    env["STASH_SIM_PATH"] = env_path or ""
    env.update(extra_env or {})
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def first_line(s):
    return s.splitlines()[0] if s.strip() else ""


def report(r):
    """The JSON report of a run, or None (a failed check)."""
    if not check(r.returncode == 0, "the run succeeds", f"exit {r.returncode}: {r.stderr.strip()[:500]}"):
        return None
    try:
        return json.loads(r.stdout)
    except json.JSONDecodeError as e:
        check(False, "the report is JSON", str(e))
        return None


def tmpdir():
    return os.path.realpath(tempfile.mkdtemp(prefix="ss-install-"))


def copy(src, dst):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copyfile(src, dst)


def gzip_copy(src, dst):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    with open(src, "rb") as f, gzip.open(dst, "wb") as g:
        g.write(f.read())


def completer(script, path_dir):
    """A function completing words with the completion script (its function found by complete -p)."""

    def complete(*words):
        line = " ".join(f"'{w}'" for w in words)
        prog = (f"source '{script}' || exit 3; f=$(complete -p stash-sim | sed -n 's/.*-F \\([^ ]*\\).*/\\1/p');"
                f" COMP_WORDS=({line}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); COMPREPLY=();"
                f" $f 2>/dev/null; printf '%s\\n' \"${{COMPREPLY[@]}}\"")
        env = {"PATH": f"{path_dir}:{os.environ.get('PATH', '')}"}
        r = run(["bash", "--norc", "-c", prog], cwd=tempfile.gettempdir(), extra_env=env)
        check(r.returncode == 0, f"completion of {words} runs", r.stderr)
        return r.stdout.split()

    return complete


# ---------------------------------------------------------------- cases

def case_install_prefix(a):
    """cmake --install into a fresh prefix; the installed binary, run from outside the repository
    with STASH_SIM_PATH empty, finds its data folder from its own location."""
    prefix = tmpdir()
    r = run([a.cmake, "--install", a.build, "--prefix", prefix])
    if not check(r.returncode == 0, "cmake --install succeeds", r.stderr + r.stdout):
        return
    bin_ = os.path.join(prefix, "bin", "stash-sim")
    data = os.path.join(prefix, "share", "stash-sim")
    for f in ("bin/stash-sim", "bin/stash-calibrate", "share/stash-sim/platforms/p3.16xl.xml",
              "share/stash-sim/platforms/README.md", "share/stash-sim/workloads/resnet50.json",
              "share/stash-sim/workloads/README.md", "share/man/man1/stash-sim.1",
              "share/bash-completion/completions/stash-sim"):
        check(os.path.isfile(os.path.join(prefix, f)), f"{f} is installed")
    work = tmpdir()
    rep = report(run([bin_, "p3.16xl", "resnet50", "--synthetic", "--format", "json"], cwd=work))
    if rep:
        check(rep["platform"] == "p3.16xlarge" and rep["workload"] == "resnet50", "the right files are run",
              f"{rep['platform']}, {rep['workload']}")
        check(rep["platform_file"] == f"{data}/platforms/p3.16xl.xml", "the platform is the installed one",
              rep["platform_file"])
        check(rep["workload_file"] == f"{data}/workloads/resnet50.json", "the workload is the installed one",
              rep["workload_file"])
    r = run([bin_, "list", "platforms"], cwd=work)
    lines = r.stdout.splitlines()
    check(r.returncode == 0 and any(ln.split()[0] == "p3.16xl" and ln.endswith(f"{data}/platforms/p3.16xl.xml")
                                    for ln in lines if ln.split()), "list platforms lists the installed p3.16xl",
          r.stdout + r.stderr)
    check(a.source not in r.stdout, "list platforms does not look in the repository", r.stdout)
    r = run([bin_, "p3.17xl", "resnet50"], cwd=work)
    want = f"p3.17xl: error: no platform of that name (looked for p3.17xl.xml in {data}/platforms"
    check(r.returncode == 1 and first_line(r.stderr).startswith(want) and a.source not in r.stderr,
          "a missing short name names the installed folder, not the repository", r.stderr)
    man = os.path.join(prefix, "share", "man", "man1", "stash-sim.1")
    if shutil.which("man"):
        r = run(["man", "-l", man], extra_env={"MANWIDTH": "100", "MANPAGER": "cat", "PAGER": "cat"})
        check(r.returncode == 0 and "STASH_SIM_PATH" in r.stdout and "--gpus" in r.stdout,
              "the installed man page renders", r.stderr[:500])
    complete = completer(os.path.join(prefix, "share", "bash-completion", "completions", "stash-sim"),
                         os.path.join(prefix, "bin"))
    check("--gpus" in complete("stash-sim", "p3.16xl", "resnet50", "--gp"), "the completion completes --gpus")
    check("p3.16xl" in complete("stash-sim", "p3.1"), "the completion completes the installed platform names")
    check("resnet50" in complete("stash-sim", "p3.16xl", "resn"), "the completion completes workload names")
    check(complete("stash-sim", "list", "w") == ["workloads"], "the completion completes list's argument")
    check(complete("stash-sim", "list", "c") == ["categories"], "the completion completes list categories")
    r = run([bin_, "list", "categories", "--format", "json"], cwd=work)
    check(r.returncode == 0 and [c["name"] for c in json.loads(r.stdout or "[]")][:1] == ["compute"],
          "the installed binary lists the categories", r.stdout[:200] + r.stderr)
    # Without its data folder (and none compiled in), the installed binary says so.
    os.rename(data, data + ".moved")
    r = run([bin_, "p3.16xl", "resnet50"], cwd=work)
    if not r.stderr.startswith("p3.16xl: error: no platform of that name (looked for p3.16xl.xml in /"):
        check(r.returncode == 1 and r.stderr == "p3.16xl: error: no platform of that name (looked for p3.16xl.xml, "
              "but no folder of $STASH_SIM_PATH or installed data folder exists)\n", "no folder to search",
              r.stderr)
    shutil.rmtree(prefix, ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)


def search_path(a):
    """Folders A and B for STASH_SIM_PATH: A/platforms/mine.xml is a p3.2xlarge, B/mine.xml a
    p3.8xlarge; A/platforms/p3.16xl.xml shadows the repository's with a p3.2xlarge; workloads in
    A/workloads (tiny2.json.gz, both.json before both.json.gz) and in B itself (solo.json)."""
    d = tmpdir()
    A, B = os.path.join(d, "A"), os.path.join(d, "B")
    p, w = os.path.join(a.source, "platforms"), os.path.join(a.source, "tests", "workloads")
    copy(f"{p}/p3.2xl.xml", f"{A}/platforms/mine.xml")
    copy(f"{p}/p3.8xl.xml", f"{B}/mine.xml")
    copy(f"{p}/p3.2xl.xml", f"{A}/platforms/p3.16xl.xml")
    copy(f"{p}/p3.2xl.xml", f"{A}/platforms/a..b.xml")
    gzip_copy(f"{w}/tiny.json", f"{A}/workloads/tiny2.json.gz")
    copy(f"{w}/tiny.json", f"{A}/workloads/both.json")
    gzip_copy(os.path.join(a.source, "workloads", "resnet18.json"), f"{A}/workloads/both.json.gz")
    copy(f"{w}/tiny.json", f"{B}/solo.json")
    os.makedirs(f"{d}/work")
    return d, A, B, f"{d}/work"


def case_catalog_resolve(a):
    """Short names along STASH_SIM_PATH, then the repository (a build-tree binary run from
    anywhere); paths and names with '/' or '..' are never searched."""
    d, A, B, work = search_path(a)
    fast = ["--synthetic", "--format", "json", "-n", "1", "--warmup", "0"]

    def platform(*args, path=f"{A}:{B}"):
        rep = report(run([a.bin, *args, *fast], cwd=work, env_path=path))
        return rep and rep["platform"]

    check(platform("mine", "tiny2") == "p3.2xlarge", "STASH_SIM_PATH A:B: A/platforms/mine.xml wins")
    check(platform("mine", "tiny2", path=f"{B}:{A}") == "p3.8xlarge", "STASH_SIM_PATH B:A: B/mine.xml wins")
    check(platform("p3.16xl", "solo") == "p3.2xlarge", "STASH_SIM_PATH comes before the repository")
    check(platform("p3.16xl", "resnet50", path="") == "p3.16xlarge", "the build tree's binary finds the repository")
    rep = report(run([a.bin, "p3.2xl", "both", *fast], cwd=work, env_path=A))
    check(rep and rep["workload"] == "tiny" and rep["workload_file"] == f"{A}/workloads/both.json",
          "NAME.json comes before NAME.json.gz", rep and rep["workload_file"])
    check(platform("p3.2xl.xml", "resnet50.json", path="") == "p3.2xlarge", "a file name is searched too")
    copy(os.path.join(a.source, "platforms", "p3.8xl.xml"), f"{work}/p3.16xl")
    check(platform("p3.16xl", "solo") == "p3.8xlarge", "an existing file is a path before any search")
    os.remove(f"{work}/p3.16xl")

    def error(*args, path=f"{A}:{B}", status=1):
        r = run([a.bin, *args], cwd=work, env_path=path)
        check(r.returncode == status and not r.stdout, f"{args}: exit {status}, nothing on stdout",
              f"exit {r.returncode}: {r.stderr}")
        check(len(r.stderr.splitlines()) == 1, f"{args}: one line on stderr", r.stderr)
        return first_line(r.stderr)

    src_p = os.path.join(a.source, "platforms")
    got = error("p3.17xl", "resnet50")
    check(got.startswith(f"p3.17xl: error: no platform of that name (looked for p3.17xl.xml in {A}/platforms, {A}, "
                         f"{B}, {src_p}"), "a missing platform names the folders in order", got)
    got = error("p3.16xl", "resnet5")
    check(got.startswith(f"resnet5: error: no workload of that name (looked for resnet5.json or resnet5.json.gz in "
                         f"{A}/workloads, {A}, {B}, {os.path.join(a.source, 'workloads')}"),
          "a missing workload names the folders in order", got)
    got = error("./p3.16xl", "resnet50")
    check(got == "./p3.16xl: error: cannot open platform file: No such file or directory", "a '/' makes a path", got)
    got = error("nope.xml", "resnet50")
    check(got == "nope.xml: error: cannot open platform file: No such file or directory",
          "a file name found nowhere is the reader's error", got)
    got = error("a..b", "resnet50")
    check(got == "a..b: error: cannot open platform file: No such file or directory", "'..' is never searched", got)
    # A name that is there but cannot be followed is the reader's error on that path (issue 30: a
    # link in a loop was "no platform of that name").
    os.symlink("loop2.xml", f"{A}/platforms/loop1.xml")
    os.symlink("loop1.xml", f"{A}/platforms/loop2.xml")
    got = error("loop1", "resnet50")
    check(got == f"{A}/platforms/loop1.xml: error: cannot open platform file: Too many levels of symbolic links",
          "a short name whose file is a link in a loop", got)
    # Nothing to list is an error that names the folders searched, not an empty table: a copy of
    # the binary away from any data folder, with a search path of an empty folder.
    lone = f"{work}/lone/stash-sim"
    os.makedirs(f"{work}/lone/empty", exist_ok=True)
    shutil.copy(a.bin, lone)
    r = run([lone, "list", "platforms"], cwd=work, env_path=f"{work}/lone/empty")
    check(r.returncode == 1 and not r.stdout and "no instance file to list: none in" in r.stderr,
          "list with nothing to list says so", f"exit {r.returncode}: {r.stderr}")
    got = error("", "resnet50", status=2)
    check("PLATFORM is empty" in got, "an empty name is never searched: a usage error", got)
    got = error("mine", "resnet50", "--stash", "--instances", "2", "--stash-single", "p3.17xl")
    check(got.startswith("p3.17xl: error: no platform of that name"), "--stash-single takes a short name", got)
    got = error("whatif", "mine", "tiny2", "--change", "platform=p3.17xl")
    check(got.startswith("p3.17xl: error: no platform of that name"), "whatif's platform= takes a short name", got)
    tests = os.path.join(a.source, "tests")
    r = run([a.bin, "bench", "allreduce", "star2", "--max-bytes", "64", "--format", "json"], cwd=work, env_path=tests)
    check(r.returncode == 0 and json.loads(r.stdout or "{}").get("instance") == "test-star2",
          "bench allreduce takes a short name", r.stderr)
    r = run([a.bin, "whatif", "star2", "tiny", "--change", "platform=star4", "--format", "json"], cwd=work,
            env_path=tests)
    check(r.returncode == 0 and "test-star4" in r.stdout, "whatif takes short names", r.stderr)
    r = run([a.bin, "star2", "tiny", "--stash", "--instances", "2", "--stash-single", "star4", "--format", "json"],
            cwd=work, env_path=tests)
    check(r.returncode == 0 and "/tests/platforms/star4.xml" in r.stdout, "--stash-single takes a short name",
          r.stderr)
    shutil.rmtree(d, ignore_errors=True)


def case_catalog_list(a):
    """stash-sim list: sorted, one line per name (the first in search order), unreadable files
    with their error; JSON and CSV; usage errors."""
    d, A, B, work = search_path(a)
    with open(f"{A}/platforms/broken.xml", "w") as f:
        f.write("not xml\n")
    path = f"{A}:{B}"
    r = run([a.bin, "list", "platforms"], cwd=work, env_path=path)
    check(r.returncode == 0 and not r.stderr, "list platforms succeeds", r.stderr)
    rows = [ln.split() for ln in r.stdout.splitlines()]
    names = [x[0] for x in rows]
    check(names == sorted(set(names)), "names sorted, each once", names)
    repo = sorted(f[:-4] for f in os.listdir(os.path.join(a.source, "platforms")) if f.endswith(".xml"))
    check(set(repo) | {"mine", "broken", "a..b"} == set(names), "every platform of the search path", names)
    byname = {x[0]: " ".join(x[1:]) for x in rows}
    check(byname.get("mine", "").startswith("p3.2xlarge 1 x Tesla V100-SXM2-16GB 3.06 $/h")
          and byname["mine"].endswith(f"{A}/platforms/mine.xml"), "mine: A's, with its type, GPUs and price",
          byname.get("mine"))
    check(byname.get("p3.16xl", "").endswith(f"{A}/platforms/p3.16xl.xml"), "p3.16xl: A's shadows the repository's")
    check(byname.get("broken", "").startswith(f"(unreadable: {A}/platforms/broken.xml:1:1: error: "),
          "an unreadable file with its first error", byname.get("broken"))
    r = run([a.bin, "list", "platforms", "--format", "json"], cwd=work, env_path=path)
    try:
        js = json.loads(r.stdout)["platforms"]
    except (json.JSONDecodeError, KeyError) as e:
        check(False, "list --format json is JSON with platforms", f"{e}: {r.stdout[:300]}")
        js = []
    check([e["name"] for e in js] == names, "the JSON lists what the table does")
    m = [e for e in js if e["name"] == "mine"]
    check(m and m[0]["gpus"] == 1 and m[0]["instance_type"] == "p3.2xlarge" and m[0]["price_usd_per_h"] == 3.06
          and m[0]["path"] == f"{A}/platforms/mine.xml", "JSON: mine", m)
    check(any(e["name"] == "broken" and e["error"] and e["gpus"] is None for e in js), "JSON: broken has an error")
    r = run([a.bin, "list", "platforms", "--format=csv"], cwd=work, env_path=path)
    lines = r.stdout.splitlines()
    check(lines and lines[0] == "name,instance_type,gpus,gpu_model,price_usd_per_h,path,error"
          and len(lines) == len(names) + 1, "CSV: a header and a row per platform", lines[:2])
    r = run([a.bin, "list", "workloads"], cwd=work, env_path=path)
    byname = {ln.split()[0]: ln for ln in r.stdout.splitlines() if ln.strip()}
    check(byname.get("tiny2", "").endswith(f"{A}/workloads/tiny2.json.gz") and " tiny " in byname.get("tiny2", ""),
          "a gzipped workload is listed", byname.get("tiny2"))
    check(byname.get("both", "").endswith(f"{A}/workloads/both.json"), "NAME.json before NAME.json.gz",
          byname.get("both"))
    check("tiny batch 8" in " ".join(byname.get("solo", "").split()), "a workload's model and batch",
          byname.get("solo"))
    for args, want in [
        ([], "stash-sim: error: 'stash-sim list' expects platforms, workloads or categories, got nothing (see --help)"),
        (["gpus"], "stash-sim: error: 'stash-sim list' expects platforms, workloads or categories, got 'gpus' (see --help)"),
        (["platforms", "--format", "xml"], "stash-sim: error: --format expects table, json or csv, got 'xml' (see --help)"),
        (["platforms", "--gpus"], "stash-sim: error: option '--gpus' is not for 'stash-sim list'; it is for training runs, 'stash-sim bench' and 'stash-sim plan' (see --help)"),
    ]:
        r = run([a.bin, "list", *args], cwd=work, env_path=path)
        check(r.returncode == 2 and r.stderr == want + "\n" and not r.stdout, f"list {args}: usage error", r.stderr)
    r = run([a.bin, "list", "--help"], cwd=work, env_path=path)
    check(r.returncode == 0 and r.stdout.startswith("usage: stash-sim list") and f"  {A}/platforms\n" in r.stdout,
          "list --help prints the usage and the folders searched", r.stdout[-400:])
    shutil.rmtree(d, ignore_errors=True)


def case_gen_options(a):
    """scripts/gen-from-options on the fixture: a man page that renders, a completion that bash
    reads and that completes, a README row per option; bad registries are one error line."""
    gen = [sys.executable, os.path.join(a.source, "scripts", "gen-from-options")]
    fixture = os.path.join(a.source, "tests", "fixtures", "options.json")
    with open(fixture) as f:
        reg = json.load(f)
    d = tmpdir()
    man, comp, table = f"{d}/stash-sim.1", f"{d}/stash-sim.bash", f"{d}/table.md"
    r = run([*gen, "--man", man, "--completion", comp, "--readme-table", table, fixture])
    check(r.returncode == 0 and not r.stderr, "the generator runs on the fixture", r.stderr)
    check(sorted(os.listdir(d)) == ["stash-sim.1", "stash-sim.bash", "table.md"], "no temporary file is left")
    text = open(man).read() if os.path.exists(man) else ""
    for section in ("NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES"):
        check(f".SH {section}\n" in text, f"the man page has {section}")
    for g in reg["groups"]:
        check(f".SS {g['title']}\n" in text, f"the man page has the group {g['title']}")
    if shutil.which("groff"):
        r = run(["groff", "-man", "-Tutf8", "-ww", "-z", man])
        check(r.returncode == 0 and not r.stderr, "groff reads the man page without a warning", r.stderr)
    if shutil.which("man"):
        r = run(["man", "-l", man], extra_env={"MANWIDTH": "100", "MANPAGER": "cat", "PAGER": "cat"})
        out = r.stdout
        check(r.returncode == 0, "the man page renders", r.stderr)
        for o in reg["options"]:
            check(f"--{o['name']}" in out, f"the man page documents --{o['name']}")
        check("A whole number from 1 to 65536. Default: 1." in " ".join(out.split()), "ranges and defaults")
        check("One of ring, tree, hierarchical, auto." in " ".join(out.split()), "enum values")
    r = run(["bash", "-n", comp])
    check(r.returncode == 0, "bash reads the completion", r.stderr)
    bindir = os.path.dirname(a.bin)
    complete = completer(comp, bindir)
    check(complete(a.bin, "p3.16xl", "resnet50", "--al") == ["--allreduce"], "options of a run")
    check(complete(a.bin, "p3.16xl", "resnet50", "--allreduce", "h") == ["hierarchical"], "enum values")
    check(complete(a.bin, "p3.16xl", "resnet50", "--format", "=", "j") == ["json"], "--format=VALUE")
    check("--min-bytes" not in complete(a.bin, "p3.16xl", "resnet50", "--m"), "bench options are not a run's")
    check("--min-bytes" in complete(a.bin, "bench", "allreduce", "p3.16xl", "--m"), "bench options")
    check(complete(a.bin, "bench", "a") == ["allreduce", "all-gather"], "bench's allreduce and all-gather")
    check(complete(a.bin, "bench", "r") == ["reduce-scatter"], "bench's reduce-scatter")
    check(complete(a.bin, "list", "") == ["platforms", "workloads", "categories"], "list's words, from its usage")
    check("nic_gbps=" in complete(a.bin, "whatif", "p3.16xl", "vgg11", "--change", "nic"), "whatif keys")
    check("p3.16xl" in complete(a.bin, "p3.1"), "platform short names")
    check("vgg11" in complete(a.bin, "whatif", "p3.16xl", "vg"), "workload short names")
    rows = open(table).read().splitlines() if os.path.exists(table) else []
    check(rows[:2] == ["| option | meaning |", "|---|---|"] and len(rows) == 2 + len(reg["options"]),
          "a README row per option", rows[:3])
    check("| `--allreduce ring\\|tree\\|hierarchical\\|auto` | " in "\n".join(rows), "enum rows list the values")
    # Broken registries: one error line, exit 1, nothing written.
    bad = json.loads(json.dumps(reg))
    bad["options"][3]["kind"] = "bogus"
    with open(f"{d}/bad.json", "w") as f:
        json.dump(bad, f)
    r = run([*gen, "--man", f"{d}/bad.1", f"{d}/bad.json"])
    check(r.returncode == 1 and r.stderr == f"gen-from-options: error: {d}/bad.json: $.options[3].kind: expected one "
          "of count, real, size, enum, switch, path, got 'bogus'\n" and not os.path.exists(f"{d}/bad.1"),
          "an unknown kind", r.stderr)
    with open(f"{d}/syntax.json", "w") as f:
        f.write('{"schema_version": 1,\n "commands": [}\n')
    r = run([*gen, "--man", f"{d}/bad.1", f"{d}/syntax.json"])
    check(r.returncode == 1 and r.stderr.startswith(f"gen-from-options: error: {d}/syntax.json:2:15: "),
          "a JSON syntax error", r.stderr)
    r = subprocess.run([*gen, "--readme-table", f"{d}/stdin.md"], input=json.dumps(reg), capture_output=True,
                       text=True)
    check(r.returncode == 0 and open(f"{d}/stdin.md").read() == "\n".join(rows) + "\n", "the registry on stdin")
    # A binary that cannot print the registry gives way to the fallback, with a warning.
    r = run([*gen, "--binary", a.bin, "--fallback", fixture, "--man", f"{d}/fb.1"])
    check(r.returncode == 0 and os.path.exists(f"{d}/fb.1"), "--binary with --fallback", r.stderr)
    r = run([*gen, "--binary", "/nonexistent/stash-sim", "--man", f"{d}/nb.1"])
    check(r.returncode == 1 and not os.path.exists(f"{d}/nb.1"), "--binary without a fallback fails", r.stderr)
    r = run([*gen, fixture])
    check(r.returncode == 2, "nothing to write is a usage error", r.stderr)
    shutil.rmtree(d, ignore_errors=True)


CASES = {"install.prefix": case_install_prefix, "catalog.resolve": case_catalog_resolve,
         "catalog.list": case_catalog_list, "gen.options": case_gen_options}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case", choices=sorted(CASES))
    ap.add_argument("--source", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--cmake", default="cmake")
    a = ap.parse_args()
    a.source, a.build, a.bin = (os.path.realpath(x) for x in (a.source, a.build, a.bin))
    CASES[a.case](a)
    print(f"{a.case}: {checks - failures} of {checks} checks hold")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
