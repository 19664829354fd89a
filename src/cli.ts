import { parseArgs } from 'node:util';
import { EnginePool } from './engine/runtime/pool.js';
import { DEFAULT_CALL_TIMEOUT_MS } from './limits.js';
import { storeUrlProblem } from './tools/shared-store/store-url.js';
import type { AuthSettings } from './transports/auth/bearer-gate.js';
import type { HttpTransport } from './transports/serve-http.js';
import { DEFAULT_SESSION_LIMITS, type SessionLimits } from './transports/sessions.js';
import { VERSION } from './version.js';

const DEFAULT_PORTS: Record<HttpTransport, number> = { 'streamable-http': 8000, sse: 8001 };

/** Wide enough for any deployment; the upper ends only keep typos (an extra zero or three) out. */
const MAX_SESSIONS_FLAG = 100_000;
const MAX_SESSION_MS_FLAG = 7 * 24 * 60 * 60 * 1000;
/** Long enough for the calls of a busy process to finish (most take milliseconds, the budget 10 s). */
const DEFAULT_DRAIN_MS = 5_000;
const MAX_DRAIN_MS = 600_000;
const INSTANCE_NAME = /^[A-Za-z0-9_-]{1,32}$/;

/** The integer flags' ranges, read by the parser and printed by --help. */
const RANGES = {
  port: [0, 65_535],
  'timeout-ms': [100, 3_600_000],
  'max-sessions': [1, MAX_SESSIONS_FLAG],
  'session-idle-ms': [1, MAX_SESSION_MS_FLAG],
  'session-evict-after-ms': [0, MAX_SESSION_MS_FLAG],
  'session-keep-ms': [0, MAX_SESSION_MS_FLAG],
  'drain-ms': [0, MAX_DRAIN_MS],
  'max-sessions-per-caller': [1, MAX_SESSIONS_FLAG],
} as const satisfies Record<string, readonly [number, number]>;
type IntegerFlag = keyof typeof RANGES;

/** The flags that only an HTTP transport reads: refused with stdio, where they would do nothing. */
const HTTP_ONLY = [
  'host',
  'port',
  'max-sessions',
  'session-idle-ms',
  'session-evict-after-ms',
  'session-keep-ms',
  'instance',
  'stateless',
  'drain-ms',
  'store',
  'store-cluster',
  'auth-issuer',
  'auth-resource',
  'auth-scope',
  'auth-tokens',
  'auth-introspection-client',
  'max-sessions-per-caller',
] as const;

/**
 * With authentication on, sessions one subject keeps at once: a person's few clients and
 * windows, while 64 callers at their bound still fill only the default table (4,096).
 */
const DEFAULT_SESSIONS_PER_CALLER = 64;

const range = (name: IntegerFlag) => `${RANGES[name][0]}-${RANGES[name][1]}`;

