"""What a Python submission may not change in the process that judges it: the identity of the
torch functions and Tensor methods the runner relies on (a monkey patch), torch's global numeric
state (default dtype, TF32, determinism, flush-to-zero), the threads alive, the current device
and stream a call leaves, and the device memory it keeps from call to call. Pure functions over
a torch-like namespace or plain values, so that the rules are tested without torch."""
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


# ---- what a call leaves behind: the current stream and device, device memory held -----------

MIB = 1 << 20


def place_changes(before, after):
    """A call must leave the current device and stream as it found them (a caller's next work
    goes to the current stream: one the solution switched to is its own, unordered with the
    caller's). before/after: (device index, stream key) read around the call."""
    out = []
    if after[0] != before[0]:
        out.append(f"the call left the current CUDA device switched ({before[0]} -> {after[0]})")
    elif after[1] != before[1]:
        out.append("the call left the current CUDA stream switched to another stream (the caller's next work would "
                   "run there, unordered with its own stream)")
    return out


def _mib(n):
    return f"{n / MIB:.1f}" if abs(n) >= MIB // 10 else f"{n / MIB:.3f}"


class HeldMemory:
    """The device memory a solution holds between calls (the allocator's live bytes less the
    runner's own tensors), read after every call of a run, and when its growth is a finding.
    A call grew it when it rose by more than `slack` bytes over that call.

    Within a problem (three calls on the same inputs and buffers): its second and third calls
    both grew it. Across problems: two problems in a row of a shape and dtype seen before each
    grew it by more than the slack per call (a cache per shape or per address is excused at the
    first problem of its shape; `excused` spares a problem after the runner's own work on new
    streams, which may allocate a library's per-stream workspace). A finding is confirmed by
    `remeasure`, a fresh reading after a full garbage collection, so that cyclic garbage Python
    has not collected yet is not taken for a leak."""

    def __init__(self, slack):
        self.slack = slack
        self.base = None      # held after the run's first call
        self.since = 0        # calls since then
        self.last = None      # held after the latest call
        self.start = None     # held before this problem's first call (after the previous problem)
        self.samples = []     # held after each call of this problem
        self.seen = set()
        self.repeats_grown = 0  # problems in a row of a shape seen before that grew it

    def after_call(self, held):
        if self.base is None:
            self.base = held
        else:
            self.since += 1
        if not self.samples:
            self.start = self.last
        self.samples.append(held)
        self.last = held

    def abandon(self):
        """Forgets the calls read since the last problem_done (a problem that ended in an error)."""
        self.samples = []

    def problem_done(self, key, remeasure=None, excused=False):
        """Findings for the problem whose calls were read since the last problem_done."""
        s, start, slack = self.samples, self.start, self.slack
        self.samples = []
        repeat = key in self.seen
        self.seen.add(key)
        within = len(s) >= 3 and s[1] - s[0] > slack and s[2] - s[1] > slack
        across = repeat and not excused and start is not None and bool(s) and s[-1] - start > slack * len(s)
        if repeat:
            self.repeats_grown = self.repeats_grown + 1 if across else 0
        if not within and not (across and self.repeats_grown >= 2):
            return []
        if remeasure is not None:
            now = self.last = remeasure()
            within = within and now - s[0] > 2 * slack
            across = across and now - start > slack * len(s)
            if repeat and not across:
                self.repeats_grown = 0
        if within:
            return [f"device memory grows with every call: +{_mib(self.last - self.base)} MiB over {self.since} calls"]
        if across and self.repeats_grown >= 2:
            return [f"device memory grows with every problem of a shape seen before: +{_mib(self.last - self.base)} MiB "
                    f"over {self.since} calls"]
        return []
