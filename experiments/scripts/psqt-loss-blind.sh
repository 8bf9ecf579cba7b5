#!/usr/bin/env bash
# What the loss sees (experiments/psqt-again.md, "`psqt` again", "What the loss sees"): the held-out
# losses of six `psqt` weights files on two fresh samples of games that none of them was tuned
# on: 8,000 self-play games of generation 16 (data/bootstrap-defaults-gen16.json) and 8,000 of
# PeSTO's tables, both at 2,000 nodes a move. Each loss is `tune eval`'s, with K fitted for the
# file on the data, against the game results.
#
#   experiments/scripts/psqt-loss-blind.sh OUT STEPS TWO [TUNE=target/release/tune]
#
# STEPS is experiments/scripts/psqt-data-steps.sh's finished directory (its one-step files from PeSTO and
# from generation 16 on 32,000 games), TWO experiments/scripts/psqt-two-ladders.sh's (the second ladder's
# generation 16). Resumable: a finished data file is kept.
set -euo pipefail
usage="usage: experiments/scripts/psqt-loss-blind.sh OUT STEPS TWO [TUNE]"
here=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?$usage}
steps=$(realpath "${2:?$usage}")
two=$(realpath "${3:?$usage}")
tune=$(realpath "${4:-$here/target/release/tune}")
pesto=$here/../shared/reference/pesto-psqt.json
gen16=$here/data/bootstrap-defaults-gen16.json
[ -f "$pesto" ] || { echo "error: $pesto is missing (../shared beside the repository)" >&2; exit 1; }
mkdir -p "$out"
cd "$out"

[ -f g16-555.gtc.zst ] || "$tune" datagen --games 8000 --nodes 2000 --seed 555 -w "$gen16" \
    -o g16-555.gtc.zst
[ -f pesto-556.gtc.zst ] || "$tune" datagen --games 8000 --nodes 2000 --seed 556 -w "$pesto" \
    -o pesto-556.gtc.zst
files=(
    "PeSTO's tables:$pesto"
    "generation 16:$gen16"
    "the second ladder's generation 16:$two/seed2/weights.json"
    "from PeSTO, one step on 32,000 games of generation 16:$steps/pesto-self4/weights.json"
    "from generation 16, the same step:$steps/g16-self4/weights.json"
    "from generation 16, the same step at --l2 1e-6:$steps/g16-self4-l2-1e-6/weights.json"
)
for data in g16-555.gtc.zst pesto-556.gtc.zst; do
    echo "== $data: K, squared error, cross-entropy"
    for entry in "${files[@]}"; do
        printf '%s: ' "${entry%%:*}"
        "$tune" eval --data "$data" --json "${entry#*:}" 2>> eval.log | python3 -c '
import json, sys
f = json.load(sys.stdin)["fitted"]
print("K %.3f, mse %.6f, xent %.6f" % (f["k"], f["mse"], f["xent"]))'
    done
done
