"""The package as a whole: one version with the program (`rope2d --version`), well formed
(semantic version + commit), and the plugin's fixture rope2d_check judging like
rope2d.testing.assert_close (an accurate kernel passes, a defective one fails with FAIL lines)."""
import re
import subprocess

import numpy as np
import pytest

import rope2d

from conftest import accurate, fp16_sincos, program


def test_version_is_semver_plus_commit():
    assert re.fullmatch(r"\d+\.\d+\.\d+(\+[0-9A-Za-z]+(\.[0-9A-Za-z]+)*)?", rope2d.__version__), rope2d.__version__


def test_version_is_the_programs():
    exe = program()
    if not exe.is_file():
        pytest.skip(f"no rope2d program at {exe}")
    out = subprocess.run([str(exe), "--version"], capture_output=True, text=True, check=True).stdout.strip()
    assert out == f"rope2d {rope2d.__version__}"


def test_fixture_passes_an_accurate_kernel(rope2d_check, inputs):
    gc, gs, th = inputs
    out = np.full(gc.shape, np.nan, np.float32)
    accurate(gc, gs, th, out)
    assert rope2d_check(out, gc, gs, th).passed


def test_fixture_fails_a_defective_kernel(rope2d_check, inputs):
    gc, gs, th = inputs
    out = np.full(gc.shape, np.nan, np.float32)
    fp16_sincos(gc, gs, th, out)
    with pytest.raises(AssertionError, match="FAIL"):
        rope2d_check(out, gc, gs, th)
