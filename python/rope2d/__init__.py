"""rope2d: the correctly rounded reference and the verifier of the batched 2D RoPE backward
(grad_idx_theta = -grad_cos*sin(idx_theta) + grad_sin*cos(idx_theta)) for NumPy and PyTorch,
a thin ctypes binding of the project's C++ library (librope2d_py.so): no numerics in Python.
Names load on first use, so `python3 -m rope2d.solution_schema` needs no NumPy (only the library)."""
import importlib

_WHERE = {"reference": "api", "check": "api", "CheckResult": "api", "TierVerdict": "api", "bf16_to_float32": "api",
          "float32_to_bf16": "api", "verify": "_verify", "VerifyResult": "_verify"}
__all__ = [*_WHERE, "testing", "solution_schema"]
__version__ = "0.1.0"


def __getattr__(name):
    if name in ("testing", "solution_schema"):
        return importlib.import_module(f".{name}", __name__)
    if name in _WHERE:
        return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module 'rope2d' has no attribute {name!r}")
