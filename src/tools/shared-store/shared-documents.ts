import type { LiftedDocument } from '../../lifted-document.js';
import { HELD_DOCUMENT_IDLE_MS, MAX_DOCUMENT_BYTES } from '../../limits.js';
import type { DocumentScope, DocumentStore, HeldText } from '../document-store.js';
import { handleKey } from '../handle-key.js';
import { type HeldDocuments, type HeldScope, isHandle } from '../held-documents.js';
import type { RedisTexts, StoreState } from './redis-texts.js';
import type { FaultCounts } from './store-faults.js';

/*
 * Held texts shared by every process behind a balancer (docs/adr/0041): the process's own store
 * (held-documents.ts, its bounds, order and expiry unchanged) in front of Redis or Valkey. A text
 * held here is written there under the digest of its handle, with the idle lifetime as its TTL;
 * a handle this process does not hold is fetched from there once and then held here like any
 * text. Only that fetch makes a call wait for the store: a use of a text held here answers at
 * once, and its TTL is started again in a batch a moment later.
 */

/** How long uses are gathered before their TTLs are started again in one round trip. */
const REFRESH_MS = 1_000;
/** A session's keys remembered for its end; older ones are left to their TTL. */
const MAX_SESSION_KEYS = 4_096;

/**
 * What /healthz shows of the store: its state and counts, never a key or a handle; each kind of
 * fault counted since the start (docs/adr/0052).
 */
export interface SharedStoreHealth extends Record<string, string | number>, FaultCounts {
  state: StoreState;
  mode: 'single' | 'cluster';
  /** Texts this process holds: its own and those fetched. */
  held: number;
  fetched: number;
  writesFailed: number;
}

export class SharedDocuments implements DocumentStore {
  readonly stateless: SharedScope;
  readonly #statelessByOwner = new Map<string, SharedScope>();
  readonly #local: HeldDocuments;
  readonly #remote: RedisTexts;
  readonly #ttlMs: number;
  /** Keys used since the last refresh (the store is asked about each; one it lost is written again). */
  #touched = new Set<string>();
  #refresher: NodeJS.Timeout | undefined;
  /** Fetches under way, so that calls presenting the same handle share one round trip. */
  readonly #fetching = new Map<string, Promise<Uint8Array | undefined>>();
  #fetched = 0;
  #writesFailed = 0;

  constructor(local: HeldDocuments, remote: RedisTexts) {
    this.#local = local;
    this.#remote = remote;
    this.#ttlMs = Number.isFinite(local.limits.idleMs) ? local.limits.idleMs : HELD_DOCUMENT_IDLE_MS;
    this.stateless = new SharedScope(this, local.stateless, false);
  }