const USAGE = `Usage: oxml-mcp [options]

An MCP server that answers questions about XML documents exactly (XPath 1.0 and 3.1, XSD, RELAX NG and DTD validation, well-formedness, shape).

Options:
  --transport T      stdio (default), streamable-http (endpoint /mcp) or sse (legacy: GET /sse, POST /messages/)
  --timeout-ms N     Time budget of one tool call in milliseconds, ${range('timeout-ms')} (default: ${DEFAULT_CALL_TIMEOUT_MS})
  -v, --version      Print the version to stdout and exit
  -h, --help         Print this help to stdout and exit

HTTP transports only (refused with stdio):
  --host H           Address to bind (default: 127.0.0.1; without --auth-issuer, put an authenticating gateway in front of a routable address)
  --port P           Port, ${range('port')} (default: ${DEFAULT_PORTS['streamable-http']} for streamable-http, ${DEFAULT_PORTS.sse} for sse; 0 picks a free one)
  --max-sessions N   Sessions open at once, ${range('max-sessions')} (default: ${DEFAULT_SESSION_LIMITS.maxSessions}, ~11 KiB each when idle); when full, a new
                     one evicts an idle session at once (never one with a request in flight), whose handles keep working
  --session-idle-ms MS
                     Close a session after this long without a request, ${range('session-idle-ms')} (default: ${DEFAULT_SESSION_LIMITS.idleMs})
  --session-evict-after-ms MS
                     A session that never called a tool goes first once idle this long, ${range('session-evict-after-ms')} (default: ${DEFAULT_SESSION_LIMITS.evictableAfterMs})
  --session-keep-ms MS
                     The same for one that called a tool or holds a GET stream, next in line, ${range('session-keep-ms')} (default: ${DEFAULT_SESSION_LIMITS.engagedEvictableAfterMs});
                     then the longest idle of any goes
  --instance NAME    Streamable HTTP: start every session id with NAME. (letters, digits, - and _, up to 32), so a load
                     balancer can route a session back to this process (docs/deploy.md)
  --stateless        Streamable HTTP: answer 2025-era requests without sessions too (no GET stream; the parse cache is shared)
  --store URL        Streamable HTTP: hold texts for their handles in Redis or Valkey too (redis://HOST:PORT or
                     rediss://; redis://USER:PASSWORD@HOST:PORT for requirepass or an ACL user), so that every
                     process using the same store answers every handle (docs/deploy.md). Default: this process only
  --store-cluster    The --store URL is one node of a Redis or Valkey Cluster (the seed: the others are learnt from
                     it); texts spread over its slots and survive a failover to a replica (docs/deploy.md)
  --drain-ms MS      On SIGTERM, refuse new requests and let calls in flight finish for up to MS, ${range('drain-ms')}
                     (default: ${DEFAULT_DRAIN_MS}), then close every session and exit 0. SIGINT exits at once

Authentication (HTTP transports only; off by default, docs/deploy.md "Authentication"):
  --auth-issuer URL  Require an OAuth 2.1 bearer token on every MCP request: a JWT access token signed by this
                     issuer (its keys are read from its metadata at start), with this server's --auth-resource as
                     its audience. Serves /.well-known/oauth-protected-resource/...; /healthz stays open.
                     A handle then answers only the subject whose call made it
  --auth-resource URL
                     This server's resource URI as clients address it (RFC 8707), e.g. https://xml.example.com/mcp;
                     required with --auth-issuer
  --auth-scope S     A scope every token must carry (repeat for several); a token without it gets 403
  --auth-introspection-client ID
                     With --auth-issuer: accept opaque tokens too, asking the issuer about each (RFC 7662)
                     as its client ID, whose credential it reads from the environment variable OXML_AUTH_CLIENT_SECRET
  --auth-tokens FILE Instead of an issuer: require one of the static bearer tokens listed in FILE, a line
                     "NAME SHA256-HEX" each (the token's digest, never the token); NAME is the caller
  --max-sessions-per-caller N
                     With authentication: sessions one subject keeps, ${range('max-sessions-per-caller')} (default: ${DEFAULT_SESSIONS_PER_CALLER}); its next one
                     evicts its own longest idle session
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
  store: string | undefined;
  storeCluster: boolean;
  auth: AuthSettings | undefined;
}

type Flags = Record<string, string | boolean | string[] | undefined>;

function integerFlag(flags: Flags, name: IntegerFlag, fallback: number): number {
  const value = flags[name] as string | undefined;
  if (value === undefined) return fallback;
  const [min, max] = RANGES[name];
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < min || number > max)
    usageError(`--${name} must be an integer from ${min} to ${max}`);
  return number;
}

/** Reads argv: the settings to serve with, or the text --help or --version prints instead. */
function settingsFromArgv(): Settings | { print: string } {
  let flags: Flags;
  try {
    flags = parseArgs({
      options: {
        transport: { type: 'string', default: 'stdio' },
        host: { type: 'string' },
        port: { type: 'string' },
        'timeout-ms': { type: 'string' },
        'max-sessions': { type: 'string' },
        'session-idle-ms': { type: 'string' },
        'session-evict-after-ms': { type: 'string' },
        'session-keep-ms': { type: 'string' },
        instance: { type: 'string' },
        stateless: { type: 'boolean' },
        'drain-ms': { type: 'string' },
        store: { type: 'string' },
        'store-cluster': { type: 'boolean' },
        'auth-issuer': { type: 'string' },
        'auth-resource': { type: 'string' },
        'auth-scope': { type: 'string', multiple: true },
        'auth-tokens': { type: 'string' },
        'auth-introspection-client': { type: 'string' },
        'max-sessions-per-caller': { type: 'string' },
        version: { type: 'boolean', short: 'v', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    return usageError((error as Error).message);
  }
  if (flags.help) return { print: USAGE };
  if (flags.version) return { print: `${VERSION}\n` };
  const transport = flags.transport as string;
  if (transport !== 'stdio' && transport !== 'streamable-http' && transport !== 'sse') {
    usageError(`unknown transport "${transport}" (choose stdio, streamable-http or sse)`);
  }
  if (transport === 'stdio') {
    const given = HTTP_ONLY.find((name) => flags[name] !== undefined);
    if (given)
      usageError(
        `--${given} has no effect with stdio: add --transport streamable-http (or sse) to serve HTTP, or leave it out`,
      );
  }
  const port = integerFlag(flags, 'port', transport === 'stdio' ? 0 : DEFAULT_PORTS[transport]);
  const timeoutMs = integerFlag(flags, 'timeout-ms', DEFAULT_CALL_TIMEOUT_MS);
  const sessions: SessionLimits = {
    maxSessions: integerFlag(flags, 'max-sessions', DEFAULT_SESSION_LIMITS.maxSessions),
    idleMs: integerFlag(flags, 'session-idle-ms', DEFAULT_SESSION_LIMITS.idleMs),
    evictableAfterMs: integerFlag(flags, 'session-evict-after-ms', DEFAULT_SESSION_LIMITS.evictableAfterMs),
    engagedEvictableAfterMs: integerFlag(
      flags,
      'session-keep-ms',
      DEFAULT_SESSION_LIMITS.engagedEvictableAfterMs,
    ),
  };
  const auth = authFromFlags(flags);
  if (auth)
    sessions.maxSessionsPerCaller = integerFlag(
      flags,
      'max-sessions-per-caller',
      DEFAULT_SESSIONS_PER_CALLER,
    );
  else if (flags['max-sessions-per-caller'] !== undefined)
    usageError(
      '--max-sessions-per-caller needs --auth-issuer or --auth-tokens: without authentication there are no callers to tell apart',
    );
  const instance = flags.instance as string | undefined;
  if (instance !== undefined && !INSTANCE_NAME.test(instance))
    usageError('--instance must be 1 to 32 letters, digits, - or _');
  if ((instance !== undefined || flags.stateless) && transport !== 'streamable-http')
    usageError('--instance and --stateless apply to --transport streamable-http only');
  const store = flags.store as string | undefined;
  if (store !== undefined) {
    if (transport !== 'streamable-http') usageError('--store applies to --transport streamable-http only');
    const problem = storeUrlProblem(store, flags['store-cluster'] === true);
    if (problem) usageError(problem);
  } else if (flags['store-cluster'])
    usageError('--store-cluster names how to use the --store URL: give --store too');
  return {
    transport,
    host: (flags.host as string | undefined) ?? '127.0.0.1',
    port,
    timeoutMs,
    sessions,
    instance,
    stateless: flags.stateless === true,
    drainMs: integerFlag(flags, 'drain-ms', DEFAULT_DRAIN_MS),
    store,
    storeCluster: flags['store-cluster'] === true,
    auth,
  };
}

/** The three authentication flags, checked together; undefined when authentication is off. */
function authFromFlags(flags: Flags): AuthSettings | undefined {
  const issuer = flags['auth-issuer'] as string | undefined;
  const resource = flags['auth-resource'] as string | undefined;
  const scopes = (flags['auth-scope'] as string[] | undefined) ?? [];
  const tokensFile = flags['auth-tokens'] as string | undefined;
  if (tokensFile !== undefined) {
    if (
      issuer !== undefined ||
      resource !== undefined ||
      scopes.length > 0 ||
      flags['auth-introspection-client']
    )
      usageError(
        '--auth-tokens is instead of --auth-issuer: give one or the other (--auth-resource and --auth-scope go with --auth-issuer)',
      );
    return { tokensFile };
  }
  if (issuer === undefined) {
    if (resource !== undefined || scopes.length > 0 || flags['auth-introspection-client'] !== undefined)
      usageError('--auth-resource, --auth-scope and --auth-introspection-client need --auth-issuer');
    return undefined;
  }
  if (resource === undefined)
    usageError(
      '--auth-issuer needs --auth-resource: the URL clients reach this server at, e.g. https://xml.example.com/mcp',
    );
  if (!URL.canParse(issuer)) usageError(`--auth-issuer must be a URL (https://…): "${issuer}"`);
  if (!URL.canParse(resource) || new URL(resource).hash !== '')
    usageError(`--auth-resource must be an absolute URL without a #fragment: "${resource}"`);
  const bad = scopes.find((scope) => !/^[\x21\x23-\x5B\x5D-\x7E]+$/.test(scope));
  if (bad !== undefined) usageError(`--auth-scope takes one scope, without spaces or quotes: "${bad}"`);
  const clientId = flags['auth-introspection-client'] as string | undefined;
  if (clientId === undefined) return { issuer, resource, requiredScopes: scopes };
  // The secret is read from the environment, never argv, which `ps` shows to every user.
  const clientSecret = process.env.OXML_AUTH_CLIENT_SECRET;
  if (!clientSecret)
    usageError(
      '--auth-introspection-client needs the client secret in the environment variable OXML_AUTH_CLIENT_SECRET',
    );
  return { issuer, resource, requiredScopes: scopes, introspection: { clientId, clientSecret } };
}

