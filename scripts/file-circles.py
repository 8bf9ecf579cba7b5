#!/usr/bin/env python3
"""List the circles of files inside each crate (issue 41, item 6).

Usage: scripts/file-circles.py [--edges] [CRATE_DIR ...]
       (default: every crates/*/ of the workspace; run from anywhere)

For each crate root (`src/lib.rs`, `src/main.rs`, `src/bin/*.rs`) the script walks the module
tree the `mod name;` lines declare (`name.rs` or `name/mod.rs`, and `mod name { ... }` blocks
inside a file), then builds the file-level import graph: file A uses file B when a path in A
(in a `use` line, brace groups expanded, or inline in code such as `crate::x::f()`) starting at
`crate::`, `super::`, `self::` or the name of one of A's own child modules resolves to a module
in B, the deepest module the path names (`crate::Item` re-exported by `lib.rs` is a use of
`lib.rs`). A `mod child;` line alone is not a use: a parent that declares a child does not
depend on it unless it also names it, so a child that uses `super::` is a circle only if the
parent uses the child too. Test modules (`#[cfg(test)] mod tests { ... }`) count: they are
part of the file. Comments, strings and `$crate` paths are ignored.

It prints, per crate, the strongly connected components of more than one file (a circle) and,
with `--edges`, the uses inside each. The exit status is 0 when no crate outside `ALLOWED`
has a circle, 1 otherwise. Shadowing and `#[path]` attributes are not modelled (the crates'
`src/` do not use `#[path]`).
"""

import re
import sys
from pathlib import Path

# Crates whose circles are known and worked on elsewhere: listed, but not a failure (none now).
ALLOWED = set()

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
KEYWORD_STARTS = {"crate", "super", "self"}


