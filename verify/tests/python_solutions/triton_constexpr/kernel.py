# ACCURATE: a Triton kernel that takes the element count as tl.constexpr, so it compiles once
# per distinct size (as some public solutions do). Must pass, and `--quick` must stay quick.
# languages: triton
import triton
import triton.language as tl


@triton.jit
def _backward(gc_ptr, gs_ptr, t_ptr, out_ptr, N: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    gc = tl.load(gc_ptr + offs, mask=mask).to(tl.float32)
    gs = tl.load(gs_ptr + offs, mask=mask).to(tl.float32)
    t = tl.load(t_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, gs * tl.cos(t) - gc * tl.sin(t), mask=mask)


def run(grad_cos, grad_sin, idx_theta, grad_idx_theta):
    n = idx_theta.numel()
    if n == 0:
        return
    _backward[(triton.cdiv(n, 1024),)](grad_cos, grad_sin, idx_theta, grad_idx_theta, N=n, BLOCK=1024)
