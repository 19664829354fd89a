import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JSONRPCMessage, Server } from '@modelcontextprotocol/server';
import { SSEServerTransport } from '@modelcontextprotocol/server-legacy/sse';
import type { EnginePool } from '../engine/runtime/pool.js';
import { createServer, type ServerOptions } from '../server.js';
import { callerOf } from './auth/caller.js';
import { type NodeHandler, readJsonBody, replyError, replyNoSessionFree } from './http-common.js';
import { INVALID_REQUEST, reusedIdMessage } from './jsonrpc-lines.js';
import { DEFAULT_REPLY_LIMITS, ReplyBudget, type ReplyLimits } from './reply-budget.js';
import { type SessionLimits, SessionRegistry } from './sessions.js';

export const SSE_PATH = '/sse';
export const MESSAGES_PATH = '/messages/';

interface SseSession {
  readonly id: string;
  transport: SSEServerTransport;
  replies: ReplyBudget;
  server: Server;
  close(): Promise<void>;
}

/** The SDK's transport, telling the session's budget when a reply has been written. */
class BudgetedSseTransport extends SSEServerTransport {
  readonly #replies: ReplyBudget;

  constructor(endpoint: string, res: ServerResponse, replies: ReplyBudget) {
    super(endpoint, res);
    this.#replies = replies;
  }

  override async send(message: JSONRPCMessage): Promise<void> {
    try {
      await super.send(message);
    } finally {
      if ('result' in message || 'error' in message) this.#replies.answered(message.id);
    }
  }
}

export interface SseEndpoint {
  handle: NodeHandler;
  close(): Promise<void>;
  readonly sessions: SessionRegistry<SseSession>;
  /** POSTs being read and requests not yet answered down their stream: what a drain waits for. */
  callsInFlight(): number;
}

/**
 * The legacy HTTP+SSE transport (revision 2024-11-05) from the SDK's server-legacy package:
 * `GET /sse` opens a session and announces its `POST /messages/?sessionId=…` endpoint.
 * Same limits and checks as Streamable HTTP: bodies are read under our bound before the
 * SDK sees them (its own default is 4 MiB). Every reply of a session goes down its one stream, so
 * a POST is read only while that stream's unread replies and unanswered requests are within the
 * bounds stdio has (docs/adr/0010-output-back-pressure.md); meanwhile it waits, unread.
 */
export function createSseEndpoint(
  engine: EnginePool,
  onError: (error: Error) => void,
  limits?: SessionLimits,
  replyLimits: ReplyLimits = DEFAULT_REPLY_LIMITS,
  { now, documents }: { now?: (() => number) | undefined; documents?: ServerOptions['documents'] } = {},
): SseEndpoint {
  const sessions = new SessionRegistry<SseSession>(limits, now);

  async function open(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const owner = callerOf(req);
    // The stream is the session itself, not one of its requests: only POSTs count as activity,
    // or no SSE session could ever be evicted or reaped
    // (docs/adr/0009-evict-the-longest-idle-session.md).
    const admission = sessions.admit(() => {
      const replies = new ReplyBudget(res, replyLimits);
      const transport = new BudgetedSseTransport(MESSAGES_PATH, res, replies);
      // No DELETE here, and a stream cut by a proxy or the network ends a session just as its
      // client closing it does: its texts stay for their handles until they expire (ADR 0047).
      const server = createServer(engine, {
        cacheDocuments: true,
        textsOutliveSession: () => true,
        owner,
        ...(documents === undefined ? {} : { documents }),
      });
      return { id: transport.sessionId, transport, replies, server, close: () => server.close() };
    }, owner);
    if (!admission.ok) {
      replyNoSessionFree(res, sessions.size, admission.retryAfterSeconds);
      return;
    }
    const { id, server, transport } = admission.session;
    res.on('close', () => {
      sessions.remove(id);
      server.close().catch(onError);
    });
    await server.connect(transport);
  }

  let posts = 0;
  async function post(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    posts += 1;
    res.once('close', () => {
      posts -= 1;
    });
    const id = url.searchParams.get('sessionId') ?? '';
    // Another caller's session is as unknown as one that ended (docs/adr/0054).
    const session = sessions.ownerOf(id) === callerOf(req) ? sessions.begin(id) : undefined;
    if (!session) {
      replyError(
        res,
        404,
        -32001,
        'Session not found: open a new one with GET /sse and post to the endpoint it announces.',
      );
      return;
    }
    res.once('close', () => sessions.end(id));
    // The body stays unread (in the socket) while the client has not read what it was sent.
    const read = await session.replies.admit(async () => {
      const body = await readJsonBody(req, res);
      if (!body.ok) return body;
      // Refused on the POST, not on the stream: a reply there with this id would settle the
      // request under way.
      const reused = session.replies.reusedId(body.body);
      if (reused !== undefined) {
        replyError(res, 400, INVALID_REQUEST, reusedIdMessage(reused));
        return { ok: false as const };
      }
      if ((body.body as { method?: unknown } | null)?.method === 'tools/call') sessions.engage(id);
      return { ...body, owed: session.replies.received(body.body, body.bytes) };
    });
    if (!read.ok) return;
    if (!sessions.has(id)) {
      replyError(res, 404, -32001, 'Session not found: its stream closed while this message waited.');
      return;
    }
    await session.transport.handlePostMessage(req, res, read.body);
    // A request the SDK refused is owed nothing. Only a request this POST made owed is settled:
    // a message with another request's id and no method (`{"jsonrpc":"2.0","id":K}`) must not
    // free K's place while K runs (issue 24, M4).
    if (res.statusCode !== 202 && read.owed !== undefined) session.replies.answered(read.owed);
  }

  const handle: NodeHandler = async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'GET' && url.pathname === SSE_PATH) return open(req, res);
    if (req.method === 'POST' && (url.pathname === MESSAGES_PATH || url.pathname === '/messages'))
      return post(req, res, url);
    replyError(
      res,
      404,
      -32000,
      `Not Found: open the stream with GET ${SSE_PATH}, then POST to ${MESSAGES_PATH}?sessionId=….`,
    );
  };

  const callsInFlight = () => {
    let owed = 0;
    for (const session of sessions.list()) owed += session.replies.owed;
    return posts + owed;
  };
  return { handle, sessions, callsInFlight, close: () => sessions.closeAll() };
}
