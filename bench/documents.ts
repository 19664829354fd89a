/**
 * Deterministic record documents for the benchmarks: the same seed always gives the same bytes,
 * so runs on different days and machines measure the same input. No Math.random.
 */

import { seededRandom } from '../test/support/seeded-random.js';

export interface BenchDocument {
  /** Short label used in the report: "1 KB", "200 KB", "2 MB", "8 MiB". */
  label: string;
  xml: string;
  /** Size of `xml` in UTF-8 bytes. */
  bytes: number;
  records: number;
}

export interface DocumentSize {
  label: string;
  /** The document is filled with whole records up to, never past, this many UTF-8 bytes. */
  maxBytes: number;
}

export const SIZES: DocumentSize[] = [
  { label: '1 KB', maxBytes: 1_024 },
  { label: '200 KB', maxBytes: 200 * 1_024 },
  { label: '2 MB', maxBytes: 2_000_000 },
  // The server's document limit is 8 MiB (8,388,608 bytes); this one sits just under it.
  { label: '8 MiB', maxBytes: 8 * 1_024 * 1_024 },
];

// Names and words with non-ASCII (Latin-1, Greek, CJK, an emoji outside the BMP) and the five
// characters XML must escape, so encoding and escaping costs show up as they would in real data.
const FIRST = ['Anna', 'Björn', 'Zoë', 'José', 'Łukasz', 'Αλέξης', 'Ингрид', '美咲', 'Noah', 'Chloé'];
const LAST = [
  'Müller',
  'Ødegård',
  'García',
  'Nováková',
  'O’Brien',
  'Smith',
  '山田',
  'Dubois',
  'Øst',
  'Kowalski',
];
const WORDS = [
  'widget',
  'gadget',
  'crème',
  'brûlée',
  'naïve',
  'façade',
  'smörgåsbord',
  'Straße',
  'résumé',
  'tofu 🍣',
  'A&B',
  '"quoted"',
  '<tag>',
  'plain',
  'text',
];
const CATEGORIES = ['books', 'music', 'garden', 'tools', 'toys', 'food'];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function record(random: () => number, n: number): string {
  const name = `${pick(random, FIRST)} ${pick(random, LAST)}`;
  const price = (random() * 1000).toFixed(2);
  const quantity = Math.floor(random() * 500);
  const day = 1 + Math.floor(random() * 28);
  const month = 1 + Math.floor(random() * 12);
  const date = `20${10 + Math.floor(random() * 15)}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
  const tags = Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(random, WORDS));
  const description = Array.from({ length: 6 + Math.floor(random() * 8) }, () => pick(random, WORDS)).join(
    ' ',
  );
  return (
    `  <record id="r${n}" category="${pick(random, CATEGORIES)}" inStock="${random() < 0.7}">\n` +
    `    <name>${escapeText(name)}</name>\n` +
    `    <price currency="EUR">${price}</price>\n` +
    `    <quantity>${quantity}</quantity>\n` +
    `    <added>${date}</added>\n` +
    `    <tags>${tags.map((tag) => `<tag>${escapeText(tag)}</tag>`).join('')}</tags>\n` +
    `    <description>${escapeText(description)}</description>\n` +
    '  </record>\n'
  );
}

const VARIANT = 'variant="';
const VARIANT_DIGITS = 6;

/**
 * Whole records, then a comment that pads the document to one byte under `size.maxBytes`
 * UTF-8 bytes (the 8 MiB one is the largest document the server accepts, less one byte).
 */
export function generateDocument(size: DocumentSize, seed = 20_240_505): BenchDocument {
  const random = seededRandom(seed);
  const head = `<?xml version="1.0" encoding="UTF-8"?>\n<records ${VARIANT}${'0'.repeat(VARIANT_DIGITS)}">\n`;
  const tail = '</records>\n';
  const parts = [head];
  let bytes = Buffer.byteLength(head) + Buffer.byteLength(tail);
  let records = 0;
  for (;;) {
    const next = record(random, records + 1);
    const nextBytes = Buffer.byteLength(next);
    if (bytes + nextBytes > size.maxBytes) break;
    parts.push(next);
    bytes += nextBytes;
    records++;
  }
  const room = size.maxBytes - 1 - bytes;
  if (room >= '<!---->\n'.length) {
    parts.push(`<!--${'.'.repeat(room - '<!---->\n'.length)}-->\n`);
    bytes += room;
  }
  parts.push(tail);
  return { label: size.label, xml: parts.join(''), bytes, records };
}

/**
 * The same document with the root's `variant` attribute set to `n` (mod 10^6): new byte for
 * byte, so a parse cache keyed by the text misses, with the same size and the same records.
 */
export function withVariant(doc: BenchDocument, n: number): BenchDocument {
  const at = doc.xml.indexOf(VARIANT) + VARIANT.length;
  const digits = String(n % 10 ** VARIANT_DIGITS).padStart(VARIANT_DIGITS, '0');
  return { ...doc, xml: doc.xml.slice(0, at) + digits + doc.xml.slice(at + VARIANT_DIGITS) };
}

/** An XSD every generated document is valid against (IDs unique, typed values, enumerations). */
export const RECORDS_XSD = `<?xml version="1.0" encoding="UTF-8"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" elementFormDefault="qualified">
  <xs:element name="records">
    <xs:complexType>
      <xs:sequence>
        <xs:element name="record" type="Record" minOccurs="0" maxOccurs="unbounded"/>
      </xs:sequence>
      <xs:attribute name="variant" type="xs:string"/>
    </xs:complexType>
  </xs:element>
  <xs:complexType name="Record">
    <xs:sequence>
      <xs:element name="name" type="xs:string"/>
      <xs:element name="price">
        <xs:complexType>
          <xs:simpleContent>
            <xs:extension base="xs:decimal">
              <xs:attribute name="currency" type="xs:string" use="required"/>
            </xs:extension>
          </xs:simpleContent>
        </xs:complexType>
      </xs:element>
      <xs:element name="quantity" type="xs:nonNegativeInteger"/>
      <xs:element name="added" type="xs:date"/>
      <xs:element name="tags">
        <xs:complexType>
          <xs:sequence>
            <xs:element name="tag" type="xs:string" maxOccurs="unbounded"/>
          </xs:sequence>
        </xs:complexType>
      </xs:element>
      <xs:element name="description" type="xs:string"/>
    </xs:sequence>
    <xs:attribute name="id" type="xs:ID" use="required"/>
    <xs:attribute name="category" use="required">
      <xs:simpleType>
        <xs:restriction base="xs:string">
          <xs:enumeration value="books"/>
          <xs:enumeration value="music"/>
          <xs:enumeration value="garden"/>
          <xs:enumeration value="tools"/>
          <xs:enumeration value="toys"/>
          <xs:enumeration value="food"/>
        </xs:restriction>
      </xs:simpleType>
    </xs:attribute>
    <xs:attribute name="inStock" type="xs:boolean" use="required"/>
  </xs:complexType>
</xs:schema>
`;
