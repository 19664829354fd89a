/**
 * Per-request latency of the built server against the in-process engine, paired call by call.
 *
 *   npm run bench             (builds, then runs this file)
 *   npx tsx bench/run.ts      (the current build)   --quick: a smoke run with few iterations
 *                                                  --workload: only the model workload (handles)
 *   --lxml-only: only the comparison with the lxml server (after the same warm-up)
 *   --half: half the iterations of every measurement (for a machine too busy for the full run)
 *   --native-only: only inspect and format against libxml2 in C (bench/native-c.ts)
 *   --xpath31-only: only XPath 3.1 against XPath 1.0, first calls and the view's memory
 *                   (bench/xpath31-figures.ts; a server of its own, about 3 minutes on 2 cores)
 *
 * Pairing: each iteration makes one call through the server and then the same engine call in
 * this process on the same input (A B A B …), so both sides see the same machine state and the
 * ratio of their medians is meaningful on a noisy machine. No timed assertions: it reports.
 * The markdown report goes to stdout, progress to stderr, raw samples to bench/results/.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Worker } from 'node:worker_threads';
import { registerFontoxpathPatches } from '../scripts/fontoxpath-hooks.js';
import { captureWasmMemory } from '../src/engine/libxml2/memory.js';
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
import { type BenchDocument, generateDocument, RECORDS_XSD, SIZES, withVariant } from './documents.js';
import { modelWorkload, type WorkloadRow, workloadTable } from './model-workload.js';
import { bytes, median, ms, p90, ratio, signedMs, table } from './stats.js';

// As the worker entry does: reach libxml2's memory before libxml2-wasm loads, so the in-process
// engine runs with the same XPath operation budget as the server's workers.
captureWasmMemory();
// As the worker entry does under tsx: the engine's fontoxpath and xspattern patched (ADR 0034, 0050).
registerFontoxpathPatches();
const { query } = await import('../src/engine/query/query.js');
const { check } = await import('../src/engine/check.js');
const { inspect } = await import('../src/engine/inspect/inspect.js');
const { validate } = await import('../src/engine/validate/validate.js');
const { format } = await import('../src/engine/format.js');
const { parseDocument } = await import('../src/engine/parse.js');
const { DocumentCache } = await import('../src/engine/runtime/document-cache.js');
const { outlineCases, outlineTable } = await import('./inspect-outline.js');
const { valuesCases, valuesTable } = await import('./inspect-values.js');
const { formatToBytes } = await import('../src/engine/format.js');
const { nativeSection, versusNative } = await import('./native-c.js');
const { xpath31Figures, xpath31Section } = await import('./xpath31-figures.js');
const { LIFT_DOCUMENTS_FROM_BYTES, parseLineLiftingDocuments } = await import(
  '../src/transports/lift-documents.js'
);

const QUICK = process.argv.includes('--quick');
const WORKLOAD_ONLY = process.argv.includes('--workload');
const LXML_ONLY = process.argv.includes('--lxml-only');
const HALF = process.argv.includes('--half');
const NATIVE_ONLY = process.argv.includes('--native-only');
const XPATH31_ONLY = process.argv.includes('--xpath31-only');
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const LXML_SERVER = fileURLToPath(new URL('./lxml_server.py', import.meta.url));
const PYTHON = '/usr/bin/python3';
const PROTOCOL = '2025-11-25';

v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;

/** Warm-up and measured iterations per document size (about 7 minutes in all on 2 cores). */
const PLAN: Record<string, { warmup: number; iterations: number }> = {
  '1 KB': { warmup: 100, iterations: 500 },
  '200 KB': { warmup: 10, iterations: 100 },
  '2 MB': { warmup: 3, iterations: 30 },
  '8 MiB': { warmup: 2, iterations: 14 },
};
function plan(label: string): { warmup: number; iterations: number } {
  const planned = PLAN[label] ?? { warmup: 2, iterations: 10 };
  const full = HALF ? { warmup: planned.warmup, iterations: Math.ceil(planned.iterations / 2) } : planned;
  return QUICK ? { warmup: 1, iterations: Math.max(3, Math.floor(full.iterations / 10)) } : full;
}
/**
 * A fresh server needs thousands of calls before its compiled paths settle (1 KB calls take
 * 1–1.7 ms over the first thousand, 0.3–0.9 ms after), so every server process is warmed up
 * before it is measured; the first calls of a fresh server are reported on their own.
 */
const WARMUP_CALLS = QUICK ? 300 : 5_000;
const COLD_BUCKETS: Array<[number, number]> = [
  [1, 1],
  [2, 10],
  [11, 100],
  [101, 1_000],
  [1_001, 5_000],
];
/** Calls on the same document in the repeated-query case, and rounds of them. */
const REPEATS = 5;
const REPEAT_ROUNDS = QUICK ? 2 : 8;

function log(message: string): void {
  process.stderr.write(`bench: ${message}\n`);
}

// ---------------------------------------------------------------------------------------------
// What is measured

interface Operation {
  name: string;
  tool: string;
  args(doc: BenchDocument): Record<string, unknown>;
  /** The engine call the tool makes, in process, on the same text. */
  local(doc: BenchDocument): unknown;
}

/** The record the selective query asks for: three quarters of the way in. */
const selectedId = (doc: BenchDocument) => `r${Math.ceil((doc.records * 3) / 4)}`;

const OPERATIONS: Operation[] = [
  {
    name: 'query count(//record)',
    tool: 'xml_query',
    args: (doc) => ({ xml: doc.xml, xpath: 'count(//record)' }),
    local: (doc) => query(doc.xml, 'count(//record)'),
  },
  {
    name: "query //record[@id='rN']/name",
    tool: 'xml_query',
    args: (doc) => ({ xml: doc.xml, xpath: `//record[@id='${selectedId(doc)}']/name` }),
    local: (doc) => query(doc.xml, `//record[@id='${selectedId(doc)}']/name`),
  },
  {
    name: 'query //record/name',
    tool: 'xml_query',
    args: (doc) => ({ xml: doc.xml, xpath: '//record/name' }),
    local: (doc) => query(doc.xml, '//record/name'),
  },
  { name: 'check', tool: 'xml_check', args: (doc) => ({ xml: doc.xml }), local: (doc) => check(doc.xml) },
  {
    name: 'inspect',
    tool: 'xml_inspect',
    args: (doc) => ({ xml: doc.xml }),
    local: (doc) => inspect(doc.xml),
  },
  {
    name: 'validate',
    tool: 'xml_validate',
    args: (doc) => ({ xml: doc.xml, xsd: RECORDS_XSD }),
    local: (doc) => validate(doc.xml, RECORDS_XSD),
  },
  {
    name: 'format indent 2',
    tool: 'xml_format',
    args: (doc) => ({ xml: doc.xml, indent: 2 }),
    local: (doc) => ({ xml: format(doc.xml, { indent: 2, emptyElements: 'self-closing' }) }),
  },
];
const COUNT = OPERATIONS[0] as Operation;
const FORMAT = OPERATIONS[6] as Operation;

function toolCall(op: Operation, doc: BenchDocument): Buffer {
  return preparedParams('tools/call', { name: op.tool, arguments: op.args(doc) });
}

/**
 * The server keeps a small per-session cache of parsed documents (query, inspect). Every timed
 * call therefore carries a document it has never seen (only the root's `variant` attribute
 * differs), so each call pays its parse, as the in-process engine call does. The cache's own
 * effect is measured separately (repeatedQuery).
 */
