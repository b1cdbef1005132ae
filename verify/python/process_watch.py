"""What a Python submission may not change in the process that judges it: the identity of the
torch functions and Tensor methods the runner relies on (a monkey patch), torch's global numeric
state (default dtype, TF32, determinism, flush-to-zero), and the threads alive. Pure functions
over a torch-like namespace, so that the rules are tested without torch."""
import inspect
import threading

# Functions the runner (and any in-process judge such as SOL-ExecBench's) reads results through.
TORCH_FUNCTIONS = ("sin", "cos", "sincos", "allclose", "isclose", "equal", "isnan", "isfinite", "isinf", "abs", "where",
                   "empty", "empty_like", "zeros", "full", "tensor", "from_numpy", "sum", "any", "all", "count_nonzero",
                   "eq", "ne", "maximum")
TENSOR_METHODS = ("copy_", "clone", "cpu", "to", "view", "contiguous", "data_ptr", "untyped_storage", "is_contiguous",
                  "stride", "numel", "fill_", "__eq__", "__ne__", "__getitem__", "__setitem__", "numpy", "float", "sum",
                  "any", "all", "eq", "ne", "reshape", "detach", "item", "__torch_function__")
CUDA_FUNCTIONS = ("synchronize", "current_stream", "stream", "_sleep")
EVENT_METHODS = ("record", "synchronize", "elapsed_time")
STREAM_METHODS = ("synchronize", "wait_stream", "wait_event", "record_event")


def watched(torch, extra=()):
    """(label, owner, attribute) of everything compared by identity."""
    out = [(f"torch.{n}", torch, n) for n in TORCH_FUNCTIONS]
    out += [(f"torch.Tensor.{n}", torch.Tensor, n) for n in TENSOR_METHODS]
    cuda = getattr(torch, "cuda", None)
    if cuda is not None:
        out += [(f"torch.cuda.{n}", cuda, n) for n in CUDA_FUNCTIONS]
        for cls, names in (("Event", EVENT_METHODS), ("Stream", STREAM_METHODS)):
            if hasattr(cuda, cls):
                out += [(f"torch.cuda.{cls}.{n}", getattr(cuda, cls), n) for n in names]
    return out + list(extra)


def _static(owner, name):
    # The raw attribute, not a freshly bound method: its identity is stable between looks.
    try:
        return inspect.getattr_static(owner, name)
    except AttributeError:
        return None


def identities(entries):
    return {label: id(_static(owner, name)) for label, owner, name in entries}


def patched(before, after):
    """Labels whose object is no longer the one seen before (replaced, added or removed)."""
    return sorted(k for k in before if after.get(k) != before[k])


def _flushes_denormals(torch):
    tiny = torch.tensor([2.0 ** -140], dtype=torch.float32)
    return bool((tiny * 1.0).item() == 0.0)


def torch_state(torch):
    """The global settings a solution could change behind the caller's back."""
    probes = {
        "default dtype": lambda: str(torch.get_default_dtype()),
        "flush denormals (CPU)": lambda: _flushes_denormals(torch),
        "grad enabled": lambda: torch.is_grad_enabled(),
        "deterministic algorithms": lambda: torch.are_deterministic_algorithms_enabled(),
        "float32 matmul precision": lambda: torch.get_float32_matmul_precision(),
        "cuda matmul allow_tf32": lambda: torch.backends.cuda.matmul.allow_tf32,
        "cuda matmul fp16 reduced-precision reduction": lambda: torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction,
        "cuda matmul bf16 reduced-precision reduction": lambda: torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction,
        "cudnn allow_tf32": lambda: torch.backends.cudnn.allow_tf32,
        "cudnn deterministic": lambda: torch.backends.cudnn.deterministic,
        "cudnn benchmark": lambda: torch.backends.cudnn.benchmark,
    }
    state = {}
    for name, probe in probes.items():
        try:
            state[name] = probe()
        except Exception:  # absent in this torch version
            state[name] = "unavailable"
    return state


def state_changes(before, after):
    return [f"{k}: {before[k]} -> {after.get(k)}" for k in before if after.get(k) != before[k]]


def new_threads(before, settle_s=0.0):
    """Threads alive now that were not in `before` (a set of threads); each is first given up to
    settle_s seconds to finish (one that ends in time still counts: it outlived the call)."""
    fresh = [t for t in threading.enumerate() if t not in before]
    for t in fresh:
        t.join(settle_s)
    return fresh
