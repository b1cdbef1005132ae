#!/usr/bin/env python3
"""Fails when the modules of the given source trees include each other in a cycle. A module is
a header, named by its folder and its name as it is included ("rope2d/verify/model/report.hpp"
and verify/include/rope2d/verify/model/report.hpp are model/report; "harness/testbed/buffers.hpp"
is testbed/buffers; "xml.hpp" beside products/report/html.cpp is report/xml), with the sources
that implement it; module A depends on B when A's header or any of A's sources includes B's
header. A source implements the header it includes of its own name (FOLDER_NAME, NAME, a
NAME_part's NAME, or its folder's name), preferring one of its own folder.
    include_cycles.py ROOT...   (e.g. reference verify cuda)
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SOURCES = (".cpp", ".cu", ".cc")
HEADERS = (".hpp", ".h", ".cuh")


def module_of_header(path):
    """'rope2d/verify/model/report.hpp' -> 'model/report', 'src/harness/testbed/buffers.hpp'
    -> 'testbed/buffers': the folder holding it and its name."""
    parts = path.replace("\\", "/").split("/")
    return "/".join(parts[-2:-1] + [os.path.splitext(parts[-1])[0]])


def includes(path):
    """The modules a file includes: an include naming a file beside it is read from there."""
    out = set()
    for inc in INCLUDE.findall(open(path, encoding="utf-8", errors="replace").read()):
        beside = os.path.join(os.path.dirname(path), inc)
        out.add(module_of_header(os.path.normpath(beside) if os.path.exists(beside) else inc))
    return out


def main(roots):
    headers, sources = {}, []
    for root in roots:
        for d, _, names in os.walk(root):
            if "tests" in os.path.relpath(d, root).split(os.sep):
                continue  # tests include what they test; they are no module
            for n in names:
                p = os.path.join(d, n)
                if n.endswith(HEADERS):
                    headers.setdefault(module_of_header(p), []).append(p)
                elif n.endswith(SOURCES):
                    sources.append(p)
    modules = set(headers)

    def owner(source):
        # The module a source implements: the header it includes named as the source (FOLDER_NAME,
        # NAME, NAME_part's NAME or FOLDER), one of its own folder first, else none (a program's main).
        incs = includes(source) & modules
        base = os.path.splitext(os.path.basename(source))[0]
        folder = os.path.basename(os.path.dirname(source))
        names = {m.split("/")[-1] for m in incs}
        prefix = max((m for m in names if base.startswith(m + "_")), key=len, default=None)  # huge_sample -> huge
        for name in (f"{folder}_{base}", base, prefix, folder):
            hits = sorted((m for m in incs if m.split("/")[-1] == name), key=lambda m: m.split("/")[0] != folder)
            if hits:
                return hits[0]
        return None

    deps = {m: set() for m in modules}
    files = [(p, module_of_header(p)) for ps in headers.values() for p in ps] + [(s, owner(s)) for s in sources]
    unowned = sorted(path for path, mod in files if mod is None)
    for path, mod in files:
        if mod is None:
            continue
        for m in includes(path):
            if m in modules and m != mod:
                deps[mod].add(m)
    # Tarjan's strongly connected components: any with more than one module is a cycle.
    index, low, on, stack, cycles, counter = {}, {}, set(), [], [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]; counter[0] += 1
        stack.append(v); on.add(v)
        for w in sorted(deps[v]):
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(modules):
        if v not in index:
            visit(v)
    for c in cycles:
        print("include cycle among modules: " + ", ".join(f"{m} -> {sorted(deps[m] & set(c))}" for m in c))
    # A source of no module (a program's commands and main, a test) is named, not silently
    # dropped: nothing includes it, so it can close no cycle, but a library source here would
    # hide its module's includes.
    print(f"{len(unowned)} sources of no module (no edges from them): " + ", ".join(unowned))
    print(f"{len(modules)} modules, {len(cycles)} cycles")
    return 1 if cycles else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
