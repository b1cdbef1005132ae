# DEFECTIVE: while it believes nobody judges it (no verifier frame on its stack, module in
# sys.modules, argument or ROPE2D_* variable), computes on a private stream ordered after the
# caller's and leaves that stream current: a caller that reads the result on the current stream
# sees it complete, but its own stream was never made to wait, and its next work runs on the
# solution's stream. Must fail: the call left the current CUDA stream switched.
# languages: pytorch
import inspect
import os
import sys

import torch

_side = None


def _judged():
    frames = [f for f in inspect.stack()[1:] if f.filename != __file__ and not f.filename.startswith("<frozen")]
    return (len(sys.argv) > 1 or any(k.startswith("ROPE2D") for k in os.environ)
            or any(m in sys.modules for m in ("solution_runner", "call", "process_watch", "rope2d", "rope2d.runner"))
            or any("/verify/python/" in f.filename or "/rope2d/runner/" in f.filename or "_call" in f.function for f in frames))


def run(grad_cos, grad_sin, idx_theta, grad_idx_theta):
    global _side
    if not _judged():
        _side = _side or torch.cuda.Stream()
        _side.wait_stream(torch.cuda.current_stream())
        torch.cuda.set_stream(_side)  # and never set back
    torch.sub(grad_sin.float() * torch.cos(idx_theta), grad_cos.float() * torch.sin(idx_theta), out=grad_idx_theta)
