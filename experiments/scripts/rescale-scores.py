#!/usr/bin/env python3
"""Put a teacher engine's scores into the traced engine's units, calibrated on the results.

`--lambda` blends the result with sigma(score) through the one K fitted to the engine's own
evaluation, so a teacher whose scores are on another scale (Stockfish normalises its
centipawns) would teach the fit to rescale every weight (docs/loop.md, "The score must be in
your evaluation's units"). On a trace file (docs/trace-format.md; its `score` the teacher's,
as `tune label` then `tune trace` leave it), this fits two K by least squares on the results
(golden-section search): K_e for the engine's traced `eval`, K_t for the teacher's `score`.
It writes every score multiplied by K_t / K_e, so that sigma_K_e(new score) = sigma_K_t(score):
the teacher's opinion, calibrated on these games, in the engine's units. It prints K_e, which
is what `tune lbfgs` fits to the start weights on all positions (pass it as `--k`).

The tuning commands now do the same with `--score-k fit` (the teacher's K fitted on the
training split); this script is kept as what experiments/4ku-sf-labels.md ran.

usage: rescale-scores.py TRACES OUT
"""
import math
import os
import re
import sys

SCORE = re.compile(r"\[([0-9.]+)\]; score (-?\d+);")
EVAL = re.compile(r"; eval (-?[0-9.]+);")


def sigma(k, s):
    return 1.0 / (1.0 + 10.0 ** (-k * s / 400.0))


def loss(k, pairs):
    return sum((r - sigma(k, s)) ** 2 for r, s in pairs) / len(pairs)


def fit_k(pairs, lo=0.05, hi=5.0):
    g = (math.sqrt(5) - 1) / 2
    a, b = lo, hi
    for _ in range(60):
        c, d = b - g * (b - a), a + g * (b - a)
        if loss(c, pairs) < loss(d, pairs):
            b = d
        else:
            a = c
    return (a + b) / 2


def main():
    src, dst = sys.argv[1], sys.argv[2]
    lines, teacher, engine = [], [], []
    with open(src) as f:
        for n, line in enumerate(f, 1):
            if line.startswith("#"):
                lines.append((line, None))
                continue
            s, e = SCORE.search(line), EVAL.search(line)
            if not s or not e:
                sys.exit(f"{src}:{n}: no `[result]; score S;` or `eval E;`: {line[:120]!r}")
            r = float(s.group(1))
            teacher.append((r, int(s.group(2))))
            engine.append((r, float(e.group(1))))
            lines.append((line, s))
    k_e, k_t = fit_k(engine), fit_k(teacher)
    scale = k_t / k_e
    with open(dst + ".tmp", "w") as out:
        for line, s in lines:
            if s is not None:
                new = f"[{s.group(1)}]; score {round(int(s.group(2)) * scale)};"
                line = line[: s.start()] + new + line[s.end():]
            out.write(line)
    os.replace(dst + ".tmp", dst)
    print(f"{len(teacher)} positions; engine K {k_e:.4f} (loss {loss(k_e, engine):.6f}); "
          f"teacher K {k_t:.4f} (loss {loss(k_t, teacher):.6f}); scores x {scale:.4f}")


if __name__ == "__main__":
    main()
