#!/usr/bin/env bash
# xpath31.sh: analytic questions answered in one call each by XPath 3.1, on an order export and a
# KML-like file, asserting on every reply of the built binary. XPath 1.0 is tried first and
# answers exactly as before; an expression it cannot read is evaluated as XPath 3.1, and the
# answer says so in its last line.
#
#   aggregates over computed values, distinct values, group-by, top-N, dates, regex, for/let
#
# Usage: bash examples/xpath31.sh   (VERBOSE=1 to print every assertion)
# Needs: node, and a built dist/cli.js (npm run build).
set -euo pipefail
# shellcheck source=lib/harness.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/harness.sh"

json() { node -e 'process.stdout.write(JSON.stringify(require("fs").readFileSync(0, "utf8")))'; }
ORDERS=$(json <<'XML'
<orders>
  <order id="A1" placed="2025-03-01T09:15:00" shipped="2025-03-03T17:00:00" status="shipped">
    <customer>Zoë</customer><line sku="P-1" qty="2" price="9.50"/><line sku="P-2" qty="1" price="120.00"/>
  </order>
  <order id="A2" placed="2025-03-02T11:00:00" shipped="2025-03-02T16:30:00" status="SHIPPED">
    <customer>Björn</customer><line sku="P-1" qty="10" price="9.50"/>
  </order>
  <order id="A3" placed="2025-03-04T08:00:00" status="open">
    <customer>Zoë</customer><line sku="P-3" qty="3" price="4.25"/><line sku="P-2" qty="2" price="110.00"/>
  </order>
</orders>
XML
)
KML=$(json <<'XML'
<kml xmlns="http://www.opengis.net/kml/2.2"><Document>
  <Placemark><name>North</name><description><![CDATA[<b>Length:</b> 12.5 km]]></description></Placemark>
  <Placemark><name>Ridge</name><description><![CDATA[<b>Length:</b> 7.25 km]]></description></Placemark>
  <Placemark><name>Lake</name><description><![CDATA[<b>Length:</b> 3 km]]></description></Placemark>
</Document></kml>
XML
)
K='{"k":"http://www.opengis.net/kml/2.2"}'

call() { printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"xml_query","arguments":{"xml":%s,"xpath":%s%s}}}\n' "$1" "$2" "$(printf '%s' "$3" | json)" "${4:-}"; }
{
  echo '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"examples","version":"1"}}}'
  echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  call 2 "$ORDERS" 'sum(//line ! (@qty * @price))'
  call 3 "$ORDERS" 'count(distinct-values(//line/@sku))'
  call 4 "$ORDERS" "for \$c in distinct-values(//customer) return \$c || ': ' || count(//order[customer = \$c])"
  call 5 "$ORDERS" '(for $o in //order order by sum($o/line ! (@qty * @price)) descending return string($o/@id))[position() le 2]'
  call 6 "$ORDERS" 'min(//order[@shipped] ! (xs:dateTime(@shipped) - xs:dateTime(@placed)))'
  call 7 "$ORDERS" "//order[lower-case(@status) = 'shipped']/@id" ',"output":"paths"'
  call 8 "$ORDERS" 'count(//order)'
  call 9 "$KML" "sum(//k:description ! number(replace(., '^.*Length:</b> ([0-9.]+) km.*\$', '\$1')))" ",\"namespaces\":$K"
  call 10 "$ORDERS" '["count(//line)", "string-join(sort(distinct-values(//customer)), \", \")", "//order[matches(@id, \"^A[12]$\")]/customer"]'
  call 11 "$ORDERS" 'for $o in //order return'
  call 12 "$ORDERS" 'lower-case(//customer)'
  call 13 "$ORDERS" "let \$open := //order[@status = 'open'] return map { 'open': count(\$open), 'value': sum(\$open/line ! (@qty * @price)) }"
} > "$TMP/xpath31.in"
# Request 10's xpath is an array: written as JSON text above, so it is spliced in as-is.
sed -i 's/"xpath":"\[\\"count(\/\/line)\\", \\"string-join(sort(distinct-values(\/\/customer)), \\\\\\", \\\\\\")\\", \\"\/\/order\[matches(@id, \\\\\\"^A\[12\]\$\\\\\\")\]\/customer\\"\]"/"xpath":["count(\/\/line)","string-join(sort(distinct-values(\/\/customer)), \\", \\")","\/\/order[matches(@id, \\"^A[12]$\\")]\/customer"]/' "$TMP/xpath31.in"

S=xpath31
V='(evaluated as XPath 3.1)'
expect $S 2  'a sum over computed values (quantity times price), done by the server' \
  "!isErr && text === '466.75\n$V' && eq(sc, {type: 'number', count: 1, values: ['466.75'], xpath_version: '3.1', notes: ['$V']})"
expect $S 3  'distinct values counted' \
  "!isErr && text === '3\n$V'"
expect $S 4  'group-by: each customer with their number of orders' \
  "!isErr && eq(sc.values, ['Zoë: 2', 'Björn: 1']) && sc.type === 'sequence' && has(text, '2 items in', '$V')"
expect $S 5  'top-N by a computed key (XQuery order by)' \
  "!isErr && eq(sc.values, ['A3', 'A1'])"
expect $S 6  'dates: the shortest time from placed to shipped, as a duration' \
  "!isErr && eq(sc.values, ['PT5H30M'])"
expect $S 7  'a 2.0 function in a predicate, nodes back in every output form (paths)' \
  "!isErr && eq(sc.values, ['/orders/order[1]/@id', '/orders/order[2]/@id']) && eq(sc.lines, [2, 5])"
expect $S 8  'an XPath 1.0 expression answers exactly as before, with no 3.1 line' \
  "!isErr && text === '3' && eq(sc, {type: 'node-set' === 'x' ? 0 : 'number', count: 1, values: ['3']})"
expect $S 9  'a number held inside each text, summed with a regex (the KML case that took 7 calls)' \
  "!isErr && eq(sc.values, ['22.75'])"
expect $S 10 'a batch mixes XPath 1.0 and 3.1 entries, each saying what answered it' \
  "!isErr && eq(sc.results.map((r) => r.xpath_version ?? '1.0'), ['1.0', '3.1', '3.1']) && eq(sc.results[1].values, ['Björn, Zoë']) && eq(sc.results[2].values, ['Zoë', 'Björn'])"
expect $S 11 'an expression valid in neither language: the XPath 3.1 error with its code and a caret' \
  "isErr && has(text, 'not a valid XPath 1.0 or XPath 3.1 expression at character 25: XPST0003', '^')"
expect $S 12 'a one-value function given several: the error says to apply it with !' \
  "isErr && has(text, 'XPTY0004', 'apply it to each with \`!\`')"
expect $S 13 'let and a map: the map as JSON text' \
  "!isErr && sc.type === 'map' && eq(JSON.parse(sc.values[0]), {open: 1, value: 232.75})"
run_session $S

if ((FAILED)); then
  echo "$NAME: $PASSED passed, $FAILED failed"
  exit 1
fi
echo "$NAME: $PASSED passed"
