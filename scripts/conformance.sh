#!/usr/bin/env bash
# conformance.sh: run the official MCP conformance suite (@modelcontextprotocol/conformance)
# against the built server over Streamable HTTP, once per leg below, each leg on a fresh server.
#
#   bash scripts/conformance.sh          (needs dist/: run `npm run build` first; builds nothing)
#
# The suites and the Node 22 they need are pinned, dependencies included, by conformance/package.json
# and conformance/package-lock.json. They are installed with `npm ci` (the npm registry is the only
# network used) into a cache keyed by the lockfile, so a second run installs nothing.
#
# A leg fails when a scenario outside its expected-failures file fails, when a listed entry passes
# (stale), when a listed entry never ran, or when the server does not exit 0 on SIGTERM. The suite
# counts a WARNING (a SHOULD) as a failure. Exit status: 0 when every leg passes, 1 otherwise.
#
# Environment: CONFORMANCE_VERBOSE=1 prints the suites' full output; CONFORMANCE_KEEP=1 keeps the
# work folder (logs, checks.json); OXML_CONFORMANCE_CACHE overrides the install cache folder.
set -euo pipefail

NAME=conformance
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CLI=$ROOT/dist/cli.js
DIR=$ROOT/conformance
# shellcheck source=../examples/lib/wait.sh
source "$ROOT/examples/lib/wait.sh"

# Legs: label | package alias in conformance/package.json | spec revision | expected-failures file.
# 0.1.16 is the latest stable suite (2025-11-25 only); 0.2.0-alpha.12 is the first to test
# 2026-07-28, and on 2025-11-25 it adds the session-lifecycle scenario and a JSON-schema check of
# every message the server sends.
LEGS=(
  "stable@2025-11-25|mcp-conformance-stable|2025-11-25|expected-failures-2025-11-25.yml"
  "next@2025-11-25|mcp-conformance-next|2025-11-25|expected-failures-2025-11-25.yml"
  "next@2026-07-28|mcp-conformance-next|2026-07-28|expected-failures-2026-07-28.yml"
)
SUITE_TIMEOUT=300 # seconds for one leg; each runs in well under a minute

say() { printf '%s: %s\n' "$NAME" "$*"; }
die() {
  say "$*" >&2
  exit 1
}

[[ -f $CLI ]] || die "$CLI is missing; run 'npm run build' first (this script builds nothing)"
command -v node > /dev/null || die "node is not on PATH"
command -v npm > /dev/null || die "npm is not on PATH"

