# DEFECTIVE: computes on a private stream and never makes the caller's stream wait for it; a
# device-wide synchronize hides it, but the caller's next kernel would read the output (or this
# kernel its inputs) too early. Must fail: writes not ordered on the caller's current stream.
# languages: pytorch
import torch

_side = None


def run(grad_cos, grad_sin, idx_theta, grad_idx_theta):
    global _side
    _side = _side or torch.cuda.Stream()
    with torch.cuda.stream(_side):
        torch.sub(grad_sin.float() * torch.cos(idx_theta), grad_cos.float() * torch.sin(idx_theta), out=grad_idx_theta)
