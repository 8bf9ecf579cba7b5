#!/usr/bin/env python3
# Diagnostics of a bootstrap ladder's psqt weights (docs/results.md, "What stops the ladder").
#
#   scripts/ladder-weights.py values FILE...              effective piece values of each file
#   scripts/ladder-weights.py mean OUT.json FILE...       the mean of the files' weights
#   scripts/ladder-weights.py scale IN.json OUT.json S    every weight times S
#   scripts/ladder-weights.py material IN.json REF.json OUT.json S
#       IN's tables with REF's effective piece values times S (material.* set so that
#       material + table mean = S * REF's material + REF's table mean)
#
# The effective value of a piece in a phase is its material weight plus the mean of its table
# (pawns over ranks 2 to 7), which is what a piece is worth on an average square.
import json
import sys

PIECES = ["pawn", "knight", "bishop", "rook", "queen"]
PHASES = ["mg", "eg"]


def load(path):
    with open(path) as f:
        return json.load(f)


def table_mean(params, piece, phase):
    keys = [k for k in params if k.startswith(f"pst.{piece}.{phase}.")]
    if piece == "pawn":
        keys = [k for k in keys if k[-1] not in "18"]
    if not keys:
        sys.exit(f"no table pst.{piece}.{phase} in the weights (psqt or full weights expected)")
    return sum(params[k] for k in keys) / len(keys)


def effective(params):
    return {
        (pc, ph): params[f"material.{pc}.{ph}"] + table_mean(params, pc, ph)
        for pc in PIECES
        for ph in PHASES
    }


def save(doc, path):
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__ or "usage: see the comment at the top of this file")
    cmd, args = argv[1], argv[2:]
    if cmd == "values":
        cols = [f"{pc} {ph}" for pc in PIECES for ph in PHASES]
        print("| weights | " + " | ".join(cols) + " |")
        print("|---" * (len(cols) + 1) + "|")
        for path in args:
            e = effective(load(path)["params"])
            row = [f"{e[(pc, ph)]:.0f}" for pc in PIECES for ph in PHASES]
            print(f"| {path} | " + " | ".join(row) + " |")
    elif cmd == "mean":
        out, files = args[0], args[1:]
        docs = [load(p) for p in files]
        doc = docs[0]
        doc["params"] = {
            k: sum(d["params"][k] for d in docs) / len(docs) for k in doc["params"]
        }
        save(doc, out)
    elif cmd == "scale":
        src, out, s = args[0], args[1], float(args[2])
        doc = load(src)
        doc["params"] = {k: v * s for k, v in doc["params"].items()}
        save(doc, out)
    elif cmd == "material":
        src, ref, out, s = args[0], args[1], args[2], float(args[3])
        doc, r = load(src), load(ref)["params"]
        p = doc["params"]
        for pc in PIECES:
            for ph in PHASES:
                want = s * (r[f"material.{pc}.{ph}"] + table_mean(r, pc, ph))
                p[f"material.{pc}.{ph}"] = want - table_mean(p, pc, ph)
        save(doc, out)
    else:
        sys.exit(f"unknown command `{cmd}` (values, mean, scale, material)")


if __name__ == "__main__":
    main(sys.argv)
