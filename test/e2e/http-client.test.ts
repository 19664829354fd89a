import { Client, SSEClientTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../support/http-server.js';
import { expectLargeDocumentsReadExactly } from './large-documents.js';

type Result = Awaited<ReturnType<Client['callTool']>>;
const text = (result: Result) => (result.content as Array<{ text: string }>)[0]?.text;

const record = '<record id="x"><name>n</name></record>';
const bigCount = Math.floor((8 * 1024 * 1024 - 20) / record.length);
const bigDocument = `<records>${record.repeat(bigCount)}</records>`;
const xsd =
  '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="n" type="xs:integer"/></xs:schema>';

async function exerciseEveryTool(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name).sort()).toEqual([
    'xml_check',
    'xml_format',
    'xml_inspect',
    'xml_query',
    'xml_validate',
  ]);
  const xml = '<library><book><title>Dune</title></book></library>';
  const query = await client.callTool({ name: 'xml_query', arguments: { xml, xpath: '//title' } });
  expect(query.structuredContent).toMatchObject({ type: 'node-set', count: 1, values: ['Dune'] });
  expect(text(await client.callTool({ name: 'xml_inspect', arguments: { xml } }))).toContain(
    'Root element: library',
  );
  expect(text(await client.callTool({ name: 'xml_check', arguments: { xml: '<r>' } }))).toMatch(
    /line 1, column \d+/,
  );
  expect((await client.callTool({ name: 'xml_validate', arguments: { xml: '<n>x</n>', xsd } })).isError).toBe(
    true,
  );
  expect(
    text(await client.callTool({ name: 'xml_format', arguments: { xml: '<r><a/></r>', indent: 2 } })),
  ).toBe('<r>\n  <a/>\n</r>');
  const unknown = await client.callTool({ name: 'xml_nope', arguments: {} });
  expect(unknown.isError).toBe(true);
}

/** A session sends the text once, then queries by its handle; a stateless request cannot. */
async function queryByHandle(client: Client, session: boolean): Promise<void> {
  const xml = `<r>${'<item><price>2</price></item>'.repeat(100)}</r>`;
  const inspected = await client.callTool({ name: 'xml_inspect', arguments: { xml } });
  const document = (inspected.structuredContent as { document?: string }).document;
  if (!session) {
    expect(document).toBeUndefined();
    const refused = await client.callTool({
      name: 'xml_query',
      arguments: { document: 'd_AAAAAAAAAAAAAAAAAAAAAA', xpath: 'count(//item)' },
    });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toBe(
      'This request has no session (stateless HTTP: a 2026-07-28 request, or a server run with --stateless), so no document is held: send its text as `xml`.',
    );
    return;
  }
  expect(document).toMatch(/^d_/);
  const answers = [];
  for (const xpath of ['count(//item)', 'sum(//price)', 'string(/r/item[1]/price)']) {
    answers.push(text(await client.callTool({ name: 'xml_query', arguments: { document, xpath } })));
  }
  expect(answers).toEqual(['100', '200', '2']);
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
    ['2025-11-25 session', {}, true],
    ['2026-07-28 stateless', { versionNegotiation: { mode: { pin: '2026-07-28' } } }, false],
  ] as const)('answers by document handle only in a session (%s)', async (_era, options, session) => {
    const client = new Client(
      { name: 'e2e-http-handles', version: '1' },
      options as ConstructorParameters<typeof Client>[1],
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    await queryByHandle(client, session);
    await client.close();
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
    // A handle of one session means nothing in the other.
    const ofFirst = ((answers[0] as Result).structuredContent as { document: string }).document;
    const crossed = await (clients[1] as Client).callTool({
      name: 'xml_query',
      arguments: { document: ofFirst, xpath: 'count(//a)' },
    });
    expect(text(crossed)).toBe('That document is no longer held; send its text as `xml` again.');
    await clients[0]?.close();
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
    await queryByHandle(client, true);
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
