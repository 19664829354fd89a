import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EnginePool } from '../engine/runtime/pool.js';
import type { ServerOptions } from '../server.js';
import { VERSION } from '../version.js';
import type { BearerGate } from './auth/bearer-gate.js';
import type { AuthenticatedRequest } from './auth/caller.js';
import { type Listening, listen, rebindingGuards, replyError, trustedHost } from './http-common.js';
import type { SessionLimits } from './sessions.js';
import { createStreamableHttpEndpoint, MCP_PATH } from './streamable-http.js';

export type HttpTransport = 'streamable-http' | 'sse';

export const HEALTH_PATH = '/healthz';

export interface HttpOptions {
  host: string;
  port: number;
  onError: (error: Error) => void;
  limits?: SessionLimits;
  /** The sessions' clock in ms (idle times, eviction order); tests move their own by hand. */
  now?: () => number;
  /** Streamable HTTP: the name session ids carry (streamable-http.ts). */
  instance?: string;
  /** Streamable HTTP: 2025-era requests are answered without sessions too. */
  stateless?: boolean;
  /**
   * Where texts are held for their handles: a store shared with other processes (`--store`,
   * Streamable HTTP only, docs/adr/0041), or a test's own; the process's store by default.
   */
  documents?: ServerOptions['documents'];
  /**
   * Bearer tokens on every MCP request (`--auth-issuer`, docs/adr/0054); none by default, as
   * before. `/healthz` stays open either way.
   */
  auth?: BearerGate;
}

export interface HttpService extends Listening {
  /**
   * Refuses new sessions and requests, waits up to `ms` for the calls in flight to be answered,
   * then closes every session and connection. Resolves with the calls left unanswered.
   */
  drain(ms: number): Promise<number>;
}

/** How often a drain looks at the calls in flight: a call takes milliseconds to a few seconds. */
const DRAIN_POLL_MS = 20;

/**
 * Serves one HTTP transport behind the DNS-rebinding guards, and `GET /healthz` beside it for a
 * load balancer's checks; resolves once it listens. The health answer names no tool and reads
 * nothing a client sent, so it is served before the `Host` check: a balancer or probe addresses
 * the process by whatever address it was given. The legacy SSE module, and with it
 * `@modelcontextprotocol/server-legacy`, is imported only when SSE is served
 * (docs/adr/0013-load-legacy-sse-on-demand.md).
 */
export async function serveHttp(
  kind: HttpTransport,
  engine: EnginePool,
  options: HttpOptions,
): Promise<HttpService> {
  const sse = kind === 'sse' ? await import('./sse.js') : undefined;
  const endpoint = sse
    ? sse.createSseEndpoint(engine, options.onError, options.limits, undefined, {
        now: options.now,
        documents: options.documents,
      })
    : createStreamableHttpEndpoint(engine, options.onError, {
        limits: options.limits,
        now: options.now,
        instance: options.instance,
        stateless: options.stateless,
        documents: options.documents,
      });
  const guard = rebindingGuards(options.host);
  /** While draining: when this process will be gone at the latest (ms since the epoch). */
  let drainingUntil: number | undefined;

  const trusted = trustedHost(options.host);
  /**
   * Any `Host` gets the status (a balancer probes by whatever address it has); only a `Host` the
   * `/mcp` endpoint would accept also gets the counts, which a stranger should not watch (how many
   * sessions and calls a server has says when others use it; issue 24).
   */
  const health = (req: IncomingMessage, res: ServerResponse) => {
    const body = JSON.stringify({
      status: drainingUntil === undefined ? 'ok' : 'draining',
      version: VERSION,
      ...(options.instance === undefined ? {} : { instance: options.instance }),
      ...(trusted(req)
        ? {
            sessions: endpoint.sessions.size,
            calls: endpoint.callsInFlight(),
            ...engine.stats,
            ...(options.documents?.health ? { store: options.documents.health() } : {}),
          }
        : {}),
    });
    res.writeHead(drainingUntil === undefined ? 200 : 503, {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-store',
    });
    res.end(body);
  };

  const listening = await listen(
    async (req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname === HEALTH_PATH && (req.method === 'GET' || req.method === 'HEAD')) {
        health(req, res);
        return;
      }
      // The metadata is public, like the health answer: a client reads it to learn where to get a token.
      if (options.auth && (await options.auth.serveMetadata(req, res))) return;
      if (!guard(req, res)) return;
      if (drainingUntil !== undefined) {
        refuseWhileDraining(req, res, url, drainingUntil);
        return;
      }
      if (options.auth) {
        const caller = await options.auth.authenticate(req, res);
        if (!caller) return;
        (req as AuthenticatedRequest).auth = caller;
      }
      await endpoint.handle(req, res);
    },
    options.host,
    options.port,
    sse ? sse.SSE_PATH : MCP_PATH,
    options.onError,
  );

  const close = async () => {
    await endpoint.close();
    await listening.close();
  };
  return {
    url: listening.url,
    close,
    async drain(ms) {
      drainingUntil = Date.now() + ms;
      while (endpoint.callsInFlight() > 0 && Date.now() < drainingUntil) {
        await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
      }
      const unanswered = endpoint.callsInFlight();
      await close();
      return unanswered;
    },
  };
}

/**
 * A draining process takes nothing new (docs/deploy.md, "Restarts"). A request of a session gets
 * the protocol's answer for a session that is gone, `404`, on which a client starts a new session
 * (which the balancer sends to another process); anything else gets `503` with the seconds until
 * this process has gone, which a balancer takes as its cue to try the next process. Either way
 * the connection is closed after the answer, so kept-alive connections wind down too.
 */
function refuseWhileDraining(req: IncomingMessage, res: ServerResponse, url: URL, until: number): void {
  // The body is read and dropped, so the client is not cut off while still sending it.
  req.resume();
  const close = { Connection: 'close' };
  if (typeof req.headers['mcp-session-id'] === 'string' || url.searchParams.has('sessionId')) {
    replyError(
      res,
      404,
      -32001,
      'Session not found: this server process is shutting down. Start a new session (initialize without Mcp-Session-Id, or GET /sse).',
      close,
    );
    return;
  }
  const seconds = Math.max(1, Math.ceil((until - Date.now()) / 1000));
  replyError(
    res,
    503,
    -32000,
    `Service Unavailable: this server process is shutting down; retry in ${seconds} s.`,
    {
      ...close,
      'Retry-After': String(seconds),
    },
  );
}
