"""One job of the solution runner: a Python solution called three times on the same inputs, as a
.cu kernel is on the testbed. Inputs and output live in guarded buffers reused across jobs (the
same addresses with other contents: a cache keyed by data_ptr returns stale results); each call
runs with a non-default current stream, the output pre-filled with varied contents; its result
is read after that stream alone is synchronised.

  A: an idle stream.  B: the stream held busy by a device-side spin, the inputs scrambled
  before the spin and written after it (work not ordered on the stream reads NaN inputs, or
  its output is overwritten by the pre-fill).  C: idle again.  A and C judge unwritten
  elements and determinism; B against both the stream.

After each call, first: the current device and stream it left (restored when switched); then
the output read again once every thread started by the call has had its chance and the whole
device is idle (a change is work left behind), guard bands, inputs, threads still alive, torch
attributes replaced, and the device memory the solution holds (grown from call to call). Once
per run, two problems' calls in flight at once on two streams (reentrancy).

Runs in the neutral host (solution_runner.py): the methods that call the solution are
generators that hand each call to the host's main frame (host_calls.invoke), so that no frame
of the runner is on the stack while solution code runs. Loaded there under a neutral file name,
with _call_checks (python/rope2d/_call_checks.py), process_watch and host_calls given by it."""
import gc as pygc
import threading
import time
from pathlib import Path

import numpy as np
import torch

import _call_checks as cc
import process_watch as pw
from host_calls import invoke

GUARD = 4096        # bytes of guard band on each side of every buffer
GUARD_BYTE = 0xA5
# The spin holding the stream busy outlasts the call's host part: 2 ms + 4 x the idle call's
# wall time, at most 20 ms (as the .cu testbed's hold).
SPIN_FLOOR_S, SPIN_CAP_S = 0.002, 0.020
THREAD_SETTLE_S = 2.0  # how long a thread started by a call gets to finish before the re-read
REENTRANT_MIN = 1 << 16  # elements of both problems of the reentrancy check: long enough to overlap
NAMES = ("grad_cos", "grad_sin", "idx_theta")
# Growth of the device memory a solution holds, per call, that is not a finding: the requested
# bytes torch counts are exact (a solution that allocates nothing between calls holds the same
# bytes after each); where only block sizes are counted, they round up to 512 bytes and may
# keep an unsplit remainder of a large block (up to 1 MiB).
HELD_SLACK = 64 << 10
HELD_SLACK_BLOCKS = 1 << 20

# Read before the solution is imported (this module is loaded first): the raw getters of the
# current stream and device and of the allocator's counts, and the setters that restore them,
# as they were then, so that a solution replacing torch.cuda's functions does not change what
# the runner reads (the replacement itself is a finding: process_watch.CUDA_FUNCTIONS).
_C = torch._C
_get_stream = getattr(_C, "_cuda_getCurrentStream", None)
_get_device = getattr(_C, "_cuda_getDevice", None)
_memory_stats = getattr(_C, "_cuda_memoryStats", None)
_set_stream, _set_device, _current_stream = torch.cuda.set_stream, torch.cuda.set_device, torch.cuda.current_stream
_current_device, _public_stats = torch.cuda.current_device, torch.cuda.memory_stats


def _stream_key(s):
    return (s.stream_id, s.device_index, s.device_type)


def _device_index():
    return _get_device() if _get_device else _current_device()


def current_place():
    """(current device index, current stream key), read through the functions kept above."""
    device = _device_index()
    if _get_stream:
        try:
            return device, tuple(_get_stream(device))[:3]
        except Exception:  # another torch's signature: the public function as it was before the import
            pass
    return device, _stream_key(_current_stream(device))


def device_bytes():
    """(bytes of device memory torch's caching allocator has handed out and not had back, exact):
    the requested sizes where torch counts them, else its blocks (rounded up)."""
    stats = None
    if _memory_stats:
        try:
            stats = _memory_stats(_device_index())
        except Exception:
            stats = None
    if isinstance(stats, dict):
        for key, exact in (("requested_bytes", True), ("allocated_bytes", False)):
            try:
                return int(stats[key]["all"]["current"]), exact
            except (KeyError, TypeError):
                pass
    flat = _public_stats()
    if "requested_bytes.all.current" in flat:
        return int(flat["requested_bytes.all.current"]), True
    return int(flat.get("allocated_bytes.all.current", 0)), False


