# Sourced by the 4ku experiment scripts (4ku-*.sh); needs $here (the repository) and $out.
# Makes $out, defines `log` (a timed line on stdout and in $out/times.log), builds 4ku with
# gradtune's patch into $out/4ku unless it is there (needs ../shared/engines/4ku-917a087.tar.zst,
# g++ and zstd), sets $engine (its binary) and $shipped (its manifest, the shipped weights), and
# defines `vs_shipped FILE WEIGHTS ARGS...`: `tune match` ($tune) of WEIGHTS against the shipped
# weights, both in 4ku (A in $engine_a instead when that is set), 2 threads, ARGS added, into FILE (through FILE.tmp, so only a finished
# match is kept; skipped when FILE is there); prints its pentanomial Elo line.
mkdir -p "$out"
log() { echo "$(date -u +%FT%TZ) $*" | tee -a "$out/times.log"; }
engine=$out/4ku/4ku-gradtune
[ -x "$engine" ] || "$here/engines/4ku/build.sh" "$here/../shared/engines/4ku-917a087.tar.zst" \
    "$out/4ku" >/dev/null
shipped=$here/engines/4ku/manifest.json
vs_shipped() {
    local file=$1 weights=$2
    shift 2
    if [ ! -f "$file" ]; then
        "$tune" match "uci:${engine_a:-$engine}" "uci:$engine" --weights-a "$weights" \
            --weights-b "$shipped" --threads 2 "$@" >"$file.tmp" 2>&1
        mv "$file.tmp" "$file"
    fi
    grep 'Elo (pent' "$file" | sed "s|^|$file: |"
}
