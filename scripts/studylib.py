"""Shared pieces of the study reports (stash-study-report.py, ps-study-report.py,
whatif-study-report.py): --help and --version, one error line and exit 2, reading a sweep's CSV,
and rewriting the generated part of a document between its markers. Standard library only."""
import csv
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def help_version(script, doc, argv):
    """With --help (-h) or --version as the only argument, print doc or the script's version line
    ("scripts/NAME (stash-sim) VERSION", from the VERSION file CMakeLists.txt reads) and exit 0."""
    if argv in (["-h"], ["--help"]):
        sys.stdout.write(doc)
        sys.exit(0)
    if argv == ["--version"]:
        with open(os.path.join(REPO, "VERSION"), encoding="utf-8") as f:
            version = f.read().strip()
        sys.stdout.write("scripts/%s (stash-sim) %s\n" % (os.path.basename(script), version))
        sys.exit(0)


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
    with open(path, "w") as f:
        f.write(head + "\n".join([begin] + lines + [end]) + tail)