class Guarded:
    """A byte buffer with guard bands; the data starts `offset` bytes past the front guard.
    It only grows, so jobs of the same size and offset get the same address."""

    def __init__(self):
        self.buf = None

    def place(self, nbytes, offset):
        need = GUARD + offset + nbytes + GUARD
        if self.buf is None or self.buf.numel() < need:
            self.buf = torch.empty(need + (1 << 16), dtype=torch.uint8, device="cuda")
        self.start, self.end = GUARD + offset, GUARD + offset + nbytes
        self.buf[: self.start].fill_(GUARD_BYTE)
        self.buf[self.end: self.end + GUARD].fill_(GUARD_BYTE)

    def view(self, dtype, shape):
        return self.buf[self.start: self.end].view(dtype).view(shape)

    def guards_intact(self):
        return bool(torch.all(self.buf[: self.start] == GUARD_BYTE)) and bool(torch.all(self.buf[self.end: self.end + GUARD] == GUARD_BYTE))


def _bits(x):
    """A float32 tensor's bits on the host (uint32), read on the current stream."""
    return x.detach().contiguous().view(torch.int32).to("cpu").numpy().view(np.uint32).reshape(-1).copy()


def _cycles_per_s():
    """torch.cuda._sleep spins a number of clock cycles: how many per second, measured."""
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    torch.cuda._sleep(20_000_000)
    b.record()
    b.synchronize()
    return 20_000_000 / max(a.elapsed_time(b) / 1e3, 1e-6)


