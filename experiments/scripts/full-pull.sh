#!/usr/bin/env bash
# The pull for `full` (experiments/defaults-grid.md, "The pull for `full`"): `tune lbfgs --model full` at
# `--l2 1e-7` and `1e-8` on three data sets, each result played against PeSTO's tables (or, for
# the third, against its start), 200 openings (400 games) at 10,000 nodes a move:
#   tcec:  the TCEC games through `tune extract`'s defaults (the quiet positions after ply 8),
#          from the model's defaults; --seed 1, 2, 3
#   emb:   the embedded data (data/default.gtc.zst), from the model's defaults; --seed 1, 2, 3
#   small: 2,000 self-play games of experiments/weights/bootstrap-full-threats-gen2.json, from it, also at
#          1e-6; against it, --seed 1
# Resumable: a finished file is kept.
#
#   experiments/scripts/full-pull.sh OUT [TUNE=target/release/tune]
set -euo pipefail
usage="usage: experiments/scripts/full-pull.sh OUT [TUNE]"
here=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?$usage}
tune=$(realpath "${2:-$here/target/release/tune}")
shared=$here/../shared
pesto=$shared/reference/pesto-psqt.json
best=$here/experiments/weights/bootstrap-full-threats-gen2.json
for f in "$pesto" "$shared/data/tcec-standard.pgn.zst"; do
    [ -f "$f" ] || { echo "error: $f is missing (../shared beside the repository)" >&2; exit 1; }
done
mkdir -p "$out"
cd "$out"

tuned() { # NAME TUNE-OPTIONS...
    local name=$1
    shift
    [ -f "$name/summary.json" ] || "$tune" lbfgs --model full "$@" --out "$name" --quiet \
        > "$name.log" 2>&1 || { cat "$name.log" >&2; exit 1; }
}
# shellcheck source=experiments/scripts/lib-play.sh
. "$here/experiments/scripts/lib-play.sh"   # match_into FILE A B SEED
match() { # NAME OPPONENT SEED: into NAME-sSEED.txt
    match_into "$1-s$3.txt" "$1/weights.json" "$2" "$3"
    grep 'Elo (pent' "$1-s$3.txt" | sed "s|^|$1 --seed $3: |"
}

[ -f tcec-quiet.gtc ] || "$tune" extract "$shared/data/tcec-standard.pgn.zst" -o tcec-quiet.gtc \
    > tcec-quiet.log 2>&1
[ -f small.gtc.zst ] || "$tune" datagen -w "$best" --games 2000 --nodes 2000 --seed 7 \
    -o small.gtc.zst > small.log 2>&1
for l2 in 1e-7 1e-8; do
    tuned "tcec-$l2" --data tcec-quiet.gtc --l2 $l2
    tuned "emb-$l2" --l2 $l2
done
for l2 in 1e-6 1e-7 1e-8; do
    tuned "small-$l2" --data small.gtc.zst --weights "$best" --l2 $l2
done
for seed in 1 2 3; do
    for l2 in 1e-7 1e-8; do
        match "tcec-$l2" "$pesto" $seed
        match "emb-$l2" "$pesto" $seed
    done
done
for l2 in 1e-6 1e-7 1e-8; do match "small-$l2" "$best" 1; done
