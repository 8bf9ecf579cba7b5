#!/usr/bin/env bash
# 4ku's loop from zero (experiments/4ku-from-zero.md; issue 39's "4ku, from zero" goal):
# generation 0 is the fit from zero on 4ku's own traces of 1,000,000 TCEC quiet positions
# (texel-tuner's start and its K), then `tune loop` in 4ku's own search from those weights in
# two phases (labels half the result, then mostly 4ku's search score), then the loop's best
# against the shipped weights in 1,000 games at 5,000 nodes.
#
#   experiments/scripts/4ku-from-zero.sh [OUT=4ku-zero] [TUNE=target/release/tune] [GENERATIONS=5]
#
# TRACES (default /work/data4ku/4ku-1m.trace.zst) are made as engines/4ku/README.md says.
# Resumable: the fit is kept once written, `tune loop` continues its directory, and the match is
# written through a .tmp file. Needs ../shared/engines/4ku-917a087.tar.zst, g++ and zstd.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${1:-4ku-zero}
tune=${2:-$here/target/release/tune}
generations=${3:-5}
traces=${TRACES:-/work/data4ku/4ku-1m.trace.zst}
source "$here/experiments/scripts/lib-4ku.sh"

# Every weight 0: texel-tuner's start.
if [ ! -f "$out/zero.json" ]; then
    python3 - "$shipped" "$out/zero.json" <<'EOF'
import json, sys
def zero(v):
    return [zero(x) for x in v] if isinstance(v, list) else 0
m = json.load(open(sys.argv[1]))
for p in m["params"]:
    p["value"] = zero(p["value"])
json.dump(m, open(sys.argv[2], "w"))
EOF
fi

# Generation 0: the fit from zero at texel-tuner's K (2.1 base e = 0.912011 base 10).
if [ ! -f "$out/tcec-fit/weights-int.json" ]; then
    log "fit from zero on $traces"
    "$tune" lbfgs --trace "$traces" --manifest "$shipped" --weights "$out/zero.json" \
        --k 0.912011 --no-verify-traces --out "$out/tcec-fit"
fi

# Phase 1: labels half the game's result (--lambda 0.5) while the evaluation is far off, for
# three generations (the third gained nothing: +5 [-18, +27]).
log "loop, phase 1: 3 generations at lambda 0.5"
"$tune" loop --engine "$engine" --manifest "$out/tcec-fit/weights-int.json" --out "$out/loop" \
    --generations 3 --games 3000 --nodes 5000 --gate-openings 300 \
    --gate-nodes 5000 --sprt 0,10 --lambda 0.5 --threads 2 --trace-jobs 2 --seed 1
# Phase 2: from phase 1's best, labels mostly 4ku's own search score (--lambda 0.1, the blend
# that worked from the shipped weights), new openings (--seed 2).
log "loop, phase 2: $generations generations at lambda 0.1"
"$tune" loop --engine "$engine" --manifest "$out/loop/best.json" --out "$out/loop2" \
    --generations "$generations" --games 3000 --nodes 5000 --gate-openings 300 \
    --gate-nodes 5000 --sprt 0,10 --lambda 0.1 --threads 2 --trace-jobs 2 --seed 2
log "loop done"

file=$out/final-vs-shipped-5000n.txt
if [ ! -f "$file" ]; then
    "$tune" match "uci:$engine" "uci:$engine" --weights-a "$out/loop2/best.json" \
        --weights-b "$shipped" --openings 500 --nodes 5000 --threads 2 --seed 301 >"$file.tmp" 2>&1
    mv "$file.tmp" "$file"
fi
grep 'Elo (pent' "$file"
log "match done"
