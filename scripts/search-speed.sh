#!/usr/bin/env bash
# Self-play speed of two `tune` binaries at the same search (docs/benchmarks.md, "Self-play
# and matches"; the history in experiments/benchmarks-log.md, "Search speed"): for each weights
# file, REPS interleaved runs of
#   tune datagen --games 200 --nodes 2000 --seed 20261122 -w WEIGHTS
# on both cores, wall and user CPU time of each (GNU time), and whether the two binaries wrote
# the same positions (compared as EPD text, since the cache container may differ between
# versions). One line per run on stdout, a summary (medians) at the end.
#
#   scripts/search-speed.sh BEFORE AFTER WEIGHTS... [REPS=5 GAMES=200 in the environment]
#
# Weights "default" means no -w (the material-only defaults).
set -euo pipefail
before=${1:?usage: scripts/search-speed.sh BEFORE AFTER WEIGHTS...}
after=${2:?usage: scripts/search-speed.sh BEFORE AFTER WEIGHTS...}
shift 2
[ $# -gt 0 ] || { echo "usage: scripts/search-speed.sh BEFORE AFTER WEIGHTS..." >&2; exit 1; }
reps=${REPS:-5}
games=${GAMES:-200}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.2f", m}'; }

for weights in "$@"; do
    w=()
    [ "$weights" = default ] || w=(-w "$weights")
    for r in $(seq "$reps"); do
        for side in before after; do
            bin=$before
            [ $side = after ] && bin=$after
            /usr/bin/time -f "%e %U" -o "$work/time" \
                "$bin" datagen --games "$games" --nodes 2000 --seed 20261122 "${w[@]}" \
                -o "$work/$side.gtc.zst" > "$work/$side.out" 2>&1
            read -r wall user < "$work/time"
            positions=$(grep -oE '[0-9]+ positions written' "$work/$side.out" | cut -d' ' -f1)
            echo "$weights $side run $r: wall $wall s, user $user s, $positions positions"
            echo "$wall" >> "$work/$side.wall"
            echo "$user" >> "$work/$side.user"
        done
    done
    for side in before after; do
        "$after" extract "$work/$side.gtc.zst" --filter none --skip-plies 0 -o "$work/$side.epd" \
            > /dev/null 2>&1
    done
    same=$(cmp -s "$work/before.epd" "$work/after.epd" && echo identical || echo DIFFERENT)
    bw=$(median < "$work/before.wall"); aw=$(median < "$work/after.wall")
    bu=$(median < "$work/before.user"); au=$(median < "$work/after.user")
    echo "SUMMARY $weights: median wall $bw -> $aw s ($(awk -v a="$bw" -v b="$aw" 'BEGIN{printf "%.2f", a/b}')x), median user $bu -> $au s ($(awk -v a="$bu" -v b="$au" 'BEGIN{printf "%.2f", a/b}')x), positions $same"
    rm -f "$work"/*.wall "$work"/*.user
done
