#!/usr/bin/env bash
# errors.sh: every kind of failure the spec names, each in one stdio session with
# the real built binary. Each bad line gets the right kind of failure (an isError
# tool result, or a JSON-RPC error for what the protocol rejects), and the good
# request sent right after it (id = case id + 100) still answers: the session goes on.
#
# Usage: bash examples/errors.sh        (VERBOSE=1 to print every assertion)
# Needs: node, and a built dist/cli.js (npm run build).
set -euo pipefail
# shellcheck source=lib/harness.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/harness.sh"

S=errors
IN="$TMP/$S.in"
: > "$IN"
# send LINE: append one raw line. Single-quoted, so JSON escapes (\n, \", \ud83d) stay as written.
send() { printf '%s\n' "$1" >> "$IN"; }
# good ID WHAT: a request that must still succeed after the bad line just sent.
good() {
  send '{"jsonrpc":"2.0","id":'"$1"',"method":"tools/call","params":{"name":"xml_query","arguments":{"xml":"<a><b/><b/></a>","xpath":"count(//b)"}}}'
  expect $S "$1" "session goes on after $2" '!isErr && text === "2"'
}
call() { # call ID TOOL ARGUMENTS-JSON
  send '{"jsonrpc":"2.0","id":'"$1"',"method":"tools/call","params":{"name":"'"$2"'","arguments":'"$3"'}}'
}
# A tool failure is a normal result with isError (never a JSON-RPC error).
TOOL_ERROR='err === undefined && isErr && typeof text === "string" && text.length > 0'

send '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"examples","version":"1"}}}'
send '{"jsonrpc":"2.0","method":"notifications/initialized"}'
expect $S 0 'initialize' 'res.protocolVersion === "2025-06-18"'

# 1, 2. Malformed XML: isError with line and column.
call 1 xml_query '{"xml":"<a>\n<b></a>","xpath":"/a"}'
expect $S 1 'malformed XML: isError'                "$TOOL_ERROR"
expect $S 1 'malformed XML: text gives line, column' '/line 2\b/i.test(text) && /column \d+/i.test(text)'
good 101 'malformed XML'
call 2 xml_check '{"xml":"<a>\n<b></a>"}'
expect $S 2 'xml_check: not well-formed, line 2'    "$TOOL_ERROR"' && sc.wellFormed === false && sc.error.line === 2 && Number.isInteger(sc.error.column)'
good 102 'xml_check on malformed XML'
call 30 xml_check '{"xml":"<atolls>\n<n>Bikini & Kili</n>\n</atolls>"}'
expect $S 30 'xml_check: a bare & is shown where it is, with how to write it' "$TOOL_ERROR"' && has(text, "near \"<n>Bikini & Kili</n>\"", "written `&amp;`")'
good 130 'xml_check on a bare ampersand'

# 3. Invalid XPath.
call 3 xml_query '{"xml":"<a/>","xpath":"//[["}'
expect $S 3 'bad XPath: isError naming xpath'       "$TOOL_ERROR"' && has(text, "xpath")'
good 103 'bad XPath'

# 4. Unbound prefix: names the namespaces argument and suggests xml_inspect; when the document
#    declares the prefix, gives the binding itself.
call 4 xml_query '{"xml":"<a/>","xpath":"//p:a"}'
expect $S 4 'unbound prefix: isError'               "$TOOL_ERROR"
expect $S 4 'unbound prefix: names namespaces'      'has(text, "namespaces", "xml_inspect")'
good 104 'unbound prefix'
call 24 xml_query '{"xml":"<p:a xmlns:p=\"urn:x\"/>","xpath":"//p:a"}'
expect $S 24 'declared prefix: isError with the binding' "$TOOL_ERROR"' && has(text, "{\"p\":\"urn:x\"}") && !has(text, "xml_inspect")'
good 124 'unbound prefix the document declares'

# 5. Schema violation: the path to the element and its line.
XSD='<xs:schema xmlns:xs=\"http://www.w3.org/2001/XMLSchema\"><xs:element name=\"order\"><xs:complexType><xs:sequence><xs:element name=\"item\" maxOccurs=\"unbounded\"><xs:complexType><xs:sequence><xs:element name=\"price\" type=\"xs:decimal\"/></xs:sequence></xs:complexType></xs:element></xs:sequence></xs:complexType></xs:element></xs:schema>'
call 5 xml_validate '{"xml":"<order>\n<item><price>1</price></item>\n<item><price>2</price></item>\n<item><price>abc</price></item>\n</order>","xsd":"'"$XSD"'"}'
expect $S 5 'schema violation: isError'             "$TOOL_ERROR"
expect $S 5 'schema violation: path in text'        'has(text, "/order/item[3]/price")'
expect $S 5 'schema violation: structured, line 4'  'sc.valid === false && sc.violations.length === 1 && sc.violations[0].path === "/order/item[3]/price" && sc.violations[0].line === 4'
good 105 'schema violation'