let variants = 0;
interface Fresh {
  doc: BenchDocument;
  /** The tools/call params for `doc`, serialized outside the timing. */
  prepared: Buffer;
}
function fresh(doc: BenchDocument, op: Operation): Fresh {
  const variant = withVariant(doc, ++variants);
  return { doc: variant, prepared: toolCall(op, variant) };
}

/** One measured side of a pair: returns its time in ms. */
type Side<T> = (input: T) => Promise<number> | number;

function timeLocal(run: () => unknown): number {
  const start = performance.now();
  run();
  return performance.now() - start;
}

/** What the server answered, checked outside the timing; a failed call is fatal to the run. */
function resultOf(timed: Timed, what: string): Record<string, unknown> {
  const result = timed.reply.result as Record<string, unknown> | undefined;
  if (!result || !Number.isFinite(timed.ms)) {
    throw new Error(`${what}: no result: ${JSON.stringify(timed.reply).slice(0, 500)}`);
  }
  if (result.isError === true) {
    throw new Error(`${what}: tool error: ${JSON.stringify(result.content).slice(0, 500)}`);
  }
  return result;
}

/**
 * The pairing loop: A then B (then C …) on the same fresh input, `warmup + iterations` times;
 * warm-up pairs are not kept. On documents of 200 KB and more the harness's own garbage
 * (multi-megabyte lines) is collected before every sample, so it does not land inside the
 * other side's timing.
 */
async function paired<T>(label: string, size: string, input: () => T, sides: Side<T>[]): Promise<number[][]> {
  const { warmup, iterations } = plan(size);
  const collect = size !== '1 KB';
  const samples: number[][] = sides.map(() => []);
  for (let i = 0; i < warmup + iterations; i++) {
    const value = input();
    for (const [index, side] of sides.entries()) {
      if (collect) collectGarbage();
      const time = await side(value);
      if (i >= warmup) samples[index]?.push(time);
    }
  }
  log(`${label} (${size}): ${samples.map((s) => ms(median(s))).join(' / ')} ms`);
  return samples;
}

interface PairStats {
  n: number;
  a: { median: number; p90: number };
  b: { median: number; p90: number };
  ratio: number;
  deltaMs: number;
  /** Median of the per-pair differences A − B. */
  pairedDeltaMs: number;
}

/** The table cells every paired comparison shows: n, both sides' median and p90, ratio, Δ. */
function pairedCells(stats: PairStats): string[] {
  return [
    String(stats.n),
    ms(stats.a.median),
    ms(stats.a.p90),
    ms(stats.b.median),
    ms(stats.b.p90),
    ratio(stats.ratio),
    signedMs(stats.deltaMs),
  ];
}

function pairStats(a: number[], b: number[]): PairStats {
  return {
    n: a.length,
    a: { median: median(a), p90: p90(a) },
    b: { median: median(b), p90: p90(b) },
    ratio: median(a) / median(b),
    deltaMs: median(a) - median(b),
    pairedDeltaMs: median(a.map((value, i) => value - (b[i] as number))),
  };
}

// ---------------------------------------------------------------------------------------------
// Sections

interface ColdStart {
  /** From spawning the process to its answer to `initialize`. */
  startMs: number;
  /** Every warm-up call, in order: `count(//record)` on a fresh 1 KB document. */
  samples: number[];
}

/**
 * Warms a fresh server up and records how its first calls go: WARMUP_CALLS queries on fresh
 * 1 KB documents (the first one starts the engine worker), then every other tool a few hundred
 * times, with the in-process engine warmed alongside.
 */
async function warmUp(call: (prepared: Buffer) => Promise<Timed>, tiny: BenchDocument): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < WARMUP_CALLS; i++) {
    const x = fresh(tiny, COUNT);
    const timed = await call(x.prepared);
    resultOf(timed, 'warm-up');
    samples.push(timed.ms);
    COUNT.local(x.doc);
  }
  for (const op of OPERATIONS) {
    for (let i = 0; i < WARMUP_CALLS / 20; i++) {
      const x = fresh(tiny, op);
      resultOf(await call(x.prepared), `warm-up ${op.name}`);
      op.local(x.doc);
    }
  }
  return samples;
}

interface OperationRow {
  size: string;
  bytes: number;
  operation: string;
  stats: PairStats;
  note: string;
  agrees: boolean;
  samples: { server: number[]; local: number[] };
}

/** An answer without the handles the session adds (ADR 0016): what the engine itself answers. */
function withoutHandles(structured: unknown): unknown {
  if (typeof structured !== 'object' || structured === null) return structured;
  const { document: _document, schema: _schema, ...answer } = structured as Record<string, unknown>;
  return answer;
}

/**
 * What the tool puts in `structuredContent` from the engine's result: xml_inspect keeps what it
 * left out and its unprefixed example for the text only.
 */
function structuredOf(op: Operation, local: unknown): unknown {
  if (op.tool !== 'xml_inspect' || typeof local !== 'object' || local === null) return local;
  const { omitted: _omitted, unprefixedExample: _example, ...structured } = local as Record<string, unknown>;
  return structured;
}

async function stdioVersusInProcess(server: StdioClient, docs: BenchDocument[]): Promise<OperationRow[]> {
  const rows: OperationRow[] = [];
  for (const doc of docs) {
    for (const op of OPERATIONS) {
      // One call outside the loop: compare the server's answer with the engine's.
      const check = fresh(doc, op);
      const first = resultOf(await server.call(check.prepared), `${op.name} ${doc.label}`);
      const local = op.local(check.doc);
      // xml_format answers with the document as text only; the engine returns { xml }.
      const answer =
        op === FORMAT
          ? { xml: (first.content as Array<{ text?: string }> | undefined)?.[0]?.text }
          : withoutHandles(first.structuredContent);
      const agrees = JSON.stringify(answer) === JSON.stringify(structuredOf(op, local));
      if (!agrees) log(`warning: ${op.name} at ${doc.label}: the server's answer differs from the engine's`);
      const [server$, local$] = await paired(`stdio ${op.name}`, doc.label, () => fresh(doc, op), [
        async (x) => (await server.call(x.prepared)).ms,
        (x) => timeLocal(() => op.local(x.doc)),
      ]);
      const truncated = (first.structuredContent as { truncated?: boolean } | undefined)?.truncated === true;
      const replyBytes = Buffer.byteLength(JSON.stringify({ jsonrpc: '2.0', id: 1, result: first }));
      const note = [
        truncated ? 'answer cut by the output budget (count exact)' : '',
        replyBytes > 100_000 ? `reply ${bytes(replyBytes)}` : '',
      ]
        .filter(Boolean)
        .join('; ');
      rows.push({
        size: doc.label,
        bytes: doc.bytes,
        operation: op.name,
        stats: pairStats(server$ ?? [], local$ ?? []),
        note,
        agrees,
        samples: { server: server$ ?? [], local: local$ ?? [] },
      });
    }
  }
  return rows;
}

