/**
 * Scale: nginx (deploy/nginx.conf, via scripts/scale.sh) in front of 1, 2 and 3 processes of the
 * built server, on loopback; mixed clients through it; then a fault run in which one process is
 * killed with SIGKILL and another restarted with SIGTERM while the clients run (issue 16).
 *
 *   npm run build && npx tsx scripts/scale.ts [--processes 1,2,3] [--clients 6] [--calls 150] [--seed 1]
 *       [--fault 1] [--fault-processes 3] [--workload mix|model] [--stateless 1] [--store 1]
 *       [--store-cluster 1] [--max-seconds 900] [--call-timeout-ms 20000]
 *
 * Half the clients speak 2025-11-25 (a session each, through the SDK client's ordinary
 * handshake), half are pinned to 2026-07-28 (stateless). Each keeps one call in flight; every
 * answer is checked against the expected one (scripts/soak/), half a session's calls by handle.
 * `--workload mix` is the soak's call mix over 1 KB–2 MB documents; `--workload model` is what a
 * model does with one document: every client sends one ~2 MB document to xml_inspect and
 * xml_query again and again, where a session's parse cache pays. `--stateless 1` starts the
 * processes with --stateless (no sessions). `--store 1` starts a redis-server beside them and
 * runs every process with `--store` (docs/adr/0041): a handle made by one process is then
 * answered by every other, so no stateless call by handle may be refused as not held.
 * `--store-cluster 1` does the same with a Redis Cluster of three primaries and three replicas,
 * each process seeded on another node (docs/adr/0052).
 * `--fault-processes N`: the fault run's number of processes (at least 2).
 *
 * A 2025 client whose call fails (a 404 for its session, whose process went away; its connection
 * closed; a time-out on a process killed mid-call) does what a client does: it starts a new
 * session, retrying the handshake with a back-off while a process is stopping or starting, and
 * sends the call again; that call counts as renewed, not lost, and its answer is checked like any.
 * Any other failure, and a call whose second sending fails too, is a lost answer; a 2026-07-28
 * client never retries (nginx steps over a process that is down). Exit 0 only when no answer was
 * lost or wrong in either era, in every run, fault run included, and the SIGTERM'd process exited 0.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { percentile } from './lib/figures.js';
import { parseFlags } from './lib/flags.js';
import { sleep, within } from './lib/time.js';
import type { ToolAnswer } from './soak/answer.js';
import { planCall } from './soak/call-mix.js';
import { buildCorpus, type Corpus } from './soak/documents.js';
import { callWithHandles, HandleMix } from './soak/handle-mix.js';
import { callSeed } from './soak/random.js';

const USAGE = `usage: npx tsx scripts/scale.ts [--processes 1,2,3] [--clients 6] [--calls 150] [--seed 1] [--fault 1]
                               [--fault-processes 3] [--workload mix|model] [--stateless 1] [--store 1]
                               [--store-cluster 1] [--max-seconds 900] [--call-timeout-ms 20000]
`;
const SCALE_SH = fileURLToPath(new URL('./scale.sh', import.meta.url));
const MODERN = { versionNegotiation: { mode: { pin: '2026-07-28' } } };
/** `max_fails=1 fail_timeout=2s` in deploy/nginx.conf, and a little more. */
const NGINX_FAIL_TIMEOUT_MS = 2_500;
const log = (line: string) => process.stderr.write(`[scale] ${line}\n`);

/** The stack currently up, taken down on any failure so nothing is left listening. */
let stackDir: string | undefined;

function nginxPresent() {
  if (process.env.NGINX) return existsSync(process.env.NGINX);
  const found = spawnSync('bash', ['-c', 'command -v nginx || test -x /usr/sbin/nginx'], { stdio: 'ignore' });
  return found.status === 0;
}

interface Stack {
  dir: string;
  env: NodeJS.ProcessEnv;
  url: string;
  servers: Array<{ pid: number; port: number }>;
}

