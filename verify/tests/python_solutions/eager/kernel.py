# ACCURATE: PyTorch eager, the benchmark's reference formula (bf16 grads widened to float32,
# float32 sin and cos), written into the given output. Must pass.
# languages: pytorch
import torch


def run(grad_cos, grad_sin, idx_theta, grad_idx_theta):
    torch.sub(grad_sin.float() * torch.cos(idx_theta), grad_cos.float() * torch.sin(idx_theta), out=grad_idx_theta)
