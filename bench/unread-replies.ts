/**
 * Peak RSS of a stdio server whose replies are never read (issue 24, M4):
 *
 *   npx tsx bench/unread-replies.ts [dist/cli.js] [calls=24] [control|bad]
 *
 * Sends `calls` `xml_format` requests, each on a distinct 8 MiB document, and never reads stdout,
 * so every reply waits in the server. With `bad`, each request K is followed by the line
 * `{"jsonrpc":"2.0","id":K}`, which the server refuses with a reply carrying id K: that reply
 * must not release request K's place in the in-flight bound. The server's peak RSS (VmHWM) over
 * the next 60 s is the figure; `bad` should peak where `control` does.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { generateDocument, SIZES, withVariant } from './documents.js';

const [cli = 'dist/cli.js', callsText = '24', mode = 'control'] = process.argv.slice(2);
if (!/^\d+$/.test(callsText) || (mode !== 'control' && mode !== 'bad')) {
  process.stderr.write('usage: npx tsx bench/unread-replies.ts [dist/cli.js] [calls=24] [control|bad]\n');
  process.exit(2);
}
const calls = Number(callsText);
const WATCH_MS = 60_000;
const largest = SIZES[SIZES.length - 1];
if (!largest) throw new Error('no document sizes');
const doc = generateDocument(largest);

const child = spawn('node', [cli], {
  stdio: ['pipe', 'pipe', 'ignore'],
  env: { ...process.env, MALLOC_MMAP_THRESHOLD_: '1048576' },
});
// Requests still buffered when the server is killed at the end fail to write: expected.
child.stdin.on('error', () => {});
let peakKiB = 0;
function sample(): void {
  try {
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    peakKiB = Math.max(peakKiB, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
  } catch {
    // The process has exited: the last sample stands.
  }
}
const line = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);

const initialized = new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
line({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'unread', version: '1' } },
});
await initialized;
child.stdout.pause();
line({ jsonrpc: '2.0', method: 'notifications/initialized' });
for (let k = 1; k <= calls; k++) {
  line({
    jsonrpc: '2.0',
    id: k,
    method: 'tools/call',
    params: { name: 'xml_format', arguments: { xml: withVariant(doc, k).xml, indent: 2 } },
  });
  if (mode === 'bad') line({ jsonrpc: '2.0', id: k });
}
for (const end = Date.now() + WATCH_MS; Date.now() < end; ) {
  sample();
  await sleep(200);
}
sample();
process.stdout.write(
  `${mode}, ${calls} unread xml_format calls: peak RSS ${(peakKiB / 1024).toFixed(0)} MiB\n`,
);
child.kill('SIGKILL');
process.exit(0);
