"""rope2d.check and rope2d.testing.assert_close: the verifier's metrics and FAIL lines through
the C ABI. An accurate kernel passes every tier; a float16-sin kernel fails float32-bound with lines
in the verifier's form; non-finite, unwritten and all-zero outputs fail every tier."""
import numpy as np
import pytest

import rope2d
from conftest import accurate, fp16_sincos
from rope2d.testing import assert_close

TIERS = {"float32-bound", "bf16-noise", "fp16-noise", "fp32-noise", "solexecbench"}


def run(kernel, gc, gs, th):
    out = np.full(th.shape, np.nan, np.float32)
    kernel(gc, gs, th, out)
    return out


def test_accurate_kernel_passes_every_tier(inputs):
    gc, gs, th = inputs
    r = rope2d.check(run(accurate, gc, gs, th), gc, gs, th)
    assert set(r.tiers) == TIERS
    assert r.passed and all(v.passed for v in r.tiers.values())
    assert r.count == th.size and r.failures == []
    assert r.max_error <= 1.0 and r.correctly_rounded > 0.99 * r.count
    assert_close(run(accurate, gc, gs, th), gc, gs, th)


def test_the_reference_itself_is_exact(inputs):
    gc, gs, th = inputs
    r = rope2d.check(rope2d.reference(gc, gs, th), gc, gs, th)
    assert r.max_error == 0 and r.correctly_rounded == r.count


def test_fp16_sin_fails_float32_bound_with_fail_lines(inputs):
    gc, gs, th = inputs
    out = run(fp16_sincos, gc, gs, th)
    r = rope2d.check(out, gc, gs, th, max_failures=3)
    assert not r.passed and r.over > 0 and r.max_error > 100
    assert len(r.failures) == 3 and all(f.startswith("FAIL check i=") and "err=" in f for f in r.failures)
    assert r.worst.startswith("worst check")
    with pytest.raises(AssertionError, match="(?s)fails tier float32-bound.*FAIL check i="):
        assert_close(out, gc, gs, th)
    # a gate that is not the default changes which verdict .passed reports
    assert rope2d.check(out, gc, gs, th, tier="bf16-noise").tier == "bf16-noise"


def test_nan_unwritten_and_zero_outputs_fail_every_tier(inputs):
    gc, gs, th = inputs
    good = run(accurate, gc, gs, th)
    nan = good.copy()
    nan[0, 0, 0] = np.nan
    r = rope2d.check(nan, gc, gs, th)
    assert r.nonfinite_mismatch == 1 and not any(v.passed for v in r.tiers.values())
    poisoned = good.copy()
    poisoned.reshape(-1)[-1:] = np.array([0x7FC0DEAD], np.uint32).view(np.float32)
    assert rope2d.check(poisoned, gc, gs, th).poisoned == 1
    r = rope2d.check(np.zeros_like(good), gc, gs, th)
    assert r.all_zero and not r.tiers["solexecbench"].passed
    with pytest.raises(AssertionError, match="all zero"):
        assert_close(np.zeros_like(good), gc, gs, th, tier="solexecbench")


def test_bad_arguments_are_named(inputs):
    gc, gs, th = inputs
    good = run(accurate, gc, gs, th)
    with pytest.raises(ValueError, match="tier: expected float32-bound.*found 'loose'"):
        rope2d.check(good, gc, gs, th, tier="loose")
    with pytest.raises(TypeError, match="out: expected float32, found fp16"):
        rope2d.check(good.astype(np.float16), gc, gs, th)
    with pytest.raises(ValueError, match=r"out: expected the shape of the inputs \(2, 5, 128\), found \(1280,\)"):
        rope2d.check(good.reshape(-1), gc, gs, th)


def test_flushed_subnormal_angle_passes_by_default_and_fails_with_ieee_subnormals():
    # Triton's sin/cos treat a subnormal angle as zero: out = gs (issue's example, fp32 grads).
    gc = np.array([float.fromhex("-0x1.f4p-1")], np.float32)
    gs = np.array([float.fromhex("-0x1.cp-131")], np.float32)
    th = np.array([float.fromhex("-0x1.99f1b8p-128")], np.float32)
    out = gs.copy()
    r = rope2d.check(out, gc, gs, th, grad_dtype="fp32")
    assert r.passed and r.subnormal_mode.startswith("flushes angle"), r.subnormal_mode
    strict_ieee = rope2d.check(out, gc, gs, th, grad_dtype="fp32", ieee_subnormals=True)
    assert not strict_ieee.passed and strict_ieee.over == 1
    exact = rope2d.check(rope2d.reference(gc, gs, th, grad_dtype="fp32"), gc, gs, th, grad_dtype="fp32", ieee_subnormals=True)
    assert exact.passed and exact.subnormal_mode.startswith("IEEE")
