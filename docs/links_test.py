"""The README is the landing page: every page in docs/ must be linked from it, and every
relative link in the README and in docs/ must name a file that exists (anchors are checked
against the target's headings, as GitHub forms them). Exit 1 listing what is broken."""
import pathlib
import re
import sys

ROOT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def anchors(path):
    out = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return out


def main():
    problems = []
    readme = ROOT / "README.md"
    pages = [readme] + sorted((ROOT / "docs").glob("*.md"))
    linked = set()
    for page in pages:
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if re.match(r"^[a-z]+:", target):
                continue
            file, _, anchor = target.partition("#")
            dest = (page.parent / file).resolve() if file else page
            if not dest.exists():
                problems.append(f"{page.relative_to(ROOT)}: link to {target}: no such file")
                continue
            if page == readme:
                linked.add(dest)
            if anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                problems.append(f"{page.relative_to(ROOT)}: link to {target}: no heading '{anchor}' there")
    for page in pages[1:]:
        if page.resolve() not in linked:
            problems.append(f"README.md: docs/{page.name} is not linked")
    lines = len(readme.read_text(encoding="utf-8").splitlines())
    if lines > 220:
        problems.append(f"README.md: {lines} lines; the landing page should stay near 200")
    print("\n".join(problems + [f"{len(pages)} pages, {len(problems)} problems"]))
    return int(bool(problems))


if __name__ == "__main__":
    sys.exit(main())
