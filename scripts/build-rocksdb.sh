#!/usr/bin/env bash
# build-rocksdb.sh DIR builds the RocksDB of the installed librocksdb-dev
# again, from Debian's own source of that version, as a release build into
# DIR, and prints DIR. Debian builds it without NDEBUG: its 6,000 assertions
# (a second key comparison at every skiplist step among them) and test sync
# points run in every read and write. Without them, SETBIT, GEOADD and
# LRANGE take 5-15% less server CPU (bench/PERFORMANCE.md). The build takes
# 25-45 minutes on two cores; a DIR that has librocksdb.a is kept as it is.
#
#   make build ROCKSDB_DIR="$(scripts/build-rocksdb.sh ~/.cache/basalt/rocksdb)"
set -euo pipefail

dir=${1:?usage: build-rocksdb.sh DIR}
if [ -f "$dir/librocksdb.a" ]; then
  echo "$dir"
  exit 0
fi

version=$(dpkg-query -W -f='${Version}' librocksdb-dev) # e.g. 7.8.3-2
upstream=${version%-*}
pool=http://deb.debian.org/debian/pool/main/r/rocksdb
orig=rocksdb_${upstream}.orig.tar.gz
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "build-rocksdb: RocksDB $upstream from $pool" >&2
curl -fsS -o "$work/$orig" "$pool/$orig"
curl -fsS -o "$work/source.dsc" "$pool/rocksdb_${version}.dsc"
# The .dsc, which Debian signs, lists the tarball's SHA-256.
want=$(awk -v f="$orig" '/^Checksums-Sha256:/ {on = 1; next} /^[^ ]/ {on = 0} on && $3 == f {print $1}' "$work/source.dsc")
got=$(sha256sum "$work/$orig" | cut -d' ' -f1)
if [ -z "$want" ] || [ "$want" != "$got" ]; then
  echo "build-rocksdb: $orig has SHA-256 $got, the .dsc lists '$want'" >&2
  exit 1
fi

mkdir -p "$work/src"
tar -xzf "$work/$orig" -C "$work/src" --strip-components=1
make -C "$work/src" -j"$(nproc)" static_lib DEBUG_LEVEL=0 PORTABLE=1 \
  DISABLE_WARNING_AS_ERROR=1 ROCKSDB_DISABLE_GFLAGS=1 >&2
strip --strip-debug "$work/src/librocksdb.a"
mkdir -p "$dir"
cp "$work/src/librocksdb.a" "$dir/"
cp -r "$work/src/include" "$dir/"
echo "$dir"
