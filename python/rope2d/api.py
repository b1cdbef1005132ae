"""rope2d.reference and rope2d.check: the correctly rounded result of
-grad_cos*sin(idx_theta) + grad_sin*cos(idx_theta), and a kernel output judged against it,
both computed by the C++ library (certified double path with MPFR fallback), nothing here."""
import ctypes
import json
from dataclasses import dataclass, field

import numpy as np

from . import _lib
from ._arrays import is_torch, op_inputs, output_array, ptr

OUT_DTYPES = ("fp32", "bf16", "fp16")


def _to_like(result, like, dtype):
    """numpy in -> numpy out; torch in -> a torch tensor of the matching dtype on its device."""
    if not is_torch(like):
        return result
    import torch
    if dtype == "bf16":
        t = torch.from_numpy(result.view(np.int16)).view(torch.bfloat16)
    else:
        t = torch.from_numpy(result)
    return t.to(like.device)


def reference(grad_cos, grad_sin, idx_theta, dtype="fp32", grad_dtype=None):
    """The exact gradient correctly rounded to dtype ("fp32", "bf16" or "fp16"). NumPy results:
    float32, float16, or uint16 bit patterns for bf16; torch inputs give a tensor on their device."""
    if dtype not in OUT_DTYPES:
        raise ValueError(f"dtype: expected one of {', '.join(OUT_DTYPES)}, found {dtype!r}")
    gc, gs, th, kind = op_inputs(grad_cos, grad_sin, idx_theta, grad_dtype)
    out = np.empty(th.shape, dtype={"fp32": np.float32, "fp16": np.float16, "bf16": np.uint16}[dtype])
    _lib.call("rope2d_reference", ptr(gc), ptr(gs), ptr(th), th.size, _lib.DTYPE_CODE[kind], _lib.DTYPE_CODE[dtype], ptr(out))
    return _to_like(out, idx_theta, dtype)


@dataclass
class TierVerdict:
    over: int            # elements over the tier's allowance
    passed: bool
    required_ratio: float


@dataclass
class CheckResult:
    """A comparison, as the verifier's report gives it: errors in units of 2^-24 S, where
    S = |gc sin t| + |gs cos t| (the sum's condition: ulps explode where it cancels, this does not)."""
    count: int
    max_error: float     # max |got - ref| / (2^-24 S)
    rms_error: float
    max_ulp: float       # against the correctly rounded float32
    correctly_rounded: int
    nonfinite_mismatch: int
    poisoned: int
    all_zero: bool
    tier: str
    passed: bool
    tiers: dict = field(default_factory=dict)   # tier name -> TierVerdict
    failures: list = field(default_factory=list)  # FAIL lines of the gate tier
    worst: str = None
    subnormal_mode: str = ""   # "IEEE (...)", "flushes angle (...)", ... or "no subnormal values"
    overflow_accepted: int = 0  # infinities (or FLT_MAX) a bounded-error evaluation can return
    # Where the gate fails, torch.testing.assert_close's lines: "Mismatched elements: N / M (x.x%)",
    # the worst element and the greatest absolute and relative differences at (b, s, d) beside
    # the tier's allowance there (made by the C++ library, as in rope2d's reports).
    mismatch: list = field(default_factory=list)

    @property
    def over(self):
        return self.tiers[self.tier].over

    def summary(self):
        verdicts = ", ".join(f"{k} {'pass' if v.passed else 'FAIL'} ({v.over} over)" for k, v in self.tiers.items())
        return (f"{self.count} elements: max {self.max_error:.3g} x 2^-24 S, RMS {self.rms_error:.3g}, max {self.max_ulp:.3g} ulp, "
                f"{self.correctly_rounded} correctly rounded; {verdicts}")

    def __str__(self):
        return "\n".join([self.summary(), *self.failures] + ([self.worst] if self.worst else []))


def _num(x):
    return float("inf") if x == "inf" else float(x)


def whole_number(x, name, lo, hi):
    """x as an int in [lo, hi], or ValueError naming the argument (as the CLI refuses an option
    out of range): no bool, no float, no silent wrap at the C ABI."""
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)):
        raise ValueError(f"{name}: expected an integer in [{lo}, {hi}], found {type(x).__name__} {x!r}"[:200])
    if not lo <= int(x) <= hi:
        raise ValueError(f"{name}: expected an integer in [{lo}, {hi}], found {int(x)}"[:200])
    return int(x)


def check(out, grad_cos, grad_sin, idx_theta, tier="float32-bound", grad_dtype=None, max_failures=10, name="check",
          ieee_subnormals=False):
    """Judges a float32 output against the correctly rounded reference over every tier;
    `tier` is the gate (its verdict is .passed, its failing elements .failures).
    ieee_subnormals=True demands IEEE subnormal behaviour (flushing a subnormal to zero fails)."""
    max_failures = whole_number(max_failures, "max_failures", 0, 2**31 - 1)  # the C ABI's int, never wrapped
    gc, gs, th, kind = op_inputs(grad_cos, grad_sin, idx_theta, grad_dtype)
    o = output_array(out, th.shape)
    text = ctypes.c_void_p()
    shape = (ctypes.c_int64 * max(th.ndim, 1))(*th.shape)
    _lib.call("rope2d_check", ptr(o), ptr(gc), ptr(gs), ptr(th), shape, th.ndim, _lib.DTYPE_CODE[kind], str(tier).encode(),
              str(name).encode(), int(max_failures), int(bool(ieee_subnormals)), ctypes.byref(text))
    j = json.loads(_lib.take_text(text))
    return CheckResult(count=j["count"], max_error=_num(j["max_scaled"]), rms_error=_num(j["rms_scaled"]),
                       max_ulp=_num(j["max_ulp"]), correctly_rounded=j["correctly_rounded"],
                       nonfinite_mismatch=j["nonfinite_mismatch"], poisoned=j["poisoned"], all_zero=j["all_zero"],
                       tier=j["gate"], passed=j["passed"],
                       tiers={k: TierVerdict(**v) for k, v in j["tiers"].items()}, failures=j["failures"], worst=j["worst"],
                       subnormal_mode=j["subnormal_mode"], overflow_accepted=j["overflow_accepted"],
                       mismatch=j["mismatch"])


def bf16_to_float32(bits):
    """bf16 bit patterns (uint16) widened exactly to float32."""
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def float32_to_bf16(x):
    """float32 rounded to the nearest bf16 (ties to even), as uint16 bit patterns; NaN stays NaN."""
    b = np.asarray(x, dtype=np.float32).view(np.uint32)
    r = (b + 0x7FFF + ((b >> 16) & 1)) >> 16
    return np.where(np.isnan(x), np.uint32(0x7FC0), r).astype(np.uint16)
