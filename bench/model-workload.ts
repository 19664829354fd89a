/**
 * The model workload of issue 13: `xml_inspect` on a document, then three `xml_query` on it,
 * the way a model answers one question. Two ways, paired in one loop (A B, then B A, …) on one
 * stdio server: resending the text in every call, and sending it once and naming it by the
 * handle the first answer gave. Reported: the bytes the client sends (what a model would have
 * to write, token by token) and the wall time of the four calls, with the ratios.
 */
import { preparedParams, type StdioClient, type Timed } from './clients.js';
import { type BenchDocument, withVariant } from './documents.js';
import { bytes, median, ms, p90, ratio, table } from './stats.js';

export interface WorkloadRow {
  size: string;
  n: number;
  resend: { bytes: number; ms: number[] };
  handles: { bytes: number; ms: number[] };
}

const QUESTIONS = (doc: BenchDocument) => [
  'count(//record)',
  `//record[@id='r${Math.ceil((doc.records * 3) / 4)}']/name`,
  "sum(//record[@category='books']/quantity)",
];

interface Environment {
  collectGarbage: () => void;
  log: (message: string) => void;
  /** Warm-up and measured rounds for a document size. */
  plan: (size: string) => { warmup: number; iterations: number };
}

let variants = 1_000_000;

export async function modelWorkload(
  server: StdioClient,
  docs: BenchDocument[],
  env: Environment,
): Promise<WorkloadRow[]> {
  const rows: WorkloadRow[] = [];
  for (const base of docs) {
    const { warmup, iterations } = env.plan(base.label);
    const row: WorkloadRow = {
      size: base.label,
      n: iterations,
      resend: { bytes: 0, ms: [] },
      handles: { bytes: 0, ms: [] },
    };
    for (let i = 0; i < warmup + iterations; i++) {
      // Each way gets a document the server has not seen, so each pays its own first parse.
      const sides = [
        ['resend', () => resending(server, withVariant(base, ++variants), env)],
        ['handles', () => byHandle(server, withVariant(base, ++variants), env)],
      ] as const;
      const order = i % 2 === 0 ? sides : ([sides[1], sides[0]] as const);
      for (const [name, run] of order) {
        env.collectGarbage();
        const { sent, ms } = await run();
        if (i < warmup) continue;
        row[name].bytes = sent;
        row[name].ms.push(ms);
      }
    }
    env.log(
      `model workload (${base.label}): resend ${ms(median(row.resend.ms))} ms, ${bytes(row.resend.bytes)}; handles ${ms(median(row.handles.ms))} ms, ${bytes(row.handles.bytes)}`,
    );
    rows.push(row);
  }
  return rows;
}

interface Run {
  /** Bytes of the four request lines. */
  sent: number;
  /** Wall time of the four calls, one after another. */
  ms: number;
}

async function resending(server: StdioClient, doc: BenchDocument, env: Environment): Promise<Run> {
  const calls = [
    call('xml_inspect', { xml: doc.xml }),
    ...QUESTIONS(doc).map((xpath) => call('xml_query', { xml: doc.xml, xpath })),
  ];
  let total = 0;
  for (const prepared of calls) total += answered(await server.call(prepared), env).ms;
  return { sent: calls.reduce((sum, prepared) => sum + prepared.byteLength, 0), ms: total };
}

async function byHandle(server: StdioClient, doc: BenchDocument, env: Environment): Promise<Run> {
  const first = call('xml_inspect', { xml: doc.xml });
  const inspected = answered(await server.call(first), env);
  const document = (inspected.result.structuredContent as { document?: string } | undefined)?.document;
  if (!document) throw new Error('model workload: xml_inspect gave no document handle');
  let sent = first.byteLength;
  let total = inspected.ms;
  for (const xpath of QUESTIONS(doc)) {
    const prepared = call('xml_query', { document, xpath });
    sent += prepared.byteLength;
    total += answered(await server.call(prepared), env).ms;
  }
  return { sent, ms: total };
}

const call = (name: string, args: Record<string, unknown>) =>
  preparedParams('tools/call', { name, arguments: args });

function answered(timed: Timed, _env: Environment): { ms: number; result: Record<string, unknown> } {
  const result = timed.reply.result as Record<string, unknown> | undefined;
  if (!result || result.isError === true || !Number.isFinite(timed.ms)) {
    throw new Error(`model workload: ${JSON.stringify(timed.reply).slice(0, 500)}`);
  }
  return { ms: timed.ms, result };
}

export function workloadTable(rows: WorkloadRow[]): string {
  return table(
    [
      'document',
      'n',
      'resend: bytes sent',
      'handles: bytes sent',
      'bytes ratio',
      'resend: median',
      'p90',
      'handles: median',
      'p90',
      'time ratio',
    ],
    rows.map((row) => [
      row.size,
      String(row.n),
      row.resend.bytes.toLocaleString('en'),
      row.handles.bytes.toLocaleString('en'),
      ratio(row.handles.bytes / row.resend.bytes),
      ms(median(row.resend.ms)),
      ms(p90(row.resend.ms)),
      ms(median(row.handles.ms)),
      ms(p90(row.handles.ms)),
      ratio(median(row.handles.ms) / median(row.resend.ms)),
    ]),
  );
}
