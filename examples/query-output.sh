#!/usr/bin/env bash
# query-output.sh: xml_query's `output` argument and batches, on a real Maven POM, an Atom feed
# (default namespace) and an SVG icon, asserting on every reply of the built binary.
#
#   output "xml":   each matched node as markup, cut at its share of max_chars
#   output "paths": each node's location path (with the caller's prefixes) and its line
#   batch:          xpath as an array, answered in order, one bad expression failing alone
#
# Usage: bash examples/query-output.sh   (VERBOSE=1 to print every assertion)
# Needs: node, and a built dist/cli.js (npm run build).
set -euo pipefail
# shellcheck source=lib/harness.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/harness.sh"

# The documents, as JSON strings (node does the escaping).
json() { node -e 'process.stdout.write(JSON.stringify(require("fs").readFileSync(0, "utf8")))'; }
POM=$(json <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <artifactId>demo</artifactId>
  <dependencies>
    <dependency>
      <groupId>org.junit.jupiter</groupId>
      <artifactId>junit-jupiter</artifactId>
      <scope>test</scope>
    </dependency>
    <dependency>
      <groupId>com.google.guava</groupId>
      <artifactId>guava</artifactId>
      <version>33.0.0-jre</version>
    </dependency>
  </dependencies>
</project>
XML
)
ATOM=$(json <<'XML'
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Example Feed</title>
  <entry><title>Robots Run Amok</title><link href="http://example.org/1"/></entry>
  <entry><title>Second &amp; last</title><link rel="alternate" href="http://example.org/2"/></entry>
</feed>
XML
)
SVG=$(json <<'XML'
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 24 24">
  <defs><path id="a" d="M12 2L2 7l10 5z"/></defs>
  <use xlink:href="#a" fill="none"/>
</svg>
XML
)
M='{"m":"http://maven.apache.org/POM/4.0.0"}'
A='{"a":"http://www.w3.org/2005/Atom"}'

cat > "$TMP/output.in" <<EOF
{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"examples","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"xml_query","arguments":{"xml":$POM,"xpath":"//m:dependency[m:scope='test']","namespaces":$M,"output":"xml"}}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"xml_query","arguments":{"xml":$ATOM,"xpath":"//a:entry","namespaces":$A,"output":"xml","max_chars":108}}}
{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"xml_query","arguments":{"xml":$SVG,"xpath":"//@*","output":"xml"}}}
{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"xml_query","arguments":{"xml":$POM,"xpath":"//m:artifactId","namespaces":$M,"output":"paths"}}}
{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"xml_query","arguments":{"xml":$ATOM,"xpath":"//*[local-name()='link']/@href","output":"paths"}}}
{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"xml_query","arguments":{"xml":$ATOM,"xpath":"/*[local-name()='feed']/*[local-name()='entry'][2]/*[local-name()='link']/@href"}}}
{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"xml_query","arguments":{"xml":$POM,"xpath":["count(//m:dependency)","//m:dependency[not(m:version)]/m:artifactId","//m:dependency[","//@xsi:schemaLocation"],"namespaces":{"m":"http://maven.apache.org/POM/4.0.0","xsi":"http://www.w3.org/2001/XMLSchema-instance"}}}}
{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"xml_query","arguments":{"xml":$SVG,"xpath":["count(//*)","//@xlink:href"],"namespaces":{"xlink":"http://www.w3.org/1999/xlink"},"output":"paths"}}}
{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"xml_query","arguments":{"xml":"<r/>","xpath":["1","2","3","4","5","6","7","8","9","10","11","12","13","14","15","16","17","18","19","20","21","22","23","24","25","26","27","28","29","30","31","32","33"]}}}
{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"xml_query","arguments":{"xml":$POM,"xpath":"//m:artifactId","namespaces":$M}}}
EOF
S=output
expect $S 2  'output xml: the test dependency as markup, subtree and all' \
  '!isErr && eq(sc, {type: "node-set", count: 1, values: ["<dependency>\n      <groupId>org.junit.jupiter</groupId>\n      <artifactId>junit-jupiter</artifactId>\n      <scope>test</scope>\n    </dependency>"]}) && text === sc.values[0]'
