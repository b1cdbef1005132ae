"""The Python solutions of verify/tests/python_solutions (run on the GPU by
python_solutions_test.sh) checked on the CPU: every solution.json is fresh from its kernel.py,
in SOL-ExecBench's official form, passes the schema, and has an expected verdict and reason."""
import json
import subprocess
import sys
from pathlib import Path

from rope2d import solution_schema

DIR = Path(__file__).resolve().parents[2] / "verify" / "tests" / "python_solutions"


def expected():
    rows = {}
    for line in (DIR / "expected.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, verdict, reason = line.split(None, 2)
            rows[name] = (verdict, reason)
    return rows


def test_solution_files_are_fresh_and_official():
    rc = subprocess.run([sys.executable, str(DIR / "make_solution_json.py"), "--check"], capture_output=True, text=True)
    assert rc.returncode == 0, rc.stdout
    folders = {p.parent.name for p in DIR.glob("*/solution.json")}
    assert folders == set(expected()), folders ^ set(expected())
    for name in folders:
        sol = json.loads((DIR / name / "solution.json").read_text())
        assert solution_schema.problems(sol) == [], name
        assert sol["spec"]["target_hardware"] == ["LOCAL"] and set(sol["spec"]["languages"]) <= {"pytorch", "triton"}
        src = sol["sources"][0]["content"]
        assert src.startswith("# ACCURATE") == (expected()[name][0] == "passed"), name


def test_every_defect_class_and_accurate_form_is_there():
    rows = expected()
    assert {v for v, _ in rows.values()} == {"passed", "incorrect", "failed"}
    assert sum(v == "passed" for v, _ in rows.values()) == 4  # eager, Triton, torch.compile, constexpr Triton
    for name, (verdict, reason) in rows.items():
        assert verdict == "passed" or reason != "-", name  # a defect is caught for a named reason
