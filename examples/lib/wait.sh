#!/usr/bin/env bash
# wait.sh: wait for a condition under a deadline. Sourced by examples/http.sh and
# scripts/conformance.sh.

# wait_until SECONDS COMMAND...: runs COMMAND every 0.05 s until it succeeds (returns 0) or
# SECONDS have passed (returns 1). A deadline instead of a count of short sleeps, so a slow or
# busy machine gets the whole time while a fast one does not wait for nothing.
wait_until() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.05
  done
}

# is_dead PID: the process has exited (or never was).
is_dead() { ! kill -0 "$1" 2> /dev/null; }
