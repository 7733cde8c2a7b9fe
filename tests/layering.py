#!/usr/bin/env python3
"""layering: sim/'s includes follow the layers of docs/architecture.md.

Reads the table between the 'layers: begin' and 'layers: end' markers; every module of sim/ must be
in one row, include no module of a lower row, and only the SimGrid layer may include <simgrid/...>.
Exit 0 when they do, 1 with one line per violation otherwise."""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def layers():
    text = open(os.path.join(ROOT, "docs", "architecture.md"), encoding="utf-8").read()
    m = re.search(r"<!-- layers: begin.*?-->(.*?)<!-- layers: end -->", text, re.S)
    if not m:
        sys.exit("layering: docs/architecture.md has no layers table")
    layer_of, names = {}, {}
    for row in m.group(1).splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].isdigit():
            continue
        for mod in cells[2].split():
            layer_of[mod] = int(cells[0])
        names[int(cells[0])] = cells[1]
    return layer_of, names


def main():
    layer_of, names = layers()
    simgrid_layer = [k for k, v in names.items() if v == "simgrid"][0]
    bad = []
    sim = os.path.join(ROOT, "sim")
    for f in sorted(os.listdir(sim)):
        if not f.endswith((".c", ".h")):
            continue
        mod = f[:-2]
        if mod not in layer_of:
            bad.append(f"sim/{f}: module '{mod}' is in no layer of docs/architecture.md")
            continue
        for n, line in enumerate(open(os.path.join(sim, f), encoding="utf-8"), 1):
            inc = re.match(r'\s*#\s*include\s*([<"])([^>"]+)[>"]', line)
            if not inc:
                continue
            target = inc.group(2)
            if inc.group(1) == "<":
                if target.startswith("simgrid/") and layer_of[mod] != simgrid_layer:
                    bad.append(f"sim/{f}:{n}: <{target}> outside the simgrid layer")
                continue
            dep = target[:-2]
            if dep not in layer_of:
                bad.append(f"sim/{f}:{n}: includes '{target}', a module in no layer")
            elif layer_of[dep] > layer_of[mod]:
                bad.append(f"sim/{f}:{n}: {mod} (layer {layer_of[mod]}, {names[layer_of[mod]]}) includes "
                           f"{dep} (layer {layer_of[dep]}, {names[layer_of[dep]]})")
    for b in bad:
        print(b)
    print(f"layering: {len(bad)} violation(s) in sim/")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
