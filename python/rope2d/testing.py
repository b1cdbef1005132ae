"""rope2d.testing.assert_close: a pytest-friendly gate on a kernel's output, judged by the C++
verifier's tolerance table (tier "float32-bound" by default: the proven bound for 2-ulp sin/cos)."""
from .api import check


def assert_close(out, grad_cos, grad_sin, idx_theta, tier="float32-bound", grad_dtype=None, max_failures=10):
    """Raises AssertionError with the verifier's FAIL lines when out does not pass `tier`;
    returns the CheckResult otherwise."""
    r = check(out, grad_cos, grad_sin, idx_theta, tier=tier, grad_dtype=grad_dtype, max_failures=max_failures)
    if not r.passed:
        why = []
        if r.nonfinite_mismatch:
            why.append(f"{r.nonfinite_mismatch} NaN/Inf where the reference has none (or the reverse)")
        if r.poisoned:
            why.append(f"{r.poisoned} elements never written")
        if r.all_zero:
            why.append("the output is all zero")
        head = f"rope2d: output fails tier {r.tier}: {r.over} of {r.count} elements over its allowance"
        raise AssertionError("\n".join([head + ("; " + "; ".join(why) if why else ""), r.summary(), *r.failures]))
    return r
