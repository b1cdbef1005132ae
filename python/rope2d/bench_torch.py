"""Times the PyTorch peers of the rope2d kernel the way `rope2d bench` times it: PyTorch eager
(the SOL-ExecBench reference) and torch.compile of it, L2 flushed before every call, inputs at
shifted addresses, medians of the timed runs, on two clocks at once:

- events: CUDA events around the call, the GPU held by a 1 ms sleep while Python launches it
  (as rope2d's Timer), so the host's launch cost is not counted;
- kernel: the GPU durations of the kernels the call ran, summed, from CUPTI's records through
  torch.profiler (SOL-ExecBench's clock).

With --library (the project's kernel built as a shared object with the submission ABI) the
project's kernel runs in the same loop, call by call interleaved with the peers (their order
shuffled each run), so every run gives a pair (rope2d, torch.compile) timed under the same
conditions. A one-sided sign test over the pairs says whether rope2d is faster.

Prints one JSON object on stdout; progress on stderr.

With --configs, configurations of rope2d_backward_config (rope2d_tuning.h) join the loop too,
each paired with torch.compile: NAME=ELEMS_PER_THREAD/THREADS_PER_BLOCK/FLAGS, comma-separated.

usage: python3 -m rope2d.bench_torch --workloads 2x773,1x1801,... [--library librope2d_kernel.so]
                                      [--configs v2p=2/256/2,...] [--warmup 10] [--runs 50]"""
import argparse
import ctypes
import json
import math
import os
import random
import statistics
import sys
import tempfile

import torch

GRAD_BF16 = 0  # ROPE2D_GRAD_BF16 of cuda/include/rope2d/rope2d_backward.h
SLEEP_CYCLES = 2_000_000  # about 1 ms at the H200's clock, as rope2d's Timer waits
SHIFTS, STEP = 4, 128  # element offsets 0, 128, 256, 384 (as rope2d bench)
SPIN = "spin_kernel"  # the kernel of torch.cuda._sleep, which brackets every timed call


def reference(grad_cos, grad_sin, idx_theta):
    return -grad_cos * torch.sin(idx_theta) + grad_sin * torch.cos(idx_theta)


def load_rope2d(path):
    """rope2d_backward and rope2d_backward_config of the shared object."""
    lib = ctypes.CDLL(path)
    abi = [ctypes.c_void_p] * 4 + [ctypes.c_int64, ctypes.c_int, ctypes.c_void_p]
    lib.rope2d_backward.argtypes = abi
    lib.rope2d_backward_config.argtypes = abi + [ctypes.c_int] * 3
    lib.rope2d_backward.restype = lib.rope2d_backward_config.restype = ctypes.c_int
    return lib


def parse_configs(text):
    configs = {}
    for item in filter(None, (text or "").split(",")):
        name, _, knobs = item.partition("=")
        v, tpb, flags = (int(k) for k in knobs.split("/"))
        configs["rope2d_" + name] = (v, tpb, flags)
    return configs


def sign_test(a, b):
    """Pairs (a_i, b_i): how often a is smaller, larger, equal, and the one-sided p-value of
    seeing at least that many a-smaller pairs if neither were faster (ties dropped)."""
    wins = sum(x < y for x, y in zip(a, b))
    losses = sum(x > y for x, y in zip(a, b))
    n = wins + losses
    p = sum(math.comb(n, k) for k in range(wins, n + 1)) / 2**n if n else 1.0
    diffs = [y - x for x, y in zip(a, b)]
    return {"wins": wins, "losses": losses, "ties": len(a) - n, "p": p, "median_diff_ms": statistics.median(diffs)}


def workload_row(workload, impls, events, kernels, clock):
    """The output's row of one workload (verify/schema/bench-torch.schema.json, read by rope2d
    bench --torch): each implementation's median times on both clocks, and the sign tests of
    rope2d's kernel and of each configuration against torch.compile. kernels is None where the
    kernel clock gave nothing: those times are null (JSON has no NaN) and no kernel test is made."""
    row = {"workload": workload, "kernel_clock": clock}
    for k in impls:
        row[k] = {"event_ms": statistics.median(events[k]),
                  "kernel_ms": None if kernels is None else statistics.median(kernels[k])}
    for name in impls:
        if name in ("eager", "compile"):
            continue
        suffix = name[len("rope2d"):]
        row["paired_events" + suffix] = sign_test(events[name], events["compile"])
        if kernels is not None:
            row["paired_kernel" + suffix] = sign_test(kernels[name], kernels["compile"])
    return row


def us(ms):
    """A time in ms as microseconds for the progress lines ("-" where there is none)."""
    return "-" if ms is None else f"{ms * 1e3:.2f}"


def kernel_durations(trace_path, calls):
    """The summed kernel durations (ms) of each timed call, read from a profiler trace in which
    each call lies between two sleep kernels."""
    with open(trace_path) as f:
        events = json.load(f)["traceEvents"]
    kernels = sorted((e for e in events if e.get("cat") == "kernel"), key=lambda e: e["ts"])
    spins = [i for i, e in enumerate(kernels) if SPIN in e["name"]]
    if len(spins) != 2 * calls:
        raise RuntimeError(f"the profiler trace holds {len(spins)} sleep kernels, expected {2 * calls}")
    out = []
    for j in range(calls):
        inside = kernels[spins[2 * j] + 1:spins[2 * j + 1]]
        if not inside:
            raise RuntimeError(f"call {j} ran no kernel in the profiler trace")
        out.append(sum(e["dur"] for e in inside) * 1e-3)  # trace times are in us
    return out


