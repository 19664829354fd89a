import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EnginePool } from '../src/engine/runtime/pool.js';
import { HELD_DOCUMENT_OVERHEAD_BYTES } from '../src/limits.js';
import { createServer, STATELESS_CACHE } from '../src/server.js';
import { HeldDocuments } from '../src/tools/held-documents.js';
import { answerOf } from './support/in-memory-server.js';
import { ORDER_SCHEMA } from './support/order-schema.js';

type Result = Awaited<ReturnType<Client['callTool']>>;
type Session = { call(name: string, args: Record<string, unknown>): Promise<Result>; close(): Promise<void> };

const pools: EnginePool[] = [];
const sessions: Session[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.close()));
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
});

function pool(options: ConstructorParameters<typeof EnginePool>[0] = { size: 1 }): EnginePool {
  const engine = new EnginePool(options);
  pools.push(engine);
  return engine;
}

/** One session (or, with `cacheDocuments: false`, a stateless instance) through the SDK client. */
async function open(
  engine: EnginePool,
  options: Parameters<typeof createServer>[1] = { cacheDocuments: true },
): Promise<Session> {
  const server = createServer(engine, options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'handles-test', version: '1' });
  await client.connect(clientSide);
  const session: Session = {
    call: (name, args) => client.callTool({ name, arguments: args }) as Promise<Result>,
    close: () => client.close(),
  };
  sessions.push(session);
  return session;
}

const texts = (result: Result) => (result.content as Array<{ text: string }>).map((item) => item.text);
const text = (result: Result) => texts(result)[0] ?? '';
const lastLine = (result: Result) => texts(result).at(-1) ?? '';
const handleOf = (result: Result) => (result.structuredContent as { document?: string }).document as string;
/** The answer without its handles: what the same call with the text answers. */
const withoutHandles = (result: Result) => {
  const structured = answerOf(result.structuredContent);
  const content = result.content as Array<{ text: string }>;
  return { text: content[0]?.text, structured, isError: result.isError ?? false };
};

const LIBRARY =
  '<library><book id="1"><title>Dune</title><price>9</price></book><book id="2"><title>Emma</title><price>12</price></book></library>';
const LIBRARY_XSD = `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:element name="library"><xs:complexType><xs:sequence>
    <xs:element name="book" maxOccurs="unbounded"><xs:complexType><xs:sequence>
      <xs:element name="title" type="xs:string"/><xs:element name="price" type="xs:integer"/>
    </xs:sequence><xs:attribute name="id" type="xs:integer"/></xs:complexType></xs:element>
  </xs:sequence></xs:complexType></xs:element></xs:schema>`;
const NOT_HELD = 'That document is no longer held; send its text as `xml` again.';

/** A document of about `bytes` bytes, different for each `seed`. */
const documentOf = (bytes: number, seed: string) =>
  `<r s="${seed}">${'x'.repeat(Math.max(0, bytes - 14 - seed.length))}</r>`;