async function httpVersusInProcess(docs: BenchDocument[]): Promise<OperationRow[]> {
  const http = await startHttpServer(CLI);
  const client = new HttpSessionClient(http.url, PROTOCOL);
  const rows: OperationRow[] = [];
  try {
    await client.initialize();
    await warmUp((prepared) => client.call(prepared), docs[0] as BenchDocument);
    log('HTTP server warmed up');
    for (const doc of docs) {
      resultOf(await client.call(fresh(doc, COUNT).prepared), `http count ${doc.label}`);
      const [server$, local$] = await paired(`http ${COUNT.name}`, doc.label, () => fresh(doc, COUNT), [
        async (x) => (await client.call(x.prepared)).ms,
        (x) => timeLocal(() => COUNT.local(x.doc)),
      ]);
      rows.push({
        size: doc.label,
        bytes: doc.bytes,
        operation: COUNT.name,
        stats: pairStats(server$ ?? [], local$ ?? []),
        note: '',
        agrees: true,
        samples: { server: server$ ?? [], local: local$ ?? [] },
      });
    }
  } finally {
    await client.close();
    await http.stop();
  }
  return rows;
}

interface RepeatedResult {
  rounds: number;
  /** calls[k][r]: the k-th call (0-based) on round r's document. */
  calls: number[][];
  local: number[];
}

/**
 * The same 8 MiB document queried REPEATS times in a row. Each round uses a document that is
 * new byte for byte (only the root's `variant` attribute differs), so a parse cache, when there
 * is one, misses on the round's first call and may hit on the others.
 */
async function repeatedQuery(server: StdioClient, large: BenchDocument): Promise<RepeatedResult> {
  const calls: number[][] = Array.from({ length: REPEATS }, () => []);
  const local: number[] = [];
  for (let round = 0; round <= REPEAT_ROUNDS; round++) {
    const { doc, prepared } = fresh(large, COUNT);
    for (let k = 0; k < REPEATS; k++) {
      collectGarbage();
      const timed = await server.call(prepared);
      resultOf(timed, 'repeated count');
      if (round > 0) calls[k]?.push(timed.ms);
    }
    collectGarbage();
    const time = timeLocal(() => COUNT.local(doc));
    if (round > 0) local.push(time);
  }
  log(
    `repeated 8 MiB: ${calls.map((c) => ms(median(c))).join(' / ')} ms; in-process ${ms(median(local))} ms`,
  );
  return { rounds: REPEAT_ROUNDS, calls, local };
}

interface LxmlRow {
  size: string;
  operation: string;
  /** A document new to both servers. */
  first: PairStats;
  /** The same document sent again at once (our parse cache answers query and inspect). */
  repeat: PairStats;
  agreement: string;
  samples: { oxmlFirst: number[]; lxmlFirst: number[]; oxmlRepeat: number[]; lxmlRepeat: number[] };
}

interface Throughput {
  inFlight: number;
  oxml: { perSecond: number[]; cpuUs: number[] };
  lxml: { perSecond: number[]; cpuUs: number[] };
}

interface Start {
  /** spawn → `initialize` answered, ms. */
  initializeMs: number;
  /** spawn → the first `tools/call` (1 KB `count`, sent after the `initialize` answer) answered, ms. */
  firstAnswerMs: number;
  /** CPU time of all the server's threads by that answer, ms. */
  cpuMs: number;
  /** Resident memory a second after the first answer, and after one 8 MiB call of every operation. */
  idleMiB?: number;
  after8MiB?: number;
}

interface LxmlComparison {
  versions: Record<string, unknown>;
  rows: LxmlRow[];
  throughput: Throughput[];
  starts: { oxml: Start[]; lxml: Start[] };
}

/** Calls per throughput block, blocks per (server, in-flight), cold starts per server, of which with memory read. */
const THROUGHPUT_CALLS = QUICK ? 100 : 1_000;
const THROUGHPUT_ROUNDS = QUICK ? 2 : 7;
const START_PAIRS = QUICK ? 2 : 12;
const MEMORY_PAIRS = QUICK ? 1 : 3;

/**
 * Whether two servers gave the same answer, by what both can give: `structuredContent`, or for
 * xml_format (text only) the text. A query answer our output budget cut is compared on what it
 * kept: the type and exact count, and its values as the start of lxml's (which has no budget).
 */
function agreement(op: Operation, ours: Record<string, unknown>, theirs: Record<string, unknown>): string {
  const text = (result: Record<string, unknown>) =>
    (result.content as Array<{ text?: string }> | undefined)?.[0]?.text;
  if (op === FORMAT) return text(ours) === text(theirs) ? 'same' : 'DIFFER';
  const a = withoutHandles(ours.structuredContent) as Record<string, unknown> | undefined;
  const b = theirs.structuredContent as Record<string, unknown> | undefined;
  if (JSON.stringify(a) === JSON.stringify(b)) return 'same';
  // An inspect answer with fields the lxml server does not build (an outline, say): compared on
  // the fields it does build.
  if (op.tool === 'xml_inspect' && a && b) {
    const extra = Object.keys(a).filter((key) => !(key in b));
    const common = Object.fromEntries(Object.keys(b).map((key) => [key, a[key]]));
    if (extra.length > 0 && JSON.stringify(common) === JSON.stringify(b)) {
      return `same on lxml's fields; ${extra.join(', ')}: ours only`;
    }
  }
  if (op.tool === 'xml_query' && a?.truncated === true && b) {
    const kept = a.values as string[];
    const all = b.values as string[];
    const prefix = kept.every((value, i) => value === all[i]);
    if (a.type === b.type && a.count === b.count && prefix) {
      return `same type and count; our ${kept.length} values (output budget) are lxml's first`;
    }
  }
  return 'DIFFER';
}

/** Calls on fresh 1 KB documents with `inFlight` outstanding at a time: calls per second, server CPU µs per call. */
async function throughputBlock(
  client: StdioClient,
  tiny: BenchDocument,
  inFlight: number,
): Promise<{ perSecond: number; cpuUs: number }> {
  const prepared = Array.from({ length: THROUGHPUT_CALLS }, () => fresh(tiny, COUNT).prepared);
  let next = 0;
  const cpuBefore = cpuMs(client.pid);
  const start = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < prepared.length) {
        const line = prepared[next++] as Buffer;
        resultOf(await client.call(line), 'throughput');
      }
    }),
  );
  const elapsed = performance.now() - start;
  const cpu = cpuMs(client.pid) - cpuBefore;
  return { perSecond: (THROUGHPUT_CALLS / elapsed) * 1000, cpuUs: (cpu * 1000) / THROUGHPUT_CALLS };
}

/** Sleeps without keeping anything alive. */
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One cold start over stdio: spawn, `initialize`, then a 1 KB query once it is answered (a host
 * waits for the answer too). With `memory`, also the resident memory a second later, and after
 * one 8 MiB call of every operation.
 */
async function coldStart(
  command: string,
  args: string[],
  tiny: BenchDocument,
  large: BenchDocument | undefined,
): Promise<Start> {
  const spawned = performance.now();
  const client = new StdioClient(command, args);
  try {
    const init = await initializeStdio(client, PROTOCOL);
    if (!('result' in init.reply)) throw new Error(`initialize failed: ${JSON.stringify(init.reply)}`);
    const initializeMs = performance.now() - spawned;
    resultOf(await client.call(fresh(tiny, COUNT).prepared), 'first call');
    const start: Start = {
      initializeMs,
      firstAnswerMs: performance.now() - spawned,
      cpuMs: cpuMs(client.pid),
    };
    if (large) {
      await pause(1_000);
      start.idleMiB = rssMiB(client.pid);
      for (const op of OPERATIONS) resultOf(await client.call(fresh(large, op).prepared), `8 MiB ${op.name}`);
      await pause(500);
      start.after8MiB = rssMiB(client.pid);
    }
    return start;
  } finally {
    await client.close();
  }
}

