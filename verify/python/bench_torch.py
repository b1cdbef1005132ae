#!/usr/bin/env python3
"""Times the PyTorch peers of the rope2d kernel the way `rope2d bench` times it: PyTorch eager
(the SOL-ExecBench reference) and torch.compile of it. L2 flushed before every run, inputs at
shifted addresses, CUDA events, median of the timed runs. Prints one JSON object on stdout.

usage: bench_torch.py --workloads 2x773,1x1801,... [--warmup 10] [--runs 50]"""
import argparse
import json
import statistics
import sys

import torch


def reference(grad_cos, grad_sin, idx_theta):
    return -grad_cos * torch.sin(idx_theta) + grad_sin * torch.cos(idx_theta)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workloads", required=True)
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
    sleep_cycles = 2_000_000  # about 1 ms at the H200's clock, as rope2d's Timer waits
    shifts, step = 4, 128  # element offsets 0, 128, 256, 384 (as rope2d bench)
    out = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "eager_ms": [], "compile_ms": []}
    for w in a.workloads.split(","):
        b, s = (int(x) for x in w.split("x"))
        n = b * s * 128
        total = n + shifts * step
        gc = torch.randn(total, device=dev).to(torch.bfloat16)
        gs = torch.randn(total, device=dev).to(torch.bfloat16)
        th = torch.randn(total, device=dev)

        def args(i):
            o = (i % shifts) * step
            return (gc[o:o + n].view(b, s, 128), gs[o:o + n].view(b, s, 128), th[o:o + n].view(b, s, 128))

        for key, fn in (("eager_ms", reference), ("compile_ms", compiled)):
            times = []
            for i in range(a.warmup + a.runs):
                x = args(i)
                flush.zero_()
                # Keep the GPU busy while Python launches, so the events time the kernels and
                # not the host: torch.compile's guards and launcher can outlast the flush alone.
                torch.cuda._sleep(sleep_cycles)
                e0 = torch.cuda.Event(enable_timing=True)
                e1 = torch.cuda.Event(enable_timing=True)
                e0.record()
                fn(*x)
                e1.record()
                e1.synchronize()
                if i >= a.warmup:
                    times.append(e0.elapsed_time(e1))
            out[key].append(statistics.median(times))
        print(f"torch peers: {w} eager {out['eager_ms'][-1]*1e3:.1f} us, compile {out['compile_ms'][-1]*1e3:.1f} us",
              file=sys.stderr, flush=True)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
