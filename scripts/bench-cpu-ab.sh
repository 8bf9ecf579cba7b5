#!/usr/bin/env bash
# CPU time per pass of `tune bench`, for several `tune` binaries in rotation: for when the machine
# is too loaded for scripts/bench-ab.sh's wall times. Each measurement is the user+sys seconds of
# `tune bench --model MODEL --passes N2` minus those of `--passes N1`, over N2 - N1, with one rayon
# thread (RAYON_NUM_THREADS=1), so the figure is a pass's work whatever the load (no waiting for a
# core, no spinning); caches shared with other processes still add some noise.
#
#   scripts/bench-cpu-ab.sh MODEL ROUNDS TUNE...
#
# MODEL: psqt or full. Prints one line a binary a round; take the medians. Uses the embedded data
# (data/default.gtc.zst, all 220,834 positions), N1 = 5 and N2 = 405 passes.
set -euo pipefail
usage="usage: scripts/bench-cpu-ab.sh MODEL ROUNDS TUNE..."
model=${1:?$usage}
rounds=${2:?$usage}
shift 2
[ $# -gt 0 ] || { echo "$usage" >&2; exit 1; }
n1=5
n2=405
cd "$(dirname "$0")/.."
for bin in "$@"; do
    [ -x "$bin" ] || { echo "scripts/bench-cpu-ab.sh: $bin is not an executable" >&2; exit 1; }
done
times=$(mktemp)
trap 'rm -f "$times"' EXIT
cpu() {
    /usr/bin/time -f "%U %S" -o "$times" env RAYON_NUM_THREADS=1 "$1" bench \
        --data data/default.gtc.zst --positions 220834 --passes "$2" --no-lbfgs --model "$model" \
        >/dev/null 2>&1
    awk '{print $1 + $2}' "$times"
}
for r in $(seq 1 "$rounds"); do
    for bin in "$@"; do
        t1=$(cpu "$bin" $n1)
        t2=$(cpu "$bin" $n2)
        ms=$(python3 -c "print(f'{($t2 - $t1) / ($n2 - $n1) * 1000:.2f}')")
        echo "round $r $bin: $ms ms CPU a $model pass ($t1 s at $n1 passes, $t2 s at $n2)"
    done
done
