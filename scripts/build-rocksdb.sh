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
orig=rocksdb_${upstream}.orig.tar.gz
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work" # apt downloads as its own user where it can

# apt-get source fetches the source package from the archives the machine
# is configured with, and checks it against their signed indexes. Machines
# often list only binary archives, so a private apt state in $work adds the
# source (deb-src) twin of every configured archive; the system's own apt
# configuration is left as it is.
mkdir -p "$work/apt/lists/partial" "$work/apt/sources.list.d"
for f in /etc/apt/sources.list.d/*.sources; do
  if [ -e "$f" ]; then sed 's/^Types:.*/Types: deb-src/' "$f" >"$work/apt/sources.list.d/${f##*/}"; fi
done
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
  if [ -e "$f" ]; then sed -n 's/^deb /deb-src /p' "$f" >"$work/apt/sources.list.d/${f##*/}.list"; fi
done
apt=(apt-get -o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$work/apt/sources.list.d"
  -o "Dir::State::Lists=$work/apt/lists")
echo "build-rocksdb: RocksDB $upstream, source package rocksdb=$version" >&2
"${apt[@]}" update -qq >&2
(cd "$work" && "${apt[@]}" source --download-only -qq "rocksdb=$version" >&2)

mkdir -p "$work/src"
tar -xzf "$work/$orig" -C "$work/src" --strip-components=1
make -C "$work/src" -j"$(nproc)" static_lib DEBUG_LEVEL=0 PORTABLE=1 \
  DISABLE_WARNING_AS_ERROR=1 ROCKSDB_DISABLE_GFLAGS=1 >&2
strip --strip-debug "$work/src/librocksdb.a"
mkdir -p "$dir"
cp "$work/src/librocksdb.a" "$dir/"
cp -r "$work/src/include" "$dir/"
echo "$dir"
