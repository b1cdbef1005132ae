"""rope2d: the correctly rounded reference and the verifier of the batched 2D RoPE backward
(grad_idx_theta = -grad_cos*sin(idx_theta) + grad_sin*cos(idx_theta)) for NumPy and PyTorch,
a thin ctypes binding of the project's C++ library (librope2d_py.so): no numerics in Python.
Names load on first use, so `python3 -m rope2d.solution_schema` needs no NumPy (only the library)
and rope2d.golden (golden sets and outputs files in NumPy) no library;
__version__ is the library's (semantic version + commit, as `rope2d --version`)."""
import importlib

_WHERE = {"reference": "api", "check": "api", "CheckResult": "api", "TierVerdict": "api", "bf16_to_float32": "api",
          "float32_to_bf16": "api", "verify": "_verify", "VerifyResult": "_verify"}
__all__ = [*_WHERE, "testing", "solution_schema", "golden"]


def __getattr__(name):
    if name == "__version__":  # the library's: one version with `rope2d --version`
        from . import _lib

        return _lib.lib().rope2d_version().decode()
    if name in ("testing", "solution_schema", "golden"):
        return importlib.import_module(f".{name}", __name__)
    if name in _WHERE:
        return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module 'rope2d' has no attribute {name!r}")
