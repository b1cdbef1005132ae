#!/usr/bin/env python3
"""The neutral host of Python solutions (the package's rope2d.runner: relay, neutral_main.py,
host_calls, host_wire) on the CPU, without torch: the relay and the host run for real,
with a stand-in for the host's work (host_serve needs torch and a GPU) that imports and
calls the solution through the host's main frame and writes a note per call on the judge's
socket, and a probe solution that records what it can see of its process (argv, environment,
sys.modules, the call stack, the runner's code objects, its file descriptors) and forges
records on every descriptor. Also the pure rules: the host's environment, the device-memory
growth rule and the stream and device rule (process_watch). The GPU half is
python_solutions_test.sh."""
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest
from pathlib import Path

PYTHON_DIR = Path(__file__).resolve().parents[2] / "python"  # where the package rope2d is imported from
RUNNER_DIR = PYTHON_DIR / "rope2d"
sys.path.insert(0, str(PYTHON_DIR))
from rope2d.runner import host_wire as wire  # noqa: E402
from rope2d.runner import process_watch as pw  # noqa: E402
from rope2d.runner import relay  # noqa: E402

# Besides every module of the package rope2d (any name "rope2d" or "rope2d.*"), the runner's
# modules by their short names and the test's stand-in.
RUNNER_MODULES = ("relay", "neutral_main", "host_calls", "process_watch", "solution_build", "_call_checks",
                  "host_wire", "host_serve", "probe_steps")

# The host's work, stood in for: the solution imported and called CALLS times through the
# host's main frame (the real host_calls), a note (the real host_wire) on the judge's socket
# after the import and after each call, as host_serve writes them.
PROBE_STEPS = '''
import socket
from rope2d.runner import host_wire as wire
from rope2d.runner.host_calls import import_solution, invoke


def steps(cfg):
    sock = socket.socket(fileno=cfg["socket_fd"])
    module_file, func = cfg["entry"].split("::")
    module = yield from import_solution(cfg["sol_dir"], module_file)
    sock.send(wire.note_record(0, {"type": "load"}))
    for k in range(CALLS):
        try:
            got = yield from invoke(getattr(module, func), f"j{k}")
            sock.send(wire.note_record(k + 1, {"name": f"j{k}", "got": got}))
        except Exception as e:
            sock.send(wire.note_record(k + 1, {"name": f"j{k}", "error": f"{type(e).__name__}: {e}"}))
'''

# What the probe solution does at its import and at each call: look, forge, then what the
# test asks of it (ACT).
PROBE = '''
import gc, inspect, json, os, sys, time, types
RUNNER_DIR = {runner_dir!r}
RUNNER_MODULES = {runner_modules!r}
SEEN = []


def look(when):
    fds = {{}}
    for fd in sorted(os.listdir("/proc/self/fd"), key=int):
        try:
            fds[fd] = os.readlink("/proc/self/fd/" + fd)
        except OSError:
            pass
    frames = [(f.filename, f.function) for f in inspect.stack()[1:]]
    code_files = sorted({{o.__code__.co_filename for o in gc.get_objects() if isinstance(o, types.FunctionType)}})
    SEEN.append({{
        "when": when, "argv": sys.argv, "orig_argv": getattr(sys, "orig_argv", None),
        "environ": dict(os.environ), "cwd": os.getcwd(), "path0": sys.path[0],
        "main_file": getattr(sys.modules["__main__"], "__file__", None), "main_doc": sys.modules["__main__"].__doc__,
        "my_name": __name__,
        "runner_modules": sorted(m for m in sys.modules if m in RUNNER_MODULES or m.split(".")[0] == "rope2d"),
        "runner_files": sorted(m for m, mod in list(sys.modules.items()) if RUNNER_DIR in str(getattr(mod, "__file__", None))),
        "runner_code": [f for f in code_files if RUNNER_DIR in f],
        "frames": frames, "fds": fds, "stdin": os.read(0, 16).decode(errors="replace"),
    }})
    with open("seen.json", "w") as f:
        json.dump(SEEN, f)


def forge():
    line = b'{{"type": "called", "name": "j0", "error": "forged by the solution"}}\\n'
    print("forged on stdout:", line.decode(), end="", flush=True)
    for fd in range(21):
        try:
            os.write(fd, line + b'{{"type": "load_error", "message": "forged fragment"')  # no newline: glued to the next
        except OSError:
            pass


def act(name):
{act}


look("import")
forge()


def run(name):
    look(name)
    forge()
    act(name)
    return len(SEEN)
'''


