"""Shared inputs for the Python API tests: randn-like grads and angles drawn with NumPy (the
reference, not these inputs, decides every expected value), and the two kernels the tests
judge: an accurate one (float64 sin/cos, rounded once) and a defective one (float16 sin/cos);
the plugin's fixture rope2d_check, as an installed package registers it (pytest11); and where
the rope2d program of the same build is."""
import os
from pathlib import Path

import numpy as np
import pytest

import rope2d
from rope2d import _lib
from rope2d.pytest_plugin import rope2d_check  # noqa: F401  (a fixture, by import)


@pytest.fixture
def inputs():
    rng = np.random.default_rng(7)
    shape = (2, 5, 128)
    gc = rng.standard_normal(shape).astype(np.float32)
    gs = rng.standard_normal(shape).astype(np.float32)
    th = (rng.standard_normal(shape) * 3).astype(np.float32)
    return gc, gs, th


def widen(g):
    """Grads as float64: bf16 bit patterns (uint16) decoded, other dtypes widened exactly."""
    return rope2d.bf16_to_float32(g).astype(np.float64) if g.dtype == np.uint16 else g.astype(np.float64)


def accurate(gc, gs, th, out):
    """float64 arithmetic rounded once to float32: within 1/2 ulp plus float64's own error."""
    t = th.astype(np.float64)
    with np.errstate(all="ignore"):  # the nonfinite set: NaN and Inf propagate as IEEE says
        out[...] = (-widen(gc) * np.sin(t) + widen(gs) * np.cos(t)).astype(np.float32)


def fp16_sincos(gc, gs, th, out):
    """DEFECT: the angle rounded to float16 before sin and cos."""
    with np.errstate(all="ignore"):
        t = th.astype(np.float16).astype(np.float64)
        out[...] = (-widen(gc) * np.sin(t) + widen(gs) * np.cos(t)).astype(np.float32)


def program():
    """The rope2d program of the same build: $ROPE2D_PROGRAM, else beside build/python/lib."""
    env = os.environ.get("ROPE2D_PROGRAM")
    return Path(env) if env else _lib.library_path().parent.parent.parent / "verify" / "rope2d"
