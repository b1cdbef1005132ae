"""rope2d.verify(fn): a Python callable run in process over the verifier's problem sets, as the
harness of the C++ library's one pipeline (rope2d_verify calls it back for each set and round),
with its integrity checks (outputs pre-filled with varied contents that still reveal unwritten
elements, the output's type and aliasing rules, inputs compared after the call, a second call
compared bit for bit) and the same report (report.md/json, junit.xml)."""
import ctypes
import hashlib
import inspect
import json
import math
import signal
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import _call_checks as cc
from . import _lib

_NP = {"bf16": np.uint16, "fp16": np.float16, "fp32": np.float32}
_DTYPE_NAME = {code: name for name, code in _lib.DTYPE_CODE.items()}


@dataclass
class VerifyResult:
    verdict: str       # passed | incorrect | failed
    exit_code: int     # 0, 1, 3 as `rope2d verify`
    summary: str
    report_dir: str

    @property
    def passed(self):
        return self.exit_code == 0


def _torch_device(device):
    if device == "cpu":
        return None
    torch = sys.modules.get("torch")
    if torch is None and device is not None:
        import torch
    if torch is not None and torch.cuda.is_available():
        return torch.device(device or "cuda")
    if device is not None:
        raise ValueError(f"device: {device!r} asked for, but torch has no CUDA device here")
    return None


class _Buffers:
    """One call's inputs in fresh buffers, each offset by its own element count (grad_cos,
    grad_sin, idx_theta, output) as the verifier's views."""

    def __init__(self, host, shape, offsets, dev):
        self.dev, self.shape, self.offsets = dev, tuple(shape), list(offsets)
        self.inputs = [self._place(a, m) for a, m in zip(host, self.offsets)]

    def _place(self, a, m):
        n = a.size
        if self.dev is None:
            buf = np.empty(n + m, dtype=a.dtype)
            buf[m:] = a
            return buf[m:].reshape(self.shape)
        import torch
        src = torch.from_numpy(a.view(np.int16)).view(torch.bfloat16) if a.dtype == np.uint16 else torch.from_numpy(a)
        buf = torch.empty(n + m, dtype=src.dtype, device=self.dev)
        buf[m:].copy_(src)
        return buf[m:].view(self.shape)

    def output(self, fill):
        """A fresh output pre-filled with `fill` (uint32 bits, one per element)."""
        m = self.offsets[3]
        if self.dev is None:
            buf = np.empty(fill.size + m, dtype=np.uint32)
            buf[m:] = fill
            return buf.view(np.float32)[m:].reshape(self.shape)
        import torch
        buf = torch.empty((fill.size + m,), dtype=torch.int32, device=self.dev)
        buf[m:].copy_(torch.from_numpy(fill.view(np.int32)))
        return buf.view(torch.float32)[m:].view(self.shape)

    def host(self, x):
        if self.dev is None:
            return np.array(x, copy=True)
        import torch
        torch.cuda.synchronize(self.dev)
        x = x.detach()
        return (x.view(torch.int16) if x.dtype in (torch.bfloat16, torch.float16) else x).cpu().numpy().copy()


def _copy_out(p, n, dt):
    """n elements of dtype dt at a library pointer, copied (ctypes has no half type: 16-bit
    values are read as uint16 and viewed)."""
    if n == 0:
        return np.empty(0, dt)
    raw = ctypes.c_uint16 if np.dtype(dt).itemsize == 2 else ctypes.c_float
    return np.ctypeslib.as_array(ctypes.cast(p, ctypes.POINTER(raw)), (n,)).copy().view(dt)


def _bits(a):
    return a.view(np.uint32 if a.dtype.itemsize == 4 else np.uint16)


def _data_ptr(x):
    return x.data_ptr() if hasattr(x, "data_ptr") else x.__array_interface__["data"][0]


