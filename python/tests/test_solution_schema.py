"""SOL-ExecBench's solution.json rules through the Python package (rope2d.solution_schema, which
calls the C++ rules through the C ABI: no second copy here). Every case of
verify/tests/solution_cases/cases.json (one accepted and one refused per rule) is classified and
names its field as in C++; the samples validate; path-only sources are read from beside the file;
the command line keeps its output form."""
import copy
import json
import os
import sys
from pathlib import Path

import pytest

from rope2d import solution_schema

REPO = Path(os.environ.get("ROPE2D_REPO", Path(__file__).resolve().parents[2]))
SAMPLES = sorted((REPO / "verify" / "tests" / "solutions").glob("*.json"))
sys.path.insert(0, str(REPO / "verify" / "tests" / "solution_cases"))
from corpus import CORPUS, build, classify  # noqa: E402  the one reader of the corpus


@pytest.mark.parametrize("case", CORPUS["cases"], ids=[c["name"] for c in CORPUS["cases"]])
def test_case(case):
    found = solution_schema.check(build(case))
    assert classify(found) == case["expect"], found
    if "field" in case:
        assert case["field"] in [p["field"] for p in found], found


def test_corpus_has_every_kind():
    assert {c["expect"] for c in CORPUS["cases"]} == {"accepted", "refused", "ours"}


def test_there_are_python_and_cpp_samples():
    langs = {json.loads(p.read_text())["spec"]["languages"][0] for p in SAMPLES}
    assert {"pytorch", "cuda_cpp"} <= langs


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_sample_validates(path):
    assert solution_schema.check_file(path) == []
    assert json.loads(path.read_text())["spec"]["target_hardware"] == ["LOCAL"]


def test_cuda_samples_differ_only_in_build_flags():
    by_name = {p.stem: json.loads(p.read_text()) for p in SAMPLES}
    good, bad = by_name["cuda_sincosf"], by_name["cuda_default_flags"]
    assert good["spec"]["compile_options"]["cuda_cflags"] == ["-O3"]
    assert "cuda_cflags" not in bad["spec"]["compile_options"]  # the harness's default: fast math
    assert "--use_fast_math" in solution_schema.DEFAULT_CUDA_CFLAGS


def test_schema_is_the_embedded_file():
    assert solution_schema.schema() == json.loads((REPO / "verify" / "schema" / "solution.schema.json").read_text())


def test_path_only_sources_are_read_from_beside_the_file(tmp_path):
    sol = copy.deepcopy(CORPUS["bases"]["triton"])
    sol["sources"] = [{"path": "kernel.py"}]
    (tmp_path / "solution.json").write_text(json.dumps(sol))
    assert [p["field"] for p in solution_schema.check_file(tmp_path / "solution.json")] == ["sources[0].content"]
    (tmp_path / "kernel.py").write_text("def run(a, b, c):\n    return a\n")
    assert solution_schema.check_file(tmp_path / "solution.json") == []
    assert solution_schema.check(sol, str(tmp_path)) == []
    assert solution_schema.check(sol) != []  # from text without a folder: nothing to read


def test_command_line_exit_codes(tmp_path, capsys):
    good, bad, broken = tmp_path / "good.json", tmp_path / "bad.json", tmp_path / "broken.json"
    good.write_text(json.dumps(CORPUS["bases"]["triton"]))
    sol = copy.deepcopy(CORPUS["bases"]["triton"])
    sol["spec"]["target_hardware"] = ["local"]
    bad.write_text(json.dumps(sol))
    broken.write_text("{")
    assert solution_schema.main([str(good)]) == 0
    assert solution_schema.main([str(bad)]) == 2
    out = capsys.readouterr().out
    assert out.startswith(f'{bad}: spec.target_hardware[0]: expected "B200" or "LOCAL" (case-sensitive), found the string "local"')
    assert solution_schema.main([str(broken)]) == 2
    assert "not valid JSON" in capsys.readouterr().out
