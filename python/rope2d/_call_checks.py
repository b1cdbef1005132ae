"""The call contract of a Python submission, as pure functions over NumPy bit patterns and
array-like outputs: varied pre-fills that still reveal unwritten elements, the output's type,
placement and aliasing rules. Shared by rope2d.verify (NumPy or torch callables, in process) and
the runner rope2d.runner (solution.json, out of process), whose relay hands this module's source
to the neutral host; needs only NumPy (torch is only looked at when an output is a torch tensor)."""
import numpy as np

POISON = 0x7FC0DEAD  # what the judge counts as unwritten: a quiet NaN with a payload
_QNAN = 0x7FC00000
STYLES = ("nan", "finite", "mixed")


def _nan_bits(n, rng):
    """n quiet NaNs, each with its own sign and payload, never the judge's poison."""
    b = (rng.integers(0, 1 << 22, n, dtype=np.uint32) | np.uint32(_QNAN)) | (rng.integers(0, 2, n, dtype=np.uint32) << np.uint32(31))
    b[b == np.uint32(POISON)] ^= np.uint32(1)
    return b


def _finite_bits(n, rng, earlier):
    """Plausible results: an earlier call's finite results where there are any (each element
    from a random place), else values drawn like this op's outputs (a few units, both signs)."""
    pool = None if earlier is None else np.asarray(earlier, np.float32).reshape(-1)
    if pool is not None:
        pool = pool[np.isfinite(pool)]
    if pool is None or pool.size == 0:
        vals = (rng.standard_normal(n) * 2.0).astype(np.float32)
    else:
        vals = pool[rng.integers(0, pool.size, n)]
    return vals.view(np.uint32).copy()


def prefill(n, rng, earlier=None, style=None):
    """The bits an output is filled with before a call: per element and per call varied, in one
    of STYLES (drawn when not given): all NaN with differing payloads, all finite (an earlier
    call's results), or each element either. A solution cannot tell a judged call by a
    uniform pattern, nor by NaN alone."""
    style = style or STYLES[int(rng.integers(0, len(STYLES)))]
    if style == "nan":
        return _nan_bits(n, rng)
    fin = _finite_bits(n, rng, earlier)
    if style == "finite":
        return fin
    return np.where(rng.integers(0, 2, n).astype(bool), _nan_bits(n, rng), fin)


def second_prefill(first, rng, earlier=None):
    """A pre-fill for the second call on the same inputs: another style than the first's, and
    different from the first in every element (so an element left unwritten in both calls can
    never look written: it holds two different values)."""
    first = np.asarray(first, np.uint32)
    nan_share = float(np.mean(((first & 0x7FFFFFFF) > 0x7F800000))) if first.size else 0.0
    style = "finite" if nan_share > 0.5 else "nan"
    p = prefill(first.size, rng, earlier, style)
    same = p == first
    p[same] ^= np.uint32(1)  # a low payload or mantissa bit: still NaN, or still finite
    return p


def _is_nan(b):
    return (b & np.uint32(0x7FFFFFFF)) > np.uint32(0x7F800000)


def merge_calls(out1, fill1, out2, fill2):
    """Two calls' outputs (bits) on the same inputs and what each was pre-filled with. Returns
    (judged, unwritten, differ): judged is out1 with POISON wherever either call left its
    pre-fill (the judge counts those as unwritten unless the reference is NaN), `unwritten`
    how many, `differ` how many elements the two calls gave different results in (any NaN
    equals any NaN) or only one of them wrote.

    Exact: a written element holds the same value in both calls (else it differs), and the
    two pre-fills differ in every element, so a value equal to both calls' pre-fills cannot
    exist; one equal to one call's pre-fill while the calls agree was written (the other call
    wrote it too)."""
    out1, fill1, out2, fill2 = (np.asarray(x, np.uint32).reshape(-1) for x in (out1, fill1, out2, fill2))
    agree = (out1 == out2) | (_is_nan(out1) & _is_nan(out2))
    bits_differ = out1 != out2
    left1, left2 = (out1 == fill1) & bits_differ, (out2 == fill2) & bits_differ
    left = left1 | left2
    judged = np.where(left, np.uint32(POISON), out1)
    # Left by one call only: the calls did different things (seen even where the reference is
    # NaN, where the judge cannot tell an unwritten NaN from a written one).
    differ = int(np.count_nonzero((~agree & ~left) | (left1 ^ left2)))
    return judged, int(np.count_nonzero(left)), differ


