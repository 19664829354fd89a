import { describe, expect, it } from 'vitest';
import { operations } from '../../src/xml/operations.js';
import { wasmHeapBytes } from '../../src/xml/wasm-memory.js';

const MiB = 1024 * 1024;

/** A ~2 MB document (large: over LARGE_DOCUMENT_BYTES) whose items carry `tag` in their text. */
function largeDocument(tag: string): Uint8Array {
  const items: string[] = [];
  for (let i = 0; i < 40_000; i++) items.push(`<item id="${i}"><name>${tag} ${i}</name></item>`);
  return new TextEncoder().encode(`<list>${items.join('')}</list>`);
}

describe('the engine heap with large documents', () => {
  // Alone in its file: the WebAssembly heap of this test process starts fresh, and its size after
  // each call is exact (it only ever grows).
  it('holds one large parse at a time, whatever the mix of tools and documents', () => {
    const docs = ['alpha', 'bravo', 'charlie'].map(largeDocument);
    const count = (xml: Uint8Array) =>
      operations.query({ xml, xpath: 'count(//item)', namespaces: {}, cacheAs: 'c' }).values[0];
    expect(count(docs[0] as Uint8Array)).toBe('40000');
    const afterOne = wasmHeapBytes() as number;
    expect(afterOne).toBeGreaterThan(0);
    for (const xml of [...docs, ...docs]) {
      expect(count(xml)).toBe('40000');
      expect(operations.inspect({ xml, cacheAs: 'c' }).root).toBe('list');
      const formatted = operations.format({ xml, indent: 2, emptyElements: 'self-closing' }).xml;
      expect(formatted.length).toBeGreaterThan(xml.byteLength);
      expect(operations.check({ xml }).wellFormed).toBe(true);
    }
    // Three large documents cached side by side plus a format took ~70 MiB here before; kept one
    // at a time, the heap stays where the first one left it.
    expect((wasmHeapBytes() as number) - afterOne).toBeLessThanOrEqual(4 * MiB);
  });
});
