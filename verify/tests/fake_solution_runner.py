#!/usr/bin/env python3
"""A stand-in for verify/python/solution_runner.py with no PyTorch, for CPU tests of the
verifier's side of the protocol: same arguments, same JSON lines, same output files. It
evaluates the op in float64 with the standard library and rounds once to float32 (accurate), or
misbehaves as FAKE_MODE says: sign (wrong sign of the sin term), error (the call raises),
shape (returns a wrong shape), nondeterministic (second call differs), findings (the runner's
call-contract findings on every call, and what the import changed)."""
import json
import math
import os
import struct
import sys


def read_st(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        b, e = t["data_offsets"]
        raw = data[b:e]
        if t["dtype"] == "F32":
            vals = list(struct.unpack(f"<{len(raw) // 4}f", raw))
        elif t["dtype"] == "BF16":
            vals = [struct.unpack("<f", struct.pack("<I", h << 16))[0] for h in struct.unpack(f"<{len(raw) // 2}H", raw)]
        elif t["dtype"] == "F16":
            vals = list(struct.unpack(f"<{len(raw) // 2}e", raw))
        else:
            raise ValueError(t["dtype"])
        out[name] = (t["shape"], vals)
    return out


def write_st(path, name, vals):
    data = struct.pack(f"<{len(vals)}f", *vals)
    header = json.dumps({name: {"dtype": "F32", "shape": [len(vals)], "data_offsets": [0, len(data)]}}).encode()
    header += b" " * ((8 - len(header) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(header)) + header + data)


def f32(x):
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def backward(gc, gs, t, mode):
    if math.isnan(gc) or math.isnan(gs) or math.isnan(t) or math.isinf(t):
        return math.nan
    s, c = math.sin(t), math.cos(t)
    if t == 0:
        s, c = t, 1.0
    sign = 1.0 if mode == "sign" else -1.0
    try:
        return f32(sign * (gc * s) + gs * c)
    except (OverflowError, ValueError):
        return math.nan


def main():
    _, entry, dps, jobs_path = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    mode = os.environ.get("FAKE_MODE", "accurate")
    if mode == "findings":
        print(json.dumps({"type": "load", "patched": [], "state": ["default dtype: torch.float32 -> torch.float64"],
                          "threads": []}), flush=True)
    for k, job in enumerate(json.load(open(jobs_path))):
        print(json.dumps({"type": "call", "name": job["name"]}), flush=True)
        t = read_st(job["inputs"])
        shape, gc = t["grad_cos"]
        gs, th = t["grad_sin"][1], t["idx_theta"][1]
        res = {"type": "called", "name": job["name"], "error": None, "shape": shape, "dtype": "float32",
               "inputs_unchanged": True, "deterministic": mode != "nondeterministic"}
        res["first_call_s"], res["calls_s"], res["notes"] = 1.5, 0.25, []
        if mode == "findings":
            res["findings"] = ["writes not ordered on the caller's current stream", "wrote outside its buffers (guard band changed)"]
            res["notes"] = ["threads started by the first call and left running: pool"]
        if mode == "error" and k == 1:
            res["error"] = "RuntimeError: CUDA error: an illegal memory access was encountered"
        elif mode == "shape":
            res["shape"] = [len(gc) + 1]
        else:
            write_st(job["output"], "grad_idx_theta", [backward(a, b, x, mode) for a, b, x in zip(gc, gs, th)])
        print(json.dumps(res), flush=True)


if __name__ == "__main__":
    main()
