"""SOL-ExecBench's solution.json rules (rope2d.solution_schema): every sample solution under
verify/tests/solutions/ validates, and each kind of bad solution is rejected naming its field.
The samples are also read by `rope2d verify`'s own loader in verify_test (C++)."""
import copy
import json
import os
from pathlib import Path

import pytest

from rope2d import solution_schema

REPO = Path(os.environ.get("ROPE2D_REPO", Path(__file__).resolve().parents[2]))
SAMPLES = sorted((REPO / "verify" / "tests" / "solutions").glob("*.json"))


def test_there_are_python_and_cpp_samples():
    langs = {json.loads(p.read_text())["spec"]["languages"][0] for p in SAMPLES}
    assert {"pytorch", "cuda_cpp"} <= langs


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_sample_validates(path):
    assert solution_schema.problems(json.loads(path.read_text())) == []


def test_cuda_samples_differ_only_in_build_flags():
    by_name = {p.stem: json.loads(p.read_text()) for p in SAMPLES}
    good, bad = by_name["cuda_sincosf"], by_name["cuda_default_flags"]
    assert good["spec"]["compile_options"]["cuda_cflags"] == ["-O3"]
    assert "cuda_cflags" not in bad["spec"]["compile_options"]  # the harness's default: fast math
    assert "--use_fast_math" in solution_schema.DEFAULT_CUDA_CFLAGS


GOOD = {"name": "s", "definition": "090_batched_2d_rope_position_encoding_backward", "author": "a",
        "spec": {"languages": ["pytorch"], "target_hardware": ["local"], "entry_point": "k.py::run",
                 "destination_passing_style": True},
        "sources": [{"path": "k.py", "content": "def run(a, b, c, d): pass\n"}]}


def broken(edit):
    sol = copy.deepcopy(GOOD)
    edit(sol)
    return [field for field, _, _ in solution_schema.problems(sol)]


CASES = {
    "python is not a language": (lambda s: s["spec"].update(languages=["python"]), "spec.languages"),
    "no languages": (lambda s: s["spec"].pop("languages"), "spec.languages"),
    "no target_hardware": (lambda s: s["spec"].pop("target_hardware"), "spec.target_hardware"),
    "target_hardware a string": (lambda s: s["spec"].update(target_hardware="B200"), "spec.target_hardware"),
    "entry without function": (lambda s: s["spec"].update(entry_point="k.py"), "spec.entry_point"),
    "cuda_cpp with a .py entry": (lambda s: s["spec"].update(languages=["cuda_cpp"]), "spec.entry_point"),
    "entry not in sources": (lambda s: s["spec"].update(entry_point="other.py::run"), "spec.entry_point"),
    "mixed languages": (lambda s: s["spec"].update(languages=["pytorch", "cuda_cpp"]), "spec.languages"),
    "binding": (lambda s: s["spec"].update(binding="jax"), "spec.binding"),
    "dps not a bool": (lambda s: s["spec"].update(destination_passing_style="yes"), "spec.destination_passing_style"),
    "cuda_cflags a string": (lambda s: s["spec"].update(compile_options={"cuda_cflags": "-O3"}),
                             "spec.compile_options.cuda_cflags"),
    "no name": (lambda s: s.pop("name"), "name"),
    "no author": (lambda s: s.pop("author"), "author"),
    "no sources": (lambda s: s.update(sources=[]), "sources"),
    "source escapes": (lambda s: s["sources"].append({"path": "../x.py", "content": ""}), "sources[1].path"),
    "duplicate source": (lambda s: s["sources"].append(dict(s["sources"][0])), "sources[1].path"),
}


def test_good_is_good():
    assert broken(lambda s: None) == []


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_bad_solution_names_its_field(case):
    edit, field = CASES[case]
    assert field in broken(edit)


def test_command_line_exit_codes(tmp_path, capsys):
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(GOOD))
    sol = copy.deepcopy(GOOD)
    sol["spec"]["languages"] = ["python"]
    bad.write_text(json.dumps(sol))
    assert solution_schema.main([str(good)]) == 0
    assert solution_schema.main([str(bad)]) == 2
    assert f"{bad}: spec.languages:" in capsys.readouterr().out
