#!/usr/bin/env python3
"""Ethereal's own tuner's printed weights as a gradtune manifest.

    engines/ethereal/tuner-weights.py MANIFEST.json TUNER_OUTPUT > weights.json

`make tune`'s binary prints every term (`printParameters`: `const int PawnValue = S(82, 144);`,
arrays as `{ S(..), ... }`) every REPORTING epochs, in the order of its EXECUTE_ON_TERMS, which
is the manifest's order (engines/ethereal/README.md). This takes the last complete block of
TUNER_OUTPUT (the tuner's stdout, any line breaks and carriage returns), checks its names and
element counts against MANIFEST.json's parameters, and prints the manifest with those values,
so that `tune eval`, `tune verify --weights` and `GradtuneWeights` read Ethereal's result.
Exits with status 1, naming what differs, when the block does not match the manifest.
"""
import json
import re
import sys


def elements(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def nest(pairs, shape):
    if not shape:
        return pairs[0]
    step = elements(shape[1:])
    return [nest(pairs[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def main():
    if len(sys.argv) != 3:
        sys.exit(f"usage: {sys.argv[0]} MANIFEST.json TUNER_OUTPUT")
    manifest_path, output_path = sys.argv[1], sys.argv[2]
    with open(manifest_path) as f:
        manifest = json.load(f)
    with open(output_path, errors="replace") as f:
        text = f.read()
    params = manifest["params"]
    first, last = params[0]["name"], params[-1]["name"]
    start = text.rfind(f"const int {first}")
    if start < 0:
        sys.exit(f"{output_path}: no printed block (no `const int {first}`)")
    end = text.find(";", text.find(f"const int {last}", start))
    if end < 0:
        sys.exit(f"{output_path}: the last block is cut short (no `const int {last} ...;`)")
    block = text[start:end + 1]
    decls = re.findall(r"const int (\w+)[^=]*=(.*?);", block, re.S)
    names = [p["name"] for p in params]
    if [d[0] for d in decls] != names:
        got = [d[0] for d in decls]
        diff = next(i for i in range(min(len(got), len(names)) + 1)
                    if i >= len(got) or i >= len(names) or got[i] != names[i])
        sys.exit(f"{output_path}: declaration {diff} is "
                 f"{got[diff] if diff < len(got) else 'missing'}, the manifest says "
                 f"{names[diff] if diff < len(names) else 'nothing'}")
    for p, (name, body) in zip(params, decls):
        pairs = [[int(a), int(b)] for a, b in re.findall(r"S\(\s*(-?\d+),\s*(-?\d+)\)", body)]
        want = elements(p.get("shape", []))
        if len(pairs) != want:
            sys.exit(f"{output_path}: {name} has {len(pairs)} values, the manifest's shape "
                     f"{p.get('shape', [])} says {want}")
        p["value"] = nest(pairs, p.get("shape", []))
    json.dump(manifest, sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
