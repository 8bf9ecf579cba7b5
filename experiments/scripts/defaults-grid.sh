#!/usr/bin/env bash
# The grid of issue 11, item 2: extraction filters, leaf, regularisation and K on the TCEC games,
# each judged by its held-out loss and by a match against material only.
# Resumable: a cell whose match result exists is skipped. Usage:
#   experiments/scripts/defaults-grid.sh [OUT_DIR]        (default runs/grid)
# Environment: OPENINGS (200), NODES (10000), CELLS (space-separated subset of cell names).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-runs/grid}
openings=${OPENINGS:-200}
nodes=${NODES:-10000}
pgn=../shared/data/tcec-standard.pgn.zst
[ -f "$pgn" ] || { echo "error: $pgn is missing (the shared data folder)" >&2; exit 1; }
cargo build --release -p tune -q
mkdir -p "$out"
# A copy of the binary, so that rebuilding during the grid does not change the cells.
cp target/release/tune "$out/tune.bin"
tune="$out/tune.bin"


# name | extract options | tuning options
cells=(
  "none-l2_0|--filter none|--l2 0"
  "none-l2_1e-8|--filter none|--l2 1e-8"
  "quiet-skip8-l2_0|--filter quiet --skip-plies 8|--l2 0"
  "quiet-skip8-l2_1e-8|--filter quiet --skip-plies 8|--l2 1e-8"
  "quiet-skip8-check-dedup-l2_0|--filter quiet --skip-plies 8 --skip-check --dedup|--l2 0"
  "qleaf-skip8-l2_0|--filter qleaf --skip-plies 8|--l2 0"
  "none-leafq-l2_0|--filter none|--l2 0 --leaf qsearch"
  "quiet-skip8-k1-l2_0|--filter quiet --skip-plies 8|--l2 0 --k 1.0"
  "quiet-skip8-l2_auto|--filter quiet --skip-plies 8|--l2 auto"
  "none-l2_auto|--filter none|--l2 auto"
)

for c in "${cells[@]}"; do
  IFS='|' read -r name ext tun <<<"$c"
  if [ -n "${CELLS:-}" ] && [[ " $CELLS " != *" $name "* ]]; then continue; fi
  d="$out/$name"
  [ -s "$d/match.txt" ] && { echo "== $name: done"; continue; }
  mkdir -p "$d"
  key=$(echo "$ext" | tr -c 'a-z0-9' '_')
  data="$out/data-$key.gtc.zst"
  if [ ! -s "$data" ]; then
    echo "== extract $ext"
    $tune extract $pgn $ext -o "$data.tmp.gtc.zst" 2>&1 | tail -3
    mv "$data.tmp.gtc.zst" "$data"
  fi
  echo "== $name: tune ($tun)"
  $tune lbfgs --data "$data" $tun --quiet --out "$d/run" > "$d/tune.txt" 2>&1
  echo "== $name: match against material only ($openings openings, $nodes nodes)"
  $tune match "$d/run/weights.json" default --openings "$openings" --nodes "$nodes" --seed 1 \
    > "$d/match.tmp" 2>&1
  mv "$d/match.tmp" "$d/match.txt"
  grep -E "^loss|selection" "$d/tune.txt" || true
  grep -E "pentanomial" "$d/match.txt" || true
done