def _result(buf, fn, dps, fill, held, timeout=None):
    """One call: its output's bits on the host and the integrity findings; raises TypeError when
    there is no output to judge (wrong type, dtype, shape or device, or the given output rebound)."""
    out = buf.output(fill) if dps else None
    where = _data_ptr(out) if dps else None  # before the call: a rebinding moves the pointer
    got = _bounded(fn, (*buf.inputs, out) if dps else tuple(buf.inputs), timeout, buf.dev)
    x = out if dps else got
    if dps and not cc.given_output_kept(out, where):
        raise TypeError("the given output was rebound to other memory, not written in place")
    errors, findings = cc.check_output(x, buf.shape, "float32", zip(("grad_cos", "grad_sin", "idx_theta"), buf.inputs),
                                       [r for r, _ in held], buf.dev)
    if errors:
        raise _OutputError(errors[0], _mismatch(x, buf.shape))
    held.append((cc.memory_range(x), x))  # kept alive: a later output may not reuse it
    return _bits(buf.host(x.contiguous() if buf.dev is not None else x).reshape(-1)).astype(np.uint32), findings


class _OutputError(TypeError):
    """No output to judge; `cause` names the kind as the report does (status.hpp): "shape" or
    "dtype" for an output of the wrong shape or dtype (SOL-ExecBench's INCORRECT_SHAPE and
    INCORRECT_DTYPE), else "runtime"."""

    def __init__(self, message, cause):
        super().__init__(message)
        self.cause = cause


def _mismatch(x, shape):
    """"shape" or "dtype" where x is a tensor or array of the wrong one (shape first, as
    SOL-ExecBench checks them), else "runtime" (a wrong type, device or a rebound output)."""
    if not hasattr(x, "shape") or not hasattr(x, "dtype"):
        return "runtime"
    if tuple(x.shape) != tuple(shape):
        return "shape"
    return "dtype" if str(x.dtype).replace("torch.", "") != "float32" else "runtime"


class CallTimeout(Exception):
    """A call of the callable did not return within verify's `timeout`."""


def _bounded(fn, args, timeout, dev):
    """fn(*args), or CallTimeout when it has not returned after `timeout` seconds (None: no
    bound). The call runs in a thread: one that never returns is left behind, and verify calls
    the callable no more."""
    if timeout is None:
        return fn(*args)
    box = {}

    def run():
        try:
            if dev is not None:
                import torch
                torch.cuda.set_device(dev)
            box["result"] = fn(*args)
        except BaseException as e:  # handed to the caller's thread
            box["error"] = e

    t = threading.Thread(target=run, name="rope2d.verify call", daemon=True)
    t.start()
    t.join(timeout)
    if t.is_alive():
        raise CallTimeout(f"the call did not return within {timeout:g} s")
    if "error" in box:
        raise box["error"]
    return box.get("result")


def _one_call(fn, host, spec, dev, dps, rng, earlier, timeout=None):
    """Runs fn twice on fresh buffers, each output pre-filled differently (destination-passing),
    each call bounded by `timeout`; returns (host output with unwritten elements as the poison,
    integrity findings)."""
    buf = _Buffers(host, spec["shape"], spec["offsets"], dev)
    n = int(np.prod(buf.shape))
    fills = [cc.prefill(n, rng, earlier)]
    fills.append(cc.second_prefill(fills[0], rng, earlier))
    held, outs, findings = [], [], []
    for fill in fills:
        bits, f = _result(buf, fn, dps, fill, held, timeout)
        outs.append(bits)
        findings += [x for x in f if x not in findings]
    after = [buf.host(x) for x in buf.inputs]
    if not all(np.array_equal(_bits(a.reshape(-1)), _bits(b.reshape(-1).view(a.dtype))) for a, b in zip(host, after)):
        findings.append("inputs modified by the call")
    if not dps:  # its own allocation: nothing was pre-filled, every element counts as written
        fills = [~outs[0], ~outs[1]]
    judged, _, differ = cc.merge_calls(outs[0], fills[0], outs[1], fills[1])
    if differ:
        findings.append("a second call on the same inputs gave different bits")
    return judged.view(np.float32).reshape(buf.shape), findings


