#!/usr/bin/env python3
"""Generates the C++ header and the Gappa templates from reference/proofs/formulas.def.

C++: one ROPE2D_HD constexpr function per formula, its constants read from a BoundConstants
argument. Gappa: each @name(args)@ in a template is replaced by the formula, parenthesised,
its parameters by the arguments and its constants by @NAME@ (filled by run_proofs.sh).
Usage: gen_formulas.py FORMULAS --cpp OUT.hpp [--gappa TEMPLATE_DIR OUT_DIR]
"""
import argparse
import pathlib
import re
import sys

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
LINE = re.compile(r"^([a-z][a-z0-9_]*)\(([^)]*)\)\s*=\s*(.+)$")
ALLOWED = re.compile(r"^[A-Za-z0-9_+\-*(), .]*$")


def fail(msg):
    sys.exit(f"gen_formulas: {msg}")


def parse(path):
    constants, formulas = [], {}
    for n, raw in enumerate(pathlib.Path(path).read_text().splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("constants:"):
            constants = line.split(":", 1)[1].split()
            continue
        m = LINE.match(line)
        if not m:
            fail(f"{path}:{n}: not `name(PARAMS) = EXPRESSION`: {raw}")
        name, params, expr = m.group(1), [p.strip() for p in m.group(2).split(",") if p.strip()], m.group(3)
        if not ALLOWED.match(expr):
            fail(f"{path}:{n}: only + - * ( ) , names and literals: {expr}")
        for tok in re.finditer(r"0x[0-9a-fA-Fp.+\-]+|[0-9][0-9.]*|" + IDENT.pattern, expr):
            t = tok.group(0)
            if t[0].isdigit() or t in params or t in constants:
                continue
            if t in formulas and expr[tok.end():tok.end() + 1] == "(":
                continue
            fail(f"{path}:{n}: unknown name {t} in {name} (not a parameter, constant or earlier formula)")
        for p in params:
            if p in constants:
                fail(f"{path}:{n}: parameter {p} of {name} is also a constant")
        formulas[name] = (params, expr)
    if not constants or not formulas:
        fail(f"{path}: no constants or no formulas")
    return constants, formulas


def split_args(text):
    args, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            args.append(cur.strip())
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    args.append(cur.strip())
    return [a for a in args if a]


def closing(text, start):
    """Index of the ')' that closes the '(' at text[start]."""
    depth = 0
    for i in range(start, len(text)):
        depth += text[i] == "("
        depth -= text[i] == ")"
        if depth == 0:
            return i
    fail(f"unbalanced parentheses in {text}")


def expand(name, args, constants, formulas):
    params, expr = formulas[name]
    if len(args) != len(params):
        fail(f"{name} takes {len(params)} arguments, given {len(args)}: {args}")
    binding = dict(zip(params, args))
    out, i = "", 0
    while i < len(expr):
        m = IDENT.match(expr, i)
        if not m:
            out += expr[i]
            i += 1
            continue
        t, i = m.group(0), m.end()
        if t in formulas and i < len(expr) and expr[i] == "(":
            end = closing(expr, i)
            inner = [expand_calls(a, constants, formulas) for a in split_args(expr[i + 1:end])]
            inner = [binding_sub(a, binding) for a in inner]
            out += expand(t, inner, constants, formulas)
            i = end + 1
        elif t in binding:
            out += f"({binding[t]})"
        elif t in constants:
            out += f"@{t}@"
        else:
            out += t
    return f"({out})"


def binding_sub(arg, binding):
    return IDENT.sub(lambda m: f"({binding[m.group(0)]})" if m.group(0) in binding else m.group(0), arg)


def expand_calls(text, constants, formulas):
    """Replaces each name(args) call of a formula in a Gappa argument (no @ around it)."""
    out, i = "", 0
    while i < len(text):
        m = IDENT.match(text, i)
        if m and m.group(0) in formulas and text[m.end():m.end() + 1] == "(":
            end = closing(text, m.end())
            args = [expand_calls(a, constants, formulas) for a in split_args(text[m.end() + 1:end])]
            out += expand(m.group(0), args, constants, formulas)
            i = end + 1
        elif m:
            out += m.group(0)
            i = m.end()
        else:
            out += text[i]
            i += 1
    return out


def gappa(template, constants, formulas):
    out, i = "", 0
    call = re.compile(r"@([a-z][a-z0-9_]*)\(")
    while True:
        m = call.search(template, i)
        if not m:
            return out + template[i:]
        if m.group(1) not in formulas:
            fail(f"@{m.group(1)}(...)@: no such formula")
        end = closing(template, m.end() - 1)
        if template[end + 1:end + 2] != "@":
            fail(f"@{m.group(1)}(...) not closed by ')@'")
        args = [expand_calls(a, constants, formulas) for a in split_args(template[m.end():end])]
        out += template[i:m.start()] + expand(m.group(1), args, constants, formulas)
        i = end + 2


def cpp(constants, formulas, source):
    lines = [
        f"// Generated by reference/proofs/gen_formulas.py from {source}: do not edit (edit the",
        "// formulas there; the Gappa proofs of reference/proofs/ are generated from the same lines).",
        "#pragma once",
        "",
        '#include "rope2d/ref/hd.hpp"',
        "",
        "namespace rope2d::ref::formula {",
        "",
        "// The constants the formulas read (formulas.def's `constants:` line).",
        "struct BoundConstants {",
        "  double " + ", ".join(constants) + ";",
        "};",
        "",
    ]
    for name, (params, expr) in formulas.items():
        body = IDENT.sub(lambda m: f"k.{m.group(0)}" if m.group(0) in constants else m.group(0), expr)
        body = re.sub(r"\b(" + "|".join(map(re.escape, formulas)) + r")\(", r"\1(k, ", body)
        sig = ", ".join(["const BoundConstants& k"] + [f"double {p}" for p in params])
        lines.append(f"// {name}({', '.join(params)}) = {expr}")
        lines.append(f"ROPE2D_HD constexpr double {name}({sig}) {{ return {body}; }}")
    lines += ["", "}  // namespace rope2d::ref::formula", ""]
    return "\n".join(lines)


def write_if_changed(path, text):
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("formulas")
    ap.add_argument("--cpp")
    ap.add_argument("--gappa", nargs=2, metavar=("TEMPLATE_DIR", "OUT_DIR"))
    a = ap.parse_args()
    constants, formulas = parse(a.formulas)
    if a.cpp:
        write_if_changed(a.cpp, cpp(constants, formulas, "reference/proofs/formulas.def"))
    if a.gappa:
        src, dst = map(pathlib.Path, a.gappa)
        templates = sorted(src.glob("*.g.in"))
        if not templates:
            fail(f"no *.g.in in {src}")
        for t in templates:
            write_if_changed(dst / t.name, gappa(t.read_text(), constants, formulas))


if __name__ == "__main__":
    main()
