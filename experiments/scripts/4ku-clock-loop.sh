#!/usr/bin/env bash
# 4ku's loop on a clock throughout (experiments/4ku-clock-loop.md): one generation of `tune loop`
# from the shipped weights with every game of it, self-play and gate, on 4ku's own clock
# (`--tc 1+0.01`: `go wtime btime winc binc`, the only limit 4ku's shipped search reads). A
# demonstration that the loop runs on a clock end to end, with its times and time losses: its
# gate is too short for an Elo claim.
#
#   experiments/scripts/4ku-clock-loop.sh [OUT=4ku-clock] [TUNE=target/release/tune]
#
# Resumable: `tune loop` continues its directory. Needs ../shared/engines/4ku-917a087.tar.zst,
# g++ and zstd, and an otherwise idle machine (games on a clock).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${1:-4ku-clock}
tune=${2:-$here/target/release/tune}
source "$here/experiments/scripts/lib-4ku.sh"
log "loop on a clock"
"$tune" loop --engine "$engine" --manifest "$shipped" --out "$out/loop" \
    --generations 1 --games 400 --tc 1+0.01 --window 1 --lambda 0.1 \
    --gate-openings 100 --sprt 0,10 --threads 2 --trace-jobs 2 --seed 7
log "loop done"
