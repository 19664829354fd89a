import type { Client } from '@modelcontextprotocol/client';
import { expect } from 'vitest';

type Result = Awaited<ReturnType<Client['callTool']>>;
const text = (result: Result) => (result.content as Array<{ text: string }>)[0]?.text;

/**
 * Messages from 16 KiB up have their documents read as bytes straight from the wire (ADR 0007);
 * every transport must still read them exactly: JSON escapes, non-ASCII and astral characters,
 * the schema as well as the document, and the same refusals as for a small message.
 */
export async function expectLargeDocumentsReadExactly(client: Client): Promise<void> {
  const tricky = 'say "hi" \\\\ back\\tslash é 中 😀 \u2028 &amp; &lt;x&gt;';
  const item = `<t k="v&quot;1">${tricky}</t>`;
  const xml = `<r>${item.repeat(2_000)}</r>`;
  expect(Buffer.byteLength(xml)).toBeGreaterThan(64 * 1024);
  const expected = 'say "hi" \\\\ back\\tslash é 中 😀 \u2028 & <x>';
  const query = await client.callTool({
    name: 'xml_query',
    arguments: { xml, xpath: 'concat(count(//t), "|", string(//t[2000]), "|", string(//t[1]/@k))' },
  });
  expect(text(query)).toBe(`2000|${expected}|v"1`);
  const formatted = await client.callTool({ name: 'xml_format', arguments: { xml, indent: 0 } });
  expect(text(formatted)).toBe(xml);
  // Over stdio the formatted text is written from its UTF-8 bytes (ADR 0029): every character
  // JSON escapes and every one libxml2 writes raw or as a reference must come out as it was.
  const indented = await client.callTool({ name: 'xml_format', arguments: { xml, indent: 2 } });
  expect(text(indented)).toBe(`<r>\n${`  ${item}\n`.repeat(2_000)}</r>`);
  const escapes = await client.callTool({
    name: 'xml_format',
    arguments: {
      xml: '<r a="t&#9;q&quot;\\"><t>\t"q" \\ é 😀 \u2028 cr&#13;</t><!--\t"c"\\--><e/></r>',
      indent: 2,
    },
  });
  expect(text(escapes)).toBe(
    '<r a="t&#9;q&quot;\\">\n  <t>\t"q" \\ é 😀 \u2028 cr&#13;</t>\n  <!--\t"c"\\-->\n  <e/>\n</r>',
  );
  const xsd =
    '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="r"><xs:complexType>' +
    '<xs:sequence><xs:element name="t" maxOccurs="1999"/></xs:sequence></xs:complexType></xs:element>' +
    `</xs:schema><!-- ${'é'.repeat(10_000)} -->`;
  const validated = await client.callTool({ name: 'xml_validate', arguments: { xml, xsd } });
  expect(validated.isError).toBe(true);
  expect(text(validated)).toContain('Invalid: 1 violation');

  const lone = await client.callTool({
    name: 'xml_query',
    arguments: { xml: `<r>${'a'.repeat(100_000)}\ud800</r>`, xpath: '1' },
  });
  expect(lone.isError).toBe(true);
  expect(text(lone)).toContain('lone UTF-16 surrogate');
  // 4,194,305 two-byte characters: under 8 Mi as a JS string, one byte over as UTF-8.
  const wide = `<r>${'é'.repeat((8 * 1024 * 1024 - 7) / 2 + 1)}</r>`;
  const big = await client.callTool({ name: 'xml_query', arguments: { xml: wide, xpath: '1' } });
  expect(big.isError).toBe(true);
  expect(text(big)).toContain('the limit is 8388608 bytes');
}
