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

NAME=$(basename "${BASH_SOURCE[0]}")
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CLI="$ROOT/dist/cli.js"
if [[ ! -f $CLI ]]; then
  echo "$NAME: $CLI is missing; run 'npm run build' first" >&2
  exit 1
fi
command -v node >/dev/null || { echo "$NAME: node is not on PATH" >&2; exit 1; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
PASSED=0
FAILED=0

# ---------------------------------------------------------------------------
# Harness (the same in every example script, so each one stands alone).
#
#   expect SESSION ID DESCRIPTION JS-EXPRESSION
#       queue an assertion on the reply whose id is ID (a JSON literal: 3, "a", null).
#       The expression sees: r (the whole reply), res (r.result), err (r.error),
#       text (the content texts joined by "\n"), sc (structuredContent),
#       isErr (res.isError === true), eq(a, b) (deep equality), has(s, ...parts).
#   run_session SESSION
#       pipe $TMP/SESSION.in (one JSON-RPC message per line) into the binary,
#       then check: exit code 0 at end of stdin, stdout is JSON-RPC only, every
#       request answered exactly once, and every queued assertion.
# ---------------------------------------------------------------------------
cat > "$TMP/verify.js" <<'JS'
const fs = require("fs");
const [base, rcText] = process.argv.slice(2);
const verbose = process.env.VERBOSE === "1";
const session = base.split("/").pop();
let pass = 0, fail = 0;
const clip = (s) => (s.length > 500 ? s.slice(0, 500) + "..." : s);
function report(ok, desc, detail) {
  if (ok) { pass++; if (verbose) console.log(`  ok   [${session}] ${desc}`); }
  else { fail++; console.log(`  FAIL [${session}] ${desc}${detail ? "\n       " + detail : ""}`); }
}
const canon = (v) => JSON.stringify(v, (k, x) =>
  x && typeof x === "object" && !Array.isArray(x)
    ? Object.fromEntries(Object.keys(x).sort().map((key) => [key, x[key]])) : x);
const eq = (a, b) => canon(a) === canon(b);
const has = (s, ...parts) => typeof s === "string" && parts.every((p) => s.includes(p));

// 1. The server ends with exit code 0 once stdin is closed.
report(rcText === "0", "server exits 0 at end of stdin", `exit code ${rcText}`);

// 2. stdout carries JSON-RPC messages only.
const outLines = fs.readFileSync(base + ".out", "utf8").split("\n").filter((l) => l !== "");
const replies = new Map();
const badLines = [];
const dupes = [];
let answered = 0;
for (const line of outLines) {
  let m;
  try { m = JSON.parse(line); } catch { badLines.push(line); continue; }
  if (!m || m.jsonrpc !== "2.0") { badLines.push(line); continue; }
  if (!("id" in m)) continue; // a server notification (progress, log): allowed
  answered++;
  const key = JSON.stringify(m.id);
  if (replies.has(key)) dupes.push(key);
  replies.set(key, m);
}
report(badLines.length === 0, "stdout holds JSON-RPC messages only",
  badLines.length ? "not JSON-RPC: " + clip(badLines[0]) : "");

// 3. Every request (a line with an id, or a line that is not even JSON) is answered once.
let expected = 0;
for (const line of fs.readFileSync(base + ".in", "utf8").split("\n")) {
  if (line.trim() === "") continue;
  let m;
  try { m = JSON.parse(line); } catch { expected++; continue; }
  if (m && typeof m === "object" && "id" in m) expected++;
}
report(answered === expected && dupes.length === 0, "every request is answered exactly once",
  `${expected} requests, ${answered} replies${dupes.length ? ", duplicate ids " + dupes.join(" ") : ""}`);

// 4. The queued assertions.
const checksFile = base + ".checks";
const checks = fs.existsSync(checksFile)
  ? fs.readFileSync(checksFile, "utf8").split("\n").filter((l) => l !== "") : [];
for (const line of checks) {
  const [idText, desc, expr] = line.split("\t");
  const r = replies.get(JSON.stringify(JSON.parse(idText)));
  if (!r) { report(false, desc, `no reply with id ${idText}`); continue; }
  const res = r.result, err = r.error;
  const text = res && Array.isArray(res.content)
    ? res.content.filter((c) => c.type === "text").map((c) => c.text).join("\n") : undefined;
  const sc = res ? res.structuredContent : undefined;
  const isErr = !!res && res.isError === true;
  let ok = false, why = "";
  try {
    ok = new Function("r", "res", "err", "text", "sc", "isErr", "eq", "has", `return (${expr});`)(
      r, res, err, text, sc, isErr, eq, has) === true;
  } catch (e) { why = `threw ${e}; `; }
  report(ok, desc, ok ? "" : `${why}expected: ${expr}\n       got: ${clip(JSON.stringify(r))}`);
}
fs.writeFileSync(base + ".counts", `${pass} ${fail}\n`);
JS

expect() { printf '%s\t%s\t%s\n' "$2" "$3" "$4" >> "$TMP/$1.checks"; }

run_session() {
  local s=$1 rc=0 p f
  if command -v timeout >/dev/null; then
    timeout 60 node "$CLI" < "$TMP/$s.in" > "$TMP/$s.out" 2> "$TMP/$s.err" || rc=$?
  else
    node "$CLI" < "$TMP/$s.in" > "$TMP/$s.out" 2> "$TMP/$s.err" || rc=$?
  fi
  node "$TMP/verify.js" "$TMP/$s" "$rc"
  read -r p f < "$TMP/$s.counts"
  PASSED=$((PASSED + p))
  FAILED=$((FAILED + f))
  if [[ $f -ne 0 && -s $TMP/$s.err ]]; then
    echo "  [$s] server stderr (last lines):"
    tail -n 5 "$TMP/$s.err" | sed 's/^/       /'
  fi
}

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
expect $S 2  'tools/list: every tool has an outputSchema' 'res.tools.every((t) => t.outputSchema && t.outputSchema.type === "object")'
expect $S 3  'xml_inspect: root, depth, counts'          '!isErr && sc.root === "library" && sc.maxDepth === 4 && eq(sc.elements.find((e) => e.name === "book"), {name: "book", count: 2})'
expect $S 3  'xml_inspect: text names the root'          'has(text, "Root element: library", "Maximum depth: 4")'
expect $S 4  'xml_query count(//book) = 2'               '!isErr && text === "2" && eq(sc, {type: "number", count: 1, values: ["2"]})'
expect $S 5  'xml_query //title (quick start) = Dune'    '!isErr && text === "Dune" && eq(sc, {type: "node-set", count: 1, values: ["Dune"]})'
expect $S 6  'xml_query //cat:item with namespaces'      '!isErr && text === "A\nB" && eq(sc, {type: "node-set", count: 2, values: ["A", "B"]})'
expect $S 7  'unprefixed name test skips namespaced els' '!isErr && text === "0"'
expect $S 8  'xml_check: well-formed, with node count'   '!isErr && sc.wellFormed === true && /well-formed/i.test(text) && /\d+ node/.test(text)'
expect $S 9  'xml_validate: valid document'             '!isErr && eq(sc, {valid: true, violations: []}) && /valid/i.test(text)'
expect $S 10 'xml_format indent 2'                       '!isErr && text === "<a>\n  <b>x</b>\n  <c/>\n</a>" && sc.xml === text'
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
