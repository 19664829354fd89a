/**
 * Load: the built binary on Streamable HTTP (loopback, a free port), C concurrent clients × N mixed
 * calls each, every answer checked (issue 4: "8 concurrent clients × 500 mixed calls over
 * Streamable HTTP with zero lost or wrong answers, reporting p50/p99").
 *
 *   npm run build && npx tsx scripts/load.ts [--clients 8] [--calls 500] [--seed 1]
 *
 * Even-numbered clients use the 2025-11-25 session mode (initialize, Mcp-Session-Id); odd ones are
 * pinned to 2026-07-28 (stateless, no handshake). Each client keeps one call in flight, so C calls
 * run at once. Reports total calls, lost and wrong answers, per-call latency p50/p90/p99/max and
 * throughput, then stops the server with SIGTERM, which must exit 0. Exit 0 only when no call was
 * lost or wrong and the server exited 0. Every loop is bounded in count and time (--max-seconds).
 * The call mix and its checks come from scripts/soak/, the server spawner from test/support/.
 *
 * Beside the clients, a churn (issue 33, ADR 0047): --churn short-lived 2025 clients (default 200,
 * --churn-concurrency at a time) that each open a session, call one tool and leave without
 * DELETE, as hosted chat clients do, and a "thinker" that sends a document in its session at the
 * start and comes back by handle once the churn is over. The server runs with --max-sessions
 * (default 64, the default before issue 33, so the churn fills the table three times over; 0: the
 * server's own default). The run fails if a churn client is refused or answered wrongly, or if the
 * thinker's handle is no longer held, whether or not its session was evicted meanwhile (then it
 * opens a new one, as the 404 says). Each churn client's time from initialize to its answer is
 * reported: what a newcomer waits.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { CLI } from '../test/support/built-cli.js';
import { type RunningServer, startServer } from '../test/support/http-server.js';
import { openSession, postInSession, queryCall } from '../test/support/http-session.js';
import { groupByLabel, percentile } from './lib/figures.js';
import { parseFlags } from './lib/flags.js';
import { mb, processMemory } from './lib/process-memory.js';
import { within } from './lib/time.js';
import { planCall } from './soak/call-mix.js';
import { buildCorpus } from './soak/documents.js';
import { callThroughClient, type callWithHandles, HandleMix } from './soak/handle-mix.js';
import { callSeed } from './soak/random.js';

const USAGE = `usage: npx tsx scripts/load.ts [--clients 8] [--calls 500] [--seed 1] [--huge-rate 0.005]
                              [--max-seconds 600] [--call-timeout-ms 60000] [--bin dist/cli.js]
                              [--churn 200] [--churn-concurrency 8] [--max-sessions 64]
`;

/** The server this run started, stopped on any failure so nothing is left listening. */
let running: RunningServer | undefined;

const MODERN = { versionNegotiation: { mode: { pin: '2026-07-28' } } };

