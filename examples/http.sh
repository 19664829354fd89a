#!/usr/bin/env bash
# http.sh: start the built binary on both HTTP transports (each on a free loopback port) and
# assert the raw exchanges with curl:
#
#   1. Streamable HTTP, 2025-11-25: initialize (Mcp-Session-Id, SSE framing),
#      notifications/initialized (202), tools/call in the session, GET /mcp (headers at once),
#      DELETE /mcp (200, then the id is unknown: 404).
#   2. Streamable HTTP, 2026-07-28: server/discover and tools/call with no session; the
#      headers the SDK checks against the body (MCP-Protocol-Version, Mcp-Method, Mcp-Name).
#   3. Errors: 400 malformed JSON, 415 wrong content type, 413 oversized body (refused before it
#      is sent when its length is declared; the server keeps serving), 403 foreign Host/Origin,
#      404 unknown session/path.
#   4. Legacy HTTP+SSE (2024-11-05): GET /sse announces the endpoint, POST initialize and
#      tools/call (202) whose replies arrive on the stream; 404 for an unknown sessionId.
#   Both servers exit 0 on SIGTERM, with a stream still open.
#
# Usage: bash examples/http.sh        (VERBOSE=1 to print every assertion)
# Needs: node, curl, and a built dist/cli.js (npm run build).
set -euo pipefail
# shellcheck source=lib/harness.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/harness.sh"
# shellcheck source=lib/wait.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/wait.sh"
command -v curl >/dev/null || { echo "$NAME: curl is not on PATH" >&2; exit 1; }

# Everything this script starts in the background, killed by pid on exit.
PIDS=()
cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$TMP"
}
trap cleanup EXIT

