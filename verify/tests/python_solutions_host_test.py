#!/usr/bin/env python3
"""The neutral host of Python solutions (verify/python/solution_runner.py, neutral_main.py,
host_calls.py) on the CPU, without torch: the relay and the host run for real, with a stand-in
for the runner's jobs (no torch) and a probe solution that records what it can see of its
process (argv, environment, sys.modules, the call stack, the runner's code objects, its file
descriptors) and forges records on every descriptor. Also the pure rules: the host's
environment, the relay's record filter, the device-memory growth rule and the stream and
device rule (process_watch). The GPU half is python_solutions_test.sh."""
import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest
from pathlib import Path

RUNNER_DIR = Path(__file__).resolve().parents[1] / "python"
sys.path.insert(0, str(RUNNER_DIR))
import process_watch as pw  # noqa: E402
import solution_runner as relay  # noqa: E402

RUNNER_MODULES = ("solution_runner", "neutral_main", "host_calls", "process_watch", "call", "solution_jobs",
                  "solution_build", "_call_checks", "probe_jobs", "host_wire", "host_serve", "probe_serve")

# The runner's jobs, stood in for: the solution imported and called once per job through the
# host's main frame (the real host_calls), one record per event as the real runner writes them.
PROBE_JOBS = '''
from host_calls import import_solution, invoke, record_writer


def steps(cfg):
    emit = record_writer(cfg["records_fd"], cfg.pop("secret"))
    module_file, func = cfg["entry"].split("::")
    module = yield from import_solution(cfg["sol_dir"], module_file)
    emit(type="load", import_s=0.0, patched=[], state=[], threads=[])
    for job in cfg["jobs"]:
        emit(type="call", name=job["name"])
        try:
            got = yield from invoke(getattr(module, func), job["name"])
            emit(type="called", name=job["name"], error=None, findings=[], got=got)
        except Exception as e:
            emit(type="called", name=job["name"], error=f"{type(e).__name__}: {e}")
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
        "runner_modules": sorted(m for m in sys.modules if m in RUNNER_MODULES),
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


def write_case(tmp, act="    pass", jobs=3):
    sol, work = Path(tmp) / "solution", Path(tmp) / "work"
    sol.mkdir()
    work.mkdir()
    (sol / "kernel.py").write_text(PROBE.format(runner_dir=str(RUNNER_DIR), runner_modules=RUNNER_MODULES, act=act))
    (Path(tmp) / "probe_jobs.py").write_text(PROBE_JOBS)
    (work / "jobs.json").write_text(json.dumps([{"name": f"j{k}", "inputs": f"{k}.in", "output": f"{k}.out"}
                                                for k in range(jobs)]))
    driver = Path(tmp) / "driver.py"
    driver.write_text(textwrap.dedent(f'''
        import sys
        sys.path.insert(0, {str(RUNNER_DIR)!r})
        import solution_runner as r
        sys.exit(r.main(sys.argv[1:], modules=[r.HOST_MODULES[0], ("probe_jobs", {str(Path(tmp) / "probe_jobs.py")!r})]))
    '''))
    env = dict(os.environ, ROPE2D_REQUIRE_GPU="1", ROPE2D_ANYTHING="x", _="/opt/rope2d/bin/rope2d",
               PYTHONPATH=f"{RUNNER_DIR}{os.pathsep}/keep/this", OLDPWD="/somewhere")
    argv = [sys.executable, str(driver), str(sol), "kernel.py::run", "1", str(work / "jobs.json")]
    return sol, work, argv, env


def records(stdout):
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


class HostRun(unittest.TestCase):
    """A whole run of the relay and the host with the probe solution."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.sol, cls.work, argv, env = write_case(cls.tmp.name)
        cls.proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
        cls.seen = json.loads((cls.sol / "seen.json").read_text())

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_the_run_ends_well_and_every_record_is_the_runners(self):
        self.assertEqual(self.proc.returncode, 0, self.proc.stderr)
        recs = records(self.proc.stdout)  # every line a JSON object: the forged fragments never glued onto one
        self.assertEqual([r["type"] for r in recs], ["load"] + ["call", "called"] * 3)
        self.assertEqual([r["name"] for r in recs if r["type"] == "called"], ["j0", "j1", "j2"])
        self.assertTrue(all(r["error"] is None for r in recs if r["type"] == "called"))
        self.assertNotIn("forged", self.proc.stdout)
        for r in recs:  # the solution forges at every call: each record after forgeries says so
            self.assertEqual(r.get("notes"), [relay.NOTE_FOREIGN] if r["type"] == "called" else None)
        self.assertEqual(self.proc.stderr, "")

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
            self.assertEqual(env["PYTHONPATH"], "/keep/this")  # the runner's folder left out, the rest kept
            self.assertEqual(env["PATH"], os.environ["PATH"])
            self.assertEqual(env["PWD"], str(self.sol))
            self.assertEqual(s["cwd"], str(self.sol))
            self.assertEqual(s["path0"], str(self.sol))
            self.assertIsNone(s["main_file"])
            self.assertIsNone(s["main_doc"])
            self.assertEqual(s["my_name"], "kernel")
            self.assertEqual(s["stdin"], "")
        self.assertEqual(sorted(p.name for p in self.work.iterdir()), ["jobs.json", "output.log"])  # nothing else written

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

    def test_descriptors_are_stdin_null_and_pipes(self):
        for s in self.seen:
            fds = s["fds"]
            self.assertEqual(fds["0"], "/dev/null")
            self.assertTrue(fds["1"].startswith("pipe:") and fds["1"] == fds["2"], fds)
            # nothing of the work folder or the runner's folder open
            self.assertFalse([v for v in fds.values() if str(self.work) in v or str(RUNNER_DIR) in v], fds)


class HostEnds(unittest.TestCase):
    """The host ending early, and the relay killed: what the verifier is told, and no host left."""

    def run_case(self, act, jobs=3):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        return write_case(tmp.name, act, jobs)

    def test_a_solution_that_exits_shows_its_last_output_quoted(self):
        sol, work, argv, env = self.run_case('    if name == "j1":\n        print(\'{"type": "called"}\', flush=True)\n        os._exit(3)')
        p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 3)
        self.assertEqual([r["name"] for r in records(p.stdout) if r["type"] == "called"], ["j0"])
        self.assertIn("(python3 -) ended early: exit 3", p.stderr)
        self.assertIn("| forged on stdout:", p.stderr)
        self.assertFalse([line for line in p.stderr.splitlines() if line.startswith("{")])  # nothing a record reader takes

    def test_processes_the_solution_spawns_start(self):
        # multiprocessing's spawn looks for __main__'s file: the host has none to offer
        sol, work, argv, env = self.run_case('    import multiprocessing as mp\n    with mp.get_context("spawn").Pool(1) as p:\n'
                                             '        assert p.map(abs, [-2]) == [2]', jobs=1)
        p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual([r["error"] for r in records(p.stdout) if r["type"] == "called"], [None])

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
        p = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.wait_for(sol / "pid")
        time.sleep(0.2)
        host = int((sol / "pid").read_text())
        p.send_signal(sig)
        out, err = p.communicate(timeout=30)
        self.assertTrue(self.gone(host), f"host {host} still running after the relay got signal {sig}")
        return p.returncode, out, err

    def test_the_host_dies_with_a_killed_relay(self):
        rc, _, _ = self.stuck_host(signal.SIGKILL)
        self.assertEqual(rc, -signal.SIGKILL)

    def test_a_terminated_relay_kills_the_host_and_says_so(self):
        rc, out, err = self.stuck_host(signal.SIGTERM)
        self.assertEqual(rc, 128 + signal.SIGTERM)
        self.assertIn("the relay stopped (SystemExit: 143)", err)
        self.assertEqual([r["type"] for r in records(out)], ["load", "call"])


# The host's work in --serve mode, stood in for: the solution imported and called once through
# the host's main frame, its result and the host's descriptors written as one note on the
# judge's socket (descriptor cfg["socket_fd"]), through the real host_wire.
PROBE_SERVE = '''
import os
import socket
import host_wire as wire
from host_calls import import_solution, invoke