function up(count: number, stateless: boolean, store: '' | '1' | 'cluster'): Stack {
  const dir = join(mkdtempSync(join(tmpdir(), 'oxml-scale-run-')), 'stack');
  const env = {
    ...process.env,
    OXML_SCALE_DIR: dir,
    OXML_SCALE_FLAGS: stateless ? '--stateless' : '',
    OXML_SCALE_STORE: store,
  };
  const run = spawnSync('bash', [SCALE_SH, 'up', String(count)], { env, encoding: 'utf8', timeout: 300_000 });
  if (run.status !== 0) throw new Error(`scale.sh up ${count} failed (${run.status}): ${run.stderr}`);
  stackDir = dir;
  const url = /^url: (\S+)$/m.exec(run.stdout)?.[1];
  const pids = [...run.stdout.matchAll(/^pid: (\d+)$/gm)].map((m) => Number(m[1]));
  const ports = new Map(
    readFileSync(join(dir, 'servers'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(' ').map(Number) as [number, number]),
  );
  if (!url || pids.length !== count) throw new Error(`scale.sh up printed: ${run.stdout}`);
  const servers = pids.map((pid) => ({ pid, port: ports.get(pid) ?? Number.NaN }));
  if (servers.some((server) => Number.isNaN(server.port)))
    throw new Error(`scale.sh up wrote no port for a pid`);
  return { dir, env, url, servers };
}

function down(stack: Stack): void {
  spawnSync('bash', [SCALE_SH, 'down'], { env: stack.env, stdio: 'ignore', timeout: 120_000 });
  rmSync(join(stack.dir, '..'), { recursive: true, force: true });
  stackDir = undefined;
}

/** `scale.sh start PORT`, without blocking the clients running in this process. */
function startAgain(stack: Stack, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [SCALE_SH, 'start', String(port)], { env: stack.env });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    child.once('exit', (code) => {
      const pid = Number(/^pid: (\d+)$/m.exec(out)?.[1]);
      if (code === 0 && pid) resolve(pid);
      else reject(new Error(`scale.sh start ${port} failed (${code})`));
    });
  });
}

/** The exit status scale.sh's wrapper logged for the process on `port` (polled, bounded). */
async function exitStatus(stack: Stack, port: number, after: number, ms = 60_000): Promise<number> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const text = readFileSync(join(stack.dir, `server-${port}.log`), 'utf8');
    const statuses = [...text.matchAll(/^scale\.sh: exit status (\d+)$/gm)].map((m) => Number(m[1]));
    const status = statuses[after];
    if (status !== undefined) return status;
    await sleep(50);
  }
  throw new Error(`the process on port ${port} did not exit within ${ms} ms`);
}

const exitsLogged = (stack: Stack, port: number) =>
  [...readFileSync(join(stack.dir, `server-${port}.log`), 'utf8').matchAll(/^scale\.sh: exit status/gm)]
    .length;

interface Connection {
  client: Client;
  transport: StreamableHTTPClientTransport;
}

async function connect(url: string, k: number, modern: boolean): Promise<Connection> {
  const client = new Client({ name: `oxml-scale-${k}`, version: '1' }, modern ? MODERN : {});
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await within(client.connect(transport), 30_000, `client ${k} connect`);
  return { client, transport };
}

/** How a 2025 call failed, for the count of renewals by cause. */
const failureCause = (error: unknown) => {
  const status = (error as { status?: number } | undefined)?.status;
  return status === undefined ? String((error as Error)?.message ?? error).slice(0, 40) : `HTTP ${status}`;
};

/** Handshakes a renewal tries before the call counts as lost: a restart takes a few seconds. */
const RENEW_ATTEMPTS = 6;

/**
 * A new session, as a client answers a 404: the handshake again, retried with a back-off while it
 * fails (its `initialize` or `initialized` may reach a process that is draining or not yet in
 * rotation). Before this, one failed handshake left the client holding its closed connection, and
 * every later call failed with "Not connected", which is no 404, so it never renewed again
 * (issue 33: 28 answers lost after a 404 at call 122 while the verdict said PASS).
 */
async function renewSession(url: string, k: number): Promise<Connection> {
  let failure: unknown;
  for (let attempt = 0; attempt < RENEW_ATTEMPTS; attempt++) {
    try {
      return await connect(url, k, false);
    } catch (error) {
      failure = error;
      await sleep(250 * 2 ** attempt);
    }
  }
  throw failure;
}

/**
 * C clients × `calls` calls through `url`; `onProgress(done)` after each answered call. Returns
 * latencies, lost, wrong, renewed sessions and where the sessions lived.
 */
