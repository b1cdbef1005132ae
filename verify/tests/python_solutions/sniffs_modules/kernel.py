# DEFECTIVE: accurate only while it believes it is judged: when sys.modules holds a module of
# the verifier (a runner, call, process_watch, anything rope2d) or one loaded from a
# verifier's folder, else a fast half-precision path. Must fail: incorrect (the neutral host
# keeps none of its modules there).
# languages: pytorch
import sys

import torch

RUNNER = {"solution_runner", "neutral_main", "host_serve", "host_wire", "process_watch", "solution_build", "host_calls",
          "_call_checks"}

VERIFIER_DIRS = ("/verify/python/", "/rope2d/runner/")


def _judged():
    for name, module in list(sys.modules.items()):
        top = name.split(".")[0]
        if top in RUNNER or "rope2d" in top.lower() or any(d in str(getattr(module, "__file__", None)) for d in VERIFIER_DIRS):
            return True
    return False


JUDGED = _judged()  # decided once, at import


def run(grad_cos, grad_sin, idx_theta, grad_idx_theta):
    t = idx_theta if JUDGED or _judged() else idx_theta.half().float()  # fast and wrong: angles rounded to half precision
    torch.sub(grad_sin.float() * torch.cos(t), grad_cos.float() * torch.sin(t), out=grad_idx_theta)
