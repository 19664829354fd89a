import { Redis, type RedisOptions } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnginePool } from '../src/engine/runtime/pool.js';
import { HELD_DOCUMENT_OVERHEAD_BYTES, MAX_DOCUMENT_BYTES } from '../src/limits.js';
import { notHeld, resolveDocuments, unreachable } from '../src/tools/document-handles.js';
import type { DocumentScope, HeldText } from '../src/tools/document-store.js';
import { handleKey } from '../src/tools/handle-key.js';
import { HeldDocuments, type HeldOptions } from '../src/tools/held-documents.js';
import { connectRedisTexts } from '../src/tools/shared-store/redis-texts.js';
import { SharedDocuments } from '../src/tools/shared-store/shared-documents.js';
import { type RunningRedis, startRedis } from './support/redis-server.js';
import { service } from './support/services.js';

/*
 * The shared store against a real redis-server (docs/adr/0041): two SharedDocuments on one
 * store are two processes. No clock is read to pass: whatever takes time is polled for.
 */

const redisServer = service('redis-server');
const DOCUMENT = { what: 'document', text: 'xml', handle: 'document' } as const;
const engine = { run: async () => ({}) } as unknown as Pick<EnginePool, 'run'>;

let redis: RunningRedis;
let raw: Redis;
const opened: SharedDocuments[] = [];