  open(owner?: string): SharedScope {
    return new SharedScope(this, this.#local.open(owner), true);
  }

  statelessFor(owner: string): SharedScope {
    let scope = this.#statelessByOwner.get(owner);
    if (!scope) {
      scope = new SharedScope(this, this.#local.statelessFor(owner), false);
      this.#statelessByOwner.set(owner, scope);
    }
    return scope;
  }

  health(): SharedStoreHealth {
    return {
      state: this.#remote.state,
      mode: this.#remote.mode,
      held: this.#local.size,
      fetched: this.#fetched,
      writesFailed: this.#writesFailed,
      ...this.#remote.faults,
    };
  }

  /** Bytes held in this process (its own texts and those fetched), as the local store counts them. */
  get bytes(): number {
    return this.#local.bytes;
  }

  async close(): Promise<void> {
    clearTimeout(this.#refresher);
    await this.#remote.close();
  }

  lookup(handle: string, owner?: string): Uint8Array | undefined | Promise<Uint8Array | undefined> {
    const held = this.#local.lookup(handle, owner);
    if (held) {
      this.touch(handle, owner);
      return held.bytes;
    }
    if (!isHandle(handle)) return undefined;
    const key = handleKey(handle, owner);
    const under = this.#fetching.get(key);
    if (under) return under;
    const fetching = this.#fetch(handle, key, owner).finally(() => this.#fetching.delete(key));
    this.#fetching.set(key, fetching);
    return fetching;
  }

  has(handle: string, owner?: string): boolean {
    return this.#local.has(handle, owner);
  }

  /** Writes a text just held; settles once other processes can read it, or the store failed. */
  write(key: string, bytes: Uint8Array, again = false): Promise<void> {
    return this.#remote.write(key, bytes, this.#ttlMs, again).then((written) => {
      if (!written) this.#writesFailed++;
    });
  }

  remove(keys: readonly string[]): void {
    this.#remote.remove(keys, this.#ttlMs).catch(() => {});
  }

  /** A use: the text's TTL in the store starts again with the next batch. */
  touch(handle: string, owner?: string): void {
    this.#touched.add(handleKey(handle, owner));
    if (this.#refresher) return;
    this.#refresher = setTimeout(() => void this.#refresh(), REFRESH_MS);
    this.#refresher.unref();
  }

  async #fetch(handle: string, key: string, owner: string | undefined): Promise<Uint8Array | undefined> {
    const found = await this.#remote.fetch(key, this.#ttlMs, MAX_DOCUMENT_BYTES);
    if (found === undefined || found === 'too-large') return undefined;
    // Into shared memory, as a text held here is, so the workers read it without a copy.
    const bytes = new Uint8Array(new SharedArrayBuffer(found.byteLength));
    bytes.set(found);
    this.#fetched++;
    const scope = owner === undefined ? this.#local.stateless : this.#local.statelessFor(owner);
    return scope.adopt(handle, bytes) ? bytes : undefined;
  }

  /**
   * Starts again the TTL of every text used since the last batch. A text the store no longer has
   * (it was restarted, or evicted under `maxmemory`) and this process still holds is written
   * again, so a store that comes back empty fills again with the texts in use. A text released
   * elsewhere (its session ended) is let go here too, never written back (issue 33, F3).
   */
  async #refresh(): Promise<void> {
    this.#refresher = undefined;
    const keys = [...this.#touched];
    this.#touched = new Set();
    const found = await this.#remote.refresh(keys, this.#ttlMs).catch(() => undefined);
    if (!found) return;
    for (const [i, key] of keys.entries()) {
      if (found[i] === 'held') continue;
      const held = this.#local.lookupKey(key);
      if (!held) continue;
      if (found[i] === 'released') held.scope.release(held.handle);
      else void this.write(key, held.bytes, true);
    }
  }
}

/** A scope of the local store, whose texts are written to the shared store as they are held. */
export class SharedScope implements DocumentScope {
  readonly #store: SharedDocuments;
  readonly #local: HeldScope;
  /** A session's keys in the store, removed when it ends (a stateless scope never ends). */
  readonly #written: Set<string> | undefined;

  constructor(store: SharedDocuments, local: HeldScope, session: boolean) {
    this.#store = store;
    this.#local = local;
    this.#written = session ? new Set() : undefined;
  }

  hold(text: string | LiftedDocument): HeldText | undefined {
    const kept = this.#local.hold(text);
    if (!kept) return undefined;
    if (!kept.fresh) {
      this.#store.touch(kept.handle, this.#local.owner);
      return kept;
    }
    const key = handleKey(kept.handle, this.#local.owner);
    this.#remember(key);
    return { ...kept, stored: this.#store.write(key, kept.bytes) };
  }

  get(handle: string): Uint8Array | undefined | Promise<Uint8Array | undefined> {
    return this.#store.lookup(handle, this.#local.owner);
  }

  holds(handle: string): boolean {
    return this.#store.has(handle, this.#local.owner);
  }

  /** A text the engine refused: gone here and from the store, since no process can use it. */
  release(handle: string): void {
    this.#local.release(handle);
    const key = handleKey(handle, this.#local.owner);
    this.#written?.delete(key);
    this.#store.remove([key]);
  }

  /**
   * A session ended: its texts go at once, here and in the store (ADR 0039). A process that
   * fetched one keeps its copy until it expires there.
   */
  close(): void {
    this.#local.close();
    if (this.#written && this.#written.size > 0) this.#store.remove([...this.#written]);
    this.#written?.clear();
  }

  /** Its keys in the store stay too, going by their TTL: a client renewing elsewhere finds them. */
  leave(): void {
    this.#local.leave();
    this.#written?.clear();
  }

  #remember(key: string): void {
    if (!this.#written) return;
    if (this.#written.size >= MAX_SESSION_KEYS) {
      const oldest = this.#written.values().next().value;
      if (oldest !== undefined) this.#written.delete(oldest);
    }
    this.#written.add(key);
  }
}
