"""Failure messages in the shape torch.testing.assert_close users know: "Mismatched elements:
N / M (x.x%)", the worst element and the greatest absolute and relative differences at their
(b, s, d) beside what the tier allowed there, then the hex FAIL lines; msg= as torch takes it
(a string, or a callable of the generated message); the fixture documented, and its frames and
assert_close's hidden from pytest's tracebacks."""
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import rope2d
from conftest import accurate
from rope2d.pytest_plugin import rope2d_check as fixture_function
from rope2d.testing import assert_close

# (1, 3, 17) of (2, 5, 128): far off; (0, 2, 9): a small result, a little off, so relatively worse.
FAR, NEAR_ZERO = (1, 3, 17), (0, 2, 9)


def two_defects(inputs):
    """An accurate output with two elements wrong: FAR by +1 on a result of 2 (the greatest
    absolute difference), NEAR_ZERO by 0.01 on a result of 1e-3 (the greatest relative)."""
    gc, gs, th = (a.copy() for a in inputs)
    for at, g in ((FAR, 2.0), (NEAR_ZERO, np.float32(1e-3))):
        gc[at], gs[at], th[at] = 0.0, g, 0.0   # exactly gs: -0*sin(0) + gs*cos(0)
    out = np.full(th.shape, np.nan, np.float32)
    accurate(gc, gs, th, out)
    out[FAR] += 1.0
    out[NEAR_ZERO] += 0.01
    return out, gc, gs, th


def message(out, gc, gs, th, **kw):
    with pytest.raises(AssertionError) as e:
        assert_close(out, gc, gs, th, **kw)
    return str(e.value)


def test_message_has_torch_lines_then_fail_lines(inputs):
    out, gc, gs, th = two_defects(inputs)
    text = message(out, gc, gs, th)
    assert "rope2d: output fails tier float32-bound: 2 of 1280 elements over its allowance" in text
    assert "\nMismatched elements: 2 / 1280 (0.2%)\n" in text
    assert re.search(r"\nWorst element: \S+ x 2\^-24 S at index \(0, 2, 9\) \(up to \S+ x 2\^-24 S allowed there\)\n", text), text
    assert re.search(r"\nGreatest absolute difference: 1 at index \(1, 3, 17\) \(up to \S+ allowed there\)\n", text), text
    m = re.search(r"\nGreatest relative difference: (\S+) at index \(0, 2, 9\) \(up to (\S+) allowed there\)\n", text)
    assert m, text
    assert float(m.group(1)) == pytest.approx(10, rel=1e-2) and float(m.group(2)) < 1e-5
    # the verifier's hex FAIL lines stay, after torch's lines
    assert text.index("Mismatched elements") < text.index("\nFAIL check i=")
    assert re.search(r"\nFAIL check i=\d+ gc=\S+ gs=\S+ t=\S+ ref=0x\S+ got=0x\S+", text), text


def test_check_result_carries_the_lines_only_when_failing(inputs):
    out, gc, gs, th = two_defects(inputs)
    r = rope2d.check(out, gc, gs, th)
    assert r.mismatch[0] == "Mismatched elements: 2 / 1280 (0.2%)"
    assert [line.split(":")[0] for line in r.mismatch] == [
        "Mismatched elements", "Worst element", "Greatest absolute difference", "Greatest relative difference"]
    # a gate the output passes says nothing: 2 of 1280 is within SOL-ExecBench's 1%
    assert rope2d.check(out, gc, gs, th, tier="solexecbench").mismatch == []
    good = np.full(th.shape, np.nan, np.float32)
    accurate(*inputs, good)
    assert rope2d.check(good, *inputs).mismatch == []


def test_a_flat_output_gets_flat_indices():
    gc = np.zeros(300, np.float32)
    gs = np.ones(300, np.float32)
    th = np.zeros(300, np.float32)
    out = np.ones(300, np.float32)
    out[123] = 2.0
    assert "Greatest absolute difference: 1 at index (123) (up to " in message(out, gc, gs, th)


def test_msg_string_replaces_the_message(inputs):
    out, gc, gs, th = two_defects(inputs)
    assert message(out, gc, gs, th, msg="my kernel, bf16 path") == "my kernel, bf16 path"


def test_msg_callable_gets_the_generated_message(inputs):
    out, gc, gs, th = two_defects(inputs)
    seen = []

    def wrap(generated):
        seen.append(generated)
        return "my kernel:\n" + generated

    text = message(out, gc, gs, th, msg=wrap)
    assert len(seen) == 1 and "Mismatched elements: 2 / 1280 (0.2%)" in seen[0]
    assert text == "my kernel:\n" + seen[0]


def test_msg_is_not_called_when_the_output_passes(inputs):
    good = np.full(inputs[0].shape, np.nan, np.float32)
    accurate(*inputs, good)
    assert assert_close(good, *inputs, msg=lambda m: pytest.fail("called")).passed


def test_msg_of_another_type_is_refused(inputs):
    out, gc, gs, th = two_defects(inputs)
    with pytest.raises(TypeError, match="msg: expected a str, a callable or None, found int"):
        assert_close(out, gc, gs, th, msg=3)


def test_fixture_is_documented(rope2d_check):
    doc = fixture_function.__doc__ or ""
    assert "rope2d.testing.assert_close" in doc and "Mismatched elements" in doc and "msg" in doc
    assert rope2d_check.__doc__ == assert_close.__doc__


def test_fixture_and_assert_close_frames_are_hidden_from_tracebacks(tmp_path):
    """A kernel author's failing test, run by pytest: the traceback ends at the test's own line,
    with none of the package's frames (__tracebackhide__), and shows the message."""
    (tmp_path / "test_kernel.py").write_text(textwrap.dedent("""
        import numpy as np

        def test_my_kernel(rope2d_check):
            gc = np.zeros((1, 2, 128), np.float32)
            gs = np.ones((1, 2, 128), np.float32)
            th = np.zeros((1, 2, 128), np.float32)
            out = np.ones((1, 2, 128), np.float32)
            out[0, 1, 5] = 3.0
            rope2d_check(out, gc, gs, th)  # THE CALLER'S LINE
    """))
    package = Path(rope2d.__file__).resolve().parent
    env = {"PYTHONPATH": str(package.parent), "PATH": "/usr/bin:/bin", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "rope2d.pytest_plugin", "-p", "no:cacheprovider", "--tb=long",
                        "-q", str(tmp_path / "test_kernel.py")], capture_output=True, text=True, cwd=tmp_path, env=env)
    text = r.stdout + r.stderr
    assert r.returncode == 1, text
    assert "THE CALLER'S LINE" in text and "Mismatched elements: 1 / 256 (0.4%)" in text, text
    assert "Greatest absolute difference: 2 at index (0, 1, 5)" in text, text
    assert "testing.py" not in text and "pytest_plugin.py" not in text and "api.py" not in text, text
