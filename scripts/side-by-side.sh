#!/usr/bin/env bash
# gradtune beside the engines' own tuners, on the same positions, in one run, one table:
#
#   scripts/side-by-side.sh [WORK]        (WORK: where everything goes; default /tmp/side-by-side)
#
# 1. builds the release `tune`, 4ku with gradtune's patch, texel-tuner with its copy of 4ku's
#    evaluation (engines/texel-tuner), Ethereal with gradtune's patch and Ethereal's own tuner
#    (`make tune`, its tuner.h's constants set by `sed` as engines/ethereal/README.md says),
#    all from the snapshots in ../shared/engines;
# 2. extracts TCEC's quiet positions (`tune extract`, defaults) and keeps the first POSITIONS
#    (4ku: split by game, a tenth held out) and ETH_POSITIONS (Ethereal) lines;
# 3. traces them with 4ku and with Ethereal (`tune trace --jobs 2`);
# 4. 4ku: gradtune from zero at texel-tuner's K (2.1 base e: 0.912011 base 10) on the training
#    positions, without the prior (the peers fit the bare objective), then texel-tuner on the
#    same (TT_EPOCHS epochs of Adam, 2 threads); both tuners' integer weights (texel-tuner's
#    last printed ones) judged by gradtune on the training and on the held-out positions;
# 5. Ethereal: gradtune from the shipped weights on all positions at its fitted K, then
#    Ethereal's tuner (ETH_EPOCHS epochs of AdaGrad, 2 OpenMP threads); its last printed weights
#    judged at gradtune's K;
# 6. prints one table per engine (markdown, also in WORK/side-by-side-POSITIONS-ETH_POSITIONS.md).
#
# Each step's output is kept in WORK, and a rerun skips the steps whose output is there (delete
# a file to redo its step). Times are wall seconds on whatever else the machine is doing: run it
# on an idle machine for the benchmark page. Peak memory is GNU time's maximum resident set.
#
# Environment: SHARED (../shared beside the repository), POSITIONS (1000000), ETH_POSITIONS
# (200000), TT_EPOCHS (5001, texel-tuner's own), ETH_EPOCHS (1001), SKIP_ETHEREAL=1 (4ku only).
# Needs: cargo, g++, gcc with OpenMP, make, patch, zstd, python3, GNU time (/usr/bin/time),
# stdbuf (the peers' output line by line, so that each line's time stamp is when it was printed).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=${1:-/tmp/side-by-side}
shared=${SHARED:-$here/../shared}
positions=${POSITIONS:-1000000}
eth_positions=${ETH_POSITIONS:-200000}
tt_epochs=${TT_EPOCHS:-5001}
eth_epochs=${ETH_EPOCHS:-1001}
k4ku=0.912011 # texel-tuner's K for 4ku, 2.1 base e, in gradtune's base 10
# The runs' names in WORK carry their sizes, so that runs of other sizes share one WORK.
g4=gt-4ku-$positions
t4=tt-$positions-$tt_epochs
ge=gt-eth-$eth_positions
te=eth-$eth_positions-$eth_epochs

die() {
    echo "side-by-side.sh: $*" >&2
    exit 1
}
for tool in cargo g++ gcc make patch zstd python3 stdbuf; do
    command -v "$tool" >/dev/null || die "$tool not found"
done
[ -x /usr/bin/time ] || die "GNU time (/usr/bin/time) not found"
for snap in 4ku-917a087 texel-tuner-e5f8de3 Ethereal-0e47e9b; do
    [ -f "$shared/engines/$snap.tar.zst" ] || die "$shared/engines/$snap.tar.zst: no such file (SHARED?)"
done
[ -f "$shared/data/tcec-standard.pgn.zst" ] || die "$shared/data/tcec-standard.pgn.zst: no such file"
mkdir -p "$work"
work=$(cd "$work" && pwd)
log() { echo "$(date -u +%T) $*" >&2; }

# `timed NAME CMD...`: runs CMD under GNU time (WORK/NAME.time), its stdout through a filter
# that stamps each line with the seconds since the start (WORK/NAME.log, carriage returns as
# line breaks), its stderr into WORK/NAME.err.
timed() {
    local name=$1
    shift
    /usr/bin/time -v -o "$work/$name.time" "$@" 2>"$work/$name.err" | python3 -u -c '
import sys, time
t0 = time.monotonic()
for raw in sys.stdin.buffer:
    for line in raw.decode("utf-8", "replace").replace("\r", "\n").splitlines():
        print(f"{time.monotonic() - t0:.3f}\t{line}", flush=True)
' >"$work/$name.log"
}

