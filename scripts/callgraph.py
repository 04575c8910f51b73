#!/usr/bin/env python3
"""callgraph.py - which glue file calls functions (or reads variables)
defined in which other glue file, from the built objects' symbol tables,
and the cycles among them.

    make NVCC= && scripts/callgraph.py            # src/*/*.o, or pass objects

A file A "uses" B when A's object refers to a symbol B's object defines.
Prints each file's uses, the strongly connected components of more than
one file (the cycles), each file's layer (0: uses no other glue file), and
the same graph by folder.  The codec (src/codec/) counts as one node: it
never calls the glue.  Exits 1 when files or folders form a cycle.
"""
import glob
import os
import subprocess
import sys


def node(path):
    if "/codec/" in path:
        return "codec"
    return os.path.relpath(path[:-2] + ".c", "src")


def symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True,
                         check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBRGSC":
            defined.add(parts[2])
    return defined, undefined


def tarjan(graph):
    index, low, stack, on, sccs = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on.discard(w)
                scc.append(w)
                if w == v:
                    break
            sccs.append(sorted(scc))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sccs


def main():
    objs = sys.argv[1:] or sorted(glob.glob("src/*.o") + glob.glob("src/*/*.o"))
    if not objs:
        sys.exit("no objects: build first (make NVCC=)")
    owner, uses = {}, {}
    for obj in objs:
        n = node(obj)
        d, u = symbols(obj)
        for s in d:
            owner[s] = n
        uses.setdefault(n, set()).update(u)
    graph = {n: set() for n in uses}
    via = {}
    for n, u in uses.items():
        for s in u:
            m = owner.get(s)
            if m and m != n:
                graph[n].add(m)
                via.setdefault((n, m), []).append(s)
    for n in sorted(graph):
        print(f"{n}: {' '.join(sorted(graph[n])) or '-'}")
    cycles = [c for c in tarjan(graph) if len(c) > 1]
    print(f"\ncycles: {len(cycles)}")
    for c in cycles:
        print("  " + " ".join(c))
        for a in c:
            for b in c:
                if (a, b) in via:
                    print(f"    {a} -> {b}: {' '.join(sorted(via[(a, b)])[:6])}")
    # layers over the condensation: a cycle is one node
    comp = {}
    for i, c in enumerate(tarjan(graph)):
        for v in c:
            comp[v] = i
    layer = {}

    def depth(v):
        if comp[v] not in layer:
            layer[comp[v]] = 0
            deps = [w for c in graph for w in graph[c]
                    if comp[c] == comp[v] and comp[w] != comp[v]]
            layer[comp[v]] = 1 + max((depth(w) for w in deps), default=-1)
        return layer[comp[v]]

    for v in graph:
        depth(v)
    top = max(layer.values())
    print(f"\nlayers: {top + 1}")
    for n in range(top + 1):
        print(f"  {n}: {' '.join(sorted(v for v in graph if layer[comp[v]] == n))}")
    # the same by subsystem (folder)
    sub = {}
    for a in graph:
        for b in graph[a]:
            sa, sb = a.split("/")[0], b.split("/")[0]
            sub.setdefault(sa, set())
            sub.setdefault(sb, set())
            if sa != sb:
                sub[sa].add(sb)
    print("\nsubsystems:")
    for s in sorted(sub):
        print(f"  {s}: {' '.join(sorted(sub[s])) or '-'}")
    cyc = [c for c in tarjan(sub) if len(c) > 1]
    print(f"subsystem cycles: {len(cyc)}")
    for c in cyc:
        print("  " + " ".join(c))
    return 1 if cycles or cyc else 0

if __name__ == "__main__":
    sys.exit(main())
