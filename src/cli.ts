#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { EnginePool } from './engine/runtime/pool.js';
import { DEFAULT_CALL_TIMEOUT_MS } from './limits.js';
import { type HttpTransport, serveHttp } from './transports/serve-http.js';
import { runStdio } from './transports/serve-stdio.js';
import { DEFAULT_SESSION_LIMITS, type SessionLimits } from './transports/sessions.js';
import { VERSION } from './version.js';

const DEFAULT_PORTS: Record<HttpTransport, number> = { 'streamable-http': 8000, sse: 8001 };

/** Long enough for the calls of a busy process to finish (most take milliseconds, the budget 10 s). */
const DEFAULT_DRAIN_MS = 5_000;
const MAX_DRAIN_MS = 600_000;
const INSTANCE_NAME = /^[A-Za-z0-9_-]{1,32}$/;

const USAGE = `Usage: oxml-mcp [options]

An MCP server that answers questions about XML documents exactly (XPath 1.0, XSD, well-formedness, shape).

Options:
  --transport T      stdio (default), streamable-http (endpoint /mcp) or sse (legacy: GET /sse, POST /messages/)
  --host H           HTTP address to bind (default: 127.0.0.1; no authentication: put a gateway in front of a routable address)
  --port P           HTTP port (default: 8000 for streamable-http, 8001 for sse; 0 picks a free one)
  --timeout-ms N     Time budget of one tool call in milliseconds (default: ${DEFAULT_CALL_TIMEOUT_MS})
  --max-sessions N   HTTP sessions open at once (default: ${DEFAULT_SESSION_LIMITS.maxSessions}); when full, a new one evicts the session idle longest
  --session-idle-ms MS
                     Close an HTTP session after this long without a request (default: ${DEFAULT_SESSION_LIMITS.idleMs})
  --session-evict-after-ms MS
                     How long a session must have been idle before a new one may evict it (default: ${DEFAULT_SESSION_LIMITS.evictableAfterMs}; 0: at once)
  --instance NAME    Streamable HTTP: start every session id with NAME. (letters, digits, - and _, up to 32), so a load
                     balancer can route a session back to this process (docs/deploy.md)
  --stateless        Streamable HTTP: answer 2025-era requests without sessions too (no parse cache, no GET stream)
  --drain-ms MS      On SIGTERM, refuse new requests and let calls in flight finish for up to MS (0 to ${MAX_DRAIN_MS};
                     default: ${DEFAULT_DRAIN_MS}), then close every session and exit 0. SIGINT exits at once
  --version          Print the version and exit
  --help             Print this help and exit
`;

function log(message: string): void {
  process.stderr.write(`oxml-mcp: ${message}\n`);
}

function usageError(message: string): never {
  process.stderr.write(`oxml-mcp: ${message}\n\n${USAGE}`);
  process.exit(2);
}

interface Settings {
  transport: 'stdio' | HttpTransport;
  host: string;
  port: number;
  timeoutMs: number;
  sessions: SessionLimits;
  instance: string | undefined;
  stateless: boolean;
  drainMs: number;
}

/** Wide enough for any deployment; the upper ends only keep typos (an extra zero or three) out. */
const MAX_SESSIONS_FLAG = 100_000;
const MAX_SESSION_MS_FLAG = 7 * 24 * 60 * 60 * 1000;

function integerFlag(
  value: string | undefined,
  name: string,
  min: number,
  max: number,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < min || number > max)
    usageError(`--${name} must be an integer from ${min} to ${max}`);
  return number;
}

