#!/usr/bin/env bash
# A second `psqt` ladder from material only, on another seed, and the mean of the two ladders'
# generation 16 (experiments/psqt-again.md, "Two ladders"): each played against PeSTO's tables, 200
# openings (400 games) at 10,000 nodes a move, on the openings of `tune match --seed 1`, 2 and
# 3. Resumable: the ladder continues where it stopped, a finished match is kept.
#
#   experiments/scripts/psqt-two-ladders.sh OUT [TUNE=target/release/tune]
#
# OUT/ladder is `tune bootstrap --out OUT/ladder --generations 16 --seed 2` (every other option
# at its default: the first ladder's command but the seed, so its kept weights after 16
# generations are the counterpart of data/bootstrap-defaults-gen16.json).
set -euo pipefail
usage="usage: experiments/scripts/psqt-two-ladders.sh OUT [TUNE]"
here=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?$usage}
tune=$(realpath "${2:-$here/target/release/tune}")
pesto=$here/../shared/reference/pesto-psqt.json
gen16=$here/data/bootstrap-defaults-gen16.json
[ -f "$pesto" ] || { echo "error: $pesto is missing (../shared beside the repository)" >&2; exit 1; }
mkdir -p "$out"
cd "$out"
# shellcheck source=experiments/scripts/lib-play.sh
. "$here/experiments/scripts/lib-play.sh"   # play_seed NAME SEED

"$tune" bootstrap --out ladder --generations 16 --seed 2 --quiet
# The kept weights after generation 16 (generation 16's own when its candidate passed the gate).
best=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(s["generations"][16]["best"])' \
    ladder/state.json)
mkdir -p seed2 mean
cp "$(printf 'ladder/gen%03d/weights.json' "$best")" seed2/weights.json
echo "the second ladder's kept weights after 16 generations: generation $best"
[ -f mean/weights.json ] || python3 "$here/experiments/scripts/weights.py" mean mean/weights.json "$gen16" \
    seed2/weights.json
for name in seed2 mean; do
    for seed in 1 2 3; do play_seed "$name" $seed; done
done
