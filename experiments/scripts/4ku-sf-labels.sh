#!/usr/bin/env bash
# 4ku from its shipped weights, labels from a much stronger teacher
# (experiments/4ku-sf-labels.md): the quiet positions of 4ku's own self-play (games 0-1999 of
# experiments/scripts/4ku-deep-labels.sh's generation, 4ku at 10,000 nodes), labelled by
# Stockfish 15.1 at 10,000 nodes, its scores calibrated on the games' results into 4ku's units,
# traced by 4ku, fitted from the shipped weights at two blends; each candidate screened in 600
# games against the shipped weights, the better one then measured in 4,000 (the claim).
#
#   experiments/scripts/4ku-sf-labels.sh SELFPLAY.epd [OUT=4ku-sf] [TUNE=target/release/tune]
#
# SELFPLAY.epd: 4ku-deep-labels.sh's OUT/loop/gen001/selfplay.epd (deterministic at fixed
# nodes). Needs a `stockfish` (STOCKFISH=..., Debian's package: /usr/games/stockfish), and
# what lib-4ku.sh needs. Resumable: `tune label` continues its progress file, every other
# step is skipped when its output is there (`tune label` writes its output once, when done;
# the others through a .tmp file).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
selfplay=$1
out=${2:-4ku-sf}
tune=${3:-$here/target/release/tune}
stockfish=${STOCKFISH:-/usr/games/stockfish}
source "$here/experiments/scripts/lib-4ku.sh"

if [ ! -f "$out/positions.epd" ]; then
    awk -F'game ' '{ split($2, a, ";"); if (a[1] + 0 < 2000) print }' "$selfplay" \
        >"$out/positions.epd.tmp"
    mv "$out/positions.epd.tmp" "$out/positions.epd"
fi
if [ ! -f "$out/sf10k.epd" ]; then
    log "label: $(wc -l <"$out/positions.epd") positions, Stockfish at 10,000 nodes"
    "$tune" label --engine "$stockfish" --nodes 10000 --jobs 2 --option Hash=1 \
        --option Threads=1 -o "$out/sf10k.epd" "$out/positions.epd"
fi
if [ ! -f "$out/traces-sf.txt" ]; then
    log "trace"
    "$tune" trace "$out/sf10k.epd" --engine "$engine" --manifest "$shipped" --jobs 2 \
        -o "$out/traces-sf-raw.txt"
    python3 "$here/experiments/scripts/rescale-scores.py" "$out/traces-sf-raw.txt" \
        "$out/traces-sf.txt.tmp" | tee "$out/rescale.txt"
    mv "$out/traces-sf.txt.tmp" "$out/traces-sf.txt"
fi
k=$(sed -n 's/.*engine K \([0-9.]*\) .*/\1/p' "$out/rescale.txt")

for lambda in 0 0.5; do
    run=$out/fit-l$lambda
    if [ ! -f "$run/weights-int.json" ]; then
        log "fit lambda $lambda, K $k"
        rm -rf "$run"
        "$tune" lbfgs --trace "$out/traces-sf.txt" --manifest "$shipped" --k "$k" \
            --lambda "$lambda" --l2 auto --seed 1 --out "$run.tmp" >"$out/fit-l$lambda.log" 2>&1
        mv "$run.tmp" "$run"
    fi
done

elo() { sed -n 's/.*Elo (pent[^)]*): *\([-+0-9.]*\).*/\1/p' "$1" | head -1; }
# Screens (no claim): 300 openings each, their own seeds.
vs_shipped "$out/screen-l0.txt" "$out/fit-l0/weights-int.json" --openings 300 --nodes 5000 --seed 401
vs_shipped "$out/screen-l0.5.txt" "$out/fit-l0.5/weights-int.json" --openings 300 --nodes 5000 --seed 402
a=$(elo "$out/screen-l0.txt") b=$(elo "$out/screen-l0.5.txt")
if awk -v a="$a" -v b="$b" 'BEGIN { exit !(a >= b) }'; then pick=0; else pick=0.5; fi
log "screens: lambda 0 $a, lambda 0.5 $b: lambda $pick measured"
# The claim: 2,000 fresh openings (4,000 games), fixed in advance, not extended.
vs_shipped "$out/claim-l$pick.txt" "$out/fit-l$pick/weights-int.json" --openings 2000 \
    --nodes 5000 --seed 403
log "done"
