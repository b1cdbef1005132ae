"""The rules of SOL-ExecBench's solution.json, as its loader applies them, written out so a
solution can be checked before it is submitted: `python3 -m rope2d.solution_schema FILE...`
prints one line per problem (file: field: expected, found) and exits 2 when any is found.
Pure Python, no library needed."""
import json
import posixpath
import sys

PYTHON_LANGUAGES = ("pytorch", "triton", "cute_dsl", "cutile", "cudnn_frontend")   # entry "file.py::run"
CPP_LANGUAGES = ("cuda_cpp", "cutlass", "cudnn", "cublas")                         # entry "kernel.cu::run"
LANGUAGES = PYTHON_LANGUAGES + CPP_LANGUAGES
CPP_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx")
# What the official harness compiles C++ solutions with when compile_options gives no cuda_cflags.
DEFAULT_CUDA_CFLAGS = ("-O3", "--use_fast_math")


def _strings(v):
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


def _spec_problems(spec, sources):
    p = []
    langs = spec.get("languages")
    if not isinstance(langs, list) or not langs or not all(isinstance(x, str) for x in langs):
        p.append(("spec.languages", f"expected a non-empty list from {', '.join(LANGUAGES)}", langs))
        langs = []
    for lang in langs:
        if lang not in LANGUAGES:
            hint = " (\"python\" is not one: use \"pytorch\" or \"triton\")" if lang == "python" else ""
            p.append(("spec.languages", f"expected one of {', '.join(LANGUAGES)}{hint}", lang))
    cpp = any(x in CPP_LANGUAGES for x in langs)
    if cpp and any(x in PYTHON_LANGUAGES for x in langs):
        p.append(("spec.languages", "expected Python languages or C++ languages, not both", langs))
    hw = spec.get("target_hardware")
    if not _strings(hw) or not hw or not all(hw):
        p.append(("spec.target_hardware", "expected a non-empty list of names such as [\"B200\"] or [\"local\"]", hw))
    entry = spec.get("entry_point")
    file, _, func = entry.partition("::") if isinstance(entry, str) else ("", "", "")
    want = "\"kernel.cu::run\"" if cpp else "\"file.py::run\""
    suffix_ok = file.endswith(CPP_SUFFIXES) if cpp else file.endswith(".py")
    if not file or not func or not suffix_ok:
        p.append(("spec.entry_point", f"expected {want}", entry))
    elif file not in sources:
        p.append(("spec.entry_point", "expected a file that sources provides", entry))
    if "binding" in spec and spec["binding"] != "torch":
        p.append(("spec.binding", "expected \"torch\"", spec["binding"]))
    if "destination_passing_style" in spec and not isinstance(spec["destination_passing_style"], bool):
        p.append(("spec.destination_passing_style", "expected true or false", spec["destination_passing_style"]))
    if "dependencies" in spec and not _strings(spec["dependencies"]):
        p.append(("spec.dependencies", "expected a list of strings", spec["dependencies"]))
    opts = spec.get("compile_options", {})
    if not isinstance(opts, dict):
        p.append(("spec.compile_options", "expected an object", opts))
    else:
        for k in ("cflags", "cuda_cflags", "ld_flags"):
            if k in opts and not _strings(opts[k]):
                p.append((f"spec.compile_options.{k}", "expected a list of strings", opts[k]))
    return p


def problems(sol):
    """Every rule a parsed solution.json breaks, as (field, expected, found) tuples."""
    if not isinstance(sol, dict):
        return [("(top level)", "expected an object", type(sol).__name__)]
    p = []
    for k in ("name", "definition", "author"):
        if not isinstance(sol.get(k), str) or not sol.get(k):
            p.append((k, "expected a non-empty string", sol.get(k)))
    sources = {}
    srcs = sol.get("sources")
    if not isinstance(srcs, list) or not srcs:
        p.append(("sources", "expected a non-empty list of {\"path\", \"content\"}", srcs))
        srcs = []
    for i, s in enumerate(srcs):
        where = f"sources[{i}]"
        if not isinstance(s, dict) or not isinstance(s.get("path"), str) or not isinstance(s.get("content"), str):
            p.append((where, "expected {\"path\": string, \"content\": string}", s))
            continue
        norm = posixpath.normpath(s["path"])
        if s["path"].startswith("/") or norm.startswith(".."):
            p.append((f"{where}.path", "expected a relative path inside the solution", s["path"]))
        elif norm in sources:
            p.append((f"{where}.path", "expected a path no other source has", s["path"]))
        sources[norm] = s["content"]
    spec = sol.get("spec")
    if not isinstance(spec, dict):
        p.append(("spec", "expected an object", spec))
    else:
        p += _spec_problems(spec, sources)
    return p


def main(argv):
    bad = 0
    for path in argv:
        try:
            with open(path) as f:
                sol = json.load(f)
        except (OSError, ValueError) as e:
            print(f"{path}: {e}")
            bad += 1
            continue
        for field, expected, found in problems(sol):
            print(f"{path}: {field}: {expected}, found {json.dumps(found)}")
            bad += 1
    return 2 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]) if len(sys.argv) > 1 else (print(__doc__), 2)[1])
