"""A pytest plugin for kernel authors (registered by the installed package): the fixture
`rope2d_check`, called like torch.testing.assert_close with the inputs after the output,

    def test_my_kernel(rope2d_check):
        rope2d_check(my_kernel(gc, gs, theta), gc, gs, theta)

which judges the output against the correctly rounded reference by the verifier's tolerance
table (rope2d.testing.assert_close) and fails the test with its message and FAIL lines."""
import pytest


@pytest.fixture
def rope2d_check():
    """rope2d.testing.assert_close, as a fixture:
    ``rope2d_check(out, grad_cos, grad_sin, idx_theta, tier="float32-bound", grad_dtype=None,
    max_failures=10, msg=None)``.

    Judges a kernel's float32 output against the correctly rounded reference of
    -grad_cos*sin(idx_theta) + grad_sin*cos(idx_theta) by the verifier's tolerance table (tier
    "float32-bound" by default; "solexecbench", "bf16-noise", ... as on the command line).
    Inputs are NumPy arrays or PyTorch tensors of one shape ([batch, seq_len, head_dim]).
    Returns the CheckResult; a failing output fails the test with "Mismatched elements: N / M
    (x.x%)", the worst element and the greatest absolute and relative differences at their
    (b, s, d) beside what the tier allowed there, and the FAIL lines in hex floats. `msg`
    replaces that message, a string or a callable of it, as in torch.testing.assert_close.
    Its own frames are hidden from the traceback: the failure points at the test."""
    from .testing import assert_close

    def check(*args, **kwargs):
        __tracebackhide__ = True  # noqa: F841  (read by pytest)
        return assert_close(*args, **kwargs)

    check.__doc__ = assert_close.__doc__
    return check