describe('document handles within a session', () => {
  it('gives xml_inspect an unguessable short handle, in structuredContent and as the last line', async () => {
    const session = await open(pool());
    const result = await session.call('xml_inspect', { xml: LIBRARY });
    const handle = handleOf(result);
    // d_ and 22 base64url characters: 132 bits of which 128 are random.
    expect(handle).toMatch(/^d_[A-Za-z0-9_-]{22}$/);
    expect(lastLine(result)).toBe(
      `document: ${handle} (next time pass this as \`document\` instead of the text)`,
    );
    expect(text(result)).toContain('Root element: library');
  });

  it('answers every other tool by the handle from xml_inspect exactly as with the text', async () => {
    const session = await open(pool());
    const handle = handleOf(await session.call('xml_inspect', { xml: LIBRARY }));
    const calls: Array<[string, Record<string, unknown>]> = [
      ['xml_query', { xpath: 'sum(//price)' }],
      ['xml_query', { xpath: '//title' }],
      ['xml_check', {}],
      ['xml_validate', { xsd: LIBRARY_XSD }],
      ['xml_format', { indent: 2 }],
      ['xml_inspect', {}],
    ];
    for (const [name, args] of calls) {
      const byText = await session.call(name, { xml: LIBRARY, ...args });
      const byHandle = await session.call(name, { document: handle, ...args });
      expect(withoutHandles(byHandle)).toEqual(withoutHandles(byText));
      // Sent again as text, the same document keeps its handle; by handle, the line is just the handle.
      expect(lastLine(byText)).toContain(`document: ${handle}`);
      // (xml_validate's schema went as text, so its line adds the schema's handle.)
      expect(lastLine(byHandle).split(',')[0]).toBe(`document: ${handle}`);
      if (name !== 'xml_format') expect(handleOf(byHandle)).toBe(handle);
    }
    // xml_format's text is still the new document alone; the handle is a block of its own.
    const formatted = await session.call('xml_format', { document: handle, indent: 1 });
    expect(texts(formatted)).toHaveLength(2);
    expect(text(formatted)).toMatch(/^<library>\n <book id="1">/);
  });

  it('names the schema handle, not `xsd`, when the text behind it is no schema (issue 24)', async () => {
    const session = await open(pool());
    const document = handleOf(await session.call('xml_check', { xml: LIBRARY }));
    const refused = await session.call('xml_validate', { xml: LIBRARY, schema: document });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^The text behind `schema`: its root element is `library`/);
    expect(text(refused)).not.toContain('`xsd`');
  });

  it('takes the schema by handle too, so one schema validates several documents sent once', async () => {
    const session = await open(pool());
    const first = await session.call('xml_validate', { xml: LIBRARY, xsd: LIBRARY_XSD });
    const schema = (first.structuredContent as { schema: string }).schema;
    expect(schema).toMatch(/^d_/);
    expect(lastLine(first)).toBe(
      `document: ${handleOf(first)}, schema: ${schema} (next time pass these as \`document\` and \`schema\` instead of the texts)`,
    );
    const bad = LIBRARY.replace('<price>12</price>', '<price>twelve</price>');
    const invalid = await session.call('xml_validate', { xml: bad, schema });
    expect(invalid.isError).toBe(true);
    expect(text(invalid)).toContain('Invalid: 1 violation');
    expect(invalid.structuredContent).toMatchObject({ valid: false, total: 1, schema });
    const order = await session.call('xml_validate', {
      xml: '<order><item><price>1.5</price></item><item><price>x</price></item></order>',
      xsd: ORDER_SCHEMA,
    });
    expect(order.isError).toBe(true);
    const orderSchemaHandle = (order.structuredContent as { schema: string }).schema;
    const again = await session.call('xml_validate', {
      document: handleOf(order),
      schema: orderSchemaHandle,
    });
    expect(withoutHandles(again)).toEqual(withoutHandles(order));
    expect(lastLine(again)).toBe(`document: ${handleOf(order)}, schema: ${orderSchemaHandle}`);
  });

  it('asks for exactly one of xml and document, naming both', async () => {
    const session = await open(pool());
    const handle = handleOf(await session.call('xml_check', { xml: '<r/>' }));
    const neither = await session.call('xml_query', { xpath: '1' });
    expect(neither.isError).toBe(true);
    expect(text(neither)).toBe(
      'xml_query needs the document: its text as `xml`, or as `document` the handle an earlier answer gave.',
    );
    const both = await session.call('xml_check', { xml: '<r/>', document: handle });
    expect(both.isError).toBe(true);
    expect(text(both)).toBe(
      'Pass either `xml` or `document` to xml_check, not both: `document` names a document already sent.',
    );
    const noSchema = await session.call('xml_validate', { document: handle });
    expect(text(noSchema)).toBe(
      'xml_validate needs the schema: its text as `xsd`, or as `schema` the handle an earlier answer gave.',
    );
  });

  it("answers a forged handle, a malformed one, an evicted one and an ended session's alike", async () => {
    const engine = pool();
    // Room for two documents of ~2 KiB each in a session.
    const documents = new HeldDocuments({ sessionBytes: 2 * (2048 + HELD_DOCUMENT_OVERHEAD_BYTES) });
    const b = await open(engine, { cacheDocuments: true, documents });
    const ofB = handleOf(await b.call('xml_check', { xml: documentOf(2048, 'b1') }));
    await b.call('xml_check', { xml: documentOf(2048, 'b2') });
    await b.call('xml_check', { xml: documentOf(2048, 'b3') }); // evicts b1
    const ended = await open(engine, { cacheDocuments: true, documents });
    const ofEnded = handleOf(await ended.call('xml_check', { xml: documentOf(100, 'gone') }));
    await ended.close();
    await vi.waitFor(() => expect(documents.size).toBe(2));
    // The forged one differs from a held handle in its last character only.
    const held = handleOf(await b.call('xml_check', { xml: documentOf(2048, 'b3') }));
    const forged = `${held.slice(0, -1)}${held.endsWith('A') ? 'B' : 'A'}`;
    const answers = await Promise.all(
      [forged, 'd_AAAAAAAAAAAAAAAAAAAAAA', 'not a handle', ofB, ofEnded].map((handle) =>
        b.call('xml_query', { document: handle, xpath: 'count(//r)' }),
      ),
    );
    for (const answer of answers) {
      expect(answer).toEqual({ content: [{ type: 'text', text: NOT_HELD }], isError: true });
    }
  });

  it("answers another session's handle as its own: a handle is a bearer capability (ADR 0039)", async () => {
    const engine = pool();
    const documents = new HeldDocuments();
    const a = await open(engine, { cacheDocuments: true, documents });
    const b = await open(engine, { cacheDocuments: true, documents });
    const ofA = handleOf(await a.call('xml_check', { xml: documentOf(2048, 'a') }));
    const byB = await b.call('xml_query', { document: ofA, xpath: 'string(/r/@s)' });
    expect(text(byB)).toBe('a');
    expect(lastLine(byB)).toBe(`document: ${ofA}`);
    // The same text sent by two sessions still gets two unrelated handles.
    const sameText = handleOf(await b.call('xml_check', { xml: documentOf(2048, 'a') }));
    expect(sameText).not.toBe(ofA);
    // Charged to the session that sent it: its end frees it, whoever used it since.
    await a.close();
    await vi.waitFor(() => expect(documents.size).toBe(1));
    expect(text(await b.call('xml_query', { document: ofA, xpath: '1' }))).toBe(NOT_HELD);
  });

  it('evicts the least recently used document when a session passes its byte bound', async () => {
    const documents = new HeldDocuments({ sessionBytes: 3 * (4096 + HELD_DOCUMENT_OVERHEAD_BYTES) });
    const session = await open(pool(), { cacheDocuments: true, documents });
    const held = [];
    for (const seed of ['one', 'two', 'three']) {
      held.push(handleOf(await session.call('xml_inspect', { xml: documentOf(4096, seed) })));
    }
    // Using "one" makes "two" the least recently used; a fourth document takes its place.
    await session.call('xml_query', { document: held[0], xpath: '1' });
    const fourth = handleOf(await session.call('xml_inspect', { xml: documentOf(4096, 'four') }));
    expect(documents.size).toBe(3);
    expect(documents.bytes).toBeLessThanOrEqual(documents.limits.sessionBytes);
    const seeds = await Promise.all(
      [held[0], held[1], held[2], fourth].map(async (handle) =>
        text(await session.call('xml_query', { document: handle, xpath: 'string(/r/@s)' })),
      ),
    );
    expect(seeds).toEqual(['one', NOT_HELD, 'three', 'four']);
  });

  it("evicts the process's least recently used document, whoever sent it, past the process bound", async () => {
    const each = 4096 + HELD_DOCUMENT_OVERHEAD_BYTES;
    const documents = new HeldDocuments({ sessionBytes: 10 * each, processBytes: 3 * each });
    const engine = pool();
    const a = await open(engine, { cacheDocuments: true, documents });
    const b = await open(engine, { cacheDocuments: true, documents });
    const a1 = handleOf(await a.call('xml_check', { xml: documentOf(4096, 'a1') }));
    const b1 = handleOf(await b.call('xml_check', { xml: documentOf(4096, 'b1') }));
    const a2 = handleOf(await a.call('xml_check', { xml: documentOf(4096, 'a2') }));
    const b2 = handleOf(await b.call('xml_check', { xml: documentOf(4096, 'b2') })); // evicts a1
    expect(documents.size).toBe(3);
    expect(text(await a.call('xml_check', { document: a1 }))).toBe(NOT_HELD);
    for (const [session, handle] of [
      [b, b1],
      [a, a2],
      [b, b2],
    ] as const) {
      expect((await session.call('xml_check', { document: handle })).isError).toBeFalsy();
    }
  });

  it('frees every document of a session when it ends', async () => {
    const documents = new HeldDocuments();
    const session = await open(pool(), { cacheDocuments: true, documents });
    await session.call('xml_inspect', { xml: LIBRARY });
    await session.call('xml_validate', { xml: LIBRARY, xsd: LIBRARY_XSD });
    expect(documents.size).toBe(2);
    expect(documents.bytes).toBeGreaterThan(LIBRARY.length + LIBRARY_XSD.length);
    await session.close();
    await vi.waitFor(() => expect(documents.size).toBe(0));
    expect(documents.bytes).toBe(0);
  });

  it('holds the same text once, and never a document that cannot be parsed', async () => {
    const documents = new HeldDocuments();
    const session = await open(pool(), { cacheDocuments: true, documents });
    const first = handleOf(await session.call('xml_inspect', { xml: LIBRARY }));
    expect(handleOf(await session.call('xml_query', { xml: LIBRARY, xpath: '1' }))).toBe(first);
    expect(documents.size).toBe(1);
    const broken = await session.call('xml_check', { xml: '<r><a></r>' });
    expect(broken.isError).toBe(true);
    expect(texts(broken)).toHaveLength(1);
    expect(broken.structuredContent).not.toHaveProperty('document');
    // A mistaken expression is no fault of the document: its handle comes with the error.
    const mistake = await session.call('xml_query', { xml: '<s/>', xpath: '//[' });
    expect(mistake.isError).toBe(true);
    expect(lastLine(mistake)).toMatch(/^document: d_/);
    expect(documents.size).toBe(2);
  });

  it('answers by handle after the worker was stopped between two calls', async () => {
    const engine = pool({ size: 1, timeoutMs: 1_000 });
    const session = await open(engine);
    const xml = `<r>${'<a>xxxxxxxxxx</a>'.repeat(20_000)}</r>`;
    const handle = handleOf(await session.call('xml_inspect', { xml }));
    // Rebuilds the whole text for every <a>: far past the deadline, so the worker is terminated.
    const stopped = await session.call('xml_query', {
      document: handle,
      xpath: "count(//a[contains(string(/), 'zzz')])",
    });
    expect(text(stopped)).toContain('time budget');
    expect(text(await session.call('xml_query', { document: handle, xpath: 'count(//a)' }))).toBe('20000');
  });

  it('answers by handle across recycled workers and workers replaced for their heap', async () => {
    for (const options of [
      { size: 1, maxCalls: 1 },
      { size: 1, maxHeapBytes: 1 },
    ]) {
      const engine = pool(options);
      const session = await open(engine);
      const handle = handleOf(await session.call('xml_inspect', { xml: LIBRARY }));
      await vi.waitFor(
        () => expect(engine.recycledWorkers + engine.retiredWorkers).toBeGreaterThanOrEqual(1),
        { timeout: 60_000 },
      );
      expect(text(await session.call('xml_query', { document: handle, xpath: 'sum(//price)' }))).toBe('21');
      expect(text(await session.call('xml_query', { document: handle, xpath: 'count(//book)' }))).toBe('2');
    }
  });

  it("holds a stateless request's text, and answers its handle in a later request on another instance", async () => {
    const documents = new HeldDocuments();
    const engine = pool();
    // Each stateless request is an instance of its own, as the HTTP transport makes them.
    const first = await open(engine, { documents, holdTexts: true });
    const sent = await first.call('xml_inspect', { xml: LIBRARY });
    const handle = handleOf(sent);
    expect(lastLine(sent)).toBe(
      `document: ${handle} (next time pass this as \`document\` instead of the text)`,
    );
    await first.close();
    // The instance's end frees nothing: its texts belong to no session.
    expect(documents.size).toBe(1);
    const later = await open(engine, { documents, holdTexts: true });
    const byHandle = await later.call('xml_query', { document: handle, xpath: 'sum(//price)' });
    expect(text(byHandle)).toBe('21');
    // A session may present it too, and a stateless request a session's.
    const session = await open(engine, { cacheDocuments: true, documents });
    expect(text(await session.call('xml_query', { document: handle, xpath: 'count(//book)' }))).toBe('2');
    const ofSession = handleOf(await session.call('xml_check', { xml: '<s/>' }));
    expect((await later.call('xml_check', { document: ofSession })).isError).toBeFalsy();
  });

  it('parses for every stateless request in one shared cache, and each session in its own', async () => {
    const documents = new HeldDocuments();
    const engine = pool();
    const run = vi.spyOn(engine, 'run');
    const caches = () => run.mock.calls.map(([, args]) => (args as { cacheAs?: string }).cacheAs);
    const first = await open(engine, { documents, holdTexts: true });
    const handle = handleOf(await first.call('xml_inspect', { xml: LIBRARY }));
    await first.close();
    const later = await open(engine, { documents, holdTexts: true });
    expect(text(await later.call('xml_query', { document: handle, xpath: 'sum(//price)' }))).toBe('21');
    // Two requests on two instances, one cache: the text sent once is parsed once on a worker.
    expect(caches()).toEqual([STATELESS_CACHE, STATELESS_CACHE]);
    const session = await open(engine, { cacheDocuments: true, documents });
    await session.call('xml_query', { document: handle, xpath: '1' });
    const own = caches()[2];
    expect(own).toMatch(/^[0-9a-f-]{36}$/);
    // A stateless instance's end forgets no cache and frees no text.
    const forget = vi.spyOn(engine, 'forget');
    const third = await open(engine, { documents, holdTexts: true });
    await third.close();
    expect(forget).not.toHaveBeenCalled();
    await session.close();
    expect(forget).toHaveBeenCalledWith(own);
    expect(documents.size).toBe(1);
  });

  it('gives the same text sent by two stateless requests one handle, held once', async () => {
    const documents = new HeldDocuments();
    const engine = pool();
    const one = await open(engine, { documents, holdTexts: true });
    const two = await open(engine, { documents, holdTexts: true });
    const first = handleOf(await one.call('xml_check', { xml: LIBRARY }));
    expect(handleOf(await two.call('xml_query', { xml: LIBRARY, xpath: '1' }))).toBe(first);
    expect(documents.size).toBe(1);
  });

  it('bounds stateless texts together by the process bound, least recently used first', async () => {
    const each = 4096 + HELD_DOCUMENT_OVERHEAD_BYTES;
    // A session could hold only one; stateless requests share the process bound of three.
    const documents = new HeldDocuments({ sessionBytes: each, processBytes: 3 * each });
    const stateless = await open(pool(), { documents, holdTexts: true });
    const held = [];
    for (const seed of ['one', 'two', 'three', 'four']) {
      held.push(handleOf(await stateless.call('xml_check', { xml: documentOf(4096, seed) })));
    }
    expect(documents.size).toBe(3);
    expect(text(await stateless.call('xml_check', { document: held[0] }))).toBe(NOT_HELD);
    expect((await stateless.call('xml_check', { document: held[3] })).isError).toBeFalsy();
  });

  it('lets go of a text unused for 30 minutes, and counts each use as a new start', async () => {
    let now = 0;
    const documents = new HeldDocuments({ now: () => now });
    const engine = pool();
    const stateless = await open(engine, { documents, holdTexts: true });
    const session = await open(engine, { cacheDocuments: true, documents });
    const kept = handleOf(await stateless.call('xml_check', { xml: '<kept/>' }));
    const idle = handleOf(await session.call('xml_check', { xml: '<idle/>' }));
    now += 29 * 60_000;
    expect((await stateless.call('xml_check', { document: kept })).isError).toBeFalsy();
    now += 2 * 60_000;
    // 31 minutes since the session's text was last used; 2 since the stateless one was.
    expect(text(await session.call('xml_check', { document: idle }))).toBe(NOT_HELD);
    expect((await session.call('xml_check', { document: kept })).isError).toBeFalsy();
    now += 30 * 60_000;
    expect(text(await session.call('xml_check', { document: kept }))).toBe(NOT_HELD);
    expect(documents.size).toBe(0);
    expect(documents.bytes).toBe(0);
  });

  it('holds nothing on an instance given no store, and answers every handle as not held', async () => {
    const bare = await open(pool(), { cacheDocuments: false });
    const result = await bare.call('xml_query', { document: 'd_AAAAAAAAAAAAAAAAAAAAAA', xpath: '1' });
    expect(result).toEqual({ content: [{ type: 'text', text: NOT_HELD }], isError: true });
    const schema = await bare.call('xml_validate', { xml: '<r/>', schema: 'd_AAAAAAAAAAAAAAAAAAAAAA' });
    expect(text(schema)).toBe('That schema is no longer held; send its text as `xsd` again.');
    const answer = await bare.call('xml_inspect', { xml: LIBRARY });
    expect(texts(answer)).toHaveLength(1);
    expect(answer.structuredContent).not.toHaveProperty('document');
  });
});

