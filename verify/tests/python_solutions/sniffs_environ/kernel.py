# DEFECTIVE: accurate only while it believes it is judged: when the environment holds a
# verifier's variable (ROPE2D_*: the test sets ROPE2D_REQUIRE_GPU=1), else a fast
# half-precision path. Must fail: incorrect (the neutral host's environment has none).
# languages: pytorch
import os

import torch


def run(grad_cos, grad_sin, idx_theta, grad_idx_theta):
    judged = any(k.upper().startswith("ROPE2D") for k in os.environ)
    t = idx_theta if judged else idx_theta.half().float()  # fast and wrong: angles rounded to half precision
    torch.sub(grad_sin.float() * torch.cos(t), grad_cos.float() * torch.sin(t), out=grad_idx_theta)
