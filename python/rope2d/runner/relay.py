"""Runs a SOL-ExecBench solution for `rope2d verify solution.json`, out of the judge's process,
under the same call contract as a .cu kernel (see docs/python-solutions.md), in a neutral host.

usage: python3 -m rope2d.runner SOLUTION_DIR ENTRY_POINT DPS WORK_DIR [BUILD_JSON]

Descriptor 3 is a socket to the judge (the verifier's worker, harness/remote_kernel.hpp): the
host serves its requests there (host_serve). The judge owns every buffer; the host maps
them, makes the calls and says what it saw in notes; nothing it says is a result.
ENTRY_POINT is "file.py::function", or "kernel.cu::function" for C++ solutions (BUILD_JSON
{"cpp": true, "compile_options": {...}}: built through the torch binding by solution_build).
DPS is 1 for run(grad_cos, grad_sin, idx_theta, grad_idx_theta), 0 for run(...) returning the
output. WORK_DIR takes output.log, the only file written.

This process is the relay. The solution runs in a second one, the host: "python3 -" started in
the solution's folder with the environment less the verifier's variables, reading its program
(neutral_main.py) from its standard input and then, on a pipe of its own, its inputs and the
sources of the runner's modules (host_serve, host_wire, ...), read here through the import
system by module name and never imported there. The judge's socket is passed to the host and
closed here: the host alone speaks with the judge. The host's stdout and stderr (the solution's
prints) go to WORK_DIR/output.log; when the host ends early, their last lines go to the relay's
stderr. The host is killed when the relay dies."""
import ctypes
import importlib.util
import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

# The modules the host loads, in order (each may import those before it by these names); the
# last one's steps(config) is the run. The host's main program, read as text, is not a module.
HOST_MODULES = ("rope2d.runner.host_calls", "rope2d.runner.process_watch", "rope2d._call_checks",
                "rope2d.runner.solution_build", "rope2d.runner.host_wire", "rope2d.runner.host_serve")
HOST_MAIN = ("rope2d.runner", "neutral_main.py")
JUDGE_FD = 3
# The folder the package rope2d is imported from (the verifier's copy: <prefix>/share/rope2d/python
# or the source tree's python/): an environment variable's entries naming it are left out.
HIDDEN = (Path(__file__).resolve().parents[2],)
TAIL_BYTES = 4000


def module_source(name):
    """The source text of the module `name`, found as an import would find it (not run)."""
    spec = importlib.util.find_spec(name)
    source = spec.loader.get_source(name) if spec is not None and spec.loader is not None else None
    if source is None:
        raise ImportError(f"no source for the runner's module {name}")
    return source


def host_main():
    """The host's main program (neutral_main.py of this package), as text."""
    from importlib.resources import files
    return files(HOST_MAIN[0]).joinpath(HOST_MAIN[1]).read_bytes()


def neutral_environ(env, hidden, folder):
    """The host's environment: env less every variable named ROPE2D_*, the shell's record of the
    last command ("_", the verifier's own path) and OLDPWD, less every entry (between ':') that
    names a folder in `hidden` or a path under it (a variable left with none is dropped; a folder
    whose name merely begins with the same letters is kept); PWD is the solution's folder, the
    host's working folder. Everything else (PATH, HOME, CUDA_VISIBLE_DEVICES, what torch and
    Triton read) as given."""
    marks = sorted({str(h).rstrip("/") + "/" for h in hidden} | {os.path.realpath(h) + "/" for h in hidden})
    out = {}
    for k, v in env.items():
        if "ROPE2D" in k.upper() or k in ("_", "OLDPWD"):
            continue
        parts = v.split(os.pathsep)
        kept = [p for p in parts if not any(m in p + "/" for m in marks)]
        if len(kept) == len(parts):
            out[k] = v
        elif kept:
            out[k] = os.pathsep.join(kept)
    out["PWD"] = folder
    return out


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
    line of it is read as anything of the relay's own."""
    return "".join(f"| {line}\n" for line in output.decode(errors="replace").splitlines())


def _status(code):
    return f"signal {-code} ({signal.Signals(-code).name})" if code < 0 else f"exit {code}"


def _drain(proc, out_r, log, tail):
    """The host's output to the log until the host exits; then what is left within a short
    wait (a process the solution started may hold the output pipe open for ever)."""
    poll = select.poll()
    poll.register(out_r, select.POLLIN)
    deadline = None
    while True:
        if deadline is None and proc.poll() is not None:
            deadline = time.monotonic() + 2
        if deadline is not None and time.monotonic() > deadline:
            return
        events = poll.poll(200)
        if not events:
            continue
        data = os.read(out_r, 1 << 16)
        if not data:
            return
        log.write(data)
        tail[:] = (bytes(tail) + data)[-TAIL_BYTES:]


def main(argv=None, modules=HOST_MODULES):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) < 4:
        sys.stderr.write(__doc__)
        return 2
    sol_dir, entry, dps, work = os.path.abspath(argv[0]), argv[1], argv[2] == "1", os.path.abspath(argv[3])
    build = json.loads(argv[4]) if len(argv) > 4 else {}
    try:
        os.fstat(JUDGE_FD)
    except OSError:
        sys.stderr.write(f"rope2d.runner: no socket to the judge on descriptor {JUDGE_FD} (run by rope2d verify)\n")
        return 2
    config = {"sol_dir": sol_dir, "entry": entry, "dps": dps, "build": build, "socket_fd": JUDGE_FD,
              "modules": [[name, module_source(name)] for name in modules]}
    tail = bytearray()
    log_path = os.path.join(work, "output.log")
    signal.signal(signal.SIGTERM, lambda sig, frame: sys.exit(128 + sig))  # the finally below still kills the host
    proc, status, why = None, None, None
    with open(log_path, "wb") as log:
        try:
            cfg_r, cfg_w = os.pipe()
            out_r, out_w = os.pipe()
            try:
                proc = subprocess.Popen([sys.executable, "-"], cwd=sol_dir, env=neutral_environ(os.environ, HIDDEN, sol_dir),
                                        stdin=subprocess.PIPE, stdout=out_w, stderr=out_w, pass_fds=(cfg_r, JUDGE_FD),
                                        preexec_fn=_die_with_parent())
            except OSError as e:
                why = f"not started ({e})"
                return 3
            finally:
                for fd in (cfg_r, out_w, JUDGE_FD):  # the judge's socket is the host's alone
                    os.close(fd)
            try:  # the program, read to its end before it runs; then its inputs, on their own pipe
                proc.stdin.write(f"CONFIG_FD = {cfg_r}\n".encode() + host_main())
                proc.stdin.close()
                with os.fdopen(cfg_w, "wb") as f:
                    f.write(json.dumps(config).encode())
            except BrokenPipeError:
                pass
            _drain(proc, out_r, log, tail)
            status = proc.wait()
        except BaseException as e:
            why = f"the relay stopped ({type(e).__name__}{': ' + str(e) if str(e) else ''})"
            raise
        finally:
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
            if why or status:
                sys.stderr.write(f"the Python host (python3 -) ended early: {why or _status(status)}; the last of its "
                                 f"output ({log_path}):\n{quoted(bytes(tail))}")
                sys.stderr.flush()
    if why:
        return 1
    return 128 - status if status < 0 else status


if __name__ == "__main__":
    sys.exit(main())
