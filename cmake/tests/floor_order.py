#!/usr/bin/env python3
"""Fails when a file of a lower floor includes one of a higher floor. The verifier's floors, from
the bottom: model, codec, judge, harness, products, cli (verify/src/README.md). A file's floor is
the folder it sits in: src/FLOOR/..., include/rope2d/LIB/FLOOR/..., or cli/; an include's floor
is read the same way from its spelling ("rope2d/verify/judge/judge.hpp", "codec/plain_text.hpp")
or, for a name beside the file ("xml.hpp"), from the file it names. Files of no floor (tests,
tools, fuzz targets) stand above every floor and are not checked. A source file whose first
include is its own header (the same name, "problem.cpp" and ".../model/problem.hpp") must sit on
that header's floor: a function declared on one floor and defined on a higher one could use the
higher floor where its callers below cannot see it.
    floor_order.py ROOT...   (e.g. verify)
"""
import os
import re
import sys

FLOORS = ("model", "codec", "judge", "harness", "products", "cli")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
FILES = (".hpp", ".h", ".cuh", ".cpp", ".cu", ".cc")
SOURCES = (".cpp", ".cu", ".cc")


def floor_of(parts):
    """The floor named by a path's folders, or None: src/FLOOR/..., include/rope2d/LIB/FLOOR/...,
    cli/..., or as included, FLOOR/... or rope2d/LIB/FLOOR/..."""
    parts = [p for p in parts if p not in ("", ".")]
    for i, p in enumerate(parts[:-1]):
        if p == "src" and i + 1 < len(parts) - 1 and parts[i + 1] in FLOORS:
            return parts[i + 1]
        if p == "rope2d" and i + 2 < len(parts) - 1 and parts[i + 2] in FLOORS:
            return parts[i + 2]
    if parts[0] in FLOORS and len(parts) > 1:
        return parts[0]
    return None


def main(roots):
    checked, upward, off_floor = 0, [], []
    for root in roots:
        for d, _, names in os.walk(root):
            rel = os.path.relpath(d, root).split(os.sep)
            for n in sorted(names):
                if not n.endswith(FILES):
                    continue
                path = os.path.join(d, n)
                mine = floor_of(rel + [n])
                if mine is None:
                    continue
                checked += 1
                for k, inc in enumerate(INCLUDE.findall(open(path, encoding="utf-8", errors="replace").read())):
                    theirs = floor_of(inc.split("/"))
                    beside = os.path.join(d, inc)
                    if theirs is None and os.path.exists(beside):
                        theirs = floor_of(os.path.relpath(beside, root).split(os.sep))
                    if theirs and FLOORS.index(theirs) > FLOORS.index(mine):
                        upward.append(f"upward include: {os.path.relpath(path, root)} ({mine}) includes {inc} ({theirs})")
                    own = k == 0 and n.endswith(SOURCES) and os.path.splitext(os.path.basename(inc))[0] == os.path.splitext(n)[0]
                    if own and theirs and theirs != mine:
                        off_floor.append(f"off its floor: {os.path.relpath(path, root)} ({mine}) defines {inc} ({theirs})")
    for u in upward + off_floor:
        print(u)
    print(f"{checked} files on floors {' < '.join(FLOORS)}, {len(upward)} upward includes, {len(off_floor)} sources off their header's floor")
    # A check that found no file of any floor would pass by accident: a moved tree fails it.
    return 1 if upward or off_floor or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
