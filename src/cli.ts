#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { EnginePool } from './engine/runtime/pool.js';
import { DEFAULT_CALL_TIMEOUT_MS } from './limits.js';
import { type HttpTransport, serveHttp } from './transports/serve-http.js';
import { runStdio } from './transports/serve-stdio.js';
import { DEFAULT_SESSION_LIMITS, type SessionLimits } from './transports/sessions.js';
import { VERSION } from './version.js';

const DEFAULT_PORTS: Record<HttpTransport, number> = { 'streamable-http': 8000, sse: 8001 };

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
  return { transport, host: flags.host as string, port, timeoutMs, sessions };
}

async function main(): Promise<void> {
  const settings = settingsFromArgv();
  const engine = new EnginePool({ timeoutMs: settings.timeoutMs });
  engine.warm();
  const onError = (error: Error) => log(error.message);
  let stop: () => Promise<void> = async () => {};
  const shutdown = async () => {
    await stop().catch(() => {});
    await engine.close();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);

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
  });
  stop = listening.close;
  log(`${settings.transport} listening on ${listening.url}`);
}

main().catch((error: unknown) => {
  log(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
