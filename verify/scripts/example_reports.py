#!/usr/bin/env python3
"""The example reports under reports/examples/, from CPU-only paths: outputs for the committed
golden set made here with NumPy, judged by `rope2d check`, which writes the whole report
(report.md, report.html, report.json, junit.xml, trace.jsonl and the two plots).

- passing/: a float32 evaluation as a kernel does it (NumPy's float32 sin and cos, float32
  products and sum): within float32-bound, not always correctly rounded.
- failing/: the same with a naive range reduction, t - k * float32(2 pi), as fast-math sin/cos
  do in effect: the error grows with the angle and fails the layout sets' large angles.
- exact/: the stored correctly rounded results: every element exact.

One report.html is kept, the failing report's (it has every section: failures, their FAIL lines
and reproduce commands). The other two pages hold what their report.md holds, in the same
layout, from the same writer (screenshots/passing-report-html.png shows the passing one); their
report.md says how to draw them beside it: `rope2d report DIR --file report.html`.

Usage: example_reports.py ROPE2D [OUT] (OUT: reports/examples). Run from the repository root."""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, "python")
import numpy as np  # noqa: E402

from rope2d import golden  # noqa: E402

GOLDEN = "data/golden-smoke"
PAGE_KEPT = "failing"
PAGE_LINK = "The whole report in one page for a browser: [report.html](report.html).\n"


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


def drop_page(folder):
    """Removes the folder's report.html and says in its report.md how to draw it."""
    os.remove(os.path.join(folder, "report.html"))
    md = os.path.join(folder, "report.md")
    with open(md, encoding="utf-8") as f:
        text = f.read()
    if PAGE_LINK not in text:
        sys.exit(f"{md}: no link to report.html to replace")
    note = (f"The whole report in one page for a browser: not kept in this example; `rope2d report {folder} "
            "--file report.html` draws it here from report.json.\n")
    with open(md, "w", encoding="utf-8") as f:
        f.write(text.replace(PAGE_LINK, note))


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
            if name != PAGE_KEPT:
                drop_page(os.path.join(out, name))
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
