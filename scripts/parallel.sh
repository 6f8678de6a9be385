#!/usr/bin/env bash
# parallel.sh CMD... runs each shell command at once, prints each one's
# output in one piece when it ends, and fails if any of them failed.
# make test runs its test processes with it: their servers mostly wait,
# on each other and on timeouts, rather than on the CPU.
set -u
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
pids=()
for i in $(seq 1 $#); do
  bash -c "${!i}" >"$out/$i" 2>&1 &
  pids+=($!)
done
status=0
for i in $(seq 1 $#); do
  if wait "${pids[$((i - 1))]}"; then result=ok; else result=FAILED; status=1; fi
  echo "== ${!i}"
  cat "$out/$i"
  echo "== $result"
done
exit $status
