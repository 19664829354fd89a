import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDocument, SIZES } from '../../bench/documents.js';
import { DEFAULT_INSPECT_CHARS } from '../../src/limits.js';
import { docbookBook, manyAttributes } from '../support/shape-documents.js';
import { CLI } from './binary.js';

/* xml_inspect's outline and budget on the built binary over stdio, as a client meets them. */

let client: Client;
beforeAll(async () => {
  client = new Client({ name: 'e2e-inspect', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI], stderr: 'pipe' }));
});
afterAll(async () => {
  await client?.close();
});

type Result = Awaited<ReturnType<Client['callTool']>>;
const text = (result: Result) => (result.content as Array<{ text: string }>)[0]?.text ?? '';
const inspect = async (xml: string) =>
  (await client.callTool({ name: 'xml_inspect', arguments: { xml } })) as Result;

describe('xml_inspect on the built binary', () => {
  it('outlines a DocBook chapter with its namespaces, xlink and xml: included', async () => {
    const chapter = readFileSync(new URL('../fixtures/docbook-chapter.xml', import.meta.url), 'utf8');
    const shown = text(await inspect(chapter));
    expect(shown).toContain('/chapter/section ×3: @xml:id; title para itemizedlist×1');
    expect(shown).toContain('http://www.w3.org/1999/xlink — 1 attribute, written as xlink:');
    expect(shown).toContain('written as xml: (built in');
    expect(shown).toContain('//ns1:para, not //para');
  });

  it('says what the fields of a DocBook chapter hold, under their outline lines', async () => {
    const chapter = readFileSync(new URL('../fixtures/docbook-chapter.xml', import.meta.url), 'utf8');
    const answer = await inspect(chapter);
    expect(text(answer)).toContain(
      'tip×1\n  @xml:id: 3 distinct: sec-requirements sec-packages sec-first-start\n  title: 3 distinct: Requirements "Installing the package" "First start"\n',
    );
    const values = (answer.structuredContent as { values: Record<string, string> }).values;
    expect(values['/chapter/@xml:lang']).toBe('en');
  });

  it.each([
    ['a DocBook book of 300+ element names', docbookBook],
    ['one element with 10^5 attributes', () => manyAttributes(100_000)],
    ['the 8 MiB benchmark document', () => generateDocument(SIZES[3] as (typeof SIZES)[number]).xml],
  ])('answers %s within the character budget', async (_what, make) => {
    const result = await inspect(make());
    expect(result.isError).toBeFalsy();
    expect(text(result)).toMatch(/^Root element: /);
    expect(text(result).length).toBeLessThanOrEqual(DEFAULT_INSPECT_CHARS);
  });
});
