"""The call contract's pure parts (rope2d/_call_checks.py) on small NumPy inputs: pre-fills vary
per call and per element yet reveal every unwritten element, and the output rules (exact type,
dtype and shape, contiguity, aliasing an input or an earlier output) name what is wrong."""
import numpy as np
import pytest

from rope2d import _call_checks as cc

N = 4096


def is_nan(bits):
    return (bits & 0x7FFFFFFF) > 0x7F800000


@pytest.mark.parametrize("style", cc.STYLES)
def test_prefill_varies_per_element_and_never_is_the_poison(style):
    rng = np.random.default_rng(1)
    earlier = np.linspace(-3, 3, 100, dtype=np.float32)
    p = cc.prefill(N, rng, earlier, style)
    assert p.dtype == np.uint32 and p.size == N
    assert len(np.unique(p)) > N // 50  # no uniform pattern to sample for
    assert not np.any(p == cc.POISON)
    nan_share = np.mean(is_nan(p))
    assert {"nan": nan_share == 1, "finite": nan_share == 0, "mixed": 0.3 < nan_share < 0.7}[style]
    if style == "finite":  # an earlier call's results, not noise
        assert set(p.view(np.float32)) <= set(earlier)
    if style == "nan":  # signs and payloads differ
        assert len(np.unique(p >> 31)) == 2 and len(np.unique(p & 0x3FFFFF)) > N // 2


def test_each_call_gets_its_own_fill_and_the_second_differs_everywhere():
    rng = np.random.default_rng(2)
    for _ in range(20):
        a = cc.prefill(N, rng)
        b = cc.second_prefill(a, rng)
        assert np.all(a != b)
        assert np.mean(is_nan(a)) != np.mean(is_nan(b))  # another style: NaN-ness alone tells nothing
    assert not np.array_equal(cc.prefill(N, rng), cc.prefill(N, rng))
    # A first fill equal to the second's draw is still made different (low bit flipped).
    a = cc.prefill(8, np.random.default_rng(3), style="nan")
    assert np.all(cc.second_prefill(a, np.random.default_rng(3)) != a)


def merged(out1, out2, fill1, fill2):
    return cc.merge_calls(np.array(out1, np.uint32), np.array(fill1, np.uint32), np.array(out2, np.uint32), np.array(fill2, np.uint32))


def test_merge_counts_unwritten_elements_exactly():
    one, two, nan_a, nan_b = 0x3F800000, 0x40000000, 0x7FC00001, 0xFFC00002
    # element 0 written in both; 1 unwritten in both; 2 unwritten in the first call only;
    # 3 written with a value that happens to equal the first call's fill (both calls agree).
    judged, unwritten, differ = merged([one, 5, 6, two], [one, 7, one, two], [9, 5, 6, two], [8, 7, 10, 11])
    assert list(judged) == [one, cc.POISON, cc.POISON, two]
    assert unwritten == 2 and differ == 1  # element 2: only one call wrote it
    # NaN results: any NaN equals any NaN, but one left unwritten in one call still counts.
    judged, unwritten, differ = merged([nan_a, nan_a], [nan_b, 0x7FC00099], [1, 3], [2, 0x7FC00099])
    assert unwritten == 1 and differ == 1 and judged[0] == nan_a
    # Different finite results: not unwritten, but the calls differ.
    judged, unwritten, differ = merged([one], [two], [3], [4])
    assert unwritten == 0 and differ == 1


def test_output_rules_name_the_defect():
    shape = (2, 3, 4)
    x = np.zeros(shape, np.float32)
    inp = np.ones(shape, np.float32)
    assert cc.check_output(x, shape, "float32", [("idx_theta", inp)]) == ([], [])

    class Lazy(np.ndarray):
        pass

    errors, _ = cc.check_output(x.view(Lazy), shape, "float32")
    assert errors and "subclass" in errors[0] and "Lazy" in errors[0]
    assert "returned list" in cc.check_output([1.0], shape, "float32")[0][0]
    assert "expected float32 [2, 3, 4]" in cc.check_output(x.astype(np.float64), shape, "float32")[0][0]
    assert "expected float32 [2, 3, 4]" in cc.check_output(x.reshape(-1), shape, "float32")[0][0]
    _, findings = cc.check_output(inp[...], shape, "float32", [("idx_theta", inp)])
    assert findings == ["output aliases input idx_theta"]
    big = np.zeros(100, np.float32)
    _, findings = cc.check_output(big[10:34].reshape(shape), shape, "float32", [("grad_cos", big[50:74])])
    assert findings == ["output aliases input grad_cos"]  # one allocation: the same memory
    _, findings = cc.check_output(np.zeros((4, 3, 2), np.float32).T, shape, "float32")
    assert findings and "not contiguous" in findings[0]
    _, findings = cc.check_output(x, shape, "float32", held=[cc.memory_range(x)])
    assert findings == ["output is memory an earlier call's output still uses"]


def test_memory_ranges():
    a = np.zeros(64, np.uint8)
    assert cc.overlaps(cc.memory_range(a[:8]), cc.memory_range(a[60:]))  # the whole base allocation
    assert not cc.overlaps(cc.memory_range(a), cc.memory_range(np.zeros(64, np.uint8)))
    assert not cc.overlaps(None, cc.memory_range(a))
    out = np.zeros(4, np.float32)
    assert cc.given_output_kept(out, out.__array_interface__["data"][0])