# ---- the output's type, placement and aliasing -------------------------------------------

def _torch():
    import sys
    return sys.modules.get("torch")


def memory_range(x):
    """The bytes [lo, hi) of the allocation x is a view of: a torch tensor's whole storage, a
    NumPy array's outermost base (views keep their base alive). None when unknown."""
    t = _torch()
    if t is not None and isinstance(x, t.Tensor):
        try:
            s = x.untyped_storage()
            return (s.data_ptr(), s.data_ptr() + s.nbytes())
        except Exception:  # a tensor without storage (meta, sparse, a wrapper): no memory of its own
            return None
    if isinstance(x, np.ndarray):
        base = x
        while isinstance(base.base, np.ndarray):
            base = base.base
        lo, hi = _byte_bounds(base)
        return (lo, hi)
    return None


# NumPy 2 moved byte_bounds (and removed np.byte_bounds); NumPy 1 has only the old name.
_byte_bounds = getattr(getattr(np.lib, "array_utils", None), "byte_bounds", None) or getattr(np, "byte_bounds")


def overlaps(a, b):
    return a is not None and b is not None and a[0] < b[1] and b[0] < a[1] and a[1] > a[0] and b[1] > b[0]


def check_output(x, shape, dtype, inputs=(), held=(), device=None):
    """The rules for an output a call returned (destination-passing calls apply them to the
    output they were given). Returns (errors, findings): an error means no output to judge
    (wrong type, dtype, shape or device: the call is failed); a finding is judged as an
    integrity failure (the output aliases an input or an earlier call's output still held,
    or is not contiguous - a consumer reading raw memory would misread it)."""
    t = _torch()
    errors, findings = [], []
    is_torch = t is not None and isinstance(x, t.Tensor)
    plain = t.Tensor if is_torch else np.ndarray
    if not is_torch and not isinstance(x, np.ndarray):
        return [f"the call returned {type(x).__name__}, expected a {'torch.Tensor' if t is not None and device else 'numpy.ndarray'}"], []
    if type(x) is not plain:  # strict: a subclass can compute its data lazily or intercept every read
        return [f"output is {type(x).__module__}.{type(x).__name__}, a subclass of {plain.__module__}.{plain.__name__}; "
                f"expected a plain {plain.__name__} (lazy or proxy outputs are refused)"], []
    if is_torch:
        elsewhere = device is not None and (x.device.type != device.type or device.index not in (None, x.device.index))
        if x.layout != t.strided or x.is_meta or elsewhere:
            errors.append(f"output on {x.device} ({x.layout}), expected a strided tensor on {device}")
        if getattr(x, "requires_grad", False) and x.grad_fn is not None:
            findings.append("output carries an autograd graph")
    dt = str(x.dtype).replace("torch.", "")
    if dt != dtype or tuple(x.shape) != tuple(shape):
        errors.append(f"output {dt} {list(x.shape)}, expected {dtype} {list(shape)}")
    if errors:
        return errors, findings
    contiguous = x.is_contiguous() if is_torch else x.flags.c_contiguous
    if not contiguous:
        findings.append(f"output not contiguous (strides {list(x.stride() if is_torch else x.strides)})")
    mine = memory_range(x)
    if x.size if not is_torch else x.numel():
        for name, a in inputs:
            if overlaps(mine, memory_range(a)):
                findings.append(f"output aliases input {name}")
        if any(overlaps(mine, h) for h in held):
            findings.append("output is memory an earlier call's output still uses")
    return errors, findings


def given_output_kept(out, where):
    """A destination-passing call must write the output it was given, not rebind it: the
    tensor's data pointer (torch: its storage too) is still `where`, from data_ptr()."""
    t = _torch()
    if t is not None and isinstance(out, t.Tensor):
        return out.data_ptr() == where
    return out.__array_interface__["data"][0] == where
