/**
 * XPath 3.1 against XPath 1.0 through the built server (issue 22, item 4): `xml_query` answers
 * what XPath 1.0 cannot read with fontoxpath over the same parsed document (ADR 0033, 0034).
 *
 * Measured on a stdio server of its own (fresh, warmed with 3.1 and 1.0 calls first), every
 * query naming a document the server holds (its `document` handle, so the worker's parse cache
 * answers and no timed call parses):
 *   (a) repeat calls: the same question in XPath 1.0 and in an XPath 3.1 form that routes to 3.1
 *       (its answer carries `xpath_version: '3.1'`), paired A B, B A …, the view already built;
 *   (b) the first XPath 3.1 call on a held document (it builds the view: a wrapper per node
 *       fontoxpath reaches and the document-order index) against the same call repeated, paired,
 *       a new document each iteration;
 *   (c) memory: the server's RSS with a held 8 MiB document before and after its first 3.1 call
 *       (fresh processes), and the JavaScript heap the view takes, in process, from a bundle of
 *       the engine run by plain Node (bench/xpath31-memory-run.ts; tsx would slow fontoxpath).
 */
import { execFileSync } from 'node:child_process';
import { bundle } from './bundle.js';
import { initializeStdio, preparedParams, rssMiB, StdioClient, type Timed } from './clients.js';
import { type BenchDocument, withVariant } from './documents.js';
import { median, ms, p90, ratio, signedMs, table } from './stats.js';

export interface Xpath31Environment {
  cli: string;
  protocol: string;
  collectGarbage: () => void;
  log: (message: string) => void;
  quick: boolean;
  half: boolean;
}

/** One question asked both ways. */
interface Question {
  name: string;
  xpath10: string;
  xpath31: string;
}

export const QUESTIONS: Question[] = [
  {
    name: 'count with a predicate',
    xpath10: 'count(//record[price > 50])',
    // The same path; the arrow is XPath 3.1 only, so libxml2 refuses it and fontoxpath answers.
    xpath31: 'count(//record[price > 50]) => xs:integer()',
  },
  {
    name: 'sum over computed values',
    xpath10: 'sum(//record/price)',
    xpath31: 'sum(//record ! number(price))',
  },
  {
    name: 'sum over a path (document order)',
    xpath10: 'sum(//record/price)',
    // `//record/price` is sorted into document order: the view's order index is asked.
    xpath31: 'sum(//record/price) => xs:double()',
  },
];

/** The first-call measurement and the memory use this one: it builds wrappers and the order index. */
const FIRST_CALL = QUESTIONS[2] as Question;

/** Warm-up and measured iterations per size: (a) pairs of every question, (b) new documents. */
const PLAN: Record<string, { warmup: number; repeat: number; first: number }> = {
  '200 KB': { warmup: 5, repeat: 40, first: 20 },
  '2 MB': { warmup: 2, repeat: 16, first: 10 },
  '8 MiB': { warmup: 1, repeat: 8, first: 6 },
};
/** 3.1 and 1.0 calls on a 200 KB document before anything is timed (fontoxpath's code gets hot). */
const WARMUP_ROUNDS = 20;
/** Fresh servers whose RSS is read around the first 3.1 call on a held 8 MiB document. */
const MEMORY_STARTS = 3;

function plan(env: Xpath31Environment, size: string): { warmup: number; repeat: number; first: number } {
  const planned = PLAN[size] ?? { warmup: 1, repeat: 6, first: 4 };
  const scale = (n: number) => Math.max(3, Math.ceil(env.quick ? n / 8 : env.half ? n / 2 : n));
  return {
    warmup: env.quick ? 1 : planned.warmup,
    repeat: scale(planned.repeat),
    first: scale(planned.first),
  };
}

interface Paired {
  n: number;
  a: number[];
  b: number[];
}

export interface RepeatRow extends Paired {
  size: string;
  question: Question;
  /** 1.0 and 3.1 answers, checked before timing (same number). */
  answers: [string, string];
}

export interface FirstRow extends Paired {
  size: string;
  xpath: string;
}

export interface ServerMemory {
  /** RSS of the whole server (main thread and workers), MiB, 1 s after each step. */
  held: number;
  afterFirst: number;
  afterRepeats: number;
  firstMs: number;
}

export interface InProcessMemory {
  size: string;
  xpath10: string;
  xpath31: string;
  answer: string;
  firstMs: number;
  repeat31Ms: number[];
  repeat10Ms: number[];
  before: { heapMiB: number; rssMiB: number; wasmMiB: number };
  justAfter: { heapMiB: number; rssMiB: number; wasmMiB: number };
  after: { heapMiB: number; rssMiB: number; wasmMiB: number };
  afterRepeats: { heapMiB: number; rssMiB: number; wasmMiB: number };
  wrappers: number;
  orderedNodes: number;
  orderBytes: number;
}