async function runLoad(
  url: string,
  flags: ScaleFlags,
  corpus: Corpus,
  onProgress: (done: number) => void = () => {},
): Promise<LoadStats> {
  const deadline = Date.now() + flags['max-seconds'] * 1000;
  const stats: LoadStats = {
    latencies: [],
    byEra: {},
    lost: [],
    wrong: [],
    renewed: 0,
    renewals: new Map(),
    sessions: new Map(),
    done: 0,
    seconds: 0,
  };
  const eraOf = (era: string) => {
    const byEra = stats.byEra[era] ?? { latencies: [], lost: 0, renewed: 0, byHandle: 0, notHeld: 0 };
    stats.byEra[era] = byEra;
    return byEra;
  };
  const noteSession = (transport: StreamableHTTPClientTransport) => {
    const owner = transport.sessionId?.split('.')[0] ?? '(none)';
    stats.sessions.set(owner, (stats.sessions.get(owner) ?? 0) + 1);
  };
  const clients = await Promise.all(
    Array.from({ length: flags.clients }, async (_, k) => {
      const modern = k % 2 === 1;
      const connection = await connect(url, k, modern);
      const era = connection.client.getNegotiatedProtocolVersion();
      const expected = modern ? '2026-07-28' : '2025-11-25';
      if (era !== expected) throw new Error(`client ${k} negotiated ${era}, expected ${expected}`);
      if (!modern) noteSession(connection.transport);
      return { k, modern, era, connection };
    }),
  );
  const started = performance.now();
  await Promise.all(
    clients.map(async (c) => {
      const byEra = eraOf(c.era);
      const doc = flags.workload === 'model' ? corpus.big[c.k % corpus.big.length] : undefined;
      const tools = flags.workload === 'model' ? ['xml_query', 'xml_inspect'] : undefined;
      // Every client sends half its calls by handle, as in the soak and the load (its answers carry
      // handles, set aside before the call's own check). A stateless client's handle made by one
      // process is not held by the next the balancer picks: refused, and sent again as text.
      const handles = new HandleMix({ session: !c.modern && flags.stateless !== 1 });
      for (let i = 0; i < flags.calls && Date.now() < deadline; i++) {
        const index = c.k * flags.calls + i;
        const plan = planCall(corpus, callSeed(flags.seed, index), {
          hugeRate: flags['huge-rate'],
          doc,
          tools,
        });
        // After a renewal the old session's handles are refused as not held and sent again as text.
        const call = () =>
          callWithHandles(
            handles,
            plan,
            index,
            (args) =>
              c.connection.client.callTool(
                { name: plan.tool, arguments: args },
                { timeout: flags['call-timeout-ms'] },
              ) as Promise<ToolAnswer>,
          );
        const t0 = performance.now();
        let result: Awaited<ReturnType<typeof callWithHandles>> | undefined;
        try {
          result = await call();
        } catch (first) {
          let error = first;
          if (!c.modern) {
            // Whatever ended the call, the session is to be started again and the call sent again:
            // a failed renewal leaves the old connection, so the next call comes here too.
            const cause = failureCause(first);
            stats.renewals.set(cause, (stats.renewals.get(cause) ?? 0) + 1);
            try {
              c.connection.client.close().catch(() => {});
              c.connection = await renewSession(url, c.k);
              noteSession(c.connection.transport);
              stats.renewed++;
              byEra.renewed++;
              result = await call();
            } catch (again) {
              error = again;
            }
          }
          if (result === undefined) {
            stats.lost.push({
              client: c.k,
              index,
              era: c.era,
              reason: String((error as Error)?.message ?? error),
            });
            byEra.lost++;
            continue;
          }
        }
        const ms = performance.now() - t0;
        stats.latencies.push(ms);
        byEra.latencies.push(ms);
        const problem = result.problem;
        if (problem) stats.wrong.push({ client: c.k, index, label: plan.label, reason: problem });
        stats.done++;
        onProgress(stats.done);
      }
      byEra.byHandle += handles.stats.byHandle;
      byEra.notHeld += handles.stats.notHeld;
    }),
  );
  stats.seconds = (performance.now() - started) / 1000;
  await Promise.all(clients.map((c) => within(c.connection.client.close(), 10_000, 'close').catch(() => {})));
  return stats;
}

const percentileOf = (values: readonly number[], p: number) =>
  percentile(
    [...values].sort((a, b) => a - b),
    p,
  );

