import { Client, SSEClientTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../support/http-server.js';
import { exerciseEveryTool } from '../support/sdk-client.js';
import { expectLargeDocumentsReadExactly } from './large-documents.js';

type Result = Awaited<ReturnType<Client['callTool']>>;
const text = (result: Result) => (result.content as Array<{ text: string }>)[0]?.text;

const record = '<record id="x"><name>n</name></record>';
const bigCount = Math.floor((8 * 1024 * 1024 - 20) / record.length);
const bigDocument = `<records>${record.repeat(bigCount)}</records>`;

/** The text is sent once, then queried by its handle: in a session, and statelessly too (ADR 0039). */
async function queryByHandle(client: Client): Promise<string> {
  const xml = `<r>${'<item><price>2</price></item>'.repeat(100)}</r>`;
  const inspected = await client.callTool({ name: 'xml_inspect', arguments: { xml } });
  const document = (inspected.structuredContent as { document?: string }).document as string;
  expect(document).toMatch(/^d_[A-Za-z0-9_-]{22}$/);
  const answers = [];
  for (const xpath of ['count(//item)', 'sum(//price)', 'string(/r/item[1]/price)']) {
    answers.push(text(await client.callTool({ name: 'xml_query', arguments: { document, xpath } })));
  }
  expect(answers).toEqual(['100', '200', '2']);
  return document;
}

const NOT_HELD = 'That document is no longer held; send its text as `xml` again.';
const MODERN = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as ConstructorParameters<
  typeof Client
>[1];

/** A client on a connection of its own. */
async function connected(url: string, options?: ConstructorParameters<typeof Client>[1]): Promise<Client> {
  const client = new Client({ name: 'e2e-http-handles', version: '1' }, options);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

describe('the built binary over Streamable HTTP', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer('streamable-http');
  });
  afterAll(async () => {
    expect(await server.stop()).toBe(0);
  });

  it.each([
    ['2025-11-25 session', {}],
    ['2026-07-28 stateless', { versionNegotiation: { mode: { pin: '2026-07-28' } } }],
  ] as const)('serves every tool (%s)', async (_era, options) => {
    const client = new Client(
      { name: 'e2e-http', version: '1' },
      options as ConstructorParameters<typeof Client>[1],
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    await exerciseEveryTool(client);
    await client.close();
  });

  it.each([
    ['2025-11-25 session', {}, '2025-11-25'],
    ['2026-07-28 stateless', { versionNegotiation: { mode: { pin: '2026-07-28' } } }, '2026-07-28'],
    // What the Python SDK's default `Client(url)` does: probe, and take the newest revision.
    ['auto negotiation', { versionNegotiation: { mode: 'auto' } }, '2026-07-28'],
  ] as const)('answers by document handle (%s)', async (_era, options, revision) => {
    const client = await connected(server.url, options as ConstructorParameters<typeof Client>[1]);
    expect(client.getNegotiatedProtocolVersion()).toBe(revision);
    await queryByHandle(client);
    await client.close();
  });

  it('answers a 2026-07-28 handle on a new connection, and never logs it or shows it in /healthz', async () => {
    const first = await connected(server.url, MODERN);
    const sent = await first.callTool({
      name: 'xml_query',
      arguments: { xml: '<library><book><title>Dune</title></book></library>', xpath: '//title' },
    });
    const document = (sent.structuredContent as { document: string }).document;
    await first.close();
    const second = await connected(server.url, MODERN);
    const byHandle = await second.callTool({
      name: 'xml_query',
      arguments: { document, xpath: 'string(//title)' },
    });
    expect(text(byHandle)).toBe('Dune');
    const made = await second.callTool({
      name: 'xml_query',
      arguments: { document: 'd_AAAAAAAAAAAAAAAAAAAAAA', xpath: '1' },
    });
    expect(made).toMatchObject({ isError: true, content: [{ text: NOT_HELD }] });
    // A 2025 session may present it too, and the stateless client a session's.
    const session = await connected(server.url);
    expect(
      text(await session.callTool({ name: 'xml_query', arguments: { document, xpath: 'count(//book)' } })),
    ).toBe('1');
    const ofSession = await queryByHandle(session);
    expect(
      text(
        await second.callTool({
          name: 'xml_query',
          arguments: { document: ofSession, xpath: 'count(//item)' },
        }),
      ),
    ).toBe('100');
    await Promise.all([second.close(), session.close()]);
    const health = await (await fetch(new URL('/healthz', server.url))).text();
    for (const handle of [document, ofSession]) {
      expect(health).not.toContain(handle);
      expect(server.stderr()).not.toContain(handle);
      expect(server.stdout()).not.toContain(handle);
    }
  });

  it.each([
    ['2025-11-25 session', {}],
    ['2026-07-28 stateless', { versionNegotiation: { mode: { pin: '2026-07-28' } } }],
  ] as const)('queries an 8 MiB document (%s)', async (_era, options) => {
    const client = new Client(
      { name: 'e2e-http-big', version: '1' },
      options as ConstructorParameters<typeof Client>[1],
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    const result = await client.callTool({
      name: 'xml_query',
      arguments: { xml: bigDocument, xpath: 'count(//record)' },
    });
    expect(text(result)).toBe(String(bigCount));
    await client.close();
  });

  it.each([
    ['2025-11-25 session', {}],
    ['2026-07-28 stateless', { versionNegotiation: { mode: { pin: '2026-07-28' } } }],
  ] as const)('reads large documents exactly and refuses the same ones (%s)', async (_era, options) => {
    const client = new Client(
      { name: 'e2e-http-large', version: '1' },
      options as ConstructorParameters<typeof Client>[1],
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    await expectLargeDocumentsReadExactly(client);
    await client.close();
  });

  it('keeps two concurrent sessions apart', async () => {
    const clients = [new Client({ name: 'a', version: '1' }), new Client({ name: 'b', version: '1' })];
    const transports = clients.map(() => new StreamableHTTPClientTransport(new URL(server.url)));
    await Promise.all(
      clients.map((client, i) => client.connect(transports[i] as StreamableHTTPClientTransport)),
    );
    expect(transports[0]?.sessionId).toBeDefined();
    expect(transports[0]?.sessionId).not.toBe(transports[1]?.sessionId);
    const answers = await Promise.all(
      clients.map((client, i) =>
        client.callTool({
          name: 'xml_query',
          arguments: { xml: `<r>${'<a/>'.repeat(i + 1)}</r>`, xpath: 'count(//a)' },
        }),
      ),
    );
    expect(answers.map(text)).toEqual(['1', '2']);
    // A handle is a bearer capability (ADR 0039): given to the other session, it works there, until
    // the session that sent the text ends.
    const ofFirst = ((answers[0] as Result).structuredContent as { document: string }).document;
    const crossed = () =>
      (clients[1] as Client).callTool({
        name: 'xml_query',
        arguments: { document: ofFirst, xpath: 'count(//a)' },
      });
    expect(text(await crossed())).toBe('1');
    await transports[0]?.terminateSession();
    await clients[0]?.close();
    expect(text(await crossed())).toBe(NOT_HELD);
    expect(
      text(
        await (clients[1] as Client).callTool({
          name: 'xml_query',
          arguments: { xml: '<r/>', xpath: 'count(/r)' },
        }),
      ),
    ).toBe('1');
    await clients[1]?.close();
  });
});

describe('the built binary over Streamable HTTP with --stateless', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer('streamable-http', ['--stateless']);
  });
  afterAll(async () => {
    expect(await server.stop()).toBe(0);
  });

  it('gives a 2025-era client with no session a handle that works on its next connection', async () => {
    const first = await connected(server.url);
    const document = await queryByHandle(first);
    await first.close();
    const next = await connected(server.url);
    expect(
      text(await next.callTool({ name: 'xml_query', arguments: { document, xpath: 'count(//item)' } })),
    ).toBe('100');
    await next.close();
  });
});

