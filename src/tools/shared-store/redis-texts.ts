import type { Redis, RedisOptions } from 'ioredis';
import { StoreUnreachable } from '../document-store.js';
import { shownStoreUrl } from './store-url.js';

/*
 * The connection to Redis or Valkey that holds every process's texts (docs/adr/0041). Every
 * command is bounded: none waits for a connection (no offline queue), none is retried, none
 * waits longer than COMMAND_MS for its reply; the client reconnects by itself, forever, so a
 * store that comes back is used again without a restart.
 */

/** Long enough for an 8 MiB text on a private network; short enough that a call is not held up. */
const COMMAND_MS = 2_000;
const CONNECT_MS = 2_000;
/** Reconnection: quickly at first, then every two seconds while the store stays away. */
const RETRY_MS = (attempt: number) => Math.min(100 * 2 ** Math.min(attempt, 5), 2_000);

/** Where every key lives: one prefix, so the texts can be found (and counted) beside other data. */
const KEY_PREFIX = 'oxml-mcp:held:';

/**
 * One round trip for a fetch: the text's length is read first, and a value larger than the
 * document limit is refused in the store, before a byte of it crosses the network; a text
 * fetched is a use, so its lifetime starts again.
 */
const FETCH_SCRIPT = `
local n = redis.call('STRLEN', KEYS[1])
if n == 0 then return false end
if n > tonumber(ARGV[2]) then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return redis.call('GET', KEYS[1])`;

/**
 * A refresh starts the lifetime of a text again and never writes one: 1 for a text, 0 for a key
 * the store lost (restarted, evicted), -1 for a text released (its session ended), whose empty
 * marker keeps its own TTL so that every process holding a copy hears of the end.
 */
const REFRESH_SCRIPT = `
if redis.call('STRLEN', KEYS[1]) > 0 then return redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
return 0`;

export type StoreState = 'connecting' | 'ready' | 'down';

/** What a fetch found: the text, nothing, or a value too large to be a document. */
export type Fetched = Buffer | undefined | 'too-large';

/** What a refresh found of a key: its text (its lifetime started again), nothing, or its end. */
export type Refreshed = 'held' | 'lost' | 'released';
const REFRESHED: Record<number, Refreshed> = { 1: 'held', 0: 'lost', [-1]: 'released' };

type ScriptedRedis = Redis & {
  fetchTextBuffer(key: string, ttlMs: number, maxBytes: number): Promise<Buffer | number | null>;
  refreshText(key: string, ttlMs: number): Promise<number>;
};

export class RedisTexts {
  readonly #client: ScriptedRedis;
  #state: StoreState = 'connecting';
  #closed = false;

  /** `onState` hears each change of state once (never a retry), with a line fit for the log. */
  constructor(client: Redis, url: string, onState: (state: StoreState, line: string) => void) {
    client.defineCommand('fetchText', { numberOfKeys: 1, lua: FETCH_SCRIPT });
    client.defineCommand('refreshText', { numberOfKeys: 1, lua: REFRESH_SCRIPT });
    this.#client = client as ScriptedRedis;
    const shown = shownStoreUrl(url);
    const become = (state: StoreState, line: string) => {
      if (this.#state === state || this.#closed) return;
      this.#state = state;
      onState(state, line);
    };
    client.on('ready', () => become('ready', `shared store ${shown}: connected`));
    // An error names its cause (ECONNREFUSED, NOAUTH, ...), never the URL's password.
    client.on('error', (error: Error) =>
      become(
        'down',
        `shared store ${shown}: unreachable (${error.message}); handles this process does not hold are refused until it is back`,
      ),
    );
    client.on('close', () => become('down', `shared store ${shown}: connection lost; reconnecting`));
  }

  get state(): StoreState {
    return this.#state;
  }

  /** The text under `key` (the digest of its handle), its lifetime started again. */
  async fetch(key: string, ttlMs: number, maxBytes: number): Promise<Fetched> {
    const reply = await this.#bounded(this.#client.fetchTextBuffer(KEY_PREFIX + key, ttlMs, maxBytes));
    if (reply === null) return undefined;
    if (typeof reply === 'number') return 'too-large';
    return reply;
  }

  /**
   * Writes a text for `ttlMs`; false when the store did not take it. `again` writes one the store
   * lost only where its key is still absent, so a release made meanwhile stays (NX).
   */
  async write(key: string, bytes: Uint8Array, ttlMs: number, again = false): Promise<boolean> {
    const value = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const writing = again
      ? this.#client.set(KEY_PREFIX + key, value, 'PX', ttlMs, 'NX')
      : this.#client.set(KEY_PREFIX + key, value, 'PX', ttlMs);
    return this.#bounded(writing).then(
      () => true,
      () => false,
    );
  }

  /** Starts the lifetime of each key again, in one round trip; answers what each key holds. */
  async refresh(keys: readonly string[], ttlMs: number): Promise<Refreshed[]> {
    const pipeline = this.#client.pipeline();
    for (const key of keys) (pipeline as unknown as ScriptedRedis).refreshText(KEY_PREFIX + key, ttlMs);
    const replies = await this.#bounded(pipeline.exec());
    return (replies ?? []).map(([error, found]) => (error ? 'lost' : (REFRESHED[found as number] ?? 'lost')));
  }

  /**
   * Ends texts: each key keeps an empty value for `ttlMs` (freeing the text's bytes at once), the
   * mark by which a process holding a copy lets it go and never writes it back (issue 33, F3).
   */
  async remove(keys: readonly string[], ttlMs: number): Promise<void> {
    if (keys.length === 0) return;
    const pipeline = this.#client.pipeline();
    for (const key of keys) pipeline.set(KEY_PREFIX + key, '', 'PX', ttlMs);
    await this.#bounded(pipeline.exec());
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#client.disconnect();
  }

  /** Any failure, however the client words it, is the one refusal callers know. */
  #bounded<T>(command: Promise<T>): Promise<T> {
    return command.catch(() => {
      throw new StoreUnreachable();
    });
  }
}

/**
 * How the connection behaves (every command bounded, no queue while down, reconnecting forever);
 * `overrides` lets a test widen a bound, never change the rest.
 */
export function storeClientOptions(overrides: Partial<RedisOptions> = {}): RedisOptions {
  return {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_MS,
    connectTimeout: CONNECT_MS,
    retryStrategy: RETRY_MS,
    // Auto-pipelining sends a batch only once the one before it has settled: behind a fetch
    // waiting on a frozen store, a text's write waited out that fetch's 2 s before its own (4 s,
    // issue 33 F6). Each command goes out at once instead, under its own bound.
    enableAutoPipelining: false,
    ...overrides,
  };
}

/** The client, loaded only when a store is asked for: one process without one pays nothing. */
export async function connectRedisTexts(
  url: string,
  onState: (state: StoreState, line: string) => void,
  overrides: Partial<RedisOptions> = {},
): Promise<RedisTexts> {
  // Through the default export (module.exports): a bundle's dynamic import of a CommonJS module
  // carries only that, and ioredis's module.exports is the class, with `.Redis` on it.
  const { Redis } = (await import('ioredis')).default;
  return new RedisTexts(new Redis(url, storeClientOptions(overrides)), url, onState);
}
