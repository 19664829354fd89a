import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { LineStdioTransport } from '../../src/transports/stdio.js';

export interface FedLines {
  /** Every line the transport wrote, parsed. */
  replies: Array<{ id: unknown; result?: unknown; error?: { code: number; message: string } }>;
  /** The messages it handed on, in order. */
  delivered: JSONRPCMessage[];
}

/**
 * Feeds lines to a stdio transport on in-memory streams, answering every request it hands on
 * with `{}` as a server would (so it closes at end of input), and collects what it wrote and
 * delivered. `chunkBytes` writes each line in pieces, as a pipe delivers a long one.
 */
export async function feedLines(
  lines: string[],
  options: { maxLineBytes?: number; chunkBytes?: number } = {},
): Promise<FedLines> {
  const input = new PassThrough();
  const output = new PassThrough();
  const transport = new LineStdioTransport(
    input,
    output,
    options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes },
  );
  const delivered: JSONRPCMessage[] = [];
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
  const step = options.chunkBytes ?? Number.POSITIVE_INFINITY;
  for (const line of lines) {
    const bytes = Buffer.from(`${line}\n`);
    for (let at = 0; at < bytes.length; at += step) input.write(bytes.subarray(at, at + step));
  }
  input.end();
  await transport.closed;
  const replies = written
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as FedLines['replies'][number]);
  return { replies, delivered };
}
