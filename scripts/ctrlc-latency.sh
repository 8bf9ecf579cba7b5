#!/usr/bin/env bash
# Ctrl-C latency of every tuning method (issue 16, item 2): start `tune METHOD --model full` on
# a large cache, wait until the first iteration is logged, wait DELAY seconds more (to land
# inside an iteration), send SIGINT, and time the exit; then check the exit code, that
# summary.json says "interrupted", that weights.json loads (`tune eval`) and that the kept
# iteration is one of the log. One line per method:
#   method  iterations-logged-at-signal  seconds-from-SIGINT-to-exit  exit-code  checks
# Usage: scripts/ctrlc-latency.sh DATA [METHOD...]   (default: every method)
# Environment: DELAY (0.5), OUT (runs/ctrlc), TUNE (target/release/tune), EXTRA (more options).
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:?usage: scripts/ctrlc-latency.sh DATA [METHOD...]}
shift
methods=("$@")
[ ${#methods[@]} -gt 0 ] || methods=(lbfgs gauss-newton adam local pso hybrid)
delay=${DELAY:-0.5}
out=${OUT:-runs/ctrlc}
tune=${TUNE:-target/release/tune}
check_data=../shared/data/quiet-labeled-1k.epd
[ -x "$tune" ] || { echo "error: $tune is missing (cargo build --release -p tune)" >&2; exit 1; }
[ -f "$check_data" ] || { echo "error: $check_data is missing (the shared data folder)" >&2; exit 1; }
mkdir -p "$out"
now() { date +%s.%N; }
for m in "${methods[@]}"; do
  dir="$out/$m"
  rm -rf "$dir"
  # shellcheck disable=SC2086
  "$tune" "$m" --data "$data" --model full --out "$dir" --max-iters 100000 --quiet ${EXTRA:-} \
    > "$out/$m.out" 2> "$out/$m.err" &
  pid=$!
  while kill -0 "$pid" 2>/dev/null && [ "$(cat "$dir/log.jsonl" 2>/dev/null | wc -l)" -lt 2 ]; do
    sleep 0.05
  done
  sleep "$delay"
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "$m: finished before the signal"
    continue
  fi
  logged=$(wc -l < "$dir/log.jsonl")
  t0=$(now)
  kill -INT "$pid"
  code=0
  wait "$pid" || code=$?
  t1=$(now)
  secs=$(echo "$t1 - $t0" | bc)
  checks=ok
  grep -q '"reason": "interrupted"' "$dir/summary.json" 2>/dev/null || checks="summary-not-interrupted"
  "$tune" eval "$dir/weights.json" --data "$check_data" > /dev/null 2>&1 || checks="$checks weights-do-not-load"
  best=$(sed -n 's/.*"best_iter": \([0-9]*\).*/\1/p' "$dir/summary.json" 2>/dev/null)
  grep -q "\"iter\":$best," "$dir/log.jsonl" 2>/dev/null || checks="$checks best-not-logged"
  printf '%-13s %4d %6.2f %3d %s\n' "$m" "$((logged - 1))" "$secs" "$code" "$checks"
done
