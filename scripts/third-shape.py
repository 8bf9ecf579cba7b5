#!/usr/bin/env python3
"""Synthetic traces of the third engine's shape (issue 55), for measuring the compact store.

Writes into OUTDIR:
  third.json         the manifest: a tapered material, piece-square table and mobility; an
                     untapered tempo; king danger `-trunc((s - 30) * count_modifier[king_attackers]
                     / 128)` on the middlegame per side, where the sum `s` adds untapered attack
                     and check powers times their counts and `count_modifier` is an untapered
                     table looked up by the per-position feature `king_attackers`;
  third.txt          N traces of it (deterministic: seeded);
  linear.json/.txt   the same elements and counts as a linear manifest (the powers' counts
                     entering mg/eg directly, no sum, no term, no feature): the same nonzeros.

Usage: scripts/third-shape.py N OUTDIR   (1,000,000 positions: about 1 minute, 2 x 330 MB)
"""
import json
import os
import random
import sys

FENS = [
    "r2qkbnr/pbpp1ppp/1pn1p3/8/3PP3/2NB4/PPP2PPP/R1BQK1NR w KQkq - 0 1",
    "r1bq1rk1/ppp2ppp/2np1n2/2b1p1N1/2B1P3/3P4/PPP2PPP/RNBQK2R b KQ - 1 6",
    "8/8/4k3/8/8/4K3/4B3/8 w - - 0 1",
]


def manifest(linear):
    z = lambda n: [[0, 0]] * n
    danger = {} if linear else {"sum": "danger"}
    params = [
        {"name": "material", "shape": [5],
         "value": [[80, 100], [320, 300], [330, 320], [450, 520], [900, 950]]},
        {"name": "psqt", "shape": [6, 64], "value": [z(64) for _ in range(6)]},
        {"name": "mobility", "shape": [4, 28], "value": [z(28) for _ in range(4)]},
        {"name": "tempo", "shape": [], "tapered": False, "value": 10},
        dict({"name": "attack_power", "shape": [5], "tapered": False,
              "value": [0, 35, 20, 40, 80]}, **danger),
        dict({"name": "check_power", "shape": [5], "tapered": False,
              "value": [60, 40, 50, 70, 0]}, **danger),
    ]
    m = {"format": "gradtune-manifest", "version": 1, "engine": "third-shaped",
         "score": "white", "phase": {"max": 24}, "params": params}
    if not linear:
        params.append({"name": "count_modifier", "shape": [16], "tapered": False,
                       "value": [0, 0, 50, 75, 88, 94, 97, 99] + [100] * 8})
        m["features"] = ["king_attackers"]
        m["terms"] = [{"name": "king_danger", "sum": "danger", "per_side": True,
                       "mg": "-trunc((s - 30) * count_modifier[king_attackers] / 128)"}]
    return m


def main():
    n, out = int(sys.argv[1]), sys.argv[2]
    os.makedirs(out, exist_ok=True)
    rng = random.Random(55)
    # Element indices: material 0..5, psqt 5..389, mobility 389..501, tempo 501, attack
    # powers 502..507, check powers 507..512.
    with open(os.path.join(out, "third.txt"), "w") as nl, \
            open(os.path.join(out, "linear.txt"), "w") as ln:
        for i in range(n):
            t = {}
            for k in range(5):
                t[k] = [rng.randrange(0, 9), rng.randrange(0, 9)]
            for side in (0, 1):
                for _ in range(rng.randrange(8, 16)):
                    k = 5 + rng.randrange(384)
                    t.setdefault(k, [0, 0])[side] += 1
                for _ in range(rng.randrange(2, 6)):
                    k = 389 + rng.randrange(112)
                    t.setdefault(k, [0, 0])[side] += 1
            t[501] = [1, 0] if i % 2 == 0 else [0, 1]
            attackers = [0, 0]
            for side in (0, 1):
                for _ in range(rng.randrange(0, 5)):
                    k = 502 + rng.randrange(10)
                    t.setdefault(k, [0, 0])[side] += rng.randrange(1, 3)
                    attackers[side] += 1
            terms = " ".join(f"{k}:{w}:{b}" for k, (w, b) in sorted(t.items()) if w or b)
            head = (f"{FENS[i % len(FENS)]} [{rng.choice(['0.0', '0.5', '1.0'])}]; "
                    f"game {i // 80}; phase {rng.randrange(25)}; const {rng.randrange(-20, 21)}; "
                    f"t {terms}")
            ln.write(head + "\n")
            nl.write(f"{head}; f king_attackers:{attackers[0]}:{attackers[1]}\n")
    for name, linear in (("third.json", False), ("linear.json", True)):
        with open(os.path.join(out, name), "w") as f:
            json.dump(manifest(linear), f)


if __name__ == "__main__":
    main()