def _describe(fn, dev):
    name = getattr(fn, "__qualname__", None) or type(fn).__name__
    header = [["submission", f"{name} (python callable)"]]
    try:
        src = inspect.getsourcefile(fn)
        header[0][1] = f"{name} ({src})"
        header.append(["sha256", hashlib.sha256(Path(src).read_bytes()).hexdigest()])
    except (TypeError, OSError):
        pass
    if dev is None:
        header.append(["kind", "python callable, in process, numpy arrays on the CPU"])
    else:
        import torch
        p = torch.cuda.get_device_properties(dev)
        header.append(["kind", f"python callable, in process, torch {torch.__version__} tensors on {dev}"])
        header.append(["gpu", f"{p.name} ({p.multi_processor_count} SMs, {p.total_memory / 2**30:.0f} GiB)"])
    return name, header


def _timeout_of(timeout):
    """None, or seconds in (0, 86400] as `rope2d verify --call-timeout` takes them."""
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not math.isfinite(timeout) \
            or not 0 < timeout <= 86400:
        raise ValueError(f"timeout: expected a finite number of seconds in (0, 86400], found {timeout!r}"[:200])
    return float(timeout)


def _said(e):
    """What an exception says, or its type's name where its __str__ itself fails."""
    try:
        return str(e)
    except Exception:
        return f"<{type(e).__name__} whose message could not be read>"


def _c_text(text):
    """Text for the library as UTF-8, whatever it holds (a lone surrogate of an os.fsdecode'd
    path escaped, not raised)."""
    return text.encode("utf-8", "backslashreplace")


class _Calls:
    """The callable's side of rope2d_verify: each (set, round) of fresh host inputs the library
    hands over runs fn through _one_call, its output written back or its failure named with its
    cause. Nothing raised here crosses into C: the callable's own exceptions fail its call, and
    anything else (an interrupt, an error of this package) stops the run and verify raises it."""

    def __init__(self, fn, dev, dps, rng, timeout, quiet):
        self.fn, self.dev, self.dps, self.rng, self.timeout, self.quiet = fn, dev, dps, rng, timeout, quiet
        self.earlier = None  # the last output, for the pre-fills
        self.hung = None     # the message of a call that did not return: no call after it
        self.stopped = None  # what stopped the run, raised once rope2d_verify returns
        self.in_python = False  # inside _call's try: an interrupt may be raised there
        self.c_function = _lib.CALL_FN(self._call)  # kept alive while the library may call it

    def interrupt(self, signum, frame):
        """SIGINT while the run is on. Inside the callback it is raised as Python raises it (the
        callable stops; _call stops the run). Elsewhere (the library working in C, or the
        callback's first instruction, before its try) it is kept, and the next callback stops
        the run: an exception raised there would be printed and lost by ctypes."""
        if self.in_python:
            raise KeyboardInterrupt
        if self.stopped is None:
            self.stopped = KeyboardInterrupt()

    def _call(self, _user, call):
        try:
            self.in_python = True
            if self.stopped is not None:  # interrupted while the library worked
                return _lib.CALL_STOP
            return self._one(call)
        except BaseException as e:
            self.stopped = e
            return _lib.CALL_STOP
        finally:
            self.in_python = False

    def _fail(self, call, cause, message):
        _lib.call("rope2d_call_fail", call, cause.encode(), _c_text(message))
        return _lib.CALL_FAILED

    def _one(self, call):
        c = call.contents
        name = c.name.decode()
        if c.round == 0 and not self.quiet:
            print(f"[{c.index + 1}/{c.count}] {name}", file=sys.stderr, flush=True)
        if self.hung:
            return self._fail(call, "runtime", f"not run: {self.hung}")
        spec = {"shape": [c.shape[i] for i in range(c.rank)], "offsets": [c.offsets[i] for i in range(4)]}
        dts = [_NP[_DTYPE_NAME[c.grad_dtype]]] * 2 + [np.float32]
        host = [_copy_out(p, c.n, dt) for p, dt in zip((c.gc, c.gs, c.theta), dts)]
        try:
            result, findings = _one_call(self.fn, host, spec, self.dev, self.dps, self.rng, self.earlier, self.timeout)
        except Exception as e:  # the call failed: the set is "failed", as a crash in `rope2d verify`
            cause = "timeout" if isinstance(e, CallTimeout) else e.cause if isinstance(e, _OutputError) else "runtime"
            if isinstance(e, CallTimeout):
                self.hung = f"an earlier call ({name}) did not return within {self.timeout:g} s"
            return self._fail(call, cause, f"{type(e).__name__}: {_said(e)}")
        result = np.ascontiguousarray(result.reshape(-1), dtype=np.float32)
        if result.size != c.n:
            raise RuntimeError(f"rope2d: {name}: {result.size} outputs judged for {c.n} elements")
        self.earlier = result if result.size else self.earlier
        for f in findings:
            _lib.call("rope2d_call_finding", call, _c_text(f))
        if result.size:
            ctypes.memmove(c.out, result.ctypes.data, result.nbytes)
        return _lib.CALL_OK


