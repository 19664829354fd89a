import { afterEach, describe, expect, it } from 'vitest';
import { EnginePool } from '../../src/engine/runtime/pool.js';
import { MAX_JSON_NESTING, MAX_PARSED_JSON_BYTES } from '../../src/limits.js';
import type { Listening } from '../../src/transports/http-common.js';
import { jsonShapeRefusal, TOO_DEEP_MESSAGE } from '../../src/transports/json-shape.js';
import { serveHttp } from '../../src/transports/serve-http.js';
import { MODERN_CALL_HEADERS } from '../support/http-requests.js';
import { feedLines } from '../support/stdio-harness.js';

/** A stateless answer to a text ends with the text's handle too (ADR 0039). */
const HANDLE_LINE = { text: expect.stringMatching(/^document: d_[A-Za-z0-9_-]{22} /) };

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
};
const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const DEEP = 100_000;

/** A 2026-07-28 tools/call carrying `extra` (raw JSON) at one of three places. */
function call(where: 'arguments' | '_meta' | 'params', extra: string): string {
  const meta = JSON.stringify(META).slice(0, -1);
  const args = '"xml":"<r><a/><a/></r>","xpath":"count(//a)"';
  return [
    '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{',
    `"_meta":${meta}${where === '_meta' ? `,"x":${extra}` : ''}},`,
    `"name":"xml_query","arguments":{${args}${where === 'arguments' ? `,"x":${extra}` : ''}}`,
    `${where === 'params' ? `,"x":${extra}` : ''}}}`,
  ].join('');
}

let engine: EnginePool | undefined;
let listening: Listening | undefined;
const errors: Error[] = [];
afterEach(async () => {
  await listening?.close();
  await engine?.close();
  listening = undefined;
  errors.length = 0;
});

async function start(kind: 'streamable-http' | 'sse'): Promise<string> {
  engine = new EnginePool({ size: 1 });
  listening = await serveHttp(kind, engine, { host: '127.0.0.1', port: 0, onError: (e) => errors.push(e) });
  return listening.url;
}

const post = (url: string, body: string) =>
  fetch(url, { method: 'POST', headers: MODERN_CALL_HEADERS, body });

const tooDeep = {
  code: -32600,
  message: `Invalid Request: the message nests JSON deeper than ${MAX_JSON_NESTING} levels; send flatter arguments.`,
};

describe('a message nested deeper than MAX_JSON_NESTING', () => {
  it.each(['arguments', '_meta', 'params'] as const)(
    'in %s: Streamable HTTP answers 400 with a JSON-RPC error, and serves on',
    async (where) => {
      const url = await start('streamable-http');
      const refused = await post(url, call(where, nested(DEEP)));
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual({ jsonrpc: '2.0', id: null, error: tooDeep });
      const served = await post(url, call(where, nested(MAX_JSON_NESTING - 3)));
      expect(served.status).toBe(200);
      // Within the bound the message is read; in `arguments`, `x` is then refused as no argument of
      // xml_query's, which is an answer too.
      expect(await served.json()).toMatchObject(
        where === 'arguments'
          ? {
              id: 7,
              result: { isError: true, content: [{ text: expect.stringContaining('no argument `x`') }] },
            }
          : { id: 7, result: { content: [{ text: '2' }, HANDLE_LINE] } },
      );
      expect(errors).toEqual([]);
    },
  );

  it('legacy SSE answers 400 with the same error', async () => {
    const url = await start('sse');
    const base = url.replace(/\/sse$/, '');
    const stream = await fetch(url, { headers: { accept: 'text/event-stream' } });
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    let head = '';
    while (!/sessionId=[^\s]+/.test(head)) head += new TextDecoder().decode((await reader.read()).value);
    const endpoint = (/data: *(\/\S+)/.exec(head) as RegExpExecArray)[1];
    const refused = await post(`${base}${endpoint}`, call('arguments', nested(DEEP)));
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ jsonrpc: '2.0', id: null, error: tooDeep });
    await reader.cancel();
  });

  it('stdio refuses the same line with the same error, carrying its id, and serves on', async () => {
    const { replies, delivered } = await feedLines([
      call('arguments', nested(DEEP)),
      call('arguments', nested(MAX_JSON_NESTING - 3)),
    ]);
    expect(replies).toEqual([
      { jsonrpc: '2.0', id: 7, error: tooDeep },
      { jsonrpc: '2.0', id: 7, result: {} },
    ]);
    expect(delivered).toHaveLength(1);
  });

  it('is refused before anything parses it, small or large: JSON.parse never sees it', async () => {
    const parse = JSON.parse;
    const parsed: number[] = [];
    JSON.parse = ((text: string, reviver?: Parameters<typeof parse>[1]) => {
      parsed.push(text.length);
      return parse(text, reviver);
    }) as typeof JSON.parse;
    try {
      const small = call('params', nested(MAX_JSON_NESTING + 1));
      const large = call('arguments', nested(1_000_000));
      const { replies } = await feedLines([small, large]);
      expect(replies.map((reply) => reply.error?.message)).toEqual([TOO_DEEP_MESSAGE, TOO_DEEP_MESSAGE]);
      expect(parsed.filter((length) => length >= small.length)).toEqual([]);
    } finally {
      JSON.parse = parse;
    }
  });
});

