"""The Python host's work for the judge (the relay, rope2d.runner, hands it to the host): the solution
imported or built, then the judge's requests served on its socket (descriptor given in the
config), in the records of verify/src/harness/host_protocol.hpp: map the judge's device memory
(POSIX descriptors of the driver's virtual memory API), make each call on the GPU between the
judge's two flag words, and reply. The judge owns every buffer: it fills the inputs and the
pre-filled output, guards them, and reads outputs, guards and inputs from its own memory after
the call. Nothing this process says is a result; its notes (JSON, one record each) are its
words on itself (the import, a load error) and on each call (an error and its kind, the current
stream or device left switched, threads left, torch attributes replaced, device memory growing).

`steps(config)` is a generator: each call into the solution (the import included) is handed to the host's main frame (host_calls.invoke), so that no frame of the
runner is on the stack while solution code runs. The driver is reached through ctypes, torch
wraps the mapped memory through __cuda_array_interface__."""
import ctypes
import os
import socket
import struct
import sys
import threading
import time
import traceback

import torch

from rope2d import _call_checks as cc
from rope2d.runner import host_wire as wire
from rope2d.runner import process_watch as pw
from rope2d.runner import solution_build
from rope2d.runner.host_calls import import_solution, invoke

GRAD_DTYPES = {0: torch.bfloat16, 1: torch.float16, 2: torch.float32}
THREAD_SETTLE_S = 2.0
HELD_SLACK, HELD_SLACK_BLOCKS = 64 << 10, 1 << 20


class _Prop(ctypes.Structure):  # CUmemAllocationProp
    _fields_ = [("type", ctypes.c_int), ("handle_types", ctypes.c_int), ("loc_type", ctypes.c_int), ("loc_id", ctypes.c_int),
                ("win32", ctypes.c_void_p), ("compression", ctypes.c_ubyte), ("rdma", ctypes.c_ubyte),
                ("usage", ctypes.c_ushort), ("reserved", ctypes.c_ubyte * 4)]


class _Access(ctypes.Structure):  # CUmemAccessDesc
    _fields_ = [("loc_type", ctypes.c_int), ("loc_id", ctypes.c_int), ("flags", ctypes.c_int)]


class Driver:
    """The driver entry points the host needs, by cuGetProcAddress at CUDA 12's versions (the
    stream memory operations' _v2), as the C++ side takes them."""

    NAMES = ("cuMemGetAllocationGranularity", "cuMemImportFromShareableHandle", "cuMemAddressReserve", "cuMemMap",
             "cuMemSetAccess", "cuMemUnmap", "cuMemRelease", "cuMemAddressFree", "cuStreamWaitValue32",
             "cuStreamWriteValue32", "cuStreamSynchronize")

    def __init__(self, device):
        lib = ctypes.CDLL("libcuda.so.1")
        get = lib.cuGetProcAddress_v2
        get.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_int, ctypes.c_uint64, ctypes.c_void_p]
        u64, size, ptr, u32 = ctypes.c_uint64, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_uint
        sigs = {"cuMemGetAllocationGranularity": [ctypes.POINTER(size), ctypes.POINTER(_Prop), ctypes.c_int],
                "cuMemImportFromShareableHandle": [ctypes.POINTER(u64), ptr, ctypes.c_int],
                "cuMemAddressReserve": [ctypes.POINTER(u64), size, size, u64, u64],
                "cuMemMap": [u64, size, size, u64, u64], "cuMemSetAccess": [u64, size, ctypes.POINTER(_Access), size],
                "cuMemUnmap": [u64, size], "cuMemRelease": [u64], "cuMemAddressFree": [u64, size],
                "cuStreamWaitValue32": [ptr, u64, u32, u32], "cuStreamWriteValue32": [ptr, u64, u32, u32],
                "cuStreamSynchronize": [ptr]}
        self.fn = {}
        for name in self.NAMES:
            p, status = ctypes.c_void_p(), ctypes.c_int()
            if get(name.encode(), ctypes.byref(p), 12000, 0, ctypes.byref(status)) or not p.value:
                raise RuntimeError(f"the driver has no {name}")
            self.fn[name] = ctypes.CFUNCTYPE(ctypes.c_int, *sigs[name])(p.value)
        self.device = device
        prop = _Prop(type=1, handle_types=1, loc_type=1, loc_id=device)  # pinned, POSIX descriptor, this device
        gran = ctypes.c_size_t()
        self._check(self.fn["cuMemGetAllocationGranularity"](ctypes.byref(gran), ctypes.byref(prop), 0))
        self.granularity = gran.value

    @staticmethod
    def _check(rc):
        if rc:
            raise OSError(rc, f"CUresult {rc}")

    def map(self, fd, nbytes):
        """(address, handle, reserved bytes) of the allocation behind fd, read-write here; the
        granule after it stays unmapped (a read past the end faults, as in the judge)."""
        if self.granularity == 0 or nbytes % self.granularity:
            raise OSError(1, "size is not a multiple of the granularity")
        handle, va = ctypes.c_uint64(), ctypes.c_uint64()
        self._check(self.fn["cuMemImportFromShareableHandle"](ctypes.byref(handle), ctypes.c_void_p(fd), 1))
        reserved = nbytes + self.granularity
        try:
            self._check(self.fn["cuMemAddressReserve"](ctypes.byref(va), reserved, self.granularity, 0, 0))
            self._check(self.fn["cuMemMap"](va.value, nbytes, 0, handle.value, 0))
            access = _Access(loc_type=1, loc_id=self.device, flags=3)  # read-write
            self._check(self.fn["cuMemSetAccess"](va.value, nbytes, ctypes.byref(access), 1))
        except OSError:
            self.fn["cuMemRelease"](handle.value)
            raise
        return va.value, handle.value, reserved

    def unmap(self, va, handle, nbytes, reserved):
        self.fn["cuMemUnmap"](va, nbytes)
        self.fn["cuMemRelease"](handle)
        self.fn["cuMemAddressFree"](va, reserved)

    def wait(self, stream, address, value):
        self._check(self.fn["cuStreamWaitValue32"](ctypes.c_void_p(stream), address, value, 1))  # CU_STREAM_WAIT_VALUE_EQ

    def write(self, stream, address, value):
        self._check(self.fn["cuStreamWriteValue32"](ctypes.c_void_p(stream), address, value, 0))

    def synchronize(self, stream):
        return self.fn["cuStreamSynchronize"](ctypes.c_void_p(stream))


