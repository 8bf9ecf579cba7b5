#!/usr/bin/env bash
# Builds 4ku with gradtune's patch (engines/4ku/gradtune.patch: the `trace` command, the
# evaluation weights as UCI spin options, `go nodes N` and `go movetime T`).
#
#   engines/4ku/build.sh SNAPSHOT OUTDIR [PATCH...]
#
# PATCH: further patches applied after gradtune.patch, in order (e.g. engines/4ku/terms.patch:
# the side-to-move bonus tuned and the catalogue's threats, with engines/4ku/terms-manifest.json).
#
# SNAPSHOT is the pinned source archive (../shared/engines/4ku-917a087.tar.zst); OUTDIR is
# created if needed and receives the unpacked, patched source (OUTDIR/4ku) and the binary
# (OUTDIR/4ku-gradtune), whose path is the last line printed. CXXFLAGS overrides the
# optimisation flags (default `-O3 -march=native`; `-O2` for a portable binary).
set -euo pipefail

die() {
    echo "engines/4ku/build.sh: $*" >&2
    exit 1
}

[ $# -ge 2 ] || die "usage: build.sh SNAPSHOT OUTDIR [PATCH...] (e.g. ../shared/engines/4ku-917a087.tar.zst /tmp/4ku)"
snapshot=$1
outdir=$2
shift 2
extra=()
for p in "$@"; do
    [ -f "$p" ] || die "patch $p: no such file"
    extra+=("$(cd "$(dirname "$p")" && pwd)/$(basename "$p")")
done
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
patchfile=$here/gradtune.patch
cxx=${CXX:-g++}

[ -f "$snapshot" ] || die "snapshot $snapshot: no such file"
[ -f "$patchfile" ] || die "patch $patchfile: no such file"
command -v zstd >/dev/null || die "zstd not found (needed to unpack $snapshot)"
command -v patch >/dev/null || die "patch not found"
command -v "$cxx" >/dev/null || die "C++ compiler $cxx not found (set CXX)"

mkdir -p "$outdir" || die "cannot create $outdir"
outdir=$(cd "$outdir" && pwd)
rm -rf "$outdir/4ku"
tar --zstd -xf "$snapshot" -C "$outdir" || die "cannot unpack $snapshot into $outdir"
[ -f "$outdir/4ku/src/main.cpp" ] || die "$snapshot: no 4ku/src/main.cpp inside (not the 4ku snapshot?)"
patch --quiet --forward -p1 -d "$outdir/4ku" <"$patchfile" >&2 ||
    die "gradtune.patch does not apply to $snapshot (pinned: 4ku-917a087)"
for p in ${extra[@]+"${extra[@]}"}; do
    patch --quiet --forward -p1 -d "$outdir/4ku" <"$p" >&2 ||
        die "$p does not apply on top of gradtune.patch to $snapshot (pinned: 4ku-917a087)"
done

# shellcheck disable=SC2086
"$cxx" -std=c++20 ${CXXFLAGS:--O3 -march=native} -o "$outdir/4ku-gradtune" "$outdir/4ku/src/main.cpp" -lpthread >&2 ||
    die "compiling $outdir/4ku/src/main.cpp failed"
echo "$outdir/4ku-gradtune"
