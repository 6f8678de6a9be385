#!/usr/bin/env bash
# install-promtool.sh puts Prometheus's promtool in bin/, which the metrics
# test uses to check a scrape. It takes the binary out of Debian's
# prometheus package without installing the package (which would start a
# Prometheus service). It is best effort: without promtool that one check
# is skipped.
set -uo pipefail

dest="$(realpath -m "${1:-bin}")/promtool"
[ -x "$dest" ] && exit 0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 0
if ! apt-get download prometheus >/dev/null 2>&1; then
  echo "install-promtool: could not download the prometheus package; the promtool check will be skipped" >&2
  exit 0
fi
dpkg-deb -x prometheus_*.deb x && mkdir -p "$(dirname "$dest")" && cp x/usr/bin/promtool "$dest" ||
  echo "install-promtool: could not extract promtool" >&2
exit 0
