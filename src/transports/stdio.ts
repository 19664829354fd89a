import { randomUUID } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { type ByteTexts, decodedText } from '../byte-texts.js';
import {
  DEFAULT_CALL_TIMEOUT_MS,
  MAX_IN_FLIGHT_REQUEST_BYTES,
  MAX_MESSAGE_BYTES,
  MAX_UNWRITTEN_OUTPUT_BYTES,
} from '../limits.js';
import { type BytesInPlace, jsonLine } from './json-line.js';
import { jsonShapeRefusal } from './json-shape.js';
import {
  classifyLine,
  classifyValue,
  errorReply,
  INVALID_REQUEST,
  type RequestId,
  reusedIdMessage,
} from './jsonrpc-lines.js';
import { LEADING_ID_BYTES, leadingId } from './leading-id.js';
import { LIFT_DOCUMENTS_FROM_BYTES, parseLineLiftingDocuments } from './lift-documents.js';

const NEWLINE = 0x0a;

/** The line buffer's starting size, and the size past which it is not kept for the next line. */
const LINE_BUFFER_BYTES = 64 * 1024;
const KEEP_LINE_BUFFER_BYTES = 16 * 1024 * 1024;
/** How long replies still owed at end of input may take; every engine call has a shorter deadline. */
const END_OF_INPUT_GRACE_MS = DEFAULT_CALL_TIMEOUT_MS * 3;

/**
 * Line-framed stdio for the SDK's `serveStdio`, completing the SDK's own transport where
 * docs/adr/0003-stdio-transport.md asks more of it: a bad line gets a JSON-RPC error reply instead of silence, an oversized
 * line is skipped with an error reply instead of closing the session, the line limit fits an
 * 8 MiB document at its worst JSON escaping, and at end of input the replies still owed are
 * written before the transport closes (the SDK aborts them). A large `tools/call` line has its
 * documents taken out as UTF-8 bytes instead of being decoded whole (docs/adr/0007).
 *
 * Reading follows the client's reading (docs/adr/0010-output-back-pressure.md): no request is
 * read while the replies written exceed `maxUnwrittenBytes` unread by the client, nor while the
 * requests read and not yet answered add up to `maxInFlightBytes`; reading resumes on stdout's
 * `'drain'` or the answer. A failed stdout (the client went away) closes the transport.
 *
 * A reply's text can be handed over as UTF-8 bytes (`ByteTexts`, docs/adr/0029): the result holds
 * a placeholder, and the bytes are JSON-escaped into the line in its place, never decoded.
 */
const JSON_WHITESPACE_AROUND = /^[ \t\n\r]+|[ \t\n\r]+$/g;

export class LineStdioTransport implements Transport, ByteTexts {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /**
   * Resolves once the transport has closed, whichever side closed it: with the stdout error that
   * closed it, or undefined at the end of input.
   */
  readonly closed: Promise<Error | undefined>;

  readonly #input: Readable;
  readonly #output: Writable;
  readonly #maxLineBytes: number;
  readonly #liftFrom: number;
  readonly #maxUnwrittenBytes: number;
  readonly #maxInFlightBytes: number;
  /** Requests delivered and not yet answered, with the size of their line. */
  readonly #pending = new Map<RequestId, number>();
  /** Texts held as bytes for the replies of requests still owed (see `hold`). */
  readonly #heldTexts = new Map<RequestId, BytesInPlace>();
  #inFlightBytes = 0;
  /** True while input is paused for the client to read or for answers; see #updateFlow. */
  #paused = false;
  /** True from the moment the unwritten replies pass their bound until they drain. */
  #waitingForClient = false;
  readonly #onUnreadOutput: ((unwrittenBytes: number) => void) | undefined;
  /** The rest of the chunk being split into lines when reading paused, read first on resume. */
  #held: Buffer | undefined;
  /** The line being read, in one buffer reused from line to line (see #append). */
  #line: Buffer = Buffer.allocUnsafeSlow(LINE_BUFFER_BYTES);
  #buffered = 0;
  /** True while the rest of an oversized line is being thrown away. */
  #skipping = false;
  #inputEnded = false;
  #isClosed = false;
  #failure: Error | undefined;
  #resolveClosed: (failure: Error | undefined) => void = () => {};

