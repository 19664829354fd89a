/**
 * xml_format answered through the stdio transport as production wires it (its text written from
 * the engine's bytes, docs/adr/0029) gives the text the server gives a client that takes it as a
 * string (the SDK's in-memory client, where the text is decoded), for every character the
 * serializer writes: escapes JSON needs, whitespace libxml2 writes raw or as references,
 * non-ASCII, astral characters, and a text large enough to be escaped in slices before.
 */
import { PassThrough } from 'node:stream';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EnginePool } from '../src/engine/runtime/pool.js';
import { createServer } from '../src/server.js';
import { LineStdioTransport } from '../src/transports/stdio.js';
import { inMemoryClient, textOf } from './support/in-memory-server.js';

interface Reply {
  id: number;
  result?: { content: Array<{ type: string; text: string }>; isError?: boolean };
  error?: unknown;
}

/** A stdio session on in-memory streams, spoken to in raw JSON-RPC lines. */
class StdioSession {
  readonly input = new PassThrough();
  readonly output = new PassThrough();
  readonly transport = new LineStdioTransport(this.input, this.output);
  readonly #waiting = new Map<number, (reply: Reply) => void>();
  #partial = '';
  #nextId = 1;

  constructor(engine: EnginePool) {
    serveStdio(() => createServer(engine, { cacheDocuments: true, byteTexts: this.transport }), {
      transport: this.transport,
    });
    this.output.setEncoding('utf8').on('data', (chunk: string) => {
      this.#partial += chunk;
      for (let at = this.#partial.indexOf('\n'); at >= 0; at = this.#partial.indexOf('\n')) {
        const reply = JSON.parse(this.#partial.slice(0, at)) as Reply;
        this.#partial = this.#partial.slice(at + 1);
        this.#waiting.get(reply.id)?.(reply);
      }
    });
  }

  request(method: string, params: unknown): Promise<Reply> {
    const id = this.#nextId++;
    return new Promise((resolve) => {
      this.#waiting.set(id, resolve);
      this.input.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  async open(): Promise<void> {
    await this.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'format-bytes', version: '1' },
    });
    this.input.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  }
}

let engine: EnginePool;
let stdio: StdioSession;
beforeAll(async () => {
  engine = new EnginePool({ size: 1 });
  stdio = new StdioSession(engine);
  await stdio.open();
});
afterAll(async () => {
  stdio.input.end();
  await stdio.transport.closed;
  await engine.close();
});
const inMemory = inMemoryClient('format-bytes');

async function bothWays(args: Record<string, unknown>): Promise<{ viaBytes: string; viaString: string }> {
  const reply = await stdio.request('tools/call', { name: 'xml_format', arguments: args });
  const content = reply.result?.content ?? [];
  return { viaBytes: content[0]?.text ?? '', viaString: textOf(await inMemory.call('xml_format', args)) };
}

const TRICKY =
  '<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY e "x">]>\n' +
  '<r a="tab&#9;nl&#10;cr&#13;q&quot;bs\\" xml:lang="fr">' +
  '<t>\t"quoted" back\\slash\\\\ é 中 😀 \u2028\u2029 \u007f &amp; &lt;&gt; cr&#13;lf</t>' +
  '<!-- comment\twith "quotes" \\ and 😀 --><![CDATA[ raw\t<cdata> "q" \\ \n line ]]>' +
  '<?pi data\t"x"?><e/><m>mixed <b>bold</b>\ttail</m>&e;<p xml:space="preserve">  keep\n\t </p></r>';

describe('xml_format through stdio, written from bytes', () => {
  it.each([
    [0, 'self-closing'],
    [2, 'self-closing'],
    [7, 'spaced'],
    [1, 'expanded'],
  ] as const)('answers the same text at indent %i, empty elements %s', async (indent, emptyElements) => {
    const { viaBytes, viaString } = await bothWays({ xml: TRICKY, indent, empty_elements: emptyElements });
    expect(viaString).toContain('"quoted" back\\slash');
    expect(viaBytes).toBe(viaString);
  });

  it('answers the same text for generated text and attribute values', async () => {
    // Characters XML 1.0 allows, weighted towards what JSON and XML escape.
    const char = fc.oneof(
      fc.constantFrom('\t', '\n', '\r', '"', '\\', '&', '<', '>', "'", 'é', '😀', '\u2028', '\u007f'),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 3 }),
    );
    const text = fc
      .array(char, { maxLength: 20 })
      .map((parts) =>
        parts.join('').replace(/[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu, ''),
      );
    const asReferences = (value: string) => value.replace(/[&<>"\t\n\r]/g, (c) => `&#${c.codePointAt(0)};`);
    await fc.assert(
      fc.asyncProperty(text, text, async (body, value) => {
        const xml = `<r><a v="${asReferences(value)}">${asReferences(body)}</a><b>${asReferences(value)}</b></r>`;
        const { viaBytes, viaString } = await bothWays({ xml, indent: 2 });
        expect(viaBytes).toBe(viaString);
      }),
      { numRuns: 60 },
    );
  });

  it('answers a text of several MiB the same way, and holds no text once answered', async () => {
    const record = '<record id="r" note="&quot;q&quot;">\t<name>Zoë Ødegård 🍣 \\ "x"</name></record>';
    const xml = `<records>${record.repeat(Math.floor((2.5 * 1024 * 1024) / record.length))}</records>`;
    const hold = vi.spyOn(stdio.transport, 'hold');
    const { viaBytes, viaString } = await bothWays({ xml, indent: 3 });
    // The text went to the transport as bytes, not as a string.
    expect(hold).toHaveBeenCalledOnce();
    expect(hold.mock.results[0]?.value).toMatch(/^oxml-bytes-/);
    hold.mockRestore();
    expect(viaBytes.length).toBeGreaterThan(2 * 1024 * 1024);
    expect(viaBytes).toBe(viaString);
    expect(stdio.transport.heldTexts).toBe(0);
  });

  it('keeps the handle in a block of its own and refusals as they were', async () => {
    const reply = await stdio.request('tools/call', { name: 'xml_format', arguments: { xml: '<a>é</a>' } });
    expect(reply.result?.content.map((block) => block.text)).toEqual([
      '<a>é</a>',
      expect.stringMatching(/^document: d_/),
    ]);
    const broken = await stdio.request('tools/call', { name: 'xml_format', arguments: { xml: '<a>' } });
    expect(broken.result?.isError).toBe(true);
    expect(broken.result?.content[0]?.text).toBe(textOf(await inMemory.call('xml_format', { xml: '<a>' })));
  });
});
