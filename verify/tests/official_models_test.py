"""rope2d's solution reader (rope2d.solution_schema: the C++ rules through the C ABI) and
SOL-ExecBench's own loader (cli/main.py's _load_solution: sibling filling, then the pydantic
Solution model) on the same files must accept and refuse the same ones: every case of
verify/tests/solution_cases/cases.json, the sample solutions, path-only sources (present, absent,
a folder, a link out of the folder), and every line of the golden export through the official
Definition and Workload models. Where rope2d refuses only by a limit of its own ("ours") the
official model must accept, and the case must say so. Prints the counts; exit 1 on a disagreement."""
import copy
import json
import os
import sys
import tempfile
from pathlib import Path

from sol_execbench.cli.main import _load_solution
from sol_execbench.core.data import Definition, Workload

from rope2d import solution_schema

REPO = Path(sys.argv[1])
sys.path.insert(0, str(REPO / "verify" / "tests" / "solution_cases"))
from corpus import CORPUS, build, classify  # noqa: E402  the one reader of the corpus

counts = {"agree-accepted": 0, "agree-refused": 0, "ours": 0, "disagree": 0}
failures = []


def official(path):
    try:
        _load_solution(Path(path))
        return "accepted"
    except Exception as e:  # noqa: BLE001  any failure of the official loader is a refusal
        return "refused: " + str(e).splitlines()[0][:120]


def compare(label, path, expect=None):
    ours = solution_schema.check_file(path)
    mine, theirs = classify(ours), official(path)
    if mine == "accepted" and theirs == "accepted":
        counts["agree-accepted"] += 1
    elif mine != "accepted" and theirs != "accepted":
        counts["agree-refused"] += 1
    elif mine == "ours" and theirs == "accepted":
        counts["ours"] += 1
    else:
        counts["disagree"] += 1
        failures.append(f"{label}: rope2d {mine} {[p['line'] for p in ours][:2]}, official {theirs}")
        return
    if expect and expect != mine:
        failures.append(f"{label}: expected {expect}, rope2d {mine}")
    if expect == "ours" and theirs != "accepted":
        failures.append(f"{label}: an 'ours' case the official model refuses too: {theirs}")


with tempfile.TemporaryDirectory() as tmp:
    tmp = Path(tmp)
    for i, case in enumerate(CORPUS["cases"]):
        d = tmp / f"case{i}"
        d.mkdir()
        (d / "solution.json").write_text(json.dumps(build(case)))
        compare(case["name"], d / "solution.json", case["expect"])
    for p in sorted((REPO / "verify" / "tests" / "solutions").glob("*.json")):
        compare(p.name, p, "accepted")
    # Path-only sources, as the official CLI fills them.
    files = tmp / "files"
    (files / "sub").mkdir(parents=True)
    (files / "kernel.py").write_text("def run(a, b, c):\n    return a\n")
    (files / "sub" / "helper.py").write_text("X = 1\n")
    (files / "folder.py").mkdir()
    (tmp / "secret.py").write_text("S = 1\n")
    os.symlink(tmp / "secret.py", files / "link.py")
    (files / "empty.py").write_text("")
    path_cases = {
        "content absent, file beside": ([{"path": "kernel.py"}], "accepted"),
        "content empty, file in a subfolder": ([{"path": "kernel.py", "content": ""}, {"path": "sub/helper.py", "content": ""}], "accepted"),
        "content null, file beside": ([{"path": "kernel.py", "content": None}], "accepted"),
        "content absent, no file": ([{"path": "kernel.py"}, {"path": "nothere.py"}], "refused"),
        "content absent, an empty file": ([{"path": "kernel.py"}, {"path": "empty.py"}], "refused"),
        "content absent, a folder": ([{"path": "kernel.py"}, {"path": "folder.py"}], "refused"),
        "content absent, a link out of the folder": ([{"path": "kernel.py"}, {"path": "link.py"}], "ours"),
    }
    for name, (sources, expect) in path_cases.items():
        sol = copy.deepcopy(CORPUS["bases"]["triton"])
        sol["sources"] = sources
        (files / "solution.json").write_text(json.dumps(sol))
        compare(name, files / "solution.json", expect)

# The golden export: every line through the official models.
golden = REPO / "data" / "golden-smoke" / "solexecbench"
golden_lines = 0
try:
    Definition(**json.loads((golden / "definition.json").read_text()))
    counts["agree-accepted"] += 1
except Exception as e:  # noqa: BLE001
    failures.append(f"golden definition.json refused by the official model: {e}")
for n, line in enumerate((golden / "workload.jsonl").read_text().splitlines()):
    if not line.strip():
        continue
    golden_lines += 1
    try:
        Workload(**json.loads(line))
        counts["agree-accepted"] += 1
    except Exception as e:  # noqa: BLE001
        failures.append(f"golden workload.jsonl line {n + 1} refused by the official model: {e}")

total = sum(counts.values())
print(f"official_models_test: {total} files ({golden_lines} golden workload lines, 1 definition): "
      + ", ".join(f"{k} {v}" for k, v in counts.items()))
for f in failures:
    print("DISAGREE " + f)
sys.exit(1 if failures else 0)
