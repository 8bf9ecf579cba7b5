#!/usr/bin/env bash
# Threat terms or not, one step (experiments/threats.md, "Threats: the term `full` lacked"): 16,000
# self-play games of experiments/weights/bootstrap-full-gen2.json (the `full` ladder's best before the threat
# terms), one L-BFGS run from it with the threats held at 0 (A) and one with them tuned (B),
# each played against PeSTO's tables, and B against A. Resumable: a step whose output exists is
# skipped.
#
#   experiments/scripts/threats-ab.sh OUT [TUNE=target/release/tune] [PESTO=../shared/reference/pesto-psqt.json]
set -euo pipefail
out=${1:?usage: experiments/scripts/threats-ab.sh OUT [TUNE] [PESTO]}
tune=$(realpath "${2:-target/release/tune}")
pesto=$(realpath "${3:-../shared/reference/pesto-psqt.json}")
start=$(realpath experiments/weights/bootstrap-full-gen2.json)
lib=$(dirname "$(realpath "$0")")/lib-play.sh
mkdir -p "$out"
cd "$out"
# shellcheck source=experiments/scripts/lib-play.sh
. "$lib"   # match_into FILE A B SEED

[ -f games.gtc.zst ] || "$tune" datagen --games 16000 --nodes 2000 --seed 31 -w "$start" \
    -o games.gtc.zst
common=(--data games.gtc.zst --model full --weights "$start" --l2 1e-8 --smooth 1e-9 --lambda 0
    --quiet)
[ -f A/weights.json ] || "$tune" lbfgs "${common[@]}" --freeze threats --out A > A.log
[ -f B/weights.json ] || "$tune" lbfgs "${common[@]}" --out B > B.log
for x in A B; do match_into "$x-vs-pesto.txt" "$x/weights.json" "$pesto" 1; done
match_into B-vs-A.txt B/weights.json A/weights.json 2
tail -n 3 A-vs-pesto.txt B-vs-pesto.txt B-vs-A.txt