  constructor(
    input: Readable,
    output: Writable,
    options: {
      maxLineBytes?: number;
      liftDocumentsFromBytes?: number;
      maxUnwrittenBytes?: number;
      maxInFlightBytes?: number;
      /** Called each time reading pauses because the client has not read its replies. */
      onUnreadOutput?: (unwrittenBytes: number) => void;
    } = {},
  ) {
    this.#input = input;
    this.#output = output;
    this.#maxLineBytes = options.maxLineBytes ?? MAX_MESSAGE_BYTES;
    this.#liftFrom = options.liftDocumentsFromBytes ?? LIFT_DOCUMENTS_FROM_BYTES;
    this.#maxUnwrittenBytes = options.maxUnwrittenBytes ?? MAX_UNWRITTEN_OUTPUT_BYTES;
    this.#maxInFlightBytes = options.maxInFlightBytes ?? MAX_IN_FLIGHT_REQUEST_BYTES;
    this.#onUnreadOutput = options.onUnreadOutput;
    this.closed = new Promise((resolve) => {
      this.#resolveClosed = resolve;
    });
  }

  async start(): Promise<void> {
    this.#input.on('data', this.#onData);
    this.#input.on('end', this.#onEnd);
    this.#input.on('error', (error: Error) => this.onerror?.(error));
    this.#output.on('drain', this.#updateFlow);
    // EPIPE when the client closed its end, ENOBUFS when the system refused the write: nothing
    // written from now on can arrive, so the session ends instead of answering into the void.
    this.#output.on('error', (error: Error) => {
      this.#failure ??= error;
      this.onerror?.(error);
      void this.close();
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#isClosed) return;
    const answered = 'id' in message && ('result' in message || 'error' in message) ? message.id : undefined;
    const held = answered === undefined ? undefined : this.#heldTexts.get(answered);
    if (answered !== undefined) this.#heldTexts.delete(answered);
    this.#write(message, held);
    this.#settle(answered as RequestId | undefined);
  }

  /**
   * Only while `id` is owed a reply: a request cancelled (or a transport closed) first gets the
   * text itself, which no reply will carry, so nothing is held that nothing would take.
   */
  hold(id: RequestId, bytes: Uint8Array): string {
    if (this.#isClosed || !this.#pending.has(id)) return decodedText(bytes);
    const placeholder = `oxml-bytes-${randomUUID()}`;
    this.#heldTexts.set(id, { placeholder, bytes });
    return placeholder;
  }

  /** Texts held as bytes and not yet written (for tests and diagnostics). */
  get heldTexts(): number {
    return this.#heldTexts.size;
  }

  /**
   * Buffers, so the stream's unwritten length counts bytes; a large reply is several, written
   * together (corked) so no other message can come between them.
   */
  #write(message: JSONRPCMessage, held?: BytesInPlace): void {
    const line = jsonLine(message, held);
    this.#output.cork();
    for (const buffer of line) this.#output.write(buffer);
    this.#output.uncork();
  }