export interface Xpath31Figures {
  plan: Record<string, { warmup: number; repeat: number; first: number }>;
  repeat: RepeatRow[];
  first: FirstRow[];
  memory: { server: ServerMemory[]; inProcess: InProcessMemory | { skipped: string } };
}

let variants = 2_000_000;

const queryCall = (args: Record<string, unknown>) =>
  preparedParams('tools/call', { name: 'xml_query', arguments: args });

/** The answer's structured content; a failed call is fatal to the run. */
function answered(timed: Timed, what: string): Record<string, unknown> {
  const result = timed.reply.result as Record<string, unknown> | undefined;
  if (!result || result.isError === true || !Number.isFinite(timed.ms)) {
    throw new Error(`xpath31 ${what}: ${JSON.stringify(timed.reply).slice(0, 500)}`);
  }
  return (result.structuredContent ?? {}) as Record<string, unknown>;
}

/** Sends a document the server has not seen with an XPath 1.0 question; resolves with its handle. */
async function hold(server: StdioClient, base: BenchDocument): Promise<string> {
  const doc = withVariant(base, ++variants);
  const answer = answered(await server.call(queryCall({ xml: doc.xml, xpath: 'count(//record)' })), 'hold');
  if (typeof answer.document !== 'string') throw new Error('xpath31: xml_query gave no document handle');
  return answer.document;
}

/** Asks the held document; checks which language answered. */
async function ask(
  server: StdioClient,
  document: string,
  xpath: string,
  version: '1.0' | '3.1',
): Promise<{ ms: number; value: string }> {
  const timed = await server.call(queryCall({ document, xpath }));
  const answer = answered(timed, xpath);
  const routed = answer.xpath_version === '3.1' ? '3.1' : '1.0';
  if (routed !== version)
    throw new Error(`xpath31: ${xpath} was answered as XPath ${routed}, not ${version}`);
  return { ms: timed.ms, value: String((answer.values as unknown[] | undefined)?.[0]) };
}

const sameNumber = (a: string, b: string) =>
  Math.abs(Number(a) - Number(b)) <= 1e-9 * Math.max(1, Math.abs(Number(a)));

async function repeatCalls(
  server: StdioClient,
  docs: BenchDocument[],
  env: Xpath31Environment,
): Promise<RepeatRow[]> {
  const rows: RepeatRow[] = [];
  for (const doc of docs) {
    const { warmup, repeat } = plan(env, doc.label);
    const document = await hold(server, doc);
    const current: RepeatRow[] = [];
    for (const question of QUESTIONS) {
      // Outside the timing: both answers, the view built by the first 3.1 call.
      const one = await ask(server, document, question.xpath10, '1.0');
      const three = await ask(server, document, question.xpath31, '3.1');
      if (!sameNumber(one.value, three.value)) {
        throw new Error(
          `xpath31: ${question.name} at ${doc.label}: ${one.value} (1.0) vs ${three.value} (3.1)`,
        );
      }
      current.push({
        size: doc.label,
        question,
        answers: [one.value, three.value],
        n: 0,
        a: [],
        b: [],
      });
    }
    for (let i = 0; i < warmup + repeat; i++) {
      for (const row of current) {
        // A B, then B A: the garbage one side leaves in the worker lands in the other as often.
        const sides = [
          ['1.0', row.question.xpath10, row.a],
          ['3.1', row.question.xpath31, row.b],
        ] as const;
        for (const [version, xpath, samples] of i % 2 === 0 ? sides : [sides[1], sides[0]]) {
          env.collectGarbage();
          const { ms: time } = await ask(server, document, xpath, version);
          if (i >= warmup) samples.push(time);
        }
      }
    }
    for (const row of current) {
      row.n = row.a.length;
      env.log(
        `xpath31 repeat ${row.question.name} (${doc.label}): 1.0 ${ms(median(row.a))} / 3.1 ${ms(median(row.b))} ms`,
      );
    }
    rows.push(...current);
  }
  return rows;
}

