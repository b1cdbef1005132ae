# ACCURATE: the reference formula through torch.compile (Inductor's generated Triton kernel),
# returning a fresh output. Must pass.
# languages: pytorch
# destination_passing_style: false
import torch


@torch.compile(dynamic=True)
def _backward(gc, gs, t):
    return gs.float() * torch.cos(t) - gc.float() * torch.sin(t)


def run(grad_cos, grad_sin, idx_theta):
    return _backward(grad_cos, grad_sin, idx_theta)
