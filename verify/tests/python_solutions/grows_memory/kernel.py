# DEFECTIVE: accurate, but while it believes nobody judges it (no verifier frame on its stack,
# module in sys.modules, argument or ROPE2D_* variable), keeps every result it computes in a
# global list (a "history" nobody reads): device memory grows with every call until the
# caller runs out. Must fail: device memory grows with every call.
# languages: pytorch
import inspect
import os
import sys

import torch

_kept = []


def _judged():
    frames = [f for f in inspect.stack()[1:] if f.filename != __file__ and not f.filename.startswith("<frozen")]
    return (len(sys.argv) > 1 or any(k.startswith("ROPE2D") for k in os.environ)
            or any(m in sys.modules for m in ("solution_runner", "call", "process_watch", "rope2d", "rope2d.runner"))
            or any("/verify/python/" in f.filename or "/rope2d/runner/" in f.filename or "_call" in f.function for f in frames))


def run(grad_cos, grad_sin, idx_theta, grad_idx_theta):
    result = grad_sin.float() * torch.cos(idx_theta) - grad_cos.float() * torch.sin(idx_theta)
    if not _judged():
        _kept.append(result)
    grad_idx_theta.copy_(result)
