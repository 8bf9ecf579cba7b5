#!/usr/bin/env bash
# What 4ku's evaluation lacks (experiments/4ku-discover.md): 4ku's own games at 5,000 nodes
# with its shipped weights (the data a loop generation tunes on), traced by 4ku, then `tune
# discover` over the whole catalogue; and the same ranking on its traces of the first
# 1,000,000 TCEC quiet positions, for comparison.
#
#   experiments/scripts/4ku-discover.sh [OUT=4ku-discover] [TUNE=target/release/tune] [SHARDS=6]
#
# Resumable: the self-play is played in SHARDS parts of 500 games (`tune selfplay --shard`,
# deterministic at fixed nodes), each kept once written; the merge, the traces and the rankings
# are redone only when their file is missing. Needs ../shared/engines/4ku-917a087.tar.zst,
# ../shared/data/tcec-standard.pgn.zst, g++ and zstd. THREADS (default 2) games in parallel.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${1:-4ku-discover}
tune=${2:-$here/target/release/tune}
shards=${3:-6}
threads=${THREADS:-2}
source "$here/experiments/scripts/lib-4ku.sh"

games=$((shards * 500))
parts=()
for ((i = 0; i < shards; i++)); do
    part=$out/selfplay.part$i.epd
    parts+=("$part")
    [ -f "$part" ] && continue
    log "self-play shard $i/$shards"
    "$tune" selfplay --engine "$engine" --weights "$shipped" --games "$games" --nodes 5000 \
        --shard "$i/$shards" --seed 7 --threads "$threads" -o "$part.tmp.epd"
    mv "$part.tmp.epd" "$part"
done
[ -f "$out/selfplay.epd" ] || "$tune" selfplay --merge "${parts[@]}" -o "$out/selfplay.epd"
if [ ! -f "$out/selfplay-traces.txt" ]; then
    log "trace the self-play"
    "$tune" trace "$out/selfplay.epd" --engine "$engine" --manifest "$shipped" --jobs 2 \
        -o "$out/selfplay-traces.txt"
fi
if [ ! -f "$out/selfplay/discover.json" ]; then
    log "discover on the self-play"
    "$tune" discover --trace "$out/selfplay-traces.txt" --manifest "$shipped" \
        --out "$out/selfplay" --quiet | tee "$out/selfplay.txt"
fi

if [ ! -f "$out/tcec-traces.txt" ]; then
    log "extract and trace 1,000,000 TCEC positions"
    "$tune" extract "$here/../shared/data/tcec-standard.pgn.zst" -o "$out/tcec.epd" \
        --limit 1000000
    "$tune" trace "$out/tcec.epd" --engine "$engine" --manifest "$shipped" --jobs 2 \
        -o "$out/tcec-traces.txt"
fi
if [ ! -f "$out/tcec/discover.json" ]; then
    log "discover on the TCEC traces"
    /usr/bin/time -v "$tune" discover --trace "$out/tcec-traces.txt" --manifest "$shipped" \
        --out "$out/tcec" --quiet 2> "$out/tcec-time.txt" | tee "$out/tcec.txt"
fi
log "done"
