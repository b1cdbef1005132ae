#!/usr/bin/env python3
"""The example reports under reports/examples/, from CPU-only paths: outputs for the committed
golden set made here with NumPy, judged by `rope2d check`, which writes the whole report
(report.md, report.html, report.json, junit.xml, trace.jsonl and the two plots).

- passing/: a float32 evaluation as a kernel does it (NumPy's float32 sin and cos, float32
  products and sum): within float32-bound, not always correctly rounded.
- failing/: the same with a naive range reduction, t - k * float32(2 pi), as fast-math sin/cos
  do in effect: the error grows with the angle and fails the layout sets' large angles.
- exact/: the stored correctly rounded results: every element exact.

Usage: example_reports.py ROPE2D [OUT] (OUT: reports/examples). Run from the repository root."""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, "python")
import numpy as np  # noqa: E402

from rope2d import golden  # noqa: E402

GOLDEN = "data/golden-smoke"


def widen(g, dtype):
    if dtype == "bf16":
        return (g.astype(np.uint32) << 16).view(np.float32)
    return g.astype(np.float32)


def float32_kernel(p, reduce_naively=False):
    gc, gs, t = widen(p.grad_cos, p.grad_dtype), widen(p.grad_sin, p.grad_dtype), p.idx_theta.astype(np.float32)
    with np.errstate(all="ignore"):
        if reduce_naively:
            two_pi = np.float32(2 * np.pi)
            t = np.where(np.isfinite(t), (t - np.round(t / two_pi) * two_pi).astype(np.float32), t)
        return (-gc * np.sin(t) + gs * np.cos(t)).astype(np.float32)


def main():
    rope2d = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else "reports/examples"
    problems = golden.load(GOLDEN)
    cases = {
        "passing": {p.name: float32_kernel(p) for p in problems},
        "failing": {p.name: float32_kernel(p, reduce_naively=True) for p in problems},
        "exact": {p.name: p.expected["fp32"] for p in problems},
    }
    # The outputs go to a folder of the working directory, named relatively: the reports record
    # the path they were given, which says nothing of the machine this way.
    tmp = "example-outputs"
    os.makedirs(tmp, exist_ok=False)
    try:
        for name, outputs in cases.items():
            path = os.path.join(tmp, name + ".safetensors")
            golden.write_outputs(path, outputs)
            r = subprocess.run([rope2d, "check", "--golden", GOLDEN, "--outputs", path, "--out", os.path.join(out, name), "--quiet"])
            print(f"{name}: rope2d check exited {r.returncode}")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
