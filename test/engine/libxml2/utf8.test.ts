import { describe, expect, it } from 'vitest';
import { decodeUtf8, shortAsciiAt } from '../../../src/engine/libxml2/utf8.js';

describe('shortAsciiAt: the view reading a short ASCII value without TextDecoder', () => {
  const memory = (...texts: string[]) => {
    const encoded = texts.map((text) => new TextEncoder().encode(`${text}\0`));
    const bytes = new Uint8Array(encoded.reduce((size, part) => size + part.length, 0));
    let at = 0;
    const starts = encoded.map((part) => {
      bytes.set(part, at);
      at += part.length;
      return at - part.length;
    });
    return { bytes, starts };
  };

  it('reads a NUL-terminated ASCII value as TextDecoder does, and leaves any other to it', () => {
    const texts = ['12.50', '', ' 7\n', 'x'.repeat(31), 'x'.repeat(32), 'crème', '\u{1F363}', 'a\u0080'];
    const { bytes, starts } = memory(...texts);
    const read = starts.map((start) => shortAsciiAt(bytes, start));
    expect(read).toEqual(['12.50', '', ' 7\n', 'x'.repeat(31), null, null, null, null]);
    for (const [index, start] of starts.entries()) {
      const end = bytes.indexOf(0, start);
      expect(read[index] ?? decodeUtf8(bytes.subarray(start, end))).toBe(texts[index]);
    }
  });
});
