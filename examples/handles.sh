#!/usr/bin/env bash
# handles.sh: send a document once, query it by its handle. One stdio session with the
# built binary: xml_inspect with the text of a 37 KB catalogue, then three xml_query calls
# that name it by the handle the first answer gave, each ~160 bytes instead of 37 KB.
# A handle is held by the process that made it: a second stdio process gets the one answer for
# every handle it does not hold (over HTTP any connection to the same process may present it,
# ADR 0039; examples/http.sh).
#
# Usage: bash examples/handles.sh        (VERBOSE=1 to print every assertion)
# Needs: node, and a built dist/cli.js (npm run build).
set -euo pipefail
# shellcheck source=lib/harness.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/harness.sh"

S=handles
: > "$TMP/$S.in"
: > "$TMP/$S.out"
coproc LIVE { "${SERVER[@]}" 2> "$TMP/$S.err"; }
# send LINE: one request to the server (kept in $S.in, so the harness checks every one is answered).
send() {
  printf '%s\n' "$1" >> "$TMP/$S.in"
  printf '%s\n' "$1" >&"${LIVE[1]}"
}
# answer: the next reply line (kept in $S.out), in $LINE. The requests go one at a time.
answer() {
  IFS= read -r -t 60 LINE <&"${LIVE[0]}"
  printf '%s\n' "$LINE" >> "$TMP/$S.out"
}
json() { node -e "$1" -- "${@:2}"; }
call() { # call ID TOOL ARGUMENTS-JSON
  printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":%s}}' "$1" "$2" "$3"
}

send '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"handles.sh","version":"1"}}}'
answer
send '{"jsonrpc":"2.0","method":"notifications/initialized"}'

# A catalogue of 400 books, ~37 KB: sent once, as text.
ARGS=$(json 'const books = Array.from({ length: 400 }, (_, i) =>
  `<book id="b${i}"><title>Title ${i}</title><author>Author ${i % 37}</author><price>${(i % 50) + 0.5}</price></book>`);
  process.stdout.write(JSON.stringify({ xml: `<catalog>${books.join("")}</catalog>` }));')
FIRST=$(call 2 xml_inspect "$ARGS")
send "$FIRST"
answer
HANDLE=$(json 'process.stdout.write(JSON.parse(process.argv[1]).result.structuredContent.document)' "$LINE")
expect $S 2 'xml_inspect with the text: the shape' '!isErr && sc.root === "catalog" && sc.elements.book === 400 && has(held.note, "Next time pass \"document\": \"" + held.document)'
expect $S 2 'xml_inspect gives the handle, 128 random bits' '/^d_[A-Za-z0-9_-]{22}$/.test(held.document)'
expect $S 2 'its last line says what to do with it' "held.line === \"document: $HANDLE (next time pass this as \`document\` instead of the text)\""

# Three questions, each naming the document by its handle.
SECOND=$(call 3 xml_query '{"document":"'"$HANDLE"'","xpath":"count(//book[price > 40])"}')
send "$SECOND"
answer
send "$(call 4 xml_query '{"document":"'"$HANDLE"'","xpath":"//book[@id=\"b7\"]/title"}')"
answer
send "$(call 5 xml_query '{"document":"'"$HANDLE"'","xpath":"count(//author[. = \"Author 3\"])"}')"
answer
expect $S 3 'by handle: count(//book[price > 40]) = 80' '!isErr && text === "80"'
expect $S 3 'by handle: the answer names the handle, nothing more' "held.line === \"document: $HANDLE\" && held.document === \"$HANDLE\""
expect $S 4 'by handle: the title of book b7' '!isErr && text === "Title 7"'
expect $S 5 'by handle: books by Author 3 = 11' '!isErr && text === "11"'

exec {LIVE[1]}>&-
rc=0
wait "$LIVE_PID" || rc=$?
node "$TMP/verify.js" "$TMP/$S" "$rc"
read -r p f < "$TMP/$S.counts"
PASSED=$((PASSED + p))
FAILED=$((FAILED + f))
echo "  sent the document once in ${#FIRST} bytes; a query by handle took ${#SECOND}"

# Another process: it does not hold the handle, so it gets the answer every unknown handle gets.
cat > "$TMP/other.in" <<EOF
{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"handles.sh","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
$(call 2 xml_query '{"document":"'"$HANDLE"'","xpath":"count(//book)"}')
$(call 3 xml_query '{"document":"d_AAAAAAAAAAAAAAAAAAAAAA","xpath":"count(//book)"}')
EOF
NOT_HELD='isErr && text === "That document is no longer held; send its text as `xml` again."'
expect other 2 "another process's handle is not held here" "$NOT_HELD"
expect other 3 'a made-up handle gets the same answer' "$NOT_HELD"
run_session other

if ((FAILED)); then
  echo "$NAME: $PASSED passed, $FAILED failed"
  exit 1
fi
echo "$NAME: $PASSED passed"
