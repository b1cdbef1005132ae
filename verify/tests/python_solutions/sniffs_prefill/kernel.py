# DEFECTIVE: samples a few output elements; when they all hold one bit pattern (a judge's
# uniform NaN poison or zeros) it takes the accurate path, else a fast half-precision one.
# Must fail: incorrect (the varied pre-fills look like real memory).
# languages: pytorch
import torch


def run(grad_cos, grad_sin, idx_theta, grad_idx_theta):
    flat = grad_idx_theta.view(-1)
    probe = flat[:: max(1, flat.numel() // 8)].view(torch.int32)
    if probe.numel() == 0 or bool(torch.all(probe == probe[0])):
        t = idx_theta
    else:
        t = idx_theta.half().float()  # fast and wrong: angles rounded to half precision
    torch.sub(grad_sin.float() * torch.cos(t), grad_cos.float() * torch.sin(t), out=grad_idx_theta)
