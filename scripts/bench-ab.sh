#!/usr/bin/env bash
# `tune bench` A/B in one run: two `tune` binaries measured alternately (A, B, A, B, ...) on the
# same data, so that load on a shared machine falls on both alike; prints each round and the
# medians of the gradient pass and of load-and-record, per model (issue 41's "no slower").
#
#   scripts/bench-ab.sh [--layouts] TUNE_A TUNE_B [ROUNDS] [-- BENCH_ARGS...]
#
# ROUNDS defaults to 5. BENCH_ARGS go to both `tune bench` runs (default: the embedded data,
# all 220,834 positions, 20 passes, no L-BFGS run, and `--traced`). Build an older binary with
# `git worktree add /tmp/old COMMIT && cargo build --release -p tune` in it.
#
# With `--layouts`, the memory layout held still instead: one thread pinned to one core, address
# randomisation off (`setarch -R`), and the process started under several sizes of
# environment, each of which moves the stack (and so every stack array of the pass) by a
# fixed amount. Per layout, each binary runs ROUNDS times alternately and keeps its fastest
# run (the virtual machines this was written on have a slow mode, about 1.3x, that a run
# falls into now and then as a whole); prints per layout A, B and B / A, then the median and
# the mean of the ratios and the spread of each binary across layouts.
# ROUNDS defaults to 3 there, and BENCH_ARGS to the `full` model on the embedded data, 60
# passes; the first model in the output is the one timed.
set -euo pipefail
usage="usage: scripts/bench-ab.sh [--layouts] TUNE_A TUNE_B [ROUNDS] [-- BENCH_ARGS...]"
layouts=false
if [ "${1:-}" = --layouts ]; then
    layouts=true
    shift
fi
a=${1:?$usage}
b=${2:?$usage}
shift 2
rounds=5
$layouts && rounds=3
if [ $# -gt 0 ] && [ "$1" != -- ]; then
    rounds=$1
    shift
fi
[ "${1:-}" = -- ] && shift
cd "$(dirname "$0")/.."
if [ $# -eq 0 ] && $layouts; then
    set -- --data data/default.gtc.zst --positions 220834 --passes 60 --no-lbfgs --model full
elif [ $# -eq 0 ]; then
    set -- --data data/default.gtc.zst --positions 220834 --passes 20 --no-lbfgs --traced
fi
for bin in "$a" "$b"; do
    [ -x "$bin" ] || { echo "scripts/bench-ab.sh: $bin is not an executable" >&2; exit 1; }
done
# One timed run for --layouts: the first model's best pass in milliseconds, one thread pinned
# to core 0, no address randomisation, the environment padded by the given text.
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

# The --layouts A/B: per layout each binary's runs into "$1", a line a layout.
layouts_ab() {
    local out=$1 size pad
    shift
    for tool in setarch taskset; do
        command -v "$tool" >/dev/null || { echo "scripts/bench-ab.sh: --layouts needs $tool" >&2; exit 1; }
    done
    for size in 0 16 32 48 64 1024 2000 3000; do
        pad=$(head -c "$size" /dev/zero | tr '\0' x)
        local ta=() tb=()
        for _ in $(seq 1 "$rounds"); do
            ta+=("$(pass_ms "$a" "$pad" "$@")")
            tb+=("$(pass_ms "$b" "$pad" "$@")")
        done
        echo "$size ${ta[*]} | ${tb[*]}" >>"$out"
    done
}

if $layouts; then
    out=$(mktemp)
    trap 'rm -f "$out"' EXIT
    layouts_ab "$out" "$@"
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
    exit 0
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for r in $(seq 1 "$rounds"); do
    "$a" bench "$@" >"$out/a$r.json"
    "$b" bench "$@" >"$out/b$r.json"
done
python3 - "$out" "$rounds" "$a" "$b" <<'EOF'
import json, statistics, sys
out, rounds, a, b = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
runs = {s: [json.load(open(f"{out}/{s}{r}.json")) for r in range(1, rounds + 1)] for s in "ab"}
models = [k for k, v in runs["a"][0].items() if isinstance(v, dict) and "gradient_pass_seconds" in v]
print(f"A = {a}\nB = {b}\n{rounds} rounds, A and B alternately\n")
print("| model | A pass s (median) | B pass s (median) | B / A | A load s | B load s |")
print("|---|---|---|---|---|---|")
for m in models:
    pa = [r[m]["gradient_pass_seconds"] for r in runs["a"] if m in r]
    pb = [r[m]["gradient_pass_seconds"] for r in runs["b"] if m in r]
    la = [r[m]["load_record_seconds"] for r in runs["a"] if m in r]
    lb = [r[m]["load_record_seconds"] for r in runs["b"] if m in r]
    if not pa or not pb:
        continue
    ma, mb = statistics.median(pa), statistics.median(pb)
    print(f"| {m} | {ma:.5f} | {mb:.5f} | {mb / ma:.3f} | {statistics.median(la):.3f} | {statistics.median(lb):.3f} |")
print("\nrounds (pass seconds, A / B):")
for m in models:
    pairs = [f"{x[m]['gradient_pass_seconds']:.5f}/{y[m]['gradient_pass_seconds']:.5f}"
             for x, y in zip(runs["a"], runs["b"]) if m in x and m in y]
    print(f"  {m}: " + "  ".join(pairs))
EOF
