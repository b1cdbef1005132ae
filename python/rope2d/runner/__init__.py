"""The runner of `rope2d verify solution.json`: a SOL-ExecBench solution called out of the
judge's process, in a neutral host (docs/python-solutions.md). `python3 -m rope2d.runner` is the
relay (relay.py), which the verifier starts in its box; the host's own code (neutral_main.py,
host_calls, host_wire, process_watch, solution_build, host_serve, and rope2d._call_checks) is
never imported there: the relay reads these modules' sources and hands them to the host, which
compiles them as "<stdin>" and leaves no module of this package in sys.modules. Nothing here
imports torch; host_serve does, in the host."""
