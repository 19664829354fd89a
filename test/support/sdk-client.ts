import type { Client } from '@modelcontextprotocol/client';
import { expect } from 'vitest';

/** What an SDK client's tests share: the era pin, the answer's text, the call of every tool. */

type Result = Awaited<ReturnType<Client['callTool']>>;
/** The text a model reads of an answer. */
export const text = (result: Result) => (result.content as Array<{ text: string }>)[0]?.text;

/** A client that speaks only the 2026-07-28 revision (stateless over HTTP). */
export const MODERN = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as ConstructorParameters<
  typeof Client
>[1];

/** The answer to a handle not held, whatever the reason (docs/adr/0039, 0054). */
export const NOT_HELD = 'That document is no longer held; send its text as `xml` again.';

const xsd =
  '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="n" type="xs:integer"/></xs:schema>';

/** Lists the five tools and calls each once, as any client of the built binary would. */
export async function exerciseEveryTool(client: Client): Promise<void> {
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
