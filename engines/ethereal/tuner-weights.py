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
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "lib"))
from printed_weights import fill, load, write  # noqa: E402


def values(body):
    """The `S(mg, eg)` pairs of one declaration's body."""
    return [[int(a), int(b)] for a, b in re.findall(r"S\(\s*(-?\d+),\s*(-?\d+)\)", body)]


def main():
    manifest, text, output_path = load(sys.argv)
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
    fill(manifest, decls, values, output_path)
    write(manifest)


if __name__ == "__main__":
    main()
