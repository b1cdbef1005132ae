#!/usr/bin/env python3
"""Writes each <name>/solution.json of this folder from its kernel.py, in SOL-ExecBench's
official form (target_hardware ["LOCAL"], spec.languages from the kernel's "# languages:" line,
destination_passing_style from "# destination_passing_style:", true when absent).
usage: make_solution_json.py [--check]   (--check: exit 1 if a solution.json is out of date)"""
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def solution(name, source):
    def field(key, default):
        m = re.search(rf"^# {key}: (.+)$", source, re.M)
        return m.group(1).strip() if m else default
    return {"name": f"python_{name}", "definition": "090_batched_2d_rope_position_encoding_backward", "author": "rope2d tests",
            "spec": {"languages": field("languages", "pytorch").split(","), "target_hardware": ["LOCAL"],
                     "entry_point": "kernel.py::run", "binding": "torch",
                     "destination_passing_style": field("destination_passing_style", "true") == "true"},
            "sources": [{"path": "kernel.py", "content": source}]}


def main():
    stale = []
    for kernel in sorted(HERE.glob("*/kernel.py")):
        text = json.dumps(solution(kernel.parent.name, kernel.read_text()), indent=1) + "\n"
        target = kernel.parent / "solution.json"
        if "--check" in sys.argv:
            if not target.is_file() or target.read_text() != text:
                stale.append(str(target))
        else:
            target.write_text(text)
    if stale:
        print("out of date (run make_solution_json.py): " + ", ".join(stale))
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
