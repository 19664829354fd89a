import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateDocument, SIZES } from '../../../bench/documents.js';
import { inspect, XML_NAMESPACE } from '../../../src/engine/inspect/inspect.js';
import {
  MAX_INSPECT_NAME_CHARS,
  MAX_INSPECT_NAMES,
  MAX_INSPECT_NAMESPACES,
  MAX_OUTPUT_CHARS,
} from '../../../src/limits.js';
import { DOCBOOK_NAME_COUNT, docbookBook, manyAttributes } from '../../support/shape-documents.js';

describe('inspect', () => {
  it('counts depth from the root element as level 1, text one level deeper', () => {
    const result = inspect('<r><t>x</t></r>');
    expect(result.root).toBe('r');
    expect(result.maxDepth).toBe(3);
    expect(result.elements).toEqual([
      { name: 'r', count: 1 },
      { name: 't', count: 1 },
    ]);
  });

  it('counts every element name as written, past processing instructions', () => {
    const result = inspect(
      '<a:feed xmlns:a="urn:a" xmlns="urn:d"><entry x="1"><?pi?><a:t>x</a:t></entry><entry/><!--c--></a:feed>',
    );
    expect(result.root).toBe('a:feed');
    expect(result.elements).toEqual([
      { name: 'entry', count: 2 },
      { name: 'a:feed', count: 1 },
      { name: 'a:t', count: 1 },
    ]);
    expect(result.totalElements).toBe(4);
    expect(result.attributes).toBe(1);
    expect(result.maxDepth).toBe(4);
  });

  it('lists namespaces with their element counts and prefixes', () => {
    const result = inspect('<a:feed xmlns:a="urn:a" xmlns="urn:d"><entry/><a:t/><entry/></a:feed>');
    expect(result.namespaces).toEqual([
      { uri: 'urn:a', prefixes: ['a'], elements: 2 },
      { uri: 'urn:d', prefixes: [null], elements: 2 },
    ]);
  });

  it('reports no namespaces for a plain document', () => {
    expect(inspect('<r/>').namespaces).toEqual([]);
  });
});

// At the largest character budget, the name and namespace bounds are what cuts.
const LARGEST = { maxChars: MAX_OUTPUT_CHARS };

describe('inspect within its budget', () => {
  it('lists the most frequent names up to the budget and gives the exact totals', () => {
    const names = Array.from({ length: 5000 }, (_, i) => `<n${i}/>`).join('');
    const result = inspect(`<r>${names}<n7/><n7/></r>`, LARGEST);
    expect(result.elements).toHaveLength(MAX_INSPECT_NAMES);
    expect(result.elements[0]).toEqual({ name: 'n7', count: 3 });
    expect(result.distinctElements).toBe(5001);
    expect(result.totalElements).toBe(5003);
    expect(result.truncated).toBe(true);
  });

  it('stops at the character budget when names are long', () => {
    const names = Array.from({ length: 50 }, (_, i) => `<n${i}${'x'.repeat(1000)}/>`).join('');
    const result = inspect(`<r>${names}</r>`, LARGEST);
    expect(result.elements.reduce((sum, { name }) => sum + name.length, 0)).toBeLessThanOrEqual(
      MAX_INSPECT_NAME_CHARS,
    );
    expect(result.elements.length).toBeGreaterThan(10);
    expect(result.distinctElements).toBe(51);
  });

  it('lists at most the budgeted namespaces, with their exact number', () => {
    const uses = Array.from({ length: 300 }, (_, i) => `<e xmlns="urn:${i}"/>`).join('');
    const result = inspect(`<r>${uses}</r>`, LARGEST);
    expect(result.namespaces).toHaveLength(MAX_INSPECT_NAMESPACES);
    expect(result.distinctNamespaces).toBe(300);
    expect(result.truncated).toBe(true);
  });

  it('adds no budget fields to an answer that fits', () => {
    const result = inspect('<r><a/><b/></r>');
    expect(result).not.toHaveProperty('truncated');
    expect(result).not.toHaveProperty('distinctElements');
  });
});

