#!/usr/bin/env python3
"""List the functions longer than 80 lines (issue 41, item 5).

Usage: scripts/long-functions.py [--max N] [--tests] [PATH ...]
       (default: every crates/*/src of the workspace; run from anywhere)

A function's length is its lines from the line of `fn` to the line of its closing brace,
both included (blank and comment lines count: they are what a reader reads). Functions
without a body (trait declarations) are skipped; a function inside another counts for
itself and inside its parent. Test code (`#[cfg(test)] mod ... { }` blocks, and `tests/`
directories unless `--tests`) is left out.

A function whose doc comment or comments just above it say `hot loop`, `hot path` or `One
function on purpose` (the house's phrase: "One function on purpose: the search's hot loop
...") is listed apart as exempt: the search's and the evaluation's hot loops may stay long
when they say why. The list shows them so that a reader can judge each reason.

Functions under the paths in `ALLOWED` (none now) are listed apart too.

Prints `LINES path:line name` per function over the limit, longest first, then the exempt
and the allowed ones and the counts. Exit status 0 when none is left over the limit outside
those, 1 otherwise.
"""

import importlib.util
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("file_circles", HERE / "file-circles.py")
_fc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_fc)
strip_code = _fc.strip_code

# What the comment above a long function says when it is long on purpose (the house's phrase
# for a hot loop: "One function on purpose: the search's hot loop ...").
EXEMPT_MARKS = ("hot loop", "hot path", "one function on purpose")

# Worked on elsewhere (the tapered crate, issue 41's other engineer): listed apart, not a failure.
ALLOWED: tuple = ()  # none since tapered's recording functions were split

FN = re.compile(r"\bfn\s+([A-Za-z_][A-Za-z0-9_]*)")


def body_end(code, start):
    """The offset of the brace closing the body of the `fn` whose name ends at `start`, or
    None when it has none (a `;` before any `{` outside parentheses and brackets)."""
    depth, i, n = 0, start, len(code)
    while i < n:
        c = code[i]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == ";" and depth <= 0:
            return None
        elif c == "{" and depth <= 0:
            braces, j = 1, i + 1
            while j < n and braces:
                braces += {"{": 1, "}": -1}.get(code[j], 0)
                j += 1
            return j - 1
        i += 1
    return None


def test_spans(code):
    """(start, end) of `#[cfg(test)]` module blocks."""
    pattern = r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{"
    return [(a, b) for a, b, _ in _fc.brace_blocks(code, pattern)]


def says_hot_loop(lines, fn_line):
    """Whether the comment and attribute lines just above line `fn_line` (0-based) say the
    function is long on purpose ([`EXEMPT_MARKS`])."""
    k = fn_line - 1
    text = []
    while k >= 0:
        s = lines[k].strip()
        if s.startswith("//") or s.startswith("#[") or s.startswith("#!["):
            text.append(s)
            k -= 1
            continue
        break
    words = " ".join(re.sub(r"^[/!]+", "", t).strip() for t in reversed(text)).lower()
    return any(mark in words for mark in EXEMPT_MARKS)


def functions(path):
    """(lines, line number, name, exempt) of every function with a body in a file."""
    text = path.read_text()
    code = strip_code(text)
    lines = text.split("\n")
    tests = test_spans(code)
    out = []
    for m in FN.finditer(code):
        if any(a <= m.start() < b for a, b in tests):
            continue
        end = body_end(code, m.end())
        if end is None:
            continue
        first = code.count("\n", 0, m.start())
        last = code.count("\n", 0, end)
        out.append((last - first + 1, first + 1, m.group(1), says_hot_loop(lines, first)))
    return out


def main(argv):
    limit, with_tests, paths = 80, False, []
    it = iter(argv)
    for a in it:
        if a == "--max":
            limit = int(next(it))
        elif a == "--tests":
            with_tests = True
        else:
            paths.append(Path(a).resolve())
    root = HERE.parent
    if not paths:
        paths = sorted((root / "crates").glob("*/src")) + (
            sorted((root / "crates").glob("*/tests")) if with_tests else []
        )
    files = []
    for p in paths:
        files += [p] if p.is_file() else sorted(p.rglob("*.rs"))
    long, exempt, allowed = [], [], []
    for f in files:
        if not with_tests and "tests" in f.relative_to(root).parts:
            continue
        for n, line, name, hot in functions(f):
            where = f"{f.relative_to(root)}:{line}"
            if n <= limit:
                continue
            if hot:
                exempt.append((n, where, name))
            elif where.startswith(ALLOWED):
                allowed.append((n, where, name))
            else:
                long.append((n, where, name))
    for n, where, name in sorted(long, reverse=True):
        print(f"{n:4} {where} {name}")
    for n, where, name in sorted(exempt, reverse=True):
        print(f"{n:4} {where} {name} (exempt: long on purpose)")
    for n, where, name in sorted(allowed, reverse=True):
        print(f"{n:4} {where} {name} (allowed: worked on elsewhere)")
    print(
        f"{len(long)} function(s) over {limit} lines, {len(exempt)} exempt (long on purpose), "
        f"{len(allowed)} allowed"
    )
    return 1 if long else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
