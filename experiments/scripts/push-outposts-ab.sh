#!/usr/bin/env bash
# Pawn-push threats and outposts or not, one step (experiments/threats.md, "Pawn-push threats and
# outposts"): 16,000 self-play games of experiments/weights/bootstrap-full-threats-gen2.json (the `full`
# ladder's best, which has both groups at 0), then L-BFGS runs from it on them at the ladders'
# pull and prior with the search's scores as labels (`--lambda 0`): both groups held at 0 (A),
# both tuned (B), only the pawn-push threats tuned (P), only the outposts tuned (O); and, for
# the labels, A at the bootstrap's blend `--lambda 0.5` (L). Matches of 400 games at 10,000
# nodes a move: each against PeSTO's tables, B, P, O against A, A, B against the start, A
# against L.
# Resumable: a step whose output exists is skipped.
#
#   experiments/scripts/push-outposts-ab.sh OUT [TUNE=target/release/tune] [PESTO=../shared/reference/pesto-psqt.json]
set -euo pipefail
out=${1:?usage: experiments/scripts/push-outposts-ab.sh OUT [TUNE] [PESTO]}
tune=$(realpath "${2:-target/release/tune}")
pesto=$(realpath "${3:-../shared/reference/pesto-psqt.json}")
start=$(realpath experiments/weights/bootstrap-full-threats-gen2.json)
lib=$(dirname "$(realpath "$0")")/lib-play.sh
mkdir -p "$out"
cd "$out"
# shellcheck source=experiments/scripts/lib-play.sh
. "$lib"   # match_into FILE A B SEED; play_seed NAME SEED

[ -f games.gtc.zst ] || "$tune" datagen --games 16000 --nodes 2000 --seed 41 -w "$start" \
    -o games.gtc.zst
common=(--data games.gtc.zst --model full --weights "$start" --l2 1e-8 --smooth 1e-9 --quiet)
run() { # NAME OPTIONS...
    local name=$1
    shift
    [ -f "$name/weights.json" ] || "$tune" lbfgs "${common[@]}" "$@" --out "$name" > "$name.log"
}
run A --lambda 0 --freeze push_threats --freeze outposts
run B --lambda 0
run P --lambda 0 --freeze outposts
run O --lambda 0 --freeze push_threats
run L --lambda 0.5 --freeze push_threats --freeze outposts
for x in A B P O; do match_into "$x-vs-pesto.txt" "$x/weights.json" "$pesto" 1; done
for x in B P O; do match_into "$x-vs-A.txt" "$x/weights.json" A/weights.json 2; done
# More openings for the closest calls: B against A, and A, B, L against PeSTO.
for s in 3 4 5; do match_into "B-vs-A.s$s.txt" B/weights.json A/weights.json "$s"; done
for x in A B; do for s in 2 3; do play_seed "$x" "$s" > /dev/null; done; done
for s in 1 2 3; do play_seed L "$s" > /dev/null; done
for s in 1 2; do match_into "A-vs-gen2.s$s.txt" A/weights.json "$start" "$s"; done
match_into B-vs-gen2.s1.txt B/weights.json "$start" 1
for s in 1 2; do match_into "A-vs-L.s$s.txt" A/weights.json L/weights.json "$s"; done
for f in {A,B,P,O}-vs-pesto.txt {A,B}.match{2,3}.txt L.match{,2,3}.txt {B,P,O}-vs-A.txt \
    B-vs-A.s{3,4,5}.txt A-vs-gen2.s{1,2}.txt B-vs-gen2.s1.txt A-vs-L.s{1,2}.txt; do
    printf '%s: ' "$f"
    grep 'Elo (pent' "$f"
done
