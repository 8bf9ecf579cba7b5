#!/usr/bin/env bash
# One tuning step from the `full` ladder's generation 2 on its own games, in several variants,
# each played against generation 2 like the ladder's gate (200 openings, 400 games, 5,000 nodes
# a move; experiments/bootstrap-full.md, "Why the full ladder stalls"). The data is generation 2's 16,000
# self-play games of the ladder's generations 4 and 5 (the window its generation-5 candidate
# was tuned on). Resumable: a finished variant (NAME/summary.json) is kept.
#
#   experiments/scripts/full-steps.sh LADDER_F OUT [TUNE=target/release/tune]
set -euo pipefail
ladder=$(realpath "${1:?usage: experiments/scripts/full-steps.sh LADDER_F OUT [TUNE]}")
out=${2:?usage: experiments/scripts/full-steps.sh LADDER_F OUT [TUNE]}
tune=$(realpath "${3:-target/release/tune}")
mkdir -p "$out"
cd "$out"
start=$ladder/gen002/weights.json
data=("$ladder/gen004/data.gtc.zst" "$ladder/gen005/data.gtc.zst")

step() { # NAME OPTIONS...
    local name=$1
    shift
    if [ ! -f "$name/summary.json" ]; then
        rm -rf "$name"
        "$tune" lbfgs --model full --weights "$start" --data "${data[@]}" --quiet \
            --verify 200 --verify-nodes 5000 --out "$name" "$@" > "$name.log" 2>&1
    fi
    grep 'Elo (pent' "$name.log" | tail -1 | sed "s|^|$name: |"
}

# The ladder's own settings (its generation-5 candidate lost its gate by -31.4).
step base --l2 1e-8 --smooth 1e-9 --lambda 0.5
# Labels: the game result alone, or the self-play search's score alone.
step lambda1 --l2 1e-8 --smooth 1e-9 --lambda 1
step lambda0 --l2 1e-8 --smooth 1e-9 --lambda 0
# A pull a hundred times stronger: a small step.
step l2-1e-6 --l2 1e-6 --smooth 1e-9 --lambda 0.5
# Material held at generation 2's values (they shrink along both ladders).
step freeze-material --l2 1e-8 --smooth 1e-9 --lambda 0.5 --freeze material
