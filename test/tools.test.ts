import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { EnginePool } from '../src/engine/runtime/pool.js';
import { createServer } from '../src/server.js';
import { inMemoryClient, type CallResult as Result, textOf as text } from './support/in-memory-server.js';

const { call, client } = inMemoryClient('tools-test');

describe('the MCP server through an in-memory client', () => {
  it('lists exactly five read-only tools with input and output schemas', async () => {
    const { tools } = await client().listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'xml_check',
      'xml_format',
      'xml_inspect',
      'xml_query',
      'xml_validate',
    ]);
    for (const tool of tools) {
      expect(tool.annotations).toMatchObject({
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      });
      // The document comes as its text or as the handle an earlier answer gave.
      expect(Object.keys(tool.inputSchema.properties ?? {})).toEqual(
        expect.arrayContaining(['xml', 'document']),
      );
      // xml_format answers with the document itself, once, as text.
      if (tool.name === 'xml_format') expect(tool.outputSchema).toBeUndefined();
      else expect(tool.outputSchema).toBeDefined();
      expect(JSON.stringify(tool)).not.toContain('$schema');
    }
  });

  it('keeps tools/list small, since every description sits in the model context', async () => {
    const { tools } = await client().listTools();
    // docs/tool-design.md: the catalogue a model pays for on every turn, in UTF-8 bytes.
    // Issue 22 set 7,200 as the bound with XPath 3.1 in the catalogue; issue 32 7,700 with
    // Schematron: its phase argument and what its findings carry (ADR 0053), 7,680 bytes; then
    // 7,800 with its counts by flag or role (7,778), which two model trials needed; 7,850 when
    // `xsd` said its handle goes in `schema` (7,805): a model put the schema's text there first.
    expect(Buffer.byteLength(JSON.stringify({ tools }))).toBeLessThan(7850);
  });

  it('tells the model to call xml_inspect first', () => {
    expect(client().getInstructions()).toContain('xml_inspect first');
  });

  it('answers the quick-start query with text and structured content', async () => {
    const result = await call('xml_query', {
      xml: '<library><book><title>Dune</title></book></library>',
      xpath: '//title',
    });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe('Dune');
    expect(result.structuredContent).toEqual({ type: 'node-set', count: 1, values: ['Dune'] });
  });

  it('answers a count as a bare number', async () => {
    const result = await call('xml_query', { xml: '<r><t/><t/></r>', xpath: 'count(//t)' });
    expect(text(result)).toBe('2');
    expect(result.structuredContent).toEqual({ type: 'number', count: 1, values: ['2'] });
  });

  it('says in words when nothing matched, and when matches are all empty', async () => {
    expect(text(await call('xml_query', { xml: '<r/>', xpath: '//x' }))).toContain('No nodes matched');
    expect(text(await call('xml_query', { xml: '<r><x/><x/></r>', xpath: '//x' }))).toContain(
      '2 nodes matched `//x`, all with empty text',
    );
  });

  it('queries namespaced documents through the namespaces argument', async () => {
    const xml = '<feed xmlns="http://www.w3.org/2005/Atom"><entry><title>A</title></entry></feed>';
    const result = await call('xml_query', {
      xml,
      xpath: '//a:title',
      namespaces: { a: 'http://www.w3.org/2005/Atom' },
    });
    expect(text(result)).toBe('A');
    const unbound = await call('xml_query', { xml, xpath: '//a:title' });
    expect(unbound.isError).toBe(true);
    expect(text(unbound)).toContain('namespaces');
  });

  it('inspects shape and suggests namespace bindings', async () => {
    const result = await call('xml_inspect', { xml: '<feed xmlns="urn:atom"><entry/><entry/></feed>' });
    expect(text(result)).toContain('Root element: feed');
    expect(text(result)).toContain('Maximum depth: 2');
    expect(text(result)).toContain('"namespaces": {"ns1":"urn:atom"}');
    expect(result.structuredContent).toMatchObject({
      root: 'feed',
      maxDepth: 2,
      elements: { entry: 2, feed: 1 },
    });
  });

  it('checks well-formedness with line and column', async () => {
    const good = await call('xml_check', { xml: '<r id="1"><a/>text<!--c--></r>' });
    expect(good.isError).toBeFalsy();
    // r, its attribute, a, the text and the comment: the document node is not counted.
    expect(text(good)).toBe('Well-formed: 5 nodes (2 elements).');
    expect(good.structuredContent).toMatchObject({ wellFormed: true, elements: 2, nodes: 5 });
    const bad = await call('xml_check', { xml: '<r>\n<a></r>' });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/line 2, column \d+/);
    expect(bad.structuredContent).toMatchObject({ wellFormed: false, error: { line: 2 } });
    // The text where it stopped and what to write instead: a model sent a file it never read.
    const ampersand = await call('xml_check', { xml: '<atolls>\n<n>Bikini & Kili</n>\n</atolls>' });
    expect(text(ampersand)).toContain('near "<n>Bikini & Kili</n>". A `&` that starts no entity reference');
  });

  it('validates against XSD and lists violations', async () => {
    const xsd =
      '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="n" type="xs:integer"/></xs:schema>';
    expect((await call('xml_validate', { xml: '<n>4</n>', xsd })).isError).toBeFalsy();
    const bad = await call('xml_validate', { xml: '<n>four</n>', xsd });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain('1 violation');
    expect(bad.structuredContent).toMatchObject({ valid: false, violations: [{ path: '/n', line: 1 }] });
  });

  it('bounds a validation answer, keeps the exact total, and says how to see the rest', async () => {
    const xsd = `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
      <xs:element name="r"><xs:complexType><xs:sequence>
        <xs:element name="n" type="xs:integer" maxOccurs="unbounded"/>
      </xs:sequence></xs:complexType></xs:element></xs:schema>`;
    const result = await call('xml_validate', { xml: `<r>${'<n>four</n>'.repeat(20_000)}</r>`, xsd });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ valid: false, total: 20_000, truncated: true });
    expect((result.structuredContent as { violations: unknown[] }).violations).toHaveLength(100);
    expect(text(result)).toMatch(/^Invalid: 20000 violations of the schema\.\n1\. line 1, \/r\/n\[1\]: /);
    expect(text(result)).toContain('Showing the first 100 of 20000 violations (19900 left out)');
    expect(text(result)).toContain('validate an extract of the document');
    expect(text(result).length).toBeLessThan(25_000);
  });

  it('formats with the default style and with options', async () => {
    expect(text(await call('xml_format', { xml: '<r>\n  <a/>\n</r>' }))).toBe('<r><a/></r>');
    expect(text(await call('xml_format', { xml: '<r><a/></r>', indent: 2, empty_elements: 'spaced' }))).toBe(
      '<r>\n  <a />\n</r>',
    );
  });

  it('answers an unknown tool with an isError result naming the five tools', async () => {
    const result = await call('xml_transform', { xml: '<r/>' });
    expect(result.isError).toBe(true);
    for (const name of ['xml_query', 'xml_inspect', 'xml_check', 'xml_validate', 'xml_format'])
      expect(text(result)).toContain(name);
  });

  it('repeats a very long unknown tool name only by its start (issue 24)', async () => {
    const result = await call(`xml_${'x'.repeat(100_000)}`, {});
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^Unknown tool `xml_x{36}…`\. The tools are: xml_/);
    expect(text(result).length).toBeLessThan(200);
  });

  it('names the field of a missing or wrongly typed argument', async () => {
    const missing = await call('xml_query', { xml: '<r/>' });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toContain('`xpath`');
    const wrong = await call('xml_format', { xml: '<r/>', indent: -1 });
    expect(wrong.isError).toBe(true);
    expect(text(wrong)).toContain('`indent`');
  });

  it('says which type a wrongly typed namespaces value should have', async () => {
    const result = await call('xml_query', { xml: '<r/>', xpath: '//p:a', namespaces: { p: 5 } });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('The `namespaces.p` argument of xml_query must be a string, not 5.');
    const missing = await call('xml_query', { xml: '<r/>' });
    expect(text(missing)).toBe('The `xpath` argument of xml_query is required but was not given.');
  });

  it('binds the prefix __proto__ like any other (a valid NCName)', async () => {
    // Parsed from JSON, as a client's message is: an object literal would set the prototype.
    const namespaces = JSON.parse('{"__proto__": "urn:x", "p": "urn:p"}');
    const result = await call('xml_query', {
      xml: '<r xmlns:a="urn:x" xmlns:b="urn:p"><a:v>1</a:v><b:v>2</b:v></r>',
      xpath: 'concat(//__proto__:v, //p:v)',
      namespaces,
    });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe('12');
    const wrong = await call('xml_query', {
      xml: '<r/>',
      xpath: '//__proto__:v',
      namespaces: JSON.parse('{"__proto__": 5}'),
    });
    expect(text(wrong)).toBe('The `namespaces.__proto__` argument of xml_query must be a string, not 5.');
  });

  it('refuses a lone surrogate before UTF-8 encoding can turn it into U+FFFD, where it is', async () => {
    const result = await call('xml_check', { xml: '<a>\n<b>\ud800</b></a>' });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      'The `xml` argument is not well-formed XML: line 2, column 4: a lone UTF-16 surrogate is not a character; send valid Unicode (a character outside the BMP must be a surrogate pair).',
    );
    const inExpression = await call('xml_query', { xml: '<r/>', xpath: "string('\udc00')" });
    expect(text(inExpression)).toContain(
      'The `xpath` argument contains a lone UTF-16 surrogate at character 9;',
    );
    expect(text(await call('xml_query', { xml: '<r>\ud83d\ude00</r>', xpath: 'string(/r)' }))).toBe('😀');
  });

  it('cuts a flooding answer to the output budget, says how much was left out, and keeps the count exact', async () => {
    const xml = `<records>${'<record><name>abcdefghij</name></record>'.repeat(50_000)}</records>`;
    const result = await call('xml_query', { xml, xpath: '//record' });
    expect(result.structuredContent).toMatchObject({ type: 'node-set', count: 50_000, truncated: true });
    expect((result.structuredContent as { values: string[] }).values).toHaveLength(1_000);
    expect(text(result)).toContain('49000 left out');
    expect(text(result).length).toBeLessThan(25_000);
    // A value costs what it takes in structuredContent's JSON: `"abcdefghij",` is 13.
    const smaller = await call('xml_query', { xml, xpath: '//record', max_chars: 100 });
    expect((smaller.structuredContent as { values: string[] }).values).toHaveLength(7);
    const outOfRange = await call('xml_query', { xml: '<r/>', xpath: '/', max_chars: 10_000_000 });
    expect(outOfRange.isError).toBe(true);
    expect(text(outOfRange)).toContain('`max_chars`');
  });

  it('bounds the JSON of structuredContent by max_chars as it bounds the text, escapes included', async () => {
    // Markup full of quotes: each `"` is two characters in JSON, one in the text.
    const xml = `<r>${'<e a="1" b="2" c="3">"q"</e>'.repeat(2_000)}</r>`;
    for (const output of ['values', 'xml', 'paths']) {
      for (const max_chars of [100, 2_000, 20_000]) {
        const result = await call('xml_query', { xml, xpath: '//e | //@*', output, max_chars });
        const { values, notes } = result.structuredContent as { values: string[]; notes: string[] };
        expect(JSON.stringify(values).length).toBeLessThanOrEqual(max_chars + 1);
        // What either channel adds to the values: the count line, the cut note, field names.
        const framing = JSON.stringify(notes).length + 100;
        expect(JSON.stringify(result.structuredContent).length).toBeLessThanOrEqual(max_chars + framing);
        expect(text(result).length).toBeLessThanOrEqual(max_chars + framing);
      }
    }
  });

  it('reports progress to a call that asks for it', async () => {
    const updates: Array<{ progress: number; total?: number }> = [];
    const result = await client().callTool(
      { name: 'xml_query', arguments: { xml: '<r/>', xpath: 'count(/r)' } },
      { onprogress: (update) => updates.push(update) },
    );
    expect((result as Result).isError).toBeFalsy();
    expect(updates.map((update) => update.progress)).toEqual([0, 1]);
  });

  it('refuses documents over 8 MiB counted in UTF-8 bytes', async () => {
    const result = await call('xml_check', { xml: `<r>${'é'.repeat(4 * 1024 * 1024)}</r>` });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('8 MiB');
  });
});

describe('a session that keeps its parsed documents', () => {
  it('answers repeated and changed documents exactly', async () => {
    const cachingEngine = new EnginePool({ size: 1 });
    const server = createServer(cachingEngine, { cacheDocuments: true });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const session = new Client({ name: 'caching', version: '1.0.0' });
    await session.connect(clientSide);
    const ask = async (xml: string, xpath: string) =>
      text((await session.callTool({ name: 'xml_query', arguments: { xml, xpath } })) as Result);
    const doc = `<r>${'<a>1</a>'.repeat(1000)}</r>`;
    expect(
      text((await session.callTool({ name: 'xml_inspect', arguments: { xml: doc } })) as Result),
    ).toContain('a: 1000');
    expect(await ask(doc, 'count(//a)')).toBe('1000');
    expect(await ask(doc, 'sum(//a)')).toBe('1000');
    expect(await ask(`${doc.slice(0, -4)}<a>5</a></r>`, 'sum(//a)')).toBe('1005');
    await session.close();
    await cachingEngine.close();
  });
});
