/**
 * What the calls waiting for a worker hold, in all and per client (a session or connection),
 * and whether one more may wait (issue 24, M2). Two rules:
 *
 * - **A share per client.** One client may hold at most a quarter of the waiting calls and of
 *   their bytes, so a session that keeps 256 slow calls waiting cannot have every other session
 *   refused "busy" (admission was global; the fair queue only ordered service).
 * - **Shared text counted once.** A held document's bytes are shared memory (ADR 0016), the same
 *   buffer in every call by its handle: counted once while any waiting call holds it, not once
 *   per call (31 calls of 200 bytes by handle had registered 248 MiB).
 *
 * As for the global bound, a call larger than a share still waits when its client has nothing
 * else waiting: it is within the argument limits, and refusing it would refuse it for good.
 */

/** What one call's arguments hold: bytes of its own, and views of shared memory (held documents). */
export interface Holding {
  own: number;
  shared: readonly Uint8Array[];
}

export interface LedgerLimits {
  maxCalls: number;
  maxBytes: number;
}

/** The part of each bound one client may take. */
export const CLIENT_SHARE = 1 / 4;

/** A refusal: the calls or bytes already waiting, and whether they are the asking client's share. */
/**
 * The fair line of an authenticated caller (docs/adr/0054): every session and stateless request
 * of one subject waits in it, so its share is the caller's, not a session's.
 */
export const callerLine = (subject: string): string => `caller ${subject}`;

export type Refusal = { calls: number; client: boolean } | { bytes: number; client: boolean };

export class WaitingLedger {
  readonly #limits: LedgerLimits;
  readonly #all = new Tally();
  readonly #byClient = new Map<string, Tally>();

  constructor(limits: LedgerLimits) {
    this.#limits = limits;
  }

  /** Bytes the waiting calls hold, shared buffers once. */
  get bytes(): number {
    return this.#all.bytes;
  }

  /** Why one more call of `client` holding `holding` may not wait, or undefined when it may. */
  refusal(client: string, holding: Holding): Refusal | undefined {
    const { maxCalls, maxBytes } = this.#limits;
    if (this.#all.calls >= maxCalls) return { calls: this.#all.calls, client: false };
    if (this.#all.calls > 0 && this.#all.bytes + this.#all.adds(holding) > maxBytes)
      return { bytes: this.#all.bytes, client: false };
    const mine = this.#byClient.get(client);
    if (mine === undefined || client === '') return undefined;
    if (mine.calls >= Math.max(1, Math.floor(maxCalls * CLIENT_SHARE)))
      return { calls: mine.calls, client: true };
    if (mine.bytes + mine.adds(holding) > maxBytes * CLIENT_SHARE) return { bytes: mine.bytes, client: true };
    return undefined;
  }

  add(client: string, holding: Holding): void {
    this.#all.add(holding);
    let mine = this.#byClient.get(client);
    if (mine === undefined) {
      mine = new Tally();
      this.#byClient.set(client, mine);
    }
    mine.add(holding);
  }

  remove(client: string, holding: Holding): void {
    this.#all.remove(holding);
    const mine = this.#byClient.get(client);
    if (mine === undefined) return;
    mine.remove(holding);
    if (mine.calls === 0) this.#byClient.delete(client);
  }

  clear(): void {
    this.#all.clear();
    this.#byClient.clear();
  }
}

/** Each shared buffer of a holding once, with the bytes its view shows. */
function sharedSizes(holding: Holding): Map<ArrayBufferLike, number> {
  const sizes = new Map<ArrayBufferLike, number>();
  for (const view of holding.shared)
    sizes.set(view.buffer, Math.max(sizes.get(view.buffer) ?? 0, view.byteLength));
  return sizes;
}

/** Calls and bytes, each shared buffer counted while at least one call holds it. */
class Tally {
  calls = 0;
  bytes = 0;
  readonly #holders = new Map<ArrayBufferLike, number>();

  /** The bytes `holding` would add: its own, and the shared texts no call here holds yet. */
  adds(holding: Holding): number {
    let bytes = holding.own;
    for (const [buffer, size] of sharedSizes(holding)) if (!this.#holders.has(buffer)) bytes += size;
    return bytes;
  }

  add(holding: Holding): void {
    this.bytes += this.adds(holding);
    this.calls++;
    for (const [buffer] of sharedSizes(holding))
      this.#holders.set(buffer, (this.#holders.get(buffer) ?? 0) + 1);
  }

  remove(holding: Holding): void {
    this.calls--;
    this.bytes -= holding.own;
    for (const [buffer, size] of sharedSizes(holding)) {
      const holders = (this.#holders.get(buffer) ?? 1) - 1;
      if (holders > 0) this.#holders.set(buffer, holders);
      else {
        this.#holders.delete(buffer);
        this.bytes -= size;
      }
    }
  }

  clear(): void {
    this.calls = 0;
    this.bytes = 0;
    this.#holders.clear();
  }
}
