#!/usr/bin/env python3
"""Runs a SOL-ExecBench solution's entry point for `rope2d verify solution.json`, out of process,
under the same call contract as a .cu kernel (see docs/python-solutions.md), in a neutral host.

usage: solution_runner.py SOLUTION_DIR ENTRY_POINT DPS JOBS_JSON [BUILD_JSON]
       solution_runner.py --serve SOLUTION_DIR ENTRY_POINT DPS WORK_DIR [BUILD_JSON]

--serve (what `rope2d verify` runs on a GPU): the host serves the judge on descriptor 3, a
socket to the judge (host_serve.py): the judge owns every buffer, and the host only maps them
and makes the calls. WORK_DIR takes output.log. Without it, the jobs' files (below).

ENTRY_POINT is "file.py::function", or "kernel.cu::function" for C++ solutions (BUILD_JSON
{"cpp": true, "compile_options": {...}}: built through the torch binding by solution_build.py).
DPS is 1 for run(grad_cos, grad_sin, idx_theta, grad_idx_theta), 0 for run(...) returning the
output. JOBS_JSON lists {"name", "inputs", "output", "offsets"}: safetensors files of inputs to
read and of the judged output to write (tensor "grad_idx_theta", float32, flattened; elements
some call left unwritten hold the poison). Each job is called three times (call.py says how).
One JSON line per event on stdout: {"type": "load", ...} after the import, {"type": "call"}
before a job and {"type": "called", ...} after it, with the findings of every check.

This process is the relay. The solution runs in a second one, the host: "python3 -" started in
the solution's folder with the environment less the verifier's variables, reading its program
(neutral_main.py) from its standard input and then, on a pipe of its own, its inputs and the
runner's code (solution_jobs.py, call.py, ...). The host writes its records to another private
pipe, each stamped with a secret it was given there; the relay passes on to its own stdout only
the lines that carry the secret, without it, so that lines the solution writes into a
descriptor it finds are dropped. The host's stdout and stderr (the solution's prints) go to
WORK/output.log, WORK being JOBS_JSON's folder (the only one written); when the host ends
early, their last lines go to the relay's stderr. The host is killed when the relay dies."""
import ctypes
import json
import os
import secrets
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
# The runner's code the host loads, in order (each may import those before it by these names);
# the last one's steps(config) is the run.
HOST_MODULES = (("host_calls", HERE / "host_calls.py"),
                ("process_watch", HERE / "process_watch.py"),
                ("_call_checks", HERE.parents[1] / "python" / "rope2d" / "_call_checks.py"),
                ("call", HERE / "call.py"),
                ("solution_build", HERE / "solution_build.py"),
                ("solution_jobs", HERE / "solution_jobs.py"))
# The same for --serve: the judge's requests on its socket instead of jobs.
SERVE_MODULES = HOST_MODULES[:3] + (("solution_build", HERE / "solution_build.py"), ("host_wire", HERE / "host_wire.py"),
                                     ("host_serve", HERE / "host_serve.py"))
SERVE_FD = 3
# The verifier's folders: an environment variable's entries naming them are left out.
HIDDEN = (HERE, HERE.parents[1] / "python" / "rope2d")
TAIL_BYTES = 4000
NOTE_FOREIGN = ("lines that the runner did not write reached its record channel and were ignored "
                "(the solution writes to file descriptors it was not given)")


def neutral_environ(env, hidden, folder):
    """The host's environment: env less every variable named ROPE2D_*, the shell's record of the
    last command ("_", the verifier's own path) and OLDPWD, less every entry (between ':') that
    names a folder in `hidden` (a variable left with none is dropped); PWD is the solution's
    folder, the host's working folder. Everything else (PATH, HOME, CUDA_VISIBLE_DEVICES, what
    torch and Triton read) as given."""
    marks = sorted({str(h) for h in hidden} | {os.path.realpath(h) for h in hidden})
    out = {}
    for k, v in env.items():
        if "ROPE2D" in k.upper() or k in ("_", "OLDPWD"):
            continue
        parts = v.split(os.pathsep)
        kept = [p for p in parts if not any(m in p for m in marks)]
        if len(kept) == len(parts):
            out[k] = v
        elif kept:
            out[k] = os.pathsep.join(kept)
    out["PWD"] = folder
    return out


class Records:
    """The host's record pipe, read in chunks: the lines stamped with the secret are passed on
    without it (feed returns them); anything else (a line without it, bytes glued before it, a
    stamped line that is not a JSON object) was written by someone else and is counted and
    dropped. The first "called" record after such lines gets a note saying so."""

    LIMIT = 1 << 20  # a line longer than this is not the runner's

    def __init__(self, secret):
        self.stamp = secret.encode()
        self.buf = b""
        self.foreign = self.noted = self.called = 0
        self.load_error = False

    def feed(self, data):
        self.buf += data
        out = []
        while b"\n" in self.buf:
            line, _, self.buf = self.buf.partition(b"\n")
            out += self._line(line)
        if len(self.buf) > self.LIMIT:
            self.foreign += 1
            self.buf = b""
        return out

    def _line(self, line):
        i = line.rfind(self.stamp)
        if i != 0:
            self.foreign += 1
        if i < 0:
            return []
        try:
            m = json.loads(line[i + len(self.stamp):])
        except ValueError:
            m = None
        if not isinstance(m, dict):
            self.foreign += 1
            return []
        self.called += m.get("type") == "called"
        self.load_error |= m.get("type") == "load_error"
        if m.get("type") == "called" and self.foreign > self.noted:
            self.noted = self.foreign
            m["notes"] = (m["notes"] if isinstance(m.get("notes"), list) else []) + [NOTE_FOREIGN]
            return [json.dumps(m).encode() + b"\n"]
        return [line[i + len(self.stamp):] + b"\n"]


