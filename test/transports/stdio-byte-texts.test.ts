/**
 * The stdio transport writes a text held as bytes where its placeholder stands in the reply
 * (docs/adr/0029), and holds it only while the request is owed a reply: a cancelled request, a
 * reused id's refusal and a closed transport leave nothing held.
 */
import { PassThrough } from 'node:stream';
import { setImmediate as tick } from 'node:timers/promises';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { LineStdioTransport } from '../../src/transports/stdio.js';

const line = (message: unknown) => `${JSON.stringify(message)}\n`;
const call = (id: number) => line({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'x' } });
const textReply = (id: number, text: string) =>
  ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } }) as JSONRPCMessage;
const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));

async function wire() {
  const input = new PassThrough();
  const output = new PassThrough();
  let written = '';
  output.setEncoding('utf8').on('data', (chunk: string) => {
    written += chunk;
  });
  const transport = new LineStdioTransport(input, output);
  const delivered: JSONRPCMessage[] = [];
  transport.onmessage = (message) => delivered.push(message);
  await transport.start();
  const settle = async () => {
    for (let i = 0; i < 3; i++) await tick();
  };
  const replies = () =>
    written
      .split('\n')
      .filter((text) => text !== '')
      .map((text) => JSON.parse(text) as { id: unknown; result?: { content: Array<{ text: string }> } });
  return { input, transport, delivered, settle, replies };
}

describe('stdio texts held as bytes', () => {
  it('writes the bytes, escaped, where the placeholder stands, and holds nothing after', async () => {
    const { input, transport, settle, replies } = await wire();
    input.write(call(1));
    await settle();
    const text = '<a b="c">\t"q" \\ é 中 😀 \u2028&#13;</a>\n<b/>';
    const placeholder = transport.hold(1, bytes(text));
    expect(placeholder).not.toBe(text);
    expect(transport.heldTexts).toBe(1);
    await transport.send(textReply(1, placeholder));
    await settle();
    expect(replies()).toEqual([{ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text }] } }]);
    expect(transport.heldTexts).toBe(0);
  });

  it('gives the text itself for a request no longer owed, and drops a held one on cancellation', async () => {
    const { input, transport, settle } = await wire();
    expect(transport.hold(7, bytes('é'))).toBe('é');
    input.write(call(2));
    await settle();
    expect(transport.hold(2, bytes('held'))).not.toBe('held');
    input.write(line({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } }));
    await settle();
    expect(transport.heldTexts).toBe(0);
    expect(transport.hold(2, bytes('late'))).toBe('late');
    expect(transport.heldTexts).toBe(0);
  });

  it('keeps the held text when a request reusing the id is refused, and frees all on close', async () => {
    const { input, transport, delivered, settle, replies } = await wire();
    input.write(call(3));
    await settle();
    const placeholder = transport.hold(3, bytes('three'));
    input.write(call(3));
    await settle();
    expect(delivered).toHaveLength(1);
    expect(replies()[0]?.id).toBe(3);
    expect(transport.heldTexts).toBe(1);
    await transport.send(textReply(3, placeholder));
    await settle();
    expect(replies()[1]?.result?.content[0]?.text).toBe('three');

    input.write(call(4));
    await settle();
    transport.hold(4, bytes('four'));
    await transport.close();
    expect(transport.heldTexts).toBe(0);
    expect(transport.hold(4, bytes('after'))).toBe('after');
  });
});
