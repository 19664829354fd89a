import { describe, expect, it } from 'vitest';
import { wasmHeapBytes } from '../../../src/engine/libxml2/memory.js';
import { operations } from '../../../src/engine/runtime/operations.js';

const MiB = 1024 * 1024;
const encode = (text: string) => new TextEncoder().encode(text);

/** A ~2 MB document (large: over LARGE_DOCUMENT_BYTES) whose items carry `tag` in their text. */
function largeDocument(tag: string): Uint8Array {
  const items: string[] = [];
  for (let i = 0; i < 40_000; i++) items.push(`<item id="${i}"><name>${tag} ${i}</name></item>`);
  return encode(`<list>${items.join('')}</list>`);
}

const ANY_LIST = encode(
  '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="list"/></xs:schema>',
);

/** Each parses a large document outside the cache, so each must free the cached one first. */
const uncached: Record<string, (xml: Uint8Array) => unknown> = {
  format: (xml) => operations.format({ xml, indent: 2, emptyElements: 'self-closing' }).xml.length,
  check: (xml) => operations.check({ xml }).wellFormed,
  validate: (xml) => operations.validate({ xml, xsd: ANY_LIST }).valid,
  query: (xml) => operations.query({ xml, xpath: 'count(//item)', namespaces: {} }).values[0],
};

describe('the engine heap with large documents', () => {
  // Alone in its file: the WebAssembly heap of this test process starts fresh, and its size after
  // each call is exact (it only ever grows).
  it('holds one large parse at a time, whatever the mix of tools and documents', () => {
    const docs = ['alpha', 'bravo', 'charlie'].map(largeDocument);
    const doc = (i: number) => docs[i % docs.length] as Uint8Array;
    const cachedCount = (xml: Uint8Array) =>
      operations.query({ xml, xpath: 'count(//item)', namespaces: {}, cacheAs: 'c' }).values[0];
    expect(cachedCount(doc(0))).toBe('40000');
    const afterOne = wasmHeapBytes() as number;
    expect(afterOne).toBeGreaterThan(0);
    // Twice over, for each uncached tool: a large document is cached while another is (a cache
    // miss), then the tool parses a third: each of those parses must free the tree before it.
    let i = 1;
    for (const round of [1, 2]) {
      for (const [name, run] of Object.entries(uncached)) {
        expect(cachedCount(doc(i++)), `round ${round}, before ${name}`).toBe('40000');
        expect(operations.inspect({ xml: doc(i - 1), cacheAs: 'c' }).root).toBe('list');
        expect(run(doc(i++)), `round ${round}, ${name}`).toBeTruthy();
        expect(cachedCount(doc(i - 3)), `round ${round}, after ${name}`).toBe('40000');
      }
    }
    // Three large documents cached side by side plus a format took ~70 MiB here before; kept one
    // at a time, the heap stays where the first one left it.
    expect((wasmHeapBytes() as number) - afterOne).toBeLessThanOrEqual(4 * MiB);
  });
});
