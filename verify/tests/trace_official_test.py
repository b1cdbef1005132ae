#!/usr/bin/env python3
"""rope2d's Trace JSON lines read by SOL-ExecBench's own Trace model (core/data/trace.py).

`rope2d check --trace` is run on the committed golden set with outputs that pass, fail and are
missing, and `--json` on stdout; every trace line must validate through the official model
(its sources from $SOLX_SRC or <repo>/.solexecbench/src, with the stand-ins of
<repo>/../shared/sol-execbench/harness), with the status each set earned. Exit 77 (SKIPPED)
where the official sources or the stand-ins are absent.

usage: trace_official_test.py ROPE2D REPO_ROOT"""
import json
import os
import struct
import subprocess
import sys
import tempfile


def official_trace_model(repo):
    src = os.environ.get("SOLX_SRC") or os.path.join(repo, ".solexecbench", "src")
    standins = os.path.join(repo, "..", "shared", "sol-execbench", "harness", "standins")
    if not os.path.isdir(os.path.join(src, "sol_execbench")) or not os.path.isdir(standins):
        print(f"SKIPPED: no SOL-ExecBench sources at {src} or no stand-ins at {standins}")
        sys.exit(77)
    # Every stand-in (SOLX_STANDINS=all): Debian's pydantic is version 1.
    sys.path[:0] = [src] + [os.path.join(standins, m) for m in sorted(os.listdir(standins))]
    from sol_execbench.core.data import Trace
    return Trace


def read_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    return header, data


def write_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name, (shape, blob) in tensors.items():
        header[name] = {"dtype": "F32", "shape": shape, "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def outputs_file(golden, path):
    """The stored results as outputs: the first problem far off, the second missing."""
    files = json.load(open(os.path.join(golden, "manifest.json")))["files"]
    tensors = {}
    for k, f in enumerate(files):
        header, data = read_safetensors(os.path.join(golden, f["file"]))
        h = header["grad_idx_theta"]
        blob = data[h["data_offsets"][0]:h["data_offsets"][1]]
        if k == 0:
            vals = struct.unpack(f"<{len(blob) // 4}f", blob)
            blob = struct.pack(f"<{len(vals)}f", *[v + 1.0 for v in vals])
        if k != 1:
            tensors[f["problem"]] = (h["shape"], blob)
    write_safetensors(path, tensors)
    return files


def validate(Trace, path):
    lines = [json.loads(l) for l in open(path)]
    for k, line in enumerate(lines):
        Trace.model_validate(line)  # raises on any line the official model refuses
    return lines


def main():
    rope2d, repo = sys.argv[1], sys.argv[2]
    Trace = official_trace_model(repo)
    golden = os.path.join(repo, "data", "golden-smoke")
    fails = []
    with tempfile.TemporaryDirectory() as tmp:
        outputs = os.path.join(tmp, "out.safetensors")
        files = outputs_file(golden, outputs)
        trace = os.path.join(tmp, "trace.jsonl")
        p = subprocess.run([rope2d, "check", "--golden", golden, "--outputs", outputs, "--trace", trace, "--json", "--quiet"],
                           capture_output=True, text=True)
        if p.returncode != 2:  # a missing output is a set that failed to run
            fails.append(f"check exit {p.returncode}, expected 2: {p.stderr[-500:]}")
        report = json.loads(p.stdout)  # --json: stdout holds report.json alone
        if len(report["results"]) != len(files):
            fails.append(f"--json: {len(report['results'])} results for {len(files)} problems")
        lines = validate(Trace, trace)
        statuses = [l["evaluation"]["status"] for l in lines]
        if len(lines) != len(files):
            fails.append(f"{len(lines)} trace lines for {len(files)} problems")
        if statuses[0] != "INCORRECT_NUMERICAL" or statuses[1] != "RUNTIME_ERROR" or "PASSED" not in statuses[2:]:
            fails.append(f"statuses {statuses[:4]}...: expected INCORRECT_NUMERICAL, RUNTIME_ERROR, then PASSED")
        nonfinite = [l for l in lines if l["workload"]["uuid"].startswith("nonfinite/")]
        if not nonfinite or not all(l["evaluation"]["correctness"]["has_nan"] or l["evaluation"]["correctness"]["has_inf"] for l in nonfinite):
            fails.append("the nonfinite sets' correctness does not say has_nan / has_inf")
        # The golden set against the reference, traced too.
        trace2 = os.path.join(tmp, "golden.jsonl")
        p = subprocess.run([rope2d, "check", "--golden", golden, "--trace", trace2, "--quiet"], capture_output=True, text=True)
        if p.returncode != 0:
            fails.append(f"check of the golden set: exit {p.returncode}")
        validate(Trace, trace2)
        # The model does refuse: a PASSED line without performance is not a trace.
        broken = dict(lines[2], evaluation={k: v for k, v in lines[2]["evaluation"].items() if k != "performance"})
        try:
            Trace.model_validate(broken)
            fails.append("the official model accepted a PASSED trace without performance: the check proves nothing")
        except Exception:
            pass
    for f in fails:
        print("FAIL", f)
    print(f"trace_official: {len(lines)} + golden lines validated by SOL-ExecBench's Trace model; {len(fails)} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
