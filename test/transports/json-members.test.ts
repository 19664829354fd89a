import { afterEach, describe, expect, it } from 'vitest';
import { EnginePool } from '../../src/engine/runtime/pool.js';
import { MAX_JSON_MEMBERS } from '../../src/limits.js';
import type { Listening } from '../../src/transports/http-common.js';
import { jsonShapeRefusal, TOO_MANY_MEMBERS_MESSAGE } from '../../src/transports/json-shape.js';
import { serveHttp } from '../../src/transports/serve-http.js';
import { MODERN_CALL_HEADERS } from '../support/http-requests.js';
import { feedLines } from '../support/stdio-harness.js';

/** A stateless answer to a text ends with the text's handle too (ADR 0039). */
const HANDLE_LINE = { text: expect.stringMatching(/^document: d_[A-Za-z0-9_-]{22} /) };

const bytesOf = (text: string) => Buffer.from(text, 'utf8');
const holdsTooManyMembers = (bytes: Uint8Array) => jsonShapeRefusal(bytes, true) === TOO_MANY_MEMBERS_MESSAGE;

/** An xml_query call whose `namespaces` holds `bindings` bindings: the repro of issue 10's F3. */
function callWithBindings(bindings: number, id = 7): string {
  const namespaces = Array.from({ length: bindings }, (_, i) => `"p${i}":"urn:x:${i}"`).join(',');
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"xml_query","arguments":{"xml":"<r/>","xpath":"count(/)","namespaces":{${namespaces}}}}}`;
}

describe('jsonShapeRefusal counting members', () => {
  it('counts object members and array elements, and stops past the bound', () => {
    const members = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":[1,2]`).join(',')}}`;
    // Each member above is a key, a colon, two elements and a comma: ~3 separators.
    expect(holdsTooManyMembers(bytesOf(members(MAX_JSON_MEMBERS / 2)))).toBe(false);
    expect(holdsTooManyMembers(bytesOf(members(MAX_JSON_MEMBERS)))).toBe(true);
    expect(holdsTooManyMembers(bytesOf(`[${'0,'.repeat(3 * MAX_JSON_MEMBERS)}0]`))).toBe(true);
  });

  it('does not count separators inside strings, escaped quotes included', () => {
    const inside = `{"xml":"${',:'.repeat(4 * MAX_JSON_MEMBERS)}\\",${',:'.repeat(4 * MAX_JSON_MEMBERS)}"}`;
    expect(holdsTooManyMembers(bytesOf(inside))).toBe(false);
    const document = `<r>${'<a x="1,2:3"/>'.repeat(200_000)}</r>`;
    expect(holdsTooManyMembers(bytesOf(JSON.stringify({ arguments: { xml: document } })))).toBe(false);
  });

  it('passes the largest legitimate call: 256 bindings', () => {
    expect(holdsTooManyMembers(bytesOf(callWithBindings(256)))).toBe(false);
  });
});

describe('a message with a million members', () => {
  it('stdio refuses it before parsing, with its id, and answers the next request', async () => {
    const { replies, delivered } = await feedLines([
      callWithBindings(1_000_000),
      '{"jsonrpc":"2.0","id":8,"method":"ping"}',
    ]);
    expect(replies).toEqual([
      { jsonrpc: '2.0', id: 7, error: { code: -32600, message: TOO_MANY_MEMBERS_MESSAGE } },
      { jsonrpc: '2.0', id: 8, result: {} },
    ]);
    expect(delivered).toEqual([{ jsonrpc: '2.0', id: 8, method: 'ping' }]);
  });

  let engine: EnginePool | undefined;
  let listening: Listening | undefined;
  afterEach(async () => {
    await listening?.close();
    await engine?.close();
    listening = undefined;
  });

  it('Streamable HTTP answers 400 with the same error, and serves on', async () => {
    engine = new EnginePool({ size: 1 });
    listening = await serveHttp('streamable-http', engine, { host: '127.0.0.1', port: 0, onError: () => {} });
    const post = (body: string) =>
      fetch(listening?.url as string, { method: 'POST', headers: MODERN_CALL_HEADERS, body });
    const meta =
      '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}},';
    const withMeta = (line: string) => line.replace('"params":{', `"params":{${meta}`);
    const refused = await post(withMeta(callWithBindings(1_000_000)));
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: TOO_MANY_MEMBERS_MESSAGE },
    });
    const served = await post(withMeta(callWithBindings(2)));
    expect(served.status).toBe(200);
    expect(await served.json()).toMatchObject({ id: 7, result: { content: [{ text: '1' }, HANDLE_LINE] } });
  });
});
