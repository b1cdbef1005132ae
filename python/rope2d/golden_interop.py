"""Interoperability check of golden sets with another safetensors implementation (the
safetensors Python package and PyTorch): loads every file of a set, recomputes the result in
float64 and compares it with the stored correctly rounded float32, then writes the float32
outputs of PyTorch's eager reference to a safetensors file that `rope2d check --outputs` reads.

usage: python3 -m rope2d.golden_interop GOLDEN_DIR OUTPUTS_FILE"""
import json
import os
import sys

import torch
from safetensors.torch import load_file, save_file


def main():
    golden, outputs_path = sys.argv[1], sys.argv[2]
    manifest = json.load(open(os.path.join(golden, "manifest.json")))
    outputs, total, equal, far, checked = {}, 0, 0, 0, 0
    for f in manifest["files"]:
        t = load_file(os.path.join(golden, f["file"]))
        gc, gs, th = t["grad_cos"], t["grad_sin"], t["idx_theta"]
        exact = -gc.double() * torch.sin(th.double()) + gs.double() * torch.cos(th.double())
        stored = t["grad_idx_theta"]
        nan = torch.isnan(stored)
        assert torch.equal(nan, torch.isnan(exact)), f["file"] + ": NaN positions differ"
        rounded = exact.float()
        total += stored.numel()
        equal += int(((rounded == stored) | nan).sum())
        # float64 evaluation rounded once may differ from the correctly rounded value only by one
        # ulp, and only where the float64 error straddles a rounding boundary.
        # That holds only where float64 itself is accurate to well under a float32 ulp: its
        # error is about 2^-50 S (S = |gc sin t| + |gs cos t|), so cancelling elements are left
        # out, and so are angles beyond 2^20, where this library's float64 sin/cos may reduce
        # the argument inexactly.
        ulp = torch.abs(torch.nextafter(stored, torch.full_like(stored, float("inf"))) - stored).double()
        scale = (gc.double() * torch.sin(th.double())).abs() + (gs.double() * torch.cos(th.double())).abs()
        trusted = (scale * 2.0**-50 < ulp / 4) & (th.abs() < 2.0**20) & ~nan & torch.isfinite(stored)
        diff = torch.abs(rounded.double() - stored.double())
        far += int(((diff > ulp) & trusted).sum())
        checked += int(trusted.sum())
        outputs[f["problem"]] = (-gc.float() * torch.sin(th) + gs.float() * torch.cos(th)).reshape(-1).contiguous()
    save_file(outputs, outputs_path)
    print(f"golden interop: {len(manifest['files'])} files loaded with safetensors {__import__('safetensors').__version__} / "
          f"torch {torch.__version__}; {equal}/{total} stored results equal to float64 rounded once, "
          f"{far} of the {checked} where float64 is trustworthy more than one ulp away; wrote {outputs_path}")
    sys.exit(0 if far == 0 and equal >= 0.99 * total else 1)


if __name__ == "__main__":
    main()
