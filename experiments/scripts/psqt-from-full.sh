#!/usr/bin/env bash
# A `psqt` tuned on the games of the stronger `full` model (experiments/psqt-again.md, "Games of a stronger
# player of our own"): one L-BFGS run on the self-play games of the `full` ladder's best, from
# the `psqt` ladder's generation 16 or from material only, each played against PeSTO's tables,
# 200 openings (400 games) at 10,000 nodes a move, --seed 1. Resumable: a finished row is kept.
#
#   experiments/scripts/psqt-from-full.sh LADDER AB OUT [TUNE=target/release/tune]
#
# LADDER: the `full` ladder of "Threats: the term `full` lacked" (`tune bootstrap --out LADDER
# --model full --weights data/bootstrap-defaults-gen16.json --generations 4 ...`): its
# generation 2 is experiments/weights/bootstrap-full-threats-gen2.json, and generations 3 and 4 played their
# 16,000 games with it (generation 3's candidate failed its gate). AB: the directory of
# experiments/scripts/threats-ab.sh, whose games.gtc.zst is 16,000 games of experiments/weights/bootstrap-full-gen2.json.
set -euo pipefail
usage="usage: experiments/scripts/psqt-from-full.sh LADDER AB OUT [TUNE]"
here=$(cd "$(dirname "$0")/../.." && pwd)
ladder=$(cd "${1:?$usage}" && pwd)
ab=$(cd "${2:?$usage}" && pwd)
out=${3:?$usage}
tune=$(realpath "${4:-$here/target/release/tune}")
pesto=$here/../shared/reference/pesto-psqt.json
gen16=$here/data/bootstrap-defaults-gen16.json
[ -f "$pesto" ] || { echo "error: $pesto is missing (../shared beside the repository)" >&2; exit 1; }
cmp -s "$ladder/gen002/weights.json" "$here/experiments/weights/bootstrap-full-threats-gen2.json" ||
    { echo "error: $ladder/gen002/weights.json is not experiments/weights/bootstrap-full-threats-gen2.json" >&2; exit 1; }
threats=("$ladder/gen003/data.gtc.zst" "$ladder/gen004/data.gtc.zst")
old=("$ab/games.gtc.zst")
for f in "${threats[@]}" "${old[@]}"; do
    [ -f "$f" ] || { echo "error: $f is missing" >&2; exit 1; }
done
mkdir -p "$out"
cd "$out"
# shellcheck source=experiments/scripts/lib-play.sh
. "$here/experiments/scripts/lib-play.sh"   # play NAME, play_seed NAME SEED

row() { # NAME START(gen16|material) LAMBDA L2 SMOOTH DATA...
    local name=$1 from=$2 lambda=$3 l2=$4 smooth=$5
    shift 5
    local start=()
    [ "$from" = gen16 ] && start=(--weights "$gen16")
    [ -f "$name/summary.json" ] || "$tune" lbfgs --model psqt "${start[@]}" --data "$@" \
        --lambda "$lambda" --l2 "$l2" --smooth "$smooth" --quiet --out "$name" > "$name.log" 2>&1
    play "$name"
}

# From generation 16 at the bootstrap's pull and prior: the games of the pre-threats `full`...
row g16-oldfull-lambda0.5 gen16 0.5 1e-8 1e-9 "${old[@]}"
row g16-oldfull-lambda0 gen16 0 1e-8 1e-9 "${old[@]}"
# ... and of the `full` with threats.
row g16-full-lambda0.5 gen16 0.5 1e-8 1e-9 "${threats[@]}"
row g16-full-lambda0 gen16 0 1e-8 1e-9 "${threats[@]}"
row g16-full-lambda0-smooth0 gen16 0 1e-8 0 "${threats[@]}"
# From material only.
row mat-full-lambda0 material 0 1e-8 1e-9 "${threats[@]}"
row mat-full-lambda0-smooth0 material 0 1e-8 0 "${threats[@]}"
row mat-full-lambda0-l2-1e-7 material 0 1e-7 1e-9 "${threats[@]}"
row mat-full-lambda0.5 material 0.5 1e-8 1e-9 "${threats[@]}"
row mat-full-lambda1 material 1 1e-8 1e-9 "${threats[@]}"
# The best row on two more sets of openings.
for seed in 2 3; do play_seed g16-full-lambda0 $seed; done
