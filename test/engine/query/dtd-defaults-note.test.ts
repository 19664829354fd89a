import { describe, expect, it } from 'vitest';
import { parseDocument } from '../../../src/engine/parse.js';
import { declaredDefaults, dtdDefaultsNote } from '../../../src/engine/query/dtd-defaults-note.js';
import { query } from '../../../src/engine/query/query.js';

const MIME = `<?xml version="1.0"?>
<!DOCTYPE mime-info [
  <!ELEMENT mime-info (mime-type)+>
  <!ATTLIST mime-info xmlns CDATA #FIXED "urn:mime">
  <!ELEMENT mime-type (magic|treemagic)*>
  <!ATTLIST mime-type type CDATA #REQUIRED>
  <!ELEMENT magic EMPTY>
  <!ATTLIST magic priority CDATA "50" offset CDATA #IMPLIED>
  <!ELEMENT treemagic EMPTY>
  <!ATTLIST treemagic priority CDATA '50'>
]>
<mime-info xmlns="urn:mime"><mime-type type="a"><magic priority="80"/><magic/><magic/><treemagic/></mime-type></mime-info>`;
const bytes = new TextEncoder().encode(MIME);
const M = { m: 'urn:mime' };

function noteFor(xpath: string): string | undefined {
  const doc = parseDocument(bytes, 'query');
  try {
    return dtdDefaultsNote(bytes, doc, xpath);
  } finally {
    doc.dispose();
  }
}

describe('attribute values a DTD supplies by default', () => {
  it('reads the defaults the internal subset declares, #FIXED ones included', () => {
    expect(declaredDefaults(bytes)).toEqual([
      { element: 'mime-info', attribute: 'xmlns', value: 'urn:mime' },
      { element: 'magic', attribute: 'priority', value: '50' },
      { element: 'treemagic', attribute: 'priority', value: '50' },
    ]);
    expect(declaredDefaults(new TextEncoder().encode('<r a="1"/>'))).toEqual([]);
  });

  it('are counted as XPath says, and the note says how many the document does not write', () => {
    expect(query(bytes, 'sum(//m:magic/@priority)', M).values).toEqual(['180']);
    expect(noteFor('sum(//m:magic/@priority)')).toBe(
      '2 of the 3 `@priority` on `magic` are not written in the document: its DTD supplies priority="50" by default, and XPath reads a default as an attribute (tools that skip DTD defaults do not).',
    );
  });

  it('names every element the attribute is defaulted on when the expression names none', () => {
    expect(noteFor('sum(//@priority)')).toMatch(
      /^2 of the 3 `@priority` on `magic`.* 1 of the 1 `@priority` on `treemagic`/,
    );
    expect(noteFor('count(//m:magic/@*)')).toMatch(/on `magic`/);
  });

  it('says nothing when the expression reads no defaulted attribute, or every one is written', () => {
    expect(noteFor('count(//m:magic)')).toBeUndefined();
    expect(noteFor('//m:mime-type/@type')).toBeUndefined();
    expect(noteFor('//m:magic/@offset')).toBeUndefined();
    const written = new TextEncoder().encode(
      '<!DOCTYPE r [<!ATTLIST e a CDATA "1">]><r><e a="2"/><e a="3"/></r>',
    );
    const doc = parseDocument(written, 'query');
    try {
      expect(dtdDefaultsNote(written, doc, 'sum(//e/@a)')).toBeUndefined();
    } finally {
      doc.dispose();
    }
  });
});