async function main(): Promise<void> {
  const flags = parseFlags(
    process.argv.slice(2),
    {
      clients: 8,
      calls: 500,
      seed: 1,
      'huge-rate': 0.005,
      'max-seconds': 600,
      'call-timeout-ms': 60_000,
      bin: CLI,
      churn: 200,
      'churn-concurrency': 8,
      'max-sessions': 64,
    },
    USAGE,
  );
  const clientCount = Math.max(1, Math.floor(flags.clients));
  const callsEach = Math.floor(flags.calls);
  const deadline = Date.now() + flags['max-seconds'] * 1000;

  const corpus = buildCorpus({ seed: flags.seed });
  const maxSessions = Math.floor(flags['max-sessions']);
  const server = await listeningOnLoopback(
    flags.bin,
    maxSessions > 0 ? ['--max-sessions', String(maxSessions)] : [],
  );
  running = server;
  const pid = server.child.pid ?? 0;
  log(`server pid ${pid} at ${server.url}`);

  const lost: Failure[] = [];
  const wrong: Failure[] = [];
  const latencies: number[] = [];
  const perEra: Record<string, { calls: number; latencies: number[] }> = {};
  const sessions: Array<string | undefined> = [];
  let timedOut = false;
  const callPhase = { start: 0, end: 0 };

  // Connect every client first, then start all of them together.
  const clients = await Promise.all(
    Array.from({ length: clientCount }, async (_, k) => {
      const modern = k % 2 === 1;
      const client = new Client({ name: `oxml-load-${k}`, version: '1' }, modern ? MODERN : {});
      const transport = new StreamableHTTPClientTransport(new URL(server.url));
      await within(client.connect(transport), 30_000, `client ${k} connect`);
      const era = client.getNegotiatedProtocolVersion();
      const expected = modern ? '2026-07-28' : '2025-11-25';
      if (era !== expected) throw new Error(`client ${k} negotiated ${era}, expected ${expected}`);
      if (!modern && !transport.sessionId) throw new Error(`client ${k} (2025-11-25) got no Mcp-Session-Id`);
      if (modern && transport.sessionId) throw new Error(`client ${k} (2026-07-28) got a session id`);
      sessions.push(transport.sessionId);
      return { k, client, transport, era };
    }),
  );
  const sessionIds = sessions.filter(Boolean);
  if (new Set(sessionIds).size !== sessionIds.length) throw new Error('two clients share a session id');
  log(
    `${clientCount} clients connected: ${clients.map((c) => `#${c.k} ${c.era}${c.transport.sessionId ? ' (session)' : ''}`).join(', ')}`,
  );

  const byHandle = { calls: 0, notHeld: 0 };
  async function runClient({ k, client, era, transport }: (typeof clients)[number]): Promise<void> {
    const stats = perEra[era] ?? { calls: 0, latencies: [] };
    perEra[era] = stats;
    // Every client sends half its calls by handle: a 2025 session's within its session's bound, a
    // stateless one's within the process's, shared with the other stateless clients (ADR 0039).
    const handles = new HandleMix({ session: transport.sessionId !== undefined });
    for (let i = 0; i < callsEach; i++) {
      if (Date.now() > deadline) {
        timedOut = true;
        return;
      }
      const index = k * callsEach + i;
      const plan = planCall(corpus, callSeed(flags.seed, index), { hugeRate: flags['huge-rate'] });
      const started = performance.now();
      let answer: Awaited<ReturnType<typeof callWithHandles>>;
      try {
        answer = await callThroughClient(client, handles, plan, index, flags['call-timeout-ms']);
      } catch (error) {
        lost.push({
          client: k,
          index,
          label: plan.label,
          reason: String((error as Error)?.message ?? error),
        });
        continue;
      } finally {
        const ms = performance.now() - started;
        latencies.push(ms);
        stats.latencies.push(ms);
        stats.calls++;
      }
      if (answer.problem) wrong.push({ client: k, index, label: plan.label, reason: answer.problem });
    }
    byHandle.calls += handles.stats.byHandle;
    byHandle.notHeld += handles.stats.notHeld;
  }

  callPhase.start = performance.now();
  let peakRss = 0;
  const sampler = setInterval(() => {
    try {
      peakRss = Math.max(peakRss, processMemory(pid).rssKb);
    } catch {}
  }, 250);
  const churn = runChurn(
    server.url,
    Math.floor(flags.churn),
    Math.max(1, Math.floor(flags['churn-concurrency'])),
  );
  await Promise.all([...clients.map(runClient), churn]);
  callPhase.end = performance.now();
  clearInterval(sampler);
  const memory = processMemory(pid);

  await Promise.all(
    clients.map(({ client }) => within(client.close(), 10_000, 'client close').catch(() => {})),
  );
  const exit = await stopWithin(server, 10_000);
  running = undefined;

  const seconds = (callPhase.end - callPhase.start) / 1000;
  const total = latencies.length;
  const expectedTotal = clientCount * callsEach;
  const churned = await churn;
  const ok =
    churned.ok &&
    lost.length === 0 &&
    wrong.length === 0 &&
    total === expectedTotal &&
    !timedOut &&
    exit.code === 0 &&
    exit.signal === null &&
    server.stdout() === '';
  const report = [
    '',
    '== oxml-mcp load (Streamable HTTP) ==',
    `command:        npx tsx scripts/load.ts ${process.argv.slice(2).join(' ')}`.trimEnd(),
    `server:         ${flags.bin} --transport streamable-http --port 0${maxSessions > 0 ? ` --max-sessions ${maxSessions}` : ''} → ${server.url}`,
    `clients:        ${clientCount} concurrent (${clients.filter((c) => c.era === '2025-11-25').length} × 2025-11-25 session, ${clients.filter((c) => c.era === '2026-07-28').length} × 2026-07-28 pinned), ${callsEach} calls each`,
    `total calls:    ${total} of ${expectedTotal}`,
    `lost:           ${lost.length}`,
    `wrong:          ${wrong.length}`,
    `by handle:      ${byHandle.calls} calls (${byHandle.notHeld} no longer held, sent again as text)`,
    `latency (ms):   ${latencyLine(latencies)}`,
    ...Object.entries(perEra).map(([era, s]) => `  ${era}:  ${latencyLine(s.latencies)}`),
    `throughput:     ${(total / seconds).toFixed(1)} calls/s (${seconds.toFixed(1)} s)`,
    ...churned.report,
    `server RSS:     ${mb(memory.rssKb)} at end of calls, peak sampled ${mb(peakRss)}, VmHWM ${mb(memory.hwmKb)}`,
    `SIGTERM:        exit code ${exit.code}${exit.signal ? ` signal ${exit.signal}` : ''} in ${exit.ms} ms${server.stdout() === '' ? '' : '; SERVER WROTE TO STDOUT'}`,
  ];
  if (timedOut) report.push(`STOPPED: --max-seconds ${flags['max-seconds']} reached`);
  for (const [label, list] of groupByLabel(wrong)) {
    report.push(
      `WRONG ${label} × ${list.length}; first: client ${list[0]?.client} call #${list[0]?.index}: ${list[0]?.reason}`,
    );
  }
  for (const [label, list] of groupByLabel(lost)) {
    report.push(
      `LOST ${label} × ${list.length}; first: client ${list[0]?.client} call #${list[0]?.index}: ${list[0]?.reason}`,
    );
  }
  report.push(`verdict:        ${ok ? 'PASS' : 'FAIL'}`);
  if (!ok && server.stderr().trim()) report.push(`server stderr (tail):\n${server.stderr().slice(-2000)}`);
  process.stdout.write(`${report.join('\n')}\n`);
  process.exit(ok ? 0 : 1);
}

