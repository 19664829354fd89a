#!/usr/bin/env bash
# namespace-hints.sh: the answers that tell a model what it cannot see, from the built binary
# over stdio. An Atom feed asked `count(//entry)` answers 0 (XPath 1.0: an unprefixed name means
# no namespace) and says where `entry` is, the binding to pass and the expression to write; the
# advised query then answers 3. The same for a POM's `//dependency`, an SVG's `@href`, a bound
# URI off by a trailing slash, and `xlink:` used without a binding.
#
# Usage: bash examples/namespace-hints.sh        (VERBOSE=1 to print every assertion)
# Needs: node, and a built dist/cli.js (npm run build).
set -euo pipefail
# shellcheck source=lib/harness.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/harness.sh"

S=hints
IN="$TMP/$S.in"
: > "$IN"
send() { printf '%s\n' "$1" >> "$IN"; }
call() { # call ID TOOL ARGUMENTS-JSON
  send '{"jsonrpc":"2.0","id":'"$1"',"method":"tools/call","params":{"name":"'"$2"'","arguments":'"$3"'}}'
}
ATOM='http://www.w3.org/2005/Atom'
FEED='"<feed xmlns=\"'$ATOM'\"><title>F</title><entry><title>A</title></entry><entry><title>B</title></entry><entry><title>C</title></entry></feed>"'
POM='"<project xmlns=\"http://maven.apache.org/POM/4.0.0\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:schemaLocation=\"http://maven.apache.org/POM/4.0.0 maven.xsd\"><dependencies><dependency><artifactId>junit</artifactId></dependency></dependencies></project>"'
SVG='"<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\"><use xlink:href=\"#a\"/><use xlink:href=\"#b\"/></svg>"'

send '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"examples","version":"1"}}}'
send '{"jsonrpc":"2.0","method":"notifications/initialized"}'
expect $S 0 'initialize' 'res.protocolVersion === "2025-06-18"'

# 1, 2. The Atom feed: count(//entry) is 0, and the text says what to write; that answers 3.
call 1 xml_query '{"xml":'"$FEED"',"xpath":"count(//entry)"}'
expect $S 1 'Atom count(//entry): still 0, exactly XPath 1.0'  '!isErr && eq(sc, {type: "number", count: 1, values: ["0"], notes: [text.slice(2)]}) && text.startsWith("0\n")'
expect $S 1 'Atom count(//entry): says the namespace'          'has(text, "`entry` elements in no namespace: they are in '$ATOM'")'
expect $S 1 'Atom count(//entry): the binding and expression'  'has(text, "pass \"namespaces\": {\"a\":\"'$ATOM'\"} and write `count(//a:entry)`")'
call 2 xml_query '{"xml":'"$FEED"',"xpath":"count(//a:entry)","namespaces":{"a":"'$ATOM'"}}'
expect $S 2 'the advised query answers 3'                      '!isErr && text === "3"'

# 3. A node-set with several misplaced names: every step is rewritten.
call 3 xml_query '{"xml":'"$FEED"',"xpath":"//entry/title"}'
expect $S 3 'Atom //entry/title: no nodes, and both steps'     'eq(sc, {type: "node-set", count: 0, values: [], notes: [text.split("\n")[1]]}) && has(text, "No nodes matched", "write `//a:entry/a:title`")'

# 4. A bound URI off by a trailing slash is pointed out.
call 4 xml_query '{"xml":'"$FEED"',"xpath":"count(//a:entry)","namespaces":{"a":"'$ATOM'/"}}'
expect $S 4 'trailing slash: pointed out, with the right URI'  'text.startsWith("0\n") && has(text, "is bound to '$ATOM'/, but the document'"'"'s namespace is '$ATOM'", "{\"a\":\"'$ATOM'\"}")'

# 5. A POM: the default namespace of a build file.
call 5 xml_query '{"xml":'"$POM"',"xpath":"//dependency/artifactId"}'
expect $S 5 'POM //dependency/artifactId: what to write'       'has(text, "{\"p\":\"http://maven.apache.org/POM/4.0.0\"} and write `//p:dependency/p:artifactId`")'

# 6, 7. A prefix used only on attributes gets its binding at once, no trip to xml_inspect.
call 6 xml_query '{"xml":'"$POM"',"xpath":"string(//@xsi:schemaLocation)"}'
expect $S 6 'unbound xsi: the binding the document declares'   'isErr && has(text, "{\"xsi\":\"http://www.w3.org/2001/XMLSchema-instance\"}") && !has(text, "xml_inspect")'
call 7 xml_query '{"xml":'"$SVG"',"xpath":"//@xlink:href"}'
expect $S 7 'unbound xlink: the binding the document declares' 'isErr && has(text, "{\"xlink\":\"http://www.w3.org/1999/xlink\"}")'

# 8, 9. An unprefixed attribute name where the attributes are in a namespace; then the advice.
call 8 xml_query '{"xml":'"$SVG"',"xpath":"//s:use/@href","namespaces":{"s":"http://www.w3.org/2000/svg"}}'
expect $S 8 'SVG @href: in xlink, with both bindings'          'has(text, "{\"s\":\"http://www.w3.org/2000/svg\",\"xlink\":\"http://www.w3.org/1999/xlink\"} and write `//s:use/@xlink:href`")'
call 9 xml_query '{"xml":'"$SVG"',"xpath":"//s:use/@xlink:href","namespaces":{"s":"http://www.w3.org/2000/svg","xlink":"http://www.w3.org/1999/xlink"}}'
expect $S 9 'the advised query answers both values'            '!isErr && text === "2 nodes matched `//s:use/@xlink:href`:\n#a\n#b"'

# 10. A name that is nowhere: no hint, just the answer.
call 10 xml_query '{"xml":'"$FEED"',"xpath":"count(//nothing)"}'
expect $S 10 'a name that is nowhere: a bare 0'                '!isErr && text === "0"'

# 11. A value the field does not hold: what it holds instead (German is `deu` in xkb's rules).
RULES='"<rules><layout><name>de</name><iso639Id>deu</iso639Id></layout><layout><name>us</name><iso639Id>eng</iso639Id></layout><layout><name>gb</name><iso639Id>eng</iso639Id></layout></rules>"'
call 11 xml_query '{"xml":'"$RULES"',"xpath":"count(//layout[iso639Id=\"ger\"])"}'
expect $S 11 'a value the field lacks: the values it holds'     '!isErr && text === "0\nNo `iso639Id` is \"ger\". What `iso639Id` holds (2 distinct of 3), most frequent first: eng×2 deu×1."'

run_session $S
if ((FAILED)); then
  echo "$NAME: $PASSED passed, $FAILED failed"
  exit 1
fi
echo "$NAME: $PASSED passed"
