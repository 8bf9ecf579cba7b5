#!/usr/bin/env bash
# 4ku from its shipped weights, continued (experiments/4ku-deep-labels.md): one more loop
# generation from the first loop's kept weights (experiments/4ku-loop/gen003-weights.json), its
# self-play labels searched twice as deep (10,000 nodes) and only its own positions tuned on
# (window 1); the gate and every match at 5,000 nodes, as before. Then the candidate against
# the shipped weights in 2,000 openings (4,000 games).
#
#   experiments/scripts/4ku-deep-labels.sh [OUT=4ku-deep] [TUNE=target/release/tune]
#
# Resumable: `tune loop` continues its directory; a match is written through a .tmp file.
# Needs ../shared/engines/4ku-917a087.tar.zst, g++ and zstd.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${1:-4ku-deep}
tune=${2:-$here/target/release/tune}
games=${GAMES:-4000}
source "$here/experiments/scripts/lib-4ku.sh"
start=$here/experiments/4ku-loop/gen003-weights.json

log "loop: 1 generation, $games games at 10,000 nodes, window 1, lambda 0.1"
"$tune" loop --engine "$engine" --manifest "$start" --out "$out/loop" \
    --generations 1 --games "$games" --nodes 10000 --window 1 --lambda 0.1 \
    --gate-openings 300 --gate-nodes 5000 --sprt 0,5 --threads 2 --trace-jobs 2 --seed 5
log "loop done"

# The candidate whatever the gate said (the gate is 600 games; this is the claim).
vs_shipped "$out/gen001-vs-shipped-5000n.txt" "$out/loop/gen001/tune/weights-int.json" \
    --openings 2000 --nodes 5000 --seed 105
log "match done"
