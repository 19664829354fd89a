import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonStringBytes as slices } from '../../src/transports/json-string-bytes.js';

const jsonStringBytes = (bytes: Uint8Array) => Buffer.concat(slices(bytes));

/** What the bytes stand for, as the tool decoded them before (docs/adr/0029): the oracle. */
const viaString = (bytes: Uint8Array) =>
  Buffer.from(JSON.stringify(Buffer.from(bytes).toString('utf8')), 'utf8');
const same = (bytes: Uint8Array): void => {
  expect(jsonStringBytes(bytes).toString('latin1')).toBe(viaString(bytes).toString('latin1'));
};
const utf8 = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));

describe('jsonStringBytes', () => {
  it('is JSON.stringify of the decoded text, for any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => same(utf8(text))),
      { numRuns: 500 },
    );
    // Every code point (lone surrogates aside: UTF-8 cannot hold them), controls weighted in.
    const char = fc.oneof(
      fc.integer({ min: 0, max: 0x7f }),
      fc.integer({ min: 0, max: 0x10ffff }).filter((code) => code < 0xd800 || code > 0xdfff),
    );
    fc.assert(
      fc.property(fc.array(char, { maxLength: 200 }), (codes) => same(utf8(String.fromCodePoint(...codes)))),
      { numRuns: 500 },
    );
  });

  it('is JSON.stringify of the decoded text for any bytes, invalid UTF-8 included', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), same), { numRuns: 1000 });
  });

  it('escapes every byte below 0x20, the quote and the backslash as JSON.stringify does, and nothing else', () => {
    for (let byte = 0; byte < 0x80; byte++) same(new Uint8Array([0x61, byte, 0x62]));
    expect(jsonStringBytes(utf8('\t\r\n"\\\u0001\u001f\u007f')).toString('utf8')).toBe(
      '"\\t\\r\\n\\"\\\\\\u0001\\u001f\u007f"',
    );
    // Multi-byte sequences pass through whole: two, three and four bytes, U+2028 and U+FEFF too.
    const wide = 'é 中 😀 \u2028 \u2029 \ufeff ￿';
    expect(jsonStringBytes(utf8(wide))).toEqual(Buffer.from(`"${wide}"`, 'utf8'));
  });

  it('replaces bytes that are not UTF-8 as decoding them would', () => {
    for (const bad of [[0x80], [0xc3], [0xe4, 0xb8], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xff]]) {
      const bytes = new Uint8Array([0x22, ...bad, 0x0a]);
      same(bytes);
      expect(jsonStringBytes(bytes).toString('utf8')).toContain('\ufffd');
    }
  });

  it('reads only its view of a larger buffer', () => {
    const whole = utf8('xx"é\ty');
    same(whole.subarray(2, 6));
    expect(jsonStringBytes(whole.subarray(2, 6)).toString('utf8')).toBe('"\\"é\\t"');
  });

  it('is exact for a text of several MiB, the size of an indented 8 MiB document', () => {
    const line = '  <name lang="fr">Zoë "Ødegård" \\ 🍣 &amp;</name>\n\t';
    const bytes = utf8(line.repeat(Math.ceil((3 * 1024 * 1024) / line.length)));
    same(bytes);
    // In slices of its own: the text is never escaped whole into one string.
    expect(slices(bytes).length).toBeGreaterThan(40);
  });

  it('escapes slice by slice exactly wherever a slice ends: in a sequence, on an escape, at the end', () => {
    const SLICE = 64 * 1024;
    for (const filler of ['é', '中', '😀', '"', '\n', 'a']) {
      for (let shift = 0; shift < 4; shift++) {
        const text = `${'x'.repeat(shift)}${filler.repeat(Math.ceil((2 * SLICE) / filler.length) + 3)}`;
        same(utf8(text));
      }
    }
    same(new Uint8Array(SLICE).fill(0x22));
    same(new Uint8Array(2 * SLICE).fill(0x61));
    same(new Uint8Array(0));
  });
});
