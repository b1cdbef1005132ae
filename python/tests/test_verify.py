"""rope2d.verify: a Python callable over the verifier's problem sets (the small smoke suite here,
for speed), with the verifier's integrity checks and report. Each defect must be caught and
named; the accurate float64 kernel must pass. The callables here take NumPy arrays, so every call
says device="cpu" (on a machine with torch and a GPU the default hands them CUDA tensors)."""
import json

import numpy as np
import pytest

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


def test_nan_payloads_may_differ_between_calls_unwritten_elements_may_not(tmp_path):
    calls, flipped = [], []

    def nan_sign_flips(gc, gs, th, out):  # honest: IEEE fixes no NaN's sign or payload
        accurate(gc, gs, th, out)
        calls.append(1)
        if len(calls) % 2 == 0:
            flat = out.reshape(-1)
            nan = np.isnan(flat)
            flat.view(np.uint32)[nan] ^= np.uint32(0x80000000)
            flipped.append(int(nan.sum()))

    res = rope2d.verify(nan_sign_flips, suite="smoke", device="cpu", out=tmp_path / "flips")
    assert res.verdict == "passed", res.summary
    assert sum(flipped) > 0  # the smoke suite's nonfinite set has NaN results

    def leaves_nans_unwritten_on_repeat(gc, gs, th, out):  # the second call skips the NaN results
        full = np.empty_like(out)
        accurate(gc, gs, th, full)
        calls.append(1)
        keep = ~np.isnan(full) if len(calls) % 2 == 0 else np.ones(full.shape, bool)
        out[keep] = full[keep]

    calls.clear()
    res = rope2d.verify(leaves_nans_unwritten_on_repeat, suite="smoke", device="cpu", out=tmp_path / "skips")
    assert res.verdict == "incorrect"
    assert any("different bits" in r.get("integrity", "") for r in report(res)["results"] if r["set"] == "nonfinite")


def test_a_raising_or_wrong_callable_fails_to_run(tmp_path):
    def raises(gc, gs, th, out):
        raise RuntimeError("boom")

    res = rope2d.verify(raises, suite="smoke", device="cpu", out=tmp_path / "raises")
    assert res.verdict == "failed" and res.exit_code == 3 and "RuntimeError: boom" in res.summary

    res = rope2d.verify(lambda gc, gs, th: th.astype(np.float64), suite="smoke", destination_passing=False,
                        device="cpu", out=tmp_path / "dtype")
    assert res.verdict == "failed" and "expected float32" in res.summary


def test_an_interrupt_stops_the_run_and_is_raised(tmp_path):
    # The callable's exceptions fail its call; an interrupt never crosses into the library as a
    # failed call: the run stops at once, no report is written, and verify raises it.
    calls = []

    def interrupted(gc, gs, th, out):
        calls.append(1)
        if len(calls) == 3:  # the first call of the second round (each round calls twice)
            raise KeyboardInterrupt
        accurate(gc, gs, th, out)

    with pytest.raises(KeyboardInterrupt):
        rope2d.verify(interrupted, suite="smoke", device="cpu", out=tmp_path / "r")
    assert len(calls) == 3 and not (tmp_path / "r" / "report.json").exists()


def test_an_interrupt_while_the_library_works_stops_the_run_and_is_raised(tmp_path):
    # Ctrl-C after a call returned, while the library compares and makes the next inputs in C:
    # Python runs no handler until the next callback, whose first instruction ctypes would not
    # let an exception leave. It is kept and stops the run there, and verify raises it.
    import os
    import signal
    import threading
    calls = []

    def interrupted_later(gc, gs, th, out):
        calls.append(1)
        if len(calls) == 1:
            threading.Timer(0.02, os.kill, (os.getpid(), signal.SIGINT)).start()
        accurate(gc, gs, th, out)

    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt):
        rope2d.verify(interrupted_later, quick=True, device="cpu", out=tmp_path / "r")
    assert signal.getsignal(signal.SIGINT) is before, "the caller's handler is restored"
    assert len(calls) < 20 and not (tmp_path / "r" / "report.json").exists(), len(calls)


def test_an_ignored_interrupt_stays_ignored(tmp_path):
    # A caller that ignores SIGINT keeps ignoring it through verify.
    import os
    import signal

    def interrupts(gc, gs, th, out):
        os.kill(os.getpid(), signal.SIGINT)
        accurate(gc, gs, th, out)

    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        res = rope2d.verify(interrupts, only="odd/bf16/n=1", device="cpu", out=tmp_path / "r")
        assert res.verdict == "passed", res.summary
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)


def test_an_unprintable_message_fails_the_call_not_the_run(tmp_path):
    class Unprintable(Exception):
        def __str__(self):
            raise RuntimeError("no words")

    def raises(gc, gs, th, out):
        raise Unprintable

    def surrogate(gc, gs, th, out):
        raise OSError(2, "no such file", "bad\udcffname")

    for fn, words in ((raises, "Unprintable whose message could not be read"), (surrogate, "bad\\udcffname")):
        res = rope2d.verify(fn, only="odd/bf16/n=1", device="cpu", out=tmp_path / fn.__name__)
        assert res.verdict == "failed", res.summary
        errors = [r["error"] for r in report(res)["results"]]
        assert errors and words in errors[0], errors


def test_returning_style_and_only(tmp_path):
    def returns(gc, gs, th):
        out = np.empty(th.shape, np.float32)
        accurate(gc, gs, th, out)
        return out

    res = rope2d.verify(returns, quick=True, only="odd/bf16/n=1030", destination_passing=False, device="cpu", out=tmp_path / "ret")
    assert res.verdict == "passed", res.summary
    assert [r["name"] for r in report(res)["results"]] == ["odd/bf16/n=1030"]


