#!/usr/bin/env bash
# What does not move the `full` ladder past its plateau (experiments/bootstrap-full.md, "The full plateau"):
# one tuning step from the `--lambda 0` ladder's generation 3 (its best, +127.0 against PeSTO in
# the ladder) on more games, on deeper games, and the mean of the ladder's weights, each played
# against generation 3 like the gate (`--verify 200 --verify-nodes 5000`: 400 games, 5,000
# nodes) and against PeSTO's tables (400 games, 10,000 nodes, `--seed 1`); generation 3 at
# other scales, against PeSTO; then `psqt` tuned
# from the psqt ladder's generation 16 on the `full` weights' games (a stronger player's games
# for the smaller model), against PeSTO. Resumable: a finished run or match is kept.
#
#   experiments/scripts/full-plateau.sh LADDER_F LADDER_F0 OUT [TUNE=target/release/tune]
#
# LADDER_F: the first `full` ladder's directory (generations 1 to 5); LADDER_F0: the
# `--lambda 0` ladder's (generations 1 to 7). Needs ../shared/reference/pesto-psqt.json.
set -euo pipefail
usage="usage: experiments/scripts/full-plateau.sh LADDER_F LADDER_F0 OUT [TUNE]"
lf=$(realpath "${1:?$usage}")
lf0=$(realpath "${2:?$usage}")
out=${3:?$usage}
tune=$(realpath "${4:-target/release/tune}")
root=$(realpath "$(dirname "$0")/../..")
pesto=$(realpath "$root/../shared/reference/pesto-psqt.json")
mkdir -p "$out"
cd "$out"
# shellcheck source=experiments/scripts/lib-play.sh
. "$root/experiments/scripts/lib-play.sh"

w3=$lf0/gen003/weights.json
f0=("$lf0"/gen00{1..7}/data.gtc.zst)   # 56,000 games: the lambda-0 ladder's
f=("$lf"/gen00{1..5}/data.gtc.zst)     # 40,000 games: the first full ladder's
by_w3=("$lf0"/gen00{4..7}/data.gtc.zst) # 32,000 games of generation 3's weights

[ -f w3/weights.json ] || { mkdir -p w3; cp "$w3" w3/weights.json; }
play w3

# 4,000 games of generation 3's weights at 8,000 nodes a move (4 times the ladder's).
if [ ! -f deep8k.gtc.zst ]; then
    "$tune" datagen -w "$w3" --games 4000 --nodes 8000 --seed 11 -o deep8k.tmp.gtc.zst > deep8k.log 2>&1
    mv deep8k.tmp.gtc.zst deep8k.gtc.zst
fi

step() { # NAME MODEL START OPTIONS...: one tuning run (with the gate-like --verify for full)
    local name=$1 model=$2 start=$3
    shift 3
    local verify=()
    [ "$model" = full ] && verify=(--verify 200 --verify-nodes 5000)
    if [ ! -f "$name/summary.json" ]; then
        rm -rf "$name"
        "$tune" lbfgs --model "$model" --weights "$start" --quiet --l2 1e-8 --smooth 1e-9 \
            "${verify[@]}" --out "$name" "$@" > "$name.log" 2>&1
    fi
    [ "$model" = full ] && grep 'Elo (pent' "$name.log" | tail -1 | sed "s|^|$name vs generation 3: |"
    play "$name"
}

step f0all-l0 full "$w3" --lambda 0 --data "${f0[@]}"
step all12-l0 full "$w3" --lambda 0 --data "${f0[@]}" "${f[@]}"
step deep8k-l0 full "$w3" --lambda 0 --data deep8k.gtc.zst
step deep8k-l05 full "$w3" --lambda 0.5 --data deep8k.gtc.zst
step deep8k-w-l0 full "$w3" --lambda 0 --data deep8k.gtc.zst "$lf0"/gen00{6,7}/data.gtc.zst

# The mean of the lambda-0 ladder's seven tuned candidates (kept or not).
mkdir -p avg7
[ -f avg7/weights.json ] || python3 "$root/experiments/scripts/weights.py" mean avg7/weights.json "$lf0"/gen00{1..7}/weights.json
play avg7

# Generation 3's evaluation times 0.8, 1.3, 1.6 and 2: its scale has shrunk along the ladder
# (fitted K rising); the search has no centipawn margins, the games' adjudication has
# (`engine::Adjudication`: wins at 1,000 cp, draws at 10).
for x in 0.8 1.3 1.6 2.0; do
    mkdir -p "w3x$x"
    [ -f "w3x$x/weights.json" ] || python3 "$root/experiments/scripts/weights.py" scale "$w3" "w3x$x/weights.json" "$x"
    play "w3x$x"
done

# psqt from the psqt ladder's generation 16 on generation 3's games (and on all 96,000).
g16=$root/data/bootstrap-defaults-gen16.json
step psqt-w3-l0 psqt "$g16" --lambda 0 --data "${by_w3[@]}"
step psqt-w3-l05 psqt "$g16" --lambda 0.5 --data "${by_w3[@]}"
step psqt-w3-l1 psqt "$g16" --lambda 1 --data "${by_w3[@]}"
step psqt-all-l05 psqt "$g16" --lambda 0.5 --data "${f0[@]}" "${f[@]}"
step psqt-all-l075 psqt "$g16" --lambda 0.75 --data "${f0[@]}" "${f[@]}"
