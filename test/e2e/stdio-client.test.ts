import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI } from './binary.js';
import { expectLargeDocumentsReadExactly } from './large-documents.js';

let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

async function connect(options: ConstructorParameters<typeof Client>[1] = {}): Promise<Client> {
  client = new Client({ name: 'e2e-stdio', version: '1.0.0' }, options);
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI], stderr: 'pipe' }));
  return client;
}

type Result = Awaited<ReturnType<Client['callTool']>>;

const RECORD = '<record id="x"><name>n</name></record>';

/** As many records as fit in 8 MiB. */
function recordsOf8MiB(): { xml: string; count: number } {
  const count = Math.floor((8 * 1024 * 1024 - 20) / RECORD.length);
  return { xml: `<records>${RECORD.repeat(count)}</records>`, count };
}
const text = (result: Result) => (result.content as Array<{ text: string }>)[0]?.text;

describe.each([
  ['2025 handshake', {}],
  ['2026-07-28 per-request revision', { versionNegotiation: { mode: { pin: '2026-07-28' } } }],
] as const)('the built binary over stdio (%s)', (_era, options) => {
  it('lists the five tools and answers every one of them', async () => {
    const session = await connect(options as ConstructorParameters<typeof Client>[1]);
    const { tools } = await session.listTools();
    expect(tools).toHaveLength(5);
    const xml =
      '<library><book id="1"><title>Dune</title></book><book id="2"><title>Emma</title></book></library>';
    const query = await session.callTool({ name: 'xml_query', arguments: { xml, xpath: '//title' } });
    expect(query.structuredContent).toEqual({
      type: 'node-set',
      count: 2,
      values: ['Dune', 'Emma'],
      notes: [expect.stringMatching(/^Next time pass "document": "d_[\w-]{22}" instead of the text\.$/)],
      document: expect.stringMatching(/^d_/),
    });
    expect(
      text(await session.callTool({ name: 'xml_query', arguments: { xml, xpath: 'count(//book)' } })),
    ).toBe('2');
    expect(text(await session.callTool({ name: 'xml_inspect', arguments: { xml } }))).toContain(
      'Root element: library',
    );
    expect(text(await session.callTool({ name: 'xml_check', arguments: { xml } }))).toContain('Well-formed');
    const xsd =
      '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="n" type="xs:integer"/></xs:schema>';
    expect(
      (await session.callTool({ name: 'xml_validate', arguments: { xml: '<n>x</n>', xsd } })).isError,
    ).toBe(true);
    expect(
      text(await session.callTool({ name: 'xml_format', arguments: { xml: '<r><a/></r>', indent: 1 } })),
    ).toBe('<r>\n <a/>\n</r>');
  });

  it('holds a document sent once and answers queries by its handle', async () => {
    const session = await connect(options as ConstructorParameters<typeof Client>[1]);
    const xml = `<r>${'<item><price>2</price></item>'.repeat(1000)}</r>`;
    const inspected = await session.callTool({ name: 'xml_inspect', arguments: { xml } });
    const document = (inspected.structuredContent as { document: string }).document;
    expect((inspected.content as Array<{ text: string }>).at(-1)?.text).toContain(`document: ${document}`);
    const answers = await Promise.all(
      ['count(//item)', 'sum(//price)', 'string(/r/item[1]/price)'].map(async (xpath) =>
        text(await session.callTool({ name: 'xml_query', arguments: { document, xpath } })),
      ),
    );
    expect(answers).toEqual(['1000', '2000', '2']);
  });

  it('answers an unknown tool with an isError result', async () => {
    const session = await connect(options as ConstructorParameters<typeof Client>[1]);
    const result = await session.callTool({ name: 'nope', arguments: {} });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('xml_query');
  });

  it('queries an 8 MiB document', async () => {
    const session = await connect(options as ConstructorParameters<typeof Client>[1]);
    const { xml, count } = recordsOf8MiB();
    const result = await session.callTool({
      name: 'xml_query',
      arguments: { xml, xpath: 'count(//record)' },
    });
    expect(text(result)).toBe(String(count));
  });

  it('answers markup, paths and a batch on an 8 MiB document, cutting its root early', async () => {
    const session = await connect(options as ConstructorParameters<typeof Client>[1]);
    const { xml, count } = recordsOf8MiB();
    const root = await session.callTool({
      name: 'xml_query',
      arguments: { xml, xpath: '/records', output: 'xml', max_chars: 1000 },
    });
    expect(root.structuredContent).toMatchObject({ type: 'node-set', count: 1, truncated: true });
    const [markup] = (root.structuredContent as { values: string[] }).values;
    // Within the budget as a JSON string, short of it by at most the escapes the cut removed.
    expect(JSON.stringify(markup).length + 1).toBeLessThanOrEqual(1000);
    expect(markup?.length).toBeGreaterThan(900);
    expect(markup?.startsWith(`<records>${RECORD}`)).toBe(true);
    expect(markup?.endsWith('…[cut]')).toBe(true);
    const batch = await session.callTool({
      name: 'xml_query',
      arguments: {
        xml,
        xpath: ['count(//record)', '//record[3]/name', '//record[', '(//name)[2]'],
        output: 'paths',
      },
    });
    // The session's handle for the document (`document`) comes beside the results.
    expect(batch.structuredContent).toMatchObject({
      results: [
        { xpath: 'count(//record)', type: 'number', count: 1, values: [String(count)] },
        {
          xpath: '//record[3]/name',
          type: 'node-set',
          count: 1,
          values: ['/records/record[3]/name'],
          lines: [1],
        },
        { xpath: '//record[', error: expect.stringContaining('not a valid XPath 1.0 expression') },
        { xpath: '(//name)[2]', type: 'node-set', count: 1, values: ['/records/record[2]/name'], lines: [1] },
      ],
    });
    expect(text(batch)).toContain('3. `//record[` → error:');
  });

  it('reads large documents exactly and refuses the same ones', async () => {
    await expectLargeDocumentsReadExactly(await connect(options as ConstructorParameters<typeof Client>[1]));
  });
});
