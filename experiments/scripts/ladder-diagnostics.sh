#!/usr/bin/env bash
# What stops a bootstrap ladder below PeSTO (experiments/psqt-plateau.md, "What stops the ladder"): derived
# weights and one-step tunings from PeSTO on the ladder's own games, each played against PeSTO's
# tables, 200 openings (400 games) at 10,000 nodes a move. Resumable: a finished row is not run
# again. LADDER is a `tune bootstrap --out` directory with generations 14 to 20 finished.
# Usage: experiments/scripts/ladder-diagnostics.sh LADDER OUT [TUNE]   (TUNE: default target/release/tune)
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
ladder=$(cd "${1:?usage: experiments/scripts/ladder-diagnostics.sh LADDER OUT [TUNE]}" && pwd)
out=${2:?usage: experiments/scripts/ladder-diagnostics.sh LADDER OUT [TUNE]}
tune=${3:-$here/target/release/tune}
tune=$(cd "$(dirname "$tune")" && pwd)/$(basename "$tune")   # absolute: the rows run in OUT
weights=$here/experiments/scripts/weights.py
pesto=$here/../shared/reference/pesto-psqt.json
[ -f "$pesto" ] || { echo "error: $pesto is missing (../shared beside the repository)" >&2; exit 1; }
gen() { echo "$ladder/gen$(printf %03d "$1")/$2"; }
for g in 1 5 10 11 14 15 16 17 18 19 20; do
    [ -f "$(gen $g weights.json)" ] || { echo "error: $(gen $g weights.json) is missing" >&2; exit 1; }
done
mkdir -p "$out"; cd "$out"
. "$here/experiments/scripts/lib-play.sh"   # play NAME
derived() { # NAME weights.py ARGS (OUT is NAME/weights.json)
    local name=$1 cmd=$2; shift 2
    mkdir -p "$name"
    [ -f "$name/weights.json" ] || python3 "$weights" "$cmd" "$@"
    play "$name"
}
tuned_from() { # START NAME TUNING-OPTIONS...: one step from START
    local start=$1 name=$2; shift 2
    if [ ! -f "$name/weights.json" ]; then
        "$tune" lbfgs --weights "$start" --l2 1e-8 --smooth 1e-9 "$@" --out "$name" --quiet \
            > "$name.tune.txt" 2>&1 || { cat "$name.tune.txt" >&2; exit 1; }
    fi
    play "$name"
}
tuned() { tuned_from "$pesto" "$@"; } # NAME TUNING-OPTIONS...: one step from PeSTO
derived mean-14-18 mean mean-14-18/weights.json "$(gen 14 weights.json)" "$(gen 15 weights.json)" \
    "$(gen 16 weights.json)" "$(gen 18 weights.json)"
derived gen16-x1.333 scale "$(gen 16 weights.json)" gen16-x1.333/weights.json 1.333
derived gen16-pesto-values material "$(gen 16 weights.json)" "$pesto" gen16-pesto-values/weights.json 0.75
tuned pesto-gen20 --data "$(gen 20 data.gtc.zst)" --lambda 1
tuned pesto-gen19-20 --data "$(gen 19 data.gtc.zst)" "$(gen 20 data.gtc.zst)" --lambda 1
tuned pesto-gen19-20-lambda0.5 --data "$(gen 19 data.gtc.zst)" "$(gen 20 data.gtc.zst)" --lambda 0.5
tuned pesto-gen19-20-qsearch --data "$(gen 19 data.gtc.zst)" "$(gen 20 data.gtc.zst)" --lambda 1 --leaf qsearch
tuned pesto-gen19-20-frozen --data "$(gen 19 data.gtc.zst)" "$(gen 20 data.gtc.zst)" --lambda 1 --freeze material
# deeper games: 8,000 self-play games of generation 16 at 8,000 nodes (4 times the ladder's)
[ -f deep.gtc.zst ] || "$tune" datagen --games 8000 --nodes 8000 --seed 99 -w "$(gen 16 weights.json)" \
    -o deep.gtc.zst > deep.datagen.txt 2>&1
tuned pesto-deep --data deep.gtc.zst --lambda 1
# a pool of opponents: 8,000 games of generation 16 going round self-play and three earlier
# bests, the most recent (15, 14, 11) or spread out (1, 5, 10); one step from generation 16
# (the bootstrap's tuning) and from PeSTO on each, and on generation 16's self-play alone
pooled() { # NAME OPPONENTS...
    local name=$1; shift
    local opponents=()
    for g in "$@"; do opponents+=(--opponent "$(gen "$g" weights.json)"); done
    [ -f "$name.gtc.zst" ] || "$tune" datagen --games 8000 --nodes 2000 --seed 99 \
        -w "$(gen 16 weights.json)" "${opponents[@]}" -o "$name.gtc.zst" > "$name.datagen.txt" 2>&1
}
pooled recent 15 14 11
pooled spread 1 5 10
tuned_from "$(gen 16 weights.json)" g16-self --data "$(gen 17 data.gtc.zst)" --lambda 0.5
tuned_from "$(gen 16 weights.json)" g16-recent --data recent.gtc.zst --lambda 0.5
tuned_from "$(gen 16 weights.json)" g16-spread --data spread.gtc.zst --lambda 0.5
tuned pesto-recent --data recent.gtc.zst --lambda 1
tuned pesto-spread --data spread.gtc.zst --lambda 1
# the effective piece values of the ladder and of the tunings above
quiet() { # OUT DATA WEIGHTS: DATA's quiet positions, judged with WEIGHTS
    [ -f "$1" ] || "$tune" extract "$2" --filter quiet --weights "$3" -o "$1" > "$1.txt" 2>&1
}
quiet g17-quiet.gtc "$(gen 17 data.gtc.zst)" "$(gen 16 weights.json)"
quiet g19-quiet.gtc "$(gen 19 data.gtc.zst)" "$(gen 18 weights.json)"
quiet g20-quiet.gtc "$(gen 20 data.gtc.zst)" "$(gen 18 weights.json)"
tuned_from "$(gen 16 weights.json)" g16-self-quiet --data g17-quiet.gtc --lambda 0.5
tuned_from "$(gen 16 weights.json)" g16-on20 --data "$(gen 20 data.gtc.zst)" --lambda 0.5
tuned_from "$(gen 16 weights.json)" g16-on20-quiet --data g20-quiet.gtc --lambda 0.5
tuned pesto-gen20-quiet --data g20-quiet.gtc --lambda 1
tuned pesto-gen19-20-quiet --data g19-quiet.gtc g20-quiet.gtc --lambda 1
python3 "$weights" values "$pesto" "$(gen 1 weights.json)" "$(gen 8 weights.json)" \
    "$(gen 16 weights.json)" "$(gen 20 weights.json)" pesto-gen19-20/weights.json pesto-deep/weights.json \
    pesto-recent/weights.json g16-self/weights.json g16-recent/weights.json
