# Sourced by the experiment scripts: play NAME/weights.json against PeSTO's tables, 200 openings
# (400 games) at 10,000 nodes a move, unless the match's file is there (a finished match is
# kept; an interrupted one leaves only a .tmp file). Needs $tune and $pesto set.
#   play NAME          the openings of --seed 1, into NAME.match.txt
#   play_seed NAME S   the openings of --seed S, into NAME.matchS.txt (S = 1: as play)
play_seed() { # NAME SEED
    local name=$1 seed=$2 file
    file=$name.match$seed.txt
    [ "$seed" = 1 ] && file=$name.match.txt
    if [ ! -f "$file" ]; then
        "$tune" match "$name/weights.json" "$pesto" --openings 200 --nodes 10000 --seed "$seed" \
            > "$file.tmp" 2>&1
        mv "$file.tmp" "$file"
    fi
    if [ "$seed" = 1 ]; then
        grep 'Elo (pent' "$file" | sed "s|^|$name: |"
    else
        grep 'Elo (pent' "$file" | sed "s|^|$name, --seed $seed: |"
    fi
}
play() { play_seed "$1" 1; } # NAME
