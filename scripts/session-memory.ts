/**
 * What an idle 2025-era session costs the built server over Streamable HTTP (issue 33, ADR 0047):
 * a fresh server per kind, a baseline after a full garbage collection of every thread, then N
 * sessions opened and left idle (never DELETEd), and the same figures again. Each line gives
 * the growth per session: VmRSS, the main thread's V8 heap, and its array buffers (where held
 * texts live). Kinds:
 *   bare   initialize and notifications/initialized only (what a bare-handshake flood leaves);
 *   call   the same and one xml_query with a distinct ~1 KB document: the session holds that
 *          text for its handle and has a parsed document in a worker's cache;
 *   large  the same with a distinct ~100 KB document.
 *
 *   npm run build && npx tsx scripts/session-memory.ts [--sessions 1000] [--kinds bare,call,large]
 *       [--bin dist/cli.js]
 *
 * The server runs with `MALLOC_MMAP_THRESHOLD_=1048576` (README) and `--inspect=127.0.0.1:0` for
 * the collections; Linux only (VmRSS from /proc).
 */
import { CLI } from '../test/support/built-cli.js';
import { startServer } from '../test/support/http-server.js';
import { openSession, postInSession, queryCall } from '../test/support/http-session.js';
import { parseFlags } from './lib/flags.js';
import { runWithWebSocket } from './lib/inspector-run.js';
import { processMemory } from './lib/process-memory.js';
import { within } from './lib/time.js';
import { collectGarbage } from './soak/garbage-collection.js';

const USAGE =
  'usage: npx tsx scripts/session-memory.ts [--sessions 1000] [--kinds bare,call,large] [--bin dist/cli.js]\n';
const flags = parseFlags(
  process.argv.slice(2),
  { sessions: 1000, kinds: 'bare,call,large', bin: CLI },
  USAGE,
);
const MiB = 2 ** 20;
const DOCUMENT_BYTES: Record<string, number> = { call: 1_000, large: 100_000 };

/** A document of about `bytes` that no other session sends (so each text is held on its own). */
function documentOf(n: number, bytes: number): string {
  const item = `<item n="${n}">value ${n}</item>`;
  return `<r>${item.repeat(Math.max(1, Math.ceil(bytes / item.length)))}</r>`;
}

async function openKind(url: string, n: number, kind: string): Promise<void> {
  const opened = await openSession(url);
  if (!('id' in opened)) throw new Error(`session ${n}: ${opened.status}`);
  const bytes = DOCUMENT_BYTES[kind];
  if (bytes === undefined) return;
  const answer = await postInSession(
    url,
    queryCall({ xml: documentOf(n, bytes), xpath: 'count(//item)' }),
    opened.id,
  );
  if (answer.status !== 200 || answer.isError) throw new Error(`call ${n}: ${answer.status} ${answer.text}`);
}

interface Figures {
  rss: number;
  heap: number;
  buffers: number;
}

async function measure(pid: number, inspector: string): Promise<Figures> {
  const heaps = await within(collectGarbage(inspector), 60_000, 'garbage collection');
  const main = heaps.find((h) => h.thread === 'main');
  return {
    rss: processMemory(pid).rssKb * 1024,
    heap: main?.heapUsed ?? 0,
    buffers: main?.arrayBuffers ?? 0,
  };
}

async function runKind(kind: string): Promise<string> {
  const server = await startServer('streamable-http', ['--max-sessions', '100000'], {
    bin: flags.bin,
    nodeArgs: ['--inspect=127.0.0.1:0'],
    env: { ...process.env, MALLOC_MMAP_THRESHOLD_: '1048576' },
  });
  try {
    const inspector = /Debugger listening on (ws:\/\/127\.0\.0\.1:\d+\/[\w-]+)/.exec(server.stderr())?.[1];
    const pid = server.child.pid;
    if (!inspector || pid === undefined) throw new Error('no inspector URL or pid');
    // One session of the kind first, so what every session shares (the SDK's code paths, a
    // worker's first parse) is in the baseline and not charged to the N.
    await openKind(server.url, -1, kind);
    const before = await measure(pid, inspector);
    const n = flags.sessions;
    for (let i = 0; i < n; i += 8)
      await Promise.all(
        Array.from({ length: Math.min(8, n - i) }, (_, j) => openKind(server.url, i + j, kind)),
      );
    const after = await measure(pid, inspector);
    const per = (key: keyof Figures) => `${((after[key] - before[key]) / n / 1024).toFixed(1)} KiB`;
    return `| ${kind} | ${n} | ${(before.rss / MiB).toFixed(0)} → ${(after.rss / MiB).toFixed(0)} MiB | ${per('rss')} | ${per('heap')} | ${per('buffers')} |`;
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const rows = [
    '| kind | sessions | RSS after GC | RSS per session | main V8 heap per session | array buffers per session |',
    '|---|---|---|---|---|---|',
  ];
  for (const kind of String(flags.kinds).split(',')) {
    rows.push(await runKind(kind));
    process.stderr.write(`[session-memory] ${rows.at(-1)}\n`);
  }
  process.stdout.write(`${rows.join('\n')}\n`);
}

runWithWebSocket('session-memory', main);
