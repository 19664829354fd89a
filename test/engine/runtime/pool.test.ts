import { afterEach, describe, expect, it } from 'vitest';
import { EngineError } from '../../../src/engine/errors.js';
import { EnginePool } from '../../../src/engine/runtime/pool.js';
import { callerLine } from '../../../src/engine/runtime/waiting-ledger.js';

const bytes = (text: string) => new TextEncoder().encode(text);
let pool: EnginePool;

afterEach(async () => {
  await pool?.close();
});

async function rejectionOf(promise: Promise<unknown>): Promise<EngineError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof EngineError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('EnginePool', () => {
  it('runs an engine call on a worker and returns plain data', async () => {
    pool = new EnginePool({ size: 1 });
    await expect(
      pool.run('query', { xml: bytes('<r><a/><a/></r>'), xpath: 'count(//a)', namespaces: {} }),
    ).resolves.toEqual({
      type: 'number',
      count: 1,
      values: ['2'],
    });
  });

  it("runs fontoxpath patched on a worker started from source, on every Node version's loader", async () => {
    // The patches reach a source worker through module hooks (scripts/fontoxpath-hooks.ts);
    // unpatched, max compares the durations' strings and answers PT5M.
    pool = new EnginePool({ size: 1 });
    const durations = "(xs:dayTimeDuration('PT30M'), xs:dayTimeDuration('PT1H'), xs:dayTimeDuration('PT5M'))";
    await expect(
      pool.run('query', { xml: bytes('<r/>'), xpath: `max(${durations})`, namespaces: {} }),
    ).resolves.toMatchObject({ values: ['PT1H'] });
  });

  it('runs a batch on one parse on a worker, with markup and paths as asked', async () => {
    pool = new EnginePool({ size: 1 });
    const text = '<r><a k="1"/><a/></r>';
    await expect(
      pool.run('batch', {
        xml: bytes(text),
        xpath: ['count(//a)', '//a[@k]', '//x['],
        namespaces: {},
        output: 'xml',
      }),
    ).resolves.toMatchObject({
      results: [
        { xpath: 'count(//a)', values: ['2'] },
        { xpath: '//a[@k]', values: ['<a k="1"/>'] },
        { xpath: '//x[', error: expect.stringContaining('not a valid XPath 1.0 expression') },
      ],
    });
    await expect(
      pool.run('query', { xml: bytes(text), xpath: '//a', namespaces: {}, output: 'paths' }),
    ).resolves.toEqual({
      type: 'node-set',
      count: 2,
      values: ['/r/a[1]', '/r/a[2]'],
      lines: [1, 1],
    });
  });

  it('can start a worker before the first call, and then serves on it', async () => {
    pool = new EnginePool({ size: 1 });
    pool.warm();
    pool.warm();
    await expect(pool.run('inspect', { xml: bytes('<r/>') })).resolves.toMatchObject({ root: 'r' });
  });

  it('serves one call at a time on one worker, and starts a second only when a call finds the first busy', async () => {
    pool = new EnginePool({ size: 2 });
    pool.warm();
    for (let i = 0; i < 3; i++) await pool.run('inspect', { xml: bytes('<r/>') }, { client: 'a' });
    // An idle server holds one worker (its memory: docs/adr/0025-libxml2-only-on-the-workers.md).
    expect(pool.stats).toEqual({ workers: 1, busy: 0, queued: 0 });
    const first = pool.run('inspect', { xml: bytes('<r/>') }, { client: 'a' });
    const second = pool.run('inspect', { xml: bytes('<s/>') }, { client: 'b' });
    // The second client does not wait behind the first one's call: a second worker starts for it.
    expect(pool.stats).toEqual({ workers: 2, busy: 2, queued: 0 });
    await expect(Promise.all([first, second])).resolves.toMatchObject([{ root: 'r' }, { root: 's' }]);
  });

  it('passes engine errors through with their code', async () => {
    pool = new EnginePool({ size: 1 });
    const error = await rejectionOf(pool.run('check', { xml: bytes('<r>') }));
    expect(error.code).toBe('not-well-formed');
    expect(error.line).toBe(1);
  });

  it('refuses at once a call whose bytes cannot be sent, and goes on serving on the same worker', async () => {
    // Before, the call waited out its whole time budget and cost the worker: a timeout, not this.
    pool = new EnginePool({ size: 1, timeoutMs: 60_000 });
    await pool.run('check', { xml: bytes('<r/>') });
    const sent = bytes('<r/>');
    structuredClone(sent.buffer, { transfer: [sent.buffer] });
    const error = await rejectionOf(pool.run('check', { xml: sent }));
    expect(error.code).toBe('invalid-argument');
    expect(error.message).toMatch(/could not be handed to the XML engine/);
    await expect(
      pool.run('query', { xml: bytes('<r><a/></r>'), xpath: 'count(//a)', namespaces: {} }),
    ).resolves.toMatchObject({ type: 'number', values: ['1'] });
    expect(pool.stats.workers).toBe(1);
  });

  it("starts a call's time budget when its worker has loaded libxml2, not before", async () => {
    // A fresh worker takes ~0.15 s (seconds on a busy machine) to load, the call microseconds:
    // with the start-up counted, a 100 ms budget failed every first call here. Three fresh pools
    // so that one stalled scheduler slice on a loaded machine cannot fail the test alone.
    const outcomes: string[] = [];
    for (let attempt = 0; attempt < 3 && !outcomes.includes('ok'); attempt++) {
      pool = new EnginePool({ size: 1, timeoutMs: 100 });
      outcomes.push(
        await pool.run('check', { xml: bytes('<r/>') }).then(
          () => 'ok',
          (error: Error) => error.message,
        ),
      );
      expect(pool.coldCalls).toBe(1);
      await pool.close();
    }
    expect(outcomes).toContain('ok');
  });

  it('stops a call past its deadline, then serves the next call on a fresh worker', async () => {
    // The expression takes few XPath steps (the operation budget does not catch it) but
    // rebuilds the document's whole text for every <a>: far longer than the deadline anywhere.
    pool = new EnginePool({ size: 1, timeoutMs: 2_000 });
    const text = bytes(`<r>${'<a>xxxxxxxxxx</a>'.repeat(20_000)}</r>`);
    const error = await rejectionOf(
      pool.run('query', { xml: text, xpath: "count(//a[contains(string(/), 'zzz')])", namespaces: {} }),
    );
    expect(error.code).toBe('timeout');
    expect(error.message).toContain('2000 ms');
    await expect(
      pool.run('query', { xml: bytes('<r>ok</r>'), xpath: 'string(/r)', namespaces: {} }),
    ).resolves.toMatchObject({
      values: ['ok'],
    });
  });

  it('says what to change when a validation runs past its deadline, not to narrow an expression', async () => {
    // Each value backtracks through ~2^30 ways to split its a's (under libxml2's backtracking
    // limit, so it is not refused): ~0.4 s a value here, 200 values far past the deadline.
    pool = new EnginePool({ size: 1, timeoutMs: 2_000 });
    const xsd = bytes(`<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
      <xs:element name="r"><xs:complexType><xs:sequence>
        <xs:element name="v" maxOccurs="unbounded"><xs:simpleType><xs:restriction base="xs:string">
          <xs:pattern value="(a|aa)*b"/>
        </xs:restriction></xs:simpleType></xs:element>
      </xs:sequence></xs:complexType></xs:element></xs:schema>`);
    const xml = bytes(`<r>${`<v>${'a'.repeat(30)}c</v>`.repeat(200)}</r>`);
    const error = await rejectionOf(pool.run('validate', { xml, xsd }));
    expect(error.code).toBe('timeout');
    expect(error.message).toContain('2000 ms');
    expect(error.message).toContain('Validate an extract of the document');
    expect(error.message).not.toContain('expression');
  });

  it('stops a runaway expression by its operation budget inside the worker', async () => {
    pool = new EnginePool({ size: 1, timeoutMs: 60_000 });
    const big = bytes(`<r>${'<a><b/></a>'.repeat(40_000)}</r>`);
    const error = await rejectionOf(
      pool.run('query', { xml: big, xpath: 'count(//*[count(//*) > 0])', namespaces: {} }),
    );
    expect(error.code).toBe('budget-exceeded');
    expect(error.message).toContain('operation budget');
  });

  it('replaces a worker whose heap outgrew the bound, without failing its call', async () => {
    pool = new EnginePool({ size: 1, maxHeapBytes: 1 });
    await expect(pool.run('inspect', { xml: bytes('<r/>') })).resolves.toMatchObject({ root: 'r' });
    await expect(pool.run('inspect', { xml: bytes('<s/>') })).resolves.toMatchObject({ root: 's' });
    expect(pool.retiredWorkers).toBe(2);
  });

  it('recycles a worker after its share of calls: a fresh worker takes its place and serves on', async () => {
    pool = new EnginePool({ size: 1, maxCalls: 3 });
    const count = (n: number) =>
      pool.run('query', { xml: bytes(`<r>${'<a/>'.repeat(n)}</r>`), xpath: 'count(//a)', namespaces: {} });
    expect((await count(0)).values).toEqual(['0']);
    const first = pool.threadIds;
    for (let i = 1; i <= 8; i++) expect((await count(i)).values).toEqual([String(i)]);
    expect(pool.recycledWorkers).toBe(3);
    expect(pool.threadIds).toHaveLength(1);
    expect(pool.threadIds[0]).not.toBe(first[0]);
    expect((await count(9)).values).toEqual(['9']);
    expect(pool.retiredWorkers).toBe(0);
  });

  it('recycles its most used worker every maxCalls calls, not merely its oldest', async () => {
    pool = new EnginePool({ size: 2, maxCalls: 6, timeoutMs: 120_000 });
    await Promise.all([0, 1].map((i) => pool.run('inspect', { xml: bytes(`<r${i}/>`) })));
    const [older, younger] = pool.threadIds;
    expect(pool.threadIds).toHaveLength(2);
    // The older worker is held by one slow call while the younger one serves every other call.
    const slowText = bytes(`<r>${'<a>xxxxxxxxxx</a>'.repeat(10_000)}</r>`);
    const slow = pool.run('query', {
      xml: slowText,
      xpath: "count(//a[contains(string(/), 'zzz')])",
      namespaces: {},
    });
    for (let i = 0; i < 6; i++) {
      await expect(pool.run('inspect', { xml: bytes(`<s${i}/>`) })).resolves.toMatchObject({ root: `s${i}` });
    }
    expect(pool.recycledWorkers).toBe(1);
    expect(pool.threadIds).toContain(older);
    expect(pool.threadIds).not.toContain(younger);
    expect((await slow).values).toEqual(['0']);
  });

  it('recycles its most used worker even while it is busy: once its call is answered', async () => {
    pool = new EnginePool({ size: 2, maxCalls: 3, timeoutMs: 120_000 });
    await pool.run('inspect', { xml: bytes('<r1/>') });
    await pool.run('inspect', { xml: bytes('<r2/>') });
    const [busiest] = pool.threadIds;
    const slowText = bytes(`<r>${'<a>xxxxxxxxxx</a>'.repeat(10_000)}</r>`);
    const slow = pool.run('query', {
      xml: slowText,
      xpath: "count(//a[contains(string(/), 'zzz')])",
      namespaces: {},
    });
    // The third answer spends the share; the most used worker may still be running `slow`.
    await expect(pool.run('inspect', { xml: bytes('<s/>') })).resolves.toMatchObject({ root: 's' });
    const [, other] = pool.threadIds;
    expect((await slow).values).toEqual(['0']);
    expect(pool.recycledWorkers).toBe(1);
    expect(pool.threadIds).not.toContain(busiest);
    expect(pool.threadIds).toContain(other);
  });

  it('rejects the calls still running when it closes', async () => {
    pool = new EnginePool({ size: 1 });
    const slowText = bytes(`<r>${'<a>xxxxxxxxxx</a>'.repeat(10_000)}</r>`);
    const slow = pool.run('query', {
      xml: slowText,
      xpath: "count(//a[contains(string(/), 'zzz')])",
      namespaces: {},
    });
    const outcome = expect(slow).rejects.toThrow('closed');
    await new Promise((resolve) => setTimeout(resolve, 100));
    await pool.close();
    await outcome;
  });

  it('keeps answering concurrent calls, with cached documents, while workers are recycled', async () => {
    pool = new EnginePool({ size: 2, maxCalls: 4 });
    const seen = new Set<number>();
    // Bounded by a call count, not a clock: batches run until two workers have been recycled.
    for (let batch = 0; batch < 5_000 && pool.recycledWorkers < 2; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) => {
          const n = (batch + i) % 7;
          const xml = bytes(`<r>${'<a/>'.repeat(n)}</r>`);
          const client = `client-${i % 3}`;
          return i % 2 === 0
            ? pool.run('query', { xml, xpath: 'count(//a)', namespaces: {}, cacheAs: client }, { client })
            : pool.run('query', { xml, xpath: 'count(//a)', namespaces: {} });
        }),
      );
      expect(answers.map((answer) => answer.values[0])).toEqual(
        Array.from({ length: 6 }, (_, i) => String((batch + i) % 7)),
      );
      for (const id of pool.threadIds) seen.add(id);
    }
    expect(pool.recycledWorkers).toBeGreaterThanOrEqual(2);
    expect(pool.threadIds).toHaveLength(2);
    expect(seen.size).toBeGreaterThan(2);
  });

  it('aborts a running call when its signal fires', async () => {
    pool = new EnginePool({ size: 1, timeoutMs: 10_000 });
    const controller = new AbortController();
    const text = bytes(`<r>${'<a>xxxxxxxxxx</a>'.repeat(20_000)}</r>`);
    const running = pool.run(
      'query',
      { xml: text, xpath: "count(//a[contains(string(/), 'zzz')])", namespaces: {} },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 200);
    expect((await rejectionOf(running)).message).toContain('cancelled');
    await expect(pool.run('inspect', { xml: bytes('<r/>') })).resolves.toMatchObject({ root: 'r' });
  });

  it('cancels a waiting call without touching the running one, and ignores an abort after the answer', async () => {
    pool = new EnginePool({ size: 1, timeoutMs: 10_000 });
    const slow = bytes(`<r>${'<a>xxxxxxxxxx</a>'.repeat(2_000)}</r>`);
    const answered = new AbortController();
    await pool.run('inspect', { xml: bytes('<r/>') }, { signal: answered.signal });
    const [thread] = pool.threadIds;
    // An abort of a call already answered must not end the worker now serving another call.
    const running = pool.run('query', {
      xml: slow,
      xpath: "count(//a[contains(string(/), 'zzz')])",
      namespaces: {},
    });
    answered.abort();
    const waiting = new AbortController();
    const queued = pool.run('inspect', { xml: bytes('<q/>') }, { signal: waiting.signal });
    expect(pool.stats.queued).toBe(1);
    waiting.abort();
    expect((await rejectionOf(queued)).message).toContain('cancelled');
    expect(pool.stats.queued).toBe(0);
    await expect(running).resolves.toMatchObject({ type: 'number', values: ['0'] });
    expect(pool.threadIds).toEqual([thread]);
  });

  it('refuses a call at once when the queue is full, and serves the queued ones', async () => {
    pool = new EnginePool({ size: 1, maxQueued: 2 });
    const calls = Array.from({ length: 3 }, () => pool.run('inspect', { xml: bytes('<r/>') }));
    const overflow = await rejectionOf(pool.run('inspect', { xml: bytes('<r/>') }));
    expect(overflow.code).toBe('busy');
    expect(overflow.message).toContain('Retry');
    expect((await Promise.all(calls)).map((result) => result.root)).toEqual(['r', 'r', 'r']);
  });

  it('bounds the bytes waiting calls hold, and frees them as calls leave the queue', async () => {
    pool = new EnginePool({ size: 1, maxQueuedBytes: 1000 });
    const document = () => bytes(`<r>${'x'.repeat(393)}</r>`); // 400 bytes
    // The first call goes to the worker at once; the next two wait, holding 800 bytes.
    const calls = Array.from({ length: 3 }, () => pool.run('inspect', { xml: document() }));
    const overflow = await rejectionOf(pool.run('inspect', { xml: document() }));
    expect(overflow.code).toBe('busy');
    expect(overflow.message).toMatch(/MiB of documents are already waiting.*Retry/);
    expect((await Promise.all(calls)).map((result) => result.root)).toEqual(['r', 'r', 'r']);
    // The queue emptied: the same call is accepted again.
    await expect(pool.run('inspect', { xml: document() })).resolves.toMatchObject({ root: 'r' });
  });

  it('runs a call larger than the byte bound when nothing else waits', async () => {
    pool = new EnginePool({ size: 1, maxQueuedBytes: 10 });
    await expect(pool.run('inspect', { xml: bytes('<root-larger-than-ten-bytes/>') })).resolves.toMatchObject(
      {
        root: 'root-larger-than-ten-bytes',
      },
    );
  });

  it('gives each client a share of the waiting calls, so one cannot have the others refused (issue 24, M2)', async () => {
    pool = new EnginePool({ size: 1, maxQueued: 8 });
    const document = () => bytes('<r/>');
    // One call runs; client a may keep a quarter of the queue (2) waiting, not more.
    const calls = Array.from({ length: 3 }, () => pool.run('inspect', { xml: document() }, { client: 'a' }));
    const flood = await rejectionOf(pool.run('inspect', { xml: document() }, { client: 'a' }));
    expect(flood.code).toBe('busy');
    expect(flood.message).toBe(
      'The server is busy: 2 calls are already waiting for the XML engine from this session. Wait for their answers before sending more.',
    );
    const other = pool.run('inspect', { xml: document() }, { client: 'b' });
    expect((await Promise.all([...calls, other])).map((result) => result.root)).toEqual(['r', 'r', 'r', 'r']);
  });

  it("tells an authenticated caller its share is the caller's, not a session's (docs/adr/0054)", async () => {
    pool = new EnginePool({ size: 1, maxQueued: 8 });
    const document = () => bytes('<r/>');
    const line = callerLine('alice');
    const calls = Array.from({ length: 3 }, () => pool.run('inspect', { xml: document() }, { client: line }));
    const flood = await rejectionOf(pool.run('inspect', { xml: document() }, { client: line }));
    expect(flood.message).toBe(
      'The server is busy: 2 calls are already waiting for the XML engine from your calls (every session of yours counts). Wait for their answers before sending more.',
    );
    await Promise.all(calls);
  });

  it('counts a held document once however many waiting calls share it (issue 24, M2)', async () => {
    pool = new EnginePool({ size: 1, maxQueuedBytes: 4_000 });
    const text = `<r>${'x'.repeat(993)}</r>`; // 1,000 bytes
    const held = new Uint8Array(new SharedArrayBuffer(text.length));
    held.set(bytes(text));
    // Six calls by the same held text: one runs, five wait holding its 1,000 bytes once.
    const byHandle = Array.from({ length: 6 }, (_, i) =>
      pool.run('inspect', { xml: held }, { client: `c${i}` }),
    );
    // The same text as a copy of its own per call: past 4,000 bytes the fifth copy is refused.
    const copies = Array.from({ length: 3 }, (_, i) =>
      pool.run('inspect', { xml: bytes(text) }, { client: `d${i}` }),
    );
    const overflow = await rejectionOf(pool.run('inspect', { xml: bytes(text) }, { client: 'e' }));
    expect(overflow.message).toMatch(/^The server is busy: 4 MiB|^The server is busy: 0 MiB/);
    expect((await Promise.all([...byHandle, ...copies])).every((result) => result.root === 'r')).toBe(true);
  });

  it('takes turns between clients, so one busy client does not starve another', async () => {
    pool = new EnginePool({ size: 1 });
    const finished: string[] = [];
    const track = (name: string, client: string) =>
      pool.run('inspect', { xml: bytes('<r/>') }, { client }).then(() => finished.push(name));
    const calls = [track('a1', 'a'), track('a2', 'a'), track('a3', 'a'), track('a4', 'a'), track('b1', 'b')];
    await Promise.all(calls);
    expect(finished.indexOf('b1')).toBeLessThan(finished.indexOf('a3'));
  });

  it('queues calls beyond its size and answers all of them', async () => {
    pool = new EnginePool({ size: 2 });
    const calls = Array.from({ length: 6 }, (_, i) =>
      pool.run('query', { xml: bytes(`<r>${'<a/>'.repeat(i)}</r>`), xpath: 'count(//a)', namespaces: {} }),
    );
    expect((await Promise.all(calls)).map((result) => result.values[0])).toEqual([
      '0',
      '1',
      '2',
      '3',
      '4',
      '5',
    ]);
  });
});
