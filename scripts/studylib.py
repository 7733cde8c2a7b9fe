"""Shared pieces of the study reports (stash-study-report.py, ps-study-report.py,
whatif-study-report.py), scripts/plot and the generators (gen_platforms.py,
calibration/gen_models.py): --help and --version, one error line and exit 2, reading a sweep's CSV,
the categories of an iteration's time as the simulator lists them, rewriting the generated part of a
document between its markers, writing or checking generated files. Standard library only."""
import csv
import json
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def help_version(script, doc, argv):
    """With --help (-h) or --version as the only argument, print doc or the script's version line
    ("DIR/NAME (stash-sim) VERSION", from the VERSION file CMakeLists.txt reads) and exit 0. For
    every Python program of the project (the study reports, the generators)."""
    if argv in (["-h"], ["--help"]):
        sys.stdout.write(doc)
        sys.exit(0)
    if argv == ["--version"]:
        with open(os.path.join(REPO, "VERSION"), encoding="utf-8") as f:
            version = f.read().strip()
        sys.stdout.write("%s (stash-sim) %s\n" % (os.path.relpath(os.path.abspath(script), REPO), version))
        sys.exit(0)



def replace_file(path, text):
    """Write text to a temporary file in path's folder, then rename it to path: a failed or
    interrupted write leaves the earlier file as it was and no temporary file behind. For every
    file the studies and generators write."""
    folder, base = os.path.split(path)
    fd, tmp = tempfile.mkstemp(dir=folder or ".", prefix="." + base + ".", suffix=".tmp")
    try:
        mask = os.umask(0)
        os.umask(mask)
        os.fchmod(fd, 0o666 & ~mask)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def write_generated(prog, files, check, rerun):
    """The files a generator makes ({path relative to the repository: text}, in the order given):
    write each and print "wrote PATH"; with check, write nothing and name on stderr every file that
    differs from the one on disk (rerun: the command that regenerates them). Returns the exit status
    (1 when check finds a stale file)."""
    stale = []
    for rel, text in files.items():
        path = os.path.join(REPO, rel)
        if check:
            try:
                with open(path, encoding="utf-8", newline="") as f:
                    same = f.read() == text
            except OSError:
                same = False
            if not same:
                stale.append(rel)
            continue
        os.makedirs(os.path.dirname(path), exist_ok=True)
        replace_file(path, text)
        print("wrote %s" % rel)
    for rel in stale:
        sys.stderr.write("%s: %s is not what the generator makes; run: %s\n" % (prog, rel, rerun))
    return 1 if stale else 0


def default_bin():
    """The stash-sim binary the scripts run when not given one (--bin): build/stash-sim of this
    repository, as a path relative to the current folder."""
    return os.path.relpath(os.path.join(REPO, "build", "stash-sim"))


class CategoryError(Exception):
    """The categories cannot be read from the binary, or a script names one it does not list: the
    message is one line."""


CATEGORY_FIELDS = ("name", "key", "label", "word", "host_wait")


def categories(binary, names):
    """The categories of an iteration's time named by names, in that order, as dicts with the
    fields of `BINARY list categories --format json` (name, key, label, word, host_wait;
    docs/formats.md): a script keeps which categories it shows and how (order, colours), the
    simulator their names, keys and labels. Raises CategoryError when the binary does not print the
    table or a name is not in it."""
    if "/" in binary and not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        hint = " (build it: cmake --build build, or pass --bin)" if binary == default_bin() else ""
        raise CategoryError("no stash-sim binary at '%s'%s" % (binary, hint))
    try:
        r = subprocess.run([binary, "list", "categories", "--format", "json"], capture_output=True, text=True)
        table = json.loads(r.stdout) if r.returncode == 0 else None
    except (OSError, ValueError):
        table = None
    if not isinstance(table, list) or not table or not all(
            isinstance(c, dict) and all(isinstance(c.get(f), str) for f in CATEGORY_FIELDS) for c in table):
        raise CategoryError("'%s' does not list the categories of an iteration's time "
                            "(stash-sim list categories --format json)" % binary)
    by_name = {c["name"]: c for c in table}
    for n in names:
        if n not in by_name:
            raise CategoryError("'%s' lists no category '%s' (it lists %s)" % (binary, n, ", ".join(by_name)))
    return [by_name[n] for n in names]


