"""The part every reader of an engine tuner's printed weights shares (engines/*/tuner-weights.py).

A tuner prints each parameter as a C declaration (`const int PawnValue = S(82, 144);`, arrays
as `{ S(..), ... }`), in the order of the engine's manifest. A reader finds the last complete
block in the tuner's output and hands its declarations, `(name, body)` in order, to
[`fill`], which checks their names and element counts against the manifest and returns the
manifest with the printed values.
"""
import json
import sys


def elements(shape):
    """The number of elements of a parameter of `shape`."""
    n = 1
    for d in shape:
        n *= d
    return n


def nest(pairs, shape):
    """A flat list of `(mg, eg)` pairs as nested lists of `shape`."""
    if not shape:
        return pairs[0]
    step = elements(shape[1:])
    return [nest(pairs[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def fill(manifest, decls, values, origin):
    """`manifest` with each parameter's value read from the declaration of its name.

    `decls`: `(name, body)` in printed order; `values(body)`: the body's pairs (raising
    ValueError on what it cannot read); `origin`: the file named in messages. Exits with
    status 1, naming what differs, when the names or the element counts do not match.
    """
    params = manifest["params"]
    names = [p["name"] for p in params]
    got = [d[0] for d in decls]
    if got != names:
        diff = next(i for i in range(min(len(got), len(names)) + 1)
                    if i >= len(got) or i >= len(names) or got[i] != names[i])
        sys.exit(f"{origin}: declaration {diff} is "
                 f"{got[diff] if diff < len(got) else 'missing'}, the manifest says "
                 f"{names[diff] if diff < len(names) else 'nothing'}")
    for p, (name, body) in zip(params, decls):
        try:
            pairs = values(body)
        except ValueError as e:
            sys.exit(f"{origin}: {name}: {e}")
        want = elements(p.get("shape", []))
        if len(pairs) != want:
            sys.exit(f"{origin}: {name} has {len(pairs)} values, the manifest's shape "
                     f"{p.get('shape', [])} says {want}")
        p["value"] = nest(pairs, p.get("shape", []))
    return manifest


def load(argv):
    """The manifest and the tuner's output named on the command line (`MANIFEST.json
    TUNER_OUTPUT`), with the output's path for messages."""
    if len(argv) != 3:
        sys.exit(f"usage: {argv[0]} MANIFEST.json TUNER_OUTPUT")
    manifest_path, output_path = argv[1], argv[2]
    with open(manifest_path) as f:
        manifest = json.load(f)
    with open(output_path, errors="replace") as f:
        text = f.read()
    return manifest, text, output_path


def write(manifest):
    """The filled manifest on standard output."""
    json.dump(manifest, sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")
