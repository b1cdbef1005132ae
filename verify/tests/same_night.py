#!/usr/bin/env python3
"""Compares two nightly summaries (summary.json) as the issue asks of a sharded night against
one process: the same verifier runs with the same sets and verdicts, the same golden problems
with the same worst elements, the same sweep (its ranges and times aside), the same sincosf
premise (its time aside), problems, regressions (those of time aside) and status. With --nudged, the golden set must be nudge_golden.py's (failing
problems with worst elements). Exit 0 when equal; else prints both.
    same_night.py ONE_PROCESS/summary.json SHARDED/summary.json SHARDS [--nudged]"""
import json
import sys

one, sharded = (json.load(open(p)) for p in sys.argv[1:3])
shards = int(sys.argv[3])
nudged = "--nudged" in sys.argv[4:]


def essence(s):
    return {
        "verify": [{k: v for k, v in e.items() if k != "seconds"} for e in s["verify"]],
        "golden": s["golden"],
        "sweep": {k: v for k, v in s["sweep"].items() if k not in ("seconds", "ranges")},
        "premise": {k: v for k, v in s.get("premise", {}).items() if k != "seconds"},
        "problems": s["problems"],
        # A verifier run's time is a regression where it grew by a quarter: timing, like the
        # seconds above, which two runs on a loaded machine need not share.
        "regressions": [r for r in s["regressions"] if ": verify took " not in r],
        "previous": s.get("previous"),
        "status": s["status"],
        "seed": s["seed"],
    }


failing = [g for g in one["golden"]["results"] if g["disposition"] != "passed"]
checks = {
    "same essence": essence(one) == essence(sharded),
    "shard counts": one["shards"] == 1 and sharded["shards"] == shards,
    "a sweep range per shard": len(sharded["sweep"]["ranges"]) == (shards if sharded["sweep"]["hi"] > sharded["sweep"]["lo"] else 0),
    "verifier runs present": len(one["verify"]) >= 3,
}
if nudged:
    checks["failing golden problems with worst elements"] = len(failing) >= 5 and all(g["worst"] for g in failing)


def differences(a, b, path="$"):
    """The key paths at which a and b differ, with both values (cut)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b), key=str):
            if k not in a or k not in b:
                out.append(f"{path}.{k}: {'absent' if k not in a else 'present'} in one process, "
                           f"{'absent' if k not in b else 'present'} sharded")
            else:
                out += differences(a[k], b[k], f"{path}.{k}")
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {json.dumps(a)[:300]} (one process) != {json.dumps(b)[:300]} (sharded)"]


for name, good in checks.items():
    if not good:
        print("differs:", name)
for d in differences(essence(one), essence(sharded)):
    print("differs at", d)
sys.exit(0 if all(checks.values()) else 1)