class _Bytes:
    """A device address range as torch reads it (__cuda_array_interface__, version 2: no
    stream to synchronise with)."""

    def __init__(self, address, nbytes):
        self.__cuda_array_interface__ = {"shape": (nbytes,), "typestr": "|u1", "data": (address, False), "version": 2}


class Host:
    """The judge's requests made on this process's GPU context: regions mapped, calls made
    between the flag words, replies and notes sent."""

    def __init__(self, sock, fn, cfg, watch, ids, import_patches):
        self.sock, self.fn, self.dps, self.watch, self.ids = sock, fn, cfg["dps"], watch, ids
        self.sol_dir = os.path.realpath(cfg["sol_dir"])
        # Replacing what a judge reads through fails every call, the import's replacements too.
        self.import_findings = [f"torch attribute replaced on import: {p}" for p in import_patches]
        self.driver = Driver(torch.cuda.current_device())
        self.regions = {}   # id -> (address, handle, bytes, reserved)
        self.streams = {}   # slot -> torch.cuda.Stream
        self.first = True   # the process's first call: threads it leaves (pools, compilers) are noted only
        exact = _memory_exact()
        self.held = pw.HeldMemory(HELD_SLACK if exact else HELD_SLACK_BLOCKS)
        self.key = None     # the shape and dtype of the calls read into self.held

    def reply(self, stage, seq, rc=0, cuda_error=0):
        self.sock.send(wire.REPLY.pack(wire.MAGIC, stage, seq, rc, cuda_error))

    def note(self, seq=0, **kw):
        self.sock.send(wire.note_record(seq, kw))

    def map(self, q, fd):
        rc = 0
        try:
            if fd is None or q["region"] in self.regions:
                raise OSError(1, "no descriptor, or a region mapped already")
            va, handle, reserved = self.driver.map(fd, q["bytes"])
            self.regions[q["region"]] = (va, handle, q["bytes"], reserved)
        except OSError as e:
            rc = e.errno or 1
        finally:
            if fd is not None:
                os.close(fd)
        self.reply(wire.MAPPED, q["region"], rc)

    def unmap(self, region):
        if region in self.regions:
            torch.cuda.synchronize()
            va, handle, nbytes, reserved = self.regions.pop(region)
            self.driver.unmap(va, handle, nbytes, reserved)

    def tensor(self, ref, nbytes, dtype, shape):
        region, offset = ref
        if region == 0 or region not in self.regions:
            raise ValueError("a pointer in no region the judge mapped")
        va, _, size, _ = self.regions[region]
        if offset + nbytes > size:
            raise ValueError("a buffer past its region's end")
        if nbytes == 0:
            return torch.empty(shape, dtype=dtype, device="cuda")
        return torch.as_tensor(_Bytes(va + offset, nbytes), device="cuda").view(dtype).view(shape)

    def stream(self, slot):
        if slot not in self.streams:
            self.streams[slot] = torch.cuda.Stream()
        return self.streams[slot]

    def call(self, q):
        """One call (a generator, see host_calls.invoke): the solution on a stream of this
        host that waits for the judge's "go", then "done" written; replies launched (rc 0, or 1
        with a note saying why) and, after the stream finished, the call's notes and finished."""
        seq, v = q["seq"], q["seq"] & 0xFFFFFFFF
        flags = self.regions.get(wire.FLAGS_REGION)
        shape = tuple(q["shape"]) if q["rank"] else (q["count"],)
        gdt = GRAD_DTYPES.get(q["grad_dtype"])
        error, kind, found = None, "runtime", []
        s = self.stream(q["slot"])
        go = (flags[0] + 8 * (seq % wire.FLAG_PAIRS)) if flags else 0
        try:
            if not flags or gdt is None or q["entry"] != 0 or q["capture"]:
                raise ValueError("a call this host cannot make (entry, capture or grad dtype)")
            n, w = q["count"], torch.empty((), dtype=gdt).element_size()
            views = [self.tensor(q["args"][0], n * w, gdt, shape), self.tensor(q["args"][1], n * w, gdt, shape),
                     self.tensor(q["args"][2], n * 4, torch.float32, shape)]
            out = self.tensor(q["args"][3], n * 4, torch.float32, shape)
        except ValueError as e:
            error = str(e)
        if flags:
            self.driver.wait(s.cuda_stream, go, v)
        threads, began = set(threading.enumerate()), time.monotonic()
        if error is None:
            error, kind, found = yield from self._invoke(views, out, shape, s)
        wall = time.monotonic() - began
        if flags:
            self.driver.write(s.cuda_stream, go + 4, v)
        if error is not None:
            self.note(seq, error=error, kind=kind)
        self.reply(wire.LAUNCHED, seq, 0 if error is None else 1)
        cuda_error = self.driver.synchronize(s.cuda_stream)
        found += self._after(threads, (shape, str(gdt)))
        self.note(seq, wall_s=round(wall, 4), findings=list(dict.fromkeys(found)))
        self.reply(wire.FINISHED, seq, 0, cuda_error)

    def _invoke(self, views, out, shape, s):
        """The solution called with the current stream `s`: (error or None, its kind, findings).
        A result it returns is checked and copied into the judge's output on `s`."""
        found = []
        with torch.cuda.stream(s):
            before = _place()
            try:
                got = yield from invoke(self.fn, *views, *([out] if self.dps else []))
            except Exception as e:  # the solution's error fails the call
                _restore(before, s)
                return f"{type(e).__name__}: {e}", "runtime", found
            found += _restore(before, s)
            if self.dps:
                return None, "runtime", found
            errors, more = cc.check_output(got, shape, "float32", list(zip(("grad_cos", "grad_sin", "idx_theta"), views)), (),
                                           torch.device("cuda", torch.cuda.current_device()))
            if errors:
                kind = "shape" if isinstance(got, torch.Tensor) and tuple(got.shape) != tuple(shape) else (
                    "dtype" if isinstance(got, torch.Tensor) else "runtime")
                return errors[0], kind, found
            out.copy_(got)
            return None, "runtime", found + more

    def _after(self, threads, key):
        """Findings after the call's stream finished: torch attributes replaced (on import or by a
        call), threads it left running its own code or ending within the settling time (work
        after the call returned; a library's pool workers, and every thread of the process's
        first call, are spared), device memory held growing."""
        found = list(self.import_findings)
        fresh = pw.new_threads(threads, THREAD_SETTLE_S)
        failing = [t for t in fresh if not self.first and (not t.is_alive() or self._from_solution(t))]
        if failing:
            found.append("threads started by the call still running after it: " + ", ".join(t.name for t in failing))
        self.first = False
        patches = pw.patched(self.ids, pw.identities(self.watch))
        if patches:
            found.append("torch attribute replaced by the call: " + ", ".join(patches))
        if key != self.key:
            self.held.abandon()
            self.key = key
        self.held.after_call(_held())
        if len(self.held.samples) >= 3:
            found += self.held.problem_done(key, _held_collected)
        return found

    def _from_solution(self, t):
        """A thread running the solution's own code (its target defined in the solution's folder),
        not a library's pool worker."""
        target = getattr(t, "_target", None) or type(t).run
        code = getattr(target, "__code__", None)
        return code is not None and os.path.realpath(code.co_filename).startswith(self.sol_dir + os.sep)

    def serve(self):
        """The request loop (a generator): until the judge says bye or closes the socket."""
        while True:
            data, ancdata, _, _ = self.sock.recvmsg(wire.REQUEST.size + 1, socket.CMSG_SPACE(4 * 4))
            fds = []
            for level, kind, payload in ancdata:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    fds += list(struct.unpack(f"{len(payload) // 4}i", payload[:len(payload) // 4 * 4]))
            fd, extra = (fds[0] if fds else None), fds[1:]
            for x in extra:
                os.close(x)
            if not data:
                return
            q = wire.parse_request(data)
            if q is None:
                sys.stderr.write(f"Python host: a record that is not a valid request ({len(data)} bytes)\n")
                return
            if q["op"] == wire.OP_MAP:
                self.map(q, fd)
                continue
            if fd is not None:
                os.close(fd)
            if q["op"] == wire.OP_UNMAP:
                self.unmap(q["region"])
            elif q["op"] == wire.OP_CALL:
                yield from self.call(q)
            else:
                return


def _memory_exact():
    try:
        return "requested_bytes.all.current" in torch.cuda.memory_stats()
    except Exception:
        return False


def _held():
    """Device bytes torch's allocator has handed out and not had back: the solution's (the
    judge's buffers are not the allocator's; a returned output was copied and dropped)."""
    torch.cuda.synchronize()
    torch.empty(1, device="cuda")  # an allocation settles frees that waited on streams
    stats = torch.cuda.memory_stats()
    return int(stats.get("requested_bytes.all.current", stats.get("allocated_bytes.all.current", 0)))


def _held_collected():
    import gc
    gc.collect()
    return _held()


# Read before the solution is imported: the raw getters and setters of the current place.
_get_stream = getattr(torch._C, "_cuda_getCurrentStream", None)
_set_stream, _set_device = torch.cuda.set_stream, torch.cuda.set_device


def _place():
    device = torch.cuda.current_device()
    if _get_stream:
        try:
            return device, tuple(_get_stream(device))[:3]
        except Exception:
            pass
    s = torch.cuda.current_stream(device)
    return device, (s.stream_id, s.device_index, s.device_type)


def _restore(before, s):
    """The current device and stream the call left: a switch is a finding, and is undone."""
    after = _place()
    if after == before:
        return []
    if after[0] != before[0]:
        _set_device(before[0])
    _set_stream(s)
    return pw.place_changes(before, after)


def _load(cfg, note):
    module_file, func_name = cfg["entry"].split("::")
    if cfg["build"].get("cpp"):
        fn, how = solution_build.build(cfg["sol_dir"], cfg["entry"], cfg["dps"], cfg["build"].get("compile_options", {}))
        note(type="build", how=how)
        return fn
    module = yield from import_solution(cfg["sol_dir"], module_file)
    return getattr(module, func_name)


def steps(cfg):
    """The whole run, as a generator of calls for the host's main frame to make."""
    sock = socket.socket(fileno=cfg["socket_fd"])
    note = lambda **kw: sock.send(wire.note_record(0, kw))  # noqa: E731
    torch.cuda.init()
    torch.empty(1, device="cuda")  # the primary context current on this thread, for the driver calls
    watch = pw.watched(torch)
    ids, state, threads = pw.identities(watch), pw.torch_state(torch), set(threading.enumerate())
    began = time.monotonic()
    try:
        fn = yield from _load(cfg, note)
    except Exception as e:  # the submission could not be built or loaded
        what = "build" if cfg["build"].get("cpp") else "load"
        kind = "build" if what == "build" or isinstance(e, SyntaxError) else "load"
        note(type="load_error", kind=kind, message=f"cannot {what} {cfg['entry']}: {type(e).__name__}: {e}",
             trace=traceback.format_exc(limit=3))
        return
    import_patches = pw.patched(ids, pw.identities(watch))
    note(type="load", import_s=round(time.monotonic() - began, 3), patched=import_patches,
         state=pw.state_changes(state, pw.torch_state(torch)),
         threads=[t.name for t in threading.enumerate() if t not in threads])
    try:
        host = Host(sock, fn, cfg, watch, pw.identities(watch), import_patches)  # calls: replacements after the import
    except (OSError, RuntimeError) as e:
        note(type="load_error", kind="load", message=f"the Python host cannot map the judge's memory: {e}")
        return
    sock.send(wire.REPLY.pack(wire.MAGIC, wire.HELLO, 1, 0, 0))
    yield from host.serve()
