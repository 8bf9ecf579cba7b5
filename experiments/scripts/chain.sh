#!/usr/bin/env bash
# The whole chain from material only to past PeSTO's tables, timed (experiments/bootstrap-full.md, "The chain
# timed"): a `psqt` ladder with `tune bootstrap`'s defaults for 16 generations, then a `full`
# ladder from its kept weights for 2 generations. No --reference: the ladder matches are the
# defaults' (vs generation 0, 50 openings at 5,000 nodes), so the time is what a user running
# the two commands would wait; the weights are compared with the committed ones afterwards.
#
#   experiments/scripts/chain.sh [OUT=chain] [TUNE=target/release/tune]
#
# Prints wall-clock seconds per stage and per generation (from the generation files' times).
# Both stages are `tune bootstrap` runs, so the script can be rerun to resume after Ctrl-C (the
# times of a resumed run then say nothing).
set -euo pipefail
out=${1:-chain}
tune=${2:-target/release/tune}
mkdir -p "$out"
log() { echo "$(date -u +%FT%TZ) $*" | tee -a "$out/times.log"; }

t0=$(date +%s)
log "start psqt ladder"
"$tune" bootstrap --out "$out/psqt" --generations 16 --quiet
t1=$(date +%s)
log "psqt ladder done: $((t1 - t0)) s"
best=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(s["generations"][-1]["best"])' "$out/psqt/state.json")
start=$(printf '%s/psqt/gen%03d/weights.json' "$out" "$best")
log "full ladder from psqt generation $best ($start)"
"$tune" bootstrap --out "$out/full" --model full --weights "$start" --generations 2 --quiet
t2=$(date +%s)
log "full ladder done: $((t2 - t1)) s; chain $((t2 - t0)) s"

# Per generation: the time between consecutive generation files.
for stage in psqt full; do
    prev=
    for f in "$out/$stage"/gen*/generation.json; do
        t=$(stat -c %Y "$f")
        [ -n "$prev" ] && log "$stage $(basename "$(dirname "$f")"): $((t - prev)) s"
        prev=$t
    done
done
cmp "$out/psqt/gen016/weights.json" data/bootstrap-defaults-gen16.json && log "psqt gen 16 identical to data/bootstrap-defaults-gen16.json"
# The `full` model has had threat terms since the chain was first timed: its generation 2 is now
# experiments/weights/bootstrap-full-threats-gen2.json (experiments/weights/bootstrap-full-gen2.json is the model before them).
cmp "$out/full/gen002/weights.json" experiments/weights/bootstrap-full-threats-gen2.json && log "full gen 2 identical to experiments/weights/bootstrap-full-threats-gen2.json"
