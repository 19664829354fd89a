/**
 * xml_validate through the MCP server: RELAX NG and DTD schemas in the `xsd` argument (and held
 * as `schema`), answered like XSD ones and naming their language (docs/behaviour.md §2).
 */
import { describe, expect, it } from 'vitest';
import { BOOK_DTD, BOOK_RELAX_NG, INVALID_BOOK, VALID_BOOK } from './support/book-schemas.js';
import { inMemoryClient, textOf as text } from './support/in-memory-server.js';

const { call } = inMemoryClient('tools-validate-languages', { cacheDocuments: true });

describe('xml_validate with RELAX NG and DTD schemas', () => {
  it('says a document conforms to the RELAX NG schema, and gives the schema a handle', async () => {
    const result = await call('xml_validate', { xml: VALID_BOOK, xsd: BOOK_RELAX_NG });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe('Valid: the document conforms to the RELAX NG schema.');
    expect(result.structuredContent).toMatchObject({ valid: true, total: 0, language: 'relaxng' });
    expect((result.structuredContent as { schema?: string }).schema).toMatch(/^d_/);
  });

  it('lists RELAX NG violations with path and line', async () => {
    const result = await call('xml_validate', { xml: INVALID_BOOK, xsd: BOOK_RELAX_NG });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      [
        'Invalid: 2 violations of the RELAX NG schema.',
        '1. line 3, /book/chapter[1]/para: Did not expect element para there',
        '2. line 4, /book/chapter[2]/figure: Did not expect element figure there',
      ].join('\n'),
    );
  });

  it('validates against a DTD held by its handle', async () => {
    const first = await call('xml_validate', { xml: VALID_BOOK, xsd: BOOK_DTD });
    expect(text(first)).toBe('Valid: the document conforms to the DTD.');
    const schema = (first.structuredContent as { schema: string }).schema;
    const second = await call('xml_validate', { xml: INVALID_BOOK, schema });
    expect(second.isError).toBe(true);
    expect(text(second)).toMatch(
      /^Invalid: 3 violations of the DTD\.\n1\. line 3, \/book\/chapter\[1\]: Element chapter content does not follow the DTD/,
    );
    expect(second.structuredContent).toMatchObject({ valid: false, total: 3, language: 'dtd' });
  });

  it('refuses a grammar that includes another with a sentence, and serves on', async () => {
    const refused = await call('xml_validate', {
      xml: '<r/>',
      xsd: '<grammar xmlns="http://relaxng.org/ns/structure/1.0"><include href="/etc/passwd"/></grammar>',
    });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/through RELAX NG include\/externalRef; nothing is ever fetched\. Paste/);
    const after = await call('xml_validate', { xml: VALID_BOOK, xsd: BOOK_DTD });
    expect(after.isError).toBeFalsy();
  });

  it('refuses a DTD that pulls in another file, and one that amplifies entities', async () => {
    const external = await call('xml_validate', {
      xml: '<r/>',
      xsd: '<!ENTITY % m SYSTEM "http://example.com/m.dtd">\n%m;',
    });
    expect(external.isError).toBe(true);
    expect(text(external)).toContain('as another file (`http://example.com/m.dtd`); nothing is ever fetched');
    const lol = ['<!ENTITY % l0 "lollollollollollollollollollol">'];
    for (let i = 1; i < 12; i++) lol.push(`<!ENTITY % l${i} "${`%l${i - 1};`.repeat(10)}">`);
    const amplified = await call('xml_validate', { xml: '<r/>', xsd: lol.join('\n') });
    expect(amplified.isError).toBe(true);
    expect(text(amplified)).toMatch(/not a usable DTD: .*amplification/);
  });
});

describe('xml_validate on a document in a default namespace', () => {
  const KIT = 'http://www.hydrogen-music.org/drumkit';
  const xsd = `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="${KIT}" xmlns="${KIT}" elementFormDefault="qualified">
  <xs:element name="drumkit_info"><xs:complexType><xs:sequence>
    <xs:element name="instrument" maxOccurs="unbounded"><xs:complexType><xs:sequence>
      <xs:element name="volume" type="xs:decimal"/>
    </xs:sequence></xs:complexType></xs:element>
  </xs:sequence></xs:complexType></xs:element>
</xs:schema>`;
  const kit = `<drumkit_info xmlns="${KIT}"><instrument><volume>1</volume></instrument><instrument><volume>loud</volume></instrument></drumkit_info>`;

  it('names each element with a prefix a query can use, and says which, in both channels', async () => {
    const result = await call('xml_validate', { xml: kit, xsd });
    expect(result.isError).toBe(true);
    const structured = result.structuredContent as {
      violations: Array<{ path: string }>;
      namespaces: Record<string, string>;
      notes: string[];
    };
    expect(structured.violations[0]?.path).toBe('/ns1:drumkit_info/ns1:instrument[2]/ns1:volume');
    expect(structured.namespaces).toEqual({ ns1: KIT });
    const note = `Paths write namespaced elements with the prefixes "namespaces": {"ns1":"${KIT}"}; pass the same to xml_query to select them.`;
    expect(structured.notes).toContain(note);
    expect(text(result)).toContain(`line 1, /ns1:drumkit_info/ns1:instrument[2]/ns1:volume: `);
    expect(text(result)).toContain(note);
    // The path and the prefixes select the element the violation is about.
    const selected = await call('xml_query', {
      xml: kit,
      xpath: structured.violations[0]?.path,
      namespaces: structured.namespaces,
    });
    expect(text(selected)).toBe('loud');
  });
});

describe('xml_validate with a DTD pasted as a document type declaration', () => {
  it('reads the declarations inside `<!DOCTYPE r [ … ]>`', async () => {
    const result = await call('xml_validate', {
      xml: '<r><a/></r>',
      xsd: '<?xml version="1.0"?>\n<!DOCTYPE r [\n  <!ELEMENT r (b)>\n  <!ELEMENT b (#PCDATA)>\n]>\n',
    });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ valid: false, language: 'dtd' });
    expect(text(result)).toContain('expecting (b), got (a)');
    const valid = await call('xml_validate', {
      xml: '<r><b/></r>',
      xsd: '<!DOCTYPE r [<!ELEMENT r (b)><!ELEMENT b EMPTY>]>',
    });
    expect(text(valid)).toBe('Valid: the document conforms to the DTD.');
  });

  it('refuses one that only names an external DTD, and reads a whole document as no schema', async () => {
    const external = await call('xml_validate', { xml: '<r/>', xsd: '<!DOCTYPE r SYSTEM "r.dtd">' });
    expect(text(external)).toContain('only names an external DTD, which is never fetched');
    const document = await call('xml_validate', {
      xml: '<r/>',
      xsd: '<!DOCTYPE r [<!ELEMENT r EMPTY>]><r/>',
    });
    expect(document.isError).toBe(true);
    expect(text(document)).toContain('root element is `r`, which is no schema language');
  });
});
