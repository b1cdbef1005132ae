# DEFECTIVE: caches its result by the inputs' addresses and shape, so a later call with other
# data at the same addresses (a reused buffer: the normal case in a training loop) gets a stale
# result. Must fail: incorrect.
# languages: pytorch
import torch

_cache = {}


def run(grad_cos, grad_sin, idx_theta, grad_idx_theta):
    key = (grad_cos.data_ptr(), grad_sin.data_ptr(), idx_theta.data_ptr(), tuple(idx_theta.shape))
    if key not in _cache:
        _cache[key] = grad_sin.float() * torch.cos(idx_theta) - grad_cos.float() * torch.sin(idx_theta)
    grad_idx_theta.copy_(_cache[key])
