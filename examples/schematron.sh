#!/usr/bin/env bash
# schematron.sh: xml_validate with ISO Schematron on the real built binary. First as a model asks
# "is this invoice valid under EN 16931, and if not, what must change": the EN 16931 UBL rules
# (test/fixtures/en16931) on an invoice without its buyer's country answer BR-11 with the path,
# one xml_query with the answer's prefixes confirms the country is missing, and the invoice with
# it is valid. Then a small schema's value-of messages, a phase, and a refusal; the session goes
# on (docs/behaviour.md §2, docs/adr/0053-schematron-on-the-servers-own-engines.md).
#
# Usage: bash examples/schematron.sh        (VERBOSE=1 to print every assertion)
# Needs: node, and a built dist/cli.js (npm run build).
set -euo pipefail
# shellcheck source=lib/harness.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/harness.sh"

S=schematron
IN="$TMP/$S.in"
TOOL_ERROR='err === undefined && isErr && typeof text === "string" && text.length > 0'

FIXTURES="$ROOT/test/fixtures/en16931" node -e '
  const { readFileSync } = require("node:fs");
  const read = (file) => readFileSync(`${process.env.FIXTURES}/${file}`, "utf8");
  const send = (message) => console.log(JSON.stringify({ jsonrpc: "2.0", ...message }));
  const tool = (id, name, args) => send({ id, method: "tools/call", params: { name, arguments: args } });
  const rules = read("EN16931-UBL-validation-preprocessed.sch");
  const invoice = read("examples/ubl-tc434-example1.xml");
  const countryless = invoice.replace(/(<cac:AccountingCustomerParty>[\s\S]*?)<cac:Country>\s*<cbc:IdentificationCode>NL<\/cbc:IdentificationCode>\s*<\/cac:Country>/, "$1");
  send({ id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "examples", version: "1" } } });
  send({ method: "notifications/initialized" });
  tool(1, "xml_validate", { xml: countryless, xsd: rules });
  tool(2, "xml_query", { xml: countryless, xpath: "count(/ubl:Invoice/cac:AccountingCustomerParty/cac:Party/cac:PostalAddress/cac:Country)", namespaces: {
    ubl: "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2", cac: "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" } });
  tool(3, "xml_validate", { xml: invoice, xsd: rules });
  const SCH = "http://purl.oclc.org/dsdl/schematron";
  const order = `<schema xmlns="${SCH}"><phase id="totals"><active pattern="totals"/></phase>
    <pattern id="items"><rule context="item"><assert id="QTY" flag="fatal" test="@qty &gt; 0">Item <value-of select="@sku"/> has quantity <value-of select="@qty"/>.</assert></rule></pattern>
    <pattern id="totals"><rule context="/order"><report id="BIG" role="info" test="count(item) &gt; 2"><name/> has <value-of select="count(item)"/> items.</report></rule></pattern></schema>`;
  const xml = "<order>\n<item sku=\"A\" qty=\"0\"/>\n<item sku=\"B\" qty=\"0\"/>\n<item sku=\"C\" qty=\"1\"/>\n</order>";
  tool(4, "xml_validate", { xml, xsd: order });
  tool(5, "xml_validate", { xml, xsd: order, phase: "totals" });
  tool(6, "xml_validate", { xml, xsd: `<schema xmlns="${SCH}"><pattern><rule context="item"><assert test="@sku = document('/etc/passwd')//x">m</assert></rule></pattern></schema>` });
  tool(7, "xml_validate", { xml, xsd: order, phase: "nope" });
' > "$IN"

expect $S 0 'initialize' 'res.protocolVersion === "2025-06-18"'
expect $S 1 'EN 16931: the countryless invoice fails BR-11 once, and only that'  "$TOOL_ERROR"' && sc.language === "schematron" && eq(sc.schematron.by_id, {"BR-11": 1}) && sc.total === 1'
expect $S 1 'EN 16931: BR-11 names the buyer address, its line and the fix'     'eq(sc.violations[0], {message: "[BR-11]-The Buyer postal address shall contain a Buyer country code (BT-55).", path: "/ubl:Invoice/cac:AccountingCustomerParty/cac:Party/cac:PostalAddress", line: 49, kind: "assert", id: "BR-11", flag: "fatal", test: "normalize-space(cac:Country/cbc:IdentificationCode) != '"''"'"}) && sc.namespaces.cac === "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"'
expect $S 1 'EN 16931: the text groups it under its id'                        'text.startsWith("Invalid: 1 finding of the Schematron schema, 1 distinct; by flag or role: 1 fatal. (all patterns: ") && has(text, "BR-11 (failed assert, fatal): [BR-11]-The Buyer postal address", "  at line 49, /ubl:Invoice/cac:AccountingCustomerParty/cac:Party/cac:PostalAddress")'
expect $S 2 'one query with those prefixes: no country there'                  '!isErr && text === "0"'
expect $S 3 'EN 16931: the invoice with its country is valid'                  '!isErr && text.startsWith("Valid: the document conforms to the Schematron schema. (all patterns: ") && sc.valid === true'
expect $S 4 'value-of and name in messages, grouped by id'                     "$TOOL_ERROR"' && text === ["Invalid: 3 findings of the Schematron schema, 2 distinct; by flag or role: 2 fatal, 1 info. (all patterns: 4 rules fired on 4 nodes.)", "QTY (failed assert, fatal, 2 times): Item A has quantity 0.", "  test: @qty > 0", "  at line 2, /order/item[1]", "  at line 3, /order/item[2]: Item B has quantity 0.", "BIG (successful report, info): order has 3 items.", "  test: count(item) > 2", "  at line 1, /order"].join("\n")'
expect $S 4 'each finding keeps its own message in structuredContent'          'sc.violations[1].message === "Item B has quantity 0." && eq(sc.schematron.by_id, {QTY: 2, BIG: 1})'
expect $S 5 'a phase runs only its patterns'                                    "$TOOL_ERROR"' && sc.schematron.phase === "totals" && eq(sc.schematron.by_id, {BIG: 1})'
expect $S 6 'document() in a rule: refused, nothing read'                      "$TOOL_ERROR"' && has(text, "calls `document()` in `test`", "nothing is ever fetched")'
expect $S 7 'an unknown phase: the phases there are'                            "$TOOL_ERROR"' && text === "The Schematron schema has no phase \"nope\". Its phases: \"totals\"; or pass `phase`: \"#ALL\" to run every pattern."'

run_session $S
if ((FAILED)); then
  echo "$NAME: $PASSED passed, $FAILED failed"
  exit 1
fi
echo "$NAME: $PASSED passed"
