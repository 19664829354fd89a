/**
 * Server CPU per small call and calls per second, two built CLIs paired (ADR 0026):
 *
 *   npx tsx bench/small-calls.ts A/dist/cli.js B/dist/cli.js [rounds=8] [calls=1500]
 *
 * Both servers run side by side over stdio. Each round runs one block of `calls` 1 KB
 * `count(//record)` calls on each, every call on a document new to the server (as bench/run.ts's
 * throughput rows), first with 1 call in flight, then with 4; the order of A and B alternates by
 * round (A B, B A, …) so neither always runs on a machine the other just left. Server CPU is all
 * its threads (/proc/PID/stat, 10 ms ticks: a block costs hundreds of them). The report is each
 * side's median and the median of the per-round ratios B ÷ A, with the load average around it.
 */
import { loadavg } from 'node:os';
import { cpuMs, initializeStdio, preparedParams, StdioClient } from './clients.js';
import { generateDocument, SIZES, withVariant } from './documents.js';
import { median } from './stats.js';

const [cliA, cliB, roundsText = '8', callsText = '1500'] = process.argv.slice(2);
if (!cliA || !cliB || !/^\d+$/.test(roundsText) || !/^\d+$/.test(callsText)) {
  process.stderr.write(
    'usage: npx tsx bench/small-calls.ts A/dist/cli.js B/dist/cli.js [rounds=8] [calls=1500]\n',
  );
  process.exit(2);
}
const ROUNDS = Number(roundsText);
const CALLS = Number(callsText);
const WARMUP = 1_000;

const tiny = generateDocument(SIZES[0] as (typeof SIZES)[number]);
let variants = 0;
function freshCall(): Buffer {
  const doc = withVariant(tiny, ++variants);
  return preparedParams('tools/call', {
    name: 'xml_query',
    arguments: { xml: doc.xml, xpath: 'count(//record)' },
  });
}

interface Block {
  cpuUs: number;
  perSecond: number;
}

async function block(client: StdioClient, inFlight: number, calls: number): Promise<Block> {
  const lines = Array.from({ length: calls }, freshCall);
  let next = 0;
  const cpuBefore = cpuMs(client.pid);
  const start = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < lines.length) {
        const { reply } = await client.call(lines[next++] as Buffer);
        const result = reply.result as { isError?: boolean; content?: { text: string }[] } | undefined;
        if (!result || result.isError || result.content?.[0]?.text !== String(tiny.records)) {
          throw new Error(`unexpected answer: ${JSON.stringify(reply).slice(0, 300)}`);
        }
      }
    }),
  );
  const elapsed = performance.now() - start;
  const cpu = cpuMs(client.pid) - cpuBefore;
  return { cpuUs: (cpu * 1000) / calls, perSecond: (calls / elapsed) * 1000 };
}

const servers = [cliA, cliB].map((cli) => new StdioClient(process.execPath, [cli]));
const [a, b] = servers as [StdioClient, StdioClient];
const loadBefore = loadavg()[0] as number;
try {
  for (const server of servers) {
    await initializeStdio(server, '2025-06-18');
    await block(server, 1, WARMUP);
  }
  const results: Record<number, { a: Block[]; b: Block[] }> = { 1: { a: [], b: [] }, 4: { a: [], b: [] } };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const);
    for (const inFlight of [1, 4]) {
      for (const side of order) {
        const measured = await block(side === 'a' ? a : b, inFlight, CALLS);
        (results[inFlight] as { a: Block[]; b: Block[] })[side].push(measured);
      }
    }
    process.stderr.write(`round ${round + 1}/${ROUNDS}, load ${loadavg()[0]?.toFixed(2)}\n`);
  }
  const loadAfter = loadavg()[0] as number;
  const fmt = (n: number, digits = 0) => n.toFixed(digits);
  console.log(`A ${cliA}\nB ${cliB}`);
  console.log(
    `${ROUNDS} rounds × ${CALLS} calls per side and in-flight level; load average ${loadBefore.toFixed(2)} → ${loadAfter.toFixed(2)}`,
  );
  console.log('| in flight | measure | A median | B median | B ÷ A (median of paired ratios) |');
  console.log('|---|---|---|---|---|');
  for (const inFlight of [1, 4]) {
    const { a: sideA, b: sideB } = results[inFlight] as { a: Block[]; b: Block[] };
    for (const [name, key, digits] of [
      ['server CPU µs/call', 'cpuUs', 0],
      ['calls/s', 'perSecond', 0],
    ] as const) {
      const ratios = sideA.map((x, i) => (sideB[i] as Block)[key] / x[key]);
      console.log(
        `| ${inFlight} | ${name} | ${fmt(median(sideA.map((x) => x[key])), digits)} | ${fmt(median(sideB.map((x) => x[key])), digits)} | ${median(ratios).toFixed(3)} |`,
      );
    }
  }
} finally {
  await Promise.all(servers.map((server) => server.close()));
}
