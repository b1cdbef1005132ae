#!/usr/bin/env python3
"""Fails when a function body in the given C++/CUDA sources is longer than a limit (lines from
its opening brace to its closing one). A small scanner, not a compiler: comments, strings and
character literals are blanked first; a brace opens a function when it follows a parameter list
at namespace or class scope (lambdas and control statements inside a function count towards
that function).
    function_length.py [--max 100] FILE_OR_DIR...
"""
import os
import re
import sys

SUFFIXES = (".cpp", ".hpp", ".cu", ".cuh", ".h", ".cc")


def blank(text):
    """Comments, strings and char literals replaced by spaces (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i)); i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j])); i = j
        elif c == 'R' and text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j])); i = j
        elif c in "\"'":
            if c == "'" and i > 0 and (text[i - 1].isalnum()):  # digit separator 1'000
                out.append(" "); i += 1; continue
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(re.sub(r"[^\n]", " ", text[i:j + 1])); i = j + 1
        else:
            out.append(c); i += 1
    return "".join(out)


LAMBDA = re.compile(r"\[[^\[\]]*\]\s*(\(|\{|mutable\b|->)")
KEYWORDS = {"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype", "alignof", "alignas",
            "static_assert", "__launch_bounds__", "noexcept", "requires", "throw", "new", "delete"}
QUALIFIERS = re.compile(r"^\s*((const|volatile|noexcept|override|final|mutable|&&|&|try)\b\s*|noexcept\s*\(.*?\)\s*|->[^{]*|:.*)*$")


def groups(head):
    """(start, end) of every parenthesised group at depth 0 of head."""
    out, depth, start = [], 0, 0
    for k, ch in enumerate(head):
        if ch == "(":
            if depth == 0:
                start = k
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
            if depth == 0:
                out.append((start, k))
    return out


def header_is_function(head):
    """A function definition's head: NAME(params) followed only by qualifiers, a trailing
    return type or a constructor's initializer list."""
    h = re.sub(r"\s+", " ", head).strip()
    for start, end in groups(h):
        name = re.search(r"(operator\s*\S+|[A-Za-z_~][\w:~]*(<[^()]*>)?)\s*$", h[:start])
        if not name or name.group(1).split("::")[-1].split("<")[0] in KEYWORDS:
            continue
        if QUALIFIERS.match(h[end + 1:]):
            return True
    return False


def scan(path, limit):
    text = blank(open(path, encoding="utf-8", errors="replace").read())
    text = re.sub(r"(?m)^[ \t]*#.*$", lambda m: " " * len(m.group(0)), text)  # preprocessor lines
    found, stack, last, parens = [], [], 0, 0  # stack of (kind, start line, name)
    line = 1
    for i, c in enumerate(text):
        if c == "\n":
            line += 1
        elif c == "(":
            parens += 1
        elif c == ")":
            parens = max(parens - 1, 0)
        elif c == ";" and parens == 0:
            last = i + 1
        elif c == "}" and stack:
            kind, start, name = stack.pop()
            if kind == "function" and line - start > limit:
                found.append((start, line - start, name))
            if kind != "inner":
                last = i + 1
        elif c == "{":
            head = text[last:i]
            inside = any(k in ("function", "lambda") for k, _, _ in stack)
            init_list = re.search(r"\)\s*:[^{]*$", head) and re.search(r"[\w>]$", head)
            if parens > 0 or init_list and not inside:
                kind = "inner"  # a brace inside parentheses (a default argument) or a member's brace-init
            elif inside:
                kind = "block"
            elif LAMBDA.search(head):
                kind = "function"  # a lambda at namespace or class scope is measured as a function
            else:
                kind = "function" if header_is_function(head) else "scope"
            if kind != "inner":
                stack.append((kind, line, re.sub(r"\s+", " ", head).strip()[-80:]))
                last = i + 1
            else:
                stack.append((kind, line, ""))
        elif c == ":" and text[i:i + 2] != "::" and text[i - 1:i + 1] != "::":
            # access specifiers end a declaration's head
            if re.search(r"\b(public|private|protected)\s*$", text[last:i]):
                last = i + 1
    return found


def main(argv):
    limit, paths = 100, []
    it = iter(argv)
    for a in it:
        if a == "--max": limit = int(next(it))
        else: paths.append(a)
    files = []
    for p in paths:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                files += [os.path.join(root, f) for f in names if f.endswith(SUFFIXES)]
        else:
            files.append(p)
    bad = [f"{f}:{start}: {length} lines (at most {limit}): {name}" for f in sorted(files) for start, length, name in scan(f, limit)]
    print("\n".join(bad + [f"{len(files)} files, {len(bad)} functions over {limit} lines"]))
    return int(bool(bad))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
