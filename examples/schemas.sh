#!/usr/bin/env bash
# schemas.sh: xml_validate with the three schema languages, on the real built binary: a
# DocBook-like article against its RELAX NG grammar, a memo against its DTD, each valid and
# invalid with exact violations and lines; then the hostile cases answer an isError (or the
# right verdict) and the session goes on (docs/behaviour.md §2, docs/security-model.md).
#
# Usage: bash examples/schemas.sh        (VERBOSE=1 to print every assertion)
# Needs: node, and a built dist/cli.js (npm run build).
set -euo pipefail
# shellcheck source=lib/harness.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/harness.sh"

S=schemas
IN="$TMP/$S.in"
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOOL_ERROR='err === undefined && isErr && typeof text === "string" && text.length > 0'

# The schemas hold quotes and newlines: node writes the request lines from the files.
SCHEMAS="$HERE/schemas" node -e '
  const { readFileSync } = require("node:fs");
  const read = (file) => readFileSync(`${process.env.SCHEMAS}/${file}`, "utf8");
  const send = (message) => console.log(JSON.stringify({ jsonrpc: "2.0", ...message }));
  const validate = (id, args) => send({ id, method: "tools/call", params: { name: "xml_validate", arguments: args } });
  send({ id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "examples", version: "1" } } });
  send({ method: "notifications/initialized" });
  validate(1, { xml: read("article-valid.xml"), xsd: read("article.rng") });
  validate(2, { xml: read("article-invalid.xml"), xsd: read("article.rng") });
  validate(3, { xml: "<memo id=\"m1\"><to>T</to><from>A</from><body><p>Hi <em>all</em></p></body></memo>", xsd: read("memo.dtd") });
  validate(4, { xml: read("memo-invalid.xml"), xsd: read("memo.dtd") });
  const RNG = "http://relaxng.org/ns/structure/1.0";
  validate(5, { xml: "<r/>", xsd: `<grammar xmlns="${RNG}"><include href="file:///etc/passwd"/></grammar>` });
  validate(6, { xml: "<r/>", xsd: "<!ENTITY % mods SYSTEM \"http://example.com/mods.dtd\">\n%mods;\n<!ELEMENT r EMPTY>" });
  const chain = Array.from({ length: 20000 }, (_, i) => `<define name="d${i}"><element name="e">${i === 19999 ? "<text/>" : `<ref name="d${i + 1}"/>`}</element></define>`).join("");
  validate(7, { xml: "<r><e>x</e></r>", xsd: `<grammar xmlns="${RNG}"><start><element name="r"><ref name="d0"/></element></start>${chain}</grammar>` });
  validate(8, { xml: `<r>${"<a/>".repeat(40)}<b/></r>`, xsd: `<!ELEMENT r ${"(".repeat(250)}a?${",a?)*".repeat(250)}>\n<!ELEMENT a EMPTY>` });
  let lol = "<!ENTITY % l0 \"lollollollollollollollollollol\">";
  for (let i = 1; i < 12; i++) lol += `\n<!ENTITY % l${i} "${`%l${i - 1};`.repeat(10)}">`;
  validate(9, { xml: "<r/>", xsd: lol });
  validate(10, { xml: "<r/>", xsd: "element r { empty }" });
  validate(11, { xml: read("article-valid.xml"), xsd: read("article.rng") });
' > "$IN"

expect $S 0 'initialize' 'res.protocolVersion === "2025-06-18"'
expect $S 1 'RELAX NG: a valid article'                 '!isErr && text === "Valid: the document conforms to the RELAX NG schema." && eq(sc, {valid: true, total: 0, violations: [], language: "relaxng"})'
expect $S 2 'RELAX NG: an invalid article, 6 reports'   "$TOOL_ERROR"' && sc.language === "relaxng" && sc.total === 6 && text.startsWith("Invalid: 6 violations of the RELAX NG schema.")'
expect $S 2 'RELAX NG: the bad date, line 4, its path in prefixes a query can use'            'eq(sc.violations[0], {message: "Type date doesn'"'"'t allow value '"'"'first of December'"'"'", path: "/ns1:article/ns1:info/ns1:pubdate", line: 4}) && sc.namespaces.ns1 === "http://docbook.org/ns/docbook"'
expect $S 2 'RELAX NG: the untitled section, line 7'    'sc.violations.some((v) => v.line === 7 && v.message === "Did not expect element para there")'
expect $S 2 'RELAX NG: the empty list, line 11'         'sc.violations.some((v) => v.line === 11 && /Expecting an element/.test(v.message))'
expect $S 2 'RELAX NG: the unknown language, line 12'   'sc.violations.some((v) => v.line === 12 && v.message === "Invalid attribute language for element programlisting")'
expect $S 3 'DTD: a valid memo'                         '!isErr && text === "Valid: the document conforms to the DTD." && sc.language === "dtd"'
expect $S 4 'DTD: an invalid memo, 5 violations'        "$TOOL_ERROR"' && sc.total === 5 && text.startsWith("Invalid: 5 violations of the DTD.\n1. line 2, /memo: Element memo content does not follow the DTD, expecting (to+ , from , date? , body), got (from to body )")'
expect $S 4 'DTD: id, enumeration, undeclared b'        'has(text, "2. line 2, /memo: Element memo does not carry attribute id", "3. line 2, /memo: Value \"urgent\" for attribute priority of memo is not among the enumerated set", "5. line 5, /memo/body/p/b: No declaration for element b")'
expect $S 5 'RELAX NG include: refused, nothing read'   "$TOOL_ERROR"' && has(text, "`file:///etc/passwd`", "include/externalRef; nothing is ever fetched")'
expect $S 6 'DTD external entity: refused'              "$TOOL_ERROR"' && has(text, "`%mods;` as another file (`http://example.com/mods.dtd`); nothing is ever fetched")'
expect $S 7 '20,000 chained defines: isError'           "$TOOL_ERROR"' && /^The XML engine (overran its stack|ran out of stack|failed on this input and was restarted)/.test(text)'
expect $S 8 'exponential DTD model: right verdict'      "$TOOL_ERROR"' && /^Invalid: 2 violations of the DTD\.\n1\. .*Content model of r is not deterministic/.test(text)'
expect $S 9 'DTD entity amplification: refused'         "$TOOL_ERROR"' && /not a usable DTD: .*amplification/.test(text)'
expect $S 10 'RELAX NG compact syntax: named'           "$TOOL_ERROR"' && has(text, "compact syntax", "trang")'
expect $S 11 'the session goes on, answering exactly'   '!isErr && text === "Valid: the document conforms to the RELAX NG schema."'

run_session $S

if ((FAILED)); then
  echo "$NAME: $PASSED passed, $FAILED failed"
  exit 1
fi
echo "$NAME: $PASSED passed"
