"""The case corpus of cases.json made into documents: each case's base with its edits (JSON
Pointers) applied, and a check's problems classified as accepted, refused or ours. Shared by
python/tests/test_solution_schema.py and verify/tests/official_models_test.py."""
import copy
import json
from pathlib import Path

CORPUS = json.loads((Path(__file__).resolve().parent / "cases.json").read_text())


def build(case):
    """A case's document: its base with the edits applied (JSON Pointers)."""
    doc = copy.deepcopy(CORPUS["bases"][case["base"]])

    def walk(ptr):
        parts = [p.replace("~1", "/").replace("~0", "~") for p in ptr.split("/")[1:]]
        node = doc
        for p in parts[:-1]:
            node = node[int(p)] if isinstance(node, list) else node[p]
        return node, (int(parts[-1]) if isinstance(node, list) else parts[-1])

    for ptr, value in case.get("set", {}).items():
        node, key = walk(ptr)
        node[key] = value
    for ptr in case.get("remove", []):
        node, key = walk(ptr)
        del node[key]
    if "repeat_content" in case:
        doc["sources"][0]["content"] *= case["repeat_content"]
    for i in range(case.get("extra_sources", 0)):
        doc["sources"].append({"path": f"extra_{i}.py", "content": "x = 1\n"})
    return doc


def classify(found):
    if not found:
        return "accepted"
    return "ours" if all(p["ours"] for p in found) else "refused"
