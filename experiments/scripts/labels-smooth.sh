#!/usr/bin/env bash
# The label-blend and smoothness experiments of experiments/labels-smoothness.md ("Label blend and smoothness"):
# each row tunes psqt weights and plays them against PeSTO's tables, 200 openings (400 games)
# at 10,000 nodes a move. Resumable: a finished row is not run again.
# Usage: experiments/scripts/labels-smooth.sh OUT [TUNE]   (TUNE: a tune binary; default target/release/tune)
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: experiments/scripts/labels-smooth.sh OUT [TUNE]}
tune=${2:-$here/target/release/tune}
tune=$(cd "$(dirname "$tune")" && pwd)/$(basename "$tune")   # absolute: the rows run in OUT
pesto=$here/../shared/reference/pesto-psqt.json
gen6=$here/experiments/weights/bootstrap-gen6.json
[ -f "$pesto" ] || { echo "error: $pesto is missing (../shared beside the repository)" >&2; exit 1; }
mkdir -p "$out"; cd "$out"
# 8,000 self-play games of the bootstrap's generation 6 (the weights data/default.gtc.zst came from)
[ -f big.gtc.zst ] || "$tune" datagen --games 8000 --nodes 2000 --seed 99 -w "$gen6" -o big.gtc.zst
row() { # NAME TUNING-OPTIONS...
    local name=$1; shift
    [ -f "$name/weights.json" ] || "$tune" lbfgs "$@" --out "$name" --quiet > "$name.tune.txt" 2>&1
    play "$name"
}
. "$here/experiments/scripts/lib-play.sh"   # play NAME
# (a) the README's main job (embedded data, from material only), three label blends
for lam in 1 0.5 0; do row "main-lambda$lam" --lambda "$lam"; done
# (b) one bootstrap step on 8,000 games: from generation 6, pulled towards it (--l2 1e-8)
for lam in 1 0.5; do row "gen6-lambda$lam" --data big.gtc.zst --weights "$gen6" --l2 1e-8 --lambda "$lam"; done
for s in 1e-9 1e-8 1e-7; do row "gen6-smooth$s" --data big.gtc.zst --weights "$gen6" --l2 1e-8 --smooth "$s"; done
row gen6-l2-0-smooth1e-8 --data big.gtc.zst --weights "$gen6" --l2 0 --smooth 1e-8
for s in 0 1e-8 3e-8; do row "material-smooth$s" --data big.gtc.zst --smooth "$s"; done
# the tables of gen6-lambda1 blurred after the fact
for a in 0.3 0.6; do
    mkdir -p "blur$a"
    [ -f "blur$a/weights.json" ] || python3 "$here/experiments/scripts/weights.py" blur gen6-lambda1/weights.json "blur$a/weights.json" "$a"
    play "blur$a"
done