describe('inspect shows the shape a query needs', () => {
  const pom = readFileSync(new URL('../../fixtures/pom.xml', import.meta.url), 'utf8');

  it('gives each element name its attributes with how many carry each, its children and its text', () => {
    const result = inspect(
      '<shop><item id="1" sale="y"><name>A</name><tag/><tag/></item><item id="2"><name>B</name>\n</item></shop>',
    );
    expect(result.elements).toEqual([
      { name: 'item', count: 2 },
      { name: 'name', count: 2 },
      { name: 'tag', count: 2 },
      { name: 'shop', count: 1 },
    ]);
    expect(result.details).toEqual({ item: '@id @sale×1; name tag', name: 'text', shop: 'item×2' });
  });

  it('outlines distinct paths with counts, naming leaves on their parent line', () => {
    const result = inspect(pom);
    expect(result.outline).toContain(
      '/project/dependencies/dependency ×12: groupId artifactId version×3 scope×5 optional×1 exclusions×1',
    );
    expect(result.outline[0]).toMatch(/^\/project: @xsi:schemaLocation; modelVersion parent groupId/);
    // Leaves without attributes have no line of their own, and every path is accounted for.
    expect(result.outline.some((line) => line.startsWith('/project/modelVersion'))).toBe(false);
    expect(result.omitted).toEqual({ paths: 0, details: 0, cutLines: 0, values: 0, fields: 29 });
    expect(result).not.toHaveProperty('truncated');
  });

  it('lists namespaces used only on attributes, with their attribute counts', () => {
    const result = inspect(pom);
    expect(result.namespaces).toEqual([
      { uri: 'http://maven.apache.org/POM/4.0.0', prefixes: [null], elements: 91 },
      { uri: 'http://www.w3.org/2001/XMLSchema-instance', prefixes: ['xsi'], elements: 0, attributes: 1 },
    ]);
    expect(result.unprefixedExample.get('http://maven.apache.org/POM/4.0.0')).toBe('artifactId');
  });

  it('lists xlink on an SVG and the xml namespace, which XPath needs no binding for', () => {
    const svg = readFileSync(new URL('../../fixtures/icon.svg.xml', import.meta.url), 'utf8');
    expect(inspect(svg).namespaces).toContainEqual({
      uri: 'http://www.w3.org/1999/xlink',
      prefixes: ['xlink'],
      elements: 0,
      attributes: 4,
    });
    expect(inspect('<r xml:lang="en"/>').namespaces).toEqual([
      { uri: XML_NAMESPACE, prefixes: ['xml'], elements: 0, attributes: 1 },
    ]);
  });

  it('counts as text only characters other than white space, in text or CDATA', () => {
    const result = inspect('<r><a> \n\t</a><b>&#160;</b><c><![CDATA[x]]></c><d><![CDATA[ ]]></d></r>');
    expect(result.details).toEqual({ r: 'a b c d', b: 'text', c: 'text' });
  });

  it('keeps one entry per name as written, whichever prefix or namespace, and names like __proto__ as data', () => {
    const result = inspect(
      '<r xmlns:p="urn:1"><p:x __proto__="1"/><p:x xmlns:p="urn:2"/><x/><__proto__ constructor="c"/></r>',
    );
    expect(result.elements).toEqual([
      { name: 'p:x', count: 2 },
      { name: '__proto__', count: 1 },
      { name: 'r', count: 1 },
      { name: 'x', count: 1 },
    ]);
    expect(Object.keys(result.details)).toContain('__proto__');
    expect(result.details['p:x']).toBe('@__proto__×1');
    expect(Object.entries(result.details)).toContainEqual(['__proto__', '@constructor']);
    expect(Object.getPrototypeOf(result.details)).toBe(Object.prototype);
  });

  it('reads each name once: names are interned, so equal names share one libxml2 pointer', () => {
    const result = inspect(`<!DOCTYPE r [<!ENTITY e "<a b='1'/>">]><r>${'<a b="1"/>'.repeat(2)}&e;</r>`);
    expect(result.elements).toEqual([
      { name: 'a', count: 3 },
      { name: 'r', count: 1 },
    ]);
    expect(result.details.a).toBe('@b');
  });

  it('merges an element name over its paths, and gives each path its own line', () => {
    const result = inspect('<r><a><t>x</t></a><b><t y="1"/><t/></b></r>');
    expect(result.details.t).toBe('@y×1; text');
    expect(result.outline).toEqual(['/r: a b', '/r/a: t', '/r/b: t×2', '/r/b/t ×2: @y×1']);
    expect(result.distinctPaths).toBe(5);
  });
});

