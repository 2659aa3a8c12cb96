#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""layering: no circles between source files, and the control plane's rooms in order.

A file uses another when its object refers to a symbol (a function or a variable) the
other's object defines, as the linker sees them (nm on the built static libraries). Within
the dataplane and within the control plane the "uses" graph must have no circle, so that
each file can be read after the files it uses. Each circle found is printed with its files
and the symbol behind each use.

The control plane's rooms are in order (dataplane/DESIGN.md, Layout): control/rpc/ may use
the hall (control/ itself) and control/config/; the hall may use control/config/;
control/config/ uses neither; all may use control/json/. The room of an object is its
source's folder, from the build's compile_commands.json.

Usage: tests/layering.py BUILD_ROOT [SOURCE_ROOT]   (meson test layering)
"""
import collections
import json
import os
import subprocess
import sys

# Libraries and the folder their sources sit in.
LIBS = [("dataplane/liblsw_dataplane.a", "dataplane"), ("control/liblsw_control.a", "control")]
DEFINED = set("TDBRGSV")
# Circles known and left, each listed whole (room, files), so that one that grows, or a new
# one, fails; one that is gone must leave the list. None today.
# The control plane's rooms, and the rooms each may use besides itself.
MAY_USE = {"control": {"control/config", "control/json"}, "control/config": {"control/json"},
           "control/rpc": {"control", "control/config", "control/json"}}
KNOWN = []


def objects(path):
    """{object name: (defined symbols, used symbols)} of a static library."""
    out = subprocess.run(["nm", "-A", path], capture_output=True, text=True, check=True).stdout
    objs = collections.defaultdict(lambda: (set(), set()))
    for line in out.splitlines():
        # "LIB:OBJECT:ADDRESS KIND SYMBOL", the address blank for an undefined symbol
        parts = line.split(":", 2)
        fields = parts[2].split() if len(parts) == 3 else []
        if len(fields) < 2:
            continue
        kind, sym = fields[-2], fields[-1]
        obj = os.path.abspath(parts[1])  # a thin archive's member: a path from here
        if kind == "U":
            objs[obj][1].add(sym)
        elif kind in DEFINED:
            objs[obj][0].add(sym)
    return objs


SOURCES = {}  # an object's absolute path: its source, from the source root (sources())


def source_name(obj):
    """The source an object was built from (dataplane/ipv4.c)."""
    return SOURCES.get(obj, os.path.basename(obj))


def circles(graph):
    """The strongly connected components of more than one file (Tarjan), each sorted."""
    index, low, on, stack, out = {}, {}, set(), [], []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def sources(build, top):
    """Fill SOURCES from the build's compile_commands.json."""
    with open(os.path.join(build, "compile_commands.json")) as f:
        for c in json.load(f):
            src = os.path.normpath(os.path.join(c["directory"], c["file"]))
            obj = os.path.normpath(os.path.join(c["directory"], c["output"]))
            SOURCES[obj] = os.path.relpath(src, top)


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
    top = sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))
    sources(build, os.path.abspath(top))
    os.chdir(build)  # nm names a thin archive's members from where it runs
    failed = False
    for lib, room in LIBS:
        objs = objects(lib)
        owner = {}
        for obj, (defs, _) in objs.items():
            for s in defs:
                owner[s] = obj
        graph = {obj: set() for obj in objs}
        why = {}
        for obj, (_, used) in objs.items():
            for s in sorted(used):
                o = owner.get(s)
                if o is not None and o != obj:
                    graph[obj].add(o)
                    why.setdefault((obj, o), s)
        for a in sorted(graph):
            ra = os.path.dirname(source_name(a))
            for b in sorted(graph[a]):
                rb = os.path.dirname(source_name(b))
                if ra != rb and ra in MAY_USE and rb not in MAY_USE[ra]:
                    failed = True
                    print("layering: %s uses %s (%s): %s/ may not use %s/"
                          % (source_name(a), source_name(b), why[(a, b)], ra, rb))
        found = circles(graph)
        names = [sorted(os.path.basename(source_name(o)) for o in comp) for comp in found]
        for k_room, k_files in KNOWN:
            if k_room == room and k_files not in names:
                failed = True
                print("layering: %s: the known circle %s is gone: take it off KNOWN"
                      % (room, ", ".join(k_files)))
        print("layering: %s: %d files, %d circles (%d known)"
              % (room, len(objs), len(found), sum(1 for r, _ in KNOWN if r == room)))
        for comp in found:
            if (room, sorted(os.path.basename(source_name(o)) for o in comp)) in KNOWN:
                continue
            failed = True
            print("layering: %s: a circle of %d files:" % (room, len(comp)))
            for a in comp:
                for b in sorted(graph[a] & set(comp)):
                    print("  %s uses %s (%s)" % (source_name(a), source_name(b), why[(a, b)]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
