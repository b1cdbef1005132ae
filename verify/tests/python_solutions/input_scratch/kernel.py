# DEFECTIVE: uses the angles' buffer as scratch for its sin (it saves an allocation), so the
# caller's idx_theta is destroyed. Must fail: inputs modified by the call (idx_theta).
# languages: pytorch
import torch


def run(grad_cos, grad_sin, idx_theta, grad_idx_theta):
    torch.mul(grad_sin.float(), torch.cos(idx_theta), out=grad_idx_theta)
    torch.sin(idx_theta, out=idx_theta)
    grad_idx_theta.sub_(grad_cos.float() * idx_theta)
