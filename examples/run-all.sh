#!/usr/bin/env bash
# run-all.sh: run every examples/*.sh (except this one) against the built binary,
# fail if any of them fails, and print totals.
#
# It builds nothing: run `npm run build` first. Usage: bash examples/run-all.sh
set -euo pipefail

NAME=$(basename "${BASH_SOURCE[0]}")
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
if [[ ! -f $ROOT/dist/cli.js ]]; then
  echo "$NAME: $ROOT/dist/cli.js is missing; run 'npm run build' first (this script builds nothing)" >&2
  exit 1
fi

scripts=()
for f in "$HERE"/*.sh; do
  [[ -f $f && $(basename "$f") != "$NAME" ]] && scripts+=("$f")
done
if ((${#scripts[@]} == 0)); then
  echo "$NAME: no example scripts found in $HERE" >&2
  exit 1
fi

ok=0
failed=()
assertions=0
for f in "${scripts[@]}"; do
  base=$(basename "$f")
  out=$(mktemp)
  start=$(date +%s%N)
  rc=0
  bash "$f" > "$out" 2>&1 || rc=$?
  ms=$((($(date +%s%N) - start) / 1000000))
  cat "$out"
  # The last line of each script reads "NAME: N passed[, M failed]".
  n=$(tail -n 1 "$out" | sed -n 's/^.*: \([0-9][0-9]*\) passed.*$/\1/p')
  rm -f "$out"
  assertions=$((assertions + ${n:-0}))
  if ((rc == 0)); then
    ok=$((ok + 1))
  else
    echo "$NAME: $base FAILED (exit $rc, ${ms} ms)"
    failed+=("$base")
  fi
done

total=${#scripts[@]}
if ((${#failed[@]})); then
  echo "$NAME: $ok of $total scripts passed ($assertions assertions passed); failed: ${failed[*]}"
  exit 1
fi
echo "$NAME: $total scripts passed, $assertions assertions"
