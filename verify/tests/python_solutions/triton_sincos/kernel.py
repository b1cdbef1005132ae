# ACCURATE: a plain Triton kernel with tl.sin and tl.cos, the public solutions' form. Must pass.
# languages: triton
import torch
import triton
import triton.language as tl


# Nothing specialised on n or on pointer alignment: one compilation per grad dtype, however
# many sizes and offsets the verifier tries.
@triton.jit(do_not_specialize=["gc_ptr", "gs_ptr", "t_ptr", "out_ptr", "n"])
def _backward(gc_ptr, gs_ptr, t_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    gc = tl.load(gc_ptr + offs, mask=mask).to(tl.float32)
    gs = tl.load(gs_ptr + offs, mask=mask).to(tl.float32)
    t = tl.load(t_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, gs * tl.cos(t) - gc * tl.sin(t), mask=mask)


def run(grad_cos, grad_sin, idx_theta, grad_idx_theta):
    n = idx_theta.numel()
    if n == 0:
        return
    gc, gs, t = grad_cos.contiguous(), grad_sin.contiguous(), idx_theta.contiguous()
    out = grad_idx_theta if grad_idx_theta.is_contiguous() else torch.empty_like(grad_idx_theta)
    block = 1024
    _backward[(triton.cdiv(n, block),)](gc, gs, t, out, n, BLOCK=block)
    if out is not grad_idx_theta:
        grad_idx_theta.copy_(out)
