#!/usr/bin/env bash
# inspect.sh: xml_inspect's outline on the real binary, then the query it makes possible.
#
#   1. A Maven POM (default namespace, xsi:schemaLocation): the outline line of its
#      dependencies, both namespaces with the binding to pass, and each name's contents.
#   2. The binding and path copied from that answer answer the question in one xml_query.
#   3. An SVG: xlink, used only on attributes, is listed with its attribute count.
#   4. A small max_chars: the answer stays within it and says what it left out.
#
# Usage: bash examples/inspect.sh        (VERBOSE=1 to print every assertion)
# Needs: node, and a built dist/cli.js (npm run build).
set -euo pipefail
# shellcheck source=lib/harness.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/harness.sh"

POM='<project xmlns="http://maven.apache.org/POM/4.0.0" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>orders</artifactId>
  <version>1.0</version>
  <dependencies>
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-api</artifactId><version>2.0.12</version></dependency>
    <dependency><groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter</artifactId><version>5.10.2</version><scope>test</scope></dependency>
    <dependency><groupId>org.mockito</groupId><artifactId>mockito-core</artifactId><version>5.11.0</version><scope>test</scope></dependency>
  </dependencies>
</project>'
SVG='<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 24 24">
  <defs><path id="a" d="M0 0h4v4z"/></defs>
  <use xlink:href="#a" x="2"/><use xlink:href="#a" x="12"/>
</svg>'

S=inspect
open_session "$S"
# call ID TOOL XML [EXTRA-ARGUMENTS-JSON]
call() { call_tool "$S" "$@"; }

call 1 xml_inspect "$POM"
expect $S 1 'POM: the outline line of the dependencies'  '!isErr && has(text, "/project/dependencies/dependency ×3: groupId artifactId version scope×2")'
expect $S 1 'POM: xsi, used on one attribute, is listed'   'has(text, "http://www.w3.org/2001/XMLSchema-instance — 1 attribute, written as xsi:")'
expect $S 1 'POM: the binding to pass'                     'has(text, "\"namespaces\": {\"ns1\":\"http://maven.apache.org/POM/4.0.0\",\"xsi\":\"http://www.w3.org/2001/XMLSchema-instance\"}")'
expect $S 1 'POM: a default namespace needs a prefix'      'has(text, "//ns1:")'
expect $S 1 'POM: each name with its contents'             'has(text, "  dependency: 3 — groupId artifactId version scope×2", "  scope: 2 — text")'
expect $S 1 'POM: structuredContent has the same lines'    'sc.outline.includes("/project/dependencies/dependency ×3: groupId artifactId version scope×2") && sc.details.project.startsWith("@xsi:schemaLocation; ") && sc.distinctPaths === 11'
expect $S 1 'POM: today'"'"'s facts are still there'         'sc.root === "project" && sc.totalElements === 20 && eq(Object.entries(sc.elements)[0], ["artifactId", 4])'

call 2 xml_query "$POM" '{"xpath":"/ns1:project/ns1:dependencies/ns1:dependency[ns1:scope='"'"'test'"'"']/ns1:artifactId","namespaces":{"ns1":"http://maven.apache.org/POM/4.0.0","xsi":"http://www.w3.org/2001/XMLSchema-instance"}}'
expect $S 2 'the printed binding answers in one call'      '!isErr && eq(sc.values, ["junit-jupiter", "mockito-core"])'

call 3 xml_inspect "$SVG"
expect $S 3 'SVG: xlink is listed with its attributes'     '!isErr && has(text, "http://www.w3.org/1999/xlink — 2 attributes, written as xlink:", "/svg/use ×2: @xlink:href @x")'
expect $S 3 'SVG: structured namespace counts attributes'  'eq(sc.namespaces[1], {uri: "http://www.w3.org/1999/xlink", prefixes: ["xlink"], elements: 0, attributes: 2})'

BIG="<catalog>$(for i in $(seq 1 150); do printf '<item%d code="c%d"><name>n</name></item%d>' "$i" "$i" "$i"; done)</catalog>"
call 4 xml_inspect "$BIG" '{"max_chars":2000}'
expect $S 4 'max_chars: the answer stays within it'        '!isErr && text.length <= 2000 && sc.truncated === true'
expect $S 4 'max_chars: and says what it left out'         '/\[\d+ of 301 paths left out/.test(text) && /less frequent names left out/.test(text)'

run_session $S

if ((FAILED)); then
  echo "$NAME: $PASSED passed, $FAILED failed"
  exit 1
fi
echo "$NAME: $PASSED passed"
