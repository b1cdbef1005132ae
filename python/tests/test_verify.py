"""rope2d.verify: a Python callable over the verifier's problem sets (the small smoke suite here,
for speed), with the verifier's integrity checks and report. Each defect must be caught and
named; the accurate float64 kernel must pass. The callables here take NumPy arrays, so every call
says device="cpu" (on a machine with torch and a GPU the default hands them CUDA tensors)."""
import json

import numpy as np

import rope2d
from conftest import accurate, fp16_sincos


def report(res):
    return json.loads(open(f"{res.report_dir}/report.json").read())


def test_accurate_kernel_passes_with_a_report(tmp_path):
    res = rope2d.verify(accurate, suite="smoke", grad_dtypes=("bf16", "fp16", "fp32"), device="cpu", out=tmp_path / "good")
    assert res.verdict == "passed" and res.exit_code == 0, res.summary
    for f in ("report.md", "report.json", "junit.xml"):
        assert (tmp_path / "good" / f).is_file()
    md = (tmp_path / "good" / "report.md").read_text()
    assert "python callable, in process" in md and "odd/fp32/n=129+1" in md


def test_fp16_sin_is_incorrect_with_fail_lines_and_reproduce(tmp_path):
    res = rope2d.verify(fp16_sincos, suite="smoke", device="cpu", out=tmp_path / "bad")
    assert res.verdict == "incorrect" and res.exit_code == 1
    assert "FAIL randn/bf16/1x64 i=" in res.summary
    md = (tmp_path / "bad" / "report.md").read_text()
    assert "rope2d.verify(fp16_sincos, suite='smoke'" in md and "device='cpu', only='randn/bf16/1x64')" in md


def test_integrity_defects_are_named(tmp_path):
    def skips_last(gc, gs, th, out):
        accurate(gc, gs, th, out)
        out.reshape(-1)[-1] = np.array([0x7FC0DEAD], np.uint32).view(np.float32)[0]

    def writes_input(gc, gs, th, out):
        accurate(gc, gs, th, out)
        th[...] = 0

    calls = []

    def nondeterministic(gc, gs, th, out):
        accurate(gc, gs, th, out)
        calls.append(1)
        if len(calls) % 2 == 0:
            out.reshape(-1)[0] = np.nextafter(out.reshape(-1)[0], np.float32(np.inf))

    for fn, finding in ((writes_input, "inputs modified"), (nondeterministic, "different bits")):
        res = rope2d.verify(fn, suite="smoke", device="cpu", out=tmp_path / fn.__name__)
        assert res.verdict == "incorrect", fn.__name__
        assert any(finding in r.get("integrity", "") for r in report(res)["results"]), fn.__name__
    res = rope2d.verify(skips_last, suite="smoke", device="cpu", out=tmp_path / "skips")
    assert res.verdict == "incorrect"
    # the last element, in both rounds (in the nonfinite set its reference may be NaN itself)
    assert all(r["unwritten"] == 2 for r in report(res)["results"] if r["set"] != "nonfinite")


def test_a_raising_or_wrong_callable_fails_to_run(tmp_path):
    def raises(gc, gs, th, out):
        raise RuntimeError("boom")

    res = rope2d.verify(raises, suite="smoke", device="cpu", out=tmp_path / "raises")
    assert res.verdict == "failed" and res.exit_code == 3 and "RuntimeError: boom" in res.summary

    res = rope2d.verify(lambda gc, gs, th: th.astype(np.float64), suite="smoke", destination_passing=False,
                        device="cpu", out=tmp_path / "dtype")
    assert res.verdict == "failed" and "expected float32" in res.summary


def test_returning_style_and_only(tmp_path):
    def returns(gc, gs, th):
        out = np.empty(th.shape, np.float32)
        accurate(gc, gs, th, out)
        return out

    res = rope2d.verify(returns, quick=True, only="odd/bf16/n=1023", destination_passing=False, device="cpu", out=tmp_path / "ret")
    assert res.verdict == "passed", res.summary
    assert [r["name"] for r in report(res)["results"]] == ["odd/bf16/n=1023"]
