#!/usr/bin/env bash
# Issue 54's proof on 4ku (experiments/4ku-terms.md): the terms `tune discover` ranked on 4ku's
# own games (experiments/4ku-discover/selfplay-discover.json: the side-to-move bonus, then the
# threats) written into 4ku (engines/4ku/terms.patch on top of gradtune.patch, declared ports
# of the catalogue's `tempo` and `threats` in engines/4ku/terms-manifest.json), started at the
# ranking's values, tuned by `tune loop`'s gates in 4ku's own search, and the loop's answer
# played against the shipped 4ku (the engine without the terms, its shipped weights).
#
#   experiments/scripts/4ku-terms.sh [OUT=4ku-terms] [TUNE=target/release/tune] [GENERATIONS=3]
#
# Resumable: `tune loop` continues its directory (a later run may ask for more generations),
# the port check and each match are written through a .tmp file and kept once finished.
# MATCHES=0 stops after the loop. Needs ../shared/engines/4ku-917a087.tar.zst, g++ and zstd.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${1:-4ku-terms}
tune=${2:-$here/target/release/tune}
generations=${3:-3}
source "$here/experiments/scripts/lib-4ku.sh"

terms=$out/4ku-terms/4ku-gradtune
[ -x "$terms" ] || "$here/engines/4ku/build.sh" "$here/../shared/engines/4ku-917a087.tar.zst" \
    "$out/4ku-terms" "$here/engines/4ku/terms.patch" >/dev/null
manifest=$here/engines/4ku/terms-manifest.json
ranking=$here/experiments/4ku-discover/selfplay-discover.json

log "loop: $generations generations from the shipped weights and the ranking's values"
# --vs-start-more 0: the loop began before the match against the start had a second part.
"$tune" loop --engine "$terms" --manifest "$manifest" --discovered "$ranking" \
    --out "$out/loop" --generations "$generations" --games 3000 --nodes 5000 \
    --vs-start-more 0 --threads 2 --trace-jobs 2 --seed 1
log "loop done"

# The ports against gradtune's own counts on the first generation's traces.
if [ ! -f "$out/verify-gen001.txt" ]; then
    "$tune" verify --trace "$out/loop/gen001/traces.txt" --manifest "$out/loop/gen000/weights.json" \
        >"$out/verify-gen001.txt.tmp" 2>&1
    mv "$out/verify-gen001.txt.tmp" "$out/verify-gen001.txt"
fi
grep -E '^port|match within' "$out/verify-gen001.txt"
[ "${MATCHES:-1}" = 0 ] && exit 0

# 4ku with the terms against the shipped 4ku (no terms), seeds other than the loop's: at fixed
# nodes, then on a clock. Generation 0 (the start and the loop's answer: the terms at the
# ranking's values; its clock match was played with the first version of the patch, whose port
# computed the attack maps twice) and generation 2 (the weights its gate kept);
# `vs_shipped` (lib-4ku.sh) with the terms engine as A.
for g in 000 002; do
    name=gen$g
    [ $g = 000 ] && name=best  # the files' names from when generation 0 was the answer
    engine_a=$terms vs_shipped "$out/$name-vs-shipped-5000n.txt" "$out/loop/gen$g/weights.json" \
        --openings 2000 --nodes 5000 --seed 101
    engine_a=$terms vs_shipped "$out/$name-vs-shipped-tc.txt" "$out/loop/gen$g/weights.json" \
        --openings 500 --tc 2+0.02 --seed 102
done
log "matches done"