def verify(fn, quick=True, suite="verification", grad_dtypes=("bf16",), seed=1, rounds=2, tier="float32-bound", only=None,
           device=None, destination_passing=True, out=None, quiet=True, ieee_subnormals=False, timeout=None):
    """Verifies fn(grad_cos, grad_sin, idx_theta, grad_idx_theta) (or fn(...) returning the output
    when destination_passing=False) over `suite`; writes the report to `out` and returns a
    VerifyResult. Inputs are CUDA torch tensors when torch has a GPU (device=None) or
    device="cuda", else numpy arrays (bf16 grads as uint16 bit patterns). `timeout` (seconds)
    bounds each call: one that does not return fails its set, and the sets after it are not run."""
    from .api import whole_number
    seed = whole_number(seed, "seed", 0, 2**48)  # as `rope2d verify --seed`
    rounds = whole_number(rounds, "rounds", 1, 100)  # as `rope2d verify --rounds`
    timeout = _timeout_of(timeout)
    dev = _torch_device(device)
    name, header = _describe(fn, dev)
    out = str(out or Path("reports") / "verify" / name.replace("<", "").replace(">", "").replace(".", "_"))
    opts = {"suite": suite, "quick": bool(quick), "seed": int(seed), "grad_dtypes": list(grad_dtypes), "rounds": int(rounds),
            "tier": tier, "only": only or "", "ieee_subnormals": bool(ieee_subnormals),
            "worst_dir": str(_lib.worst_dir() or ""),
            "reproduce_prefix": f"rope2d.verify({name}, suite='{suite}', quick={bool(quick)}, seed={seed}, rounds={rounds}, "
                                f"tier='{tier}', grad_dtypes={list(grad_dtypes)}, "
                                + (f"device='{device}', " if device is not None else "")
                                + ("ieee_subnormals=True, " if ieee_subnormals else "")}
    calls = _Calls(fn, dev, destination_passing, np.random.default_rng(seed), timeout, quiet)
    warnings = ["run in process by rope2d.verify: outputs pre-filled with varied contents (destination-passing), "
                "output type and aliasing checked, inputs and repeat calls compared; guard bands and the stream check "
                "need `rope2d verify` (kernel.cu or solution.json)"]
    if suite == "verification" and not opts["worst_dir"]:
        warnings.append("worst set left out: no worst-case lists (reference/worst) beside the library or in a source tree")
    summary, code = ctypes.c_void_p(), ctypes.c_int()
    # Ctrl-C while the library works is kept and stops the run at the next call (_Calls.interrupt);
    # on the main thread only, and not where the caller ignores SIGINT or set it outside Python.
    previous = signal.getsignal(signal.SIGINT) if threading.current_thread() is threading.main_thread() else None
    main = previous is not None and previous is not signal.SIG_IGN
    if main:
        signal.signal(signal.SIGINT, calls.interrupt)
    try:
        rc = _lib.lib().rope2d_verify(json.dumps(opts).encode(), calls.c_function, None, out.encode(),
                                      f"rope2d verify: {name} (python)".encode(), json.dumps(header).encode(),
                                      json.dumps(warnings).encode(), ctypes.byref(summary), ctypes.byref(code))
    finally:
        if main:
            signal.signal(signal.SIGINT, previous)
    if calls.stopped is not None:
        raise calls.stopped
    _lib.check(rc)
    text = _lib.take_text(summary)
    verdict = {0: "passed", 1: "incorrect"}.get(code.value, "failed")
    if not quiet:
        print(text + f"report: {out}/report.md", file=sys.stderr)
    return VerifyResult(verdict, code.value, text, out)
