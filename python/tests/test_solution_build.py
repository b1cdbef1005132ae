"""rope2d.runner.solution_build on the CPU, with torch's cpp_extension replaced by a recorder:
which sources are compiled, with which flags (the official fast-math default when cuda_cflags
is absent, the solution's own otherwise), and the binding generated when a solution has none.
The real build runs on the device (step `solution`)."""
import json
import os
import sys
import types
from pathlib import Path

import pytest

from rope2d.runner import solution_build  # torch is imported at the build, here the recorder

REPO = Path(os.environ.get("ROPE2D_REPO", Path(__file__).resolve().parents[2]))


@pytest.fixture
def build(monkeypatch):
    calls = []

    class Module:  # the built extension: any entry point name resolves
        def __getattr__(self, name):
            return lambda *a: None

    def load(**kw):  # the sources' text kept: the private build folder is gone after build()
        calls.append({**kw, "texts": {Path(s).name: Path(s).read_text() for s in kw["sources"]}})
        return Module()

    ext = types.SimpleNamespace(is_ninja_available=lambda: True, load=load)
    torch = types.ModuleType("torch")
    utils = types.ModuleType("torch.utils")
    utils.cpp_extension = ext
    torch.utils = utils
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setitem(sys.modules, "torch.utils", utils)
    monkeypatch.setitem(sys.modules, "torch.utils.cpp_extension", ext)
    return solution_build, calls


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
    text = calls[0]["texts"]["_rope2d_binding.cpp"]
    assert "torch::Tensor launch(torch::Tensor, torch::Tensor, torch::Tensor);" in text  # returning style
    assert 'm.def("launch", &launch)' in text


def test_built_in_a_private_folder_never_under_a_name_we_do_not_control(build, tmp_path):
    mod, calls = build
    sol_dir = tmp_path / 'out$(touch PWNED)`touch PWNED2`' / "solution"
    sol_dir.mkdir(parents=True)
    sol = json.loads((REPO / "verify" / "tests" / "solutions" / "cuda_sincosf.json").read_text())
    for s in sol["sources"]:
        (sol_dir / s["path"]).write_text(s["content"])
    mod.build(str(sol_dir), sol["spec"]["entry_point"], True, sol["spec"]["compile_options"])
    paths = [*calls[0]["sources"], calls[0]["build_directory"]]
    assert all(mod.SHELL_SAFE.match(p) and "rope2d-build-" in p for p in paths), paths
    assert not Path(calls[0]["build_directory"]).exists(), "the private folder is removed after the build"
    assert sorted(p.name for p in sol_dir.iterdir()) == sorted(Path(s["path"]).name for s in sol["sources"])


@pytest.mark.parametrize("name", ["k$(touch PWNED).cu", "k`x`.cu", "k x.cu", "-k.cu", 'k".cu', "k\n.cu"])
def test_a_source_name_a_shell_reads_is_refused(build, tmp_path, name):
    mod, calls = build
    (tmp_path / name).write_text("// a kernel\n")
    with pytest.raises(ValueError, match="nvcc's shell would interpret it"):
        mod.build(str(tmp_path), "k.cu::launch", False, {"cuda_cflags": []})
    assert not calls
