"""Where the package finds librope2d_py.so: $ROPE2D_LIBRARY as a file or a folder, and a clear
error naming what was tried when it is nowhere."""
import os
import subprocess
import sys
from pathlib import Path

import rope2d._lib as lib

PROBE = "import rope2d._lib as l, numpy as np, rope2d; print(l.library_path()); " \
        "print(rope2d.reference(np.ones(1, np.float32), np.ones(1, np.float32), np.zeros(1, np.float32))[0])"


def probe(env_value):
    env = dict(os.environ, ROPE2D_LIBRARY=env_value, PYTHONPATH=str(Path(rope2d_dir()).parent))
    return subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True)


def rope2d_dir():
    return Path(lib.__file__).parent


def test_file_and_folder_forms():
    found = lib.library_path()
    for value in (str(found), str(found.parent)):
        r = probe(value)
        assert r.returncode == 0, r.stderr
        assert r.stdout.split() == [str(found), "1.0"]  # t = 0: gs * cos 0, exactly


def test_missing_library_is_explained(tmp_path):
    r = probe(str(tmp_path))
    assert r.returncode != 0
    assert "cannot find librope2d_py.so" in r.stderr and str(tmp_path) in r.stderr and "ROPE2D_LIBRARY" in r.stderr


def test_a_library_of_another_c_api_is_refused():
    """The signatures are written for one C API version: a library of another is refused at load,
    naming both, rather than called with the wrong arguments."""
    code = "import rope2d._lib as l; l.CAPI_VERSION = '1'; l.lib()"
    env = dict(os.environ, PYTHONPATH=str(Path(rope2d_dir()).parent))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert r.returncode != 0
    assert "expected C API version 1, found 3" in r.stderr, r.stderr