describe('the built binary over legacy HTTP+SSE', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer('sse');
  });
  afterAll(async () => {
    expect(await server.stop()).toBe(0);
  });

  it('serves every tool', async () => {
    const client = new Client({ name: 'e2e-sse', version: '1' });
    await client.connect(new SSEClientTransport(new URL(server.url)));
    await exerciseEveryTool(client);
    await client.close();
  });

  it('answers by document handle within the connection', async () => {
    const client = new Client({ name: 'e2e-sse-handles', version: '1' });
    await client.connect(new SSEClientTransport(new URL(server.url)));
    await queryByHandle(client);
    await client.close();
  });

  it('queries an 8 MiB document', async () => {
    const client = new Client({ name: 'e2e-sse-big', version: '1' });
    await client.connect(new SSEClientTransport(new URL(server.url)));
    const result = await client.callTool({
      name: 'xml_query',
      arguments: { xml: bigDocument, xpath: 'count(//record)' },
    });
    expect(text(result)).toBe(String(bigCount));
    await client.close();
  });

  it('reads large documents exactly and refuses the same ones', async () => {
    const client = new Client({ name: 'e2e-sse-large', version: '1' });
    await client.connect(new SSEClientTransport(new URL(server.url)));
    await expectLargeDocumentsReadExactly(client);
    await client.close();
  });
});
