# DEFECTIVE: accurate only while it believes it is judged: when the program was started with
# arguments (a runner's jobs file, a solution folder), else a fast half-precision path. Must
# fail: incorrect (the neutral host's sys.argv is a plain program's).
# languages: pytorch
import sys

import torch

JUDGED = len(sys.argv) > 1 or any(a.endswith(".json") or "runner" in a for a in sys.argv)


def run(grad_cos, grad_sin, idx_theta, grad_idx_theta):
    t = idx_theta if JUDGED else idx_theta.half().float()  # fast and wrong: angles rounded to half precision
    torch.sub(grad_sin.float() * torch.cos(t), grad_cos.float() * torch.sin(t), out=grad_idx_theta)