async function firstCalls(
  server: StdioClient,
  docs: BenchDocument[],
  env: Xpath31Environment,
): Promise<FirstRow[]> {
  const rows: FirstRow[] = [];
  for (const doc of docs) {
    const { warmup, first } = plan(env, doc.label);
    const row: FirstRow = { size: doc.label, xpath: FIRST_CALL.xpath31, n: 0, a: [], b: [] };
    for (let i = 0; i < warmup + first; i++) {
      const document = await hold(server, doc);
      env.collectGarbage();
      const cold = await ask(server, document, FIRST_CALL.xpath31, '3.1');
      env.collectGarbage();
      const warm = await ask(server, document, FIRST_CALL.xpath31, '3.1');
      if (i < warmup) continue;
      row.a.push(cold.ms);
      row.b.push(warm.ms);
    }
    row.n = row.a.length;
    env.log(`xpath31 first vs repeat (${doc.label}): ${ms(median(row.a))} / ${ms(median(row.b))} ms`);
    rows.push(row);
  }
  return rows;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A fresh server holding the 8 MiB document: its RSS before and after its first 3.1 call. */
async function serverMemory(large: BenchDocument, env: Xpath31Environment): Promise<ServerMemory> {
  const server = new StdioClient(process.execPath, [env.cli]);
  try {
    const init = await initializeStdio(server, env.protocol);
    if (!('result' in init.reply)) throw new Error(`initialize failed: ${JSON.stringify(init.reply)}`);
    const document = await hold(server, large);
    await pause(1_000);
    const held = rssMiB(server.pid);
    const first = await ask(server, document, FIRST_CALL.xpath31, '3.1');
    await pause(1_000);
    const afterFirst = rssMiB(server.pid);
    for (let i = 0; i < 3; i++) await ask(server, document, FIRST_CALL.xpath31, '3.1');
    await pause(1_000);
    return { held, afterFirst, afterRepeats: rssMiB(server.pid), firstMs: first.ms };
  } finally {
    await server.close();
  }
}

/** The view's heap, in process, from a bundle run by plain Node with --expose-gc. */
async function inProcessMemory(
  large: BenchDocument,
  env: Xpath31Environment,
): Promise<InProcessMemory | { skipped: string }> {
  try {
    const entry = await bundle('bench/xpath31-memory-run.ts', 'oxml-bench-xpath31-figures');
    const repeats = env.quick ? '2' : '5';
    const out = execFileSync(
      process.execPath,
      ['--expose-gc', entry, large.label, FIRST_CALL.xpath10, FIRST_CALL.xpath31, repeats],
      // libxml2 prints its compile error for the 3.1 form to stderr before fontoxpath answers.
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 1024 * 1024 },
    );
    return JSON.parse(out.trim().split('\n').at(-1) as string) as InProcessMemory;
  } catch (error) {
    return { skipped: error instanceof Error ? error.message.slice(0, 300) : String(error) };
  }
}

/** Every figure, on the 200 KB, 2 MB and 8 MiB documents (the last one is the large one). */
export async function xpath31Figures(
  docs: BenchDocument[],
  env: Xpath31Environment,
): Promise<Xpath31Figures> {
  const large = docs[docs.length - 1] as BenchDocument;
  const server = new StdioClient(process.execPath, [env.cli]);
  let repeat: RepeatRow[];
  let first: FirstRow[];
  try {
    const init = await initializeStdio(server, env.protocol);
    if (!('result' in init.reply)) throw new Error(`initialize failed: ${JSON.stringify(init.reply)}`);
    const warm = await hold(server, docs[0] as BenchDocument);
    for (let i = 0; i < (env.quick ? 3 : WARMUP_ROUNDS); i++) {
      for (const question of QUESTIONS) {
        await ask(server, warm, question.xpath10, '1.0');
        await ask(server, warm, question.xpath31, '3.1');
      }
    }
    env.log('xpath31: server warmed up');
    repeat = await repeatCalls(server, docs, env);
    first = await firstCalls(server, docs, env);
  } finally {
    await server.close();
  }
  const serverRss: ServerMemory[] = [];
  for (let i = 0; i < (env.quick ? 1 : MEMORY_STARTS); i++) serverRss.push(await serverMemory(large, env));
  env.log(
    `xpath31 memory: RSS ${serverRss.map((m) => `${m.held.toFixed(0)} → ${m.afterFirst.toFixed(0)}`).join(', ')} MiB`,
  );
  const inProcess = await inProcessMemory(large, env);
  return {
    plan: Object.fromEntries(docs.map((d) => [d.label, plan(env, d.label)])),
    repeat,
    first,
    memory: { server: serverRss, inProcess },
  };
}

function pairCells({ n, a, b }: Paired): string[] {
  return [
    String(n),
    ms(median(a)),
    ms(p90(a)),
    ms(median(b)),
    ms(p90(b)),
    `**${ratio(median(b) / median(a))}**`,
    signedMs(median(b) - median(a)),
  ];
}

const mib = (value: number) => `${value.toFixed(0)} MiB`;

