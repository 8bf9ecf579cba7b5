#!/usr/bin/env python3
"""Check that every relative link in the project's Markdown resolves.

Usage: scripts/check-links.py [FILE.md ...]

Without arguments it checks README.md, docs/*.md and experiments/*.md. A link is
`[text](target)` or `![alt](target)` outside code (fenced blocks and `inline code` are
skipped). External links (a scheme such as https:, or mailto:) are not fetched. A relative
target must name an existing file or directory, relative to the Markdown file's folder; a
`#fragment` on a Markdown target must match one of its headings (GitHub's anchor rule:
lower case, punctuation but `-` and `_` dropped, spaces to `-`). A link to `../shared/...`
(the shared data folder beside the checkout) is not checked.

Exit status 1 and one line per broken link (`FILE:LINE: target: why`), else 0.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1)(?!\n\s*\n)[\s\S])+?\1")
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$", re.M)
# Links that point outside the repository on purpose: the shared folder beside it.
NOT_CHECKED = ("../shared/", "../../shared/")


def default_files():
    files = [ROOT / "README.md"]
    files += sorted((ROOT / "docs").glob("*.md"))
    files += sorted((ROOT / "experiments").glob("*.md"))
    return [f for f in files if f.exists()]


def anchor(heading):
    """GitHub's anchor for a heading text."""
    text = re.sub(r"`", "", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path, cache={}):
    """Every heading anchor of a Markdown file (repeated headings get -1, -2, ...)."""
    if path not in cache:
        seen = {}
        found = set()
        in_fence = False
        for line in path.read_text(encoding="utf-8").splitlines():
            if FENCE.match(line):
                in_fence = not in_fence
                continue
            m = None if in_fence else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if m:
                a = anchor(m.group(1))
                n = seen.get(a, 0)
                seen[a] = n + 1
                found.add(a if n == 0 else f"{a}-{n}")
        cache[path] = found
    return cache[path]


def links(path):
    """(line number, target) of every link outside code, link texts spanning lines included."""
    lines = []
    in_fence = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            in_fence = not in_fence
            lines.append("")
        else:
            lines.append("" if in_fence else line)
    text = "\n".join(lines)
    # Inline code (never across a blank line), kept as blanks so that line numbers hold.
    text = INLINE_CODE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    for m in LINK.finditer(text):
        yield text.count("\n", 0, m.start()) + 1, m.group(1)
    for m in REFERENCE.finditer(text):
        yield text.count("\n", 0, m.start()) + 1, m.group(1)


def check(path):
    problems = []
    for number, target in links(path):
        if SCHEME.match(target) or target.startswith(NOT_CHECKED):
            continue
        file_part, _, fragment = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        where = f"{path.relative_to(ROOT)}:{number}: {target}"
        if not dest.exists():
            problems.append(f"{where}: no such file")
        elif fragment and dest.suffix == ".md" and fragment not in anchors(dest):
            problems.append(f"{where}: no heading #{fragment} in {dest.name}")
    return problems


def main(argv):
    files = [Path(a).resolve() for a in argv[1:]] or default_files()
    problems = [p for f in files for p in check(f)]
    for p in problems:
        print(p)
    print(f"checked {len(files)} files: {len(problems)} broken links", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
