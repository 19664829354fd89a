#!/usr/bin/env bash
# session.sh: drive the built oxml-mcp binary over stdio in both handshake eras
# and assert on every reply.
#
#   2025 era (initialize handshake, revisions 2025-06-18 and 2024-11-05):
#     initialize, notifications/initialized, tools/list, then every tool once.
#   2026-07-28 era (no handshake; each request names its revision in params._meta):
#     server/discover, tools/list, tools/call.
#
# Usage: bash examples/session.sh        (VERBOSE=1 to print every assertion)
# Needs: node, and a built dist/cli.js (npm run build).
set -euo pipefail
# shellcheck source=lib/harness.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/harness.sh"

FIVE='["xml_check","xml_format","xml_inspect","xml_query","xml_validate"]'
# Names in tools/list, sorted, equal the five tools.
TOOLS_ARE_FIVE="eq(res.tools.map((t) => t.name).sort(), $FIVE)"
READ_ONLY='res.tools.every((t) => t.annotations && t.annotations.readOnlyHint === true && t.annotations.destructiveHint === false && t.annotations.idempotentHint === true && t.annotations.openWorldHint === false)'

# ---------------------------------------------------------------------------
# Session 1: revision 2025-06-18, every tool once.
# The JSON below is sent byte for byte (quoted heredoc): \ud83d\ude00 reaches the
# server as a JSON surrogate-pair escape, the way Python's json.dumps sends an emoji.
# ---------------------------------------------------------------------------
cat > "$TMP/v2025.in" <<'EOF'
{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"examples","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"xml_inspect","arguments":{"xml":"<library><book><title>Dune</title></book><book><title>Emma</title></book></library>"}}}
{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"xml_query","arguments":{"xml":"<library><book><title>Dune</title></book><book><title>Emma</title></book></library>","xpath":"count(//book)"}}}
{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"xml_query","arguments":{"xml":"<library><book><title>Dune</title></book></library>","xpath":"//title"}}}
{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"xml_query","arguments":{"xml":"<c:catalog xmlns:c=\"urn:example:catalog\"><c:item>A</c:item><c:item>B</c:item></c:catalog>","xpath":"//cat:item","namespaces":{"cat":"urn:example:catalog"}}}}
{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"xml_query","arguments":{"xml":"<c:catalog xmlns:c=\"urn:example:catalog\"><c:item>A</c:item><c:item>B</c:item></c:catalog>","xpath":"count(//item)"}}}
{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"xml_check","arguments":{"xml":"<a><b/></a>"}}}
{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"xml_validate","arguments":{"xml":"<order><item><price>1.50</price></item><item><price>2</price></item></order>","xsd":"<xs:schema xmlns:xs='http://www.w3.org/2001/XMLSchema'><xs:element name='order'><xs:complexType><xs:sequence><xs:element name='item' maxOccurs='unbounded'><xs:complexType><xs:sequence><xs:element name='price' type='xs:decimal'/></xs:sequence></xs:complexType></xs:element></xs:sequence></xs:complexType></xs:element></xs:schema>"}}}
{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"xml_format","arguments":{"xml":"<a><b>x</b><c/></a>","indent":2}}}
{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"xml_query","arguments":{"xml":"<r>\ud83d\ude00</r>","xpath":"string-length(/r)"}}}
{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"xml_query","arguments":{"xml":"<r>\ud83d\ude00</r>","xpath":"string(/r)"}}}
{"jsonrpc":"2.0","id":13,"method":"ping"}
EOF
S=v2025
expect $S 1  'initialize answers 2025-06-18'            'res.protocolVersion === "2025-06-18"'
expect $S 1  'initialize names the server, offers tools' 'res.serverInfo.name === "oxml-mcp" && typeof res.capabilities.tools === "object"'
expect $S 2  'tools/list: exactly the five tools'        "$TOOLS_ARE_FIVE"
expect $S 2  'tools/list: all read-only annotated'       "$READ_ONLY"
expect $S 2  'tools/list: every tool but xml_format has an outputSchema' 'res.tools.every((t) => t.name === "xml_format" ? t.outputSchema === undefined : t.outputSchema && t.outputSchema.type === "object")'
expect $S 3  'xml_inspect: root, depth, counts'          '!isErr && sc.root === "library" && sc.maxDepth === 4 && sc.elements.book === 2'
expect $S 3  'xml_inspect: text names the root'          'has(text, "Root element: library", "Maximum depth: 4")'
expect $S 4  'xml_query count(//book) = 2'               '!isErr && text === "2" && eq(sc, {type: "number", count: 1, values: ["2"]})'
expect $S 5  'xml_query //title (quick start) = Dune'    '!isErr && text === "Dune" && eq(sc, {type: "node-set", count: 1, values: ["Dune"]})'
expect $S 6  'xml_query //cat:item with namespaces'      '!isErr && text === "2 nodes matched `//cat:item`:\nA\nB" && eq(sc, {type: "node-set", count: 2, values: ["A", "B"]})'
expect $S 7  'unprefixed name test skips namespaced els' '!isErr && text.startsWith("0\n") && eq(sc, {type: "number", count: 1, values: ["0"], notes: [text.slice(2)]})'
expect $S 8  'xml_check: well-formed, with node count'   '!isErr && sc.wellFormed === true && /well-formed/i.test(text) && /\d+ node/.test(text)'
expect $S 9  'xml_validate: valid document'             '!isErr && eq(sc, {valid: true, total: 0, violations: []}) && /valid/i.test(text)'
expect $S 10 'xml_format indent 2'                       '!isErr && text === "<a>\n  <b>x</b>\n  <c/>\n</a>" && r.result.structuredContent === undefined'
expect $S 11 'surrogate-pair emoji is one character'     '!isErr && text === "1"'
expect $S 12 'surrogate-pair emoji round-trips'          '!isErr && text === String.fromCodePoint(0x1F600) && eq(sc.values, [String.fromCodePoint(0x1F600)])'
expect $S 13 'ping answers an empty result'              'eq(res, {})'
run_session $S