/** The report's section. */
export function xpath31Section(figures: Xpath31Figures): string[] {
  const out: string[] = [];
  out.push('## XPath 3.1 against XPath 1.0 (issue 22 item 4; stdio, by document handle)');
  out.push('');
  out.push(
    `A stdio server of its own, warmed with ${WARMUP_ROUNDS} rounds of every 3.1 and 1.0 question on a 200 KB document. Every query names a document the server holds (\`document\`), so no timed call parses. Iterations (after warm-up): ${Object.entries(
      figures.plan,
    )
      .map(([size, p]) => `${size} ${p.repeat} repeat pairs, ${p.first} first-call pairs`)
      .join('; ')}. Times in ms, wall time per call as the client sees it.`,
  );
  out.push('');
  out.push(
    '**Repeat calls** (the view already built), paired A B, B A …; every 3.1 answer carried `xpath_version: 3.1` and the same number as 1.0 (checked before timing):',
  );
  out.push('');
  out.push(
    table(
      [
        'size',
        'question',
        'XPath 1.0',
        'XPath 3.1',
        'n',
        '1.0 median',
        'p90',
        '3.1 median',
        'p90',
        '3.1 ÷ 1.0',
        'Δ',
      ],
      figures.repeat.map((row) => [
        row.size,
        row.question.name,
        `\`${row.question.xpath10}\``,
        `\`${row.question.xpath31}\``,
        ...pairCells(row),
      ]),
    ),
  );
  out.push('');
  out.push(
    '**The first 3.1 call on a held document** (builds the view: node wrappers and the document-order index) against the same call again at once, a new document each iteration (held by a 1.0 call first, untimed):',
  );
  out.push('');
  out.push(
    table(
      [
        'size',
        'expression',
        'n',
        'repeat median',
        'p90',
        'first median',
        'p90',
        'first ÷ repeat',
        'Δ (the view)',
      ],
      figures.first.map((row) => [
        row.size,
        `\`${row.xpath}\``,
        ...pairCells({ n: row.n, a: row.b, b: row.a }),
      ]),
    ),
  );
  out.push('');
  const server = figures.memory.server;
  const pick = (key: keyof ServerMemory) => median(server.map((m) => m[key]));
  out.push(`**Memory of a held 8 MiB document and its 3.1 view** (\`${FIRST_CALL.xpath31}\`):`);
  out.push('');
  const rows: string[][] = [
    [
      `server RSS (all threads), document held, before any 3.1 call (median of ${server.length} fresh servers, 1 s after)`,
      mib(pick('held')),
    ],
    [
      '… 1 s after the first 3.1 call',
      `${mib(pick('afterFirst'))} (+${(pick('afterFirst') - pick('held')).toFixed(0)} MiB)`,
    ],
    ['… after 3 more 3.1 calls', mib(pick('afterRepeats'))],
    ['the first 3.1 call in those servers (not warmed)', `${ms(pick('firstMs'))} ms`],
  ];
  const local = figures.memory.inProcess;
  if ('skipped' in local) {
    rows.push(['in process (bundle)', `skipped: ${local.skipped}`]);
  } else {
    const held = local.after.heapMiB - local.before.heapMiB;
    rows.push(
      [
        'in process (engine bundle, plain Node): JS heap used with the document parsed, collected',
        mib(local.before.heapMiB),
      ],
      ['… just after the first 3.1 call (uncollected)', mib(local.justAfter.heapMiB)],
      ['… after it, collected: the view stays', `${mib(local.after.heapMiB)} (+${held.toFixed(0)} MiB)`],
      ['… after more 3.1 calls, collected', mib(local.afterRepeats.heapMiB)],
      [
        'the view: node wrappers; nodes in the order index, its bytes',
        `${local.wrappers.toLocaleString('en')} wrappers (${((held * 1024 * 1024) / local.wrappers).toFixed(0)} B each, index included); ${local.orderedNodes.toLocaleString('en')} nodes, ${(local.orderBytes / 1024 / 1024).toFixed(1)} MiB`,
      ],
      ['WebAssembly heap (libxml2: the parsed tree), unchanged by the view', mib(local.after.wasmMiB)],
      [
        'process RSS before → after the first 3.1 call',
        `${mib(local.before.rssMiB)} → ${mib(local.after.rssMiB)}`,
      ],
      [
        'in-process times: 1.0 / first 3.1 / repeat 3.1 (medians)',
        `${ms(median(local.repeat10Ms))} / ${ms(local.firstMs)} / ${ms(median(local.repeat31Ms))} ms (3.1 ÷ 1.0 ${ratio(median(local.repeat31Ms) / median(local.repeat10Ms))})`,
      ],
    );
  }
  out.push(table(['measure', 'value'], rows));
  out.push('');
  const large = figures.repeat.filter((row) => row.size === '8 MiB');
  const worst = Math.max(...large.map((row) => median(row.b) / median(row.a)));
  out.push(
    `Issue 22's goal, XPath 3.1 within 2× of XPath 1.0 on a repeat call at 8 MiB: ${large
      .map((row) => `${row.question.name} ${ratio(median(row.b) / median(row.a))}`)
      .join(', ')}: **${worst <= 2 ? 'met' : 'not met'}**.`,
  );
  return out;
}
