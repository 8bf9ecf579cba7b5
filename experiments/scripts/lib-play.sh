# Sourced by the experiment scripts: matches of 200 openings (400 games) at 10,000 nodes a move,
# each written to its file through a .tmp file, so a finished match is kept and an interrupted
# one leaves only the .tmp (rerunning the script plays it again). Needs $tune set, and $pesto
# for play and play_seed.
#   match_into FILE A B S   A against B on the openings of --seed S, unless FILE is there
#   play NAME               NAME/weights.json against PeSTO's tables, --seed 1: NAME.match.txt
#   play_seed NAME S        the same on --seed S: NAME.matchS.txt (S = 1: as play)
match_into() { # FILE A B SEED
    if [ ! -f "$1" ]; then
        "$tune" match "$2" "$3" --openings 200 --nodes 10000 --seed "$4" > "$1.tmp" 2>&1
        mv "$1.tmp" "$1"
    fi
}
play_seed() { # NAME SEED
    local name=$1 seed=$2 file label
    file=$name.match$seed.txt
    label="$name, --seed $seed"
    if [ "$seed" = 1 ]; then
        file=$name.match.txt
        label=$name
    fi
    match_into "$file" "$name/weights.json" "$pesto" "$seed"
    grep 'Elo (pent' "$file" | sed "s|^|$label: |"
}
play() { play_seed "$1" 1; } # NAME