/**
 * Our stdio server against the lxml one (bench/lxml_server.py), paired call by call: every
 * operation at every size (first call on a new document, then the same document again), 1 KB
 * calls per second with 1 and 4 in flight, and fresh processes for start-up and memory.
 */
async function versusLxml(
  server: StdioClient,
  docs: BenchDocument[],
): Promise<LxmlComparison | { skipped: string }> {
  try {
    execFileSync(PYTHON, ['-c', 'import lxml.etree'], { stdio: 'ignore' });
  } catch {
    return { skipped: `${PYTHON} cannot import lxml (on Debian: apt-get install python3-lxml)` };
  }
  const tiny = docs[0] as BenchDocument;
  const large = docs[docs.length - 1] as BenchDocument;
  const lxml = new StdioClient(PYTHON, [LXML_SERVER]);
  let versions: Record<string, unknown>;
  const rows: LxmlRow[] = [];
  const throughput: Throughput[] = [];
  try {
    const init = await initializeStdio(lxml, PROTOCOL);
    versions = ((init.reply.result as Record<string, unknown>)?.serverInfo ?? {}) as Record<string, unknown>;
    for (let i = 0; i < WARMUP_CALLS / 10; i++)
      resultOf(await lxml.call(fresh(tiny, COUNT).prepared), 'lxml warm-up');
    for (const doc of docs) {
      for (const op of OPERATIONS) {
        const { prepared } = fresh(doc, op);
        const ours = resultOf(await server.call(prepared), `${op.name} ${doc.label}`);
        const theirs = resultOf(await lxml.call(prepared), `lxml ${op.name} ${doc.label}`);
        const agrees = agreement(op, ours, theirs);
        if (agrees === 'DIFFER') {
          log(`warning: ${op.name} at ${doc.label}: lxml answers ${JSON.stringify(theirs).slice(0, 400)}`);
          log(`  ours: ${JSON.stringify(ours).slice(0, 400)}`);
        }
        // Each pair sends both servers the same document, new to both, and then again.
        const timed = (client: StdioClient) => async (x: Fresh) => (await client.call(x.prepared)).ms;
        const [oxmlFirst = [], lxmlFirst = [], oxmlRepeat = [], lxmlRepeat = []] = await paired(
          `oxml vs lxml ${op.name}`,
          doc.label,
          () => fresh(doc, op),
          [timed(server), timed(lxml), timed(server), timed(lxml)],
        );
        rows.push({
          size: doc.label,
          operation: op.name,
          first: pairStats(oxmlFirst, lxmlFirst),
          repeat: pairStats(oxmlRepeat, lxmlRepeat),
          agreement: agrees,
          samples: { oxmlFirst, lxmlFirst, oxmlRepeat, lxmlRepeat },
        });
      }
    }
    for (const inFlight of [1, 4]) {
      const entry: Throughput = {
        inFlight,
        oxml: { perSecond: [], cpuUs: [] },
        lxml: { perSecond: [], cpuUs: [] },
      };
      for (let round = 0; round < THROUGHPUT_ROUNDS; round++) {
        for (const [name, client] of [
          ['oxml', server],
          ['lxml', lxml],
        ] as const) {
          const block = await throughputBlock(client, tiny, inFlight);
          entry[name].perSecond.push(block.perSecond);
          entry[name].cpuUs.push(block.cpuUs);
        }
      }
      log(
        `1 KB calls/s, ${inFlight} in flight: ${median(entry.oxml.perSecond).toFixed(0)} / ${median(entry.lxml.perSecond).toFixed(0)}`,
      );
      throughput.push(entry);
    }
  } finally {
    await lxml.close();
  }
  const starts: LxmlComparison['starts'] = { oxml: [], lxml: [] };
  for (let pair = 0; pair < START_PAIRS; pair++) {
    const withMemory = pair < MEMORY_PAIRS ? large : undefined;
    const sides = [
      ['oxml', () => coldStart(process.execPath, [CLI], tiny, withMemory)],
      ['lxml', () => coldStart(PYTHON, [LXML_SERVER], tiny, withMemory)],
    ] as const;
    // A B, then B A: neither side always starts on a machine the other just left.
    for (const [name, start] of pair % 2 === 0 ? sides : [...sides].reverse())
      starts[name].push(await start());
  }
  log(
    `spawn → first answer: ${ms(median(starts.oxml.map((s) => s.firstAnswerMs)))} / ${ms(median(starts.lxml.map((s) => s.firstAnswerMs)))} ms`,
  );
  return { versions, rows, throughput, starts };
}

// ---------------------------------------------------------------------------------------------
// Where the time goes

/** A plain line echo: the floor any stdio server pays to read a line and write a reply. */
const ECHO_SOURCE = `
let chunks = [];
let pad = '';
process.stdin.on('data', (chunk) => {
  let start = 0;
  for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
    chunks.push(chunk.subarray(start, nl));
    const line = Buffer.concat(chunks);
    chunks = [];
    start = nl + 1;
    const id = /"id":(\\d+)/.exec(line.subarray(0, 64).toString('latin1'));
    if (!id) { pad = 'x'.repeat(Math.max(0, JSON.parse(line.toString()).replyBytes - 50)); continue; }
    process.stdout.write('{"jsonrpc":"2.0","id":' + id[1] + ',"result":{"pad":"' + pad + '"}}\\n');
  }
  if (start < chunk.length) chunks.push(chunk.subarray(start));
});`;

/** A worker that answers each message with a result set beforehand, as the engine worker would. */
const HANDOFF_SOURCE = `
const { parentPort } = require('node:worker_threads');
let result = null;
parentPort.on('message', (message) => {
  if ('setResult' in message) { result = message.setResult; parentPort.postMessage('ready'); return; }
  parentPort.postMessage({ id: message.id, ok: true, result });
});`;

class HandoffWorker {
  readonly #worker = new Worker(HANDOFF_SOURCE, { eval: true });
  #id = 0;

  async setResult(result: unknown): Promise<void> {
    this.#worker.postMessage({ setResult: result });
    await this.#next();
  }