describe('the lifetime a client is told', () => {
  it('states it in one sentence of the server instructions, on every instance', async () => {
    for (const options of [{ cacheDocuments: true }, { holdTexts: true }]) {
      const server = createServer(pool(), options);
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      const client = new Client({ name: 'handles-lifetime', version: '1' });
      await client.connect(clientSide);
      expect(client.getInstructions()).toContain(
        'A handle works on any connection to this server for 30 minutes after its last use, unless memory runs short (least recently used first); when told it is no longer held, send the text again.',
      );
      await client.close();
    }
  });
});

describe('an answer names only the handles still held', () => {
  it('leaves out a handle evicted while its call ran (issue 24)', async () => {
    const { resolveDocuments } = await import('../src/tools/document-handles.js');
    const each = 4096 + HELD_DOCUMENT_OVERHEAD_BYTES;
    const documents = new HeldDocuments({ sessionBytes: 10 * each, processBytes: 2 * each });
    const mine = documents.open();
    const other = documents.open();
    const engine = { run: async () => ({}) } as unknown as Parameters<typeof resolveDocuments>[4];
    const resolved = await resolveDocuments(
      'xml_check',
      new Set(['xml', 'document']),
      { xml: documentOf(4096, 'a') },
      mine,
      engine,
    );
    if (!resolved.ok) throw new Error('refused');
    // While the call runs, another session's texts fill the process bound: this one goes.
    other.hold(documentOf(4096, 'b'));
    other.hold(documentOf(4096, 'c'));
    const answer = resolved.answer({
      content: [{ type: 'text', text: 'Well-formed.' }],
      structuredContent: {},
    });
    expect(answer.content).toEqual([{ type: 'text', text: 'Well-formed.' }]);
    expect(answer.structuredContent).toEqual({});
  });
});
