# Sourced by the experiment scripts: play NAME/weights.json against PeSTO's tables, 200 openings
# (400 games) at 10,000 nodes a move, unless NAME.match.txt is there (a finished match is kept;
# an interrupted one leaves only NAME.match.tmp). Needs $tune and $pesto set.
play() { # NAME
    local name=$1
    if [ ! -f "$name.match.txt" ]; then
        "$tune" match "$name/weights.json" "$pesto" --openings 200 --nodes 10000 --seed 1 \
            > "$name.match.tmp" 2>&1
        mv "$name.match.tmp" "$name.match.txt"
    fi
    grep 'Elo (pent' "$name.match.txt" | sed "s|^|$name: |"
}