describe('inspect within its character budget', () => {
  it('answers a DocBook book of 300+ element names with its top structure and says what it left out', () => {
    const result = inspect(docbookBook());
    expect(result.distinctElements ?? result.elements.length).toBeGreaterThanOrEqual(DOCBOOK_NAME_COUNT);
    expect(result.outline.slice(0, 6)).toEqual([
      '/book: @version @xml:id @xml:lang; info chapter×12',
      '/book/info: title author pubdate',
      '/book/info/author: personname',
      '/book/info/author/personname: firstname surname',
      '/book/chapter ×12: @xml:id; title section×72',
      '/book/chapter/section ×72: @xml:id; title para×288',
    ]);
    expect(result.truncated).toBe(true);
    expect(result.omitted.paths).toBeGreaterThan(0);
    // The names with their counts give the values a share first (ADR 0043): not all 300+ are listed.
    expect(result.elements.length).toBeGreaterThan(100);
    expect(result.values['//title']).toBe('85 distinct of 85, e.g. "Operations Manual", "Chapter 1"');
  });

  it('gives more of the same document to a larger budget, and less to a smaller one', () => {
    const book = docbookBook();
    const small = inspect(book, { maxChars: 2000 });
    const large = inspect(book, { maxChars: 100_000 });
    expect(large.outline.length).toBeGreaterThan(inspect(book).outline.length);
    expect(large.elements.length).toBeGreaterThan(small.elements.length);
    expect(large.omitted.paths).toBe(0);
    expect(large).not.toHaveProperty('distinctElements');
    expect(large.elements.length).toBeGreaterThan(DOCBOOK_NAME_COUNT);
    expect(small.outline[0]).toBe('/book: @version @xml:id @xml:lang; info chapter×12');
  });

  it('answers one element of 10^5 attributes with the first of them and how many more', () => {
    const result = inspect(manyAttributes(100_000));
    expect(result.attributes).toBe(100_000);
    const line = result.outline.find((text) => text.startsWith('/r/e'));
    expect(line).toMatch(/^\/r\/e: @a0 @a1 @a2 .* …\+\d+ more attributes$/);
    expect(line?.length).toBeLessThan(1000);
    const listed = result.details.e?.split(' ').filter((word) => word.startsWith('@')).length ?? 0;
    expect(listed).toBeGreaterThan(10);
    expect(listed).toBeLessThan(200);
    expect(result.omitted.cutLines).toBe(2);
    expect(result.truncated).toBe(true);
  });

  it('answers the 8 MiB benchmark document with its records whole', () => {
    const doc = generateDocument(SIZES[3] as (typeof SIZES)[number]);
    const result = inspect(doc.xml);
    expect(result.outline).toEqual([
      `/records: @variant; record×${doc.records}`,
      `/records/record ×${doc.records}: @id @category @inStock; name price quantity added tags description`,
      `/records/record/price ×${doc.records}: @currency; text`,
      expect.stringMatching(new RegExp(`^/records/record/tags ×${doc.records}: tag×\\d+$`)),
    ]);
    expect(result.details.record).toBe('@id @category @inStock; name price quantity added tags description');
    expect(result.details.tag).toBe('text');
    expect(result).not.toHaveProperty('truncated');
  });
});

describe('inspect keeps the namespaces a query needs', () => {
  it('lists the namespaces even at the smallest budget, and leaves out, counted, what does not fit', () => {
    const small = inspect('<a:r xmlns:a="urn:a"><a:x/></a:r>', { maxChars: 100 });
    expect(small.namespaces).toEqual([{ uri: 'urn:a', prefixes: ['a'], elements: 2 }]);
    const long = Array.from({ length: 3 }, (_, i) => `<e xmlns="urn:${i}:${'u'.repeat(5_000)}"/>`).join('');
    const result = inspect(`<r>${long}</r>`);
    expect(result.namespaces.length).toBeLessThan(3);
    expect(result.distinctNamespaces).toBe(3);
    expect(result.truncated).toBe(true);
  });
});
