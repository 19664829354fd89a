#!/usr/bin/env node
/**
 * The command's entry (`dist/cli.js`): it checks the Node.js version before the server's modules
 * load, because on an older Node.js they could fail to link or parse and the user would read a
 * stack trace instead of what to install. It imports nothing but the check; the server
 * (src/cli.ts, bundled as `dist/server.js`) is loaded only after it.
 */
import { unsupportedNode } from './node-version.js';

const problem = unsupportedNode(process.versions.node);
if (problem === undefined) {
  // Not a top-level await: the server's own fatal path (src/cli.ts) reports its failures.
  // `dist/server.js`, the bundle of src/cli.ts (scripts/build.ts), beside this one; a URL, so
  // that esbuild leaves it to Node instead of bundling the server into the command.
  void import(new URL('./server.js', import.meta.url).href);
} else {
  process.stderr.write(`${problem}\n`);
  process.exitCode = 1;
}
