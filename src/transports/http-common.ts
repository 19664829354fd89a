import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostHeaderValidation, originValidation } from '@modelcontextprotocol/node';
import { isJsonContentType, localhostAllowedHostnames } from '@modelcontextprotocol/server';
import { MAX_MESSAGE_BYTES, MAX_PARSED_JSON_BYTES, MAX_UNREAD_HTTP_REPLY_BYTES } from '../limits.js';
import { jsonShapeRefusal } from './json-shape.js';
import { INVALID_REQUEST } from './jsonrpc-lines.js';
import { LIFT_DOCUMENTS_FROM_BYTES, parseLineLiftingDocuments } from './lift-documents.js';
import { UnreadReplies } from './unread-replies.js';

/**
 * The one bound on an HTTP request body, for every place that reads one (ours and the SDK's,
 * whose defaults are 4 MiB): it lets any 8 MiB document through at its worst JSON escaping,
 * exactly as the stdio line limit does.
 */
export const MAX_HTTP_BODY_BYTES = MAX_MESSAGE_BYTES;

export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export interface Listening {
  url: string;
  close(): Promise<void>;
}

/** Answers with a JSON-RPC error body and an HTTP status, as the SDK's own transports do. */
export function replyError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/** A full session table with a call in flight in every session (sessions.ts): 503, briefly. */
export function replyNoSessionFree(res: ServerResponse, open: number, seconds: number, advice = ''): void {
  replyError(
    res,
    503,
    -32000,
    `Service Unavailable: all ${open} sessions have a request in flight; retry in ${seconds} s${advice}.`,
    { 'Retry-After': String(seconds) },
  );
}

const UNLIFTED_BODY_MESSAGE = (size: number) =>
  `Invalid Request: a body of ${size} bytes that is not a tools/call with its documents as JSON strings; only documents make a message this large (past ${MAX_PARSED_JSON_BYTES} bytes otherwise). Send the document in \`xml\` (or \`xsd\`) of a tools/call.`;

export type BodyResult = { ok: true; body: unknown; bytes: number } | { ok: false };

/**
 * Reads and parses a POST body under the size bound, answering 415, 413 or 400 itself when the
 * body cannot be served. Parsing here (once) lets every SDK transport be handed `parsedBody`; a
 * large `tools/call` has its documents lifted out as bytes, as on stdio (lift-documents.ts). A
 * body nested too deep, or a large one with too many members, is refused from its bytes before
 * anything parses it (json-shape.ts).
 */
export async function readJsonBody(req: IncomingMessage, res: ServerResponse): Promise<BodyResult> {
  if (!isJsonContentType(req.headers['content-type'] ?? '')) {
    replyError(res, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json.');
    return { ok: false };
  }
  if (declaredTooLarge(req)) {
    refuseTooLarge(req, res);
    return { ok: false };
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_HTTP_BODY_BYTES) {
      refuseTooLarge(req, res);
      return { ok: false };
    }
    chunks.push(chunk);
  }
  const bytes = Buffer.concat(chunks, size);
  const large = size >= LIFT_DOCUMENTS_FROM_BYTES;
  const refusal = jsonShapeRefusal(bytes, large);
  if (refusal) {
    replyError(res, 400, INVALID_REQUEST, refusal);
    return { ok: false };
  }
  const lifted = large ? parseLineLiftingDocuments(bytes) : undefined;
  if (lifted) return { ok: true, body: lifted, bytes: size };
  if (size > MAX_PARSED_JSON_BYTES) {
    replyError(res, 400, INVALID_REQUEST, UNLIFTED_BODY_MESSAGE(size));
    return { ok: false };
  }
  const text = bytes.toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    replyError(res, 400, -32700, `Parse error: the body is not valid JSON (${(error as Error).message}).`);
    return { ok: false };
  }
  return { ok: true, body, bytes: size };
}

function declaredTooLarge(req: IncomingMessage): boolean {
  const declared = Number(req.headers['content-length']);
  return Number.isFinite(declared) && declared > MAX_HTTP_BODY_BYTES;
}

/** How long the rest of a refused upload is read and thrown away before the socket is cut. */
const DISCARD_MS = 10_000;

/**
 * Answers 413 and keeps reading (and dropping) the rest of the upload: closing the socket while
 * the client is still sending makes the kernel reset the connection, and the client would lose
 * the 413 already on its way. A client that keeps sending past the grace period is cut off.
 */
function refuseTooLarge(req: IncomingMessage, res: ServerResponse): void {
  replyError(
    res,
    413,
    -32000,
    `Payload Too Large: the body exceeds ${MAX_HTTP_BODY_BYTES} bytes. Documents are limited to 8 MiB each.`,
  );
  req.removeAllListeners('data');
  req.resume();
  const cutOff = setTimeout(() => req.destroy(), DISCARD_MS);
  cutOff.unref();
  req.once('end', () => clearTimeout(cutOff));
}

/**
 * DNS-rebinding protection (docs/behaviour.md §4): `Host` must name this server (loopback names, or the
 * address it was told to bind), and a browser `Origin`, when present, must be local too.
 */
export function rebindingGuards(host: string): (req: IncomingMessage, res: ServerResponse) => boolean {
  const names = allowedHostnames(host);
  const validHost = hostHeaderValidation([...names]);
  const validOrigin = originValidation([...names]);
  return (req, res) => validHost(req, res) && validOrigin(req, res);
}

function allowedHostnames(host: string): Set<string> {
  const names = new Set(localhostAllowedHostnames());
  if (!isWildcard(host)) names.add(host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);
  return names;
}

/** Whether a request's `Host` names this server as the rebinding guard accepts it, answering nothing. */
export function trustedHost(host: string): (req: IncomingMessage) => boolean {
  const names = allowedHostnames(host);
  return (req) => {
    const header = req.headers.host;
    if (header === undefined) return false;
    const name = header.startsWith('[')
      ? header.slice(0, header.indexOf(']') + 1)
      : header.replace(/:\d+$/, '');
    return names.has(name.toLowerCase());
  };
}

function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '[::]';
}

/** Starts a plain `node:http` server and resolves once it listens; port 0 picks a free one. */
export async function listen(
  handler: NodeHandler,
  host: string,
  port: number,
  path: string,
  onError: (error: Error) => void,
  maxUnreadReplyBytes = MAX_UNREAD_HTTP_REPLY_BYTES,
): Promise<Listening & { server: HttpServer; unread: UnreadReplies }> {
  const unread = new UnreadReplies(maxUnreadReplyBytes, (bytes) =>
    onError(new Error(`closed a connection whose client left ${bytes} bytes of its reply unread`)),
  );
  const serve = (req: IncomingMessage, res: ServerResponse) => {
    unread.track(res);
    handler(req, res).catch((error: Error) => {
      onError(error);
      replyError(res, 500, -32603, 'Internal server error');
    });
  };
  const server = createServer(serve);
  // `Expect: 100-continue`: refuse an over-long body before the client sends it, instead of
  // inviting it and then refusing it.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (declaredTooLarge(req)) {
      refuseTooLarge(req, res);
      return;
    }
    res.writeContinue();
    serve(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    unread,
    url: `http://${shownHost}:${address.port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        unread.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
