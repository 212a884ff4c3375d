#!/usr/bin/env python3
"""Checks that src/ follows the data flow (docs/architecture.md): which folder may use which.

Two graphs between src/ folders are checked, each edge "folder A uses folder B":
  includes  every `#include "..."` of src/ (resolved next to the file, then under src/);
  calls     with --build DIR: every undefined symbol of an object file compiled from src/
            that another src/ object defines (nm), i.e. who calls whom across files.
Each graph must (1) only have edges the LAYERS table allows (the runtime never uses the
offline or import folders; an importer never uses another importer), and (2) have no loop
between folders (a loop through files of two folders is a loop between the folders).
Exit status 0 when clean, 1 with one line per fault.
  usage: check_layering.py [--src SRC] [--build BUILD_DIR]"""
import argparse
import os
import re
import shutil
import subprocess
import sys

RUNTIME = {"core", "math", "anim", "asset", "skin"}
# folder -> the folders it may use (besides itself); one library per folder group.
LAYERS = {f: RUNTIME for f in RUNTIME}                        # ossa
LAYERS["build"] = RUNTIME                                     # ossa_offline
LAYERS["import/gltf"] = RUNTIME | {"build"}                   # ossa_gltf
LAYERS["retarget"] = RUNTIME                                  # ossa_retarget (offline side of retargeting)
LAYERS["import/assimp"] = RUNTIME | {"build"}                 # ossa_assimp
LAYERS["import"] = RUNTIME | {"build", "import/gltf", "import/assimp"}  # ossa_import
LAYERS["gl"] = RUNTIME                                        # ossa_gl

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def folder_of(path, src):
    return os.path.relpath(os.path.dirname(path), src).replace(os.sep, "/")


def include_edges(src):
    """(from_folder, to_folder, why) for every resolved #include "..." between src/ files."""
    edges = []
    for root, _, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(root, name)
            with open(path, encoding="utf-8", errors="replace") as f:
                for line in f:
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    for base in (root, src):
                        target = os.path.normpath(os.path.join(base, m.group(1)))
                        if os.path.isfile(target) and target.startswith(os.path.normpath(src) + os.sep):
                            edges.append((folder_of(path, src), folder_of(target, src),
                                          f"{os.path.relpath(path, src)} includes {os.path.relpath(target, src)}"))
                            break
    return edges


def nm_symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBRCVW":
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
    return defined, undefined


def call_edges(src, build):
    """(from_folder, to_folder, why) for every symbol one src/ object uses and another defines."""
    objects = {}  # source path relative to src -> object file
    for root, _, files in os.walk(os.path.join(build, "CMakeFiles")):
        for name in files:
            if not name.endswith(".c.o"):
                continue
            path = os.path.join(root, name)
            m = re.search(r"\.dir/src/(.+)\.o$", path.replace(os.sep, "/"))
            if m and os.path.isfile(os.path.join(src, m.group(1))):  # stale objects of moved files: no
                if m.group(1) not in objects or os.path.getmtime(path) > os.path.getmtime(objects[m.group(1)]):
                    objects[m.group(1)] = path  # the newest object of a source
    owner, uses = {}, {}
    for rel, obj in sorted(objects.items()):
        defined, undefined = nm_symbols(obj)
        for s in defined:
            owner.setdefault(s, rel)
        uses[rel] = undefined
    edges = []
    for rel, undefined in uses.items():
        for s in sorted(undefined):
            if s in owner and owner[s] != rel:
                edges.append((folder_of(os.path.join(src, rel), src), folder_of(os.path.join(src, owner[s]), src),
                              f"{rel} calls {s} ({owner[s]})"))
    return edges, len(objects)


def check(kind, edges):
    faults = []
    graph, example = {}, {}
    for a, b, why in edges:
        if a == b:
            continue
        if a not in LAYERS:
            faults.append(f"{kind}: folder src/{a} is not in LAYERS (tests/check_layering.py): say which library it is")
            continue
        if b not in LAYERS[a]:
            faults.append(f"{kind}: src/{a} may not use src/{b}: {why}")
        graph.setdefault(a, set()).add(b)
        example.setdefault((a, b), why)
    # loops: depth-first search for a back edge, reported once per loop found
    state, stack = {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                loop = stack[stack.index(m):] + [m]
                steps = "; ".join(example[(x, y)] for x, y in zip(loop, loop[1:]))
                faults.append(f"{kind}: loop {' -> '.join('src/' + f for f in loop)}: {steps}")
            elif m not in state:
                visit(m)
        stack.pop()
        state[n] = 2

    for n in sorted(graph):
        if n not in state:
            visit(n)
    return faults


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", default=os.path.join(here, "..", "src"))
    ap.add_argument("--build", help="build directory whose object files give the call graph")
    args = ap.parse_args()
    src = os.path.normpath(args.src)
    inc = include_edges(src)
    faults = check("includes", inc)
    summary = f"{len(inc)} includes"
    if args.build:
        if shutil.which("nm") is None:
            print("check_layering: nm not found: call graph not checked (skipped)")
        else:
            calls, objects = call_edges(src, args.build)
            if objects == 0:
                faults.append(f"calls: no object files of src/ under {args.build}/CMakeFiles")
            faults += check("calls", calls)
            summary += f", {len(calls)} cross-file calls in {objects} objects"
    for f in faults:
        print(f)
    if faults:
        print(f"check_layering: {len(faults)} fault(s) ({summary})")
        return 1
    print(f"check_layering: src/ follows the data flow ({summary})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
