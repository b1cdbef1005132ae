# DEFECTIVE: accurate for its first 40 calls (a judge's warm-up and first checks), then a fast
# half-precision path. Must fail: incorrect (every call is judged).
# languages: pytorch
import torch

_calls = 0


def run(grad_cos, grad_sin, idx_theta, grad_idx_theta):
    global _calls
    _calls += 1
    t = idx_theta if _calls <= 40 else idx_theta.half().float()
    torch.sub(grad_sin.float() * torch.cos(t), grad_cos.float() * torch.sin(t), out=grad_idx_theta)
