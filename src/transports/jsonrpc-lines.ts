import { type JSONRPCMessage, parseJSONRPCMessage } from '@modelcontextprotocol/server';

export type RequestId = string | number;

export interface JsonRpcErrorReply {
  jsonrpc: '2.0';
  id: RequestId | null;
  error: { code: number; message: string };
}

/** What one line of input turned out to be: a message to deliver, or the error reply it earns. */
export type LineVerdict = { message: JSONRPCMessage } | { reply: JsonRpcErrorReply };

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;

/**
 * The refusal of a request whose id is still under way: it would share that request's
 * accounting and be freed by its answer (and JSON-RPC asks a client's ids in flight to differ).
 */
export function reusedIdMessage(id: RequestId): string {
  return `Invalid Request: the id ${JSON.stringify(id)} is already used by a request still under way; send each request with an id of its own.`;
}

export function errorReply(id: RequestId | null, code: number, message: string): JsonRpcErrorReply {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

/**
 * Classifies one line the way docs/behaviour.md §3 asks: malformed JSON is -32700 with a null id; a
 * request with an id and no method, or any other shape JSON-RPC does not define, is -32600
 * (with the id when one can be read). The SDK's stdio transport drops such lines silently. The
 * line's shape (nesting, members) was measured on its bytes before (json-shape.ts).
 */
export function classifyLine(line: string): LineVerdict {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return {
      reply: errorReply(
        null,
        PARSE_ERROR,
        `Parse error: the line is not valid JSON (${(error as Error).message}).`,
      ),
    };
  }
  return classifyValue(value);
}

/** The same classification for a line already parsed (by `classifyLine` or the lifting reader). */
export function classifyValue(value: unknown): LineVerdict {
  const id = readableId(value);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      reply: errorReply(
        null,
        INVALID_REQUEST,
        'Invalid Request: expected one JSON-RPC 2.0 message object per line (batches are not supported).',
      ),
    };
  }
  const record = value as Record<string, unknown>;
  if (!('method' in record) && 'id' in record && !('result' in record) && !('error' in record)) {
    return {
      reply: errorReply(id, INVALID_REQUEST, 'Invalid Request: the message has an `id` but no `method`.'),
    };
  }
  try {
    return { message: parseJSONRPCMessage(value) };
  } catch {
    return {
      reply: errorReply(
        id,
        INVALID_REQUEST,
        'Invalid Request: not a JSON-RPC 2.0 request, notification or response (check `jsonrpc: "2.0"`, `method` and `id`).',
      ),
    };
  }
}

function readableId(value: unknown): RequestId | null {
  if (typeof value !== 'object' || value === null) return null;
  const id = (value as { id?: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}
