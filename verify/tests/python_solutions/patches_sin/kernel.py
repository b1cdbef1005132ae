# DEFECTIVE: replaces torch.sin and torch.cos on import (here with half-precision versions that
# its kernel uses; an in-process reference calling torch.sin would agree with it). Must fail:
# torch attribute replaced on import.
# languages: pytorch
import torch

_sin, _cos = torch.sin, torch.cos
torch.sin = lambda x, *a, **k: _sin(x.half()).float()
torch.cos = lambda x, *a, **k: _cos(x.half()).float()


def run(grad_cos, grad_sin, idx_theta, grad_idx_theta):
    torch.sub(grad_sin.float() * torch.cos(idx_theta), grad_cos.float() * torch.sin(idx_theta), out=grad_idx_theta)