/** Polls `check` until it holds (a store's state, a key's expiry): never a fixed sleep. */
async function until(check: () => boolean | Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** One process's store: its own memory in front of the shared redis-server, connected. */
async function aProcess(
  options: HeldOptions = {},
  client: Partial<RedisOptions> = {},
): Promise<SharedDocuments> {
  const store = new SharedDocuments(
    new HeldDocuments(options),
    await connectRedisTexts(redis.url, () => {}, { overrides: client }),
  );
  opened.push(store);
  await until(() => store.health().state === 'ready', 'the store is connected');
  return store;
}

/** Holds `text` in `scope` and waits until the store has it (as the answer that names it does). */
async function holding(scope: DocumentScope, text: string): Promise<HeldText> {
  const kept = scope.hold(text);
  if (!kept) throw new Error('not held');
  await kept.stored;
  return kept;
}

const textOf = (bytes: Uint8Array | undefined) => (bytes ? Buffer.from(bytes).toString('utf8') : undefined);
const xml = (n: number) => `<r>${'<a/>'.repeat(n)}</r>`;

describe.skipIf(!redisServer.path)(`the shared store, on a real redis-server${redisServer.skipped}`, () => {
  beforeAll(async () => {
    redis = await startRedis(redisServer.path as string);
    raw = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    raw.on('error', () => {});
    await raw.connect();
  });
  afterAll(async () => {
    await Promise.all(opened.map((store) => store.close()));
    raw?.disconnect();
    await redis?.close();
  });

  it('files an owned text under a key of its owner: another process answers it to that owner only (ADR 0054)', async () => {
    const a = await aProcess();
    const b = await aProcess();
    const kept = await holding(a.statelessFor('alice'), xml(2));
    const keys = await raw.keys('*');
    expect(keys).toContain(`oxml-mcp:held:${handleKey(kept.handle, 'alice')}`);
    expect(keys).not.toContain(`oxml-mcp:held:${handleKey(kept.handle)}`);
    expect(keys.join(' ')).not.toContain('alice');
    expect(await b.statelessFor('bob').get(kept.handle)).toBeUndefined();
    expect(await b.stateless.get(kept.handle)).toBeUndefined();
    expect(textOf(await b.open('alice').get(kept.handle))).toBe(xml(2));
  });

  it('answers a handle made by one process in another, fetched once and then held there', async () => {
    const a = await aProcess();
    const b = await aProcess();
    const kept = await holding(a.stateless, xml(3));

    const fetched = b.stateless.get(kept.handle);
    expect(fetched).toBeInstanceOf(Promise);
    expect(textOf(await fetched)).toBe(xml(3));
    // Held in b now: a plain answer, no round trip, counted in b's bounds like its own texts.
    const again = b.stateless.get(kept.handle);
    expect(again).toBeInstanceOf(Uint8Array);
    expect(textOf(again as Uint8Array)).toBe(xml(3));
    expect(b.health()).toMatchObject({ state: 'ready', fetched: 1, writesFailed: 0 });
    expect(b.bytes).toBe(xml(3).length + HELD_DOCUMENT_OVERHEAD_BYTES);
    // Filed under the digest of the handle, with the idle lifetime as its TTL; never the handle.
    const keys = await raw.keys('*');
    expect(keys).toContain(`oxml-mcp:held:${handleKey(kept.handle)}`);
    expect(keys.join(' ')).not.toContain(kept.handle);
  });

  it('keeps two clients apart by unguessability: a handle one character off, or made up, is the same miss', async () => {
    const a = await aProcess();
    const b = await aProcess();
    const kept = await holding(a.stateless, xml(4));
    const last = kept.handle.at(-1) === 'A' ? 'B' : 'A';
    const forged = `${kept.handle.slice(0, -1)}${last}`;
    expect(await b.stateless.get(forged)).toBeUndefined();
    expect(await b.stateless.get('d_AAAAAAAAAAAAAAAAAAAAAA')).toBeUndefined();
    // Not the shape of a handle: a miss at once, without asking the store.
    expect(b.stateless.get('not-a-handle')).toBeUndefined();
    expect(b.health().fetched).toBe(0);
    expect(textOf(await b.stateless.get(kept.handle))).toBe(xml(4));
  });

  it("lets a text expire in the store after the idle lifetime, and frees a session's texts there when it ends", async () => {
    const a = await aProcess({ idleMs: 500 });
    const b = await aProcess();
    const kept = await holding(a.stateless, xml(5));
    const key = `oxml-mcp:held:${handleKey(kept.handle)}`;
    expect(a.health().writesFailed).toBe(0);
    // Written with the lifetime as its TTL (-2: already expired, on a machine slow enough).
    const ttl = await raw.pttl(key);
    expect(ttl === -2 || (ttl > 0 && ttl <= 500)).toBe(true);
    await until(async () => (await raw.exists(key)) === 0, 'the key expires');
    expect(await b.stateless.get(kept.handle)).toBeUndefined();

    const session = a.open();
    const mine = await holding(session, xml(6));
    session.close();
    await until(async () => (await raw.exists(`oxml-mcp:held:${handleKey(mine.handle)}`)) === 0, 'removed');
    expect(await b.stateless.get(mine.handle)).toBeUndefined();
  });

  it("keeps a session's texts released across processes: another's use of its copy neither writes it back nor keeps it", async () => {
    const a = await aProcess();
    const b = await aProcess();
    const session = a.open();
    const mine = await holding(session, xml(9));
    const key = `oxml-mcp:held:${handleKey(mine.handle)}`;
    expect(textOf(await b.stateless.get(mine.handle))).toBe(xml(9));

    session.close();
    await until(async () => (await raw.strlen(key)) === 0, 'the text is gone from the store');
    // b still answers its copy until its next batch of TTLs (a use starts one) hears of the end.
    expect(textOf(b.stateless.get(mine.handle) as Uint8Array)).toBe(xml(9));
    await until(() => !b.stateless.holds(mine.handle), 'b lets go of its copy');

    // The text was not written back: no process answers the handle again, the ending one included.
    expect(await raw.strlen(key)).toBe(0);
    expect(await a.stateless.get(mine.handle)).toBeUndefined();
    expect(await b.stateless.get(mine.handle)).toBeUndefined();
    const c = await aProcess();
    expect(await c.stateless.get(mine.handle)).toBeUndefined();
    expect(c.health().fetched).toBe(0);
  });

  it('sends a text to the store at once while a fetch waits there, never behind it (issue 33 F6)', async () => {
    const a = await aProcess();
    // Its own name in CLIENT LIST, and a bound wide enough that nothing here ends by the clock.
    const b = await aProcess({}, { connectionName: 'process-b', commandTimeout: 600_000 });
    const kept = await holding(a.stateless, xml(10));
    const text = `<r>${'w'.repeat(20_000)}</r>`;
    // The store holds every command that may write (a fetch starts a TTL again) until unpaused.
    await raw.call('CLIENT', 'PAUSE', '600000', 'WRITE');
    let fetching: Uint8Array | undefined | Promise<Uint8Array | undefined>;
    let writing: HeldText | undefined;
    try {
      fetching = b.stateless.get(kept.handle);
      expect(fetching).toBeInstanceOf(Promise);
      // Another call, a turn later: the fetch has gone out on its own.
      await new Promise((resolve) => setImmediate(resolve));
      writing = b.stateless.hold(text);
      // The write has reached the store while the fetch still waits there: its bytes are in b's
      // query buffer. Auto-pipelining held it back until the fetch settled (4 s on a frozen store).
      const queued = async () => {
        const clients = String(await raw.call('CLIENT', 'LIST'));
        const line = clients.split('\n').find((entry) => entry.includes(' name=process-b '));
        return Number(/ qbuf=(\d+)/.exec(line ?? '')?.[1] ?? 0);
      };
      await until(async () => (await queued()) > text.length, "the write is in the store's buffer");
    } finally {
      await raw.call('CLIENT', 'UNPAUSE');
    }
    expect(textOf(await fetching)).toBe(xml(10));
    await writing?.stored;
    expect(b.health().writesFailed).toBe(0);
  });

  it('refuses a stored value past the document limit without holding it, and bounds what it fetches', async () => {
    const each = 4096 + HELD_DOCUMENT_OVERHEAD_BYTES;
    const a = await aProcess();
    const b = await aProcess({ processBytes: 2 * each });
    const huge = 'd_HugeHugeHugeHugeHugeHu';
    await raw.set(
      `oxml-mcp:held:${handleKey(huge)}`,
      Buffer.alloc(MAX_DOCUMENT_BYTES + 1, 0x20),
      'PX',
      60_000,
    );
    expect(await b.stateless.get(huge)).toBeUndefined();
    expect(b.bytes).toBe(0);

    const handles = ['a', 'b', 'c'].map((c) => {
      const kept = a.stateless.hold(`<r>${c.repeat(4089)}</r>`);
      if (!kept) throw new Error('not held');
      return kept;
    });
    await Promise.all(handles.map((kept) => kept.stored));
    for (const kept of handles) expect(textOf(await b.stateless.get(kept.handle))).toHaveLength(4096);
    // Three fetched, two kept: the least recently used went, as for any text b holds.
    expect(b.bytes).toBe(2 * each);
    expect(b.stateless.holds(handles[0]?.handle as string)).toBe(false);
  });

  it('answers a handle it does not hold with an error naming the store while it is down, and works again once it is back', async () => {
    const a = await aProcess();
    const b = await aProcess();
    const before = await holding(a.stateless, xml(7));

    await redis.stop();
    await until(() => b.health().state === 'down', 'b sees the store down');
    const resolving = resolveDocuments(
      'xml_query',
      new Set(['xml', 'document']),
      { document: before.handle, xpath: 'count(//a)' },
      b.stateless,
      engine,
    );
    expect(await resolving).toEqual({ ok: false, message: unreachable(DOCUMENT) });
    expect(unreachable(DOCUMENT)).not.toBe(notHeld(DOCUMENT));
    // Texts still work: held here, its handle answered here, the failed write counted.
    const during = await holding(b.stateless, xml(8));
    expect(textOf(b.stateless.get(during.handle) as Uint8Array)).toBe(xml(8));
    expect(b.health().writesFailed).toBe(1);

    // Back, empty (nothing is persisted): each process writes again the texts it holds as they are used.
    await redis.start();
    await until(() => a.health().state === 'ready' && b.health().state === 'ready', 'both reconnected');
    expect(textOf(a.stateless.get(before.handle) as Uint8Array)).toBe(xml(7));
    expect(textOf(b.stateless.get(during.handle) as Uint8Array)).toBe(xml(8));
    const c = await aProcess();
    await until(
      async () => textOf(await c.stateless.get(before.handle)) === xml(7),
      'a wrote its text again',
    );
    await until(
      async () => textOf(await c.stateless.get(during.handle)) === xml(8),
      'b wrote its text again',
    );
  });
});
