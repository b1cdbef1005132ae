"""Validation and conversion of the op's arrays for the C ABI: NumPy arrays, or PyTorch tensors
on any device (copied to the host). Grads are bf16 (torch.bfloat16, ml_dtypes.bfloat16, or
uint16 bit patterns with grad_dtype="bf16"), float16 or float32; idx_theta and outputs float32;
all of one shape, C-contiguous. Errors name the argument, what was expected and what was found."""
import ctypes
import sys

import numpy as np

GRAD_DTYPES = ("bf16", "fp16", "fp32")


def is_torch(x):
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(x, torch.Tensor)


def _torch_to_numpy(x, name):
    import torch
    if not x.is_contiguous():
        raise ValueError(f"{name}: expected a contiguous tensor, found strides {tuple(x.stride())} (call .contiguous())")
    x = x.detach()
    if x.dtype == torch.bfloat16:
        return x.cpu().view(torch.int16).numpy().view(np.uint16), "bf16"
    kinds = {torch.float16: "fp16", torch.float32: "fp32"}
    if x.dtype not in kinds:
        raise TypeError(f"{name}: expected a torch.bfloat16, float16 or float32 tensor, found {x.dtype}")
    return x.cpu().numpy(), kinds[x.dtype]


def _numpy_kind(a, name, grad_dtype):
    if a.dtype == np.float32:
        kind = "fp32"
    elif a.dtype == np.float16:
        kind = "fp16"
    elif a.dtype.name == "bfloat16" and a.dtype.itemsize == 2:  # ml_dtypes
        return a.view(np.uint16), "bf16"
    elif a.dtype == np.uint16:
        if grad_dtype not in ("bf16", "fp16"):
            raise TypeError(f"{name}: uint16 holds bit patterns: pass grad_dtype='bf16' (or 'fp16'), found grad_dtype={grad_dtype!r}")
        return a, grad_dtype
    else:
        raise TypeError(f"{name}: expected float32, float16, bfloat16 or uint16 (bf16 bits), found {a.dtype}")
    return a, kind


def host_array(x, name, grad_dtype=None):
    """(C-contiguous numpy array, its kind: bf16 | fp16 | fp32)."""
    if is_torch(x):
        a, kind = _torch_to_numpy(x, name)
    elif isinstance(x, np.ndarray):
        if not x.flags["C_CONTIGUOUS"]:
            raise ValueError(f"{name}: expected a C-contiguous array, found strides {x.strides} (use np.ascontiguousarray)")
        a, kind = _numpy_kind(x, name, grad_dtype)
    else:
        raise TypeError(f"{name}: expected a numpy array or a torch tensor, found {type(x).__name__}")
    if grad_dtype is not None and grad_dtype not in GRAD_DTYPES:
        raise ValueError(f"grad_dtype: expected one of {', '.join(GRAD_DTYPES)}, found {grad_dtype!r}")
    return a, kind


def op_inputs(grad_cos, grad_sin, idx_theta, grad_dtype=None):
    """Validated host copies (gc, gs, theta) and the grad dtype."""
    gc, kc = host_array(grad_cos, "grad_cos", grad_dtype)
    gs, ks = host_array(grad_sin, "grad_sin", grad_dtype)
    th, kt = host_array(idx_theta, "idx_theta")
    if kc != ks:
        raise TypeError(f"grad_sin: expected the dtype of grad_cos ({kc}), found {ks}")
    if grad_dtype is not None and kc != grad_dtype:
        raise TypeError(f"grad_cos: grad_dtype={grad_dtype!r} given, but the grads are {kc}")
    if kt != "fp32":
        raise TypeError(f"idx_theta: expected float32, found {kt}")
    for name, a in (("grad_sin", gs), ("idx_theta", th)):
        if a.shape != gc.shape:
            raise ValueError(f"{name}: expected the shape of grad_cos {tuple(gc.shape)}, found {tuple(a.shape)}")
    return gc, gs, th, kc


def output_array(out, shape):
    o, kind = host_array(out, "out")
    if kind != "fp32":
        raise TypeError(f"out: expected float32, found {kind}")
    if o.shape != shape:
        raise ValueError(f"out: expected the shape of the inputs {tuple(shape)}, found {tuple(o.shape)}")
    return o


def ptr(a):
    return a.ctypes.data_as(ctypes.c_void_p)
