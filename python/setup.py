"""Builds the Python package rope2d: CMake builds the host library (target rope2d_py) and
setuptools places it, the MPFR and GMP it loads and the worst-case lists inside the package in
its build directory, never in the source tree. The wheel is tagged for this platform (it holds
an x86-64 .so) and takes the version CMake gives the program (cmake/version.cmake).

The CMake build used: $ROPE2D_BUILD_DIR if set, else the checkout's build/ where configured,
else a fresh one (kernels off) under python/build/cmake. From an sdist, the checkout is the one
it was made from (recorded in ROPE2D_SOURCE) unless $ROPE2D_SOURCE_DIR names another."""
import os
import shutil
import subprocess
import sys
from pathlib import Path


def require_build_tools():
    """What the build needs, checked before anything else. With --no-build-isolation (the
    documented command: no network) pip neither installs nor checks pyproject.toml's build
    requirements, and a missing one fails deep inside setuptools naming something else (no
    wheel: "No module named 'setuptools.command.bdist_wheel'"). Here it is named, with the fix."""
    missing = []
    try:
        import setuptools
        version = tuple(int(p) for p in setuptools.__version__.split(".")[:2] if p.isdigit())
        if version < (61, 0):
            missing.append(f"setuptools >= 61 (it has {setuptools.__version__})")
    except ImportError:
        missing.append("setuptools >= 61")
    try:
        import wheel.bdist_wheel  # noqa: F401
    except ImportError:
        try:
            import setuptools.command.bdist_wheel  # noqa: F401  (setuptools >= 70.1 carries it)
        except ImportError:
            missing.append("the wheel package (or setuptools >= 70.1, which carries bdist_wheel)")
    if shutil.which("cmake") is None:
        missing.append("cmake on PATH")
    if missing:
        raise SystemExit(
            f"rope2d: cannot build the package: {sys.executable} (Python {sys.version.split()[0]}) lacks "
            + "; ".join(missing) + ". With --no-build-isolation pip uses this Python's own build tools and installs "
            f"none. Install them for it ({sys.executable} -m pip install setuptools wheel; on Debian: apt-get install "
            "python3-setuptools python3-wheel cmake), or run the command with Debian's /usr/bin/python3 (docs/install.md).")


require_build_tools()

from setuptools import Distribution, setup  # noqa: E402  (after the check, which names what is missing)
from setuptools.command.build_py import build_py  # noqa: E402
from setuptools.command.sdist import sdist  # noqa: E402

try:
    from wheel.bdist_wheel import bdist_wheel
except ImportError:  # setuptools >= 70.1 carries it
    from setuptools.command.bdist_wheel import bdist_wheel

HERE = Path(__file__).resolve().parent
LIBRARY_FILES = ("librope2d_py.so", "libmpfr.so.6", "libgmp.so.10")


def source_dir():
    if os.environ.get("ROPE2D_SOURCE_DIR"):
        return Path(os.environ["ROPE2D_SOURCE_DIR"]).resolve()
    if (HERE.parent / "CMakeLists.txt").is_file() and (HERE.parent / "verify").is_dir():
        return HERE.parent
    recorded = HERE / "ROPE2D_SOURCE"
    if recorded.is_file():
        return Path(recorded.read_text().strip())
    raise SystemExit("rope2d: cannot find the rope2d source tree (set ROPE2D_SOURCE_DIR to a checkout)")


def cmake_dir(src):
    if os.environ.get("ROPE2D_BUILD_DIR"):
        return Path(os.environ["ROPE2D_BUILD_DIR"]).resolve(), []
    if (src / "build" / "CMakeCache.txt").is_file():
        return src / "build", []
    return HERE / "build" / "cmake", ["-DCMAKE_BUILD_TYPE=Release", "-DROPE2D_CUDA=OFF"]


def configure():
    """Configures the CMake build (quick where it already is) and returns (build dir, version)."""
    src = source_dir()
    build, options = cmake_dir(src)
    if not (build / "CMakeCache.txt").is_file() or not (build / "python" / "VERSION").is_file():
        subprocess.run(["cmake", "-S", str(src), "-B", str(build), *options], check=True, stdout=subprocess.DEVNULL)
    return build, (build / "python" / "VERSION").read_text().strip()


BUILD, VERSION = configure()


class BuildWithLibrary(build_py):
    """Builds rope2d_py with CMake and copies its folder (build/python/lib) into the package."""

    def run(self):
        super().run()
        jobs = str(os.cpu_count() or 2)
        subprocess.run(["cmake", "--build", str(BUILD), "--target", "rope2d_py", "-j", jobs], check=True)
        now = (BUILD / "python" / "VERSION").read_text().strip()
        if now != VERSION:  # the build configured itself again, at another commit
            raise SystemExit(f"rope2d: the library is now {now}, the wheel was named {VERSION}; build again")
        built = BUILD / "python" / "lib"
        dest = Path(self.build_lib) / "rope2d"
        for name in LIBRARY_FILES:
            shutil.copy2(built / name, dest / name)
        shutil.copytree(built / "worst", dest / "worst", dirs_exist_ok=True)


class NativeDistribution(Distribution):
    """Holds a native library: installed to platlib, the wheel not pure."""

    def has_ext_modules(self):
        return True


class PlatformWheel(bdist_wheel):
    """py3-none-<platform>: any Python 3 (ctypes, no extension module), this platform only."""

    def get_tag(self):
        return "py3", "none", super().get_tag()[2]


class SdistWithSource(sdist):
    """An sdist records the checkout it came from: its wheel is built by that checkout's CMake."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        (Path(base_dir) / "ROPE2D_SOURCE").write_text(str(source_dir()) + "\n")


setup(version=VERSION, distclass=NativeDistribution, cmdclass={"build_py": BuildWithLibrary, "bdist_wheel": PlatformWheel, "sdist": SdistWithSource})
