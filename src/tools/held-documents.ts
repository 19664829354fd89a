import { fingerprint, sameBytes } from '../engine/runtime/document-cache.js';
import { LiftedDocument } from '../lifted-document.js';
import {
  HELD_DOCUMENT_IDLE_MS,
  HELD_DOCUMENT_OVERHEAD_BYTES,
  MAX_DOCUMENT_BYTES,
  MAX_HELD_PROCESS_BYTES,
  MAX_HELD_SESSION_BYTES,
} from '../limits.js';
import type { DocumentScope, DocumentStore, HeldText } from './document-store.js';
import { handleKey, sameHandle } from './handle-key.js';
import { newHandle } from './random-handle.js';

/*
 * The process's own store of held texts (docs/adr/0016-document-handles.md,
 * docs/adr/0039-handles-outlive-their-connection.md). The text is kept on the main thread in
 * shared memory: a call by handle hands the same bytes to a worker without copying them. A handle
 * is a bearer capability: any call to this process that presents it gets the text, whatever its
 * connection, until the text goes: its session ended, it was idle past `idleMs`, or the bounds
 * needed its room (least recently used first). With authentication on, only a call by the same
 * subject gets it (docs/adr/0054-bearer-tokens-and-handles-of-their-caller.md).
 */

/** What `newHandle` makes (random-handle.ts): `d_` and 128 random bits, base64url. */
const HANDLE = /^d_[A-Za-z0-9_-]{22}$/;

/** Whether `handle` has the shape of one this server makes: anything else is a miss at once. */
export const isHandle = (handle: string): boolean => HANDLE.test(handle);

/** How often a quiet process frees expired texts no call has come to look at. */
const SWEEP_MS = 60_000;

export interface HeldLimits {
  /** Text one session keeps; its least recently used document goes first. */
  sessionBytes: number;
  /** Text every scope keeps together; the least recently used document goes first. */
  processBytes: number;
  /** A text not used for this long is let go (Infinity: only the bounds and the session's end). */
  idleMs: number;
}

export interface HeldOptions extends Partial<HeldLimits> {
  /** A monotonic clock in ms; tests drive expiry with their own. */
  now?: () => number;
}

const DEFAULT_LIMITS: HeldLimits = {
  sessionBytes: MAX_HELD_SESSION_BYTES,
  processBytes: MAX_HELD_PROCESS_BYTES,
  idleMs: HELD_DOCUMENT_IDLE_MS,
};

interface Held {
  readonly handle: string;
  /** `handleKey(handle, owner)`: what the store files it under. */
  readonly key: string;
  readonly bytes: Uint8Array;
  /** The text and what holding it costs beyond the text, counted against both bounds. */
  readonly charge: number;
  /** Its length and fingerprint: the same text sent again in the scope gets the same handle. */
  readonly textKey: string;
  readonly scope: HeldScope;
  lastUsed: number;
}

/**
 * Every held text of the process in one least-recently-used order, so the process bound and the
 * idle expiry both take the document used longest ago, whoever sent it.
 */
export class HeldDocuments implements DocumentStore {
  readonly limits: HeldLimits;
  readonly stateless: HeldScope;
  /** Each authenticated caller's stateless scope: the same text sent by two gets two handles. */
  readonly #statelessByOwner = new Map<string, HeldScope>();
  readonly #now: () => number;
  /** handleKey → document, least recently used first. */
  readonly #order = new Map<string, Held>();
  #bytes = 0;
  #sweeper: NodeJS.Timeout | undefined;