interface Failure {
  client: number;
  index: number;
  label: string;
  reason: string;
}

/**
 * The churn: `count` clients that open a session, call a tool and leave without DELETE, `width`
 * at a time, and a thinker that comes back by handle at the end (the header says why).
 */
async function runChurn(
  url: string,
  count: number,
  width: number,
): Promise<{ ok: boolean; report: string[] }> {
  const thinker = await openSession(url);
  if (!('id' in thinker)) throw new Error(`the thinker's session was refused: ${thinker.status}`);
  const sent = await postInSession(
    url,
    queryCall({ xml: '<r><a/><a/><a/></r>', xpath: 'count(//a)' }),
    thinker.id,
  );
  if (sent.text !== '3' || !sent.document) throw new Error(`the thinker's first call answered ${sent.text}`);
  const waits: number[] = [];
  const failures: string[] = [];
  let next = 1;
  const one = async (n: number) => {
    const started = performance.now();
    const opened = await openSession(url);
    if (!('id' in opened)) {
      failures.push(`client ${n}: initialize answered ${opened.status}`);
      return;
    }
    const answer = await postInSession(
      url,
      queryCall({ xml: `<r>${'<a/>'.repeat(n)}</r>`, xpath: 'count(//a)' }),
      opened.id,
    );
    waits.push(performance.now() - started);
    if (answer.text !== String(n)) failures.push(`client ${n}: ${answer.status} ${answer.text ?? ''}`);
  };
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let n = next++; n <= count; n = next++) await one(n);
    }),
  );
  // Back after the churn, by handle; a 404 for its session is answered as a client does.
  let id = thinker.id;
  let again = await postInSession(url, queryCall({ document: sent.document, xpath: 'count(/r/a)' }), id);
  const evicted = again.status === 404;
  if (evicted) {
    const renewed = await openSession(url);
    if ('id' in renewed) id = renewed.id;
    again = await postInSession(url, queryCall({ document: sent.document, xpath: 'count(/r/a)' }), id);
  }
  const thinkerOk = again.status === 200 && again.text === '3' && !again.isError;
  return {
    ok: failures.length === 0 && waits.length === count && thinkerOk,
    report: [
      `churn:          ${waits.length} of ${count} clients that never DELETE served (${width} at a time), ${failures.length} refused or wrong; initialize to answer ${latencyLine(waits)}`,
      `thinker:        session ${evicted ? 'evicted meanwhile, renewed after its 404' : 'kept'}; its handle ${thinkerOk ? 'answered' : `FAILED (${again.status} ${again.text ?? ''})`}`,
      ...failures.slice(0, 5).map((failure) => `CHURN ${failure}`),
    ],
  };
}

/** The binary on a free port within 15 s, refused (and killed) unless it bound loopback. */
async function listeningOnLoopback(bin: string, args: string[]): Promise<RunningServer> {
  const server = await startServer('streamable-http', args, { bin, startMs: 15_000 });
  if (!/^http:\/\/(127\.0\.0\.1|\[::1\]|localhost):\d+\/mcp$/.test(server.url)) {
    server.child.kill('SIGKILL');
    throw new Error(`server did not bind loopback: ${server.url}`);
  }
  return server;
}

/** SIGTERM, then the exit code; SIGKILL (and code null) if it has not exited within `ms`. */
async function stopWithin(
  server: RunningServer,
  ms: number,
): Promise<{ code: number | null; signal: string | null; ms: number }> {
  const started = performance.now();
  server.child.kill('SIGTERM');
  try {
    const result = await within(server.exited, ms, 'server exit after SIGTERM');
    return { ...result, ms: Math.round(performance.now() - started) };
  } catch {
    server.child.kill('SIGKILL');
    await server.exited;
    return { code: null, signal: 'SIGKILL (no exit after SIGTERM)', ms };
  }
}

function latencyLine(values: readonly number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const f = (v: number) => v.toFixed(1);
  return `p50 ${f(percentile(sorted, 50))}  p90 ${f(percentile(sorted, 90))}  p99 ${f(percentile(sorted, 99))}  max ${f(sorted.at(-1) ?? Number.NaN)}  (n=${sorted.length})`;
}

const log = (line: string) => process.stderr.write(`[load] ${line}\n`);

main().catch(async (error) => {
  process.stderr.write(`[load] failed: ${(error as Error)?.stack ?? error}\n`);
  if (running) {
    const exit = await stopWithin(running, 10_000);
    process.stderr.write(
      `[load] server stopped: exit code ${exit.code}${exit.signal ? `, ${exit.signal}` : ''}\n`,
    );
    process.stderr.write(`[load] server stderr (tail):\n${running.stderr().slice(-2000)}\n`);
  }
  process.exit(1);
});
