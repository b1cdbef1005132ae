"""Builds a C++ SOL-ExecBench solution (cuda_cpp, cutlass, cudnn, cublas) through the torch
binding, as the official harness does: every .cu/.cpp source compiled into one extension with
spec.compile_options (cuda_cflags absent: "-O3 --use_fast_math", the harness's default).
torch.utils.cpp_extension.load where ninja exists, else nvcc directly with torch's include
and library paths. A solution without PYBIND11_MODULE gets a generated binding of the entry.
nvcc and ninja run their steps through a shell with the paths in double quotes, where $(...)
and backticks expand: the build runs in a private folder whose path we choose, on a copy of the
solution, and source names a shell would read are refused."""
import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import sysconfig
import tempfile
from pathlib import Path

DEFAULT_CUDA_CFLAGS = ["-O3", "--use_fast_math"]
CPP_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx")


def _binding(sol_dir, func, dps):
    sig = (f"void {func}(torch::Tensor, torch::Tensor, torch::Tensor, torch::Tensor)" if dps
           else f"torch::Tensor {func}(torch::Tensor, torch::Tensor, torch::Tensor)")
    p = Path(sol_dir) / "_rope2d_binding.cpp"
    p.write_text(f'#include <torch/extension.h>\n{sig};\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {{ m.def("{func}", &{func}); }}\n')
    return str(p)


def _nvcc(name, sources, cuda_cflags, cflags, ldflags, build_dir):
    import torch
    from torch.utils import cpp_extension
    major, minor = torch.cuda.get_device_capability()
    out = Path(build_dir) / f"{name}.so"
    # pybind11's ABI tags as torch was built with them, as cpp_extension passes them
    tags = [f'-DPYBIND11_{k}="{getattr(torch._C, "_PYBIND11_" + k)}"' for k in ("COMPILER_TYPE", "STDLIB", "BUILD_ABI")
            if getattr(torch._C, "_PYBIND11_" + k, None)]
    nvcc = os.path.join(cpp_extension.CUDA_HOME or "/usr/local/cuda", "bin", "nvcc")
    cmd = [nvcc, "-shared", "-Xcompiler", "-fPIC", "-std=c++17", f"-arch=sm_{major}{minor}",
           f"-DTORCH_EXTENSION_NAME={name}", "-DTORCH_API_INCLUDE_EXTENSION_H",
           f"-D_GLIBCXX_USE_CXX11_ABI={int(torch._C._GLIBCXX_USE_CXX11_ABI)}", *tags,
           *[f"-I{p}" for p in cpp_extension.include_paths(device_type="cuda")], f"-I{sysconfig.get_paths()['include']}",
           *cuda_cflags, *[f"-Xcompiler={f}" for f in cflags], *sources,
           *[f"-L{p}" for p in cpp_extension.library_paths(device_type="cuda")],
           "-lc10", "-lc10_cuda", "-ltorch", "-ltorch_cpu", "-ltorch_cuda", "-ltorch_python", *ldflags, "-o", str(out)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"nvcc failed ({' '.join(cmd)}):\n{r.stderr[-3000:]}")
    spec = importlib.util.spec_from_file_location(name, out)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, " ".join(cmd)


SHELL_SAFE = re.compile(r"[A-Za-z0-9_.+/-]+\Z")  # characters no shell gives a meaning to


def private_copy(sol_dir):
    """A copy of the solution's files in a fresh folder of our own (under the system's temporary
    folder where its path is shell-safe, else /tmp); ValueError for a source name a shell reads."""
    for p in Path(sol_dir).rglob("*"):
        rel = p.relative_to(sol_dir).as_posix()
        if p.suffix in CPP_SUFFIXES and (not SHELL_SAFE.match(rel) or rel.startswith("-")):
            raise ValueError(f"source {rel[:60]!r}: expected a name of letters, digits and _ . + - / "
                             "(nvcc's shell would interpret it)")
    base = tempfile.gettempdir()
    work = tempfile.mkdtemp(prefix="rope2d-build-", dir=base if SHELL_SAFE.match(base) else "/tmp")
    shutil.copytree(sol_dir, os.path.join(work, "src"), ignore=shutil.ignore_patterns("_build"), symlinks=False)
    return work


def build(sol_dir, entry, dps, compile_options):
    """(the entry point's callable, a description of the build for the log)."""
    work = private_copy(sol_dir)
    try:
        return _build(os.path.join(work, "src"), entry, dps, compile_options, os.path.join(work, "_build"))
    finally:
        shutil.rmtree(work, ignore_errors=True)  # the loaded extension stays mapped


def _build(sol_dir, entry, dps, compile_options, build_dir):
    from torch.utils import cpp_extension
    _, func = entry.split("::")
    sources = sorted(str(p) for p in Path(sol_dir).rglob("*") if p.suffix in CPP_SUFFIXES)
    if not any("PYBIND11_MODULE" in Path(s).read_text(errors="replace") for s in sources):
        sources.append(_binding(sol_dir, func, dps))
    cuda_cflags = compile_options.get("cuda_cflags")
    cuda_cflags = list(DEFAULT_CUDA_CFLAGS if cuda_cflags is None else cuda_cflags)
    cflags, ldflags = list(compile_options.get("cflags", [])), list(compile_options.get("ld_flags", []))
    digest = hashlib.sha256("\0".join([*(Path(s).read_text(errors="replace") for s in sources), *cuda_cflags, *cflags,
                                       *ldflags]).encode()).hexdigest()[:12]
    name = f"rope2d_solution_{digest}"
    build_dir = Path(build_dir)
    build_dir.mkdir(exist_ok=True)
    if cpp_extension.is_ninja_available():
        module = cpp_extension.load(name=name, sources=sources, extra_cflags=cflags, extra_cuda_cflags=cuda_cflags,
                                    extra_ldflags=ldflags, build_directory=str(build_dir), verbose=False)
        how = f"torch.utils.cpp_extension.load, extra_cuda_cflags {cuda_cflags}, extra_cflags {cflags}"
    else:
        module, how = _nvcc(name, sources, cuda_cflags, cflags, ldflags, build_dir)
    return getattr(module, func), how