# --- 1. builds ---------------------------------------------------------------------------
log "building tune (release)"
(cd "$here" && cargo build --release -q -p tune)
tune=$here/target/release/tune
fourku=$work/4ku/4ku-gradtune
[ -x "$fourku" ] || "$here/engines/4ku/build.sh" "$shared/engines/4ku-917a087.tar.zst" "$work/4ku" >/dev/null
tt=$work/tt/texel-tuner-4ku-$tt_epochs
if [ ! -x "$tt" ]; then
    log "building texel-tuner ($tt_epochs epochs)"
    "$here/engines/texel-tuner/build.sh" "$shared/engines/texel-tuner-e5f8de3.tar.zst" "$work/tt" >/dev/null
    header=$work/tt/texel-tuner/src/engines/fourku.h
    grep -q 'max_epoch = 5001;' "$header" || die "$header: no \`max_epoch = 5001;\` to set"
    sed -i "s/max_epoch = 5001;/max_epoch = $tt_epochs;/" "$header"
    make -s -C "$work/tt/texel-tuner/src" CXX=g++ >&2
    mv "$work/tt/texel-tuner/src/tuner" "$tt"
fi
if [ "${SKIP_ETHEREAL:-0}" != 1 ]; then
    ethereal=$work/ethereal/ethereal-gradtune
    [ -x "$ethereal" ] || "$here/engines/ethereal/build.sh" "$shared/engines/Ethereal-0e47e9b.tar.zst" "$work/ethereal" >/dev/null
    eth_tuner=$work/eth-tune/ethereal-tuner-$eth_positions-$eth_epochs
    if [ ! -x "$eth_tuner" ]; then
        log "building Ethereal's tuner ($eth_positions positions, $eth_epochs epochs)"
        rm -rf "$work/eth-tune/Ethereal"
        mkdir -p "$work/eth-tune"
        tar --zstd -xf "$shared/engines/Ethereal-0e47e9b.tar.zst" -C "$work/eth-tune"
        (
            cd "$work/eth-tune/Ethereal/src"
            sed -i \
                -e 's/^#define TuneNormal     (       0)/#define TuneNormal     (       1)/' \
                -e 's/^#define TuneSafety     (       0)/#define TuneSafety     (       1)/' \
                -e 's/^#define TuneComplexity (       0)/#define TuneComplexity (       1)/' \
                -e 's/^#define NTERMS         (       0)/#define NTERMS         (     904)/' \
                -e "s/^#define NPOSITIONS     (42487498)/#define NPOSITIONS     ($eth_positions)/" \
                -e "s/^#define MAXEPOCHS      (  100000)/#define MAXEPOCHS      ($eth_epochs)/" tuner.h
            grep -q "NPOSITIONS     ($eth_positions)" tuner.h || die "tuner.h: NPOSITIONS not set"
            make -s tune CC=gcc EXE="$eth_tuner" >&2
        )
    fi
fi

# --- 2. positions ------------------------------------------------------------------------
quiet=$work/tcec-quiet.epd
if [ ! -s "$quiet" ]; then
    log "extracting TCEC's quiet positions"
    # (`tune extract` writes its output atomically)
    "$tune" extract "$shared/data/tcec-standard.pgn.zst" -o "$quiet" 2>"$work/extract.err"
fi
take() { # take N FILE: the first N lines of the quiet positions into FILE
    [ -s "$2" ] || { head -n "$1" "$quiet" >"$2.tmp" && mv "$2.tmp" "$2"; }
}
take "$positions" "$work/quiet-$positions.epd"
# The 4ku positions split by game: games whose number ends in 9 held out (about a tenth), the
# rest the training set both tuners fit.
train=$work/train-$positions.epd
held=$work/held-$positions.epd
if [ ! -s "$held" ]; then
    python3 - "$work/quiet-$positions.epd" "$train.tmp" "$held.tmp" <<'EOF'
import re, sys
src, train, held = sys.argv[1:]
with open(src) as f, open(train, "w") as t, open(held, "w") as h:
    for line in f:
        m = re.search(r"\bgame (\d+)", line)
        if not m:
            sys.exit(f"{src}: a line without `game N`: {line.strip()}")
        (h if m.group(1).endswith("9") else t).write(line)
EOF
    mv "$train.tmp" "$train"
    mv "$held.tmp" "$held"
fi

# --- 3. traces ---------------------------------------------------------------------------
manifest4=$here/engines/4ku/manifest.json
trace4() { # trace4 EPD TRACES: 4ku's traces of EPD
    if [ ! -s "$2" ]; then
        log "tracing $1 with 4ku"
        "$tune" trace --engine "$fourku" --manifest "$manifest4" --jobs 2 "$1" -o "$2" \
            2>>"$work/trace-4ku.err"
    fi
}
trace_train=$work/4ku-train-$positions.trace.zst
trace_held=$work/4ku-held-$positions.trace.zst
trace4 "$train" "$trace_train"
trace4 "$held" "$trace_held"

# --- 4. 4ku: gradtune and texel-tuner ----------------------------------------------------
zero=$work/4ku-zero.json
python3 - "$manifest4" >"$zero" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
def zero(v):
    return [zero(x) for x in v] if isinstance(v, list) and v and isinstance(v[0], list) else [0] * len(v) if isinstance(v, list) else 0
for p in m["params"]:
    p["value"] = zero(p["value"])
json.dump(m, sys.stdout, indent=2)
EOF

