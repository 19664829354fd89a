import { describe, expect, it } from 'vitest';
import { inMemoryClient, type CallResult as Result } from './support/in-memory-server.js';

/*
 * Every sentence a tool adds to its facts reaches a model in either channel (docs/adr/0049): the
 * same note in the text, where a text-only client shows it, and in structuredContent's `notes`,
 * where Claude Code, VS Code and Codex show only the JSON. One case per kind of note the server
 * gives, through the SDK's in-memory client.
 */

const { call } = inMemoryClient('channels-test', { cacheDocuments: true });

/** The text blocks, the handle's line included. */
const fullText = (result: Result) =>
  (result.content as Array<{ type: string; text?: string }>).map((block) => block.text ?? '').join('\n');

/** Where the text states a note: on lines of its own (indented under a batch entry's heading). */
function textStates(text: string, note: string): boolean {
  const lines = text.split('\n').map((line) => line.trim());
  const noteLines = note.split('\n').map((line) => line.trim());
  return lines.some((_, i) => noteLines.every((line, j) => lines[i + j] === line));
}

/** The notes of a result and of each batch entry. */
function notesOf(result: Result): string[] {
  const structured = result.structuredContent as { notes?: string[]; results?: Array<{ notes?: string[] }> };
  return [...(structured.notes ?? []), ...(structured.results ?? []).flatMap((entry) => entry.notes ?? [])];
}

/** A note matching `pattern` is in structuredContent, and the text states each note as it is. */
function expectInBothChannels(result: Result, pattern: RegExp): void {
  const notes = notesOf(result);
  expect(notes).toContainEqual(expect.stringMatching(pattern));
  for (const note of notes) {
    // The handle's note names the handle as a field; the text's line says it as `document: d_…`.
    if (note.startsWith('Next time pass')) continue;
    expect(textStates(fullText(result), note), note).toBe(true);
  }
}

const ATOM = 'http://www.w3.org/2005/Atom';
const atom = `<feed xmlns="${ATOM}"><entry><title>A</title></entry></feed>`;
const plain = '<r><v> padded </v><v>Value</v><v>x</v></r>';
const xsd = `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="r"><xs:complexType><xs:sequence><xs:element name="a" type="xs:integer" maxOccurs="unbounded"/></xs:sequence></xs:complexType></xs:element></xs:schema>`;
const many = `<r>${'<v a="1">1234567890</v>'.repeat(300)}</r>`;

const cases: Array<[string, string, Record<string, unknown>, RegExp]> = [
  ['names in a default namespace', 'xml_query', { xml: atom, xpath: '//entry' }, /write `\/\/a:entry`/],
  [
    'names in another namespace than the one bound',
    'xml_query',
    { xml: atom, xpath: '//a:entry', namespaces: { a: 'http://www.w3.org/2005/atom' } },
    /is bound to http:\/\/www\.w3\.org\/2005\/atom, but the document's namespace is/,
  ],
  [
    'names in no namespace asked with a prefix',
    'xml_query',
    { xml: plain, xpath: '//p:v', namespaces: { p: 'urn:x' } },
    /are in no namespace: write them without a prefix/,
  ],
  [
    'a value the field holds in another case',
    'xml_query',
    { xml: plain, xpath: '//v[.="value"]' },
    /but the document has Value×1/,
  ],
  ['what a compared field holds', 'xml_query', { xml: plain, xpath: '//v[.="y"]' }, /What `v` holds/],
  [
    'a value padded with white space',
    'xml_query',
    { xml: '<r><v> padded </v><v>Value</v></r>', xpath: "//r[v='padded']" },
    /So write `\/\/r\[normalize-space\(v\)='padded'\]`/,
  ],
  [
    'white edges of a value',
    'xml_query',
    { xml: plain, xpath: '//v' },
    /Whitespace at the start or end of \[1\]/,
  ],
  ['XPath 3.1', 'xml_query', { xml: plain, xpath: 'count(distinct-values(//v))' }, /evaluated as XPath 3\.1/],
  ['values left out', 'xml_query', { xml: many, xpath: '//v', max_chars: 200 }, /left out\): output budget/],
  [
    'markup cut',
    'xml_query',
    { xml: many, xpath: '/r', output: 'xml', max_chars: 200 },
    /The value was cut|shown cut/,
  ],
  [
    'paths left out',
    'xml_query',
    { xml: many, xpath: '//v', output: 'paths', max_chars: 200 },
    /paths \(\d+ left out\)/,
  ],
  [
    'a batch entry cut and one explained',
    'xml_query',
    { xml: atom, xpath: ['//entry', 'count(//*)'], max_chars: 1_000 },
    /write `\/\/a:entry`/,
  ],
  [
    'attributes a DTD supplies by default',
    'xml_query',
    { xml: '<!DOCTYPE r [<!ATTLIST e p CDATA "50">]><r><e p="1"/><e/></r>', xpath: 'sum(//e/@p)' },
    /^1 of the 2 `@p` on `e` are not written in the document: its DTD supplies p="50" by default/,
  ],
  [
    'the handle of a text sent',
    'xml_query',
    { xml: plain, xpath: 'count(//v)' },
    /^Next time pass "document": "d_/,
  ],
  [
    'violations left out',
    'xml_validate',
    { xml: `<r>${'<a>x</a>'.repeat(200)}</r>`, xsd },
    /Showing the first \d+ of \d+ violations/,
  ],
  ['the bindings to pass', 'xml_inspect', { xml: atom }, /^Pass to xml_query as "namespaces": \{"ns1":/],
  ['the default-namespace advice', 'xml_inspect', { xml: atom }, /need a prefix in XPath too: \/\/ns1:entry/],
  ['no namespace to bind', 'xml_inspect', { xml: plain }, /^Namespaces: none to bind/],
  [
    'what the outline left out',
    'xml_inspect',
    {
      xml: `<r>${Array.from({ length: 400 }, (_, i) => `<e${i}><f${i}/></e${i}>`).join('')}</r>`,
      max_chars: 2_000,
    },
    /left out/,
  ],
];

describe('every note in both channels', () => {
  for (const [what, tool, args, pattern] of cases) {
    it(`says ${what} in the text and in structuredContent`, async () => {
      expectInBothChannels(await call(tool, args), pattern);
    });
  }
});
