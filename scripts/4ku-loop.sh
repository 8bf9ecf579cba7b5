#!/usr/bin/env bash
# 4ku's own loop from its shipped weights, then the kept weights against the shipped ones
# (issue 39; experiments/4ku-loop.md). Resumable: rerun the same command after Ctrl-C, a crash
# or the end of a session, and each step continues where it stopped (`tune loop` keeps its
# state in OUT/state.json; a finished match is not played again).
#
#   scripts/4ku-loop.sh WORKDIR [GENERATIONS] [MATCH_OPENINGS]
#
# WORKDIR receives 4ku built with engines/4ku/build.sh from ../shared/engines/4ku-917a087.tar.zst,
# the loop's directory (WORKDIR/loop) and the final match's report (WORKDIR/best-vs-shipped.txt).
# GENERATIONS (default 5) is how many generations the loop finishes in all; MATCH_OPENINGS
# (default 500, each played with both colours) the size of the final match at 5,000 nodes.
# Settings are those of experiments/4ku-loop.md: 3,000 self-play games a generation at
# 5,000 nodes, label blend 0.1, gates of up to 600 openings with SPRT (0, 5).
# TUNE overrides the `tune` binary (default: this checkout's, built in release).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
usage="usage: scripts/4ku-loop.sh WORKDIR [GENERATIONS] [MATCH_OPENINGS]"
work=${1:?$usage}
generations=${2:-5}
openings=${3:-500}
snapshot=$here/../shared/engines/4ku-917a087.tar.zst
[ -f "$snapshot" ] || { echo "scripts/4ku-loop.sh: $snapshot: no such file (the pinned 4ku snapshot)" >&2; exit 1; }
mkdir -p "$work"
work=$(cd "$work" && pwd)

if [ -z "${TUNE:-}" ]; then
    (cd "$here" && cargo build --release -q -p tune)
    TUNE=${CARGO_TARGET_DIR:-$here/target}/release/tune
fi
engine=$work/4ku-gradtune
[ -x "$engine" ] || "$here/engines/4ku/build.sh" "$snapshot" "$work" >/dev/null

"$TUNE" loop --engine "$engine" --manifest "$here/engines/4ku/manifest.json" --out "$work/loop" \
    --generations "$generations" --games 3000 --nodes 5000 --lambda 0.1 \
    --gate-openings 600 --gate-nodes 5000 --sprt 0,5 --seed 1

report=$work/best-vs-shipped.txt
if [ ! -s "$report" ]; then
    "$TUNE" match "uci:$engine" "uci:$engine" --weights-a "$work/loop/best.json" \
        --weights-b "$here/engines/4ku/manifest.json" --openings "$openings" --nodes 5000 \
        --seed 101 >"$report.partial"
    mv "$report.partial" "$report"
fi
cat "$report"
