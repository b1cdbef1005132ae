"""A pytest plugin for kernel authors (registered by the installed package): the fixture
`rope2d_check`, called like torch.testing.assert_close with the inputs after the output,

    def test_my_kernel(rope2d_check):
        rope2d_check(my_kernel(gc, gs, theta), gc, gs, theta)

which judges the output against the correctly rounded reference by the verifier's tolerance
table (rope2d.testing.assert_close) and fails the test with its FAIL lines."""
import pytest


@pytest.fixture
def rope2d_check():
    from .testing import assert_close

    return assert_close