  async close(): Promise<void> {
    if (this.#isClosed) return;
    this.#isClosed = true;
    this.#input.off('data', this.#onData);
    this.#input.off('end', this.#onEnd);
    this.#output.off('drain', this.#updateFlow);
    // A paused stdin does not keep the process alive; a flowing one with no reader would.
    this.#input.pause();
    this.#held = undefined;
    this.#heldTexts.clear();
    this.#buffered = 0;
    this.onclose?.();
    this.#resolveClosed(this.#failure);
  }

  /** Requests read and not yet answered, in bytes of their lines (for tests and diagnostics). */
  get inFlightBytes(): number {
    return this.#inFlightBytes;
  }

  /** True while no request is read: the client has not read its replies, or too many are owed. */
  get paused(): boolean {
    return this.#paused;
  }

  /**
   * Pauses reading while the client has not taken `maxUnwrittenBytes` of replies or the requests
   * owed an answer reach `maxInFlightBytes`, and resumes when neither holds. The calls already
   * read run on and are written; the bytes after the last line read wait in `#held`.
   */
  #updateFlow = (): void => {
    if (this.#isClosed) return;
    const owedTooMuch = this.#pending.size > 0 && this.#inFlightBytes >= this.#maxInFlightBytes;
    const unwritten = this.#output.writableLength;
    const unread = unwritten > this.#maxUnwrittenBytes;
    if (unread && !this.#waitingForClient) {
      this.#waitingForClient = true;
      this.#onUnreadOutput?.(unwritten);
    }
    if (owedTooMuch || unread) {
      if (!this.#paused) {
        this.#paused = true;
        this.#input.pause();
      }
      return;
    }
    this.#waitingForClient = false;
    if (!this.#paused) return;
    this.#paused = false;
    const held = this.#held;
    this.#held = undefined;
    if (held) this.#onData(held);
    if (!this.#paused) this.#input.resume();
    this.#closeIfDone();
  };

  /** After a write or a cancellation: the request `id` (if any) is no longer owed. */
  #settle(id: RequestId | undefined): void {
    const bytes = id === undefined ? undefined : this.#pending.get(id);
    if (id !== undefined && bytes !== undefined) {
      this.#pending.delete(id);
      this.#heldTexts.delete(id);
      this.#inFlightBytes -= bytes;
    }
    this.#updateFlow();
    this.#closeIfDone();
  }

  #onEnd = (): void => {
    this.#inputEnded = true;
    this.#closeIfDone();
    this.#armBackstop();
  };

  /**
   * A request the server never answers must not keep the process alive forever; replies the
   * client is still reading are not that, and requests held for it to read them are still owed.
   */
  #armBackstop(): void {
    setTimeout(() => {
      if (this.#output.writableLength > 0) this.#armBackstop();
      else void this.close();
    }, END_OF_INPUT_GRACE_MS).unref();
  }

  /** At the end of input, once every request read (or held unread) has been answered. */
  #closeIfDone(): void {
    if (this.#inputEnded && this.#pending.size === 0 && this.#held === undefined) void this.close();
  }

  #onData = (chunk: Buffer): void => {
    let start = 0;
    for (let newline = chunk.indexOf(NEWLINE); newline >= 0; newline = chunk.indexOf(NEWLINE, start)) {
      this.#append(chunk.subarray(start, newline));
      this.#endLine();
      start = newline + 1;
      if (this.#paused) {
        if (start < chunk.length) this.#held = chunk.subarray(start);
        return;
      }
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
    const large = bytes.length >= this.#liftFrom;
    const refusal = jsonShapeRefusal(bytes, large);
    if (refusal) {
      this.#reply(errorReply(leadingId(bytes), INVALID_REQUEST, refusal));
      return;
    }
    const lifted = large ? parseLineLiftingDocuments(bytes) : undefined;
    let verdict: ReturnType<typeof classifyLine>;
    if (lifted) verdict = classifyValue(lifted);
    else {
      // JSON's own whitespace only, as HTTP's JSON.parse has it: `.trim()` also took a BOM, NBSP,
      // U+2028 or U+3000 around a line that HTTP refuses (issue 24).
      const line = bytes.toString('utf8').replace(JSON_WHITESPACE_AROUND, '');
      if (line === '') return;
      verdict = classifyLine(line);
    }
    if ('reply' in verdict) {
      this.#reply(verdict.reply);
      return;
    }
    const { message } = verdict;
    if ('method' in message && 'id' in message && message.id !== undefined) {
      // One id, one request: an id reused while its request runs would share its accounting and
      // be freed by the first answer, slipping past the in-flight bound (and JSON-RPC asks ids
      // to be unique among the requests a client has under way).
      if (this.#pending.has(message.id)) {
        // Written, not sent: sending a reply with this id would settle the request under way.
        this.#write(errorReply(message.id, INVALID_REQUEST, reusedIdMessage(message.id)) as JSONRPCMessage);
        this.#updateFlow();
        return;
      }
      this.#pending.set(message.id, bytes.length);
      this.#inFlightBytes += bytes.length;
      this.#updateFlow();
    }
    this.onmessage?.(message);
    if ('method' in message && message.method === 'notifications/cancelled')
      this.#settleCancelled(message.params);
  }

  /** A cancelled request gets no reply (MCP), so it is no longer owed at end of input. */
  #settleCancelled(params: unknown): void {
    const id = (params as { requestId?: unknown } | undefined)?.requestId;
    this.#settle(typeof id === 'string' || typeof id === 'number' ? id : undefined);
  }

  /**
   * The transport's own answer to a line it refused. Written, never sent: the line was no request
   * under way, so its reply must settle none, even when it names the id of one that is (a line
   * `{"jsonrpc":"2.0","id":K}` would otherwise free request K's place in the in-flight bound while
   * K still runs; issue 24, M4).
   */
  #reply(reply: ReturnType<typeof errorReply>): void {
    if (this.#isClosed) return;
    this.#write(reply as JSONRPCMessage);
    this.#settle(undefined);
  }
}
