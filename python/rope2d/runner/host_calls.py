"""The runner's side of the neutral host (neutral_main.py is the other): how a call into the
solution, its import too, is handed to the host's main frame. Plain Python: the CPU test
(verify/tests/python_solutions_host_test.py) runs it in a host without torch."""
import importlib.util
import sys
from pathlib import Path


def invoke(fn, *args):
    """A generator that has the host's main frame make the call fn(*args) and returns its result
    (or raises its exception): the runner's frames are suspended, not on the stack, while the
    solution runs. The host sends nothing back: it fills the slot it was given."""
    slot = [fn, args, None, None]
    yield slot
    result, error = slot[2], slot[3]
    slot.clear()
    if error is not None:
        raise error
    return result


def import_solution(sol_dir, module_file):
    """The solution's module, imported as a user's program imports its own file: `import kernel`
    from the folder on sys.path[0], under its own name, from the host's main frame. A file in a
    subfolder, or whose name is taken or not a module name, is loaded from its path instead.
    A generator, as invoke."""
    path = Path(sol_dir) / module_file
    name = path.stem
    free = name.isidentifier() and name not in sys.modules and name not in getattr(sys, "stdlib_module_names", ())
    if free and path.parent == Path(sol_dir):
        return (yield from invoke(__import__, name))
    spec = importlib.util.spec_from_file_location(name if free else "solution", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    yield from invoke(spec.loader.exec_module, module)
    return module
