#!/usr/bin/env python3
"""Writes engines/4ku/manifest.json from the pinned 4ku snapshot's shipped weights.

    python3 engines/4ku/gen_manifest.py SNAPSHOT_SRC_MAIN_CPP > engines/4ku/manifest.json

Reads the `S(mg, eg)` initialisers of the tuned arrays in 4ku's src/main.cpp (unpacked from
../shared/engines/4ku-917a087.tar.zst) and writes them in gradtune's manifest format, in the
order and shapes of the trace indices that gradtune.patch's `trace` command uses.
"""
import json
import re
import sys

# name, shape: the order of gradtune.patch's trace indices (T_material = 0, ...).
PARAMS = [
    ("material", [6]),
    ("pst_rank", [6, 8]),
    ("pst_file", [6, 8]),
    ("open_files", [2, 5]),
    ("mobilities", [5]),
    ("king_attacks", [5]),
    ("pawn_protection", [6]),
    ("pawn_threat_penalty", [6]),
    ("passers", [4]),
    ("pawn_passed_protected", []),
    ("pawn_doubled_penalty", []),
    ("pawn_phalanx", []),
    ("pawn_passed_blocked_penalty", [4]),
    ("pawn_passed_king_distance", [2]),
    ("bishop_pair", []),
    ("king_shield", [2]),
]


def values(src, name, count):
    m = re.search(r"\bi32 %s(\[\])? = \{?(.*?)\}?;" % name, src, re.S)
    if not m:
        sys.exit(f"gen_manifest.py: `{name}` not found in the source")
    body = re.sub(r"//[^\n]*", "", m.group(2))
    out = []
    for item in re.findall(r"S\(\s*-?\d+\s*,\s*-?\d+\s*\)|-?\d+", body):
        pair = re.fullmatch(r"S\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)", item)
        if pair:
            out.append([int(pair.group(1)), int(pair.group(2))])
        elif int(item) == 0:
            out.append([0, 0])
        else:
            sys.exit(f"gen_manifest.py: `{name}`: cannot read {item!r}")
    if len(out) != count:
        sys.exit(f"gen_manifest.py: `{name}`: {len(out)} values, expected {count}")
    return out


def nest(flat, shape):
    if len(shape) <= 1:
        return flat if shape else flat[0]
    row = len(flat) // shape[0]
    return [nest(flat[i * row:(i + 1) * row], shape[1:]) for i in range(shape[0])]


def main():
    src = open(sys.argv[1]).read()
    params = []
    for name, shape in PARAMS:
        n = 1
        for d in shape:
            n *= d
        params.append({"name": name, "shape": shape, "value": nest(values(src, name, n), shape)})
    manifest = {
        "format": "gradtune-manifest",
        "version": 1,
        "engine": "4ku",
        "_source": "4ku 917a087 (github.com/kz04px/4ku), src/main.cpp's shipped weights; "
        "traced by engines/4ku/gradtune.patch; see engines/4ku/README.md",
        "score": "white",
        "phase": {"max": 24, "clamped": False},
        "scale": {"max": 128},
        "params": params,
        # Exactly flat: every piece adds material[p] and 8 x its rank and file entries, so a
        # table's mean moves into the value (not the king's: material[5] has no effect; no
        # pawn stands on rank 1 or 8).
        "centre": [
            {"table": "pst_rank", "into": "material", "scale": 8, "groups": [0, 1, 2, 3, 4],
             "exclude": ["pst_rank[0][0]", "pst_rank[0][7]"]},
            {"table": "pst_file", "into": "material", "scale": 8, "groups": [0, 1, 2, 3, 4]},
        ],
    }
    text = json.dumps(manifest, indent=1)
    # One element a line keeps the file readable.
    text = re.sub(r"\[\s+(-?\d+),\s+(-?\d+)\s+\]", r"[\1, \2]", text)
    print(text)


main()