  constructor({ now = () => performance.now(), ...limits }: HeldOptions = {}) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
    this.#now = now;
    // Stateless requests have no session of their own: together they are bounded by the process.
    this.stateless = new HeldScope(this, this.limits.processBytes);
  }

  /** Bytes held for every scope (the text and each document's overhead). */
  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#order.size;
  }

  /** A session's scope; with authentication on, `owner` is its caller's subject (docs/adr/0054). */
  open(owner?: string): HeldScope {
    return new HeldScope(this, this.limits.sessionBytes, owner);
  }

  /**
   * The stateless scope of one authenticated caller. One per subject, kept while the process runs:
   * only a holder of a valid token makes one, so there are as many as the issuer has callers.
   */
  statelessFor(owner: string): HeldScope {
    let scope = this.#statelessByOwner.get(owner);
    if (!scope) {
      scope = new HeldScope(this, this.limits.processBytes, owner);
      this.#statelessByOwner.set(owner, scope);
    }
    return scope;
  }

  /**
   * The document a handle names for its owner, if held and not expired; a use, so it becomes the
   * most recent. Another owner's handle is filed under another key: the same miss as an unknown one.
   */
  lookup(handle: string, owner?: string): Held | undefined {
    this.expire();
    if (!HANDLE.test(handle)) return undefined;
    const held = this.#order.get(handleKey(handle, owner));
    if (!held || !sameHandle(held.handle, handle)) return undefined;
    this.touch(held);
    return held;
  }

  /** The document filed under a key (a shared store's refresh knows its keys). */
  lookupKey(key: string): Held | undefined {
    this.expire();
    return this.#order.get(key);
  }

  has(handle: string, owner?: string): boolean {
    this.expire();
    const held = HANDLE.test(handle) ? this.#order.get(handleKey(handle, owner)) : undefined;
    return held !== undefined && sameHandle(held.handle, handle);
  }

  /** A new document: makes room for its charge in the process, least recently used first. */
  admit(handle: string, bytes: Uint8Array, charge: number, textKey: string, scope: HeldScope): Held {
    this.expire();
    const held: Held = {
      handle,
      key: handleKey(handle, scope.owner),
      bytes,
      charge,
      textKey,
      scope,
      lastUsed: this.#now(),
    };
    for (const oldest of this.#order.values()) {
      if (this.#bytes + charge <= this.limits.processBytes) break;
      oldest.scope.release(oldest.handle);
    }
    this.#order.set(held.key, held);
    this.#bytes += charge;
    this.#sweepWhileHolding();
    return held;
  }

  touch(held: Held): void {
    held.lastUsed = this.#now();
    this.#order.delete(held.key);
    this.#order.set(held.key, held);
    held.scope.touched(held);
  }

  drop(held: Held): void {
    if (this.#order.delete(held.key)) this.#bytes -= held.charge;
    if (this.#order.size === 0) this.#stopSweeping();
  }

  /** Lets go of every text idle for `idleMs` or more: the oldest are first in the order. */
  expire(): void {
    const now = this.#now();
    for (const oldest of this.#order.values()) {
      if (now - oldest.lastUsed < this.limits.idleMs) break;
      oldest.scope.release(oldest.handle);
    }
  }

  /** A timer only while something is held and can expire, and never one that keeps the process up. */
  #sweepWhileHolding(): void {
    if (this.#sweeper || !Number.isFinite(this.limits.idleMs)) return;
    this.#sweeper = setInterval(() => this.expire(), Math.min(SWEEP_MS, this.limits.idleMs));
    this.#sweeper.unref();
  }

  #stopSweeping(): void {
    clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }
}

/**
 * The texts one scope sent: a session's, or every stateless request's (one caller's, with
 * authentication on). It bounds and orders its own texts, and the same text sent again in it gets
 * the same handle; a handle is looked up in the whole store, so any scope may present any handle
 * it was given, and with an owner, any scope of the same owner.
 */
export class HeldScope implements DocumentScope {
  /** The authenticated caller whose texts these are; undefined with authentication off. */
  readonly owner: string | undefined;
  readonly #store: HeldDocuments;
  readonly #maxBytes: number;
  /** Handle → document, least recently used first. */
  readonly #byHandle = new Map<string, Held>();
  readonly #byText = new Map<string, Held>();
  #bytes = 0;
  #closed = false;

  constructor(store: HeldDocuments, maxBytes: number, owner?: string) {
    this.owner = owner;
    this.#store = store;
    this.#maxBytes = maxBytes;
  }

  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#byHandle.size;
  }

  /**
   * Keeps a copy of the text and answers its handle (the handle it already has when this scope
   * sent the same text before); undefined when it cannot be held (over the document limit, or the
   * session ended).
   */
  hold(text: string | LiftedDocument): HeldText | undefined {
    const length = text instanceof LiftedDocument ? text.bytes.byteLength : Buffer.byteLength(text, 'utf8');
    const charge = length + HELD_DOCUMENT_OVERHEAD_BYTES;
    if (this.#closed || length > MAX_DOCUMENT_BYTES || charge > this.#maxBytes) return undefined;
    // Encoded (or copied) once, straight into memory the workers can read without a copy.
    const bytes = new Uint8Array(new SharedArrayBuffer(length));
    if (text instanceof LiftedDocument) bytes.set(text.bytes);
    else Buffer.from(bytes.buffer).write(text, 'utf8');
    const textKey = `${length}:${fingerprint(bytes)}`;
    this.#store.expire();
    const known = this.#byText.get(textKey);
    if (known && sameBytes(known.bytes, bytes)) {
      this.#store.touch(known);
      return { handle: known.handle, bytes: known.bytes, fresh: false };
    }
    const held = this.#keep(newHandle(), bytes, charge, textKey);
    return { handle: held.handle, bytes, fresh: true };
  }

  /**
   * Keeps a text another process held, under the handle it was given there (a shared store's,
   * docs/adr/0041): counted, bounded and expired like any text this scope holds. False when it
   * cannot be held (over the document limit, or larger than this scope's bound).
   */
  adopt(handle: string, bytes: Uint8Array): boolean {
    const charge = bytes.byteLength + HELD_DOCUMENT_OVERHEAD_BYTES;
    if (this.#closed || bytes.byteLength > MAX_DOCUMENT_BYTES || charge > this.#maxBytes) return false;
    if (this.#store.lookup(handle, this.owner)) return true;
    this.#keep(handle, bytes, charge, `${bytes.byteLength}:${fingerprint(bytes)}`);
    return true;
  }

  #keep(handle: string, bytes: Uint8Array, charge: number, textKey: string): Held {
    for (const oldest of this.#byHandle.values()) {
      if (this.#bytes + charge <= this.#maxBytes) break;
      this.release(oldest.handle);
    }
    const held = this.#store.admit(handle, bytes, charge, textKey, this);
    this.#byHandle.set(held.handle, held);
    this.#byText.set(textKey, held);
    this.#bytes += charge;
    return held;
  }

  get(handle: string): Uint8Array | undefined {
    return this.#store.lookup(handle, this.owner)?.bytes;
  }

  holds(handle: string): boolean {
    return this.#store.has(handle, this.owner);
  }

  release(handle: string): void {
    const held = this.#byHandle.get(handle);
    if (!held) return;
    this.#byHandle.delete(handle);
    if (this.#byText.get(held.textKey) === held) this.#byText.delete(held.textKey);
    this.#bytes -= held.charge;
    this.#store.drop(held);
  }

  close(): void {
    this.leave();
    for (const handle of [...this.#byHandle.keys()]) this.release(handle);
  }

  /** The texts stay in the store's order, and its expiry and process bound release them here. */
  leave(): void {
    this.#closed = true;
  }

  /** One of this scope's texts was used (by whoever presented its handle): it is now the most recent. */
  touched(held: Held): void {
    this.#byHandle.delete(held.handle);
    this.#byHandle.set(held.handle, held);
  }
}

/** The process's store; `createServer` may be given another (tests, smaller bounds, stdio's). */
export const heldDocuments = new HeldDocuments();
