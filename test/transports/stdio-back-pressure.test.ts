/**
 * The stdio transport reads requests only as fast as its client reads replies
 * (docs/adr/0010-output-back-pressure.md). In process, with small bounds, so each step can be
 * checked exactly: what was delivered, what waits unread in the input stream.
 */
import { PassThrough } from 'node:stream';
import { setImmediate as tick } from 'node:timers/promises';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { LineStdioTransport } from '../../src/transports/stdio.js';

const request = (id: number) => `${JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })}\n`;
const REQUEST_BYTES = request(1).length - 1;
const reply = (id: number, text = '') =>
  ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } }) as JSONRPCMessage;
const ids = (messages: JSONRPCMessage[]) => messages.map((message) => (message as { id?: unknown }).id);

function wire(options: ConstructorParameters<typeof LineStdioTransport>[2]) {
  const input = new PassThrough();
  // A client that reads nothing until told: the replies stay in the stream, counted as unwritten.
  const output = new PassThrough({ highWaterMark: 16 });
  output.pause();
  const delivered: JSONRPCMessage[] = [];
  const unread: number[] = [];
  const transport = new LineStdioTransport(input, output, {
    ...options,
    onUnreadOutput: (bytes) => unread.push(bytes),
  });
  transport.onmessage = (message) => delivered.push(message);
  return { input, output, transport, delivered, unread };
}

/** Lets the streams pass on what was written to them (they do so on the next ticks, no I/O). */
const settle = async () => {
  for (let i = 0; i < 3; i++) await tick();
};

describe('stdio back-pressure', () => {
  it('reads no request while more than the bound of replies is unread, and reads on once the client reads', async () => {
    const { input, output, transport, delivered, unread } = wire({ maxUnwrittenBytes: 1000 });
    await transport.start();
    input.write(request(1));
    await settle();
    expect(ids(delivered)).toEqual([1]);

    await transport.send(reply(1, 'x'.repeat(2000)));
    input.write(request(2) + request(3));
    await settle();
    expect(ids(delivered)).toEqual([1]);
    expect(transport.paused).toBe(true);
    expect(unread).toHaveLength(1);
    expect(unread[0]).toBeGreaterThan(2000);
    // The requests wait in the input stream, not in the server.
    expect(input.readableLength).toBe(2 * request(2).length);

    const read: Buffer[] = [];
    output.on('data', (chunk: Buffer) => read.push(chunk));
    output.resume();
    await settle();
    expect(ids(delivered)).toEqual([1, 2, 3]);
    expect(transport.paused).toBe(false);
    expect(JSON.parse(Buffer.concat(read).toString('utf8'))).toMatchObject({ id: 1 });
  });

  it('reads no further request while the requests owed an answer reach the bound', async () => {
    const { input, output, transport, delivered } = wire({ maxInFlightBytes: 2 * REQUEST_BYTES });
    output.resume();
    await transport.start();
    // Four requests in one chunk: the reader stops inside it.
    input.write(request(1) + request(2) + request(3) + request(4));
    await settle();
    expect(ids(delivered)).toEqual([1, 2]);
    expect(transport.inFlightBytes).toBe(2 * REQUEST_BYTES);

    await transport.send(reply(2));
    expect(ids(delivered)).toEqual([1, 2, 3]);
    await transport.send(reply(3));
    expect(ids(delivered)).toEqual([1, 2, 3, 4]);
    // Behind the held requests, a notification waits its turn too; a cancelled request is then
    // owed nothing (MCP: no reply).
    input.write(
      `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } })}\n`,
    );
    await settle();
    expect(ids(delivered)).toEqual([1, 2, 3, 4]);
    await transport.send(reply(4));
    await settle();
    expect(ids(delivered)).toEqual([1, 2, 3, 4, undefined]);
    expect(transport.inFlightBytes).toBe(0);
  });

  it('refuses a request whose id is still under way, so reused ids cannot slip past the bound', async () => {
    const { input, output, transport, delivered } = wire({});
    const written: string[] = [];
    output.on('data', (chunk: Buffer) => written.push(chunk.toString()));
    output.resume();
    await transport.start();
    input.write(request(1) + request(1));
    await settle();
    expect(ids(delivered)).toEqual([1]);
    expect(transport.inFlightBytes).toBe(REQUEST_BYTES);
    expect(written.join('')).toContain('already used by a request still under way');
    // Once answered, the id is free again.
    await transport.send(reply(1));
    input.write(request(1));
    await settle();
    expect(ids(delivered)).toEqual([1, 1]);
  });

  it('keeps a request owed when a refused line names its id (issue 24, M4)', async () => {
    const { input, output, transport, delivered } = wire({ maxInFlightBytes: 3 * REQUEST_BYTES });
    const written: string[] = [];
    output.on('data', (chunk: Buffer) => written.push(chunk.toString()));
    output.resume();
    await transport.start();
    input.write(request(1) + request(2));
    await settle();
    // An id and no method: refused with -32600 carrying id 1, which must not settle request 1.
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1 })}\n${request(3)}${request(4)}`);
    await settle();
    expect(written.join('')).toContain('"id":1,"error"');
    expect(ids(delivered)).toEqual([1, 2, 3]);
    expect(transport.inFlightBytes).toBe(3 * REQUEST_BYTES);
    await transport.send(reply(1));
    await settle();
    expect(ids(delivered)).toEqual([1, 2, 3, 4]);
  });

  it('reads a request larger than the in-flight bound when nothing else is owed', async () => {
    const { input, output, transport, delivered } = wire({ maxInFlightBytes: 10 });
    output.resume();
    await transport.start();
    input.write(request(1) + request(2));
    await settle();
    expect(ids(delivered)).toEqual([1]);
    await transport.send(reply(1));
    expect(ids(delivered)).toEqual([1, 2]);
  });

  it('answers the requests held back at the end of input before it closes', async () => {
    const { input, output, transport, delivered } = wire({ maxInFlightBytes: REQUEST_BYTES });
    output.resume();
    let closed = false;
    transport.onclose = () => {
      closed = true;
    };
    await transport.start();
    input.end(request(1) + request(2));
    await settle();
    expect(ids(delivered)).toEqual([1]);
    await transport.send(reply(1));
    expect(ids(delivered)).toEqual([1, 2]);
    expect(closed).toBe(false);
    await transport.send(reply(2));
    await settle();
    expect(closed).toBe(true);
  });

  it('closes with the error when stdout fails (the client has gone)', async () => {
    const { output, transport } = wire({});
    await transport.start();
    const epipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
    output.destroy(epipe);
    await expect(transport.closed).resolves.toBe(epipe);
  });
});