# ---------------------------------------------------------------------------
# Harness
#
#   start_server KIND      start `oxml-mcp --transport KIND --port 0`; sets SERVER_PID, URL
#                          (the URL it prints on stderr) and BASE (URL without its path).
#   req NAME CURL-ARGS...  one curl exchange; keeps NAME.head (response headers), NAME.body,
#                          NAME.meta (status, body bytes uploaded), NAME.rc.
#   check NAME DESC EXPR   queue an assertion on exchange NAME. EXPR is JavaScript and sees:
#                          status (number), statusLine ("HTTP/1.1 200 OK"), headers (the
#                          last response's, names lower-cased), body (text), json (body
#                          parsed, or undefined), msgs (the JSON-RPC messages: SSE `data:`
#                          lines parsed, or [json]), events (SSE [{event, data}]), reply(id)
#                          (the message with that id), rc (curl's exit code), uploaded (body
#                          bytes curl sent), eq(a, b), has(s, ...parts).
#   note DESC OK           record a check made in bash (OK is "1" or "0").
# All checks run in one node process at the end. Nothing here is timed: every wait is for a
# condition, under a deadline generous enough for a busy machine (lib/wait.sh).
# ---------------------------------------------------------------------------
SERVER_PID=""
URL=""
BASE=""
# Up to a minute for the server to start: node and libxml2 load slowly on a busy machine.
START_SECONDS=60
start_server() {
  local kind=$1
  # The file exists before the child does: read early, it is empty, never missing.
  : > "$TMP/$kind.err"
  "${SERVER[@]}" --transport "$kind" --port 0 2> "$TMP/$kind.err" &
  SERVER_PID=$!
  PIDS+=("$SERVER_PID")
  URL=""
  wait_until "$START_SECONDS" said_where "$kind" || true
  if [[ -z $URL ]]; then
    if is_dead "$SERVER_PID"; then
      echo "$NAME: the $kind server exited before saying where it listens; its stderr:" >&2
    else
      echo "$NAME: the $kind server did not say where it listens within $START_SECONDS s; its stderr:" >&2
    fi
    sed 's/^/  /' "$TMP/$kind.err" >&2
    exit 1
  fi
  BASE=${URL%/*}
}

# said_where KIND: the server has printed its URL (sets URL), or has died.
said_where() {
  URL=$(sed -n 's/^oxml-mcp: .* listening on \(http:[^ ]*\).*$/\1/p' "$TMP/$1.err")
  [[ -n $URL ]] || is_dead "$SERVER_PID"
}

# headers_done FILE: FILE (curl -D) holds a status line and the blank line that ends the headers.
headers_done() { grep -q '^HTTP/' "$1" 2> /dev/null && grep -q $'^\r\{0,1\}$' "$1"; }

req() {
  local name=$1 rc=0
  shift
  # --max-time only so that a hung server fails the script instead of stalling it; a later
  # --max-time among CURL-ARGS wins.
  curl -sS -o "$TMP/$name.body" -D "$TMP/$name.head" --max-time 120 \
    -w '%{http_code} %{size_upload}\n' "$@" > "$TMP/$name.meta" 2> "$TMP/$name.curlerr" || rc=$?
  echo "$rc" > "$TMP/$name.rc"
}

check() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> "$TMP/http.checks"; }
note() { check - "$1" "$2 === 1"; }

# stop_server DESC: SIGTERM the server; it must exit 0 (a deadline of 30 s catches a hang).
stop_server() {
  local rc=0
  kill -TERM "$SERVER_PID"
  if ! wait_until 30 is_dead "$SERVER_PID"; then
    kill -KILL "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    note "$1: exits on SIGTERM (it hung for 30 s; killed)" 0
    return
  fi
  wait "$SERVER_PID" || rc=$?
  note "$1: exits 0 on SIGTERM (exit $rc)" "$([[ $rc -eq 0 ]] && echo 1 || echo 0)"
}

cat > "$TMP/http-verify.js" <<'JS'
const fs = require("fs");
const dir = process.argv[2];
const verbose = process.env.VERBOSE === "1";
let pass = 0, fail = 0;
const clip = (s) => (s.length > 400 ? s.slice(0, 400) + "..." : s);
const canon = (v) => JSON.stringify(v, (k, x) =>
  x && typeof x === "object" && !Array.isArray(x)
    ? Object.fromEntries(Object.keys(x).sort().map((key) => [key, x[key]])) : x);
const eq = (a, b) => canon(a) === canon(b);
const has = (s, ...parts) => typeof s === "string" && parts.every((p) => s.includes(p));
const read = (f) => (fs.existsSync(f) ? fs.readFileSync(f, "utf8") : "");

function load(name) {
  const [code, uploaded] = read(`${dir}/${name}.meta`).trim().split(" ");
  // -D keeps every response block (a "100 Continue" comes first); the last is the answer.
  const blocks = read(`${dir}/${name}.head`).split(/\r?\n\r?\n/).filter((b) => b.startsWith("HTTP/"));
  const lines = (blocks[blocks.length - 1] || "").split(/\r?\n/);
  const headers = {};
  for (const l of lines.slice(1)) {
    const i = l.indexOf(":");
    if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  const body = read(`${dir}/${name}.body`);
  let json;
  try { json = JSON.parse(body); } catch {}
  const events = [];
  for (const chunk of body.split(/\r?\n\r?\n/)) {
    const ev = { event: "message", data: [] };
    for (const l of chunk.split(/\r?\n/)) {
      if (l.startsWith("event:")) ev.event = l.slice(6).trim();
      else if (l.startsWith("data:")) ev.data.push(l.slice(5).replace(/^ /, ""));
    }
    if (ev.data.length) events.push({ event: ev.event, data: ev.data.join("\n") });
  }
  const msgs = [];
  if (/^text\/event-stream/.test(headers["content-type"] || "") || (!headers["content-type"] && events.length)) {
    for (const e of events) { try { msgs.push(JSON.parse(e.data)); } catch {} }
  } else if (json !== undefined) msgs.push(json);
  return {
    status: Number(code), uploaded: Number(uploaded),
    statusLine: lines[0] || "", headers, body, json, events, msgs,
    reply: (id) => msgs.find((m) => m && m.id === id),
    rc: Number(read(`${dir}/${name}.rc`).trim() || 0),
    curlerr: read(`${dir}/${name}.curlerr`).trim(),
  };
}

const cache = new Map();
for (const line of read(`${dir}/http.checks`).split("\n").filter((l) => l !== "")) {
  const [name, desc, expr] = line.split("\t");
  let x = { status: 0, statusLine: "", headers: {}, body: "", msgs: [], events: [], reply: () => undefined, rc: 0 };
  if (name !== "-") {
    if (!cache.has(name)) cache.set(name, load(name));
    x = cache.get(name);
  }
  let ok = false, why = "";
  try {
    ok = new Function("status", "statusLine", "headers", "body", "json", "msgs", "events", "reply", "rc",
      "uploaded", "eq", "has", `return (${expr});`)(x.status, x.statusLine, x.headers, x.body, x.json, x.msgs,
      x.events, x.reply, x.rc, x.uploaded, eq, has) === true;
  } catch (e) { why = `threw ${e}; `; }
  if (ok) { pass++; if (verbose) console.log(`  ok   ${desc}`); continue; }
  fail++;
  console.log(`  FAIL ${desc}`);
  if (name !== "-") {
    console.log(`       ${why}expected: ${expr}`);
    console.log(`       got: ${x.statusLine || "(no response)"}${x.rc ? ` (curl exit ${x.rc}: ${x.curlerr})` : ""}`);
    if (x.body) console.log(`       body: ${clip(JSON.stringify(x.body))}`);
  }
}
fs.writeFileSync(`${dir}/http.counts`, `${pass} ${fail}\n`);
JS

JSON_CT=(-H 'Content-Type: application/json')
ACCEPT=(-H 'Accept: application/json, text/event-stream')
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"http.sh","version":"1"}}}'
QUERY='"name":"xml_query","arguments":{"xml":"<library><book><title>Dune</title></book><book><title>Emma</title></book></library>","xpath":"count(//book)"}'
# The answer to $QUERY: "2", as text and as structured content (with the document's handle as
# well, which every answer to a text gives: ADR 0039).
ANSWERS_2='!res.isError && res.content[0].text === "2" && ((sc) => eq(sc, {type: "number", count: 1, values: ["2"], ...(sc.document === undefined ? {} : {notes: [`Next time pass "document": "${sc.document}" instead of the text.`], document: sc.document})}))(res.structuredContent)'
# The same answer as $ANSWERS_2, with the document's handle.
HELD_2='/^d_[A-Za-z0-9_-]{22}$/.test(res.structuredContent.document) && res.content[res.content.length - 1].text.startsWith("document: " + res.structuredContent.document)'

# ===========================================================================
# Streamable HTTP
# ===========================================================================
start_server streamable-http
check - 'streamable-http: says its /mcp URL on stderr' "$([[ $URL =~ ^http://127\.0\.0\.1:[0-9]+/mcp$ ]] && echo 1 || echo 0) === 1"

# ---- 1. The 2025-11-25 era: a session -------------------------------------
req init -X POST "$URL" "${JSON_CT[@]}" "${ACCEPT[@]}" -d "$INIT"
check init 'initialize: 200'                          'status === 200'
check init 'initialize: an Mcp-Session-Id header'     '/^[\x21-\x7e]+$/.test(headers["mcp-session-id"] || "")'
check init 'initialize: text/event-stream'            '/^text\/event-stream/.test(headers["content-type"])'
check init 'initialize: SSE framing (event: message, data: {...})' '/^event: message\r?\ndata: \{.*\}\r?\n\r?\n$/.test(body) && events.length === 1'
check init 'initialize: result names 2025-11-25 and oxml-mcp' '((m) => m.jsonrpc === "2.0" && m.result.protocolVersion === "2025-11-25" && m.result.serverInfo.name === "oxml-mcp" && typeof m.result.capabilities.tools === "object")(reply(1))'
SID=$(sed -n 's/^[Mm][Cc][Pp]-[Ss]ession-[Ii][Dd]: *\([^[:space:]]*\).*$/\1/p' "$TMP/init.head" | head -n 1)
SID=${SID:-none}
SESSION=(-H "Mcp-Session-Id: $SID" -H 'MCP-Protocol-Version: 2025-11-25')

req initialized -X POST "$URL" "${JSON_CT[@]}" "${ACCEPT[@]}" "${SESSION[@]}" \
  -d '{"jsonrpc":"2.0","method":"notifications/initialized"}'
check initialized 'notifications/initialized: 202' 'status === 202'

req call -X POST "$URL" "${JSON_CT[@]}" "${ACCEPT[@]}" "${SESSION[@]}" \
  -d '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{'"$QUERY"'}}'
check call 'tools/call in the session: 200, text/event-stream' 'status === 200 && /^text\/event-stream/.test(headers["content-type"])'
check call 'tools/call in the session: count(//book) = 2 in an SSE data line' "((res) => $ANSWERS_2)(reply(2).result)"
check call 'tools/call in the session: the answer gives the document handle' "((res) => $HELD_2)(reply(2).result)"

# GET /mcp opens the server->client stream: its headers must come at once, not with the first
# keep-alive comment 15 s later (the SDK's interval). So: the headers are complete within 10 s
# and the body is still empty then. DELETE /mcp then ends the session, which ends the stream;
# --max-time is far beyond the test, so only the DELETE can end it.
curl -sS -N -o "$TMP/get.body" -D "$TMP/get.head" -w '%{http_code} %{size_upload}\n' \
  --max-time 300 "$URL" -H 'Accept: text/event-stream' "${SESSION[@]}" > "$TMP/get.meta" 2> "$TMP/get.curlerr" &
GET_PID=$!
PIDS+=("$GET_PID")
got=0
wait_until 10 headers_done "$TMP/get.head" && [[ ! -s $TMP/get.body ]] && got=1
note 'GET /mcp: the response headers arrive before any event (the first keep-alive)' "$got"
cp "$TMP/get.head" "$TMP/getnow.head" 2>/dev/null || true
echo '0 0' > "$TMP/getnow.meta"
check getnow 'GET /mcp: HTTP/1.1 200'                 '/^HTTP\/1\.1 200/.test(statusLine)'
check getnow 'GET /mcp: text/event-stream'            '/^text\/event-stream/.test(headers["content-type"])'

req delete -X DELETE "$URL" "${SESSION[@]}"
check delete 'DELETE /mcp: 200' 'status === 200'
rc=0
ended=0
wait_until 30 is_dead "$GET_PID" && ended=1
wait "$GET_PID" 2>/dev/null || rc=$?
echo "$rc" > "$TMP/get.rc"
note 'GET /mcp: the stream ends when DELETE ends the session' "$ended"
check get 'GET /mcp: 200, and curl saw the stream end cleanly' 'status === 200 && rc === 0'

req after-delete -X POST "$URL" "${JSON_CT[@]}" "${ACCEPT[@]}" "${SESSION[@]}" \
  -d '{"jsonrpc":"2.0","id":3,"method":"tools/list"}'
check after-delete 'deleted session: POST gets 404'   'status === 404 && json.jsonrpc === "2.0" && typeof json.error.message === "string"'
req after-delete-get -X GET "$URL" -H 'Accept: text/event-stream' "${SESSION[@]}" --max-time 30
check after-delete-get 'deleted session: GET gets 404' 'status === 404'

# ---- 2. The 2026-07-28 era: stateless ------------------------------------
META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"http.sh","version":"1"}}'
V2026=(-H 'MCP-Protocol-Version: 2026-07-28')
req discover -X POST "$URL" "${JSON_CT[@]}" "${ACCEPT[@]}" "${V2026[@]}" -H 'Mcp-Method: server/discover' \
  -d '{"jsonrpc":"2.0","id":10,"method":"server/discover","params":{'"$META"'}}'
check discover 'server/discover: 200, no Mcp-Session-Id' 'status === 200 && !("mcp-session-id" in headers)'
check discover 'server/discover: lists 2026-07-28, offers tools' '((res) => res.supportedVersions.includes("2026-07-28") && typeof res.capabilities.tools === "object")(reply(10).result)'

req stateless -X POST "$URL" "${JSON_CT[@]}" "${ACCEPT[@]}" "${V2026[@]}" -H 'Mcp-Method: tools/call' -H 'Mcp-Name: xml_query' \
  -d '{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{'"$META"','"$QUERY"'}}'
check stateless 'tools/call 2026-07-28, no session: 200, no Mcp-Session-Id' 'status === 200 && !("mcp-session-id" in headers)'
check stateless 'tools/call 2026-07-28: count(//book) = 2' "((res) => $ANSWERS_2)(reply(11).result)"
check stateless 'tools/call 2026-07-28: no session, and still a handle' "((res) => $HELD_2)(reply(11).result)"
# The handle on a request of its own (a new connection): the text is not sent again.
HANDLE=$(grep -o 'd_[A-Za-z0-9_-]\{22\}' "$TMP/stateless.body" | head -n 1 || true)
req by-handle -X POST "$URL" "${JSON_CT[@]}" "${ACCEPT[@]}" "${V2026[@]}" -H 'Mcp-Method: tools/call' -H 'Mcp-Name: xml_query' \
  -d '{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{'"$META"',"name":"xml_query","arguments":{"document":"'"$HANDLE"'","xpath":"count(//book)"}}}'
check by-handle 'tools/call 2026-07-28 by that handle on another request: 2' "((res) => !res.isError && res.content[0].text === \"2\" && res.structuredContent.document === \"$HANDLE\")(reply(15).result)"

# The headers must agree with the body; the SDK names what is missing.
req no-name -X POST "$URL" "${JSON_CT[@]}" "${ACCEPT[@]}" "${V2026[@]}" -H 'Mcp-Method: tools/call' \
  -d '{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{'"$META"','"$QUERY"'}}'
check no-name 'tools/call 2026-07-28 without Mcp-Name: 400 naming it' 'status === 400 && has(json.error.message, "Mcp-Name")'
req no-method -X POST "$URL" "${JSON_CT[@]}" "${ACCEPT[@]}" "${V2026[@]}" \
  -d '{"jsonrpc":"2.0","id":13,"method":"server/discover","params":{'"$META"'}}'
check no-method 'server/discover without Mcp-Method: 400 naming it' 'status === 400 && has(json.error.message, "Mcp-Method")'
req no-version -X POST "$URL" "${JSON_CT[@]}" "${ACCEPT[@]}" -H 'Mcp-Method: server/discover' \
  -d '{"jsonrpc":"2.0","id":14,"method":"server/discover","params":{'"$META"'}}'
check no-version '2026-07-28 _meta without MCP-Protocol-Version: 400 naming it' 'status === 400 && has(json.error.message, "MCP-Protocol-Version")'

# ---- 3. Errors -------------------------------------------------------------
req malformed -X POST "$URL" "${JSON_CT[@]}" "${ACCEPT[@]}" -d '{"jsonrpc":"2.0","id":20,"method":'
check malformed 'malformed JSON: 400, JSON-RPC -32700' 'status === 400 && json.error.code === -32700'
req text-plain -X POST "$URL" -H 'Content-Type: text/plain' "${ACCEPT[@]}" -d "$INIT"
check text-plain 'Content-Type: text/plain: 415'       'status === 415 && json.jsonrpc === "2.0"'
req evil-host -X POST "$URL" "${JSON_CT[@]}" "${ACCEPT[@]}" -H 'Host: evil.example' -d "$INIT"
check evil-host 'Host: evil.example: 403, no session'  'status === 403 && !("mcp-session-id" in headers)'
req evil-origin -X POST "$URL" "${JSON_CT[@]}" "${ACCEPT[@]}" -H 'Origin: http://evil.example' -d "$INIT"
check evil-origin 'Origin: http://evil.example: 403, no session' 'status === 403 && !("mcp-session-id" in headers)'
req unknown-session -X POST "$URL" "${JSON_CT[@]}" "${ACCEPT[@]}" \
  -H 'Mcp-Session-Id: 00000000-0000-4000-8000-000000000000' -H 'MCP-Protocol-Version: 2025-11-25' \
  -d '{"jsonrpc":"2.0","id":21,"method":"tools/list"}'
check unknown-session 'unknown Mcp-Session-Id: 404'   'status === 404 && json.jsonrpc === "2.0"'
req other-path -X POST "$BASE/other" "${JSON_CT[@]}" "${ACCEPT[@]}" -d "$INIT"
check other-path 'POST /other: 404, no session'       'status === 404 && !("mcp-session-id" in headers)'

# A body over the limit (MAX_HTTP_BODY_BYTES, 97 MiB): a valid JSON-RPC ping padded to 100 MiB.
# Sent as curl sends it by default (Content-Length, Expect: 100-continue), then chunked (no
# Content-Length, so the server has to count). Each must be answered 413, and the server must
# serve on. With Content-Length the 413 answers the `Expect: 100-continue`, so curl (told to wait
# for that answer as long as it takes) sends none of the body.
{
  printf '{"jsonrpc":"2.0","id":22,"method":"ping","params":{"pad":"'
  head -c $((100 * 1024 * 1024)) /dev/zero | tr '\0' 'a'
  printf '"}}'
} > "$TMP/big.json"
req big -X POST "$URL" "${JSON_CT[@]}" "${ACCEPT[@]}" --expect100-timeout 60 --data-binary "@$TMP/big.json"
check big '100 MiB body (Content-Length): 413 before any of the body is sent' 'status === 413 && uploaded === 0'
req big-chunked -X POST "$URL" "${JSON_CT[@]}" "${ACCEPT[@]}" -H 'Transfer-Encoding: chunked' \
  --data-binary "@$TMP/big.json"
check big-chunked '100 MiB body (chunked): 413' 'status === 413'
rm -f "$TMP/big.json"
note 'the server is still running after the 100 MiB bodies' "$(kill -0 "$SERVER_PID" 2>/dev/null && echo 1 || echo 0)"
req after-big -X POST "$URL" "${JSON_CT[@]}" "${ACCEPT[@]}" "${V2026[@]}" -H 'Mcp-Method: tools/call' -H 'Mcp-Name: xml_query' \
  -d '{"jsonrpc":"2.0","id":23,"method":"tools/call","params":{'"$META"','"$QUERY"'}}'
check after-big 'after the 100 MiB bodies: a tools/call still answers 2' "status === 200 && ((res) => $ANSWERS_2)(reply(23).result)"

# SIGTERM with a session open (and its GET stream listening) still exits 0.
req open -X POST "$URL" "${JSON_CT[@]}" "${ACCEPT[@]}" -d "$INIT"
SID2=$(sed -n 's/^[Mm][Cc][Pp]-[Ss]ession-[Ii][Dd]: *\([^[:space:]]*\).*$/\1/p' "$TMP/open.head" | head -n 1)
curl -sS -N -o /dev/null -D "$TMP/open-get.head" --max-time 300 "$URL" -H 'Accept: text/event-stream' \
  -H "Mcp-Session-Id: ${SID2:-none}" -H 'MCP-Protocol-Version: 2025-11-25' 2>/dev/null &
PIDS+=("$!")
# The stream is open once its headers are back.
open_stream=0
wait_until 30 headers_done "$TMP/open-get.head" && open_stream=1
note 'streamable-http: the GET stream of the second session is open before SIGTERM' "$open_stream"
stop_server 'streamable-http, a session and its stream open'

# ===========================================================================
# 4. Legacy HTTP+SSE (2024-11-05)
# ===========================================================================
start_server sse
check - 'sse: says its /sse URL on stderr' "$([[ $URL =~ ^http://127\.0\.0\.1:[0-9]+/sse$ ]] && echo 1 || echo 0) === 1"

curl -sS -N -D "$TMP/stream.head" -o "$TMP/stream.body" -w '%{http_code} %{size_upload}\n' \
  --max-time 300 "$URL" > "$TMP/stream.meta" 2> "$TMP/stream.curlerr" &
STREAM_PID=$!
PIDS+=("$STREAM_PID")
# wait_stream PATTERN: wait (up to 30 s) until the stream file holds a line matching PATTERN.
stream_has() { grep -q -- "$1" "$TMP/stream.body" 2>/dev/null; }
wait_stream() { wait_until 30 stream_has "$1"; }
wait_stream '^data: ' || true
ENDPOINT=$(sed -n 's/^data: *\(\/[^[:space:]]*\).*$/\1/p' "$TMP/stream.body" | head -n 1)
note 'GET /sse: an endpoint event arrives at once' "$([[ -n $ENDPOINT ]] && echo 1 || echo 0)"
ENDPOINT=${ENDPOINT:-/messages/?sessionId=none}
cp "$TMP/stream.body" "$TMP/endpoint.body"
cp "$TMP/stream.head" "$TMP/endpoint.head" 2>/dev/null || true
echo '0 0' > "$TMP/endpoint.meta"
check endpoint 'GET /sse: HTTP/1.1 200, text/event-stream' '/^HTTP\/1\.1 200/.test(statusLine) && /^text\/event-stream/.test(headers["content-type"])'
check endpoint 'GET /sse: event: endpoint, data: /messages/?sessionId=...' 'events.length >= 1 && events[0].event === "endpoint" && /^\/messages\/\?sessionId=[^&\s]+$/.test(events[0].data)'

req sse-init -X POST "$BASE$ENDPOINT" "${JSON_CT[@]}" \
  -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"http.sh","version":"1"}}}'
check sse-init 'sse: POST initialize: 202' 'status === 202'
wait_stream '"id":1[,}]' || true
req sse-initialized -X POST "$BASE$ENDPOINT" "${JSON_CT[@]}" -d '{"jsonrpc":"2.0","method":"notifications/initialized"}'
check sse-initialized 'sse: POST notifications/initialized: 202' 'status === 202'
req sse-call -X POST "$BASE$ENDPOINT" "${JSON_CT[@]}" -d '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{'"$QUERY"'}}'
check sse-call 'sse: POST tools/call: 202' 'status === 202'
wait_stream '"id":2[,}]' || true

req sse-unknown -X POST "$BASE/messages/?sessionId=00000000-0000-4000-8000-000000000000" "${JSON_CT[@]}" \
  -d '{"jsonrpc":"2.0","id":3,"method":"ping"}'
check sse-unknown 'sse: unknown sessionId: 404'        'status === 404 && json.jsonrpc === "2.0"'
req sse-malformed -X POST "$BASE$ENDPOINT" "${JSON_CT[@]}" -d '{"jsonrpc":"2.0","id":4,'
check sse-malformed 'sse: malformed JSON: 400, -32700' 'status === 400 && json.error.code === -32700'
req sse-text-plain -X POST "$BASE$ENDPOINT" -H 'Content-Type: text/plain' -d '{"jsonrpc":"2.0","id":5,"method":"ping"}'
check sse-text-plain 'sse: Content-Type: text/plain: 415' 'status === 415'
req sse-evil-host -X GET "$URL" -H 'Host: evil.example' --max-time 30
check sse-evil-host 'sse: GET /sse with Host: evil.example: 403' 'status === 403'
req sse-evil-origin -X POST "$BASE$ENDPOINT" "${JSON_CT[@]}" -H 'Origin: http://evil.example' -d '{"jsonrpc":"2.0","id":6,"method":"ping"}'
check sse-evil-origin 'sse: POST with Origin: http://evil.example: 403' 'status === 403'
req sse-ping -X POST "$BASE$ENDPOINT" "${JSON_CT[@]}" -d '{"jsonrpc":"2.0","id":7,"method":"ping"}'
check sse-ping 'sse: the session still works after the errors (ping: 202)' 'status === 202'
wait_stream '"id":7[,}]' || true

# The replies that arrived on the stream.
cp "$TMP/stream.body" "$TMP/replies.body"
cp "$TMP/stream.head" "$TMP/replies.head" 2>/dev/null || true
echo '0 0' > "$TMP/replies.meta"
check replies 'sse stream: initialize reply names 2024-11-05 and oxml-mcp' '((m) => m.result.protocolVersion === "2024-11-05" && m.result.serverInfo.name === "oxml-mcp")(reply(1))'
check replies 'sse stream: tools/call count(//book) = 2' "((res) => $ANSWERS_2)(reply(2).result)"
check replies 'sse stream: the answer gives the document handle' "((res) => $HELD_2)(reply(2).result)"
check replies 'sse stream: ping answered {}' 'eq(reply(7).result, {})'
check replies 'sse stream: every reply is an "event: message"' 'events.slice(1).length === 3 && events.slice(1).every((e) => e.event === "message")'
check replies 'sse stream: nothing for the rejected posts (ids 3-6)' '[3, 4, 5, 6].every((id) => reply(id) === undefined)'

stop_server 'sse, a stream open'
stream_ended=0
wait_until 30 is_dead "$STREAM_PID" && stream_ended=1
note 'sse: the open GET /sse stream ends when the server stops' "$stream_ended"

# ===========================================================================
node "$TMP/http-verify.js" "$TMP"
read -r PASSED FAILED < "$TMP/http.counts"
if ((FAILED)); then
  for kind in streamable-http sse; do
    if [[ -s $TMP/$kind.err ]]; then
      echo "  $kind server stderr (last lines):"
      tail -n 5 "$TMP/$kind.err" | sed 's/^/       /'
    fi
  done
  echo "$NAME: $PASSED passed, $FAILED failed"
  exit 1
fi
echo "$NAME: $PASSED passed"
