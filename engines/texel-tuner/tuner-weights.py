#!/usr/bin/env python3
"""texel-tuner's printed 4ku weights as a gradtune manifest.

    engines/texel-tuner/tuner-weights.py MANIFEST.json TUNER_OUTPUT > weights.json

texel-tuner built with 4ku's evaluation (engines/texel-tuner/build.sh) prints every parameter
every 100 epochs (`FourkuEval::print_parameters`: `const i32 material[] = {S(89, 147), ...};`,
a pair printed as `0` when both halves round to 0, `pst_rank`/`pst_file` with `// P` comments
after each row), after moving the tables' means into `material` (which leaves every evaluation
unchanged), preceded by `max_material`, which is not a parameter. The parameters come in
4ku's order, which is the order and naming of engines/4ku/manifest.json. This takes the last
complete block of TUNER_OUTPUT (the tuner's stdout), checks its names and element counts
against MANIFEST.json's parameters, and prints the manifest with those values, so that
`tune eval` and `tune lbfgs --weights` read texel-tuner's result. Exits with status 1, naming
what differs, when the block does not match the manifest.
"""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "lib"))
from printed_weights import fill, load, write  # noqa: E402


def values(body):
    """The pairs of one declaration's body: `S(a, b)` or `0`, comments removed."""
    body = re.sub(r"//[^\n]*", "", body)
    out = []
    for item in re.findall(r"S\(\s*-?\d+\s*,\s*-?\d+\s*\)|-?\d+", body):
        m = re.match(r"S\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)", item)
        if m:
            out.append([int(m.group(1)), int(m.group(2))])
        elif int(item) == 0:
            out.append([0, 0])
        else:
            raise ValueError(f"a bare value {item} (only 0 is printed bare)")
    return out


def main():
    manifest, text, output_path = load(sys.argv)
    params = manifest["params"]
    last = params[-1]["name"]
    start = text.rfind("const i32 max_material")
    if start < 0:
        sys.exit(f"{output_path}: no printed block (no `const i32 max_material`)")
    end_decl = text.find(f"const i32 {last}", start)
    end = text.find(";", end_decl) if end_decl >= 0 else -1
    if end < 0:
        sys.exit(f"{output_path}: the last block is cut short (no `const i32 {last} ...;`)")
    block = text[start:end + 1]
    decls = re.findall(r"const i32 (\w+)[^=]*=(.*?);", block, re.S)
    decls = [d for d in decls if d[0] != "max_material"]
    fill(manifest, decls, values, output_path)
    write(manifest)


if __name__ == "__main__":
    main()
