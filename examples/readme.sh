#!/usr/bin/env bash
# readme.sh: the README's quick start, run as written. Takes the shell block that follows
# "One command shows the server answering" from README.md, runs it from the repository root, and
# asserts that it exits 0 and that its second line of output is the README's answer, byte for byte
# but for the document handle, which is random (each `d_` and 22 characters stands for any).
# With OXML_MCP_BIN set (scripts/pack-check.sh), the block's `node dist/cli.js` becomes that command.
#
# Usage: bash examples/readme.sh        (VERBOSE=1 to print every assertion)
# Needs: node, and a built dist/cli.js (npm run build).
set -euo pipefail
# shellcheck source=lib/harness.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/harness.sh"

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

if ((FAILED)); then
  echo "$NAME: $PASSED passed, $FAILED failed"
  exit 1
fi
echo "$NAME: $PASSED passed"