  /** Round trip: the document goes in (transferred when it is bytes), the result comes back. */
  async roundTrip(xml: Uint8Array | string): Promise<number> {
    const start = performance.now();
    const message = { id: ++this.#id, op: 'query', args: { xml, xpath: 'count(//record)', namespaces: {} } };
    this.#worker.postMessage(message, typeof xml === 'string' ? [] : [xml.buffer as ArrayBuffer]);
    await this.#next();
    return performance.now() - start;
  }

  #next(): Promise<unknown> {
    return new Promise((resolve) => this.#worker.once('message', resolve));
  }

  close(): Promise<number> {
    return this.#worker.terminate();
  }
}

const SERVER_CALL = 'stdio tools/call (the server)';
const LOCAL_CALL = 'in-process engine call';
const UNKNOWN_TOOL = 'xml_no_such_tool';
const ECHO_FLOOR = 'stdio floor: plain line echo, same request and reply sizes';
const UNKNOWN_CALL = 'stdio tools/call of an unknown tool, same arguments (no tool, no engine)';

interface BreakdownCase {
  size: string;
  operation: string;
  replyBytes: number;
  /** server: paid by the server only; both: paid by both sides; reference: for comparison. */
  components: Array<{
    name: string;
    path: 'server' | 'both' | 'reference';
    samples: number[];
    median: number;
  }>;
}

/**
 * Times the fourth of four runs. The harness collects garbage before every sample, and V8 may
 * then drop the compiled code of a function run once per sample (the server, which is not made
 * to collect, keeps it hot): one 200 KB read is over before its loop is optimized again.
 */
function warmThenTime(work: () => unknown): number {
  for (let run = 0; run < 3; run++) work();
  return timeLocal(work);
}

/** The time the worker's parse cache takes to find a document it holds (the parse is not timed). */
function cacheHit(utf8: Uint8Array): number {
  const cache = new DocumentCache(16 * 1024 * 1024);
  const none = () => 0;
  cache.use('bench', 'query', utf8, () => parseDocument(utf8, 'query'), none);
  const again = Uint8Array.from(utf8);
  const elapsed = timeLocal(() =>
    cache.use(
      'bench',
      'query',
      again,
      () => {
        throw new Error('expected a cache hit');
      },
      none,
    ),
  );
  cache.clear();
  return elapsed;
}

/** Components, each timed in this process on the same input, round-robin in one loop with the real call. */
async function breakdown(
  server: StdioClient,
  cases: Array<[BenchDocument, Operation]>,
): Promise<BreakdownCase[]> {
  const echo = new StdioClient(process.execPath, ['-e', ECHO_SOURCE]);
  const worker = new HandoffWorker();
  const results: BreakdownCase[] = [];
  const encoder = new TextEncoder();
  try {
    for (const [doc, op] of cases) {
      const first = resultOf(await server.call(fresh(doc, op).prepared), `${op.name} ${doc.label}`);
      const reply = { jsonrpc: '2.0', id: 1, result: first };
      const replyBytes = Buffer.byteLength(JSON.stringify(reply));
      await worker.setResult(op === FORMAT ? op.local(doc) : first.structuredContent);
      // The echo answers with a line as long as the server's reply.
      echo.writeLine(JSON.stringify({ replyBytes }));
      type Input = Fresh & { line: Buffer; utf8: Uint8Array; unknown: Buffer };
      const input = (): Input => {
        const x = fresh(doc, op);
        const line = Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,'), x.prepared]);
        // The same line with a tool name the server does not have: it is read, decoded, parsed and
        // dispatched by the SDK, then answered "unknown tool" with no argument check and no engine.
        const unknown = preparedParams('tools/call', { name: UNKNOWN_TOOL, arguments: op.args(x.doc) });
        return { ...x, line, utf8: encoder.encode(x.doc.xml), unknown };
      };
      const components: Array<[string, 'server' | 'both' | 'reference', Side<Input>]> = [
        [SERVER_CALL, 'reference', async (x) => (await server.call(x.prepared)).ms],
        [LOCAL_CALL, 'reference', (x) => timeLocal(() => op.local(x.doc))],
        [UNKNOWN_CALL, 'reference', async (x) => (await server.call(x.unknown)).ms],
        [ECHO_FLOOR, 'server', async (x) => (await echo.call(x.prepared)).ms],
        [
          'request: the line read (from 16 KiB: documents lifted out as bytes)',
          'server',
          (x) =>
            warmThenTime(() =>
              x.line.length >= LIFT_DOCUMENTS_FROM_BYTES
                ? parseLineLiftingDocuments(x.line)
                : JSON.parse(x.line.toString('utf8')),
            ),
        ],
        [
          '(for comparison) the line as a string: UTF-8 decode + JSON.parse',
          'reference',
          (x) => warmThenTime(() => JSON.parse(x.line.toString('utf8'))),
        ],
        ...(op.tool === 'xml_query' || op.tool === 'xml_inspect'
          ? [
              [
                'parse-cache lookup that hits (fingerprint + whole-text compare)',
                'server',
                (x: Input) => cacheHit(x.utf8),
              ] as [string, 'server', Side<Input>],
            ]
          : []),
        [
          'worker hand-off round trip, document transferred as bytes',
          'server',
          (x) => worker.roundTrip(encoder.encode(x.doc.xml)),
        ],
        [
          '(for comparison) worker hand-off, document cloned as string',
          'reference',
          (x) => worker.roundTrip(x.doc.xml),
        ],
        ['reply: JSON.stringify', 'server', () => timeLocal(() => JSON.stringify(reply))],
        [
          'UTF-8 encode of the document (TextEncoder)',
          'both',
          (x) => timeLocal(() => encoder.encode(x.doc.xml)),
        ],
        ['lone-surrogate check (isWellFormed)', 'both', (x) => timeLocal(() => x.doc.xml.isWellFormed())],
        [
          'libxml2 parse alone (parseDocument + dispose)',
          'both',
          (x) => timeLocal(() => parseDocument(x.utf8, 'query').dispose()),
        ],
      ];
      const samples = await paired(
        `breakdown ${op.name}`,
        doc.label,
        input,
        components.map(([, , side]) => side),
      );
      results.push({
        size: doc.label,
        operation: op.name,
        replyBytes,
        components: components.map(([name, path], i) => ({
          name,
          path,
          samples: samples[i] ?? [],
          median: median(samples[i] ?? []),
        })),
      });
    }
  } finally {
    await echo.close();
    await worker.close();
  }
  return results;
}

// ---------------------------------------------------------------------------------------------
// Report

function machine(): Record<string, string | number> {
  const cpus = os.cpus();
  const version = (file: string) => {
    try {
      return (JSON.parse(readFileSync(new URL(file, import.meta.url), 'utf8')) as { version: string })
        .version;
    } catch {
      return 'unknown';
    }
  };
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src', 'package.json'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    if (dirty.trim() !== '') commit += ' (with uncommitted changes in src/ or package.json)';
  } catch {}
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memory: `${Math.round(os.totalmem() / 1024 ** 3)} GiB`,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    'load average at start (1 min)': os.loadavg()[0]?.toFixed(2) ?? 'unknown',
    'libxml2-wasm': version('../node_modules/libxml2-wasm/package.json'),
    '@modelcontextprotocol/server': version('../node_modules/@modelcontextprotocol/server/package.json'),
    commit,
  };
}

const pct = (value: number) => `${value >= 1 ? '+' : ''}${((value - 1) * 100).toFixed(0)}%`;

function pairTable(rows: OperationRow[], serverName: string): string {
  return table(
    [
      'size',
      'operation',
      'n',
      `${serverName} median`,
      `${serverName} p90`,
      'in-process median',
      'in-process p90',
      'ratio',
      'Δ median',
      'note',
    ],
    rows.map((row) => [
      row.size,
      row.operation,
      ...pairedCells(row.stats),
      [row.note, row.agrees ? '' : 'ANSWERS DIFFER'].filter(Boolean).join('; '),
    ]),
  );
}

interface Target {
  target: string;
  measured: string;
  met: boolean;
}

