"""rope2d: the correctly rounded reference and the verifier of the batched 2D RoPE backward
(grad_idx_theta = -grad_cos*sin(idx_theta) + grad_sin*cos(idx_theta)) for NumPy and PyTorch,
a thin ctypes binding of the project's C++ library (librope2d_py.so): no numerics in Python."""
from . import testing
from ._verify import VerifyResult, verify
from .api import CheckResult, TierVerdict, bf16_to_float32, check, float32_to_bf16, reference

__all__ = ["reference", "check", "verify", "testing", "CheckResult", "TierVerdict", "VerifyResult",
           "bf16_to_float32", "float32_to_bf16"]
__version__ = "0.1.0"
