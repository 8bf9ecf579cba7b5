#!/usr/bin/env bash
# Builds texel-tuner (the C++ community tuner) with its copy of 4ku's evaluation
# (src/engines/fourku.cpp) and gradtune's patch (engines/texel-tuner/gradtune.patch: 4ku
# chosen in config.h with 2 threads, g++ 12's LineBuffer constructor, and GRADTUNE_TRACES=FILE
# to write the coefficients it tunes on as gradtune traces).
#
#   engines/texel-tuner/build.sh SNAPSHOT OUTDIR
#
# SNAPSHOT is ../shared/engines/texel-tuner-e5f8de3.tar.zst; OUTDIR receives the patched
# source (OUTDIR/texel-tuner) and the binary (OUTDIR/texel-tuner-4ku), whose path is the last
# line printed. The patch is under texel-tuner's licence (GPL-3.0).
set -euo pipefail

die() {
    echo "engines/texel-tuner/build.sh: $*" >&2
    exit 1
}

[ $# -eq 2 ] || die "usage: build.sh SNAPSHOT OUTDIR (e.g. ../shared/engines/texel-tuner-e5f8de3.tar.zst /tmp/tt)"
snapshot=$1
outdir=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
patchfile=$here/gradtune.patch

[ -f "$snapshot" ] || die "snapshot $snapshot: no such file"
[ -f "$patchfile" ] || die "patch $patchfile: no such file"
command -v zstd >/dev/null || die "zstd not found (needed to unpack $snapshot)"
command -v patch >/dev/null || die "patch not found"
command -v make >/dev/null || die "make not found"
command -v "${CXX:-g++}" >/dev/null || die "C++ compiler ${CXX:-g++} not found (set CXX)"

mkdir -p "$outdir" || die "cannot create $outdir"
outdir=$(cd "$outdir" && pwd)
rm -rf "$outdir/texel-tuner"
tar --zstd -xf "$snapshot" -C "$outdir" || die "cannot unpack $snapshot into $outdir"
[ -f "$outdir/texel-tuner/src/engines/fourku.cpp" ] ||
    die "$snapshot: no texel-tuner/src/engines/fourku.cpp inside (not the texel-tuner snapshot?)"
patch --quiet --forward -p1 -d "$outdir/texel-tuner" <"$patchfile" >&2 ||
    die "gradtune.patch does not apply to $snapshot (pinned: texel-tuner-e5f8de3)"
make -C "$outdir/texel-tuner/src" CXX="${CXX:-g++}" >&2 || die "building texel-tuner failed"
mv "$outdir/texel-tuner/src/tuner" "$outdir/texel-tuner-4ku"
echo "$outdir/texel-tuner-4ku"
