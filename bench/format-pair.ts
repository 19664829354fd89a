/**
 * Paired A/B timing of `xml_format` (indent 2) between two builds of the server, over stdio or
 * Streamable HTTP (a 2025 session), on the benchmark's documents (docs/adr/0029).
 *
 *   npx tsx bench/format-pair.ts --a .scratch/base/dist/cli.js --b dist/cli.js \
 *     [--transport stdio|http] [--size "2 MB"|"8 MiB"] [--pairs 9]
 *
 * Each pair: A first call (a document new to it), B first call, A repeat (the same document
 * again, parse cache warm), B repeat; the order of A and B swaps every pair. Both builds must
 * give the same reply text, or the run stops. Prints medians, the paired ratios (B ÷ A per pair,
 * then their median), the server's CPU time per call (all threads, and its main thread alone, from
 * /proc: far steadier than wall time on a busy machine), RSS after each server's calls and its
 * peak, and the 1-minute load average.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import {
  cpuMs,
  HttpSessionClient,
  initializeStdio,
  preparedParams,
  rssMiB,
  StdioClient,
  startHttpServer,
  type Timed,
} from './clients.js';
import { generateDocument, SIZES, withVariant } from './documents.js';

const { values } = parseArgs({
  options: {
    a: { type: 'string', default: '.scratch/base/dist/cli.js' },
    b: { type: 'string', default: 'dist/cli.js' },
    transport: { type: 'string', default: 'stdio' },
    size: { type: 'string', default: '8 MiB' },
    pairs: { type: 'string', default: '9' },
  },
});
const size = SIZES.find((candidate) => candidate.label === values.size);
if (!size) throw new Error(`--size is one of ${SIZES.map((s) => s.label).join(', ')}`);
const base = generateDocument(size);
const pairs = Number(values.pairs);

interface Side {
  call(prepared: Buffer): Promise<Timed>;
  pid: number | undefined;
  close(): Promise<void>;
}

async function open(cli: string): Promise<Side> {
  if (values.transport === 'http') {
    const server = await startHttpServer(cli);
    const client = new HttpSessionClient(`${server.url}`, '2025-06-18');
    await client.initialize();
    return {
      call: (prepared) => client.call(prepared),
      pid: server.pid,
      close: async () => {
        await client.close();
        await server.stop();
      },
    };
  }
  const client = new StdioClient(process.execPath, [cli]);
  await initializeStdio(client, '2025-06-18');
  return { call: (prepared) => client.call(prepared), pid: client.pid, close: () => client.close() };
}

const formatCall = (n: number) =>
  preparedParams('tools/call', {
    name: 'xml_format',
    arguments: { xml: withVariant(base, n).xml, indent: 2 },
  });

function text(timed: Timed): string {
  const result = timed.reply.result as { content?: Array<{ text?: string }> } | undefined;
  const value = result?.content?.[0]?.text;
  if (typeof value !== 'string') throw new Error(`no text: ${JSON.stringify(timed.reply).slice(0, 300)}`);
  return value;
}

const median = (xs: number[]) => {
  const sorted = [...xs].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

/** CPU milliseconds of the process's main thread (its task whose id is the process id). */
function mainThreadMs(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function peakMiB(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

const loadStart = loadavg()[0] as number;
const a = await open(values.a);
const b = await open(values.b);
const times = {
  aFirst: [] as number[],
  bFirst: [] as number[],
  aRepeat: [] as number[],
  bRepeat: [] as number[],
};
const rss = { a: [] as number[], b: [] as number[] };
const cpu = { a: [] as number[], b: [] as number[], aMain: [] as number[], bMain: [] as number[] };
// One warm-up pair, not counted: the first calls of a process compile the paths.
for (let pair = -1; pair < pairs; pair++) {
  const prepared = formatCall(pair + 2);
  const order: Array<['a' | 'b', Side]> =
    pair % 2 === 0
      ? [
          ['a', a],
          ['b', b],
        ]
      : [
          ['b', b],
          ['a', a],
        ];
  const answers: string[] = [];
  for (const [name, side] of order) {
    const pid = side.pid ?? 0;
    const [cpuBefore, mainBefore] = [cpuMs(pid), mainThreadMs(side.pid)];
    const first = await side.call(prepared);
    const repeat = await side.call(prepared);
    const [cpuAfter, mainAfter] = [cpuMs(pid), mainThreadMs(side.pid)];
    answers.push(text(first), text(repeat));
    if (pair >= 0) {
      times[`${name}First`].push(first.ms);
      times[`${name}Repeat`].push(repeat.ms);
      if (side.pid !== undefined) rss[name].push(rssMiB(side.pid));
      // Per call: the first and the repeat together, halved.
      cpu[name].push((cpuAfter - cpuBefore) / 2);
      cpu[`${name}Main`].push((mainAfter - mainBefore) / 2);
    }
  }
  if (answers.some((answer) => answer !== answers[0])) throw new Error('the builds answered differently');
}
const loadEnd = loadavg()[0] as number;
const ratios = (bs: number[], as: number[]) => median(bs.map((value, i) => value / (as[i] as number)));
const out = {
  transport: values.transport,
  size: size.label,
  pairs,
  load: `${loadStart.toFixed(2)} → ${loadEnd.toFixed(2)}`,
  first: { a: median(times.aFirst), b: median(times.bFirst), ratio: ratios(times.bFirst, times.aFirst) },
  repeat: { a: median(times.aRepeat), b: median(times.bRepeat), ratio: ratios(times.bRepeat, times.aRepeat) },
  cpuMsPerCall: { a: median(cpu.a), b: median(cpu.b), ratio: ratios(cpu.b, cpu.a) },
  mainThreadMsPerCall: { a: median(cpu.aMain), b: median(cpu.bMain), ratio: ratios(cpu.bMain, cpu.aMain) },
  rssMiB: { a: median(rss.a), b: median(rss.b), peakA: peakMiB(a.pid), peakB: peakMiB(b.pid) },
};
await a.close();
await b.close();
console.log(JSON.stringify(out));
