#!/usr/bin/env python3
"""Fails when a function body is longer than a limit, by clang-tidy's readability-function-size
(its LineThreshold: the closing brace's line minus the opening brace's), on the syntax tree clang
builds: only that check, its findings errors. Fails too when clang-tidy is missing or cannot parse
a file: the check never passes without having read the code.

With -p, it reads BUILD/compile_commands.json and runs clang-tidy on every C++ translation unit
there (.cpp, and CMake's unity files, which include the sources), in JOBS processes; it reports
functions in those files and in the headers they include that lie under the ROOTs. Not covered:
the CUDA translation units (.cu), named in the output, and the headers only they include
(clang-tidy 14 parses CUDA through its own wrapper headers, which want texture headers CUDA 12
removed); a header no translation unit includes; a lambda at namespace scope (clang-tidy 14
measures no lambda; one inside a function counts towards that function). Without -p, each FILE
is parsed alone as C++20 (the negative control's fixtures).
    function_size.py [--max 80] [--jobs N] [--clang-tidy PATH] -p BUILD ROOT...
    function_size.py [--max 80] [--clang-tidy PATH] FILE...
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys

CXX_SUFFIXES = (".cpp", ".cc", ".cxx")
CUDA_SUFFIXES = (".cu",)
# A finding, then its note with the count (clang-tidy prints each as its own diagnostic).
FINDING = re.compile(r"^(?P<path>[^\s:][^:\n]*):(?P<line>\d+):\d+: (?:warning|error): function '(?P<name>[^']*)' "
                     r"exceeds recommended size/complexity thresholds", re.M)
COUNT = re.compile(r"^[^:\n]+:\d+:\d+: note: (?P<lines>\d+) lines including whitespace and comments", re.M)
PARSE_ERROR = re.compile(r"^[^\n]*: error: [^\n]*\[clang-diagnostic-error\]$", re.M)


def posix_ere_escape(text):
    """text as a literal in the POSIX extended regex clang-tidy's -header-filter takes."""
    return re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\1", text)


def tidy_command(clang_tidy, limit, roots):
    config = {"CheckOptions": [{"key": "readability-function-size.LineThreshold", "value": str(limit)}] +
              # The check's other thresholds off (800 statements is on by default): lines only.
              [{"key": "readability-function-size." + k, "value": "4294967295"}
               for k in ("StatementThreshold", "BranchThreshold", "ParameterThreshold", "NestingThreshold", "VariableThreshold")]}
    header_filter = "^(" + "|".join(posix_ere_escape(os.path.join(r, "")) for r in roots) + ")"
    return [clang_tidy, "--quiet", "--checks=-*,readability-function-size", "--warnings-as-errors=readability-function-size",
            "--config=" + json.dumps(config), "--header-filter=" + header_filter,
            # The compiler's own warnings (GCC's flags, -Werror) are not this check's business.
            "--extra-arg=-Wno-everything", "--extra-arg=-Wno-error"]


def run_one(command):
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    return done.returncode, done.stdout


def findings_of(output):
    """(path, line, name, lines) of each finding in one clang-tidy output."""
    counts = list(COUNT.finditer(output))
    out = []
    for m in FINDING.finditer(output):
        after = next((c for c in counts if c.start() > m.start()), None)
        out.append((os.path.realpath(m["path"]), int(m["line"]), m["name"], int(after["lines"]) if after else None))
    return out


def units_of(build):
    """The C++ translation units of build/compile_commands.json, and the CUDA ones left out."""
    path = os.path.join(build, "compile_commands.json")
    if not os.path.exists(path):
        sys.exit(f"FAIL: {path} not found (CMAKE_EXPORT_COMPILE_COMMANDS, a Makefile or Ninja generator)")
    entries = json.load(open(path, encoding="utf-8"))
    cxx = sorted({e["file"] for e in entries if e["file"].endswith(CXX_SUFFIXES)})
    cuda = sorted({e["file"] for e in entries if e["file"].endswith(CUDA_SUFFIXES)})
    unknown = sorted({e["file"] for e in entries} - set(cxx) - set(cuda))
    if unknown:
        sys.exit("FAIL: compile_commands.json holds files of no known kind: " + ", ".join(unknown))
    return cxx, cuda


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--max", type=int, default=80)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--clang-tidy", default="clang-tidy")
    ap.add_argument("-p", dest="build")
    ap.add_argument("paths", nargs="+")
    a = ap.parse_args(argv)
    clang_tidy = shutil.which(a.clang_tidy)
    if not clang_tidy:
        print(f"FAIL: {a.clang_tidy} not found: the function size check did not run (Debian: apt-get install clang-tidy)")
        return 1
    paths = [os.path.realpath(p) for p in a.paths]
    base = os.path.commonpath(paths)  # what the paths printed are relative to
    base = os.path.dirname(base) if base in paths else base
    if a.build:
        units, cuda = units_of(a.build)
        command = tidy_command(clang_tidy, a.max, paths) + ["-p", a.build]
        commands = [command + [u] for u in units]
    else:
        units, cuda = paths, []
        command = tidy_command(clang_tidy, a.max, [os.path.dirname(p) for p in paths])
        commands = [command + [u, "--", "-x", "c++", "-std=c++20"] for u in units]
    found, failed = {}, []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(a.jobs, 1)) as pool:
        for unit, (code, output) in zip(units, pool.map(run_one, commands)):
            mine = findings_of(output)
            if PARSE_ERROR.search(output) or (code != 0 and not mine):
                failed.append((unit, code, output))
            for path, line, name, lines in mine:
                if any(path.startswith(os.path.join(r, "")) or path == r for r in paths):
                    found[(path, line)] = (name, lines)
    bad = [f"{os.path.relpath(p, base)}:{line}: {lines} lines (at most {a.max}): {name}"
           for (p, line), (name, lines) in sorted(found.items())]
    for unit, code, output in failed:
        print(f"FAIL: clang-tidy could not parse {os.path.relpath(unit, base)} (exit {code}):\n{output[-4000:]}")
    if cuda:
        print(f"not covered: {len(cuda)} CUDA files (clang-tidy 14 cannot parse CUDA 12's headers and later): " +
              " ".join(os.path.relpath(c, base) for c in cuda))
    print("\n".join(bad + [f"{len(units)} translation units, {len(bad)} functions over {a.max} lines"]))
    return int(bool(bad) or bool(failed))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