# ---------------------------------------------------------------------------
# Session 2: revision 2024-11-05 (the oldest served) negotiates and works.
# ---------------------------------------------------------------------------
cat > "$TMP/v2024.in" <<'EOF'
{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"examples","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"xml_query","arguments":{"xml":"<library><book/><book/></library>","xpath":"count(//book)"}}}
EOF
S=v2024
expect $S 1 'initialize answers 2024-11-05'      'res.protocolVersion === "2024-11-05"'
expect $S 2 'tools/list: exactly the five tools' "$TOOLS_ARE_FIVE"
expect $S 3 'tools/call count(//book) = 2'       '!isErr && text === "2"'
run_session $S

# ---------------------------------------------------------------------------
# Session 3: revision 2026-07-28, no initialize; every request carries _meta.
# ---------------------------------------------------------------------------
META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"examples","version":"1"}}'
sed "s|@META@|$META|" > "$TMP/v2026.in" <<'EOF'
{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{@META@}}
{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{@META@}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{@META@,"name":"xml_query","arguments":{"xml":"<library><book><title>Dune</title></book></library>","xpath":"//title"}}}
{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{@META@,"name":"xml_inspect","arguments":{"xml":"<r><t>x</t></r>"}}}
EOF
S=v2026
expect $S 1 'server/discover lists 2026-07-28'        'Array.isArray(res.supportedVersions) && res.supportedVersions.includes("2026-07-28")'
expect $S 1 'server/discover offers tools'            'typeof res.capabilities.tools === "object"'
expect $S 2 'tools/list: exactly the five tools'      "$TOOLS_ARE_FIVE"
expect $S 3 'tools/call //title = Dune, no handshake' '!isErr && text === "Dune" && eq(sc, {type: "node-set", count: 1, values: ["Dune"]})'
expect $S 4 'xml_inspect <r><t>x</t></r> (spec text)' '!isErr && has(text, "Root element: r", "Maximum depth: 3", "r: 1", "t: 1")'
run_session $S

if ((FAILED)); then
  echo "$NAME: $PASSED passed, $FAILED failed"
  exit 1
fi
echo "$NAME: $PASSED passed"
