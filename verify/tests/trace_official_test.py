#!/usr/bin/env python3
"""rope2d's Trace JSON lines read by SOL-ExecBench's own Trace model (core/data/trace.py).

`rope2d check --trace` is run on the committed golden set with outputs that pass, fail, are
missing, have the wrong dtype and the wrong shape, and `--json` on stdout; `rope2d verify
--trace` with no GPU (CUDA_VISIBLE_DEVICES empty), with a solution whose Python does not
compile, and with a .cu that does not compile (where nvcc is installed). Every trace line must
validate through the official model (its sources from $SOLX_SRC or <repo>/.solexecbench/src,
with the stand-ins of <repo>/../shared/sol-execbench/harness), with the status each set earned
and its axes; the status table of docs/solexecbench.md must name the official enum's values,
each at least once. Exit 77 (SKIPPED) where the official sources or the stand-ins are absent.

usage: trace_official_test.py ROPE2D REPO_ROOT"""
import json
import os
import re
import shutil
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
    from sol_execbench.core.data.trace import EvaluationStatus
    return Trace, EvaluationStatus


def read_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    return header, data


def write_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name, (shape, blob, *dtype) in tensors.items():
        header[name] = {"dtype": dtype[0] if dtype else "F32", "shape": shape, "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


# The statuses the outputs file below earns, problem by problem (then PASSED).
CHECK_STATUSES = ["INCORRECT_NUMERICAL", "RUNTIME_ERROR", "INCORRECT_DTYPE", "INCORRECT_SHAPE"]


def outputs_file(golden, path):
    """The stored results as outputs: the first problem far off, the second missing, the third
    in float16, the fourth of shape [1, n]."""
    files = json.load(open(os.path.join(golden, "manifest.json")))["files"]
    tensors = {}
    for k, f in enumerate(files):
        header, data = read_safetensors(os.path.join(golden, f["file"]))
        h = header["grad_idx_theta"]
        blob = data[h["data_offsets"][0]:h["data_offsets"][1]]
        n = len(blob) // 4
        if k == 0:
            vals = struct.unpack(f"<{n}f", blob)
            blob = struct.pack(f"<{len(vals)}f", *[v + 1.0 for v in vals])
        if k == 2:
            tensors[f["problem"]] = (h["shape"], blob[:2 * n], "F16")
        elif k == 3:
            tensors[f["problem"]] = ([1, n], blob)
        elif k != 1:
            tensors[f["problem"]] = (h["shape"], blob)
    write_safetensors(path, tensors)
    return files


def validate(Trace, path):
    lines = [json.loads(l) for l in open(path)]
    for k, line in enumerate(lines):
        Trace.model_validate(line)  # raises on any line the official model refuses
    return lines


def axes_ok(lines):
    """Every line's axes name the problem: {batch_size, seq_len} or {elements}."""
    return all(set(l["workload"]["axes"]) in ({"batch_size", "seq_len"}, {"elements"}) for l in lines)


def docs_statuses(repo):
    """The status column of docs/solexecbench.md's table (`| cause | ... | status |`)."""
    text = open(os.path.join(repo, "docs", "solexecbench.md")).read()
    rows = re.findall(r"^\| `[a-z ]+` \|.*\| ([^|]+) \|$", text, re.M)
    return [r.strip().strip("`") for r in rows]


def verify_run(rope2d, tmp, name, args, env=None):
    """rope2d verify ARGS --trace, its exit code, trace lines (validated later), report.json, junit.xml."""
    out, trace = os.path.join(tmp, name), os.path.join(tmp, name + ".jsonl")
    p = subprocess.run([rope2d, "verify", *args, "--quick", "--quiet", "--out", out, "--trace", trace],
                       capture_output=True, text=True, env=env, timeout=900)
    report = json.load(open(os.path.join(out, "report.json"))) if os.path.exists(os.path.join(out, "report.json")) else None
    junit = open(os.path.join(out, "junit.xml")).read() if os.path.exists(os.path.join(out, "junit.xml")) else ""
    return p, trace, report, junit


def main():
    rope2d, repo = sys.argv[1], sys.argv[2]
    Trace, EvaluationStatus = official_trace_model(repo)
    official = {s.value for s in EvaluationStatus}
    golden = os.path.join(repo, "data", "golden-smoke")
    fails, validated = [], 0

    def expect(cond, what):
        if not cond:
            fails.append(what)

    # The documented table names the official statuses, and every one of them.
    documented = docs_statuses(repo)
    expect(len(documented) >= 9, f"docs/solexecbench.md: {len(documented)} status rows found")
    expect(set(documented) - {"none: no trace line"} <= official, f"docs: not official: {set(documented) - official}")
    expect(official <= set(documented), f"docs: official statuses no row gives: {official - set(documented)}")

    with tempfile.TemporaryDirectory() as tmp:
        outputs = os.path.join(tmp, "out.safetensors")
        files = outputs_file(golden, outputs)
        trace = os.path.join(tmp, "trace.jsonl")
        p = subprocess.run([rope2d, "check", "--golden", golden, "--outputs", outputs, "--trace", trace, "--json", "--quiet"],
                           capture_output=True, text=True)
        expect(p.returncode == 2, f"check exit {p.returncode}, expected 2 (sets that failed to run): {p.stderr[-500:]}")
        report = json.loads(p.stdout)  # --json: stdout holds report.json alone
        expect(len(report["results"]) == len(files), f"--json: {len(report['results'])} results for {len(files)} problems")
        lines = validate(Trace, trace)
        validated += len(lines)
        statuses = [l["evaluation"]["status"] for l in lines]
        expect(len(lines) == len(files), f"{len(lines)} trace lines for {len(files)} problems")
        expect(statuses[:4] == CHECK_STATUSES and "PASSED" in statuses[4:],
               f"check statuses {statuses[:5]}...: expected {CHECK_STATUSES}, then PASSED")
        expect([r.get("status") for r in report["results"]] == statuses, "report.json's statuses differ from the trace's")
        expect(axes_ok(lines), "check: a line without its axes")
        expect(all(l["solution"] == outputs for l in lines), f"check: solution is {lines[0]['solution']!r}, not the outputs file")
        nonfinite = [l for l in lines if l["workload"]["uuid"].startswith("nonfinite/")]
        expect(nonfinite and all(l["evaluation"]["correctness"]["has_nan"] or l["evaluation"]["correctness"]["has_inf"]
                                 for l in nonfinite), "the nonfinite sets' correctness does not say has_nan / has_inf")
        # The golden set against the reference, traced too.
        trace2 = os.path.join(tmp, "golden.jsonl")
        p = subprocess.run([rope2d, "check", "--golden", golden, "--trace", trace2, "--quiet"], capture_output=True, text=True)
        expect(p.returncode == 0, f"check of the golden set: exit {p.returncode}")
        golden_lines = validate(Trace, trace2)
        validated += len(golden_lines)
        expect(axes_ok(golden_lines), "check --golden: a line without its axes")

        # No GPU (none visible): every selected set, skipped, with the status that says so.
        env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
        p, t, rep, junit = verify_run(rope2d, tmp, "nogpu", ["--golden", golden], env)
        expect(p.returncode == 0, f"verify without a GPU: exit {p.returncode}: {p.stdout[-300:]} {p.stderr[-300:]}")
        nogpu = validate(Trace, t) if os.path.exists(t) else []
        validated += len(nogpu)
        expect(rep is not None and rep["verdict"] == "skipped", f"no GPU: report.json verdict {rep and rep['verdict']}")
        expect(nogpu and rep and len(nogpu) == len(rep["results"]), "no GPU: not one trace line per set")
        expect(all(l["evaluation"]["status"] == "RUNTIME_ERROR" and l["evaluation"]["log"].startswith("kernel runs skipped")
                   for l in nogpu), "no GPU: a line that is not RUNTIME_ERROR 'kernel runs skipped'")
        expect(not any(l["evaluation"]["status"] == "PASSED" for l in nogpu), "no GPU: a set PASSED on nothing")
        expect(axes_ok(nogpu), "no GPU: a line without its axes")
        expect("<skipped" in junit and 'type="RUNTIME_ERROR"' in junit, "no GPU: junit.xml without skipped RUNTIME_ERROR cases")

        # A Python solution that does not compile: COMPILE_ERROR on every set (no GPU needed).
        cases = json.load(open(os.path.join(repo, "verify", "tests", "solution_cases", "cases.json")))
        broken = cases["bases"]["triton"]
        broken["sources"][0]["content"] += "\ndef broken(:\n"
        solution = os.path.join(tmp, "syntax.json")
        json.dump(broken, open(solution, "w"))
        p, t, rep, junit = verify_run(rope2d, tmp, "syntax", [solution], env)
        expect(p.returncode == 3, f"solution that does not compile: exit {p.returncode}, expected 3")
        syntax = validate(Trace, t) if os.path.exists(t) else []
        validated += len(syntax)
        expect(syntax and all(l["evaluation"]["status"] == "COMPILE_ERROR" and "SyntaxError" in l["evaluation"]["log"]
                              for l in syntax), f"syntax error: statuses {sorted({l['evaluation']['status'] for l in syntax})}")
        expect(axes_ok(syntax), "syntax error: a line without its axes")
        expect(rep is not None and rep["verdict"] == "failed", "syntax error: report.json verdict is not failed")

        # A .cu that does not compile (nvcc in the box, where nvcc is installed; any GPU may stay).
        nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.access("/usr/local/cuda/bin/nvcc", os.X_OK) else None)
        if nvcc:
            cu = os.path.join(tmp, "broken.cu")
            open(cu, "w").write("this is not CUDA\n")
            p, t, rep, junit = verify_run(rope2d, tmp, "cu", [cu, "--nvcc", nvcc])
            expect(p.returncode == 3, f".cu that does not compile: exit {p.returncode}, expected 3: {p.stdout[-300:]}")
            cu_lines = validate(Trace, t) if os.path.exists(t) else []
            validated += len(cu_lines)
            expect(cu_lines and all(l["evaluation"]["status"] == "COMPILE_ERROR" for l in cu_lines),
                   f".cu: statuses {sorted({l['evaluation']['status'] for l in cu_lines})}")
            expect(axes_ok(cu_lines), ".cu: a line without its axes")
            expect('type="COMPILE_ERROR"' in junit, ".cu: junit.xml without COMPILE_ERROR")
        else:
            print("the .cu case: SKIPPED (no nvcc); the solution case covers COMPILE_ERROR")

        # The model does refuse: a PASSED line without performance, a REWARD_HACK line with
        # correctness, a status that is not one.
        passed = next(l for l in lines if l["evaluation"]["status"] == "PASSED")
        numerical = lines[0]
        for what, broken_line in [
                ("a PASSED trace without performance",
                 dict(passed, evaluation={k: v for k, v in passed["evaluation"].items() if k != "performance"})),
                ("a REWARD_HACK trace with correctness", dict(numerical, evaluation=dict(numerical["evaluation"], status="REWARD_HACK"))),
                ("a status that is none", dict(passed, evaluation=dict(passed["evaluation"], status="SKIPPED")))]:
            try:
                Trace.model_validate(broken_line)
                fails.append(f"the official model accepted {what}: the check proves nothing")
            except Exception:
                pass
    for f in fails:
        print("FAIL", f)
    print(f"trace_official: {validated} lines validated by SOL-ExecBench's Trace model; {len(fails)} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