def steps(cfg):
    sock = socket.socket(fileno=cfg["socket_fd"])
    os.set_inheritable(cfg["socket_fd"], False)
    module_file, func = cfg["entry"].split("::")
    module = yield from import_solution(cfg["sol_dir"], module_file)
    got = yield from invoke(getattr(module, func), "served")
    fds = sorted(os.listdir("/proc/self/fd"), key=int)
    sock.send(wire.note_record(1, {"got": got, "fds": fds, "socket_fd": cfg["socket_fd"], "records_fd": cfg["records_fd"]}))
'''


class ServeRun(unittest.TestCase):
    """--serve: the judge's socket, on descriptor 3 of the relay, is the host's alone (the relay
    closes its copy), and the host is as neutral as in the jobs' mode."""

    def test_the_socket_reaches_the_host_and_only_the_host(self):
        import socket
        with tempfile.TemporaryDirectory() as tmp:
            sol, work, _, env = write_case(tmp)
            (Path(tmp) / "probe_serve.py").write_text(PROBE_SERVE)
            driver = Path(tmp) / "serve_driver.py"
            driver.write_text(textwrap.dedent(f'''
                import sys
                sys.path.insert(0, {str(RUNNER_DIR)!r})
                import solution_runner as r
                sys.exit(r.main(sys.argv[1:], modules=[r.HOST_MODULES[0], ("host_wire", {str(RUNNER_DIR / "host_wire.py")!r}),
                                                      ("probe_serve", {str(Path(tmp) / "probe_serve.py")!r})]))
            '''))
            judge, host = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)

            def at_three():
                os.dup2(host.fileno(), 3)
            argv = [sys.executable, str(driver), "--serve", str(sol), "kernel.py::run", "1", str(work)]
            proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60, preexec_fn=at_three,
                                  pass_fds=(host.fileno(), 3))  # 3: made by at_three, kept by close_fds
            host.close()
            self.assertEqual(proc.returncode, 0, proc.stderr)
            messages = []
            while True:  # to the end of file: every copy of the host's end is closed, the relay's too
                m = judge.recv(1 << 16)
                if not m:
                    break
                messages.append(m)
            judge.close()
            notes = [m for m in messages if m[:24] == wire_header(1, len(m) - 24)]
            self.assertEqual(len(notes), 1)
            # The solution shares the host's process and so its socket: what it writes there reaches
            # the judge as records that are not the protocol (the judge then ends the host).
            self.assertTrue(any(b"forged by the solution" in m for m in messages))
            seen = json.loads(notes[0][24:])
            self.assertEqual(seen["got"], 2)  # the probe's run() returns how often it looked: at the import, in the call
            self.assertEqual(seen["socket_fd"], 3)
            self.assertIn("3", seen["fds"])
            look = json.loads((sol / "seen.json").read_text())[-1]
            self.assertEqual(look["runner_modules"], [])
            self.assertEqual(look["argv"], ["-"])
            self.assertEqual(look["frames"][-1][0], "<stdin>")


def wire_header(seq, length):
    import host_wire
    return host_wire.REPLY.pack(host_wire.MAGIC, host_wire.NOTE, seq, length, 0)


class Rules(unittest.TestCase):
    def test_environment(self):
        hidden = ("/r/verify/python", "/r/python/rope2d")
        env = {"ROPE2D_REQUIRE_GPU": "1", "rope2d_x": "1", "_": "/r/build/rope2d", "OLDPWD": "/r", "HOME": "/home/u",
               "PATH": "/usr/bin:/r/verify/python:/bin", "PYTHONPATH": "/r/verify/python", "CUDA_VISIBLE_DEVICES": "0",
               "TRITON_CACHE_DIR": "/tmp/t", "OTHER": "uses /r/python/rope2d/x.py"}
        self.assertEqual(relay.neutral_environ(env, hidden, "/sol"),
                         {"HOME": "/home/u", "PATH": "/usr/bin:/bin", "CUDA_VISIBLE_DEVICES": "0", "TRITON_CACHE_DIR": "/tmp/t",
                          "PWD": "/sol"})

    def test_record_filter(self):
        r = relay.Records("s3cret")
        out = r.feed(b's3cret{"type": "load"}\n{"type": "called", "name": "a"}\nglued')
        self.assertEqual(out, [b'{"type": "load"}\n'])
        out = r.feed(b's3cret{"type": "called", "name": "a", "notes": ["x"]}\ns3cret[1]\ns3cretnot json\n')
        self.assertEqual([json.loads(x) for x in out], [{"type": "called", "name": "a", "notes": ["x", relay.NOTE_FOREIGN]}])
        self.assertEqual((r.foreign, r.called), (4, 1))  # the unstamped line, the glued bytes, a list, not JSON
        out = r.feed(b's3cret{"type": "called", "name": "b"}\n')  # the lines after the last note: noted again
        self.assertEqual([json.loads(x) for x in out], [{"type": "called", "name": "b", "notes": [relay.NOTE_FOREIGN]}])
        out = r.feed(b's3cret{"type": "called", "name": "c"}\n')  # none since
        self.assertEqual(out, [b'{"type": "called", "name": "c"}\n'])
        r.feed(b"x" * (relay.Records.LIMIT + 1))
        self.assertEqual(r.buf, b"")

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
