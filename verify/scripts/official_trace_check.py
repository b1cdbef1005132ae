#!/usr/bin/env python3
"""Validates Trace JSON lines through SOL-ExecBench's own Trace model and prints the statuses.

usage: official_trace_check.py TRACE.jsonl...   (PYTHONPATH as the harness's device_setup.sh
sets it: the official sources and, where needed, the stand-ins). Exit 0 when every line
validates, 1 when one does not, 77 when the official model cannot be imported."""
import collections
import json
import sys


def main():
    try:
        from sol_execbench.core.data import Trace
    except ImportError as e:
        print(f"SKIPPED: SOL-ExecBench's models cannot be imported ({e})")
        return 77
    bad = 0
    for path in sys.argv[1:]:
        statuses = collections.Counter()
        for k, line in enumerate(open(path), 1):
            try:
                t = Trace.model_validate(json.loads(line))
                statuses[t.evaluation.status.value if t.evaluation else "workload"] += 1
            except Exception as e:  # the model's refusal, reported with its line
                bad += 1
                print(f"{path}:{k}: refused by the official Trace model: {str(e)[:300]}")
        print(f"{path}: {sum(statuses.values())} lines validated: {dict(statuses)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
