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
 *
 * What a call costs beyond any stdio server's floor, with B one of two stand-ins:
 *
 *   npx tsx bench/small-calls.ts A/dist/cli.js unknown-tool:A/dist/cli.js   the same server, a
 *     call to a tool it does not have (transport, JSON-RPC and the SDK's dispatch; no tool, no worker)
 *   npx tsx bench/small-calls.ts A/dist/cli.js echo                          a plain Node line echo
 *     answering each request with a reply line of the same size (reading and writing a line)
 */
import { loadavg } from 'node:os';
import { cpuMs, initializeStdio, preparedParams, StdioClient } from './clients.js';
import { generateDocument, SIZES, withVariant } from './documents.js';
import { median, quantile } from './stats.js';

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

/** A plain line echo: a reply of the size ours answers a 1 KB count with, by the request's id. */
const ECHO_SOURCE = `
let rest = Buffer.alloc(0);
process.stdin.on('data', (chunk) => {
  let data = rest.length ? Buffer.concat([rest, chunk]) : chunk;
  let start = 0;
  for (let nl = data.indexOf(10); nl >= 0; nl = data.indexOf(10, start)) {
    const id = /"id":(\\d+)/.exec(data.subarray(start, start + 64).toString('latin1'));
    start = nl + 1;
    if (id) process.stdout.write('{"jsonrpc":"2.0","id":' + id[1] + ',"result":{"content":[{"type":"text","text":"ECHO"}],"structuredContent":{"type":"number","count":1,"values":["ECHO"]},"pad":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}}\\n');
  }
  rest = data.subarray(start);
});`;

interface Side {
  command: string[];
  tool: string;
  /** The reply's first text when the call went as meant. */
  expected: (text: string | undefined) => boolean;
}

const tiny = generateDocument(SIZES[0] as (typeof SIZES)[number]);
const COUNT: Side['expected'] = (text) => text === String(tiny.records);

function sideOf(spec: string): Side {
  if (spec === 'echo')
    return { command: ['-e', ECHO_SOURCE], tool: 'xml_query', expected: (t) => t === 'ECHO' };
  if (spec.startsWith('unknown-tool:')) {
    return {
      command: [spec.slice('unknown-tool:'.length)],
      tool: 'xml_nothing',
      expected: (text) => text?.startsWith('Unknown tool') === true,
    };
  }
  return { command: [spec], tool: 'xml_query', expected: COUNT };
}

let variants = 0;
function freshCall(tool: string): Buffer {
  const doc = withVariant(tiny, ++variants);
  return preparedParams('tools/call', { name: tool, arguments: { xml: doc.xml, xpath: 'count(//record)' } });
}

interface Block {
  cpuUs: number;
  perSecond: number;
}

async function block(client: StdioClient, side: Side, inFlight: number, calls: number): Promise<Block> {
  const lines = Array.from({ length: calls }, () => freshCall(side.tool));
  let next = 0;
  const cpuBefore = cpuMs(client.pid);
  const start = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < lines.length) {
        const { reply } = await client.call(lines[next++] as Buffer);
        const result = reply.result as { content?: { text: string }[] } | undefined;
        if (!side.expected(result?.content?.[0]?.text)) {
          throw new Error(`unexpected answer: ${JSON.stringify(reply).slice(0, 300)}`);
        }
      }
    }),
  );
  const elapsed = performance.now() - start;
  const cpu = cpuMs(client.pid) - cpuBefore;
  return { cpuUs: (cpu * 1000) / calls, perSecond: (calls / elapsed) * 1000 };
}

const sides = [sideOf(cliA), sideOf(cliB)] as const;
const servers = sides.map((side) => new StdioClient(process.execPath, side.command));
const [a, b] = servers as [StdioClient, StdioClient];
const loadBefore = loadavg()[0] as number;
try {
  for (const [index, server] of servers.entries()) {
    await initializeStdio(server, '2025-06-18');
    await block(server, sides[index] as Side, 1, WARMUP);
  }
  const results: Record<number, { a: Block[]; b: Block[] }> = { 1: { a: [], b: [] }, 4: { a: [], b: [] } };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const);
    for (const inFlight of [1, 4]) {
      for (const side of order) {
        const measured = await block(side === 'a' ? a : b, sides[side === 'a' ? 0 : 1], inFlight, CALLS);
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
  console.log('| in flight | measure | A median | B median | B ÷ A: median of paired ratios (quartiles) |');
  console.log('|---|---|---|---|---|');
  for (const inFlight of [1, 4]) {
    const { a: sideA, b: sideB } = results[inFlight] as { a: Block[]; b: Block[] };
    for (const [name, key, digits] of [
      ['server CPU µs/call', 'cpuUs', 0],
      ['calls/s', 'perSecond', 0],
    ] as const) {
      const ratios = sideA.map((x, i) => (sideB[i] as Block)[key] / x[key]);
      console.log(
        `| ${inFlight} | ${name} | ${fmt(median(sideA.map((x) => x[key])), digits)} | ${fmt(median(sideB.map((x) => x[key])), digits)} | ${median(ratios).toFixed(3)} (${quantile(ratios, 0.25).toFixed(2)}–${quantile(ratios, 0.75).toFixed(2)}) |`,
      );
    }
  }
} finally {
  await Promise.all(servers.map((server) => server.close()));
}