/** One line for a port or address the server cannot listen on, instead of a stack trace. */
function listenFailure(error: unknown, settings: Settings): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') return `port ${settings.port} is in use; pick another with --port`;
  if (code === 'EACCES') return `no permission to listen on port ${settings.port}; pick another with --port`;
  if (code === 'EADDRNOTAVAIL') return `cannot listen on ${settings.host}: not an address of this machine`;
  if (code === 'ENOTFOUND') return `cannot listen on ${settings.host}: the name does not resolve`;
  return undefined;
}

/** The engine once started: every way out closes it first (`exit`). */
let engine: EnginePool | undefined;

/**
 * Exits once the engine's threads are gone. Node.js 22 and later can die in a V8 fatal error
 * (exit 133) when the process exits while a worker is still loading libxml2 (issue 36): at end of
 * an empty input, or failing to start, that is the first worker.
 */
async function exit(code: number): Promise<never> {
  await engine?.close();
  process.exit(code);
}

async function main(): Promise<void> {
  const parsed = settingsFromArgv();
  // Printed to stdout, and before any protocol starts, so `$(oxml-mcp --version)` is the version.
  if ('print' in parsed) {
    process.stdout.write(parsed.print);
    return;
  }
  const settings = parsed;
  // The first worker starts before the transport and the SDK are imported, so its load of
  // libxml2 runs on its own thread while this one reads the SDK; only the transport in use is
  // loaded (docs/adr/0020-start-the-worker-before-the-sdk.md).
  const pool = new EnginePool({ timeoutMs: settings.timeoutMs });
  engine = pool;
  pool.warm();
  const onError = (error: Error) => log(error.message);
  let stop: () => Promise<void> = async () => {};
  let drain: () => Promise<void> = async () => {};
  const shutdown = (how: () => Promise<void>) => async () => {
    await how().catch(() => {});
    await exit(0);
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
    const { runStdio } = await import('./transports/serve-stdio.js');
    const { HeldDocuments } = await import('./tools/held-documents.js');
    // stdio keeps its handles for the whole connection: its one client is the only one waiting
    // for the memory, so they go only by the bounds or at its end (docs/adr/0039).
    const failure = await runStdio(pool, log, new HeldDocuments({ idleMs: Number.POSITIVE_INFINITY }));
    if (failure) log('stdout failed; exiting');
    return exit(failure ? 1 : 0);
  }
  const { serveHttp } = await import('./transports/serve-http.js');
  // The store's client is loaded only when one is asked for (docs/adr/0041).
  const documents =
    settings.store === undefined
      ? undefined
      : await (await import('./tools/shared-store/open-shared-store.js')).openSharedStore(
          settings.store,
          settings.storeCluster,
          log,
        );
  // The issuer's metadata is read before the port opens: a wrong issuer stops the start.
  const auth =
    settings.auth === undefined
      ? undefined
      : await (await import('./transports/auth/bearer-gate.js'))
          .openBearerGate(settings.auth, onError)
          .catch((error: Error) => {
            log(error.message);
            return exit(1);
          });
  const listening = await serveHttp(settings.transport, pool, {
    host: settings.host,
    port: settings.port,
    onError,
    limits: settings.sessions,
    ...(settings.instance === undefined ? {} : { instance: settings.instance }),
    stateless: settings.stateless,
    ...(documents === undefined ? {} : { documents }),
    ...(auth === undefined ? {} : { auth }),
  }).catch((error: unknown) => {
    const line = listenFailure(error, settings);
    if (line === undefined) throw error;
    log(line);
    return exit(1);
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
  return exit(1);
});
