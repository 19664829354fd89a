import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import type { Server } from '@modelcontextprotocol/server';
import {
  classifyInboundRequest,
  createMcpHandler,
  isInitializeRequest,
  type McpRequestContext,
} from '@modelcontextprotocol/server';
import type { EnginePool } from '../engine/runtime/pool.js';
import { createServer, type ServerOptions } from '../server.js';
import { callerOf, subjectOf } from './auth/caller.js';
import {
  MAX_HTTP_BODY_BYTES,
  type NodeHandler,
  readJsonBody,
  replyError,
  replyNoSessionFree,
} from './http-common.js';
import { type SessionLimits, SessionRegistry } from './sessions.js';

export const MCP_PATH = '/mcp';

interface LegacySession {
  readonly id: string;
  transport: NodeStreamableHTTPServerTransport;
  server: Server;
  close(): Promise<void>;
}

export interface StreamableHttpEndpoint {
  handle: NodeHandler;
  close(): Promise<void>;
  /** Live 2025-era sessions (the 2026-07-28 revision keeps none). */
  readonly sessions: SessionRegistry<LegacySession>;
  /** POSTs whose answer has not been written yet: what a drain waits for. */
  callsInFlight(): number;
}

export interface StreamableHttpOptions {
  limits?: SessionLimits | undefined;
  /** The sessions' clock in ms; tests move their own. */
  now?: (() => number) | undefined;
  /**
   * Names this process in every session id it issues (`NAME.` and a random UUID), so a load
   * balancer can send a session's requests back to the process that holds it
   * (docs/adr/0014-session-ids-name-their-process.md).
   */
  instance?: string | undefined;
  /** Serves 2025-era requests without sessions too (each POST on its own, no GET stream). */
  stateless?: boolean | undefined;
  /** Where texts are held for their handles: the process's own store unless `--store` names a shared one. */
  documents?: ServerOptions['documents'] | undefined;
}

/**
 * One `/mcp` endpoint for both eras (docs/adr/0004-one-http-endpoint-two-eras.md). Requests
 * carrying the 2026-07-28 envelope go to the SDK's stateless `createMcpHandler`; everything else
 * (the 2025 `initialize` handshake and the session it opens) goes to one sessionful SDK transport
 * per session. The SDK's `classifyInboundRequest` makes the routing decision, so it cannot
 * disagree with the SDK.
 */
