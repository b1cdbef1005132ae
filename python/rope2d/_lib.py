"""Finds and loads the host library's C ABI (librope2d_py.so, verify/include/rope2d/verify/products/capi.h)
with ctypes. Looked for, in order: $ROPE2D_LIBRARY (the file, or a folder holding it), beside
this package, then a source tree's build/python/lib/. All numerics live in that library."""
import ctypes
import os
from pathlib import Path

NAME = "librope2d_py.so"
CAPI_VERSION = "3"  # capi.h's rope2d_capi_version() this package's signatures are written for
DTYPE_CODE = {"bf16": 0, "fp16": 1, "fp32": 2}
CALL_OK, CALL_FAILED, CALL_STOP = 0, 1, 2  # what a rope2d_call_fn returns


class Call(ctypes.Structure):
    """capi.h's rope2d_call: one call of the caller's function, on a round's host inputs."""
    _fields_ = [("name", ctypes.c_char_p), ("index", ctypes.c_int64), ("count", ctypes.c_int64), ("round", ctypes.c_int),
                ("grad_dtype", ctypes.c_int), ("shape", ctypes.POINTER(ctypes.c_int64)), ("rank", ctypes.c_int),
                ("n", ctypes.c_int64), ("offsets", ctypes.POINTER(ctypes.c_int64)), ("gc", ctypes.c_void_p),
                ("gs", ctypes.c_void_p), ("theta", ctypes.c_void_p), ("out", ctypes.c_void_p), ("state", ctypes.c_void_p)]


CALL_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(Call))  # capi.h's rope2d_call_fn

_lib = None


def _candidates():
    env = os.environ.get("ROPE2D_LIBRARY")
    if env:
        p = Path(env)
        yield p / NAME if p.is_dir() else p
        return
    here = Path(__file__).resolve().parent
    yield here / NAME
    yield here / "lib" / NAME
    yield here.parent.parent / "build" / "python" / "lib" / NAME


def worst_dir():
    """The committed worst-case lists (reference/worst/): beside the library (CMake copies them
    there), else in the source tree; None where neither holds them."""
    for d in (library_path().parent / "worst", Path(__file__).resolve().parent.parent.parent / "reference" / "worst"):
        if (d / "known.txt").is_file():
            return d
    return None


def library_path():
    tried = []
    for p in _candidates():
        if p.is_file():
            return p
        tried.append(str(p))
    raise OSError(f"rope2d: cannot find {NAME} (tried {', '.join(tried)}); build it with "
                  f"`cmake --build build --target rope2d_py` and set ROPE2D_LIBRARY to build/python/lib, "
                  f"or copy build/python/lib/* beside the package")


def _declare(lib):
    c = ctypes
    vp, i64, cp = c.c_void_p, c.c_int64, c.c_char_p
    sig = {
        "rope2d_version": ([], cp),
        "rope2d_last_error": ([], cp),
        "rope2d_free": ([vp], None),
        "rope2d_reference": ([vp, vp, vp, i64, c.c_int, c.c_int, vp], c.c_int),
        "rope2d_check": ([vp, vp, vp, vp, c.POINTER(i64), c.c_int, c.c_int, cp, cp, c.c_int, c.c_int, c.POINTER(vp)], c.c_int),
        "rope2d_call_fail": ([c.POINTER(Call), cp, cp], c.c_int),
        "rope2d_call_finding": ([c.POINTER(Call), cp], c.c_int),
        "rope2d_verify": ([cp, CALL_FN, vp, cp, cp, cp, cp, c.POINTER(vp), c.POINTER(c.c_int)], c.c_int),
        "rope2d_solution_check_file": ([cp, c.POINTER(vp)], c.c_int),
        "rope2d_solution_check_text": ([cp, cp, c.POINTER(vp)], c.c_int),
        "rope2d_solution_schema": ([], cp),
    }
    for name, (args, res) in sig.items():
        f = getattr(lib, name)
        f.argtypes, f.restype = args, res


def lib():
    global _lib
    if _lib is None:
        path = library_path()
        loaded = ctypes.CDLL(str(path))
        loaded.rope2d_capi_version.argtypes, loaded.rope2d_capi_version.restype = [], ctypes.c_char_p
        found = loaded.rope2d_capi_version().decode()
        if found != CAPI_VERSION:  # a library of another release: its calls take other arguments, or lack some
            raise OSError(f"rope2d: {path}: expected C API version {CAPI_VERSION}, found {found}; "
                          f"use the library built with this package")
        _declare(loaded)
        _lib = loaded
    return _lib


def call(name, *args):
    """Calls a C ABI function; a non-zero status raises ValueError (bad input) or RuntimeError."""
    check(getattr(lib(), name)(*args))


def check(rc):
    """A C ABI function's status: a non-zero one raises ValueError (bad input) or RuntimeError
    with the library's message."""
    if rc != 0:
        msg = lib().rope2d_last_error().decode()
        raise (ValueError if rc == 2 else RuntimeError)(f"rope2d: {msg}")


def take_text(ptr):
    """The text of a char* the library allocated, released afterwards."""
    try:
        return ctypes.string_at(ptr.value).decode()
    finally:
        lib().rope2d_free(ptr)
