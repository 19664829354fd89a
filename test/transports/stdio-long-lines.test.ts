import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { LineStdioTransport } from '../../src/transports/stdio.js';

const MAX_LINE_BYTES = 4096;

/** Feeds lines to a transport with a small line limit; collects its replies and deliveries. */
async function feed(lines: string[]) {
  const input = new PassThrough();
  const output = new PassThrough();
  const transport = new LineStdioTransport(input, output, { maxLineBytes: MAX_LINE_BYTES });
  const delivered: JSONRPCMessage[] = [];
  // Answers every request it is handed, as a server would, so the transport closes at end of input.
  transport.onmessage = (message) => {
    delivered.push(message);
    if ('id' in message && 'method' in message)
      void transport.send({ jsonrpc: '2.0', id: message.id, result: {} });
  };
  let written = '';
  output.setEncoding('utf8').on('data', (chunk: string) => {
    written += chunk;
  });
  await transport.start();
  // In pieces, as a pipe delivers a long line: the id must be found across chunk boundaries.
  for (const line of lines) {
    const bytes = Buffer.from(`${line}\n`);
    for (let at = 0; at < bytes.length; at += 100) input.write(bytes.subarray(at, at + 100));
  }
  input.end();
  await transport.closed;
  const replies = written
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { id: unknown; error?: { code: number } });
  return { replies, delivered };
}

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
