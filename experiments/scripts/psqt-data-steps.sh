#!/usr/bin/env bash
# One tuning step on self-play games of the psqt ladder's best (data/bootstrap-defaults-gen16.json):
# does exploration (jittered piece values) or more games give data that plays better?
# Each variant is tuned from generation 16 (the bootstrap's settings) or from PeSTO's tables
# (result labels), then played against PeSTO's tables: 200 openings, 400 games, 10,000 nodes a
# move, --seed 1 (experiments/psqt-plateau.md, "Exploration and more games, one step"). Resumable: a
# finished data file, tuning run or match is kept.
#
#   experiments/scripts/psqt-data-steps.sh OUT [TUNE=target/release/tune] [PESTO=../shared/reference/pesto-psqt.json]
set -euo pipefail
usage="usage: experiments/scripts/psqt-data-steps.sh OUT [TUNE] [PESTO]"
here=$(dirname "$(realpath "$0")")
gen16=$(realpath data/bootstrap-defaults-gen16.json)
out=${1:?$usage}
tune=$(realpath "${2:-target/release/tune}")
pesto=$(realpath "${3:-../shared/reference/pesto-psqt.json}")
mkdir -p "$out"
cd "$out"
# shellcheck source=experiments/scripts/lib-play.sh
. "$here/lib-play.sh"   # play NAME, play_seed NAME SEED

games() { # FILE OPTIONS...: 8,000 games of generation 16 at 2,000 nodes
    local file=$1
    shift
    [ -f "$file" ] || "$tune" datagen --games 8000 --nodes 2000 -w "$gen16" -o "$file" "$@" \
        > "$file.txt" 2>&1
}

# The plain self-play games, four samples (seeds 99 to 102).
for seed in 99 100 101 102; do games "self$seed.gtc.zst" --seed $seed; done
# Every side's piece values jittered by up to 25% (tune datagen --jitter), seed 99.
games jitter.gtc.zst --seed 99 --jitter 0.25
# Generation 16 against eight fixed copies of itself with its piece values (the `material`
# weights) times 1 + N(0, 0.15) (Python's random, seed 7), seed 99.
if [ ! -f copies.gtc.zst ]; then
    python3 - "$gen16" <<'EOF'
import json, random, sys
doc = json.load(open(sys.argv[1]))
rng = random.Random(7)
for i in range(8):
    params = dict(doc["params"])
    for k in params:
        if k.startswith("material."):
            params[k] *= 1 + rng.gauss(0, 0.15)
    json.dump({"model": doc["model"], "params": params}, open(f"copy{i}.json", "w"), indent=1)
EOF
    games copies.gtc.zst --seed 99 $(for i in 0 1 2 3 4 5 6 7; do echo "--opponent copy$i.json"; done)
fi

step() { # NAME FROM(gen16|pesto) SMOOTH L2 LAMBDA DATA...
    local name=$1 from=$2 smooth=$3 l2=$4 lambda=$5
    shift 5
    local start=$gen16
    [ "$from" = pesto ] && start=$pesto
    [ -f "$name/summary.json" ] || "$tune" lbfgs --weights "$start" --data "$@" --smooth "$smooth" \
        --l2 "$l2" --lambda "$lambda" --quiet --out "$name" > "$name.log" 2>&1
    play "$name"
}

# From generation 16 with the bootstrap's settings; from PeSTO with the result labels.
g16=(1e-9 1e-8 0.5)
pe=(1e-9 1e-8 1)
four=(self99.gtc.zst self100.gtc.zst self101.gtc.zst self102.gtc.zst)
step g16-self gen16 "${g16[@]}" self99.gtc.zst
step g16-jitter gen16 "${g16[@]}" jitter.gtc.zst
step g16-copies gen16 "${g16[@]}" copies.gtc.zst
step pesto-self pesto "${pe[@]}" self99.gtc.zst
step pesto-jitter pesto "${pe[@]}" jitter.gtc.zst
step pesto-copies pesto "${pe[@]}" copies.gtc.zst
step g16-self2 gen16 "${g16[@]}" self99.gtc.zst self100.gtc.zst
step g16-self4 gen16 "${g16[@]}" "${four[@]}"
step pesto-self4 pesto "${pe[@]}" "${four[@]}"
# The smoothness prior, the pull and the labels on the four samples.
step g16-self4-smooth0 gen16 0 1e-8 0.5 "${four[@]}"
step g16-self4-smooth1e-10 gen16 1e-10 1e-8 0.5 "${four[@]}"
step g16-self4-l2-1e-9 gen16 1e-9 1e-9 0.5 "${four[@]}"
step g16-self4-lambda0 gen16 1e-9 1e-8 0 "${four[@]}"
step g16-self4-lambda1 gen16 1e-9 1e-8 1 "${four[@]}"
step pesto-self4-smooth0 pesto 0 1e-8 1 "${four[@]}"
# The pull, stronger: smaller steps from generation 16 on the four samples ("Smaller steps").
step g16-self4-l2-1e-7 gen16 1e-9 1e-7 0.5 "${four[@]}"
step g16-self4-l2-3e-7 gen16 1e-9 3e-7 0.5 "${four[@]}"
step g16-self4-l2-1e-6 gen16 1e-9 1e-6 0.5 "${four[@]}"
step g16-self4-l2-1e-6-smooth0 gen16 0 1e-6 0.5 "${four[@]}"
step g16-self4-l2-3e-6 gen16 1e-9 3e-6 0.5 "${four[@]}"
step g16-self-l2-1e-6 gen16 1e-9 1e-6 0.5 self99.gtc.zst
# Generation 16's tables sharpened or flattened around their means, the piece values kept
# (experiments/scripts/weights.py contrast).
for f in 0.75 1.5 2; do
    mkdir -p "g16-contrast-$f"
    [ -f "g16-contrast-$f/weights.json" ] ||
        python3 "$here/weights.py" contrast "$gen16" "g16-contrast-$f/weights.json" "$f"
    play "g16-contrast-$f"
done
# PeSTO's piece values on generation 16's tables (at generation 16's scale, 0.75).
mkdir -p g16-pesto-values
[ -f g16-pesto-values/weights.json ] ||
    python3 "$here/weights.py" material "$gen16" "$pesto" g16-pesto-values/weights.json 0.75
play g16-pesto-values
# One table at a time shaped as PeSTO's (at generation 16's scale, 0.75), generation 16's piece
# values kept (experiments/scripts/weights.py shape).
for piece in pawn knight bishop rook queen king; do
    mkdir -p "g16-shape-$piece"
    [ -f "g16-shape-$piece/weights.json" ] || python3 "$here/weights.py" shape "$gen16" "$pesto" \
        "g16-shape-$piece/weights.json" 0.75 "$piece"
    play "g16-shape-$piece"
done
# Generation 16 itself on the same openings (the ladder's matches use other ones).
mkdir -p gen16
cp "$gen16" gen16/weights.json
play gen16
# Two more matches (openings of --seed 2 and 3) for the rows whose difference the text reads.
for name in gen16 pesto-self4 pesto-self g16-self4-smooth0 g16-self4 g16-self4-l2-1e-6 \
    g16-pesto-values; do
    for seed in 2 3; do play_seed "$name" $seed; done
done
