#!/usr/bin/env python3
"""layering: sim/'s includes follow the layers of docs/architecture.md.

Reads the table between the 'layers: begin' and 'layers: end' markers; every module of sim/ must be
in one row, include no module of a lower row, and only the SimGrid layer may include <simgrid/...>.
The modules' include graph must also be acyclic: module A depends on module B when A.c or A.h
includes B.h, and each cycle (a set of modules that depend on each other, directly or not) is a
violation. Exit 0 when all holds, 1 with one line per violation otherwise."""
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


def includes(path):
    """(line number, '<' or '"', the name) of each #include of a file."""
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        inc = re.match(r'\s*#\s*include\s*([<"])([^>"]+)[>"]', line)
        if inc:
            yield n, inc.group(1), inc.group(2)


def module_graph(sim):
    """Each module of sim/ and the modules it depends on (its .c or .h includes their .h)."""
    graph = {}
    for f in sorted(os.listdir(sim)):
        if f.endswith((".c", ".h")):
            deps = graph.setdefault(f[:-2], set())
            for _, kind, target in includes(os.path.join(sim, f)):
                if kind == '"' and target.endswith(".h") and target[:-2] != f[:-2]:
                    deps.add(target[:-2])
    return graph


def cycles(graph):
    """The strongly connected components of more than one module (Tarjan's, iteratively), each a
    sorted list, in order of their first module."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return sorted(found)


def check_cycles(sim):
    """The violations: one line per cycle of the include graph."""
    return ["sim/: include cycle {" + ", ".join(comp) + "}" for comp in cycles(module_graph(sim))]


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
        for n, kind, target in includes(os.path.join(sim, f)):
            if kind == "<":
                if target.startswith("simgrid/") and layer_of[mod] != simgrid_layer:
                    bad.append(f"sim/{f}:{n}: <{target}> outside the simgrid layer")
                continue
            dep = os.path.splitext(target)[0]  # a module's header, or its generated part (kernelfit.inc)
            if dep not in layer_of:
                bad.append(f"sim/{f}:{n}: includes '{target}', a module in no layer")
            elif layer_of[dep] > layer_of[mod]:
                bad.append(f"sim/{f}:{n}: {mod} (layer {layer_of[mod]}, {names[layer_of[mod]]}) includes "
                           f"{dep} (layer {layer_of[dep]}, {names[layer_of[dep]]})")
    bad += check_cycles(sim)
    for line in bad:
        print(line)
    print(f"layering: {len(bad)} violation(s) in sim/")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
