"""The runner's work in the neutral host (solution_runner.py starts it): the solution imported or
built, then every job's three calls (call.py), and one JSON record per event written to the
relay's private pipe, each stamped with the secret the relay gave: {"type": "load", ...} after
the import, {"type": "call"} before a job and {"type": "called", ...} after it, with the
findings of every check (the relay passes them on, without the stamp, as the runner's stdout).

`steps(config)` is a generator: each call into the solution (the import included) is handed
to the host's main frame (host_calls.invoke), so that no frame of the runner is on the stack
while solution code runs. Loaded by the host under a neutral file name, with call,
process_watch, host_calls and solution_build given by it (their imports here are resolved while
the host loads them)."""
import sys
import threading
import time
import traceback

import numpy as np
import torch
from safetensors.torch import load_file, save_file

import process_watch as pw
import solution_build
from call import Caller
from host_calls import import_solution, record_writer


def _load(cfg, emit):
    module_file, func_name = cfg["entry"].split("::")
    if cfg["build"].get("cpp"):
        fn, how = solution_build.build(cfg["sol_dir"], cfg["entry"], cfg["dps"], cfg["build"].get("compile_options", {}))
        emit(type="build", how=how)
        return fn
    module = yield from import_solution(cfg["sol_dir"], module_file)
    return getattr(module, func_name)


def steps(cfg):
    """The whole run, as a generator of calls for the host to make (see host_calls.invoke)."""
    emit = record_writer(cfg["records_fd"], cfg.pop("secret"))
    torch.cuda.init()
    watch = pw.watched(torch, [("safetensors.torch.save_file", sys.modules["safetensors.torch"], "save_file")])
    ids, state, threads = pw.identities(watch), pw.torch_state(torch), set(threading.enumerate())
    began = time.monotonic()
    try:
        fn = yield from _load(cfg, emit)
    except Exception as e:  # the submission could not be built or loaded: every job fails the same way
        what = "build" if cfg["build"].get("cpp") else "load"
        # kind "build": SOL-ExecBench's COMPILE_ERROR (a Python source that does not compile too,
        # as `rope2d verify` without a GPU finds it by byte-compiling); else a runtime error.
        kind = "build" if what == "build" or isinstance(e, SyntaxError) else "load"
        emit(type="load_error", kind=kind, message=f"cannot {what} {cfg['entry']}: {type(e).__name__}: {e}")
        return
    # Replacing what the judge reads through fails every call; other changes are reported.
    import_patches = pw.patched(ids, pw.identities(watch))
    emit(type="load", import_s=round(time.monotonic() - began, 3), patched=import_patches,
         state=pw.state_changes(state, pw.torch_state(torch)),
         threads=[t.name for t in threading.enumerate() if t not in threads])
    caller = Caller(fn, cfg["dps"], watch, pw.identities(watch), cfg["sol_dir"], emit)  # calls: patches made after the import
    for job in cfg["jobs"]:
        emit(type="call", name=job["name"])
        result = {"type": "called", "name": job["name"], "error": None}
        try:
            t = load_file(job["inputs"], device="cpu")
            judged, info = yield from caller.run(job["name"], t["grad_cos"], t["grad_sin"], t["idx_theta"],
                                                 job.get("offsets", [0, 0, 0, 0]))
            result.update(info)
            result["findings"] = [f"torch attribute replaced on import: {p}" for p in import_patches] + info["findings"]
            if judged is not None:
                save_file({"grad_idx_theta": torch.from_numpy(judged.view(np.float32))}, job["output"])
        except Exception as e:
            result["error"] = f"{type(e).__name__}: {e}"
            result["trace"] = traceback.format_exc(limit=3)
        emit(**result)
