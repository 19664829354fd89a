import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonLine } from '../../src/transports/json-line.js';

const MiB = 1024 * 1024;
const line = (message: unknown) => Buffer.concat(jsonLine(message)).toString('utf8');

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