def test_the_verification_suite_with_its_worst_set(tmp_path):
    # The same sets as `rope2d verify --quick`, the worst-case lists included (they travel with
    # the library): the accurate kernel passes every one.
    res = rope2d.verify(accurate, quick=True, device="cpu", out=tmp_path / "quick")
    assert res.verdict == "passed", res.summary
    sets = {r["set"] for r in report(res)["results"]}
    assert {"worst", "randn", "layout", "special", "near_overflow"} <= sets, sets


def trace(res):
    return [json.loads(line) for line in open(f"{res.report_dir}/trace.jsonl")]


def test_statuses_and_axes_of_the_trace(tmp_path):
    # Each kind of failure gets its SOL-ExecBench status (docs/solexecbench.md's table), the
    # same in trace.jsonl and report.json, and every line its axes.
    def writes_input(gc, gs, th, out):
        accurate(gc, gs, th, out)
        th[...] = 0

    def wrong_shape(gc, gs, th):
        return th.reshape(-1)[:-1].astype(np.float32) if th.size else th

    kinds = [("passed", accurate, True, {"PASSED"}),
             ("numerical", fp16_sincos, True, {"INCORRECT_NUMERICAL"}),
             ("integrity", writes_input, True, {"REWARD_HACK"}),
             ("dtype", lambda gc, gs, th: th.astype(np.float64), False, {"INCORRECT_DTYPE"}),
             ("shape", wrong_shape, False, {"INCORRECT_SHAPE"})]
    for name, fn, dps, want in kinds:
        res = rope2d.verify(fn, suite="smoke", device="cpu", destination_passing=dps, out=tmp_path / name)
        lines, results = trace(res), report(res)["results"]
        statuses = {line["evaluation"]["status"] for line in lines}
        assert want <= statuses <= want | {"PASSED"}, (name, statuses)
        assert [line["evaluation"]["status"] for line in lines] == [r["status"] for r in results if r["status"]], name
        assert all(line["workload"]["axes"] for line in lines), name


def returning(kernel):
    def fn(gc, gs, th):
        out = np.empty(th.shape, np.float32)
        kernel(gc, gs, th, out)
        return out
    fn.__name__ = kernel.__name__
    return fn


def integrity(res):
    return " ".join(r.get("integrity", "") for r in report(res)["results"])


def test_output_type_and_aliasing_rules(tmp_path):
    # The output rules of the call contract (rope2d/_call_checks.py), as `rope2d verify
    # solution.json` applies them to torch tensors: exact type, no aliasing, contiguous.
    class Lazy(np.ndarray):  # a subclass can compute its data when first read
        pass

    def subclass(gc, gs, th):
        return returning(accurate)(gc, gs, th).view(Lazy)

    def returns_input(gc, gs, th):  # the result written over the angles and handed back
        accurate(gc, gs, th, th)
        return th

    keep = {}

    def reuses_buffer(gc, gs, th):  # one buffer for every call: the caller's earlier result is overwritten
        buf = keep.setdefault(th.shape, np.empty(th.shape, np.float32))
        accurate(gc, gs, th, buf)
        return buf

    def transposed(gc, gs, th):
        out = np.empty(th.shape[::-1], np.float32).T
        accurate(gc, gs, th, out)
        return out

    res = rope2d.verify(subclass, suite="smoke", destination_passing=False, device="cpu", out=tmp_path / "sub")
    assert res.verdict == "failed" and "subclass of numpy.ndarray" in res.summary, res.summary
    for fn, finding in ((returns_input, "output aliases input idx_theta"), (reuses_buffer, "earlier call's output still uses"),
                        (transposed, "output not contiguous")):
        res = rope2d.verify(fn, suite="smoke", destination_passing=False, device="cpu", out=tmp_path / fn.__name__)
        assert res.verdict == "incorrect", (fn.__name__, res.summary)
        assert finding in integrity(res), fn.__name__
    res = rope2d.verify(returning(accurate), suite="smoke", destination_passing=False, device="cpu", out=tmp_path / "fresh")
    assert res.verdict == "passed", res.summary


def test_a_judged_call_cannot_be_told_from_a_real_one(tmp_path):
    # Accurate only when the output looks pre-filled (a few elements sampled, all NaN or all
    # alike), zeros otherwise: the varied pre-fills take the "real" path.
    def sniffs(gc, gs, th, out):
        flat = out.reshape(-1)
        probe = flat[:: max(1, flat.size // 8)].view(np.uint32)
        if probe.size and (np.all(np.isnan(flat[:: max(1, flat.size // 8)])) or np.all(probe == probe[0])):
            accurate(gc, gs, th, out)
        else:
            out[...] = 0

    res = rope2d.verify(sniffs, suite="smoke", device="cpu", out=tmp_path / "sniffs")
    assert res.verdict == "incorrect", res.summary

    def writes_half(gc, gs, th, out):  # leaves the second half: caught whatever the pre-fill holds
        full = np.empty_like(out)
        accurate(gc, gs, th, full)
        flat, src = out.reshape(-1), full.reshape(-1)
        flat[: src.size // 2] = src[: src.size // 2]

    res = rope2d.verify(writes_half, suite="smoke", device="cpu", out=tmp_path / "half")
    assert res.verdict == "incorrect"
    assert any(r["unwritten"] > 0 for r in report(res)["results"])