class Caller:
    def __init__(self, fn, dps, watch, ids, sol_dir, emit):
        self.fn, self.dps, self.watch, self.ids = fn, dps, watch, ids
        self.sol_dir, self.emit = str(Path(sol_dir).resolve()), emit
        self.stream = torch.cuda.Stream()
        self.inputs = [Guarded() for _ in NAMES]
        self.out = Guarded()
        self.rng = np.random.default_rng(0x5EED)
        self.earlier = None  # the last job's results: plausible contents for a pre-fill
        self.cycles = _cycles_per_s()
        self.first = True  # the process's first call: threads it leaves (pools) are noted, not failed
        self.notes = []
        self.previous = None  # an earlier problem's inputs and results, for the reentrancy check
        self.reentrancy_done = False
        self.exact = device_bytes()[1]
        self.held = pw.HeldMemory(HELD_SLACK if self.exact else HELD_SLACK_BLOCKS)
        self.job_tensors = []  # the runner's own tensors of the current job (staged inputs and pre-fills)
        self.after_reentrant = False

    def run(self, name, gc, gs, th, offsets):
        """A generator (see invoke) that returns (judged output bits or None, {"findings", "shape",
        "dtype", "first_call_s", "calls_s", "notes"})."""
        self.held.abandon()  # calls of an earlier problem that ended in an error
        dev = [x.to("cuda") for x in (gc, gs, th)]  # staged: copied into the guarded buffers on the stream
        shape, n = tuple(th.shape), th.numel()
        for g, x, o in zip(self.inputs, dev, offsets):
            g.place(x.numel() * x.element_size(), o * x.element_size())
        self.out.place(n * 4, offsets[3] * 4 if len(offsets) > 3 else 0)
        fills = [cc.prefill(n, self.rng, self.earlier)]
        fills.append(cc.second_prefill(fills[0], self.rng, self.earlier))
        third = cc.second_prefill(fills[0], self.rng, self.earlier)
        for bit in range(1, 8):  # unlike both others in every element
            clash = (third == fills[0]) | (third == fills[1])
            third[clash] ^= np.uint32(1 << bit)
        fills.append(third)
        info = {"findings": [], "shape": list(shape), "dtype": "float32"}
        outs, walls, held = [], [], []
        # Uploaded now: an upload from pageable memory on the held stream would wait for the spin.
        staged = [torch.from_numpy(f.view(np.int32)).to("cuda").view(shape) for f in fills]
        self.job_tensors = dev + staged
        torch.cuda.synchronize()
        for k, fill in enumerate(staged):
            if k:
                self.emit(type="call_part", name=name)  # each call gets the per-call time limit
            spin = 0.0 if k != 1 else min(SPIN_CAP_S, SPIN_FLOOR_S + 4 * walls[0])
            bits, wall, error = yield from self._call(dev, shape, fill, spin, held, info["findings"])
            if error:
                info.update(error=error)
                return None, info
            outs.append(bits)
            walls.append(wall)
        remeasure = lambda: self._remeasure([h for _, h in held])  # noqa: E731
        info["findings"] += self.held.problem_done((shape, str(gc.dtype)), remeasure, self.after_reentrant)
        self.after_reentrant = False
        judged, unwritten, differ = self._merge([outs[0], outs[2]], [fills[0], fills[2]])
        if differ:
            info["findings"].append("a second call on the same inputs gave different bits")
        # The call behind the busy stream against both idle ones (a nondeterministic solution
        # differs from one of them at most by chance; work off the stream from both).
        if self._merge(outs[:2], fills[:2])[2] and self._merge(outs[1:], fills[1:])[2]:
            info["findings"].append("writes not ordered on the caller's current stream: a call behind a busy stream "
                                    "gave other results than the same call on an idle one")
        info["findings"] = list(dict.fromkeys(info["findings"]))
        info["notes"], self.notes = self.notes, []
        info["first_call_s"], info["calls_s"] = round(walls[0], 4), round(walls[1] + walls[2], 4)
        self.earlier = judged.view(np.float32)
        if not (differ or unwritten or info["findings"] or self.reentrancy_done) and n >= REENTRANT_MIN:
            if self.previous is not None:
                self.reentrancy_done = True
                self.emit(type="call_part", name=name)
                info["findings"] += yield from self._reentrant((dev, shape, outs[0]), self.previous)
                self.after_reentrant = True  # its new streams may have got a library's workspace
            self.previous = None if self.reentrancy_done else (dev, shape, outs[0])
        return judged, info

    def _reentrant(self, *problems):
        """Two calls in flight at once, on two streams released together by one event, on two
        problems whose results this solution gave alone: they must give the same bits again
        (a shared scratch buffer or a global stream races). Once per run, as the .cu contract.
        A generator (see invoke)."""
        gate, streams = torch.cuda.Stream(), [torch.cuda.Stream() for _ in problems]
        go = torch.cuda.Event()
        calls = []
        with torch.cuda.stream(gate):
            torch.cuda._sleep(int(SPIN_CAP_S * self.cycles))
            go.record(gate)
        for st, (dev, shape, _) in zip(streams, problems):
            st.wait_event(go)
            with torch.cuda.stream(st):
                ins = [x.clone() for x in dev]
                out = torch.empty(shape, dtype=torch.float32, device="cuda")
                got = yield from invoke(self.fn, *ins, *([out] if self.dps else []))
            calls.append(out if self.dps else got)
        torch.cuda.synchronize()
        for x, (_, _, alone) in zip(calls, problems):
            if not isinstance(x, torch.Tensor) or x.numel() != alone.size or not np.array_equal(_bits(x), alone):
                return ["two calls in flight at once on two streams gave other results than each alone (not reentrant)"]
        return []

    def _merge(self, outs, fills):
        if self.dps:
            return cc.merge_calls(outs[0], fills[0], outs[1], fills[1])
        return cc.merge_calls(outs[0], ~outs[0], outs[-1], ~outs[-1])  # its own allocations: nothing pre-filled

    def _stage(self, dev, shape, fill, spin):
        """On the stream: inputs scrambled (and that finished), the spin, then the inputs and
        the pre-filled output written. Returns the views handed to the solution."""
        views = [g.view(x.dtype, shape) for g, x in zip(self.inputs, dev)]
        out = self.out.view(torch.float32, shape)
        with torch.cuda.stream(self.stream):
            for v in views:
                v.view(torch.uint8).fill_(0xFF)  # NaN in every dtype: what unordered work reads
            self.stream.synchronize()
            if spin:
                torch.cuda._sleep(int(spin * self.cycles))
            for v, x in zip(views, dev):
                v.copy_(x)
            out.view(torch.int32).copy_(fill)
        return views, out

    def _call(self, dev, shape, fill, spin, held, findings):
        """One call, a generator (see invoke): (output bits, wall time, error or None)."""
        views, out = self._stage(dev, shape, fill, spin)
        threads = set(threading.enumerate())
        where = out.data_ptr()
        with torch.cuda.stream(self.stream):
            before = current_place()
            began = time.monotonic()
            try:
                got = yield from invoke(self.fn, *views, *([out] if self.dps else []))
            finally:
                wall = time.monotonic() - began
                findings += self._restore_place(before)  # first, before anything else reads or queues
            if self.dps and (not cc.given_output_kept(out, where) or out.untyped_storage().data_ptr() != self.out.buf.data_ptr()):
                return None, wall, "the given output was rebound to other memory, not written in place"
            x = self.out.view(torch.float32, shape) if self.dps else got
            errors, found = cc.check_output(x, shape, "float32", list(zip(NAMES, views)), [r for r, _ in held], torch.device("cuda", 0))
            if errors:
                return None, wall, errors[0]
            bits = _bits(x)  # after this stream alone, as the caller would read it
        findings += found
        if not self.dps:  # its own allocation: a later call may not hand back the same memory
            held.append((cc.memory_range(x), x))
        self._after(x, bits, views, dev, threads, findings)
        del x, got
        self.held.after_call(self._held_now([h for _, h in held]))
        return bits, wall, None

    def _restore_place(self, before):
        """The current device and stream the call left: switched ones are findings, and are
        switched back before the runner queues or reads anything."""
        after = current_place()
        if after == before:
            return []
        if after[0] != before[0]:
            _set_device(before[0])
        _set_stream(self.stream)
        return pw.place_changes(before, after)

    def _held_now(self, outputs=()):
        """Device bytes the solution holds now: the allocator's count less the runner's own
        tensors (guarded buffers, this job's staged inputs and pre-fills, the outputs of this
        job's calls it still holds, the problem kept for the reentrancy check)."""
        torch.cuda.synchronize()
        torch.empty(1, device="cuda")  # an allocation settles frees that waited on streams
        own = {}
        previous = list(self.previous[0]) if self.previous is not None else []
        for t in [g.buf for g in self.inputs + [self.out] if g.buf is not None] + self.job_tensors + previous + list(outputs):
            s = t.untyped_storage()
            n = s.nbytes()
            own[s.data_ptr()] = n if self.exact else -(-n // 512) * 512
        return device_bytes()[0] - sum(v for p, v in own.items() if p)

    def _remeasure(self, outputs):
        pygc.collect()
        return self._held_now(outputs)

    def _from_solution(self, t):
        target = getattr(t, "_target", None) or type(t).run
        code = getattr(target, "__code__", None)
        return code is not None and str(Path(code.co_filename).resolve()).startswith(self.sol_dir)

    def _threads(self, threads, findings):
        """Threads the call left: one that ends within the settling time did work after the call
        returned, one still running then that runs the solution's own code is its worker: both
        fail the call. Others still running are a library's pool workers, and every thread of
        the process's first call (compilers start theirs there) is noted only: what any of them
        does after the call is caught by the re-read of the output."""
        fresh = pw.new_threads(threads, THREAD_SETTLE_S)
        failing = [t for t in fresh if not self.first and (not t.is_alive() or self._from_solution(t))]
        if failing:
            findings.append("threads started by the call still running after it: " + ", ".join(t.name for t in failing))
        kept = [t.name for t in fresh if t not in failing]
        if kept:
            self.notes.append("threads a call left, not failed (the process's first call, or a library's pool): " + ", ".join(kept))
        self.first = False

    def _after(self, x, bits, views, dev, threads, findings):
        self._threads(threads, findings)
        torch.cuda.synchronize()
        if not np.array_equal(bits, _bits(x)):
            findings.append("the output changed after the call returned and its stream had finished "
                            "(work left on another stream or thread)")
        if not all(g.guards_intact() for g in self.inputs + [self.out]):
            findings.append("wrote outside its buffers (guard band changed)")
        for name, v, x0 in zip(NAMES, views, dev):
            if not torch.equal(v.view(torch.uint8), x0.view(torch.uint8)):
                findings.append(f"inputs modified by the call ({name})")
        patches = pw.patched(self.ids, pw.identities(self.watch))
        if patches:
            findings.append("torch attribute replaced by the call: " + ", ".join(patches))