def write_case(tmp, act="    pass", calls=3):
    sol, work = Path(tmp) / "solution", Path(tmp) / "work"
    sol.mkdir()
    work.mkdir()
    (sol / "kernel.py").write_text(PROBE.format(runner_dir=str(RUNNER_DIR), runner_modules=RUNNER_MODULES, act=act))
    (Path(tmp) / "probe_steps.py").write_text(PROBE_STEPS.replace("CALLS", str(calls)))
    driver = Path(tmp) / "driver.py"
    driver.write_text(textwrap.dedent(f'''
        import sys
        sys.path[:0] = [{str(PYTHON_DIR)!r}, {str(tmp)!r}]
        from rope2d.runner import relay as r
        sys.exit(r.main(sys.argv[1:], modules=[r.HOST_MODULES[0], "rope2d.runner.host_wire", "probe_steps"]))
    '''))
    env = dict(os.environ, ROPE2D_REQUIRE_GPU="1", ROPE2D_ANYTHING="x", _="/opt/rope2d/bin/rope2d",
               PYTHONPATH=f"{PYTHON_DIR}{os.pathsep}/keep/this", OLDPWD="/somewhere")
    argv = [sys.executable, str(driver), str(sol), "kernel.py::run", "1", str(work)]
    return sol, work, argv, env


class Judge:
    """The judge's end of the socket the relay finds on descriptor 3, and the relay started with
    the other end there."""

    def __init__(self, argv, env):
        self.sock, host = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)

        def at_three():
            os.dup2(host.fileno(), 3)
        self.proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     preexec_fn=at_three, pass_fds=(host.fileno(), 3))  # 3: made by at_three
        host.close()

    def messages(self):
        """Every record until end of file (every copy of the host's end closed, the relay's too)."""
        out = []
        while True:
            m = self.sock.recv(1 << 17)
            if not m:
                return out
            out.append(m)

    def close(self):
        self.sock.close()


def notes(messages):
    """The messages that are whole notes of the protocol, as (seq, fields)."""
    out = []
    for m in messages:
        if len(m) >= wire.REPLY.size:
            magic, stage, seq, rc, err = wire.REPLY.unpack(m[:wire.REPLY.size])
            if magic == wire.MAGIC and stage == wire.NOTE and rc == len(m) - wire.REPLY.size:
                out.append((seq, json.loads(m[wire.REPLY.size:])))
    return out


def run_relay(argv, env, timeout=60):
    j = Judge(argv, env)
    got = j.messages()
    out, err = j.proc.communicate(timeout=timeout)
    j.close()
    return j.proc.returncode, out, err, got


