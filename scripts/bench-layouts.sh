#!/usr/bin/env bash
# `tune bench` A/B with the memory layout held still: one thread pinned to one core, address
# randomisation off (`setarch -R`), and the process started under several sizes of
# environment, each of which moves the stack (and so every stack array of the pass) by a
# fixed amount. Per layout, each binary runs ROUNDS times alternately and keeps its fastest
# run (the virtual machines this was written on have a slow mode, about 1.3x, that a run
# falls into now and then as a whole); prints per layout A, B and B / A, then the median and
# the mean of the ratios and the spread of each binary across layouts.
#
#   scripts/bench-layouts.sh TUNE_A TUNE_B [ROUNDS] [-- BENCH_ARGS...]
#
# ROUNDS defaults to 3. BENCH_ARGS go to both `tune bench` runs (default: the `full` model on
# the embedded data, 60 passes). The first model in the output is the one timed.
set -euo pipefail
usage="usage: scripts/bench-layouts.sh TUNE_A TUNE_B [ROUNDS] [-- BENCH_ARGS...]"
a=${1:?$usage}
b=${2:?$usage}
shift 2
rounds=3
if [ $# -gt 0 ] && [ "$1" != -- ]; then
    rounds=$1
    shift
fi
[ "${1:-}" = -- ] && shift
cd "$(dirname "$0")/.."
if [ $# -eq 0 ]; then
    set -- --data data/default.gtc.zst --positions 220834 --passes 60 --no-lbfgs --model full
fi
for tool in setarch taskset python3; do
    command -v "$tool" >/dev/null || { echo "scripts/bench-layouts.sh: needs $tool" >&2; exit 1; }
done
for bin in "$a" "$b"; do
    [ -x "$bin" ] || { echo "scripts/bench-layouts.sh: $bin is not an executable" >&2; exit 1; }
done
# One timed run: the first model's best pass in milliseconds.
pass_ms() {
    local bin=$1 pad=$2
    shift 2
    RAYON_NUM_THREADS=1 taskset -c 0 setarch -R env GRADTUNE_LAYOUT_PAD="$pad" \
        "$bin" bench "$@" 2>/dev/null | python3 -c '
import json, sys
r = json.load(sys.stdin)
m = next(v for v in r.values() if isinstance(v, dict) and "gradient_pass_seconds" in v)
print(m["gradient_pass_seconds"] * 1e3)'
}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for size in 0 16 32 48 64 1024 2000 3000; do
    pad=$(head -c "$size" /dev/zero | tr '\0' x)
    ta=() tb=()
    for _ in $(seq 1 "$rounds"); do
        ta+=("$(pass_ms "$a" "$pad" "$@")")
        tb+=("$(pass_ms "$b" "$pad" "$@")")
    done
    echo "$size ${ta[*]} | ${tb[*]}" >>"$out"
done
python3 - "$out" "$a" "$b" <<'EOF'
import statistics, sys
path, a, b = sys.argv[1:]
print(f"A = {a}\nB = {b}\none thread, core 0, no address randomisation; fastest of each layout's runs\n")
print("| environment bytes | A pass ms | B pass ms | B / A |")
print("|---|---|---|---|")
ra, rb, q = [], [], []
for line in open(path):
    size, rest = line.split(" ", 1)
    xa, xb = rest.split("|")
    ma, mb = min(map(float, xa.split())), min(map(float, xb.split()))
    ra.append(ma); rb.append(mb); q.append(mb / ma)
    print(f"| {size} | {ma:.2f} | {mb:.2f} | {mb / ma:.3f} |")
print(f"\nB / A: median {statistics.median(q):.3f}, mean {statistics.mean(q):.3f}, "
      f"B slower in {sum(x > 1 for x in q)} of {len(q)} layouts")
print(f"spread across layouts: A {min(ra):.2f}-{max(ra):.2f} ms ({max(ra) / min(ra):.3f}), "
      f"B {min(rb):.2f}-{max(rb):.2f} ms ({max(rb) / min(rb):.3f})")
EOF