function targets(
  stdio: OperationRow[],
  repeated: RepeatedResult,
  lxml: Awaited<ReturnType<typeof versusLxml>>,
): Target[] {
  const list: Target[] = [];
  for (const size of ['200 KB', '8 MiB']) {
    const rows = stdio.filter((row) => row.size === size);
    const met = rows.filter((row) => row.stats.ratio <= 1.1).length;
    const worst = rows.reduce((a, b) => (b.stats.ratio > a.stats.ratio ? b : a));
    const count = rows.find((row) => row.operation === COUNT.name);
    list.push({
      target: `stdio ≤ 1.10× in-process at ${size}`,
      measured: `count ${ratio(count?.stats.ratio ?? Number.NaN)}; ${met}/${rows.length} operations within; worst ${worst.operation} ${ratio(worst.stats.ratio)}`,
      met: met === rows.length,
    });
  }
  const small = stdio.filter((row) => row.size === '1 KB');
  const metSmall = small.filter((row) => row.stats.deltaMs <= 0.15).length;
  const worstSmall = small.reduce((a, b) => (b.stats.deltaMs > a.stats.deltaMs ? b : a));
  const countSmall = small.find((row) => row.operation === COUNT.name);
  list.push({
    target: 'stdio adds ≤ 0.15 ms at 1 KB',
    measured: `count ${signedMs(countSmall?.stats.deltaMs ?? Number.NaN)} ms; ${metSmall}/${small.length} operations within; worst ${worstSmall.operation} ${signedMs(worstSmall.stats.deltaMs)} ms`,
    met: metSmall === small.length,
  });
  if ('rows' in lxml) {
    for (const size of ['2 MB', '8 MiB']) {
      const row = lxml.rows.find((r) => r.size === size && r.operation === COUNT.name);
      if (!row) continue;
      list.push({
        target: `count(//record) ≤ 1.5× lxml at ${size}`,
        measured: `${ratio(row.first.ratio)} (${ms(row.first.a.median)} vs ${ms(row.first.b.median)} ms)`,
        met: row.first.ratio <= 1.5,
      });
    }
  } else {
    list.push({ target: 'count(//record) ≤ 1.5× lxml', measured: `skipped: ${lxml.skipped}`, met: false });
  }
  const first = median(repeated.calls[0] ?? []);
  const later = median(repeated.calls.slice(1).flat());
  list.push({
    target: 'repeated 8 MiB query ≥ 3× faster than the first',
    measured: `${ratio(first / later)} (first ${ms(first)} ms, repeats ${ms(later)} ms)`,
    met: first / later >= 3,
  });
  return list;
}

/** Issue 14's targets, from the comparison with lxml. */
function issue14Targets(lxml: LxmlComparison): Target[] {
  const list: Target[] = [];
  const single = lxml.throughput.find((t) => t.inFlight === 1);
  const cpu = median(single?.oxml.cpuUs ?? []);
  list.push({
    target: 'server CPU per 1 KB call ≤ 100 µs',
    measured: `${cpu.toFixed(0)} µs (lxml ${median(single?.lxml.cpuUs ?? []).toFixed(0)} µs)`,
    met: cpu <= 100,
  });
  const firstAnswer = median(lxml.starts.oxml.map((s) => s.firstAnswerMs));
  list.push({
    target: 'spawn → first answer ≤ 200 ms (stdio)',
    measured: `${ms(firstAnswer)} ms (lxml ${ms(median(lxml.starts.lxml.map((s) => s.firstAnswerMs)))} ms)`,
    met: firstAnswer <= 200,
  });
  const idle = median(lxml.starts.oxml.flatMap((s) => (s.idleMiB === undefined ? [] : [s.idleMiB])));
  list.push({ target: 'RSS idle ≤ 60 MiB', measured: `${idle.toFixed(0)} MiB`, met: idle <= 60 });
  for (const op of ['inspect', FORMAT.name]) {
    const rows = lxml.rows.filter((r) => r.operation === op && (r.size === '2 MB' || r.size === '8 MiB'));
    list.push({
      target: `${op.replace(' indent 2', '')} ≤ 1.3× lxml at 2 MB and 8 MiB (first call)`,
      measured: rows.map((r) => `${r.size} ${ratio(r.first.ratio)}`).join(', '),
      met: rows.length > 0 && rows.every((r) => r.first.ratio <= 1.3),
    });
  }
  return list;
}

/** ours ÷ lxml for every (size, operation), first call and repeat; then throughput, start-up and memory. */
function lxmlTables(lxml: LxmlComparison): string {
  const out: string[] = [];
  out.push(
    table(
      [
        'size',
        'operation',
        'n',
        'first: oxml',
        'first: lxml',
        '**first: ours ÷ lxml**',
        'repeat: oxml',
        'repeat: lxml',
        '**repeat: ours ÷ lxml**',
        'answers',
      ],
      lxml.rows.map((row) => [
        row.size,
        row.operation,
        String(row.first.n),
        ms(row.first.a.median),
        ms(row.first.b.median),
        `**${ratio(row.first.ratio)}**`,
        ms(row.repeat.a.median),
        ms(row.repeat.b.median),
        `**${ratio(row.repeat.ratio)}**`,
        row.agreement,
      ]),
    ),
  );
  out.push('');
  out.push(
    `1 KB \`count(//record)\` calls, each on a new document, ${THROUGHPUT_CALLS.toLocaleString('en')} per block, ${THROUGHPUT_ROUNDS} blocks per server alternating; server CPU is all its threads (/proc), per call:`,
  );
  out.push('');
  out.push(
    table(
      [
        'in flight',
        'oxml calls/s',
        'lxml calls/s',
        'ours ÷ lxml',
        'oxml CPU µs/call',
        'lxml CPU µs/call',
        'ours ÷ lxml',
      ],
      lxml.throughput.map((t) => {
        const [a, b, ca, cb] = [
          median(t.oxml.perSecond),
          median(t.lxml.perSecond),
          median(t.oxml.cpuUs),
          median(t.lxml.cpuUs),
        ];
        return [
          String(t.inFlight),
          a.toFixed(0),
          b.toFixed(0),
          ratio(a / b),
          ca.toFixed(0),
          cb.toFixed(0),
          ratio(ca / cb),
        ];
      }),
    ),
  );
  out.push('');
  const { oxml, lxml: theirs } = lxml.starts;
  const pick = (starts: Start[], key: keyof Start) =>
    median(starts.flatMap((s) => (s[key] === undefined ? [] : [s[key] as number])));
  const perPair = (key: keyof Start) =>
    median(
      oxml.flatMap((s, i) => {
        const other = theirs[i]?.[key];
        return s[key] === undefined || other === undefined ? [] : [(s[key] as number) / other];
      }),
    );
  const memoryPairs = oxml.filter((s) => s.idleMiB !== undefined).length;
  out.push(
    `Fresh processes, ${oxml.length} of each, started alternately (A B, B A); memory read in ${memoryPairs} of them. Ratio: the median of the per-pair ratios.`,
  );
  out.push('');
  const line = (label: string, key: keyof Start, unit: string, format: (v: number) => string) => [
    label,
    `${format(pick(oxml, key))} ${unit}`,
    `${format(pick(theirs, key))} ${unit}`,
    ratio(perPair(key)),
  ];
  const mib = (v: number) => v.toFixed(0);
  out.push(
    table(
      ['measure (median)', 'oxml', 'lxml', 'ours ÷ lxml'],
      [
        line('spawn → `initialize` answered', 'initializeMs', 'ms', ms),
        line('spawn → first `tools/call` answered (1 KB count)', 'firstAnswerMs', 'ms', ms),
        line('CPU used by then (all threads)', 'cpuMs', 'ms', ms),
        line('RSS idle (1 s after the first answer)', 'idleMiB', 'MiB', mib),
        line('RSS after one 8 MiB call of each operation', 'after8MiB', 'MiB', mib),
      ],
    ),
  );
  return out.join('\n');
}