function row(label: string, flags: ScaleFlags, s: LoadStats, extra = ''): string {
  const era = (name: string) => s.byEra[name] ?? NO_CALLS;
  const modern = era('2026-07-28');
  const legacy = era('2025-11-25');
  const f = (v: number) => v.toFixed(1);
  return `| ${label} | ${flags.clients} | ${s.latencies.length} of ${flags.clients * flags.calls} | ${(s.latencies.length / s.seconds).toFixed(0)} | ${f(percentileOf(s.latencies, 50))} | ${f(percentileOf(s.latencies, 99))} | ${f(percentileOf(legacy.latencies, 50))} / ${f(percentileOf(modern.latencies, 50))} | ${s.wrong.length} | ${modern.lost} | ${legacy.lost} | ${legacy.renewed} |${extra}`;
}

const NO_CALLS: EraStats = { latencies: [], lost: 0, renewed: 0, byHandle: 0, notHeld: 0 };

/** The line the docs quote for a run's calls by handle, per era. */
function handlesLine(label: string, s: LoadStats): string {
  const era = (name: string) => s.byEra[name] ?? NO_CALLS;
  const modern = era('2026-07-28');
  const legacy = era('2025-11-25');
  return `by handle, ${label}: 2026-07-28 ${modern.byHandle} calls, ${modern.notHeld} not held; 2025-11-25 ${legacy.byHandle} calls, ${legacy.notHeld} not held`;
}

/** What made 2025 clients start a new session in a run. */
const renewalsLine = (label: string, s: LoadStats) =>
  `renewals, ${label}: ${[...s.renewals].map(([cause, n]) => `${cause} × ${n}`).join(', ') || 'none'}`;

const DEFAULTS = {
  processes: '1,2,3',
  clients: 6,
  calls: 150,
  seed: 1,
  fault: 1,
  'fault-processes': 3,
  store: 0,
  'store-cluster': 0,
  workload: 'mix',
  stateless: 0,
  'huge-rate': 0.005,
  'max-seconds': 900,
  'call-timeout-ms': 20_000,
};

type ScaleFlags = typeof DEFAULTS;

interface EraStats {
  latencies: number[];
  lost: number;
  renewed: number;
  /** Calls sent by handle, and those refused as not held (then sent again as text). */
  byHandle: number;
  notHeld: number;
}

interface Failure {
  client: number;
  index: number;
  label?: string;
  era?: string;
  reason: string;
}

