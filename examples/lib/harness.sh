#!/usr/bin/env bash
# Shared harness for the example scripts: run the built binary on a file of lines, match replies
# by id, and assert with node. Sourced by examples/*.sh (it lives in lib/ so run-all.sh skips it).

NAME=$(basename "$0")
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CLI="$ROOT/dist/cli.js"
# The server run_session starts: the checkout's build, or OXML_MCP_BIN, an installed `oxml-mcp`
# command (scripts/pack-check.sh runs session.sh through the one it installed from the tarball).
if [[ -n ${OXML_MCP_BIN:-} ]]; then
  SERVER=("$OXML_MCP_BIN")
else
  SERVER=(node "$CLI")
  if [[ ! -f $CLI ]]; then
    echo "$NAME: $CLI is missing; run 'npm run build' first" >&2
    exit 1
  fi
fi
command -v node >/dev/null || { echo "$NAME: node is not on PATH" >&2; exit 1; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
PASSED=0
FAILED=0

# ---------------------------------------------------------------------------
# Harness
#
#   expect SESSION ID DESCRIPTION JS-EXPRESSION
#       queue an assertion on the reply whose id is ID (a JSON literal: 3, "a", null).
#       The expression sees: r (the whole reply), res (r.result), err (r.error),
#       text (the content texts joined by "\n"), sc (structuredContent),
#       isErr (res.isError === true), eq(a, b) (deep equality), has(s, ...parts),
#       held (the handles of the call's documents: {line, document, schema}). A stdio
#       connection is a session, so answers about a document end with a content block
#       `document: d_…` and carry it in structuredContent, with a last note saying what to
#       do with it; text and sc leave those out (examples/handles.sh asserts on them through
#       held: {line, document, schema, note}).
#   open_session SESSION
#       start $TMP/SESSION.in with initialize (2025-06-18) and notifications/initialized.
#   call_tool SESSION ID TOOL XML [EXTRA-ARGUMENTS-JSON]
#       append a tools/call whose `xml` is XML JSON-encoded by node, as a client would.
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
  const texts = res && Array.isArray(res.content)
    ? res.content.filter((c) => c.type === "text").map((c) => c.text) : undefined;
  const handleLine = texts && texts.length > 1 && /^document: d_/.test(texts[texts.length - 1])
    ? texts.pop() : undefined;
  const text = texts ? texts.join("\n") : undefined;
  let sc = res ? res.structuredContent : undefined;
  const held = { line: handleLine, document: sc && sc.document, schema: sc && sc.schema };
  if (sc && typeof sc === "object") {
    sc = { ...sc };
    delete sc.document;
    delete sc.schema;
    if (Array.isArray(sc.notes) && /^Next time pass "document"/.test(sc.notes[sc.notes.length - 1])) {
      sc.notes = sc.notes.slice(0, -1);
      held.note = res.structuredContent.notes.at(-1);
      if (sc.notes.length === 0) delete sc.notes;
    }
  }
  const isErr = !!res && res.isError === true;
  let ok = false, why = "";
  try {
    ok = new Function("r", "res", "err", "text", "sc", "isErr", "eq", "has", "held", `return (${expr});`)(
      r, res, err, text, sc, isErr, eq, has, held) === true;
  } catch (e) { why = `threw ${e}; `; }
  report(ok, desc, ok ? "" : `${why}expected: ${expr}\n       got: ${clip(JSON.stringify(r))}`);
}
fs.writeFileSync(base + ".counts", `${pass} ${fail}\n`);
JS

expect() { printf '%s\t%s\t%s\n' "$2" "$3" "$4" >> "$TMP/$1.checks"; }

open_session() {
  {
    echo '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"examples","version":"1"}}}'
    echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  } > "$TMP/$1.in"
}

call_tool() {
  node -e 'const [id, tool, xml, extra] = process.argv.slice(1);
    const args = { xml, ...JSON.parse(extra || "{}") };
    console.log(JSON.stringify({ jsonrpc: "2.0", id: Number(id), method: "tools/call", params: { name: tool, arguments: args } }));' \
    "$2" "$3" "$4" "${5:-}" >> "$TMP/$1.in"
}

run_session() {
  local s=$1 rc=0 p f
  if command -v timeout >/dev/null; then
    timeout 60 "${SERVER[@]}" < "$TMP/$s.in" > "$TMP/$s.out" 2> "$TMP/$s.err" || rc=$?
  else
    "${SERVER[@]}" < "$TMP/$s.in" > "$TMP/$s.out" 2> "$TMP/$s.err" || rc=$?
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