function breakdownTable(cases: BreakdownCase[]): string {
  const header = [
    'component (median ms)',
    ...cases.map((c) => `${c.operation.replace(' indent 2', '')} ${c.size}`),
  ];
  const all = cases.flatMap((c) => c.components);
  const names = [...new Set(all.map((component) => component.name))];
  const label = { server: ' (server only)', both: ' (both sides)', reference: '' };
  const value = (c: BreakdownCase, name: string) =>
    c.components.find((component) => component.name === name)?.median;
  const rows = names.map((name) => [
    `${name}${label[all.find((component) => component.name === name)?.path ?? 'reference']}`,
    ...cases.map((c) => ms(value(c, name) ?? Number.NaN)),
  ]);
  const at = (c: BreakdownCase, name: string) => value(c, name) ?? Number.NaN;
  const overhead = (c: BreakdownCase) => at(c, SERVER_CALL) - at(c, LOCAL_CALL);
  const explained = (c: BreakdownCase) =>
    c.components
      .filter((component) => component.path === 'server')
      .reduce((sum, component) => sum + component.median, 0);
  rows.push(['**overhead = server − in-process**', ...cases.map((c) => `**${ms(overhead(c))}**`)]);
  rows.push([
    '… of which stdio, JSON and SDK dispatch (the unknown-tool call)',
    ...cases.map((c) => ms(at(c, UNKNOWN_CALL))),
  ]);
  rows.push([
    '… of which tool layer and worker hop (server − unknown-tool call − in-process)',
    ...cases.map((c) => ms(at(c, SERVER_CALL) - at(c, UNKNOWN_CALL) - at(c, LOCAL_CALL))),
  ]);
  rows.push([
    'sum of the server-only components above (timed in the harness)',
    ...cases.map((c) => ms(explained(c))),
  ]);
  rows.push(['overhead not covered by that sum', ...cases.map((c) => signedMs(overhead(c) - explained(c)))]);
  rows.push(['reply line size', ...cases.map((c) => bytes(c.replyBytes))]);
  return table(header, rows);
}

function workloadSection(rows: WorkloadRow[]): string[] {
  return [
    '## The model workload: `xml_inspect` then three `xml_query` on one document, resending the text vs by handle (stdio, paired)',
    '',
    'Per workload (four calls). Resend: every call carries the text. Handles: the first call carries it, the three queries its handle (`document`). Each round gives each way a document the server has not seen. Bytes: the four request lines the client writes, what a model would generate token by token.',
    '',
    workloadTable(rows),
  ];
}

/** XPath 3.1 against 1.0 on its own server, on the 200 KB, 2 MB and 8 MiB documents. */
function xpath31(docs: BenchDocument[]): ReturnType<typeof xpath31Figures> {
  return xpath31Figures(docs.slice(1), {
    cli: CLI,
    protocol: PROTOCOL,
    collectGarbage,
    log,
    quick: QUICK,
    half: HALF,
  });
}

