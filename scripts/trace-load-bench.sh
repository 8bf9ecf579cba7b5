#!/usr/bin/env bash
# How fast a traced set loads (read, verify, split by game, record: what `tune` does before
# tuning) and its peak memory, for text traces and their binary cache (issue 40's goals for
# 1 M positions of 4ku's traces: text <= 4 s, binary <= 1 s, peak <= 150 MB).
#
#   scripts/trace-load-bench.sh MANIFEST TRACES       # your traces (e.g. real 4ku ones)
#   scripts/trace-load-bench.sh --synthetic N [--const] [--scale]
#
# The second form first writes N synthetic traces of a 4ku-like evaluation (150 tapered
# elements, ~40 nonzero coefficients a position, random games; `--const`/`--scale` add 4ku's
# per-position constant and endgame scale) with the `synth_traces` example. Either way the
# traces are also written as a binary cache (`GTTRACE1`, plain) beside them, then each form is
# loaded by the `load_traces` example under GNU time at `nice -n 10`; the lines printed are
# the load's own time, the stores' sizes, and GNU time's wall clock and peak RSS.
# Set LOAD_TRACES=/path/to/an/older/load_traces to time another build of the example.
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: scripts/trace-load-bench.sh MANIFEST TRACES | --synthetic N [--const] [--scale]"
cargo build --release -q -p trace --example synth_traces
cargo build --release -q -p texel --example load_traces
bin=${CARGO_TARGET_DIR:-target}/release/examples
load=${LOAD_TRACES:-$bin/load_traces}
if [ "${1:-}" = --synthetic ]; then
    n=${2:?$usage}
    shift 2
    dir=$(mktemp -d)
    trap 'rm -rf "$dir"' EXIT
    "$bin/synth_traces" "$n" "$dir" "$@"
    manifest=$dir/manifest.json
    traces=$dir/traces.txt
else
    manifest=${1:?$usage}
    traces=${2:?$usage}
    dir=$(mktemp -d)
    trap 'rm -rf "$dir"' EXIT
fi
"$bin/load_traces" "$manifest" "$traces" --write-binary "$dir/traces.bin" | tail -1
for f in "$traces" "$dir/traces.bin"; do
    echo "== $f"
    /usr/bin/time -v nice -n 10 "$load" "$manifest" "$f" 2>"$dir/time.log" | grep -E '^load:|kept|left out'
    grep -E 'Elapsed|Maximum resident' "$dir/time.log"
done
