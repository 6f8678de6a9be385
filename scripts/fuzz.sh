#!/usr/bin/env bash
# fuzz.sh FUZZTIME MINIMIZETIME runs every fuzz target of the repository
# (func FuzzXxx in a _test.go file), one after the other, for FUZZTIME each.
#
# Go's fuzz coordinator can stop a run that found nothing with "context
# deadline exceeded": when FUZZTIME ends, a worker may see the deadline
# before the coordinator has cancelled the workers' context, and the
# coordinator then reports the deadline as the worker's failure. A real
# finding always writes its input ("Failing input written to ..."), so a
# failure whose only complaint is the deadline counts as a pass here.
set -u -o pipefail
fuzztime=$1
minimize=$2
status=0
for file in $(grep -rl --include='*_test.go' '^func Fuzz' .); do
  dir=$(dirname "$file")
  for target in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$file"); do
    echo "fuzz $dir $target for $fuzztime"
    log=$(mktemp)
    if "${GO:-go}" test -run '^$' -fuzz "^$target\$" -fuzztime "$fuzztime" \
      -fuzzminimizetime "$minimize" -timeout 0 "$dir" 2>&1 | tee "$log"; then
      rm -f "$log"
      continue
    fi
    if grep -q 'context deadline exceeded' "$log" &&
      ! grep -q 'Failing input written' "$log" &&
      [ "$(grep -c -- '--- FAIL' "$log")" -eq 1 ]; then
      echo "fuzz $dir $target: only the coordinator's deadline race, nothing found"
    else
      status=1
    fi
    rm -f "$log"
  done
done
exit $status
