#!/usr/bin/env python3
"""The repository's layout in numbers, for reviews of its structure.

    tools/layout_report.py [REPO]          (default: this checkout)

Prints: lines of C++ per folder; the include graph between folders (an edge
A -> B when a file in A includes one in B), with any cycle and any edge that
points up the layers of docs/architecture.md; the largest file; the longest
function bodies (a definition's braces counted from its opening line). Only
the product's folders count for layers; tests/, bench/ and tools/ may use
anything below them.
"""
import os
import re
import subprocess
import sys
from collections import defaultdict

# Bottom to top, as docs/architecture.md draws them. A folder may include its
# own layer and those below it.
LAYERS = [
    ["util"],
    ["text", "eval", "vocab", "kernels"],
    ["model", "document"],
    ["storage", "data"],
    ["decode", "distributed"],
    ["train", "serve"],
    ["cli"],
    ["app"],
]
RANK = {folder: i for i, layer in enumerate(LAYERS) for folder in layer}
INCLUDE = re.compile(r'^#include "([a-z_]+)/')
FUNC_START = re.compile(r'^[A-Za-z].*\)\s*(const)?\s*(override)?\s*(noexcept)?\s*\{\s*$')


def tracked(repo):
    out = subprocess.check_output(["git", "-C", repo, "ls-files"], text=True).split()
    return [f for f in out if f.endswith((".h", ".cpp")) and "/corpus/" not in f]


def folder_of(path):
    parts = path.split("/")
    if parts[0] == "app" and len(parts) > 2:  # the old app/cli/
        return "app/" + parts[1]
    return parts[0] if len(parts) > 1 else "."


def functions(path, lines):
    """(length, name, line) of each brace-delimited definition that starts at column 0."""
    found = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if FUNC_START.match(line) and not line.startswith(("namespace", "struct", "class", "enum", "union")):
            depth, j = 0, i
            while j < len(lines):
                depth += lines[j].count("{") - lines[j].count("}")
                if depth <= 0 and j > i or (depth == 0 and j == i and "}" in lines[j]):
                    break
                j += 1
            name = line.split("(")[0].split()[-1] if "(" in line else line
            found.append((j - i + 1, name, f"{path}:{i + 1}"))
            i = j + 1
        else:
            i += 1
    return found


def main():
    repo = sys.argv[1] if len(sys.argv) > 1 else "."
    files = tracked(repo)
    lines_per, files_per = defaultdict(int), defaultdict(int)
    edges = defaultdict(set)
    largest, funcs = (0, ""), []
    for f in files:
        text = open(os.path.join(repo, f), encoding="utf-8", errors="replace").read().split("\n")
        d = folder_of(f)
        lines_per[d] += len(text)
        files_per[d] += 1
        largest = max(largest, (len(text), f))
        for line in text:
            m = INCLUDE.match(line)
            if m:
                target = m.group(1)
                if target == "app" and '"app/cli/' in line:
                    target = "app/cli"
                if target != d.split("/")[0] or d == "app/cli":
                    if target != d:
                        edges[d].add(target)
        if f.endswith(".cpp"):
            funcs += functions(f, text)
    print("== lines of C++ per folder (files)")
    for d in sorted(lines_per, key=lambda d: -lines_per[d]):
        print(f"{d:14s} {lines_per[d]:6d}  ({files_per[d]} files)")
    print("\n== include graph between folders")
    for d in sorted(edges):
        print(f"{d:14s} -> {', '.join(sorted(edges[d]))}")
    product = {d for d in lines_per if d.split("/")[0] not in ("tests", "bench", "tools", ".")}
    cycles = sorted({tuple(sorted((a, b))) for a in edges for b in edges[a] if a in edges.get(b, ())})
    print("\n== two-way dependencies (cycles of two):", ", ".join(f"{a} <-> {b}" for a, b in cycles) or "none")
    up = [(a, b) for a in sorted(edges) if a in product for b in sorted(edges[a])
          if a in RANK and b in RANK and RANK[b] > RANK[a]]
    unplaced = sorted(d for d in product if d not in RANK)
    print("== edges pointing up the layers:", ", ".join(f"{a} -> {b}" for a, b in up) or "none")
    if unplaced:
        print("== folders outside the layers:", ", ".join(unplaced))
    print(f"\n== largest file: {largest[1]} ({largest[0]} lines)")
    print("== longest functions:")
    for length, name, where in sorted(funcs, reverse=True)[:5]:
        print(f"{length:5d} lines  {name}  {where}")


if __name__ == "__main__":
    main()
