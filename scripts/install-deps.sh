#!/usr/bin/env bash
# install-deps.sh installs the Debian packages Basalt needs, and only those
# that are missing: librocksdb-dev (the storage engine, built through cgo),
# redis-tools (redis-cli, redis-benchmark) and redis-server (the test oracle).
# It runs apt-get as root, or through sudo otherwise.
set -euo pipefail

packages=(librocksdb-dev redis-tools redis-server pkg-config)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "install-deps: need root or sudo to install: ${missing[*]}" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

# The redis-server package starts a system service on port 6379; the tests and
# the benchmark start their own servers, so a running system one only costs memory.
if [ "$(id -u)" -eq 0 ] || [ ${#sudo[@]} -gt 0 ]; then
  if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet redis-server 2>/dev/null; then
    "${sudo[@]}" systemctl stop redis-server || true
  fi
fi