interface LoadStats {
  latencies: number[];
  byEra: Record<string, EraStats>;
  lost: Failure[];
  wrong: Failure[];
  renewed: number;
  /** What made 2025 clients renew (an HTTP status, or the start of an error's message) → times. */
  renewals: Map<string, number>;
  /** The process a session id names (its prefix) → sessions started there. */
  sessions: Map<string, number>;
  done: number;
  seconds: number;
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2), DEFAULTS, USAGE);
  if (!nginxPresent()) {
    process.stderr.write(
      'scale: nginx is not installed, and this test runs it in front of the server.\n' +
        'On Debian or Ubuntu: sudo apt-get update && sudo apt-get install -y nginx\n' +
        '(or set NGINX=/path/to/nginx). Nothing was run.\n',
    );
    process.exit(3);
  }
  const counts = String(flags.processes)
    .split(',')
    .map(Number)
    .filter((n) => n >= 1 && n <= 8);
  const stateless = flags.stateless === 1;
  const cluster = flags['store-cluster'] === 1;
  const store = flags.store === 1 || cluster;
  const storeKind = cluster ? 'cluster' : store ? '1' : '';
  const handleLines: string[] = [];
  /** With a shared store every process answers every stateless handle: a refusal is a failure. */
  const storeMissed = (s: LoadStats) => store && (s.byEra['2026-07-28']?.notHeld ?? 0) > 0;
  const corpus = buildCorpus({ seed: flags.seed });
  const rows: string[] = [];
  let ok = true;
  const failures: Failure[] = [];

  for (const count of counts) {
    const stack = up(count, stateless, storeKind);
    log(`${count} process(es) behind ${stack.url}`);
    const s = await runLoad(stack.url, flags, corpus);
    down(stack);
    rows.push(row(`${count}`, flags, s, ` ${sessionsLine(s)} |`));
    handleLines.push(handlesLine(`${count}`, s), renewalsLine(`${count}`, s));
    failures.push(...s.wrong, ...s.lost);
    if (s.wrong.length > 0 || s.lost.length > 0 || storeMissed(s)) ok = false;
  }

  if (flags.fault) {
    const count = Math.max(2, flags['fault-processes']);
    const stack = up(count, stateless, storeKind);
    const [killed, restarted] = stack.servers;
    if (!killed || !restarted)
      throw new Error(`the fault run needs two processes, got ${stack.servers.length}`);
    const total = flags.clients * flags.calls;
    const events: string[] = [];
    let drainExit: number | undefined;
    let latest = 0;
    const faults: Array<Promise<void>> = [];
    log(
      `fault run: ${count} processes behind ${stack.url}; SIGKILL ${killed.port} at ${Math.round(total / 3)} calls, SIGTERM ${restarted.port} at ${Math.round((2 * total) / 3)}`,
    );
    /** The killed process started again: the SIGTERM waits for it, so one process at most is down. */
    let killedBack: Promise<void> = Promise.resolve();
    const s = await runLoad(stack.url, flags, corpus, (done) => {
      if (done === Math.round(total / 3)) {
        process.kill(killed.pid, 'SIGKILL');
        events.push(`SIGKILL ${killed.port} at call ${done}`);
        // As systemd's Restart=always would: start it again once it has gone.
        killedBack = exitStatus(stack, killed.port, 0).then(async () => {
          await startAgain(stack, killed.port);
          events.push(`${killed.port} started again`);
          // nginx passes over a process that failed for fail_timeout (deploy/nginx.conf): until it
          // tries this one again, stopping another would leave none in rotation with 2 processes.
          await sleep(NGINX_FAIL_TIMEOUT_MS);
        });
        faults.push(killedBack);
      }
      if (done === Math.round((2 * total) / 3)) {
        faults.push(
          killedBack.then(async () => {
            const before = exitsLogged(stack, restarted.port);
            process.kill(restarted.pid, 'SIGTERM');
            events.push(`SIGTERM ${restarted.port} at call ${latest}`);
            drainExit = await exitStatus(stack, restarted.port, before);
            events.push(`${restarted.port} exited ${drainExit} after draining`);
            await startAgain(stack, restarted.port);
            events.push(`${restarted.port} started again`);
          }),
        );
      }
      latest = done;
    });
    await Promise.all(faults);
    down(stack);
    rows.push(row(`${count}, faults`, flags, s, ` ${sessionsLine(s)} |`));
    handleLines.push(handlesLine(`${count}, faults`, s), renewalsLine(`${count}, faults`, s));
    log(events.join('; '));
    failures.push(...s.wrong, ...s.lost);
    if (s.wrong.length > 0 || s.lost.length > 0 || drainExit !== 0 || storeMissed(s)) ok = false;
    rows.push(`\nfault run: ${events.join('; ')}; SIGTERM exit status ${drainExit}`);
  }

  const report = [
    '',
    `== oxml-mcp behind nginx: npx tsx scripts/scale.ts ${process.argv.slice(2).join(' ')}`.trimEnd(),
    `workload ${flags.workload}; ${flags.clients} clients (half 2025-11-25 ${stateless ? 'without sessions (--stateless)' : 'sessions'}, half 2026-07-28), ${flags.calls} calls each, one in flight per client${cluster ? '; every process with --store-cluster (a Redis Cluster, 3 primaries and 3 replicas)' : store ? '; every process with --store (one redis-server)' : ''}`,
    '',
    '| processes | clients | answered | calls/s | p50 ms | p99 ms | p50 2025 / 2026 | wrong | lost 2026 | lost 2025 | sessions renewed (404) | sessions per process |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    ...handleLines,
  ];
  for (const f of failures.slice(0, 10))
    report.push(`  ${f.label ?? f.era} client ${f.client} call #${f.index}: ${f.reason}`);
  report.push(`verdict: ${ok ? 'PASS' : 'FAIL'}`);
  process.stdout.write(`${report.join('\n')}\n`);
  process.exit(ok ? 0 : 1);
}

const sessionsLine = (s: LoadStats) =>
  [...s.sessions]
    .sort()
    .map(([owner, n]) => `${owner}: ${n}`)
    .join(', ');

main().catch((error) => {
  process.stderr.write(`[scale] failed: ${(error as Error)?.stack ?? error}\n`);
  if (stackDir) spawnSync('bash', [SCALE_SH, 'down'], { env: { ...process.env, OXML_SCALE_DIR: stackDir } });
  process.exit(1);
});