def short_name(category):
    """A category's name without its "_stall" ("prep", "compute"): the scripts' column headers."""
    name = category["name"]
    return name[:-len("_stall")] if name.endswith("_stall") else name


END = "<!-- end of generated part -->"


def die(prog, msg):
    sys.stderr.write("%s: error: %s\n" % (prog, msg))
    sys.exit(2)


def read_csv(prog, path, require_ok=True):
    """The rows of a CSV; with require_ok, a failed run of a sweep (status != ok) is an error."""
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        die(prog, "%s: %s" % (path, e.strerror))
    bad = [r for r in rows if require_ok and r.get("status", "ok") != "ok"]
    if bad:
        die(prog, "%s: run %s failed: %s" % (path, bad[0]["run"], bad[0]["error"]))
    return rows


def replace_generated(prog, path, begin, end, lines):
    """Replace the text between the markers begin and end of the document at path (markers kept)."""
    try:
        text = open(path).read()
    except OSError as e:
        die(prog, "%s: %s" % (path, e.strerror))
    if begin not in text or end not in text:
        die(prog, "%s: the markers of the generated part are missing" % path)
    head, tail = text[:text.index(begin)], text[text.index(end) + len(end):]
    replace_file(path, head + "\n".join([begin] + lines + [end]) + tail)


class Report:
    """The report script of the study scripts/STUDY: its name in errors (STUDY-report) and the
    markers of the part of its document that it writes."""

    def __init__(self, study):
        self.prog = study + "-report"
        self.begin = "<!-- generated by scripts/%s: do not edit below -->" % study
        self.end = END

    def die(self, msg):
        die(self.prog, msg)

    def read_csv(self, path, require_ok=True):
        return read_csv(self.prog, path, require_ok)

    def replace_generated(self, path, lines):
        replace_generated(self.prog, path, self.begin, self.end, lines)


def instance_of(gpu, gpus):
    """The instance file a validation row's GPUs run on (validate-llm, validate-moe): (platform, GPUs per
    instance, instances, Gb/s of InfiniBand per instance for the rows over it), or None for a GPU with no
    instance file. H100 on p5.48xlarge, H200 on p5en.48xlarge, B200 on p6-b200.48xlarge, eight GPUs an
    instance; GB200 on the NVL72 UltraServer's file, in NVLink domains of trays of 4 GPUs as Slurm's
    --segment places a job's (the largest divisor of its trays no larger than 18), one domain an
    instance, the GPUs of each given by --gpus (ConnectX-7 of 400 Gb/s per GPU, ASSUMED)."""
    if gpu.startswith("GB200"):
        trays = max(1, gpus // 4)
        seg = max(d for d in range(1, 19) if trays % d == 0)
        return "platforms/u-p6e-gb200x72.xml", 4 * seg, trays // seg, 1600 * seg
    platform = ("platforms/p5.48xl.xml" if "H100" in gpu else "platforms/p5en.48xl.xml" if "H200" in gpu
                else "platforms/p6-b200.48xl.xml" if gpu.startswith("B200") else None)
    return (platform, 8, gpus // 8, 3200) if platform else None


def rows_markers(prog, rows_path, default_rows):
    """The marks around a validation script's generated part of docs/validation.md: the default rows
    file's, or those naming another rows file (one part per file)."""
    if os.path.abspath(rows_path) == os.path.abspath(default_rows):
        return ("<!-- generated by scripts/%s: do not edit below -->\n" % prog,
                "<!-- end of scripts/%s's part -->\n" % prog)
    name = os.path.relpath(os.path.abspath(rows_path), REPO)
    return ("<!-- generated by scripts/%s --rows %s: do not edit below -->\n" % (prog, name),
            "<!-- end of scripts/%s --rows %s's part -->\n" % (prog, name))
