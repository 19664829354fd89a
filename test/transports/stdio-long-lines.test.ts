import { describe, expect, it } from 'vitest';
import { feedLines } from '../support/stdio-harness.js';

const MAX_LINE_BYTES = 4096;

/** Feeds lines in 100-byte pieces, as a pipe delivers a long line: the id must be found across chunk boundaries. */
const feed = (lines: string[]) => feedLines(lines, { maxLineBytes: MAX_LINE_BYTES, chunkBytes: 100 });

const longCall = (idJson: string) =>
  `{"jsonrpc":"2.0","id":${idJson},"method":"tools/call","params":{"name":"xml_check","arguments":{"xml":"<r>${'a'.repeat(MAX_LINE_BYTES)}</r>"}}}`;

describe('an over-long stdio line', () => {
  it('is answered with the id from its first bytes, and the session goes on', async () => {
    const { replies, delivered } = await feed([
      longCall('41'),
      longCall('"call-7"'),
      `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"xml_check","arguments":{"xml":"<r>${'a'.repeat(MAX_LINE_BYTES)}</r>"}},"id":42}`,
      '{"jsonrpc":"2.0","id":43,"method":"ping"}',
    ]);
    expect(replies.map((reply) => [reply.id, reply.error?.code])).toEqual([
      [41, -32600],
      ['call-7', -32600],
      [null, -32600],
      [43, undefined],
    ]);
    expect(delivered).toEqual([{ jsonrpc: '2.0', id: 43, method: 'ping' }]);
  });
});
