# DEFECTIVE: returns a torch.Tensor subclass whose data is computed only when first read (a
# timer around the call measures nothing). Must fail: the output is not a plain torch.Tensor.
# languages: pytorch
# destination_passing_style: false
import torch


class Lazy(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        for a in args:
            if isinstance(a, Lazy) and a._pending is not None:
                gc, gs, t = a._pending
                a._pending = None
                with torch._C.DisableTorchFunctionSubclass():
                    torch.sub(gs.float() * torch.cos(t), gc.float() * torch.sin(t), out=a)
        return super().__torch_function__(func, types, args, kwargs or {})


def run(grad_cos, grad_sin, idx_theta):
    out = torch.Tensor._make_subclass(Lazy, torch.empty(idx_theta.shape, dtype=torch.float32, device=idx_theta.device))
    out._pending = (grad_cos, grad_sin, idx_theta)
    return out
