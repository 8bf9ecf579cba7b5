#!/usr/bin/env bash
# Issue 54, after experiments/4ku-terms.md: generation 2 of the 4ku terms loop won +41.5 at
# 5,000 nodes a move and was level on a 2+0.02 clock. This loop starts from those weights
# (experiments/4ku-terms/gen002-weights.json, a manifest with values) and plays its self-play
# and gates on the clock it is judged by, then plays its answer against the shipped 4ku on it.
#
#   experiments/scripts/4ku-terms-tc.sh [OUT=4ku-terms-tc] [TUNE=target/release/tune] [GENERATIONS=2]
#
# Resumable: rerun the same command (`tune loop` continues its directory; the match is written
# through a .tmp file). Long: a generation is about 2,000 games of self-play and up to 2,000 of
# gate on 2 cores at 2+0.02 (some 3 hours). Needs ../shared/engines/4ku-917a087.tar.zst, g++, zstd.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${1:-4ku-terms-tc}
tune=${2:-$here/target/release/tune}
generations=${3:-2}
source "$here/experiments/scripts/lib-4ku.sh"

terms=$out/4ku-terms/4ku-gradtune
[ -x "$terms" ] || "$here/engines/4ku/build.sh" "$here/../shared/engines/4ku-917a087.tar.zst" \
    "$out/4ku-terms" "$here/engines/4ku/terms.patch" >/dev/null

log "loop on the clock: $generations generations from the terms loop's generation 2"
# --vs-start-more 0: the loop began before the match against the start had a second part.
"$tune" loop --engine "$terms" --manifest "$here/experiments/4ku-terms/gen002-weights.json" \
    --out "$out/loop" --generations "$generations" --games 2000 --tc 2+0.02 \
    --vs-start-openings 500 --vs-start-more 0 --threads 2 --trace-jobs 2 --seed 11
log "loop done"
[ "${MATCHES:-1}" = 0 ] && exit 0

file=$out/best-vs-shipped-tc.txt
if [ ! -f "$file" ]; then
    "$tune" match "uci:$terms" "uci:$engine" --weights-a "$out/loop/best.json" \
        --weights-b "$shipped" --threads 2 --openings 500 --tc 2+0.02 --seed 104 >"$file.tmp" 2>&1
    mv "$file.tmp" "$file"
fi
grep 'Elo (pent' "$file" | sed "s|^|$file: |"
log "match done"
