import type { Writable } from 'node:stream';
import { MAX_IN_FLIGHT_REQUEST_BYTES, MAX_UNWRITTEN_OUTPUT_BYTES } from '../limits.js';
import type { RequestId } from './jsonrpc-lines.js';

export interface ReplyLimits {
  maxUnwrittenBytes: number;
  maxInFlightBytes: number;
}

export const DEFAULT_REPLY_LIMITS: ReplyLimits = {
  maxUnwrittenBytes: MAX_UNWRITTEN_OUTPUT_BYTES,
  maxInFlightBytes: MAX_IN_FLIGHT_REQUEST_BYTES,
};

/**
 * What a session owes a client whose replies all go down one stream (legacy SSE): the replies
 * written there and not yet taken, and the requests read and not yet answered. While either is
 * over its bound (as on stdio, docs/adr/0010-output-back-pressure.md) the caller reads no further
 * request: `ready()` waits for the stream's `'drain'`, an answer, or the stream's end.
 */
export class ReplyBudget {
  readonly #stream: Writable;
  readonly #limits: ReplyLimits;
  readonly #pending = new Map<RequestId, number>();
  #inFlightBytes = 0;
  #waiters: Array<() => void> = [];
  #ended = false;
  /** The message being read; the next one waits for it, so each is counted before the next is let in. */
  #turn: Promise<void> = Promise.resolve();

  constructor(stream: Writable, limits: ReplyLimits = DEFAULT_REPLY_LIMITS) {
    this.#stream = stream;
    this.#limits = limits;
    stream.on('drain', this.#wake);
    stream.on('close', () => {
      this.#ended = true;
      this.#pending.clear();
      this.#wake();
    });
  }

  /** Whether a further request may be read now. */
  get open(): boolean {
    const owedTooMuch = this.#pending.size > 0 && this.#inFlightBytes >= this.#limits.maxInFlightBytes;
    return !owedTooMuch && this.#stream.writableLength <= this.#limits.maxUnwrittenBytes;
  }

  /** Requests read and not yet answered (what a drain waits for). */
  get owed(): number {
    return this.#pending.size;
  }

  /** Requests waiting, unread, for the client to read its replies (for tests and diagnostics). */
  get waiting(): number {
    return this.#waiters.length;
  }

  /** Resolves once a further request may be read, or the stream has ended (nothing is owed then). */
  async ready(): Promise<void> {
    while (!this.#ended && !this.open) await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  /**
   * Runs `read` (which reads one message and reports it with `received`) once the bounds allow,
   * one message at a time: messages arriving together would all find the budget open otherwise.
   */
  admit<T>(read: () => Promise<T>): Promise<T> {
    const turn = this.#turn.then(() => this.ready()).then(read);
    this.#turn = turn.then(
      () => {},
      () => {},
    );
    return turn;
  }

  /** The id of a request still owed an answer, when `message` reuses one: it must be refused. */
  reusedId(message: unknown): RequestId | undefined {
    const { id, method } = (message ?? {}) as { id?: unknown; method?: unknown };
    return typeof method === 'string' && isId(id) && this.#pending.has(id) ? id : undefined;
  }

  /**
   * A message read from the client, `bytes` long: a request is owed an answer, a cancellation
   * frees one. A request reusing an owed id must be refused first (`reusedId`). Returns the id
   * now owed, if the message was a request: only that id may later be settled on its behalf.
   */
  received(message: unknown, bytes: number): RequestId | undefined {
    const { id, method, params } = (message ?? {}) as { id?: unknown; method?: unknown; params?: unknown };
    if (method === 'notifications/cancelled') this.answered((params as { requestId?: unknown })?.requestId);
    else if (typeof method === 'string' && isId(id) && !this.#ended) {
      this.#pending.set(id, bytes);
      this.#inFlightBytes += bytes;
      return id;
    }
    return undefined;
  }

  /** The request `id` was answered (after its reply was written) or will never be. */
  answered(id: unknown): void {
    const bytes = isId(id) ? this.#pending.get(id) : undefined;
    if (isId(id) && bytes !== undefined) {
      this.#pending.delete(id);
      this.#inFlightBytes -= bytes;
    }
    this.#wake();
  }

  #wake = (): void => {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  };
}

const isId = (id: unknown): id is RequestId => typeof id === 'string' || typeof id === 'number';