START=$SECONDS
WORK=$(mktemp -d "${TMPDIR:-/tmp}/oxml-conformance.XXXXXX")
SERVER_PID=
FAILED_LEGS=0
cleanup() {
  if [[ -n $SERVER_PID ]]; then kill -KILL "$SERVER_PID" 2> /dev/null || true; fi
  if [[ ${CONFORMANCE_KEEP:-} == 1 || $FAILED_LEGS -gt 0 ]]; then
    say "logs and checks.json kept in $WORK"
  else
    rm -rf "$WORK"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- install the pinned suites (cached by lockfile hash) ---------------------------------------
HASH=$(cat "$DIR/package.json" "$DIR/package-lock.json" | sha256sum | cut -c1-16)
CACHE_ROOT=${OXML_CONFORMANCE_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/oxml-mcp-conformance}
SUITES=$CACHE_ROOT/$HASH
if [[ ! -f $SUITES/.installed ]]; then
  say "installing the pinned suites with npm ci into $SUITES"
  mkdir -p "$CACHE_ROOT"
  rm -rf "$SUITES" # a half-made install of an interrupted run
  staging=$(mktemp -d "$CACHE_ROOT/.staging.XXXXXX")
  cp "$DIR/package.json" "$DIR/package-lock.json" "$staging/"
  if ! (cd "$staging" && npm ci --no-audit --no-fund --no-update-notifier --loglevel=error \
    > "$WORK/npm-ci.log" 2>&1 < /dev/null); then
    cat "$WORK/npm-ci.log" >&2
    rm -rf "$staging"
    die "npm ci of conformance/package-lock.json failed"
  fi
  touch "$staging/.installed"
  # Another run may have finished first: keep whichever landed.
  if ! mv -T "$staging" "$SUITES" 2> /dev/null; then rm -rf "$staging"; fi
fi
NODE22=$SUITES/node_modules/.bin/node
node22_version=$("$NODE22" --version) || die "the pinned Node ($NODE22) does not run"
[[ $node22_version == v22.* ]] || die "the pinned Node is $node22_version, not 22.x"

# --- one leg ------------------------------------------------------------------------------------
# start_server LOG: `oxml-mcp --transport streamable-http --port 0`; sets SERVER_PID and URL.
# Up to a minute to start (a busy machine is slow to load node and libxml2).
start_server() {
  # The log exists before the child does: read early, it is empty, never missing.
  : > "$1"
  node "$CLI" --transport streamable-http --port 0 2> "$1" < /dev/null &
  SERVER_PID=$!
  URL=
  wait_until 60 said_where "$1" || true
  [[ -n $URL ]] && return 0
  cat "$1" >&2
  return 1
}

# said_where LOG: the server has printed its URL (sets URL), or has died.
said_where() {
  URL=$(sed -n 's/^oxml-mcp: streamable-http listening on \(http:[^ ]*\).*$/\1/p' "$1")
  [[ -n $URL ]] || is_dead "$SERVER_PID"
}

# stop_server: SIGTERM; the server must exit 0 (a deadline of 30 s catches a hang). Prints the
# problem, returns 1, if not.
stop_server() {
  local pid=$SERVER_PID rc=0
  SERVER_PID=
  if is_dead "$pid"; then
    wait "$pid" || rc=$?
    echo "  the server died during the run (exit $rc)"
    return 1
  fi
  kill -TERM "$pid"
  if ! wait_until 30 is_dead "$pid"; then
    kill -KILL "$pid" 2> /dev/null || true
    wait "$pid" 2> /dev/null || true
    echo "  the server did not exit within 30 s of SIGTERM (killed)"
    return 1
  fi
  wait "$pid" || rc=$?
  if ((rc != 0)); then
    echo "  the server exited $rc on SIGTERM, not 0"
    return 1
  fi
}

TOTAL_SCENARIOS=0 TOTAL_PASSED=0 TOTAL_XFAIL=0 TOTAL_BAD=0
run_leg() {
  local label=$1 alias=$2 spec=$3 baseline=$DIR/$4
  local pkg=$SUITES/node_modules/$alias out=$WORK/${label//[@\/]/_}
  local version leg_ok=1 suite_rc=0 verdict_rc=0 t0=$SECONDS
  version=$("$NODE22" -p "require('$pkg/package.json').version")
  mkdir -p "$out/results"
  echo
  echo "== $label: @modelcontextprotocol/conformance@$version, revision $spec, baseline conformance/$4"
  if ! start_server "$out/server.err"; then
    echo "  the server did not start"
    FAILED_LEGS=$((FAILED_LEGS + 1)) TOTAL_BAD=$((TOTAL_BAD + 1))
    return
  fi
  timeout -k 10 "$SUITE_TIMEOUT" "$NODE22" "$pkg/dist/index.js" server --url "$URL" \
    --suite all --spec-version "$spec" --expected-failures "$baseline" -o "$out/results" \
    > "$out/suite.log" 2>&1 < /dev/null || suite_rc=$?
  stop_server || leg_ok=0
  if [[ ${CONFORMANCE_VERBOSE:-} == 1 ]]; then sed 's/\x1b\[[0-9;]*m//g' "$out/suite.log"; fi

  "$NODE22" "$DIR/verdict.mjs" --results "$out/results" --baseline "$baseline" --suite-dir "$pkg" \
    --label "  $label" > "$out/verdict.txt" 2>&1 || verdict_rc=$?
  grep -v '^RESULT ' "$out/verdict.txt" || true
  local result scenarios passed xfail unexpected stale missing
  result=$(grep '^RESULT ' "$out/verdict.txt" || echo 'RESULT')
  for kv in ${result#RESULT}; do local "$kv"; done
  TOTAL_SCENARIOS=$((TOTAL_SCENARIOS + ${scenarios:-0}))
  TOTAL_PASSED=$((TOTAL_PASSED + ${passed:-0}))
  TOTAL_XFAIL=$((TOTAL_XFAIL + ${xfail:-0}))
  TOTAL_BAD=$((TOTAL_BAD + ${unexpected:-0} + ${stale:-0} + ${missing:-0}))

  if ((suite_rc == 124 || suite_rc == 137)); then
    echo "  the suite timed out after ${SUITE_TIMEOUT} s"
    leg_ok=0
  elif ((suite_rc != 0 && verdict_rc == 0)); then
    # The suite's own baseline check failed where ours passed: show what it said.
    echo "  the suite exited $suite_rc although every scenario met the baseline; its output ends:"
    sed 's/\x1b\[[0-9;]*m//g' "$out/suite.log" | tail -n 25 | sed 's/^/    /'
    leg_ok=0
  fi
  ((verdict_rc == 0)) || leg_ok=0
  if ((leg_ok == 0)); then
    FAILED_LEGS=$((FAILED_LEGS + 1))
    ((TOTAL_BAD > 0)) || TOTAL_BAD=1
    echo "  FAILED ($((SECONDS - t0)) s); server log: $out/server.err, suite log: $out/suite.log"
  else
    echo "  ok ($((SECONDS - t0)) s)"
  fi
}

for leg in "${LEGS[@]}"; do
  IFS='|' read -r label alias spec baseline <<< "$leg"
  run_leg "$label" "$alias" "$spec" "$baseline"
done

echo
say "${#LEGS[@]} legs, $FAILED_LEGS failed; $TOTAL_SCENARIOS scenario runs: $TOTAL_PASSED passed," \
  "$TOTAL_XFAIL expected failures (baselined), $TOTAL_BAD unexpected; $((SECONDS - START)) s"
echo "$NAME: $TOTAL_PASSED passed, $TOTAL_BAD failed"
((FAILED_LEGS == 0))
