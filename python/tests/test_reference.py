"""rope2d.reference against independent float64 arithmetic (which is within 2^-52 relative of
the exact value away from cancellation) and IEEE-exact cases; dtypes, shapes and validation."""
import numpy as np
import pytest

import rope2d
from conftest import widen


def f64(gc, gs, th):
    t = th.astype(np.float64)
    return -widen(gc) * np.sin(t) + widen(gs) * np.cos(t)


def test_fp32_is_within_half_ulp_of_float64(inputs):
    gc, gs, th = inputs
    ref = rope2d.reference(gc, gs, th)
    assert ref.dtype == np.float32 and ref.shape == th.shape
    exact = f64(gc, gs, th)
    ulp = np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)
    # half an ulp from the correctly rounded value, plus float64's error on the sum
    slack = 1e-15 * (np.abs(widen(gc) * np.sin(th.astype(np.float64))) + np.abs(widen(gs) * np.cos(th.astype(np.float64))))
    assert np.all(np.abs(ref.astype(np.float64) - exact) <= 0.5 * ulp + slack)
    # and equal to float64 rounded once wherever that is not within float64's error of a midpoint
    assert np.mean(ref == exact.astype(np.float32)) > 0.999


def test_exact_cases_follow_ieee():
    one = np.ones(4, np.float32)
    zero = np.zeros(4, np.float32)
    # t = 0: sin 0 = 0 and cos 0 = 1 exactly, so the result is gs exactly
    gs = np.array([1.5, -2.0, 0.25, 3.0], np.float32)
    np.testing.assert_array_equal(rope2d.reference(one, gs, zero), gs)
    # zero grads give zero; NaN angle gives NaN
    assert np.all(rope2d.reference(zero, zero, np.full(4, 2.0, np.float32)) == 0)
    assert np.all(np.isnan(rope2d.reference(one, one, np.full(4, np.nan, np.float32))))


def test_fp16_and_bf16_outputs(inputs):
    gc, gs, th = inputs
    exact = f64(gc, gs, th)
    h = rope2d.reference(gc, gs, th, dtype="fp16")
    assert h.dtype == np.float16 and h.shape == th.shape
    assert np.mean(h == exact.astype(np.float16)) > 0.999
    b = rope2d.reference(gc, gs, th, dtype="bf16")
    assert b.dtype == np.uint16
    widened = rope2d.bf16_to_float32(b).astype(np.float64)
    step = np.spacing(np.abs(widened).astype(np.float32)).astype(np.float64) * 2**16  # bf16 ulp
    assert np.all(np.abs(widened - exact) <= 0.5 * step + 1e-12)


def test_bf16_grads_as_bits_and_fp16_grads(inputs):
    gc, gs, th = inputs
    bc, bs = rope2d.float32_to_bf16(gc), rope2d.float32_to_bf16(gs)
    got = rope2d.reference(bc, bs, th, grad_dtype="bf16")
    np.testing.assert_array_equal(got, rope2d.reference(rope2d.bf16_to_float32(bc), rope2d.bf16_to_float32(bs), th))
    hc, hs = gc.astype(np.float16), gs.astype(np.float16)
    np.testing.assert_array_equal(rope2d.reference(hc, hs, th),
                                  rope2d.reference(hc.astype(np.float32), hs.astype(np.float32), th))


def test_bad_inputs_are_named(inputs):
    gc, gs, th = inputs
    with pytest.raises(TypeError, match="grad_cos: expected float32.*found float64"):
        rope2d.reference(gc.astype(np.float64), gs, th)
    with pytest.raises(ValueError, match=r"grad_sin: expected the shape of grad_cos \(2, 5, 128\), found \(2, 5, 127\)"):
        rope2d.reference(gc, gs[..., :127].copy(), th)
    with pytest.raises(ValueError, match="idx_theta: expected a C-contiguous array"):
        rope2d.reference(gc, gs, np.asfortranarray(th))
    with pytest.raises(TypeError, match="uint16 holds bit patterns"):
        rope2d.reference(gc.view(np.uint16), gs.view(np.uint16), th)
    with pytest.raises(TypeError, match="idx_theta: expected float32, found fp16"):
        rope2d.reference(gc, gs, th.astype(np.float16))
    with pytest.raises(ValueError, match="dtype: expected one of fp32, bf16, fp16"):
        rope2d.reference(gc, gs, th, dtype="fp64")
    with pytest.raises(TypeError, match="expected a numpy array or a torch tensor, found list"):
        rope2d.reference([1.0], gs, th)