/** The report of `--xpath31-only`: the machine, then the section; raw samples to bench/results/. */
async function xpath31Only(docs: BenchDocument[], info: Record<string, string | number>): Promise<void> {
  const started = performance.now();
  const figures = await xpath31(docs);
  const minutes = (performance.now() - started) / 60_000;
  info['load average at end (1 min)'] = os.loadavg()[0]?.toFixed(2) ?? 'unknown';
  const out = [
    `# oxml-mcp benchmark: XPath 3.1 (--xpath31-only${QUICK ? ', --quick: too few iterations to quote' : ''}${HALF ? ', --half' : ''})`,
    '',
    `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC · ${info.cpu} · ${info.cores} cores · ${info.memory} · ${info.os} · Node ${info.node} · libxml2-wasm ${info['libxml2-wasm']} · commit ${info.commit} · run took ${minutes.toFixed(1)} min · load average ${info['load average at start (1 min)']} at start, ${info['load average at end (1 min)']} at end`,
    '',
    ...xpath31Section(figures),
  ];
  process.stdout.write(`${out.join('\n')}\n`);
  const dir = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  const file = `${dir}bench-xpath31-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  writeFileSync(
    file,
    `${JSON.stringify({ machine: info, quick: QUICK, minutes, xpath31: figures }, null, 1)}\n`,
  );
  log(`raw samples written to ${file}`);
}

async function main(): Promise<void> {
  const started = performance.now();
  const info = machine();
  log(`generating documents`);
  const docs = SIZES.map((size) => generateDocument(size));
  const [tiny, medium, twoMb, large] = docs as [BenchDocument, BenchDocument, BenchDocument, BenchDocument];
  if (XPATH31_ONLY) return xpath31Only(docs, info);

  const spawned = performance.now();
  const server = new StdioClient(process.execPath, [CLI]);
  let stdio: OperationRow[] = [];
  let repeated: RepeatedResult = { rounds: 0, calls: [], local: [] };
  let lxml: Awaited<ReturnType<typeof versusLxml>>;
  let http: OperationRow[] = [];
  let parts: BreakdownCase[] = [];
  let cold: ColdStart;
  let workload: WorkloadRow[];
  let outline: ReturnType<typeof outlineCases> = [];
  let values: ReturnType<typeof valuesCases> = [];
  let native: Awaited<ReturnType<typeof versusNative>> | undefined;
  let figures31: Awaited<ReturnType<typeof xpath31Figures>> | undefined;
  try {
    const init = await initializeStdio(server, PROTOCOL);
    if (!('result' in init.reply))
      throw new Error(`initialize failed: ${JSON.stringify(init.reply)} ${server.stderr}`);
    const startMs = performance.now() - spawned;
    cold = { startMs, samples: await warmUp((prepared) => server.call(prepared), tiny) };
    log(`stdio server warmed up: first call ${ms(cold.samples[0] ?? Number.NaN)} ms`);
    const againstC = () =>
      versusNative(server, [twoMb, large], {
        engine: { inspect, formatToBytes },
        collectGarbage,
        log,
        blocks: (size) => Math.ceil(plan(size).iterations / 2),
      });
    if (NATIVE_ONLY) {
      process.stdout.write(`${nativeSection(await againstC()).join('\n')}\n`);
      return;
    }
    workload = await modelWorkload(server, [medium, twoMb], { collectGarbage, log, plan });
    if (WORKLOAD_ONLY) {
      process.stdout.write(`${workloadSection(workload).join('\n')}\n`);
      return;
    }
    if (!LXML_ONLY) {
      stdio = await stdioVersusInProcess(server, docs);
      repeated = await repeatedQuery(server, large);
    }
    lxml = await versusLxml(server, docs);
    native = await againstC();
    if (!LXML_ONLY) {
      http = await httpVersusInProcess(docs);
      parts = await breakdown(server, [
        [tiny, COUNT],
        [medium, COUNT],
        [large, COUNT],
        [medium, FORMAT],
        [large, FORMAT],
      ]);
      log('xml_inspect: the outline against the inspect before it');
      outline = outlineCases([twoMb, large], QUICK, collectGarbage);
      log('xml_inspect: with values against without');
      values = valuesCases([twoMb, large], QUICK, collectGarbage);
    }
  } finally {
    await server.close();
  }
  if (!LXML_ONLY) figures31 = await xpath31(docs);
  const minutes = (performance.now() - started) / 60_000;
  info['load average at end (1 min)'] = os.loadavg()[0]?.toFixed(2) ?? 'unknown';

  const out: string[] = [];
  const flags = [
    QUICK ? '--quick: too few iterations to quote' : '',
    LXML_ONLY ? '--lxml-only' : '',
    HALF ? '--half' : '',
  ]
    .filter(Boolean)
    .join(', ');
  out.push(`# oxml-mcp benchmark${flags === '' ? '' : ` (${flags})`}`);
  out.push('');
  out.push(
    `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC · ${info.cpu} · ${info.cores} cores · ${info.memory} · ${info.os} · Node ${info.node} · libxml2-wasm ${info['libxml2-wasm']} · @modelcontextprotocol/server ${info['@modelcontextprotocol/server']} · commit ${info.commit} · run took ${minutes.toFixed(1)} min · load average ${info['load average at start (1 min)']} at start, ${info['load average at end (1 min)']} at end`,
  );
  out.push('');
  out.push(
    `Documents: ${docs.map((d) => `${d.label} = ${d.bytes.toLocaleString('en')} bytes, ${d.records.toLocaleString('en')} records`).join('; ')}.`,
  );
  out.push(
    `Iterations (after warm-up): ${Object.keys(PLAN)
      .map((size) => `${size} ${plan(size).iterations}`)
      .join(
        ', ',
      )}, each after ${WARMUP_CALLS.toLocaleString('en')} warm-up calls per server process. Every timed call sends a document the server has not seen (its parse cache cannot answer it) unless said otherwise. Times in ms, per call; ratio = server median / in-process median; Δ = the difference of the medians.`,
  );
  out.push('');
  if (!LXML_ONLY) {
    out.push('## stdio `tools/call` vs the same engine call in process (paired A B A B)');
    out.push('');
    out.push(pairTable(stdio, 'stdio'));
    out.push('');
    out.push(
      `## A fresh stdio server: its first ${WARMUP_CALLS.toLocaleString('en')} calls (\`count(//record)\`, a new 1 KB document each)`,
    );
    out.push('');
    out.push(
      table(
        ['calls', 'n', 'median', 'p90'],
        [
          ['spawn → `initialize` answered', '1', ms(cold.startMs), '–'],
          ...COLD_BUCKETS.filter(([from]) => from <= cold.samples.length).map(([from, to]) => {
            const slice = cold.samples.slice(from - 1, to);
            const last = from + slice.length - 1;
            const label = from === to ? `call ${from} (starts the engine worker)` : `calls ${from}–${last}`;
            return [label, String(slice.length), ms(median(slice)), ms(p90(slice))];
          }),
        ],
      ),
    );
    out.push('');
    out.push('## `xml_inspect`: the outline against the inspect before it (in process, paired on one parse)');
    out.push('');
    out.push(
      "Each iteration parses once, then runs the inspect before the outline (names and counts only, `bench/inspect-before.ts`) and today's on that tree, alternating which goes first. Ratio (walk) = today's median / before's; ratio (parse + walk) = the same for the whole engine call.",
    );
    out.push('');
    out.push(outlineTable(outline));
    out.push('');
    out.push('## `xml_inspect`: with values against names and counts only (in process, paired on one parse)');
    out.push('');
    out.push(
      "Each iteration parses once, then runs inspect with `values: false` and today's (every attribute value and leaf text read into its profile, ADR 0037) on that tree, alternating which goes first. Ratio = with values / without.",
    );
    out.push('');
    out.push(valuesTable(values));
    out.push('');
    out.push('## Streamable HTTP (2025 session, one keep-alive connection) vs in process (paired)');
    out.push('');
    out.push(pairTable(http, 'HTTP'));
    out.push('');
    out.push(`## The same 8 MiB document queried ${REPEATS} times in a row (\`count(//record)\`, stdio)`);
    out.push('');
    const first = median(repeated.calls[0] ?? []);
    out.push(
      table(
        ['call', 'n', 'median', 'p90', 'vs first call'],
        [
          ...repeated.calls.map((samples, k) => [
            k === 0
              ? '1st (new document)'
              : `${k + 1}${k === 1 ? 'nd' : k === 2 ? 'rd' : 'th'} (same document)`,
            String(samples.length),
            ms(median(samples)),
            ms(p90(samples)),
            k === 0 ? '–' : `${ratio(median(samples) / first)} (${pct(median(samples) / first)})`,
          ]),
          [
            'in-process query() on the same document',
            String(repeated.local.length),
            ms(median(repeated.local)),
            ms(p90(repeated.local)),
            ratio(median(repeated.local) / first),
          ],
        ],
      ),
    );
    out.push('');
  }
  out.push(...workloadSection(workload));
  out.push('');
  out.push('## Against native libxml2: a minimal stdio server on Python lxml (paired A B A B)');
  out.push('');
  if ('rows' in lxml) {
    out.push(
      `lxml ${lxml.versions.version} on libxml2 ${lxml.versions.libxml2}, Python ${lxml.versions.python} (bench/lxml_server.py). Times in ms, medians; "first" sends a document new to both servers, "repeat" the same document again at once (our parse cache answers query and inspect; lxml has none). "answers": the two servers' answers compared before timing.`,
    );
    out.push('');
    out.push(lxmlTables(lxml));
  } else {
    out.push(`Skipped: ${lxml.skipped}.`);
  }
  out.push('');
  if (native) {
    out.push(...nativeSection(native));
    out.push('');
  }
  if (figures31) {
    out.push(...xpath31Section(figures31));
    out.push('');
  }
  const checked = LXML_ONLY ? [] : targets(stdio, repeated, lxml);
  if (!LXML_ONLY) {
    out.push('## Where the time goes (components timed round-robin in one loop with the real call)');
    out.push('');
    out.push(breakdownTable(parts));
    out.push('');
    out.push('## Issue 5 targets, as measured in this run');
    out.push('');
    out.push(
      table(
        ['target', 'measured', 'met'],
        checked.map((t) => [t.target, t.measured, t.met ? 'yes' : 'no']),
      ),
    );
  }
  if ('rows' in lxml) {
    out.push('');
    out.push('## Issue 14 targets, as measured in this run');
    out.push('');
    out.push(
      table(
        ['target', 'measured', 'met'],
        issue14Targets(lxml).map((t) => [t.target, t.measured, t.met ? 'yes' : 'no']),
      ),
    );
  }
  const report = out.join('\n');
  process.stdout.write(`${report}\n`);

  const dir = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  const file = `${dir}bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        machine: info,
        quick: QUICK,
        minutes,
        plan: Object.fromEntries(Object.keys(PLAN).map((size) => [size, plan(size)])),
        documents: docs.map((d) => ({ label: d.label, bytes: d.bytes, records: d.records })),
        cold,
        stdio,
        http,
        repeated,
        workload,
        lxml,
        native,
        breakdown: parts,
        xpath31: figures31,
        targets: checked,
      },
      null,
      1,
    )}\n`,
  );
  log(`raw samples written to ${file}`);
}

await main();