class HostRun(unittest.TestCase):
    """A whole run of the relay and the host with the probe solution."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.sol, cls.work, argv, env = write_case(cls.tmp.name)
        cls.rc, cls.out, cls.err, cls.got = run_relay(argv, env)
        cls.seen = json.loads((cls.sol / "seen.json").read_text())

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_the_run_ends_well_and_the_host_alone_speaks_on_the_socket(self):
        self.assertEqual(self.rc, 0, self.err)
        self.assertEqual([(seq, n.get("name", n.get("type"))) for seq, n in notes(self.got)],
                         [(0, "load"), (1, "j0"), (2, "j1"), (3, "j2")])
        self.assertEqual([n["got"] for _, n in notes(self.got)[1:]], [2, 3, 4])  # run() counts its looks, import's too
        # The solution shares the host's process and so its socket: what it writes there is not
        # the protocol (the judge then ends the host); the relay's stdout and stderr stay empty.
        self.assertTrue(any(b"forged by the solution" in m for m in self.got))
        self.assertEqual((self.out, self.err), ("", ""))

    def test_the_solutions_prints_go_to_the_log(self):
        log = (self.work / "output.log").read_text()
        self.assertIn("forged on stdout:", log)
        self.assertEqual(log.count("forged on stdout:"), 4)  # import and three calls

    def test_argv_environment_and_folders_are_a_plain_programs(self):
        for s in self.seen:
            self.assertEqual(s["argv"], ["-"])  # as "python3 - <main.py" has it
            if s["orig_argv"] is not None:
                self.assertEqual(s["orig_argv"][1:], ["-"])
            env = s["environ"]
            self.assertFalse([k for k in env if "ROPE2D" in k])
            self.assertNotIn("_", env)
            self.assertNotIn("OLDPWD", env)
            self.assertEqual(env["PYTHONPATH"], "/keep/this")  # the package's folder left out, the rest kept
            self.assertEqual(env["PATH"], os.environ["PATH"])
            self.assertEqual(env["PWD"], str(self.sol))
            self.assertEqual(s["cwd"], str(self.sol))
            self.assertEqual(s["path0"], str(self.sol))
            self.assertIsNone(s["main_file"])
            self.assertIsNone(s["main_doc"])
            self.assertEqual(s["my_name"], "kernel")
            self.assertEqual(s["stdin"], "")
        self.assertEqual(sorted(p.name for p in self.work.iterdir()), ["output.log"])  # nothing else written

    def test_nothing_of_the_runner_in_sys_modules_nor_its_code_files(self):
        for s in self.seen:
            self.assertEqual(s["runner_modules"], [], s["when"])
            self.assertEqual(s["runner_files"], [], s["when"])
            self.assertEqual(s["runner_code"], [], s["when"])  # its code objects are compiled as "<stdin>"

    def test_the_stack_holds_only_the_main_program(self):
        at_import, *at_calls = self.seen
        mine = str(self.sol / "kernel.py")
        outer = [tuple(f) for f in at_import["frames"] if not f[0].startswith("<frozen")]
        self.assertEqual(outer, [(mine, "<module>"), ("<stdin>", "main"), ("<stdin>", "<module>")])
        for s in at_calls:
            self.assertEqual([tuple(f) for f in s["frames"]], [(mine, "run"), ("<stdin>", "main"), ("<stdin>", "<module>")])

    def test_descriptors_are_stdin_null_pipes_and_the_judges_socket(self):
        for s in self.seen:
            fds = s["fds"]
            self.assertEqual(fds["0"], "/dev/null")
            self.assertTrue(fds["1"].startswith("pipe:") and fds["1"] == fds["2"], fds)
            self.assertTrue(fds["3"].startswith("socket:"), fds)
            self.assertEqual(sorted(fds, key=int)[:4], ["0", "1", "2", "3"])
            # nothing of the work folder or the package's folder open
            self.assertFalse([v for v in fds.values() if str(self.work) in v or str(PYTHON_DIR) in v], fds)


class HostEnds(unittest.TestCase):
    """The host ending early, and the relay killed: what the verifier is told, and no host left."""

    def run_case(self, act, calls=3):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        return write_case(tmp.name, act, calls)

    def test_a_solution_that_exits_shows_its_last_output_quoted(self):
        sol, work, argv, env = self.run_case('    if name == "j1":\n        print(\'{"type": "called"}\', flush=True)\n        os._exit(3)')
        rc, out, err, got = run_relay(argv, env)
        self.assertEqual(rc, 3)
        self.assertEqual([n.get("name") for _, n in notes(got)], [None, "j0"])  # the load's, then j0's
        self.assertIn("(python3 -) ended early: exit 3", err)
        self.assertIn("| forged on stdout:", err)
        self.assertFalse([line for line in err.splitlines() if line.startswith("{")])  # nothing but quoted lines

    def test_processes_the_solution_spawns_start(self):
        # multiprocessing's spawn looks for __main__'s file: the host has none to offer
        sol, work, argv, env = self.run_case('    import multiprocessing as mp\n    with mp.get_context("spawn").Pool(1) as p:\n'
                                             '        assert p.map(abs, [-2]) == [2]', calls=1)
        rc, out, err, got = run_relay(argv, env)
        self.assertEqual(rc, 0, err)
        self.assertEqual([n.get("error") for _, n in notes(got)], [None, None])

    def wait_for(self, path, limit_s=30):
        end = time.monotonic() + limit_s
        while not path.exists() and time.monotonic() < end:
            time.sleep(0.05)
        self.assertTrue(path.exists())

    def gone(self, pid, limit_s=10):
        end = time.monotonic() + limit_s
        while time.monotonic() < end:
            try:
                with open(f"/proc/{pid}/stat") as f:
                    if f.read().rsplit(")", 1)[1].split()[0] in "ZX":
                        return True
            except FileNotFoundError:
                return True
            time.sleep(0.05)
        return False

    def stuck_host(self, sig):
        sol, work, argv, env = self.run_case('    open("pid", "w").write(str(os.getpid()))\n    time.sleep(600)')
        j = Judge(argv, env)
        self.addCleanup(j.close)
        self.wait_for(sol / "pid")
        time.sleep(0.2)
        host = int((sol / "pid").read_text())
        j.proc.send_signal(sig)
        out, err = j.proc.communicate(timeout=30)
        self.assertTrue(self.gone(host), f"host {host} still running after the relay got signal {sig}")
        return j.proc.returncode, out, err

    def test_the_host_dies_with_a_killed_relay(self):
        rc, _, _ = self.stuck_host(signal.SIGKILL)
        self.assertEqual(rc, -signal.SIGKILL)

    def test_a_terminated_relay_kills_the_host_and_says_so(self):
        rc, out, err = self.stuck_host(signal.SIGTERM)
        self.assertEqual(rc, 128 + signal.SIGTERM)
        self.assertIn("the relay stopped (SystemExit: 143)", err)

    def test_without_the_judges_socket_the_relay_refuses_to_start(self):
        with tempfile.TemporaryDirectory() as tmp:
            _, _, argv, env = write_case(tmp)
            p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60, close_fds=True)
            self.assertEqual(p.returncode, 2)
            self.assertIn("no socket to the judge on descriptor 3", p.stderr)

    def test_the_relay_is_the_packages_module(self):
        # as the verifier starts it: `python3 -m rope2d.runner`, the package from its own folder
        with tempfile.TemporaryDirectory() as tmp:
            sol, work, _, env = write_case(tmp)
            p = subprocess.run([sys.executable, "-m", "rope2d.runner", str(sol), "kernel.py::run", "1", str(work)],
                               env=dict(env, PYTHONPATH=str(PYTHON_DIR)), cwd=tmp, capture_output=True, text=True, timeout=60,
                               close_fds=True)
            self.assertEqual(p.returncode, 2)
            self.assertIn("rope2d.runner: no socket to the judge on descriptor 3", p.stderr)
        self.assertEqual(relay.HIDDEN, (PYTHON_DIR,))
        self.assertEqual([relay.module_source(m).count("\n") > 10 for m in relay.HOST_MODULES], [True] * len(relay.HOST_MODULES))


class Rules(unittest.TestCase):
    def test_environment(self):
        hidden = ("/r/python",)
        env = {"ROPE2D_REQUIRE_GPU": "1", "rope2d_x": "1", "_": "/r/build/rope2d", "OLDPWD": "/r", "HOME": "/home/u",
               "PATH": "/usr/bin:/r/python:/r/python-venv/bin:/bin", "PYTHONPATH": "/r/python/", "CUDA_VISIBLE_DEVICES": "0",
               "TRITON_CACHE_DIR": "/tmp/t", "OTHER": "uses /r/python/rope2d/x.py"}
        # a folder whose name merely begins with the package's folder's (a venv beside it) is kept
        self.assertEqual(relay.neutral_environ(env, hidden, "/sol"),
                         {"HOME": "/home/u", "PATH": "/usr/bin:/r/python-venv/bin:/bin", "CUDA_VISIBLE_DEVICES": "0",
                          "TRITON_CACHE_DIR": "/tmp/t", "PWD": "/sol"})

    def test_quoted_output(self):
        self.assertEqual(relay.quoted(b'{"type": "called"}\nok\n'), '| {"type": "called"}\n| ok\n')

    def test_place(self):
        self.assertEqual(pw.place_changes((0, (5, 0, 1)), (0, (5, 0, 1))), [])
        self.assertIn("current CUDA stream switched", pw.place_changes((0, (5, 0, 1)), (0, (9, 0, 1)))[0])
        self.assertIn("current CUDA device switched (0 -> 1)", pw.place_changes((0, (5, 0, 1)), (1, (0, 1, 1)))[0])


class HeldMemoryRule(unittest.TestCase):
    SLACK = 64 << 10

    def problem(self, m, key, held, excused=False, remeasure=None):
        for h in held:
            m.after_call(h)
        return m.problem_done(key, remeasure, excused)

    def test_flat_memory_and_a_cache_per_shape_are_not_findings(self):
        m = pw.HeldMemory(self.SLACK)
        self.assertEqual(self.problem(m, "a", [0, 0, 0]), [])
        self.assertEqual(self.problem(m, "b", [5 << 20, 5 << 20, 5 << 20]), [])  # a new shape's cache, once
        self.assertEqual(self.problem(m, "a", [5 << 20] * 3), [])
        self.assertEqual(self.problem(m, "c", [5 << 20, (5 << 20) + 1000, (5 << 20) + 2000]), [])  # within the slack

    def test_growth_at_every_call_of_a_problem(self):
        m = pw.HeldMemory(self.SLACK)
        self.assertEqual(self.problem(m, "a", [0, 1 << 20, 2 << 20]),
                         ["device memory grows with every call: +2.0 MiB over 2 calls"])
        self.assertEqual(self.problem(m, "b", [3 << 20, 4 << 20, 5 << 20]),
                         ["device memory grows with every call: +5.0 MiB over 5 calls"])

    def test_garbage_that_a_collection_frees_is_not_a_leak(self):
        m = pw.HeldMemory(self.SLACK)
        self.assertEqual(self.problem(m, "a", [0, 1 << 20, 2 << 20], remeasure=lambda: 0), [])
        self.assertEqual(self.problem(m, "a", [0, 1 << 20, 2 << 20], remeasure=lambda: 2 << 20),
                         ["device memory grows with every call: +2.0 MiB over 5 calls"])

    def test_growth_with_every_problem_of_a_shape_seen_before(self):
        m = pw.HeldMemory(self.SLACK)
        self.assertEqual(self.problem(m, "a", [0, 0, 0]), [])
        self.assertEqual(self.problem(m, "b", [1 << 20] * 3), [])  # new shape: excused
        self.assertEqual(self.problem(m, "a", [2 << 20] * 3), [])  # seen before and grew: once is not yet a finding
        self.assertEqual(self.problem(m, "b", [3 << 20] * 3),
                         ["device memory grows with every problem of a shape seen before: +3.0 MiB over 11 calls"])
        m = pw.HeldMemory(self.SLACK)
        self.problem(m, "a", [0, 0, 0])
        self.assertEqual(self.problem(m, "a", [1 << 20] * 3, excused=True), [])  # after the runner's own streams
        self.assertEqual(self.problem(m, "a", [2 << 20] * 3), [])
        self.assertEqual(self.problem(m, "a", [2 << 20] * 3), [])  # stopped growing: the count starts again
        self.assertEqual(self.problem(m, "a", [3 << 20] * 3), [])

    def test_a_problem_that_ended_early_is_forgotten(self):
        m = pw.HeldMemory(self.SLACK)
        m.after_call(0)
        m.after_call(1 << 20)  # and then an error: no problem_done
        m.abandon()
        self.assertEqual(self.problem(m, "a", [2 << 20] * 3), [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