def main():
    ap = argparse.ArgumentParser(prog="python3 -m rope2d.bench_torch")
    ap.add_argument("--workloads", required=True)
    ap.add_argument("--library", help="librope2d_kernel.so: time the project's kernel in the same loop")
    ap.add_argument("--configs", help="also time these configurations (needs --library)")
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--runs", type=int, default=50)
    a = ap.parse_args()
    dev = torch.device("cuda")
    flush = torch.empty(256 << 20, dtype=torch.uint8, device=dev)
    # One specialised kernel per shape, as a user compiling for fixed shapes would get.
    torch._dynamo.config.cache_size_limit = 64
    if hasattr(torch._dynamo.config, "recompile_limit"):
        torch._dynamo.config.recompile_limit = 64
    compiled = torch.compile(reference, dynamic=False)
    lib = load_rope2d(a.library) if a.library else None
    configs = parse_configs(a.configs) if lib else {}
    out = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "workloads": []}

    for w in a.workloads.split(","):
        b, s = (int(x) for x in w.split("x"))
        n = b * s * 128
        total = n + SHIFTS * STEP
        gc = torch.randn(total, device=dev).to(torch.bfloat16)
        gs = torch.randn(total, device=dev).to(torch.bfloat16)
        th = torch.randn(total, device=dev)
        res = torch.empty(total, device=dev)

        def args(i):
            o = (i % SHIFTS) * STEP
            return (gc[o:o + n].view(b, s, 128), gs[o:o + n].view(b, s, 128), th[o:o + n].view(b, s, 128))

        def ours(knobs=None):
            def call(x, y, t):
                o = x.data_ptr() - gc.data_ptr()  # same element offset as the inputs
                dst = res[o // 2:o // 2 + n]
                ptrs = (x.data_ptr(), y.data_ptr(), t.data_ptr(), dst.data_ptr(), n, GRAD_BF16,
                        torch.cuda.current_stream().cuda_stream)
                rc = lib.rope2d_backward_config(*ptrs, *knobs) if knobs else lib.rope2d_backward(*ptrs)
                if rc:
                    raise RuntimeError(f"rope2d returned {rc} on {w} ({knobs or 'shipped'})")
                return dst.view(b, s, 128)
            return call

        impls = {"eager": reference, "compile": compiled}
        if lib:
            impls["rope2d"] = ours()
            impls.update((name, ours(knobs)) for name, knobs in configs.items())
            # The library is called through ctypes: check the plumbing once against float64,
            # the output poisoned with NaN first.
            x = args(1)
            exact = reference(*(v.double() for v in x))
            for name in impls.keys() - {"eager", "compile"}:
                res.fill_(math.nan)
                err = (impls[name](*x).double() - exact).abs().max().item()
                if not err < 1e-5:
                    raise RuntimeError(f"{name} through {a.library} is off by {err} on {w}")

        for i in range(a.warmup):  # compiles, and warms each path
            for fn in impls.values():
                fn(*args(i))
        torch.cuda.synchronize()

        names, events = [], {k: [] for k in impls}
        e0 = torch.cuda.Event(enable_timing=True)
        e1 = torch.cuda.Event(enable_timing=True)
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            for i in range(a.runs):
                order = list(impls)
                random.Random(i).shuffle(order)  # no call keeps a place in the sequence
                for name in order:
                    x = args(i)
                    flush.zero_()
                    # Keep the GPU busy while Python launches, so the events time the kernels
                    # and not the host: torch.compile's guards and launcher outlast a flush.
                    torch.cuda._sleep(SLEEP_CYCLES)
                    e0.record()
                    impls[name](*x)
                    e1.record()
                    torch.cuda._sleep(1)  # closes the call in the kernel trace
                    e1.synchronize()
                    events[name].append(e0.elapsed_time(e1))
                    names.append(name)
        try:
            with tempfile.TemporaryDirectory() as tmp:
                trace = os.path.join(tmp, "trace.json")
                prof.export_chrome_trace(trace)
                durations = kernel_durations(trace, len(names))
            kernels = {k: [d for d, m in zip(durations, names) if m == k] for k in impls}
            clock = "CUPTI through torch.profiler"
        except (RuntimeError, KeyError, ValueError) as e:
            kernels = None
            clock = f"unavailable: {e}"[:1000]
        row = workload_row(w, list(impls), events, kernels, clock)
        out["workloads"].append(row)
        summary = ", ".join(f"{k} {us(v['event_ms'])}/{us(v['kernel_ms'])}"
                            for k, v in row.items() if isinstance(v, dict) and "event_ms" in v)
        print(f"torch peers: {w} (us, events/kernel) {summary}", file=sys.stderr, flush=True)
    json.dump(out, sys.stdout, allow_nan=False)


if __name__ == "__main__":
    main()
