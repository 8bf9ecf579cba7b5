#!/usr/bin/env bash
# 4ku's own loop from its shipped weights (experiments/4ku-loop.md): build 4ku with gradtune's
# patch, run `tune loop` in 4ku's own search, then play the kept weights against the shipped
# ones in matches of 500 openings (1,000 games) at fixed nodes and at a time control.
#
#   experiments/scripts/4ku-loop.sh [OUT=4ku-loop] [TUNE=target/release/tune] [GENERATIONS=4]
#
# Resumable: `tune loop` continues its directory, and each match is written through a .tmp
# file, so a finished match is kept and an interrupted one is played again on the next run.
# Needs ../shared/engines/4ku-917a087.tar.zst, g++ and zstd.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${1:-4ku-loop}
tune=${2:-$here/target/release/tune}
generations=${3:-4}
lambda=${LAMBDA:-0.1}
source "$here/experiments/scripts/lib-4ku.sh"

log "loop: $generations generations, lambda $lambda"
"$tune" loop --engine "$engine" --manifest "$shipped" --out "$out/loop" \
    --generations "$generations" --games 3000 --nodes 5000 \
    --gate-openings 600 --gate-nodes 5000 --sprt 0,5 --lambda "$lambda" \
    --threads 2 --trace-jobs 2 --seed 1
log "loop done"

# Seeds other than the loop's (the gates used the openings of --seed 1's generations).
vs_shipped "$out/best-vs-shipped-5000n.txt" "$out/loop/best.json" --openings 500 --nodes 5000 \
    --seed 101
vs_shipped "$out/best-vs-shipped-tc.txt" "$out/loop/best.json" --openings 500 --tc 2+0.02 \
    --seed 102
log "matches done"
