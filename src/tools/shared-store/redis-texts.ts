import type { Redis } from 'ioredis';
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

export type StoreState = 'connecting' | 'ready' | 'down';

/** What a fetch found: the text, nothing, or a value too large to be a document. */
export type Fetched = Buffer | undefined | 'too-large';

type ScriptedRedis = Redis & {
  fetchTextBuffer(key: string, ttlMs: number, maxBytes: number): Promise<Buffer | number | null>;
};

export class RedisTexts {
  readonly #client: ScriptedRedis;
  #state: StoreState = 'connecting';
  #closed = false;

  /** `onState` hears each change of state once (never a retry), with a line fit for the log. */
  constructor(client: Redis, url: string, onState: (state: StoreState, line: string) => void) {
    client.defineCommand('fetchText', { numberOfKeys: 1, lua: FETCH_SCRIPT });
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

  /** Writes a text for `ttlMs`; false when the store did not take it. */
  async write(key: string, bytes: Uint8Array, ttlMs: number): Promise<boolean> {
    const value = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return this.#bounded(this.#client.set(KEY_PREFIX + key, value, 'PX', ttlMs)).then(
      () => true,
      () => false,
    );
  }

  /** Starts the lifetime of each key again, in one round trip; answers which keys still exist. */
  async refresh(keys: readonly string[], ttlMs: number): Promise<boolean[]> {
    const pipeline = this.#client.pipeline();
    for (const key of keys) pipeline.pexpire(KEY_PREFIX + key, ttlMs);
    const replies = await this.#bounded(pipeline.exec());
    return (replies ?? []).map(([error, found]) => !error && found === 1);
  }

  async remove(keys: readonly string[]): Promise<void> {
    if (keys.length > 0) await this.#bounded(this.#client.unlink(...keys.map((key) => KEY_PREFIX + key)));
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

/** The client, loaded only when a store is asked for: one process without one pays nothing. */
export async function connectRedisTexts(
  url: string,
  onState: (state: StoreState, line: string) => void,
): Promise<RedisTexts> {
  // Through the default export (module.exports): a bundle's dynamic import of a CommonJS module
  // carries only that, and ioredis's module.exports is the class, with `.Redis` on it.
  const { Redis } = (await import('ioredis')).default;
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_MS,
    connectTimeout: CONNECT_MS,
    retryStrategy: RETRY_MS,
    enableAutoPipelining: true,
  });
  return new RedisTexts(client, url, onState);
}