export function createStreamableHttpEndpoint(
  engine: EnginePool,
  onError: (error: Error) => void,
  options: StreamableHttpOptions = {},
): StreamableHttpEndpoint {
  const { limits, instance, stateless = false } = options;
  const documents = options.documents === undefined ? {} : { documents: options.documents };
  // A stateless request (2026-07-28, or any under --stateless) keeps no parsed document, but the
  // texts it sends are held in the process's store for their handles, which any later request
  // may present (docs/adr/0039); a 2025 session keeps its parsed documents and its own texts.
  // With authentication on, the request's caller owns the texts it sends (docs/adr/0054).
  const factory = ({ authInfo }: McpRequestContext) =>
    createServer(engine, { holdTexts: true, owner: subjectOf(authInfo), ...documents });
  const modern = createMcpHandler(factory, {
    legacy: stateless ? 'stateless' : 'reject',
    onerror: onError,
    maxRequestBodySize: MAX_HTTP_BODY_BYTES,
  });
  const serveModern = toNodeHandler(modern, { onerror: onError, maxRequestBodySize: MAX_HTTP_BODY_BYTES });
  const sessions = new SessionRegistry<LegacySession>(limits, options.now);

  function newSession(owner: string | undefined): LegacySession {
    // The id is ours, not the SDK's, so the session holds its slot from the moment it is admitted.
    const id = instance === undefined ? randomUUID() : `${instance}.${randomUUID()}`;
    // Only the client's DELETE frees the session's texts at once; when the server ends it
    // (eviction, reaping, shutdown) they stay for the handles its client still has (ADR 0047).
    let deleted = false;
    const server = createServer(engine, {
      cacheDocuments: true,
      textsOutliveSession: () => !deleted,
      owner,
      ...documents,
    });
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      maxRequestBodySize: MAX_HTTP_BODY_BYTES,
      onsessionclosed: () => {
        deleted = true;
        sessions.remove(id);
      },
    });
    // Closing the server closes its transport, whose close frees the session's parsed documents.
    return { id, transport, server, close: () => server.close() };
  }

  /**
   * The request counts as activity of its session until its response closes: a running call or
   * an open GET stream keeps the session from being evicted, since a client that has left closes
   * both; only a call keeps it from the idle reaper (docs/adr/0009-evict-the-longest-idle-session.md).
   */
  function inFlightUntilClosed(
    id: string,
    req: IncomingMessage,
    res: ServerResponse,
  ): LegacySession | undefined {
    const kind = req.method === 'GET' ? 'stream' : 'call';
    const session = sessions.begin(id, kind);
    if (session) res.once('close', () => sessions.end(id, kind));
    return session;
  }

  /** A tools/call (alone, not in a batch): its session is a client at work (ADR 0036). */
  function isToolCall(body: unknown): boolean {
    return (body as { method?: unknown } | null)?.method === 'tools/call';
  }

  async function openSession(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const owner = callerOf(req);
    const admission = sessions.admit(() => newSession(owner), owner);
    if (!admission.ok) {
      replyNoSessionFree(
        res,
        sessions.size,
        admission.retryAfterSeconds,
        ', or end sessions you no longer use with DELETE /mcp',
      );
      return;
    }
    const { id, server, transport } = admission.session;
    inFlightUntilClosed(id, req, res);
    res.once('close', () => {
      // The SDK refused the handshake (406, 400…): no session was opened, so free the slot.
      if (transport.sessionId === undefined) {
        sessions.remove(id);
        server.close().catch(onError);
      }
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  async function serveLegacy(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      // Another caller's session is as unknown as one that ended (docs/adr/0054).
      const session = sessions.ownerOf(id) === callerOf(req) ? inFlightUntilClosed(id, req, res) : undefined;
      if (!session) {
        replyError(res, 404, -32001, `Session not found: ${whyUnknown(id, instance)}`);
        return;
      }
      if (isToolCall(body)) sessions.engage(id);
      await session.transport.handleRequest(req, res, body);
      if (req.method === 'DELETE') sessions.remove(id);
      return;
    }
    if (req.method === 'POST' && isInitializeRequest(body)) {
      await openSession(req, res, body);
      return;
    }
    replyError(
      res,
      400,
      -32000,
      'Bad Request: no Mcp-Session-Id header. Start a session with an initialize request, or send the 2026-07-28 revision in _meta.',
    );
  }

  let posts = 0;
  const handle: NodeHandler = async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== MCP_PATH) {
      replyError(res, 404, -32000, `Not Found: the MCP endpoint is ${MCP_PATH}.`);
      return;
    }
    if (req.method === 'POST') {
      posts += 1;
      res.once('close', () => {
        posts -= 1;
      });
    }
    let body: unknown;
    if (req.method === 'POST') {
      const read = await readJsonBody(req, res);
      if (!read.ok) return;
      body = read.body;
    }
    if (!stateless && isLegacy(req, body)) {
      await serveLegacy(req, res, body);
    } else {
      await serveModern(req, res, body);
    }
  };

  return {
    handle,
    sessions,
    callsInFlight: () => posts,
    close: async () => {
      await sessions.closeAll();
      await modern.close();
    },
  };
}

/** What a client whose session is gone is told; a session id naming another process says so. */
function whyUnknown(id: string, instance: string | undefined): string {
  const start = 'Send a new initialize request without Mcp-Session-Id.';
  const owner = /^([A-Za-z0-9_-]+)\./.exec(id)?.[1];
  if (instance === undefined || owner === undefined || owner === instance)
    return `it ended or expired. ${start}`;
  return `it was opened by instance "${owner}" (this is "${instance}"), which has stopped or is not reachable. ${start}`;
}

/**
 * The routing `isLegacyRequest` does, from the method, the three headers and the body already
 * parsed: its own form takes a web Request, for which the body would be serialised again (and a
 * lifted document with it) only to be read back. A POST without a JSON body is legacy there too.
 */
function isLegacy(req: IncomingMessage, body: unknown): boolean {
  const httpMethod = (req.method ?? 'GET').toUpperCase();
  if (httpMethod === 'POST' && body === undefined) return true;
  const outcome = classifyInboundRequest({
    httpMethod,
    protocolVersionHeader: header(req, 'mcp-protocol-version'),
    mcpMethodHeader: header(req, 'mcp-method'),
    mcpNameHeader: header(req, 'mcp-name'),
    ...(body === undefined ? {} : { body }),
  });
  return outcome.kind === 'legacy';
}

/** A header as web `Headers.get` gives it: repeated values joined with ", ". */
function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
