import { describe, expect, it } from 'vitest';
import { feedLines } from '../support/stdio-harness.js';

const ping = '{"jsonrpc":"2.0","id":1,"method":"ping"}';

describe('whitespace around a stdio line (issue 24)', () => {
  it("takes JSON's own whitespace around a line, a CR before the newline included", async () => {
    const { replies } = await feedLines([` \t${ping}\r`]);
    expect(replies).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
  });

  it.each([
    ['a byte order mark', '\uFEFF'],
    ['a no-break space', '\u00A0'],
    ['a line separator', '\u2028'],
    ['an ideographic space', '\u3000'],
  ])('refuses %s around a line with -32700, as HTTP refuses it', async (_name, space) => {
    const { replies, delivered } = await feedLines([`${space}${ping}${space}`]);
    expect(delivered).toEqual([]);
    expect(replies).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringContaining('Parse error') } },
    ]);
  });
});
