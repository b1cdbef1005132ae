#!/usr/bin/env python3
"""Runs a SOL-ExecBench solution's entry point for `rope2d verify solution.json`, out of process,
under the same call contract as a .cu kernel (see docs/python-solutions.md).

usage: solution_runner.py SOLUTION_DIR ENTRY_POINT DPS JOBS_JSON [BUILD_JSON]

ENTRY_POINT is "file.py::function", or "kernel.cu::function" for C++ solutions (BUILD_JSON
{"cpp": true, "compile_options": {...}}: built through the torch binding by solution_build.py).
DPS is 1 for run(grad_cos, grad_sin, idx_theta, grad_idx_theta), 0 for run(...) returning the
output. JOBS_JSON lists {"name", "inputs", "output", "offsets"}: safetensors files of inputs to
read and of the judged output to write (tensor "grad_idx_theta", float32, flattened; elements
some call left unwritten hold the poison). Each job is called three times (call.py says how).
One JSON line per event on stdout: {"type": "load", ...} after the import, {"type": "call"}
before a job and {"type": "called", ...} after it, with the findings of every check."""
import importlib.util
import json
import os
import sys
import threading
import time
import traceback
from pathlib import Path

import numpy as np
import torch
from safetensors.torch import load_file, save_file

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import process_watch as pw  # noqa: E402
from call import Caller  # noqa: E402


# The records go to a copy of stdout; the solution's own prints go to stderr, so that they
# cannot be mistaken for records (a solution that forges them on purpose shares this process
# and is out of reach of any in-process check: see docs/python-solutions.md).
_RECORDS = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
sys.stdout = sys.stderr


def emit(**kw):
    print(json.dumps(kw), file=_RECORDS, flush=True)


def load_entry(sol_dir, entry, dps, build):
    module_file, func_name = entry.split("::")
    if build.get("cpp"):
        import solution_build  # beside this file
        fn, how = solution_build.build(sol_dir, entry, dps, build.get("compile_options", {}))
        emit(type="build", how=how)
        return fn
    spec = importlib.util.spec_from_file_location("solution_module", os.path.join(sol_dir, module_file))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, func_name)


def main():
    sol_dir, entry, dps, jobs_path = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4]
    build = json.loads(sys.argv[5]) if len(sys.argv) > 5 else {}
    sys.path.insert(0, sol_dir)
    torch.cuda.init()
    watch = pw.watched(torch, [("safetensors.torch.save_file", sys.modules["safetensors.torch"], "save_file")])
    ids, state, threads = pw.identities(watch), pw.torch_state(torch), set(threading.enumerate())
    began = time.monotonic()
    try:
        fn = load_entry(sol_dir, entry, dps, build)
    except Exception as e:  # the submission could not be built or loaded: every job fails the same way
        emit(type="load_error", message=f"cannot {'build' if build.get('cpp') else 'load'} {entry}: {type(e).__name__}: {e}")
        return
    # Replacing what the judge reads through fails every call; other changes are reported.
    import_patches = pw.patched(ids, pw.identities(watch))
    emit(type="load", import_s=round(time.monotonic() - began, 3), patched=import_patches,
         state=pw.state_changes(state, pw.torch_state(torch)),
         threads=[t.name for t in threading.enumerate() if t not in threads])
    caller = Caller(fn, dps, watch, pw.identities(watch), sol_dir, emit)  # calls: patches made after the import
    for job in json.load(open(jobs_path)):
        emit(type="call", name=job["name"])
        result = {"type": "called", "name": job["name"], "error": None}
        try:
            t = load_file(job["inputs"], device="cpu")
            judged, info = caller.run(job["name"], t["grad_cos"], t["grad_sin"], t["idx_theta"], job.get("offsets", [0, 0, 0, 0]))
            result.update(info)
            result["findings"] = [f"torch attribute replaced on import: {p}" for p in import_patches] + info["findings"]
            if judged is not None:
                save_file({"grad_idx_theta": torch.from_numpy(judged.view(np.float32))}, job["output"])
        except Exception as e:
            result["error"] = f"{type(e).__name__}: {e}"
            result["trace"] = traceback.format_exc(limit=3)
        emit(**result)


if __name__ == "__main__":
    main()