/** Reads argv; --help and --version print (to stdout: no protocol runs then) and exit. */
function settingsFromArgv(): Settings {
  let flags: Record<string, string | boolean | undefined>;
  try {
    flags = parseArgs({
      options: {
        transport: { type: 'string', default: 'stdio' },
        host: { type: 'string', default: '127.0.0.1' },
        port: { type: 'string' },
        'timeout-ms': { type: 'string' },
        'max-sessions': { type: 'string' },
        'session-idle-ms': { type: 'string' },
        'session-evict-after-ms': { type: 'string' },
        instance: { type: 'string' },
        stateless: { type: 'boolean', default: false },
        'drain-ms': { type: 'string' },
        version: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    return usageError((error as Error).message);
  }
  // stdout carries protocol messages only, even for the flags that print and exit.
  if (flags.help) {
    process.stderr.write(USAGE);
    process.exit(0);
  }
  if (flags.version) {
    process.stderr.write(`${VERSION}\n`);
    process.exit(0);
  }
  const transport = flags.transport as string;
  if (transport !== 'stdio' && transport !== 'streamable-http' && transport !== 'sse') {
    usageError(`unknown transport "${transport}" (choose stdio, streamable-http or sse)`);
  }
  const port = integerFlag(
    flags.port as string | undefined,
    'port',
    0,
    65_535,
    transport === 'stdio' ? 0 : DEFAULT_PORTS[transport],
  );
  const timeoutMs = integerFlag(
    flags['timeout-ms'] as string | undefined,
    'timeout-ms',
    100,
    3_600_000,
    DEFAULT_CALL_TIMEOUT_MS,
  );
  const sessions: SessionLimits = {
    maxSessions: integerFlag(
      flags['max-sessions'] as string | undefined,
      'max-sessions',
      1,
      MAX_SESSIONS_FLAG,
      DEFAULT_SESSION_LIMITS.maxSessions,
    ),
    idleMs: integerFlag(
      flags['session-idle-ms'] as string | undefined,
      'session-idle-ms',
      1,
      MAX_SESSION_MS_FLAG,
      DEFAULT_SESSION_LIMITS.idleMs,
    ),
    evictableAfterMs: integerFlag(
      flags['session-evict-after-ms'] as string | undefined,
      'session-evict-after-ms',
      0,
      MAX_SESSION_MS_FLAG,
      DEFAULT_SESSION_LIMITS.evictableAfterMs,
    ),
  };
  const instance = flags.instance as string | undefined;
  if (instance !== undefined && !INSTANCE_NAME.test(instance))
    usageError('--instance must be 1 to 32 letters, digits, - or _');
  if ((instance !== undefined || flags.stateless) && transport !== 'streamable-http')
    usageError('--instance and --stateless apply to --transport streamable-http only');
  const drainMs = integerFlag(
    flags['drain-ms'] as string | undefined,
    'drain-ms',
    0,
    MAX_DRAIN_MS,
    DEFAULT_DRAIN_MS,
  );
  return {
    transport,
    host: flags.host as string,
    port,
    timeoutMs,
    sessions,
    instance,
    stateless: flags.stateless === true,
    drainMs,
  };
}

async function main(): Promise<void> {
  const settings = settingsFromArgv();
  const engine = new EnginePool({ timeoutMs: settings.timeoutMs });
  engine.warm();
  const onError = (error: Error) => log(error.message);
  let stop: () => Promise<void> = async () => {};
  let drain: () => Promise<void> = async () => {};
  const shutdown = (how: () => Promise<void>) => async () => {
    await how().catch(() => {});
    await engine.close();
    process.exit(0);
  };
  // A SIGINT during a drain cuts it short.
  process.once(
    'SIGINT',
    shutdown(() => stop()),
  );
  process.once(
    'SIGTERM',
    shutdown(() => drain()),
  );

  if (settings.transport === 'stdio') {
    const failure = await runStdio(engine, log);
    await engine.close();
    if (failure) log('stdout failed; exiting');
    process.exit(failure ? 1 : 0);
  }
  const listening = await serveHttp(settings.transport, engine, {
    host: settings.host,
    port: settings.port,
    onError,
    limits: settings.sessions,
    ...(settings.instance === undefined ? {} : { instance: settings.instance }),
    stateless: settings.stateless,
  });
  stop = listening.close;
  drain = async () => {
    log(`draining: no new requests; waiting up to ${settings.drainMs} ms for calls in flight`);
    const unanswered = await listening.drain(settings.drainMs);
    log(unanswered === 0 ? 'drained' : `drain bound reached with ${unanswered} calls unanswered`);
  };
  log(`${settings.transport} listening on ${listening.url}`);
}

main().catch((error: unknown) => {
  log(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
