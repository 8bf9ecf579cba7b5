#!/usr/bin/env bash
# `tune bench` A/B in one run: two `tune` binaries measured alternately (A, B, A, B, ...) on the
# same data, so that load on a shared machine falls on both alike; prints each round and the
# medians of the gradient pass and of load-and-record, per model (issue 41's "no slower").
#
#   scripts/bench-ab.sh TUNE_A TUNE_B [ROUNDS] [-- BENCH_ARGS...]
#
# ROUNDS defaults to 5. BENCH_ARGS go to both `tune bench` runs (default: the embedded data,
# all 220,834 positions, 20 passes, no L-BFGS run, and `--traced`). Build an older binary with
# `git worktree add /tmp/old COMMIT && cargo build --release -p tune` in it.
set -euo pipefail
usage="usage: scripts/bench-ab.sh TUNE_A TUNE_B [ROUNDS] [-- BENCH_ARGS...]"
a=${1:?$usage}
b=${2:?$usage}
shift 2
rounds=5
if [ $# -gt 0 ] && [ "$1" != -- ]; then
    rounds=$1
    shift
fi
[ "${1:-}" = -- ] && shift
cd "$(dirname "$0")/.."
if [ $# -eq 0 ]; then
    set -- --data data/default.gtc.zst --positions 220834 --passes 20 --no-lbfgs --traced
fi
for bin in "$a" "$b"; do
    [ -x "$bin" ] || { echo "scripts/bench-ab.sh: $bin is not an executable" >&2; exit 1; }
done
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
