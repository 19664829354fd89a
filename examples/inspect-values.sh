#!/usr/bin/env bash
# inspect-values.sh: xml_inspect says what the fields hold (issue 25), on the real binary, and
# the filter written from it answers in one xml_query.
#
#   1. A code list: the status attribute's few values with their counts (so the filter uses
#      "active", not "ACTIVE"), the numeric codes' range, the names' distinct count and examples.
#   2. The value read from that answer filters in one call.
#   3. A text padded with spaces is shown quoted, and said so.
#   4. structuredContent carries the same values by field path.
#
# Usage: bash examples/inspect-values.sh        (VERBOSE=1 to print every assertion)
# Needs: node, and a built dist/cli.js (npm run build).
set -euo pipefail
# shellcheck source=lib/harness.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/harness.sh"

CODES="<codes>$(for i in $(seq 1 60); do
  status=active; ((i % 7 == 0)) && status=withdrawn; ((i % 13 == 0)) && status=reserved
  printf '<code status="%s" numeric="%03d"><name>Territory %d</name></code>' "$status" "$((i * 4))" "$i"
done)</codes>"
PADDED='<deps><dep><scope> test </scope></dep><dep><scope>test</scope></dep><dep><scope>test</scope></dep><dep><scope>compile</scope></dep></deps>'

S=inspect-values
IN="$TMP/$S.in"
# call ID TOOL XML [EXTRA-ARGUMENTS-JSON]: the document is JSON-encoded by node, as a client would.
call() {
  node -e 'const [id, tool, xml, extra] = process.argv.slice(1);
    const args = { xml, ...JSON.parse(extra || "{}") };
    console.log(JSON.stringify({ jsonrpc: "2.0", id: Number(id), method: "tools/call", params: { name: tool, arguments: args } }));' \
    "$1" "$2" "$3" "${4:-}" >> "$IN"
}
{
  echo '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"examples","version":"1"}}}'
  echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
} > "$IN"

call 1 xml_inspect "$CODES"
expect $S 1 'code list: the status values with their counts'  '!isErr && has(text, "/codes/code ×60: @status @numeric; name\n  @status: active×48 withdrawn×8 reserved×4\n")'
expect $S 1 'code list: the numeric codes as a range'         'has(text, "  @numeric: integers 004–240, ≈")'
expect $S 1 'code list: the names, counted, with examples'    '/  name: ≈\d+ distinct of 60, e\.g\. "Territory 1", "Territory 2"/.test(text)'

call 2 xml_query "$CODES" '{"xpath":"count(//code[@status = '"'"'withdrawn'"'"'])"}'
expect $S 2 'the value read from inspect filters in one call' '!isErr && text === "8"'

call 3 xml_inspect "$PADDED"
expect $S 3 'a padded value is quoted and said so'            '!isErr && has(text, "  scope: test×2 \" test \"×1 compile×1; 1 with white space at an edge")'
expect $S 3 'structuredContent: the values by field path'     'eq(sc.values, {"/deps/dep/scope": "test×2 \" test \"×1 compile×1; 1 with white space at an edge"})'

run_session $S

if ((FAILED)); then
  echo "$NAME: $PASSED passed, $FAILED failed"
  exit 1
fi
echo "$NAME: $PASSED passed"
