"""rope2d.testing.assert_close: a pytest-friendly gate on a kernel's output, judged by the C++
verifier's tolerance table (tier "float32-bound" by default: the proven bound for 2-ulp sin/cos),
failing with the lines torch.testing.assert_close users know and the verifier's FAIL lines."""
from .api import check


def _message(r):
    """The generated failure message: the verdict, torch.testing's lines (mismatched elements,
    the worst element, the greatest absolute and relative differences at (b, s, d) beside the
    allowance there), the metrics and the FAIL lines (hex floats), all from the C++ library."""
    why = []
    if r.nonfinite_mismatch:
        why.append(f"{r.nonfinite_mismatch} NaN/Inf where the reference has none (or the reverse)")
    if r.poisoned:
        why.append(f"{r.poisoned} elements never written")
    if r.all_zero:
        why.append("the output is all zero")
    head = f"rope2d: output fails tier {r.tier}: {r.over} of {r.count} elements over its allowance"
    return "\n".join([head + ("; " + "; ".join(why) if why else ""), "", *r.mismatch, "", r.summary(), *r.failures])


def assert_close(out, grad_cos, grad_sin, idx_theta, tier="float32-bound", grad_dtype=None, max_failures=10, msg=None):
    """Raises AssertionError when out does not pass `tier`; returns the CheckResult otherwise.

    The message names the mismatched elements ("Mismatched elements: N / M (x.x%)"), the worst
    element and the greatest absolute and relative differences with their indices (b, s, d) and
    what the tier allowed there, then the verifier's FAIL lines. As in torch.testing.assert_close,
    `msg` replaces it: a string, or a callable given the generated message and returning the one
    to raise."""
    __tracebackhide__ = True  # noqa: F841  (pytest shows the caller's line, not this frame)
    if msg is not None and not isinstance(msg, str) and not callable(msg):
        raise TypeError(f"msg: expected a str, a callable or None, found {type(msg).__name__}")
    r = check(out, grad_cos, grad_sin, idx_theta, tier=tier, grad_dtype=grad_dtype, max_failures=max_failures)
    if not r.passed:
        text = _message(r)
        if msg is not None:
            text = msg if isinstance(msg, str) else msg(text)
        raise AssertionError(text)
    return r