def strip_code(text):
    """Blank out comments, strings and char literals, keeping offsets and newlines."""
    out = list(text)
    i, n = 0, len(text)

    def blank(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            blank(i, j)
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and not re.match(r"\w", text[i - 1:i] or " "):
            m = re.match(r'r(#*)"', text[i:])
            close = '"' + m.group(1)
            j = text.find(close, i + len(m.group(0)))
            j = n if j < 0 else j + len(close)
            blank(i, j)
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            blank(i, j + 1)
            i = j + 1
        elif c == "'":
            # A char literal ('a', '\n', '\u{1F}'), not a lifetime ('a).
            m = re.match(r"'(\\u\{[0-9a-fA-F]+\}|\\.|[^\\'])'", text[i:])
            if m:
                blank(i, i + len(m.group(0)))
                i += len(m.group(0))
            else:
                i += 1
        else:
            i += 1
    return "".join(out)


class Module:
    """One module: its path from the crate root, the file holding it, its children, the names
    it defines and the names its `use` lines bring in (alias -> path, and glob paths)."""

    def __init__(self, path, file):
        self.path = path
        self.file = file
        self.children = {}
        self.defined = set()
        self.aliases = {}
        self.globs = []


def child_file(parent_file, parent_is_dir_owner, name):
    """The file of `mod name;` declared in `parent_file`, or None."""
    base = parent_file.parent if parent_is_dir_owner else parent_file.with_suffix("")
    for cand in (base / f"{name}.rs", base / name / "mod.rs"):
        if cand.exists():
            return cand
    return None


def brace_blocks(code, pattern):
    """(start, end, match) of every block `pattern` opens (the pattern ends at its `{`), end
    one past the closing brace."""
    blocks = []
    for m in re.finditer(pattern, code):
        depth, j = 1, m.end()
        while j < len(code) and depth:
            depth += {"{": 1, "}": -1}.get(code[j], 0)
            j += 1
        blocks.append((m.start(), j, m))
    return blocks


def inline_spans(code):
    """(start, end, name) of every `mod name { ... }` block, nested ones included."""
    return [(a, b, m.group(1)) for a, b, m in brace_blocks(code, rf"\bmod\s+({IDENT})\s*\{{")]


def module_at(file_info, offset):
    """The module path suffix (inline modules) enclosing `offset` in a file."""
    inner = [s for s in file_info["spans"] if s[0] <= offset < s[1]]
    inner.sort()
    return [s[2] for s in inner]


DEFINITION = re.compile(
    rf"\b(?:fn|struct|enum|trait|type|const|static|union)\s+({IDENT})|macro_rules!\s*({IDENT})"
)


def load_tree(root_file, files):
    """Walk the module tree from a crate root; fill `files` (path -> info); return root."""
    root = Module([], root_file)

    def find_inline(module, info, offset, skip_own=False):
        names = module_at(info, offset)
        for name in names[:-1] if skip_own else names:
            module = module.children[name]
        return module

    def visit(module, file, dir_owner):
        code = strip_code(file.read_text())
        spans = inline_spans(code)
        info = {"module": module, "code": code, "spans": spans}
        files[file] = info
        for start, _, name in sorted(spans):
            parent = find_inline(module, info, start, skip_own=True)
            parent.children.setdefault(name, Module(parent.path + [name], file))
        for m in DEFINITION.finditer(code):
            find_inline(module, info, m.start()).defined.add(m.group(1) or m.group(2))
        for offset, segs, alias in use_trees(code):
            owner = find_inline(module, info, offset)
            if alias == "*":
                owner.globs.append(segs)
            elif alias:
                owner.aliases[alias] = segs
        for m in re.finditer(rf"\bmod\s+({IDENT})\s*;", code):
            if any(s[0] <= m.start() < s[1] for s in spans):
                continue
            name = m.group(1)
            target = child_file(file, dir_owner, name)
            if target is None:
                continue
            child = Module(module.path + [name], target)
            module.children[name] = child
            visit(child, target, target.name == "mod.rs")

    visit(root, root_file, True)
    return root


def expand_use(tree):
    """Expand a use tree (`a::{self, b, c::{d as e}, f::*}`) into (segments, bound name) pairs;
    the bound name is `*` for a glob."""
    tree = re.sub(r"\s+as\s+", " as ", tree.strip())
    tree = re.sub(r"\s*(::|\{|\}|,)\s*", r"\1", tree)

    def split_top(s):
        parts, depth, cur = [], 0, ""
        for ch in s:
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
                continue
            depth += {"{": 1, "}": -1}.get(ch, 0)
            cur += ch
        if cur.strip():
            parts.append(cur)
        return parts

    def walk(s, prefix):
        s = s.strip().lstrip(":")
        if not s:
            return []
        brace = s.find("{")
        if brace >= 0:
            head = [p for p in s[:brace].split("::") if p]
            inner = s[brace + 1:s.rfind("}")]
            out = []
            for part in split_top(inner):
                out += walk(part, prefix + head)
            return out
        alias = None
        if " as " in s:
            s, alias = s.split(" as ")
        segs = prefix + [p for p in s.split("::") if p]
        if segs and segs[-1] == "*":
            return [(segs[:-1], "*")]
        if segs and segs[-1] == "self":
            segs = segs[:-1]
        if not segs:
            return []
        return [(segs, alias or segs[-1])]

    return walk(tree, [])


def use_trees(code):
    """(offset, segments, bound name) of each path in the file's `use` lines."""
    for m in re.finditer(r"\buse\s+([^;]+);", code):
        for segs, alias in expand_use(m.group(1)):
            yield m.start(), segs, alias


def use_paths(code):
    """(offset, segments) of each path a file names: `use` trees and inline paths."""
    found = [(offset, segs) for offset, segs, _ in use_trees(code)]
    taken = [(m.start(), m.end()) for m in re.finditer(r"\buse\s+([^;]+);", code)]
    for m in re.finditer(rf"(?<![\w$:])({IDENT}(?:\s*::\s*{IDENT})+)", code):
        if any(a <= m.start() < b for a, b in taken):
            continue
        found.append((m.start(), re.split(r"\s*::\s*", m.group(1))))
    return found


def find_module(root, path):
    mod = root
    for p in path:
        mod = mod.children.get(p)
        if mod is None:
            return None
    return mod


def resolve(root, here, segs, depth=0):
    """The module whose file defines what a path names from module path `here`, or None when
    the path leaves the crate. `use` aliases and globs are followed to the defining module."""
    if not segs or depth > 20:
        return None
    first = segs[0]
    current = find_module(root, here)
    if first == "crate":
        base, rest = [], segs[1:]
    elif first in ("super", "self"):
        base, rest = list(here), segs
        while rest and rest[0] in ("super", "self"):
            if rest[0] == "super":
                if not base:
                    return None
                base.pop()
            rest = rest[1:]
    elif current is not None and first in current.children:
        base, rest = list(here), segs
    elif current is not None and first in current.aliases and current.aliases[first] != [first]:
        return resolve(root, here, current.aliases[first] + segs[1:], depth + 1)
    else:
        return None
    mod = find_module(root, base)
    if mod is None:
        return None
    while rest and rest[0] in mod.children:
        mod, rest = mod.children[rest[0]], rest[1:]
    if not rest or rest[0] in mod.defined:
        return mod
    name = rest[0]
    if name in mod.aliases and mod.aliases[name] != [name]:
        target = resolve(root, mod.path, mod.aliases[name] + rest[1:], depth + 1)
        return target or mod
    for glob in mod.globs:
        target = resolve(root, mod.path, glob + rest, depth + 1)
        if target is not None and (rest[0] in target.defined or rest[0] in target.children):
            return target
    return mod


def graph(root_file):
    """The file graph of one crate root: (files, edges as {src: {dst: [example paths]}})."""
    files = {}
    root = load_tree(root_file, files)
    edges = {f: {} for f in files}
    for file, info in files.items():
        for offset, segs in use_paths(info["code"]):
            here = info["module"].path + module_at(info, offset)
            target = resolve(root, here, segs)
            if target is not None and target.file != file:
                edges[file].setdefault(target.file, []).append("::".join(segs))
    return files, edges


def components(nodes, edges):
    """Tarjan's strongly connected components (iterative)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(edges[nxt]))))
                    advanced = True
                    break
                if nxt in on:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                out.append(comp)
    return out


def crate_roots(crate):
    src = crate / "src"
    roots = [p for p in (src / "lib.rs", src / "main.rs") if p.exists()]
    roots += sorted((src / "bin").glob("*.rs")) if (src / "bin").is_dir() else []
    return roots


def main(argv):
    show_edges = "--edges" in argv
    args = [a for a in argv if a != "--edges"]
    workspace = Path(__file__).resolve().parent.parent
    crates = [Path(a) for a in args] or sorted(p for p in (workspace / "crates").iterdir() if p.is_dir())
    failing = False
    for crate in crates:
        circles = []
        nfiles = 0
        for root_file in crate_roots(crate):
            files, edges = graph(root_file)
            nfiles += len(files)
            for comp in components(list(files), edges):
                if len(comp) > 1:
                    circles.append((root_file, sorted(comp), edges))
        note = " (allowed)" if circles and crate.name in ALLOWED else ""
        print(f"{crate.name}: {nfiles} files, {len(circles)} circle(s){note}")
        for root_file, comp, edges in circles:
            src = root_file.parent
            names = [str(f.relative_to(src)) for f in comp]
            print(f"  [{len(comp)} files] " + " ".join(names))
            if show_edges:
                for f in comp:
                    for g, why in sorted(edges[f].items()):
                        if g in comp:
                            print(f"    {f.relative_to(src)} -> {g.relative_to(src)}: {', '.join(sorted(set(why))[:3])}")
        if circles and crate.name not in ALLOWED:
            failing = True
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
