"""Arguments the CLI refuses are refused by the Python API too (ValueError naming the argument),
never wrapped at the C ABI; and verify(timeout=...) bounds each call of the callable."""
import json
import threading
import time

import numpy as np
import pytest

import rope2d
from conftest import accurate


@pytest.mark.parametrize("bad", [2**31, -1, 2**70, 1.5, True, "3"])
def test_check_refuses_max_failures_out_of_range(inputs, bad):
    gc, gs, th = inputs
    out = np.full(th.shape, np.nan, np.float32)
    accurate(gc, gs, th, out)
    with pytest.raises(ValueError, match="max_failures"):
        rope2d.check(out, gc, gs, th, grad_dtype="fp32", max_failures=bad)


def test_check_takes_the_largest_int(inputs):
    gc, gs, th = inputs
    out = np.full(th.shape, np.nan, np.float32)
    accurate(gc, gs, th, out)
    assert rope2d.check(out, gc, gs, th, grad_dtype="fp32", max_failures=2**31 - 1).passed


@pytest.mark.parametrize("seed", [-1, 2**70, 2**48 + 1, 1.0, True])
def test_verify_refuses_seed_out_of_range(tmp_path, seed):
    with pytest.raises(ValueError, match="seed"):
        rope2d.verify(accurate, suite="smoke", device="cpu", seed=seed, out=tmp_path / "r")
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("rounds", [0, 101, -1, 2**70])
def test_verify_refuses_rounds_out_of_range(tmp_path, rounds):
    with pytest.raises(ValueError, match="rounds"):
        rope2d.verify(accurate, suite="smoke", device="cpu", rounds=rounds, out=tmp_path / "r")


@pytest.mark.parametrize("timeout", [0, -1, float("nan"), float("inf"), 86401, "5"])
def test_verify_refuses_timeout_out_of_range(tmp_path, timeout):
    with pytest.raises(ValueError, match="timeout"):
        rope2d.verify(accurate, suite="smoke", device="cpu", timeout=timeout, out=tmp_path / "r")


def test_verify_timeout_bounds_a_call_that_never_returns(tmp_path):
    release = threading.Event()
    calls = []

    def hangs(gc, gs, th, out):
        calls.append(1)
        release.wait(60)  # "never", for the test; released at its end so no thread outlives it
        accurate(gc, gs, th, out)

    start = time.monotonic()
    try:
        res = rope2d.verify(hangs, suite="smoke", device="cpu", timeout=0.5, out=tmp_path / "r")
    finally:
        release.set()
    took = time.monotonic() - start
    assert res.verdict == "failed" and res.exit_code == 3, res.summary
    assert "did not return within 0.5 s" in res.summary
    assert len(calls) == 1, "no call after one that did not return"
    # The set whose call hung is TIMEOUT (docs/solexecbench.md); the sets not run after it are not.
    statuses = [json.loads(line)["evaluation"]["status"] for line in open(tmp_path / "r" / "trace.jsonl")]
    assert statuses[0] == "TIMEOUT" and set(statuses[1:]) == {"RUNTIME_ERROR"}, statuses
    assert took < 30, f"verify took {took:.1f} s with a 0.5 s bound per call"


def test_verify_timeout_lets_a_prompt_kernel_pass(tmp_path):
    res = rope2d.verify(accurate, suite="smoke", device="cpu", timeout=60, out=tmp_path / "r")
    assert res.verdict == "passed", res.summary