# 6. Unknown tool: an isError result (not a JSON-RPC error) naming the five tools.
call 6 xml_transform '{"xml":"<a/>"}'
expect $S 6 'unknown tool: isError, not -32602'     "$TOOL_ERROR"
expect $S 6 'unknown tool: lists the five tools'    'has(text, "xml_inspect", "xml_query", "xml_check", "xml_validate", "xml_format")'
good 106 'unknown tool'

# 7, 8. Missing argument, wrong value: isError naming the field.
call 7 xml_query '{"xml":"<a/>"}'
expect $S 7 'missing argument: names xpath'         "$TOOL_ERROR"' && has(text, "xpath")'
good 107 'missing argument'
call 8 xml_format '{"xml":"<a/>","indent":-1}'
expect $S 8 'out-of-range value: names indent'      "$TOOL_ERROR"' && has(text, "indent")'
good 108 'out-of-range argument'

# 9. Unknown method: JSON-RPC error -32601.
send '{"jsonrpc":"2.0","id":9,"method":"xml/transform","params":{}}'
expect $S 9 'unknown method: error -32601'          'res === undefined && err.code === -32601'
good 109 'unknown method'

# 10. Malformed JSON line: error -32700 with id null.
send '{"jsonrpc":"2.0","id":10,"method":"tools/list"'
expect $S null 'malformed JSON: error -32700, id null' 'r.id === null && res === undefined && err.code === -32700'
good 110 'malformed JSON'

# 11. A request with an id but no method: error -32600.
send '{"jsonrpc":"2.0","id":11}'
expect $S 11 'id without method: error -32600'      'res === undefined && err.code === -32600'
good 111 'id without method'

# 12, 13. XXE: the external entity is never read, whatever the tool.
XXE='<!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><r>&x;</r>'
call 12 xml_query '{"xml":"'"$XXE"'","xpath":"string(/r)"}'
expect $S 12 'XXE query: answered, no file content' 'err === undefined && res !== undefined && !JSON.stringify(r).includes("root:")'
call 13 xml_format '{"xml":"'"$XXE"'","indent":2}'
expect $S 13 'XXE format: answered, no file content' 'err === undefined && res !== undefined && !JSON.stringify(r).includes("root:")'
good 112 'XXE'

# 14. Billion laughs (10^9 "lol"s from a 1 KB document): isError about entities.
# 15. 100,000-deep nesting (a 700 KB document): isError about depth, no stack overflow.
node -e '
  const line = (id, name, args) =>
    JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
  let lol = "<!DOCTYPE lolz [<!ENTITY lol0 \"lol\">";
  for (let i = 1; i <= 9; i++) lol += `<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`;
  lol += "]><lolz>&lol9;</lolz>";
  const deep = "<a>".repeat(100000) + "</a>".repeat(100000);
  console.log(line(14, "xml_query", { xml: lol, xpath: "string-length(/lolz)" }));
  console.log(line(15, "xml_query", { xml: deep, xpath: "count(//a)" }));
' > "$TMP/big.jsonl"
head -n 1 "$TMP/big.jsonl" >> "$IN"
expect $S 14 'billion laughs: isError'              "$TOOL_ERROR"
expect $S 14 'billion laughs: says entity/amplification' '/entit|amplif/i.test(text)'
good 114 'billion laughs'
tail -n 1 "$TMP/big.jsonl" >> "$IN"
expect $S 15 '100,000-deep nesting: isError'        "$TOOL_ERROR"
expect $S 15 '100,000-deep nesting: says depth'     '/depth/i.test(text)'
good 115 '100,000-deep nesting'

# 16. A lone surrogate (\ud83d without its pair) in the xml: isError, not a crash.
call 16 xml_query '{"xml":"<r>\ud83d</r>","xpath":"string(/r)"}'
expect $S 16 'lone surrogate: isError'              "$TOOL_ERROR"' && /surrogate/i.test(text)'
good 116 'lone surrogate'

run_session $S

if ((FAILED)); then
  echo "$NAME: $PASSED passed, $FAILED failed"
  exit 1
fi
echo "$NAME: $PASSED passed"
