"""verify/python/solution_build.py on the CPU, with torch's cpp_extension replaced by a recorder:
which sources are compiled, with which flags (the official fast-math default when cuda_cflags
is absent, the solution's own otherwise), and the binding generated when a solution has none.
The real build runs on the device (step `solution`)."""
import importlib.util
import json
import os
import sys
import types
from pathlib import Path

import pytest

REPO = Path(os.environ.get("ROPE2D_REPO", Path(__file__).resolve().parents[2]))


@pytest.fixture
def build(monkeypatch):
    calls = []

    class Module:  # the built extension: any entry point name resolves
        def __getattr__(self, name):
            return lambda *a: None

    def load(**kw):
        calls.append(kw)
        return Module()

    ext = types.SimpleNamespace(is_ninja_available=lambda: True, load=load)
    torch = types.ModuleType("torch")
    utils = types.ModuleType("torch.utils")
    utils.cpp_extension = ext
    torch.utils = utils
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setitem(sys.modules, "torch.utils", utils)
    monkeypatch.setitem(sys.modules, "torch.utils.cpp_extension", ext)
    spec = importlib.util.spec_from_file_location("solution_build", REPO / "verify" / "python" / "solution_build.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod, calls


def unpack(tmp_path, name):
    sol = json.loads((REPO / "verify" / "tests" / "solutions" / f"{name}.json").read_text())
    for s in sol["sources"]:
        (tmp_path / s["path"]).write_text(s["content"])
    return sol


def test_default_flags_are_fast_math(build, tmp_path):
    mod, calls = build
    sol = unpack(tmp_path, "cuda_default_flags")
    fn, how = mod.build(str(tmp_path), sol["spec"]["entry_point"], True, sol["spec"]["compile_options"])
    assert calls[0]["extra_cuda_cflags"] == ["-O3", "--use_fast_math"]
    assert sorted(Path(s).name for s in calls[0]["sources"]) == ["binding.cpp", "kernel.cu"]  # its own binding kept
    assert callable(fn) and "--use_fast_math" in how


def test_given_flags_are_used_as_given(build, tmp_path):
    mod, calls = build
    sol = unpack(tmp_path, "cuda_sincosf")
    mod.build(str(tmp_path), sol["spec"]["entry_point"], True, sol["spec"]["compile_options"])
    assert calls[0]["extra_cuda_cflags"] == ["-O3"]


def test_a_binding_is_generated_when_missing(build, tmp_path):
    mod, calls = build
    (tmp_path / "k.cu").write_text("// no module definition here\n")
    mod.build(str(tmp_path), "k.cu::launch", False, {"cuda_cflags": []})
    names = [Path(s).name for s in calls[0]["sources"]]
    assert names == ["k.cu", "_rope2d_binding.cpp"] and calls[0]["extra_cuda_cflags"] == []
    text = (tmp_path / "_rope2d_binding.cpp").read_text()
    assert "torch::Tensor launch(torch::Tensor, torch::Tensor, torch::Tensor);" in text  # returning style
    assert 'm.def("launch", &launch)' in text