# `gradtune NAME ARGS...`: `tune lbfgs ARGS --out WORK/NAME`, timed, with the moment its fit
# began (its log.jsonl appeared) in WORK/NAME.fit-start (seconds after the command started).
gradtune() {
    local name=$1
    shift
    [ -s "$work/$name/summary.json" ] && return
    rm -rf "${work:?}/$name"
    log "gradtune: $name"
    local t0 pid
    t0=$(date +%s.%N)
    timed "$name" "$tune" lbfgs "$@" --out "$work/$name" &
    pid=$!
    until [ -s "$work/$name/log.jsonl" ] || ! kill -0 "$pid" 2>/dev/null; do sleep 0.02; done
    python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$t0" "$(date +%s.%N)" \
        >"$work/$name.fit-start"
    wait "$pid"
}
# All the training positions (`--valid-fraction 0`, as texel-tuner fits them), no prior
# (`--prior-positions 0`: it would hold weights with little support near the start, here zero;
# the peers fit the bare objective).
gradtune "$g4" --trace "$trace_train" --manifest "$manifest4" --weights "$zero" --k "$k4ku" \
    --valid-fraction 0 --prior-positions 0 --no-verify-traces --threads 2
# The same to a tighter stop: the default (a fall below 1e-5 of the loss over 5 iterations) may
# end a little above texel-tuner's final loss; the time to reach it is this run's.
gradtune "$g4-tight" --trace "$trace_train" --manifest "$manifest4" --weights "$zero" --k "$k4ku" \
    --valid-fraction 0 --prior-positions 0 --no-verify-traces --threads 2 --stop-rel-loss 1e-7

if [ ! -s "$work/$t4.log" ] || ! grep -q "Epoch $((tt_epochs - 1 - (tt_epochs - 1) % 100))" "$work/$t4.log"; then
    log "texel-tuner: $tt_epochs epochs"
    echo "$train,0,0" >"$work/tt-sources.csv"
    (cd "$work" && timed "$t4" stdbuf -oL "$tt" "$work/tt-sources.csv")
fi
cut -f2- "$work/$t4.log" >"$work/$t4.out"
python3 "$here/engines/texel-tuner/tuner-weights.py" "$manifest4" "$work/$t4.out" >"$work/$t4-final.json"
# Both tuners' integer weights judged by gradtune on the training and the held-out positions.
judge() { # judge WEIGHTS TRACES OUT
    "$tune" eval "$1" --trace "$2" --manifest "$manifest4" --k "$k4ku" --json >"$3" 2>/dev/null
}
judge "$work/$t4-final.json" "$trace_train" "$work/$t4.train.eval.json"
judge "$work/$t4-final.json" "$trace_held" "$work/$t4.held.eval.json"
judge "$work/$g4/weights-int.json" "$trace_train" "$work/$g4.train.eval.json"
judge "$work/$g4/weights-int.json" "$trace_held" "$work/$g4.held.eval.json"

# --- 5. Ethereal: gradtune and Ethereal's tuner ------------------------------------------
if [ "${SKIP_ETHEREAL:-0}" != 1 ]; then
    manifest_eth=$here/engines/ethereal/manifest.json
    take "$eth_positions" "$work/quiet-$eth_positions.epd"
    trace_eth=$work/ethereal-$eth_positions.trace.zst
    if [ ! -s "$trace_eth" ]; then
        log "tracing $eth_positions positions with Ethereal"
        "$tune" trace --engine "$ethereal" --manifest "$manifest_eth" --jobs 2 \
            "$work/quiet-$eth_positions.epd" -o "$trace_eth" 2>"$work/trace-ethereal.err"
    fi
    gradtune "$ge" --trace "$trace_eth" --manifest "$manifest_eth" --valid-fraction 0 \
        --prior-positions 0 --threads 2
    keth=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['k'])" "$work/$ge/summary.json")
    if [ ! -s "$work/$te.log" ] || ! grep -q "const int" "$work/$te.log"; then
        log "Ethereal's tuner: $eth_epochs epochs"
        cp "$work/quiet-$eth_positions.epd" "$work/eth-tune/FENS"
        (cd "$work/eth-tune" && OMP_NUM_THREADS=2 timed "$te" stdbuf -oL "$eth_tuner")
    fi
    cut -f2- "$work/$te.log" >"$work/$te.out"
    python3 "$here/engines/ethereal/tuner-weights.py" "$manifest_eth" "$work/$te.out" >"$work/$te-final.json"
    "$tune" eval "$work/$te-final.json" --trace "$trace_eth" --manifest "$manifest_eth" \
        --k "$keth" --json >"$work/$te-final.eval.json" 2>/dev/null
    "$tune" eval "$work/$ge/weights-int.json" --trace "$trace_eth" --manifest "$manifest_eth" \
        --k "$keth" --json >"$work/$ge.eval.json" 2>/dev/null
fi

# --- 6. the tables -----------------------------------------------------------------------
python3 "$here/scripts/side-by-side-table.py" "$work" "$g4" "$t4" "$ge" "$te" \
    "${SKIP_ETHEREAL:-0}" | tee "$work/side-by-side-$positions-$eth_positions.md"
