#!/usr/bin/env python3
"""Fails when the modules of the given source trees include each other in a cycle. A module is
a public header (rope2d/<lib>/NAME.hpp or a private one named by its folder) with the sources
that implement it; module A depends on B when A's header or any of A's sources includes B's
header. A source implements the header of its own name (WING_NAME, NAME, a NAME_part's NAME, or its wing's), a
private header (src/WING/x.hpp) belongs to its wing's module.
    include_cycles.py ROOT...   (e.g. reference verify cuda)
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SOURCES = (".cpp", ".cu", ".cc")
WINGS = set()  # folders under a src/ that hold private headers (filled by main)
HEADERS = (".hpp", ".h", ".cuh")


def module_of_header(path):
    """'rope2d/verify/sweep_worst.hpp' -> 'sweep_worst'; a private header of a wing,
    'src/testbed/device_kernels.hpp' or as included 'testbed/device_kernels.hpp', -> 'testbed'."""
    parts = path.replace("\\", "/").split("/")
    if len(parts) >= 2 and parts[-2] in WINGS:
        return parts[-2]
    return os.path.splitext(parts[-1])[0]


def main(roots):
    headers, sources = {}, []
    for root in roots:
        for d, subdirs, _ in os.walk(root):
            if os.path.basename(d) == "src":
                WINGS.update(subdirs)
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
        # The module a source implements: its wing's own (a private header's folder), else the
        # header named as the source (WING_NAME, NAME, NAME_part's NAME or WING), else none (a program's main).
        incs = {module_of_header(i) for i in INCLUDE.findall(open(source, encoding="utf-8", errors="replace").read())}
        base = os.path.splitext(os.path.basename(source))[0]
        wing = os.path.basename(os.path.dirname(source))
        prefix = max((m for m in modules if base.startswith(m + "_")), key=len, default=None)  # huge_sample -> huge
        for name in (f"{wing}_{base}", base, prefix, wing):
            if name in modules and name in incs | ({wing} if wing in WINGS else set()):
                return name
        return None

    deps = {m: set() for m in modules}
    files = [(p, module_of_header(p)) for ps in headers.values() for p in ps] + [(s, owner(s)) for s in sources]
    unowned = sorted(path for path, mod in files if mod is None)
    for path, mod in files:
        if mod is None:
            continue
        for inc in INCLUDE.findall(open(path, encoding="utf-8", errors="replace").read()):
            m = module_of_header(inc)
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
