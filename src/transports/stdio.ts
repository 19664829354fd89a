import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { DEFAULT_CALL_TIMEOUT_MS, MAX_MESSAGE_BYTES } from '../xml/limits.js';
import { classifyLine, classifyValue, errorReply, INVALID_REQUEST, type RequestId } from './jsonrpc-lines.js';
import { LEADING_ID_BYTES, leadingId } from './leading-id.js';
import { LIFT_DOCUMENTS_FROM_BYTES, parseLineLiftingDocuments } from './lift-documents.js';

const NEWLINE = 0x0a;

/** The line buffer's starting size, and the size past which it is not kept for the next line. */
const LINE_BUFFER_BYTES = 64 * 1024;
const KEEP_LINE_BUFFER_BYTES = 16 * 1024 * 1024;
/** How long replies still owed at end of input may take; every engine call has a shorter deadline. */
const END_OF_INPUT_GRACE_MS = DEFAULT_CALL_TIMEOUT_MS * 3;

/**
 * Line-framed stdio for the SDK's `serveStdio`, completing the SDK's own transport where SPEC
 * §3 asks more of it: a bad line gets a JSON-RPC error reply instead of silence, an oversized
 * line is skipped with an error reply instead of closing the session, the line limit fits an
 * 8 MiB document at its worst JSON escaping, and at end of input the replies still owed are
 * written before the transport closes (the SDK aborts them). A large `tools/call` line has its
 * documents taken out as UTF-8 bytes instead of being decoded whole (docs/adr/0007).
 */
export class LineStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** Resolves once the transport has closed, whichever side closed it. */
  readonly closed: Promise<void>;

  readonly #input: Readable;
  readonly #output: Writable;
  readonly #maxLineBytes: number;
  readonly #liftFrom: number;
  readonly #pending = new Set<RequestId>();
  /** The line being read, in one buffer reused from line to line (see #append). */
  #line: Buffer = Buffer.allocUnsafeSlow(LINE_BUFFER_BYTES);
  #buffered = 0;
  /** True while the rest of an oversized line is being thrown away. */
  #skipping = false;
  #inputEnded = false;
  #isClosed = false;
  #resolveClosed: () => void = () => {};

  constructor(
    input: Readable,
    output: Writable,
    options: { maxLineBytes?: number; liftDocumentsFromBytes?: number } = {},
  ) {
    this.#input = input;
    this.#output = output;
    this.#maxLineBytes = options.maxLineBytes ?? MAX_MESSAGE_BYTES;
    this.#liftFrom = options.liftDocumentsFromBytes ?? LIFT_DOCUMENTS_FROM_BYTES;
    this.closed = new Promise((resolve) => {
      this.#resolveClosed = resolve;
    });
  }

  async start(): Promise<void> {
    this.#input.on('data', this.#onData);
    this.#input.on('end', this.#onEnd);
    this.#input.on('error', (error: Error) => this.onerror?.(error));
    this.#output.on('error', (error: Error) => {
      this.onerror?.(error);
      void this.close();
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#isClosed) return;
    const line = `${JSON.stringify(message)}\n`;
    if (!this.#output.write(line)) {
      await new Promise<void>((resolve) => this.#output.once('drain', resolve));
    }
    if ('id' in message && ('result' in message || 'error' in message) && message.id !== undefined) {
      this.#pending.delete(message.id as RequestId);
      this.#closeIfDone();
    }
  }

  async close(): Promise<void> {
    if (this.#isClosed) return;
    this.#isClosed = true;
    this.#input.off('data', this.#onData);
    this.#input.off('end', this.#onEnd);
    this.#buffered = 0;
    this.onclose?.();
    this.#resolveClosed();
  }

  #onEnd = (): void => {
    this.#inputEnded = true;
    this.#closeIfDone();
    // Backstop: a request the server never answers must not keep the process alive forever.
    setTimeout(() => void this.close(), END_OF_INPUT_GRACE_MS).unref();
  };

  #closeIfDone(): void {
    if (this.#inputEnded && this.#pending.size === 0) void this.close();
  }

  #onData = (chunk: Buffer): void => {
    let start = 0;
    for (let newline = chunk.indexOf(NEWLINE); newline >= 0; newline = chunk.indexOf(NEWLINE, start)) {
      this.#append(chunk.subarray(start, newline));
      this.#endLine();
      start = newline + 1;
    }
    this.#append(chunk.subarray(start));
  };

  #append(piece: Buffer): void {
    if (this.#skipping || piece.length === 0) return;
    if (this.#buffered + piece.length > this.#maxLineBytes) {
      const id = leadingId(this.#lineStart(piece));
      this.#buffered = 0;
      this.#skipping = true;
      this.#reply(
        errorReply(
          id,
          INVALID_REQUEST,
          `Invalid Request: the message is longer than this transport's limit of ${this.#maxLineBytes} bytes and was skipped. Documents are limited to 8 MiB each.`,
        ),
      );
      return;
    }
    // One buffer for every line, grown when a line needs it, instead of a new multi-megabyte
    // buffer per line: fewer large allocations for the allocator to fragment (docs/testing.md).
    if (this.#buffered + piece.length > this.#line.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(this.#buffered + piece.length, this.#line.length * 2));
      this.#line.copy(grown, 0, 0, this.#buffered);
      this.#line = grown;
    }
    piece.copy(this.#line, this.#buffered);
    this.#buffered += piece.length;
  }

  /** The first bytes of the line being read, `piece` being the next part of it. */
  #lineStart(piece: Buffer): Buffer {
    const kept = this.#line.subarray(0, Math.min(this.#buffered, LEADING_ID_BYTES));
    return Buffer.concat([kept, piece.subarray(0, LEADING_ID_BYTES - kept.length)]);
  }

  #endLine(): void {
    if (this.#skipping) {
      this.#skipping = false;
      return;
    }
    // Read synchronously below: nothing keeps a reference to these bytes past this call.
    const bytes = this.#line.subarray(0, this.#buffered);
    this.#buffered = 0;
    if (this.#line.length > KEEP_LINE_BUFFER_BYTES) this.#line = Buffer.allocUnsafeSlow(LINE_BUFFER_BYTES);
    const lifted = bytes.length >= this.#liftFrom ? parseLineLiftingDocuments(bytes) : undefined;
    let verdict: ReturnType<typeof classifyLine>;
    if (lifted) verdict = classifyValue(lifted);
    else {
      const line = bytes.toString('utf8').trim();
      if (line === '') return;
      verdict = classifyLine(line);
    }
    if ('reply' in verdict) {
      this.#reply(verdict.reply);
      return;
    }
    const { message } = verdict;
    if ('method' in message && 'id' in message && message.id !== undefined) this.#pending.add(message.id);
    this.onmessage?.(message);
    if ('method' in message && message.method === 'notifications/cancelled')
      this.#settleCancelled(message.params);
  }

  /** A cancelled request gets no reply (MCP), so it is no longer owed at end of input. */
  #settleCancelled(params: unknown): void {
    const id = (params as { requestId?: unknown } | undefined)?.requestId;
    if ((typeof id === 'string' || typeof id === 'number') && this.#pending.delete(id)) this.#closeIfDone();
  }

  #reply(reply: ReturnType<typeof errorReply>): void {
    this.send(reply as JSONRPCMessage).catch((error: Error) => this.onerror?.(error));
  }
}
