import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonLine } from '../../src/transports/json-line.js';

const MiB = 1024 * 1024;
const line = (message: unknown, inPlace?: Parameters<typeof jsonLine>[1]) =>
  Buffer.concat(jsonLine(message, inPlace)).toString('utf8');

describe('jsonLine', () => {
  it('is JSON.stringify and a newline, for small messages', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(line(value)).toBe(`${JSON.stringify(value)}\n`);
      }),
    );
  });

  it('is JSON.stringify and a newline for large strings: escapes, surrogate pairs and lone surrogates on slice edges', () => {
    const pair = '😀';
    const text = [
      'a'.repeat(MiB - 1),
      pair, // straddles the first slice edge
      '"\\\n\t\u0001é€',
      'b'.repeat(MiB - 10),
      '\ud800', // a lone high surrogate, last of the second slice
      'c'.repeat(MiB),
      '\udc00', // a lone low surrogate just past the third
    ].join('');
    const message = {
      jsonrpc: '2.0',
      id: 7,
      result: {
        content: [
          { type: 'text', text },
          { type: 'text', text: `${text}!` },
        ],
        note: 'small',
      },
    };
    const expected = `${JSON.stringify(message)}\n`;
    expect(line(message)).toBe(expected);
    expect(jsonLine(message).length).toBeGreaterThan(4);
  });

  it('counts in bytes: non-ASCII text in a large string', () => {
    const message = { text: '€'.repeat(MiB + 3) };
    const buffers = jsonLine(message);
    expect(buffers.reduce((bytes, buffer) => bytes + buffer.length, 0)).toBe(
      Buffer.byteLength(`${JSON.stringify(message)}\n`),
    );
  });
});

describe('jsonLine with bytes in place of a placeholder', () => {
  const decoded = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');
  const replaced = (value: unknown, placeholder: string, text: string): unknown =>
    JSON.parse(JSON.stringify(value), (_key, item: unknown) => (item === placeholder ? text : item));

  it('is JSON.stringify of the message with the decoded bytes where the placeholder stands', () => {
    const placeholder = 'oxml-bytes-test';
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.string({ unit: 'grapheme' }),
        fc.uint8Array({ maxLength: 200 }),
        (other, note, bytes) => {
          const message = {
            jsonrpc: '2.0',
            id: 1,
            result: { content: [{ type: 'text', text: placeholder }], other, note },
          };
          const expected = replaced(message, placeholder, decoded(bytes));
          expect(line(message, { placeholder, bytes })).toBe(`${JSON.stringify(expected)}\n`);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('leaves a message without the placeholder as it is, and splices bytes beside large strings', () => {
    const inPlace = { placeholder: 'oxml-bytes-absent', bytes: new Uint8Array([0x61]) };
    const message = { jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'oops' } };
    expect(line(message, inPlace)).toBe(`${JSON.stringify(message)}\n`);

    const big = `"é\n${'x'.repeat(MiB)}`;
    const bytes = new Uint8Array(Buffer.from(`<a b="c">\t${'中'.repeat(MiB / 2)}</a>`));
    const both = { result: { content: [{ type: 'text', text: 'oxml-bytes-here' }], big } };
    expect(line(both, { placeholder: 'oxml-bytes-here', bytes })).toBe(
      `${JSON.stringify(replaced(both, 'oxml-bytes-here', decoded(bytes)))}\n`,
    );
  });
});
