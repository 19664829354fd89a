import type { ServerResponse } from 'node:http';
import { MAX_UNREAD_HTTP_REPLY_BYTES } from '../limits.js';

/** How often the open responses are looked at while any is open: replies pile up in seconds, not less. */
const SWEEP_MS = 500;

/**
 * What the HTTP responses of one server hold unwritten, bounded for the whole process: when the
 * sum passes `maxBytes`, the response holding the most is destroyed (its client is not reading
 * it, and gets its connection closed) until the rest fit. Looked at as each request arrives and
 * every SWEEP_MS while a response is open, so replies finishing in the engine queue are caught
 * too. A `writableLength` is what the response and its socket hold, so this is an exact count of
 * the memory replies keep.
 */
export class UnreadReplies {
  readonly #open = new Set<ServerResponse>();
  readonly #maxBytes: number;
  readonly #onCut: (bytes: number) => void;
  #timer: NodeJS.Timeout | undefined;
  /** Responses cut off so far (for tests and diagnostics). */
  cut = 0;

  constructor(maxBytes = MAX_UNREAD_HTTP_REPLY_BYTES, onCut: (bytes: number) => void = () => {}) {
    this.#maxBytes = maxBytes;
    this.#onCut = onCut;
  }

  track(res: ServerResponse): void {
    this.sweep();
    this.#open.add(res);
    res.once('close', () => {
      this.#open.delete(res);
      if (this.#open.size === 0) this.#stopTimer();
    });
    if (!this.#timer) {
      this.#timer = setInterval(() => this.sweep(), SWEEP_MS);
      this.#timer.unref();
    }
  }

  sweep(): void {
    let total = 0;
    for (const res of this.#open) total += res.writableLength;
    while (total > this.#maxBytes) {
      let largest: ServerResponse | undefined;
      for (const res of this.#open)
        if (!largest || res.writableLength > largest.writableLength) largest = res;
      if (!largest) return;
      const bytes = largest.writableLength;
      total -= bytes;
      this.#open.delete(largest);
      this.cut++;
      this.#onCut(bytes);
      largest.destroy();
    }
  }

  close(): void {
    this.#stopTimer();
    this.#open.clear();
  }

  #stopTimer(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
