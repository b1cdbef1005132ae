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
CONTROL = re.compile(r"\b(if|for|while|switch|catch|return|sizeof|decltype|alignof|static_assert)\s*\($")


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


def header_is_function(head):
    head = re.sub(r"\s+", " ", head).strip()
    if not head.endswith(")") and not re.search(r"\)\s*(const|noexcept|override|final|mutable|->.*|:.*)$", head):
        return False
    # strip a constructor's initializer list and trailing qualifiers back to the parameter list
    depth, k = 0, len(head) - 1
    m = re.search(r"\)\s*(const|noexcept|override|final|mutable|\s|->[^{]*)*$", head)
    if m and not head.endswith(")"):
        head = head[:m.start() + 1]
    if re.search(r"\]\s*\(", head) or "[&" in head or "[=" in head or "[]" in head:
        return False  # a lambda
    for c in reversed(head):
        if c == ")": depth += 1
        elif c == "(":
            depth -= 1
            if depth == 0: break
        k -= 1
    before = head[:head.rfind("(", 0, len(head))] if "(" in head else head
    if CONTROL.search(head[:k + 1] if k >= 0 else head) or re.search(r"\b(if|for|while|switch|catch)\s*$", head[:k].rstrip() if k > 0 else ""):
        return False
    return bool(re.search(r"[A-Za-z_~][\w:<>~]*\s*$", head[:k] if k > 0 else before))


def scan(path, limit):
    text = blank(open(path, encoding="utf-8", errors="replace").read())
    text = re.sub(r"(?m)^[ \t]*#.*$", lambda m: " " * len(m.group(0)), text)  # preprocessor lines
    found, stack, last = [], [], 0  # stack of (kind, start line)
    line = 1
    for i, c in enumerate(text):
        if c == "\n":
            line += 1
        elif c in ";}":
            if c == "}" and stack:
                kind, start, name = stack.pop()
                if kind == "function" and line - start > limit:
                    found.append((start, line - start, name))
            last = i + 1
        elif c == "{":
            head = text[last:i]
            inside = any(k == "function" for k, _, _ in stack)
            kind = "function" if not inside and header_is_function(head) else ("block" if inside else "scope")
            name = re.sub(r"\s+", " ", head).strip()[-80:]
            stack.append((kind, line, name))
            last = i + 1
        elif c == ":" and text[i:i + 2] != "::" and text[i - 1:i + 1] != "::":
            # access specifiers and labels end a declaration's head
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
