#!/bin/sh
# Builds Ethereal 14.40 (classical) with gradtune's patch: the `trace` and `manifest`
# commands, the evaluation terms as UCI spin options and the GradtuneWeights option.
#
#     engines/ethereal/build.sh ../shared/engines/Ethereal-0e47e9b.tar.zst OUTDIR
#
# Unpacks the snapshot into OUTDIR/Ethereal (replacing an earlier unpack), applies
# gradtune.patch, builds with `make basic` (Ethereal's native build without its PGO step,
# which needs clang; with gcc that step leaves a profiling-instrumented binary) and prints
# the binary's path, OUTDIR/ethereal-gradtune. CC chooses the compiler (default cc).
set -eu

if [ $# -ne 2 ]; then
    echo "usage: $0 SNAPSHOT.tar.zst OUTDIR" >&2
    exit 2
fi
snapshot=$1
here=$(cd "$(dirname "$0")" && pwd)
[ -f "$snapshot" ] || { echo "$0: no snapshot at $snapshot" >&2; exit 1; }
mkdir -p "$2"
out=$(cd "$2" && pwd)

rm -rf "$out/Ethereal"
if ! tar --zstd -xf "$snapshot" -C "$out" 2>"$out/unpack.log"; then
    echo "$0: cannot unpack $snapshot (tar with zstd support needed):" >&2
    cat "$out/unpack.log" >&2
    exit 1
fi
if ! (cd "$out/Ethereal" && patch -p1 --forward --quiet <"$here/gradtune.patch") >"$out/patch.log" 2>&1; then
    echo "$0: gradtune.patch does not apply to $snapshot:" >&2
    cat "$out/patch.log" >&2
    exit 1
fi
exe="$out/ethereal-gradtune"
rm -f "$exe"
if ! make -C "$out/Ethereal/src" basic CC="${CC:-cc}" EXE="$exe" >"$out/build.log" 2>&1; then
    echo "$0: the build failed (log: $out/build.log):" >&2
    tail -n 20 "$out/build.log" >&2
    exit 1
fi
echo "$exe"
