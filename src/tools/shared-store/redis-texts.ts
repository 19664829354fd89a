import calculateSlot from 'cluster-key-slot';
import type { Cluster, Redis, RedisOptions } from 'ioredis';
import { StoreUnreachable } from '../document-store.js';
import { newStoreClient, type StoreClient } from './store-client.js';
import { type FaultCounts, faultKind, StoreFaults } from './store-faults.js';
import { shownStoreUrl } from './store-url.js';

/*
 * The connection to Redis or Valkey, one server or a cluster, that holds every process's texts
 * (docs/adr/0041, 0052). Each command touches one key, so a cluster spreads the texts over all
 * its slots and needs no hash tag. A failed command is told and counted (store-faults.ts), then
 * is the one refusal callers know.
 */

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

type Scripted = {
  fetchTextBuffer(key: string, ttlMs: number, maxBytes: number): Promise<Buffer | number | null>;
  refreshText(key: string, ttlMs: number): Promise<number>;
};

export class RedisTexts {
  readonly #client: StoreClient & Scripted;
  readonly #shown: string;
  readonly #faults: StoreFaults;
  #state: StoreState = 'connecting';
  #closed = false;

  /** `log` hears each change of state once (never a retry), and each fault, rate-limited. */
  constructor(client: StoreClient, url: string, log: (line: string) => void) {
    client.defineCommand('fetchText', { numberOfKeys: 1, lua: FETCH_SCRIPT });
    client.defineCommand('refreshText', { numberOfKeys: 1, lua: REFRESH_SCRIPT });
    this.#client = client as StoreClient & Scripted;
    this.#shown = shownStoreUrl(url);
    this.#faults = new StoreFaults(this.#shown, log);
    const become = (state: StoreState, line: string) => {
      if (this.#state === state || this.#closed) return;
      this.#state = state;
      log(`shared store ${this.#shown}: ${line}`);
    };
    const down = (error: Error) =>
      become(
        'down',
        // An error names its cause (ECONNREFUSED, NOAUTH, ...), never the URL's password.
        `unreachable (${error.message}); handles this process does not hold are refused until it is back`,
      );
    if (isCluster(client)) {
      client.on('ready', () =>
        become('ready', `connected to the cluster (${client.nodes('master').length} primaries)`),
      );
      // A node lost or refusing is a fault at that node; the cluster is down only when it is not
      // ready, and an error while it is (a slot map it could not read) is a fault of its own.
      client.on('error', (error: Error) =>
        client.status === 'ready'
          ? this.#faults.note(faultKind(error), this.#seed, error.message)
          : down(error),
      );
      client.on('node error', (error: Error, node: string) =>
        this.#faults.note(faultKind(error), node, error.message),
      );
      client.on('close', () => become('down', 'connection to the cluster lost; reconnecting'));
      this.#watchSlots(client);
    } else {
      client.on('ready', () => {
        become('ready', 'connected');
        this.#tellIfCluster(client);
      });
      client.on('error', down);
      client.on('close', () => become('down', 'connection lost; reconnecting'));
    }
  }

  get state(): StoreState {
    return this.#state;
  }

  get mode(): 'single' | 'cluster' {
    return isCluster(this.#client) ? 'cluster' : 'single';
  }

  /** Every fault since the start, by kind. */
  get faults(): Readonly<FaultCounts> {
    return this.#faults.counts;
  }

  /** The text under `key` (the digest of its handle), its lifetime started again. */
  async fetch(key: string, ttlMs: number, maxBytes: number): Promise<Fetched> {
    const stored = KEY_PREFIX + key;
    const reply = await this.#bounded(stored, this.#client.fetchTextBuffer(stored, ttlMs, maxBytes));
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
    const stored = KEY_PREFIX + key;
    const writing = again
      ? this.#client.set(stored, value, 'PX', ttlMs, 'NX')
      : this.#client.set(stored, value, 'PX', ttlMs);
    return this.#bounded(stored, writing).then(
      () => true,
      () => false,
    );
  }

  /**
   * Starts the lifetime of each key again; answers what each key holds. One command a key, never
   * a multi-key one a cluster would refuse across slots; sent together without waiting for each
   * reply, they take about one round trip. Refused as a whole only when not one of them could be
   * sent; a key whose command failed counts as lost, and a write of it again (NX) cannot undo an
   * end.
   */
  async refresh(keys: readonly string[], ttlMs: number): Promise<Refreshed[]> {
    const replies = await Promise.allSettled(
      keys.map((key) => this.#bounded(KEY_PREFIX + key, this.#client.refreshText(KEY_PREFIX + key, ttlMs))),
    );
    if (replies.length > 0 && replies.every((reply) => reply.status === 'rejected'))
      throw new StoreUnreachable();
    return replies.map((reply) =>
      reply.status === 'fulfilled' ? (REFRESHED[reply.value] ?? 'lost') : 'lost',
    );
  }

  /**
   * Ends texts: each key keeps an empty value for `ttlMs` (freeing the text's bytes at once), the
   * mark by which a process holding a copy lets it go and never writes it back (ADR 0051, F3).
   */
  async remove(keys: readonly string[], ttlMs: number): Promise<void> {
    await Promise.all(
      keys.map((key) => this.#bounded(KEY_PREFIX + key, this.#client.set(KEY_PREFIX + key, '', 'PX', ttlMs))),
    );
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#client.disconnect();
  }

  /** Any failure, however the client words it, is told, then is the one refusal callers know. */
  #bounded<T>(key: string, command: Promise<T>): Promise<T> {
    return command.catch((error: unknown) => {
      if (!this.#closed)
        this.#faults.note(faultKind(error), this.#nodeOf(key, error), String((error as Error)?.message));
      throw new StoreUnreachable();
    });
  }

  /** The node given in the URL, as `host:port`. */
  get #seed(): string {
    return this.#shown.replace(/^rediss?:\/\//, '').replace(/\/.*$/, '');
  }

  /** The node a command on `key` went to: named by a redirect, else the slot's primary. */
  #nodeOf(key: string, error: unknown): string {
    const redirected = /^(?:MOVED|ASK) \d+ (\S+)/.exec((error as Error)?.message ?? '');
    if (redirected?.[1]) return redirected[1];
    if (!isCluster(this.#client)) return this.#seed;
    return this.#client.slots[calculateSlot(key)]?.[0] ?? `slot ${calculateSlot(key)} (no node known)`;
  }

  /**
   * One server given as `--store` that is in fact a node of a cluster answers only its own slots
   * (MOVED for the rest): said at once, rather than learnt from refused handles.
   */
  #tellIfCluster(client: Redis): void {
    client.info('cluster').then(
      (info) => {
        if (/^cluster_enabled:1/m.test(info))
          this.#faults.note(
            'redirect',
            this.#seed,
            'this is a node of a Redis Cluster, which answers only its own slots: start with --store-cluster',
          );
      },
      // INFO may be refused to an ACL user: then nothing is known, and MOVED replies will tell.
      () => {},
    );
  }

  /**
   * Compares each slot map the cluster reads with the last one: slots whose primary changed are
   * a failover (the old primary serves nothing now) or a migration (it still serves others).
   */
  #watchSlots(cluster: Cluster): void {
    let before: Array<string | undefined> = [];
    cluster.on('refresh', () => {
      const now = Array.from({ length: SLOTS }, (_, slot) => cluster.slots[slot]?.[0]);
      const primaries = new Set(now);
      const moved = new Map<string, { from: string; to: string; slots: number }>();
      for (const [slot, to] of now.entries()) {
        const from = before[slot];
        if (from === undefined || to === undefined || from === to) continue;
        const pair = moved.get(`${from} ${to}`) ?? { from, to, slots: 0 };
        pair.slots++;
        moved.set(`${from} ${to}`, pair);
      }
      for (const { from, to, slots } of moved.values()) {
        if (primaries.has(from)) this.#faults.note('migration', from, `${slots} slots now served by ${to}`);
        else this.#faults.note('failover', from, `its ${slots} slots now served by ${to}`);
      }
      before = now;
    });
  }
}

const SLOTS = 16_384;

function isCluster(client: StoreClient): client is Cluster {
  return 'slots' in client;
}

/**
 * Connects to `url`: one server, or a cluster that `url` is one node of. `overrides` lets a test
 * widen a bound of each connection, never change the rest.
 */
export async function connectRedisTexts(
  url: string,
  log: (line: string) => void,
  options: { cluster?: boolean; overrides?: Partial<RedisOptions> } = {},
): Promise<RedisTexts> {
  return new RedisTexts(await newStoreClient(url, options.cluster === true, options.overrides), url, log);
}