def _die_with_parent():
    """For the host, between fork and exec: SIGKILL when the relay dies (the verifier's time
    limit kills the relay)."""
    parent = os.getpid()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None

    def arm():
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
        if os.getppid() != parent:
            os._exit(1)
    return arm


def quoted(output):
    """The host's output as the relay shows it on its stderr: each line after "| ", so that no
    line of it is read as a record where stderr and stdout reach the verifier as one stream (the
    box merges them)."""
    return "".join(f"| {line}\n" for line in output.decode(errors="replace").splitlines())


def _status(code):
    return f"signal {-code} ({signal.Signals(-code).name})" if code < 0 else f"exit {code}"


def _pump(proc, rec_r, out_r, records, log, tail):
    """Records to stdout, the host's output to the log, until the record pipe ends (the host
    exited or closed it); then what output is left within a short wait (a process the solution
    started may hold the output pipe open for ever). False when the verifier stopped reading."""
    out = sys.stdout.buffer
    poll = select.poll()
    poll.register(rec_r, select.POLLIN)
    poll.register(out_r, select.POLLIN)
    poll.register(out.fileno(), 0)  # errors only: the verifier closed its end
    open_fds, deadline = {rec_r, out_r}, None
    while rec_r in open_fds or out_r in open_fds:
        events = poll.poll(200)
        if rec_r not in open_fds:
            deadline = deadline or time.monotonic() + 2
            if not events or time.monotonic() > deadline:
                break
        for fd, ev in events:
            if fd == out.fileno():
                if ev & (select.POLLERR | select.POLLHUP | select.POLLNVAL):
                    return False
                continue
            data = os.read(fd, 1 << 16)
            if not data:
                poll.unregister(fd)
                open_fds.discard(fd)
            elif fd == rec_r:
                for line in records.feed(data):
                    out.write(line)
                out.flush()
            else:
                log.write(data)
                tail[:] = (bytes(tail) + data)[-TAIL_BYTES:]
    return True


def main(argv=None, modules=None):
    argv = sys.argv[1:] if argv is None else argv
    serve = bool(argv) and argv[0] == "--serve"
    argv = argv[1:] if serve else argv
    if len(argv) < 4:
        sys.stderr.write(__doc__)
        return 2
    modules = modules or (SERVE_MODULES if serve else HOST_MODULES)
    sol_dir, entry, dps = os.path.abspath(argv[0]), argv[1], argv[2] == "1"
    build = json.loads(argv[4]) if len(argv) > 4 else {}
    jobs, pass_fds = [], ()
    if serve:
        work = os.path.abspath(argv[3])
        os.fstat(SERVE_FD)  # the judge's socket: there, or this is not the judge's run (OSError)
        pass_fds = (SERVE_FD,)
    else:
        jobs_path = os.path.abspath(argv[3])
        work = os.path.dirname(jobs_path)
        with open(jobs_path) as f:
            jobs = json.load(f)
        for job in jobs:  # the host works in the solution's folder
            for key in ("inputs", "output"):
                if isinstance(job.get(key), str):
                    job[key] = os.path.abspath(job[key])
    secret = secrets.token_hex(16)
    config = {"secret": secret, "sol_dir": sol_dir, "entry": entry, "dps": dps, "build": build, "jobs": jobs,
              "socket_fd": SERVE_FD if serve else None,
              "modules": [[name, Path(path).read_text()] for name, path in modules]}
    records, tail = Records(secret), bytearray()
    log_path = os.path.join(work, "output.log")
    signal.signal(signal.SIGTERM, lambda sig, frame: sys.exit(128 + sig))  # the finally below still kills the host
    proc, status, why = None, None, None
    with open(log_path, "wb") as log:
        try:
            cfg_r, cfg_w = os.pipe()
            rec_r, rec_w = os.pipe()
            out_r, out_w = os.pipe()
            config["records_fd"] = rec_w
            try:
                proc = subprocess.Popen([sys.executable, "-"], cwd=sol_dir, env=neutral_environ(os.environ, HIDDEN, sol_dir),
                                        stdin=subprocess.PIPE, stdout=out_w, stderr=out_w, pass_fds=(cfg_r, rec_w) + pass_fds,
                                        preexec_fn=_die_with_parent())
            except OSError as e:
                sys.stdout.write(json.dumps({"type": "load_error", "message": f"cannot start the Python host: {e}"}) + "\n")
                sys.stdout.flush()
                why = f"not started ({e})"
                return 3
            finally:
                for fd in (cfg_r, rec_w, out_w) + pass_fds:  # the judge's socket is the host's alone
                    os.close(fd)
            try:  # the program, read to its end before it runs; then its inputs, on their own pipe
                proc.stdin.write(f"CONFIG_FD = {cfg_r}\n".encode() + (HERE / "neutral_main.py").read_bytes())
                proc.stdin.close()
                with os.fdopen(cfg_w, "wb") as f:
                    f.write(json.dumps(config).encode())
            except BrokenPipeError:
                pass
            if not _pump(proc, rec_r, out_r, records, log, tail):
                why = "the verifier stopped reading its records"
            else:
                status = proc.wait()
        except BaseException as e:
            why = f"the relay stopped ({type(e).__name__}{': ' + str(e) if str(e) else ''})"
            raise
        finally:
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
            if why or status or (records.called < len(jobs) and not records.load_error):
                state = why or (_status(status) if status else f"exit 0 after {records.called} of {len(jobs)} jobs")
                sys.stderr.write(f"the Python host (python3 -) ended early: {state}; the last of its output "
                                 f"({log_path}):\n{quoted(bytes(tail))}")
                sys.stderr.flush()
    if why:
        return 1
    return 128 - status if status < 0 else status


if __name__ == "__main__":
    sys.exit(main())
