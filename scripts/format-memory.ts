/**
 * Peak resident memory of the built stdio server for indented `xml_format` calls of 8 MiB of
 * 255-deep `<b>` chains (each answer ~128 MB), the case of docs/adr/0010-output-back-pressure.md.
 *
 *   npm run build && npx tsx scripts/format-memory.ts [--calls 1] [--unread-seconds 0] [--bin dist/cli.js]
 *
 * With --unread-seconds N the client reads nothing for N seconds first (a measurement, not a
 * test: it prints the server's RSS every 5 s and how many requests the server had taken), then
 * reads everything. VmHWM and VmRSS come from /proc of the server child, read before its stdin
 * is closed. Exit 0 only when every reply arrived.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CLI } from '../test/support/built-cli.js';
import { initialize, initialized, toolCall } from '../test/support/stdio-lines.js';

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '1' },
    'unread-seconds': { type: 'string', default: '0' },
    bin: { type: 'string', default: CLI },
  },
});
const calls = Number(values.calls);
const unreadSeconds = Number(values['unread-seconds']);
const chain = `${'<b>'.repeat(254)}<b/>${'</b>'.repeat(254)}`;
const xml = `<r>${chain.repeat(Math.floor((8 * 1024 * 1024 - 7) / chain.length))}</r>`;

const child = spawn(process.execPath, [values.bin], { stdio: ['pipe', 'pipe', 'inherit'] });
const memory = () =>
  Object.fromEntries(
    readFileSync(`/proc/${child.pid}/status`, 'utf8')
      .split('\n')
      .filter((line) => /^Vm(HWM|RSS)/.test(line))
      .map((line) => line.split(/:\s+/)),
  );
// Requests are written one after another, so a completed write means the server took it.
const send = (line: string) =>
  new Promise<void>((resolve) => child.stdin.write(`${line}\n`, () => resolve()));
let taken = 0;
const writing = (async () => {
  await send(initialize('2025-06-18', { client: 'format-memory' }));
  await send(initialized);
  for (let id = 1; id <= calls; id++) {
    await send(toolCall(id, 'xml_format', { xml, indent: 16 }));
    taken++;
  }
})();

const started = Date.now();
child.stdout.pause();
for (let waited = 0; waited < unreadSeconds; waited += 5) {
  await new Promise((resolve) => setTimeout(resolve, 5000));
  console.log(
    `unread for ${waited + 5} s: ${taken} of ${calls} requests taken, server ${JSON.stringify(memory())}`,
  );
}
let lines = 0;
let bytes = 0;
const answered = new Promise<void>((resolve) =>
  child.stdout.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) lines++;
    if (lines === calls + 1) resolve();
  }),
);
child.stdout.resume();
await answered;
await writing;
console.log(
  `${calls} call(s): ${lines} replies, ${(bytes / 1e6).toFixed(1)} MB in ${Date.now() - started} ms; server ${JSON.stringify(memory())}`,
);
child.stdin.end();
const [code] = await new Promise<[number | null]>((resolve) =>
  child.on('exit', (exitCode) => resolve([exitCode])),
);
process.exit(code === 0 && lines === calls + 1 ? 0 : 1);