describe('a large body that no document makes large (issue 33 F7)', () => {
  /** `"\"\"…"`, `pairs` escaped quotes: JSON.parse held the main thread ~1 s per 90 MiB of it. */
  const quotes = (pairs: number) => `"${'\\"'.repeat(pairs)}"`;
  const big = MAX_PARSED_JSON_BYTES / 2 + 1;

  it('is refused before JSON.parse reads it, and the server serves on', async () => {
    const url = await start('streamable-http');
    const ping = `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"_meta":${JSON.stringify(META)},"x":${quotes(big)}}}`;
    for (const body of [quotes(big), ping, call('params', quotes(big))]) {
      const refused = await post(url, body);
      expect(refused.status).toBe(400);
      const answer = (await refused.json()) as { error: { code: number; message: string } };
      expect(answer.error.code).toBe(-32600);
      expect(answer.error.message).toMatch(
        /^Invalid Request: a body of \d+ bytes that is not a tools\/call with its documents as JSON strings; only documents make a message this large/,
      );
    }
    const served = await post(url, call('arguments', '1').replace(',"x":1', ''));
    expect(await served.json()).toMatchObject({ id: 7, result: { content: [{ text: '2' }, HANDLE_LINE] } });
    expect(errors).toEqual([]);
  });

  it('still answers a document that large, lifted from the bytes', async () => {
    const url = await start('streamable-http');
    // Three million characters, each written `\u0041`: 18 MiB of JSON for a 3 MB document.
    const letters = 3_000_000;
    const xml = `<r>${'\\u0041'.repeat(letters)}</r>`;
    const body = call('arguments', '1')
      .replace('"xml":"<r><a/><a/></r>"', `"xml":"${xml}"`)
      .replace('"xpath":"count(//a)"', '"xpath":"string-length(/r)"')
      .replace(',"x":1', '');
    expect(body.length).toBeGreaterThan(MAX_PARSED_JSON_BYTES);
    const answer = await post(url, body);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({
      id: 7,
      result: { content: [{ text: String(letters) }, HANDLE_LINE] },
    });
  });
});

describe('jsonShapeRefusal', () => {
  const deeperThan = (text: string) => jsonShapeRefusal(Buffer.from(text), false) === TOO_DEEP_MESSAGE;
  it('counts a bare [] as one level and refuses past MAX_JSON_NESTING', () => {
    expect(deeperThan(nested(MAX_JSON_NESTING))).toBe(false);
    expect(deeperThan(nested(MAX_JSON_NESTING + 1))).toBe(true);
    expect(deeperThan(`{"a":${nested(MAX_JSON_NESTING - 1)},"c":"x"}`)).toBe(false);
    expect(deeperThan(`{"a":[${nested(MAX_JSON_NESTING - 1)}]}`)).toBe(true);
    expect(deeperThan(`${'{"a":'.repeat(MAX_JSON_NESTING + 1)}1${'}'.repeat(MAX_JSON_NESTING + 1)}`)).toBe(
      true,
    );
    expect(deeperThan('"text"')).toBe(false);
  });

  it('ignores brackets inside strings, escaped quotes and backslashes included', () => {
    const brackets = '['.repeat(MAX_JSON_NESTING + 1);
    expect(deeperThan(JSON.stringify({ a: brackets, b: `say \\"${brackets}" \\` }))).toBe(false);
    expect(deeperThan(JSON.stringify({ a: 'x\\', b: JSON.parse(nested(MAX_JSON_NESTING)) }))).toBe(true);
    expect(deeperThan(JSON.stringify({ a: '\\"', b: [brackets] }))).toBe(false);
  });
});
