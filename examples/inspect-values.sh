#!/usr/bin/env bash
# inspect-values.sh: xml_inspect says what the fields hold (issue 25), on the real binary, and
# the filter written from it answers in one xml_query.
#
#   1. A code list: the status attribute's few values with their counts (so the filter uses
#      "active", not "ACTIVE"), the numeric codes' range, the names' distinct count and examples.
#   2. The value read from that answer filters in one call.
#   3. A text padded with spaces is shown quoted, and said so; values that differ only in case or
#      edge white space are named (the filter that matches one misses the other).
#   4. structuredContent carries the same values by field path.
#   5. A name at several paths (a POM's artifactId) shows under its name line what it holds over
#      them, keyed //artifactId in structuredContent.
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
POM='<project><parent><artifactId>parent-pom</artifactId></parent><artifactId>app</artifactId><dependencies><dependency><artifactId>junit</artifactId><scope>test</scope></dependency><dependency><artifactId>guava</artifactId><scope>compile</scope></dependency></dependencies></project>'
PADDED='<deps><dep><scope> test </scope></dep><dep><scope>test</scope></dep><dep><scope>test</scope></dep><dep><scope>compile</scope></dep></deps>'

S=inspect-values
open_session "$S"
# call ID TOOL XML [EXTRA-ARGUMENTS-JSON]
call() { call_tool "$S" "$@"; }

call 1 xml_inspect "$CODES"
expect $S 1 'code list: the status values with their counts'  '!isErr && has(text, "/codes/code ×60: @status @numeric; name\n  @status: active×48 withdrawn×8 reserved×4\n")'
expect $S 1 'code list: the numeric codes as a range, counted exactly' 'has(text, "  @numeric: integers 004–240, 60 distinct of 60\n")'
expect $S 1 'code list: the names, counted, with examples'    'has(text, "  name: 60 distinct of 60, e.g. \"Territory 1\", \"Territory 2\"\n")'

call 2 xml_query "$CODES" '{"xpath":"count(//code[@status = '"'"'withdrawn'"'"'])"}'
expect $S 2 'the value read from inspect filters in one call' '!isErr && text === "8"'

call 3 xml_inspect "$PADDED"
SCOPE='test×2 \" test \"×1 compile×1; 1 with white space at an edge; test/\" test \" differ only in edge white space'
expect $S 3 'a padded value is quoted, said so, and named beside the one it looks like' '!isErr && has(text, "  scope: '"$SCOPE"'\n")'
expect $S 3 'structuredContent: the values by field path'     'eq(sc.values, {"/deps/dep/scope": "'"$SCOPE"'"})'

call 4 xml_inspect "$POM"
expect $S 4 'a name at several paths: its values over them under its line' '!isErr && has(text, "  artifactId: 4 — text\n    text (3 paths): 4 distinct: parent-pom app junit guava\n")'
expect $S 4 'structuredContent: the name field keyed //artifactId' 'sc.values["//artifactId"] === "4 distinct: parent-pom app junit guava"'
expect $S 4 'a field at one path is left to its outline line' 'sc.values["/project/dependencies/dependency/scope"] === "2 distinct: test compile" && !("//scope" in sc.values)'

run_session $S

if ((FAILED)); then
  echo "$NAME: $PASSED passed, $FAILED failed"
  exit 1
fi
echo "$NAME: $PASSED passed"
