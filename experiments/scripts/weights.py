#!/usr/bin/env python3
"""Derived psqt/full weights files for the experiments of experiments/README.md.

  experiments/scripts/weights.py values FILE...                effective piece values of each file (markdown)
  experiments/scripts/weights.py mean OUT.json FILE...         the mean of the files' weights
  experiments/scripts/weights.py scale IN.json OUT.json S      the evaluation times S: every weight times S
      (`full`: the phase weights kept, king_safety.quadratic divided by S, so that the
      penalty d + q d|d| / 100 of S d is S times that of d)
  experiments/scripts/weights.py material IN.json REF.json OUT.json S
      IN's tables with REF's effective piece values times S (material.* set so that
      material + table mean = S * (REF's material + REF's table mean))
  experiments/scripts/weights.py blur IN.json OUT.json A
      each table entry becomes (1 - A) * itself + A * the mean of its king-step neighbours in
      the same table (pawns' ranks 1 and 8 left out)
  experiments/scripts/weights.py shape IN.json REF.json OUT.json S PIECE...
      IN with the tables of each PIECE (pawn ... king, both phases) shaped as REF's: each entry
      IN's table mean + S * (REF's entry - REF's table mean), so IN's piece values are kept
  experiments/scripts/weights.py contrast IN.json OUT.json F
      each table entry moved F times as far from its table's mean (F > 1 sharpens, F < 1
      flattens; the mean, so the effective piece values, kept; pawns' ranks 1 and 8 left out)

The effective value of a piece in a phase is its material weight plus the mean of its table
(pawns over ranks 2 to 7): what the piece is worth on an average square.
"""
import json
import sys

PIECES = ["pawn", "knight", "bishop", "rook", "queen"]
PHASES = ["mg", "eg"]
FILES = "abcdefgh"
# (file, rank) steps, in the order whose sums made the blurred files of experiments/README.md
KING_STEPS = [(-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1)]
# (number of arguments, at least or exactly) of each command
ARGS = {"values": (1, "+"), "mean": (2, "+"), "scale": (3, "="), "material": (4, "="), "blur": (3, "="), "contrast": (3, "="), "shape": (5, "+")}


def load(path):
    with open(path) as f:
        return json.load(f)


def save(doc, path):
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def off_board(piece, rank):
    """Pawn squares on ranks 1 and 8 (index 0 and 7) are not part of a pawn table."""
    return piece == "pawn" and rank in (0, 7)


def table_keys(params, piece, phase):
    """The names of a table's entries on playable squares (pawns' ranks 1 and 8 left out)."""
    keys = [k for k in params if k.startswith(f"pst.{piece}.{phase}.")]
    keys = [k for k in keys if not off_board(piece, int(k[-1]) - 1)]
    if not keys:
        sys.exit(f"error: no table pst.{piece}.{phase} in the weights (psqt or full weights expected)")
    return keys


def table_mean(params, piece, phase):
    keys = table_keys(params, piece, phase)
    return sum(params[k] for k in keys) / len(keys)


def effective(params):
    return {(pc, ph): params[f"material.{pc}.{ph}"] + table_mean(params, pc, ph) for pc in PIECES for ph in PHASES}


def blurred(params, alpha):
    key = lambda pc, ph, f, r: f"pst.{pc}.{ph}.{FILES[f]}{r + 1}"
    out = dict(params)
    for pc in PIECES + ["king"]:
        for ph in PHASES:
            for f in range(8):
                for r in range(8):
                    if off_board(pc, r):
                        continue
                    near = [
                        params[key(pc, ph, f + df, r + dr)]
                        for df, dr in KING_STEPS
                        if 0 <= f + df < 8 and 0 <= r + dr < 8 and not off_board(pc, r + dr)
                    ]
                    k = key(pc, ph, f, r)
                    out[k] = (1 - alpha) * params[k] + alpha * sum(near) / len(near)
    return out


def contrasted(params, f):
    out = dict(params)
    for pc in PIECES + ["king"]:
        for ph in PHASES:
            m = table_mean(params, pc, ph)
            for k in table_keys(params, pc, ph):
                out[k] = m + f * (params[k] - m)
    return out


def scaled(name, value, s):
    """A weight of a file whose evaluation is multiplied by s."""
    if name.startswith("phase."):
        return value
    if name == "king_safety.quadratic":
        return value / s
    return value * s


def main(argv):
    if len(argv) < 2 or argv[1] not in ARGS:
        sys.exit(__doc__)
    cmd, args = argv[1], argv[2:]
    n, kind = ARGS[cmd]
    if len(args) < n or (kind == "=" and len(args) != n):
        sys.exit(f"error: `{cmd}` takes {'at least ' if kind == '+' else ''}{n} arguments\n\n{__doc__}")
    if cmd == "values":
        cols = [f"{pc} {ph}" for pc in PIECES for ph in PHASES]
        print("| weights | " + " | ".join(cols) + " |")
        print("|---" * (len(cols) + 1) + "|")
        for path in args:
            e = effective(load(path)["params"])
            print(f"| {path} | " + " | ".join(f"{e[(pc, ph)]:.0f}" for pc in PIECES for ph in PHASES) + " |")
    elif cmd == "mean":
        out, docs = args[0], [load(p) for p in args[1:]]
        doc = docs[0]
        doc["params"] = {k: sum(d["params"][k] for d in docs) / len(docs) for k in doc["params"]}
        save(doc, out)
    elif cmd == "scale":
        doc = load(args[0])
        s = float(args[2])
        doc["params"] = {k: scaled(k, v, s) for k, v in doc["params"].items()}
        save(doc, args[1])
    elif cmd == "material":
        doc, ref, s = load(args[0]), load(args[1])["params"], float(args[3])
        p = doc["params"]
        for pc in PIECES:
            for ph in PHASES:
                want = s * (ref[f"material.{pc}.{ph}"] + table_mean(ref, pc, ph))
                p[f"material.{pc}.{ph}"] = want - table_mean(p, pc, ph)
        save(doc, args[2])
    elif cmd == "blur":
        doc = load(args[0])
        doc["params"] = blurred(doc["params"], float(args[2]))
        save(doc, args[1])
    elif cmd == "shape":
        doc, ref, s = load(args[0]), load(args[1])["params"], float(args[3])
        p = doc["params"]
        for pc in args[4:]:
            if pc not in PIECES + ["king"]:
                sys.exit(f"error: `{pc}` is not a piece (pawn, knight, bishop, rook, queen, king)")
            for ph in PHASES:
                m, rm = table_mean(p, pc, ph), table_mean(ref, pc, ph)
                for k in table_keys(p, pc, ph):
                    p[k] = m + s * (ref[k] - rm)
        save(doc, args[2])
    elif cmd == "contrast":
        doc = load(args[0])
        doc["params"] = contrasted(doc["params"], float(args[2]))
        save(doc, args[1])


if __name__ == "__main__":
    main(sys.argv)
