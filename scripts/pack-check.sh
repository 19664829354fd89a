#!/usr/bin/env bash
# pack-check.sh: the package as `npm publish` would upload it, installed the way a user installs it.
#
#   1. `npm pack` into a temporary folder (its `prepack` is a clean build of dist/). The tarball must
#      hold package.json, LICENSE, README.md, CHANGELOG.md, the bundle's dist/cli.js (the command),
#      dist/server.js and dist/worker.js with dist/THIRD-PARTY-LICENSES.txt (ADR 0030), and no
#      source map nor a `sourceMappingURL` pointing at one.
#   2. `npm install --global --prefix TMP/prefix` of the tarball, --prefer-offline (the cache that
#      `npm ci` filled; only what it lacks comes from the registry), which must list none of the
#      package's own scripts for approval (npm 11's allowScripts).
#   3. The installed `oxml-mcp` command: `--version` is package.json's version, and the examples run
#      through it (OXML_MCP_BIN): the README quick start, every tool in both eras, the error cases,
#      both HTTP transports.
#   4. With OXML_UNSUPPORTED_NODE set to a Node.js binary older than `engines` allows (.ci/run
#      sets it), the installed command run by that Node.js prints one sentence on stderr, nothing
#      on stdout, and exits non-zero (docs/adr/0046-supported-node-versions.md).
#
# Usage: bash scripts/pack-check.sh        (npm run pack:check; the last step of npm run check)
set -euo pipefail
NAME=$(basename "$0")
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$ROOT"

fail() {
  echo "$NAME: $*" >&2
  exit 1
}
# bounded CMD...: CMD under a five-minute limit where `timeout` exists.
bounded() {
  if command -v timeout > /dev/null; then timeout 300 "$@"; else "$@"; fi
}

# 1. Pack. --json keeps stdout for the listing; the build's output goes to stderr.
bounded npm pack --json --pack-destination "$TMP" > "$TMP/pack.json" 2> "$TMP/pack.err" ||
  { cat "$TMP/pack.err" >&2; fail "npm pack failed"; }
TARBALL=$TMP/$(node -p 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))[0].filename' "$TMP/pack.json")
node - "$TMP/pack.json" << 'JS' || fail "the tarball's contents are wrong (above)"
const [{ files }] = JSON.parse(require('fs').readFileSync(process.argv[2], 'utf8'));
const paths = files.map((file) => file.path);
const missing = [
  'package.json',
  'LICENSE',
  'README.md',
  'CHANGELOG.md',
  'dist/cli.js',
  'dist/server.js',
  'dist/worker.js',
  'dist/THIRD-PARTY-LICENSES.txt',
].filter(
  (path) => !paths.includes(path),
);
const maps = paths.filter((path) => path.endsWith('.map'));
if (missing.length) console.error(`missing from the tarball: ${missing.join(', ')}`);
if (maps.length) console.error(`source maps in the tarball: ${maps.join(', ')}`);
process.exit(missing.length || maps.length ? 1 : 0);
JS
mkdir "$TMP/unpacked"
tar -xzf "$TARBALL" -C "$TMP/unpacked"
if grep -rl 'sourceMappingURL' "$TMP/unpacked/package/dist" > "$TMP/mapped"; then
  fail "files pointing at source maps: $(tr '\n' ' ' < "$TMP/mapped")"
fi

# 2. Install it globally into a prefix of its own.
bounded npm install --global --prefix "$TMP/prefix" --prefer-offline --no-audit --no-fund "$TARBALL" \
  > "$TMP/install.log" 2>&1 || { cat "$TMP/install.log" >&2; fail "npm install of $TARBALL failed"; }
BIN=$TMP/prefix/bin/oxml-mcp
[[ -x $BIN ]] || fail "the install made no $BIN"
# No script for the user to approve (npm 11: "install scripts not yet covered by allowScripts").
if grep -Eq 'oxml-mcp@[^ ]* \((preinstall|install|postinstall|prepare):' "$TMP/install.log"; then
  cat "$TMP/install.log" >&2
  fail "installing the tarball lists one of oxml-mcp's own scripts for approval"
fi

# 3. The installed command.
want=$(node -p 'require("./package.json").version')
got=$("$BIN" --version) || fail "oxml-mcp --version failed"
[[ $got == "$want" ]] || fail "oxml-mcp --version printed '$got', package.json says $want"
for example in readme.sh session.sh errors.sh http.sh; do
  OXML_MCP_BIN=$BIN bash "$ROOT/examples/$example" || fail "examples/$example failed through the installed command"
done

# 4. An unsupported Node.js is refused in one sentence. The command's `#!/usr/bin/env node` takes
# the first node on PATH, as a user's shell would.
refused=
if [[ -n ${OXML_UNSUPPORTED_NODE:-} ]]; then
  old=$("$OXML_UNSUPPORTED_NODE" --version) || fail "OXML_UNSUPPORTED_NODE ($OXML_UNSUPPORTED_NODE) does not run"
  rc=0
  PATH=$(dirname "$OXML_UNSUPPORTED_NODE"):$PATH "$BIN" --version > "$TMP/old.out" 2> "$TMP/old.err" < /dev/null || rc=$?
  ((rc != 0)) || fail "the installed oxml-mcp exited 0 on Node.js $old"
  [[ ! -s $TMP/old.out ]] || fail "the installed oxml-mcp wrote to stdout on Node.js $old: $(cat "$TMP/old.out")"
  [[ $(wc -l < "$TMP/old.err") == 1 ]] && grep -q '^oxml-mcp needs Node\.js .* or later, and this is Node\.js .*\.$' "$TMP/old.err" ||
    fail "on Node.js $old the installed oxml-mcp did not answer in one sentence; stderr: $(cat "$TMP/old.err")"
  refused="; on Node.js $old it refused: $(cat "$TMP/old.err")"
fi
echo "$NAME: $(basename "$TARBALL") ($(node -p 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))[0].entryCount' "$TMP/pack.json") files) installed; the installed oxml-mcp $got passed the examples$refused"
