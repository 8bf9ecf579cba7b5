# Sourced by the 4ku experiment scripts (4ku-*.sh); needs $here (the repository) and $out.
# Makes $out, defines `log` (a timed line on stdout and in $out/times.log), builds 4ku with
# gradtune's patch into $out/4ku unless it is there (needs ../shared/engines/4ku-917a087.tar.zst,
# g++ and zstd), and sets $engine (its binary) and $shipped (its manifest, the shipped weights).
mkdir -p "$out"
log() { echo "$(date -u +%FT%TZ) $*" | tee -a "$out/times.log"; }
engine=$out/4ku/4ku-gradtune
[ -x "$engine" ] || "$here/engines/4ku/build.sh" "$here/../shared/engines/4ku-917a087.tar.zst" \
    "$out/4ku" >/dev/null
shipped=$here/engines/4ku/manifest.json
