"""SOL-ExecBench's solution.json rules, checked before a solution is submitted:
`python3 -m rope2d.solution_schema FILE...` prints one line per problem (file: field: expected
E, found F) and exits 2 when any is found. The rules are not written here: this calls the host
library's C ABI (rope2d_solution_check_*), the same reader `rope2d verify` uses, whose JSON
Schema (verify/schema/solution.schema.json) and cross-field rules mirror the official model."""
import ctypes
import json
import sys

from . import _lib

# What the official harness compiles C++ solutions with when compile_options gives no cuda_cflags
# (solution.py, CompileOptions.cuda_cflags's default); rope2d verify warns when it applies.
DEFAULT_CUDA_CFLAGS = ("-O3", "--use_fast_math")


def _run(name, *args):
    out = ctypes.c_void_p()
    _lib.call(name, *args, ctypes.byref(out))
    return json.loads(_lib.take_text(out))


def check(sol, base_dir=None):
    """Every rule a parsed solution.json breaks, as dicts {field, expected, found, ours, line}.
    With base_dir, sources given by path only are first filled from the files there."""
    text = json.dumps(sol, allow_nan=False).encode()
    return _run("rope2d_solution_check_text", text, base_dir.encode() if base_dir else None)


def problems(sol, base_dir=None):
    """Every rule a parsed solution.json breaks, as (field, expected, found) tuples."""
    return [(p["field"], p["expected"], p["found"]) for p in check(sol, base_dir)]


def check_file(path):
    """The problems of a solution.json file, read as `rope2d verify` reads it (sources given by
    path only filled from beside it). Raises ValueError when it is not a readable JSON file."""
    return _run("rope2d_solution_check_file", str(path).encode())


def schema():
    """The JSON Schema the library embeds, parsed."""
    return json.loads(_lib.lib().rope2d_solution_schema().decode())


def main(argv):
    bad = 0
    for path in argv:
        try:
            found = check_file(path)
        except ValueError as e:
            print(f"{path}: {str(e).removeprefix('rope2d: ')}")
            bad += 1
            continue
        for p in found:
            print(p["line"])
            bad += 1
    return 2 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]) if len(sys.argv) > 1 else (print(__doc__), 2)[1])
