#!/usr/bin/env python3
"""options_table: README.md's option table is the one scripts/gen-from-options makes from the
binary's registry. Usage: options_table.py STASH_SIM [--write] (--write regenerates it)."""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEGIN, END = "<!-- options: begin", "<!-- options: end -->"


def main():
    binary, write = sys.argv[1], "--write" in sys.argv[2:]
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "table.md")
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen-from-options"), "--binary", binary,
                        "--readme-table", out], check=True)
        table = open(out, encoding="utf-8").read()
    path = os.path.join(ROOT, "README.md")
    text = open(path, encoding="utf-8").read()
    a = text.index(BEGIN)
    a = text.index("\n", a) + 1
    b = text.index(END)
    if text[a:b] == table:
        print("options_table: README.md's table is up to date")
        return 0
    if write:
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text[:a] + table + text[b:])
        os.replace(tmp, path)
        print("options_table: README.md's table rewritten")
        return 0
    print("options_table: README.md's option table differs from the registry's; run "
          "python3 tests/options_table.py build/stash-sim --write")
    return 1


if __name__ == "__main__":
    sys.exit(main())
