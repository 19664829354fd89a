#!/usr/bin/env bash
# readme.sh: the README's quick start, run as written. Takes the shell block that follows
# "One command shows the server answering" from README.md, runs it from the repository root, and
# asserts that it exits 0 and that its second line of output is the README's answer, byte for byte
# but for the document handle, which is random (each `d_` and 22 characters stands for any).
# With OXML_MCP_BIN set (scripts/pack-check.sh), the block's `node dist/cli.js` becomes that command.
# Then the same for "By hand over HTTP": the curl block, run as written against a Streamable HTTP
# server on a free port (the block's `127.0.0.1:8000` becomes that port), and the JSON after it.
#
# Usage: bash examples/readme.sh        (VERBOSE=1 to print every assertion)
# Needs: node, curl, and a built dist/cli.js (npm run build).
set -euo pipefail
# shellcheck source=lib/harness.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/harness.sh"
# shellcheck source=lib/wait.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/wait.sh"
command -v curl >/dev/null || { echo "$NAME: curl is not on PATH" >&2; exit 1; }

# block START LANG: the first ```LANG fenced block after the line that starts with START.
block() {
  awk -v start="$1" -v fence="\`\`\`$2" '
    index($0, start) == 1 { seen = 1; next }
    seen && !inside && $0 == fence { inside = 1; next }
    inside && $0 == "```" { exit }
    inside { print }' "$ROOT/README.md"
}
block 'One command shows the server answering' sh > "$TMP/quick-start.sh"
block 'The second reply line is the answer' json > "$TMP/answer.json"
if [[ -n ${OXML_MCP_BIN:-} ]]; then
  sed -i "s#| node dist/cli.js\$#| \"\$OXML_MCP_BIN\"#" "$TMP/quick-start.sh"
fi

ok() { # ok DESCRIPTION CONDITION-EXIT-CODE [DETAIL]
  if (($2 == 0)); then
    PASSED=$((PASSED + 1))
    [[ ${VERBOSE:-} == 1 ]] && echo "  ok   [readme] $1"
  else
    FAILED=$((FAILED + 1))
    echo "  FAIL [readme] $1${3:+
       $3}"
  fi
  return 0
}

ok 'README has the quick-start command and its answer' \
  "$([[ -s $TMP/quick-start.sh && $(wc -l < "$TMP/answer.json") -eq 1 ]] && echo 0 || echo 1)"
LIMIT=()
command -v timeout > /dev/null && LIMIT=(timeout 60)
rc=0
(cd "$ROOT" && "${LIMIT[@]}" bash "$TMP/quick-start.sh") > "$TMP/quick-start.out" 2> "$TMP/quick-start.err" || rc=$?
ok 'the quick start exits 0' "$rc" "exit $rc: $(tail -n 3 "$TMP/quick-start.err")"
any_handle() { sed -E 's/d_[A-Za-z0-9_-]{22}/d_HANDLE/g'; }
answer=$(sed -n 2p "$TMP/quick-start.out")
ok 'its second line is the README answer' \
  "$([[ $(any_handle <<< "$answer") == "$(any_handle < "$TMP/answer.json")" ]] && echo 0 || echo 1)" \
  "got: $answer"

# ---- By hand over HTTP ------------------------------------------------------
block 'server above running' sh > "$TMP/by-hand.sh"
block 'The answer is one JSON object' json > "$TMP/by-hand.json"
ok 'README has the by-hand HTTP command and its answer' \
  "$([[ $(grep -c '127.0.0.1:8000' "$TMP/by-hand.sh") -eq 1 && $(wc -l < "$TMP/by-hand.json") -eq 1 ]] && echo 0 || echo 1)"
: > "$TMP/http.err"
"${SERVER[@]}" --transport streamable-http --port 0 2> "$TMP/http.err" &
HTTP_PID=$!
trap 'kill "$HTTP_PID" 2>/dev/null || true; rm -rf "$TMP"' EXIT
URL=""
said_where() {
  URL=$(sed -n 's/^oxml-mcp: .* listening on \(http:[^ ]*\).*$/\1/p' "$TMP/http.err")
  [[ -n $URL ]] || is_dead "$HTTP_PID"
}
wait_until 60 said_where || true
ok 'the HTTP server says where it listens' "$([[ -n $URL ]] && echo 0 || echo 1)" "$(tail -n 3 "$TMP/http.err")"
if [[ -n $URL ]]; then
  authority=${URL#http://}
  authority=${authority%%/*}
  sed -i "s#127\.0\.0\.1:8000#$authority#" "$TMP/by-hand.sh"
  rc=0
  "${LIMIT[@]}" bash "$TMP/by-hand.sh" > "$TMP/by-hand.out" 2> "$TMP/by-hand.err" || rc=$?
  ok 'the by-hand curl exits 0' "$rc" "exit $rc: $(tail -n 3 "$TMP/by-hand.err")"
  answer=$(cat "$TMP/by-hand.out")
  ok 'its answer is the README answer' \
    "$([[ $(any_handle <<< "$answer") == "$(any_handle < "$TMP/by-hand.json")" ]] && echo 0 || echo 1)" \
    "got: $answer"
fi

if ((FAILED)); then
  echo "$NAME: $PASSED passed, $FAILED failed"
  exit 1
fi
echo "$NAME: $PASSED passed"