expect $S 3  'output xml: a node past its share of max_chars is cut and says so, count exact (each node costs what it takes as a JSON string: 85 and 23)' \
  '!isErr && sc.count === 2 && sc.truncated === true && sc.values[0] === "<entry><title>Robots Run Amok</title><link href=\"http://example.org/1\"/></entry>" && sc.values[1] === "<entry><title>…[cut]" && has(text, "1 of the 2 shown cut where …[cut] stands", "raise max_chars")'
expect $S 4  'output xml: attributes as name="value", prefix as written' \
  '!isErr && eq(sc.values, ["viewBox=\"0 0 24 24\"", "id=\"a\"", "d=\"M12 2L2 7l10 5z\"", "xlink:href=\"#a\"", "fill=\"none\""])'
expect $S 5  'output paths: positional paths with the bound prefix, and lines' \
  '!isErr && eq(sc, {type: "node-set", count: 3, values: ["/m:project/m:artifactId", "/m:project/m:dependencies/m:dependency[1]/m:artifactId", "/m:project/m:dependencies/m:dependency[2]/m:artifactId"], lines: [5, 9, 14]}) && text.split("\n")[2] === "/m:project/m:dependencies/m:dependency[1]/m:artifactId (line 9)"'
expect $S 6  "output paths: *[local-name()=...] steps where no prefix is bound" \
  "!isErr && eq(sc.values, [\"/*[local-name()='feed']/*[local-name()='entry'][1]/*[local-name()='link']/@href\", \"/*[local-name()='feed']/*[local-name()='entry'][2]/*[local-name()='link']/@href\"]) && eq(sc.lines, [3, 4])"
expect $S 7  'a path given back selects exactly its node' \
  '!isErr && eq(sc, {type: "node-set", count: 1, values: ["http://example.org/2"]})'
expect $S 8  'batch: answered in order under numbered headings, the bad one alone failing' \
  '!isErr && has(text, "1. `count(//m:dependency)` → 2\n2. `//m:dependency[not(m:version)]/m:artifactId` → 1 node:\n   junit-jupiter\n3. `//m:dependency[` → error: The expression is not a valid XPath 1.0 expression", "4. `//@xsi:schemaLocation` → 1 node:\n   http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd")'
expect $S 8  'batch: structuredContent has one result per expression, with its xpath' \
  'sc.results.length === 4 && eq(sc.results.map((e) => e.xpath), ["count(//m:dependency)", "//m:dependency[not(m:version)]/m:artifactId", "//m:dependency[", "//@xsi:schemaLocation"]) && eq(sc.results[0], {xpath: "count(//m:dependency)", type: "number", count: 1, values: ["2"]}) && typeof sc.results[2].error === "string" && sc.results[2].values === undefined'
expect $S 9  'batch with output paths: paths for each node-set, scalars as values' \
  "!isErr && eq(sc.results, [{xpath: \"count(//*)\", type: \"number\", count: 1, values: [\"4\"]}, {xpath: \"//@xlink:href\", type: \"node-set\", count: 1, values: [\"/*[local-name()='svg']/*[local-name()='use']/@xlink:href\"], lines: [3]}])"
expect $S 10 'a batch of 33 is refused before it runs, naming the limit' \
  'isErr && text === "The `xpath` argument of xml_query is invalid: an array of 33 expressions; the limit is 32: split the batch."'
expect $S 11 'without output: the answer is exactly as before' \
  '!isErr && text === "3 nodes matched `//m:artifactId`:\ndemo\njunit-jupiter\nguava" && eq(sc, {type: "node-set", count: 3, values: ["demo", "junit-jupiter", "guava"]})'
run_session $S

if ((FAILED)); then
  echo "$NAME: $PASSED passed, $FAILED failed"
  exit 1
fi
echo "$NAME: $PASSED passed"
