"""python/setup.py with a build tool missing: `pip install --no-build-isolation ./python` (the
documented command) neither installs nor checks the build requirements, so setup.py names what
this Python lacks and how to get it, rather than failing inside setuptools on something else
("No module named 'setuptools.command.bdist_wheel'" where the wheel package is missing). The
build itself, with everything present: python_wheel_test (CTest)."""
import subprocess
import sys
from pathlib import Path

import pytest

SETUP = Path(__file__).resolve().parent.parent / "setup.py"


def run_setup(hidden, path=None):
    """setup.py --version in a fresh Python with the modules `hidden` unimportable."""
    code = (f"import sys, runpy\nfor m in {hidden!r}: sys.modules[m] = None\n"
            f"sys.argv = ['setup.py', '--version']\nrunpy.run_path({str(SETUP)!r}, run_name='__main__')")
    env = {"PATH": path if path is not None else "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=SETUP.parent)


@pytest.mark.parametrize("hidden, says", [
    (["wheel", "wheel.bdist_wheel", "setuptools.command.bdist_wheel"], "lacks the wheel package (or setuptools >= 70.1"),
    (["setuptools"], "lacks setuptools >= 61"),
])
def test_a_missing_build_module_is_named(hidden, says):
    r = run_setup(hidden)
    assert r.returncode == 1, r.stdout + r.stderr
    assert says in r.stderr, r.stderr
    assert f"rope2d: cannot build the package: {sys.executable}" in r.stderr, r.stderr
    assert "pip install setuptools wheel" in r.stderr and "apt-get install" in r.stderr, r.stderr
    assert "No module named" not in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_a_missing_cmake_is_named(tmp_path):
    r = run_setup([], path=str(tmp_path))
    assert r.returncode == 1, r.stdout + r.stderr
    assert "lacks cmake on PATH" in r.stderr and "Traceback" not in r.stderr, r.stderr
