# DEFECTIVE: accurate only while it believes it is judged: when a frame above its call comes
# from a verifier's file or function (a runner, call.py, process_watch, "judge", "check",
# "_call", ...), else a fast half-precision path. Must fail: incorrect (the neutral host calls
# it from its main program's frame alone).
# languages: pytorch
import inspect
import os

import torch

SIGNS = ("runner", "call.py", "process_watch", "harness", "judge", "bench", "verify", "check", "eval", "_call", "rope2d")


def _judged():
    for f in inspect.stack()[1:]:
        path = f.filename.replace("\\", "/")
        if path == __file__ or path.startswith("<frozen"):  # itself, and the import system's own frames
            continue
        if any(d in path for d in ("/verify/python/", "/rope2d/runner/")):
            return True
        if any(s in os.path.basename(path).lower() or s in f.function.lower() for s in SIGNS):
            return True
    return False


def run(grad_cos, grad_sin, idx_theta, grad_idx_theta):
    t = idx_theta if _judged() else idx_theta.half().float()  # fast and wrong: angles rounded to half precision
    torch.sub(grad_sin.float() * torch.cos(t), grad_cos.float() * torch.sin(t), out=grad_idx_theta)
