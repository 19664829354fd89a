import { describe, expect, it } from 'vitest';
import { initialize, initialized, MODERN_META, runRaw } from './binary.js';

const call = (id: number, name: string, args: Record<string, unknown>, meta?: object) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
  });

const byId = (replies: Array<Record<string, unknown>>, id: unknown) =>
  replies.find((reply) => reply.id === id);

/** A stdio connection is a session: every answer about a document ends with its handle. */
const HANDLE_LINE = expect.stringMatching(/^document: d_[A-Za-z0-9_-]{22}\b/);
describe('stdio framing of the built binary', () => {
  it('prints the README quick-start answer and exits 0 at end of input', async () => {
    const run = await runRaw([
      initialize(),
      initialized,
      call(1, 'xml_query', { xml: '<library><book><title>Dune</title></book></library>', xpath: '//title' }),
    ]);
    expect(run.code).toBe(0);
    expect(byId(run.replies, 1)).toMatchObject({
      result: {
        content: [
          { type: 'text', text: 'Dune' },
          { type: 'text', text: HANDLE_LINE },
        ],
        structuredContent: {
          type: 'node-set',
          count: 1,
          values: ['Dune'],
          document: expect.stringMatching(/^d_/),
        },
      },
    });
  });

  it.each(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'])(
    'negotiates revision %s by handshake',
    async (version) => {
      const run = await runRaw([
        initialize(version),
        initialized,
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      ]);
      expect(byId(run.replies, 0)).toMatchObject({ result: { protocolVersion: version } });
      expect(byId(run.replies, 1)).toMatchObject({ result: {} });
    },
  );

  it('describes itself on server/discover for 2026-07-28', async () => {
    const run = await runRaw([
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: MODERN_META } }),
    ]);
    expect(byId(run.replies, 1)).toMatchObject({
      result: { supportedVersions: expect.arrayContaining(['2026-07-28']) },
    });
  });

  it('answers malformed JSON with -32700 and a null id, and goes on', async () => {
    const run = await runRaw([
      initialize(),
      initialized,
      '{"jsonrpc": "2.0", "id": 1, "method"',
      call(2, 'xml_query', { xml: '<r/>', xpath: 'count(/r)' }),
    ]);
    expect(run.replies).toContainEqual(
      expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32700 }) }),
    );
    expect(byId(run.replies, 2)).toMatchObject({
      result: { content: [{ text: '1' }, { text: HANDLE_LINE }] },
    });
  });

  it('answers a request with an id and no method with -32600, and goes on', async () => {
    const run = await runRaw([
      initialize(),
      initialized,
      '{"jsonrpc":"2.0","id":7}',
      call(8, 'xml_check', { xml: '<r/>' }),
    ]);
    expect(byId(run.replies, 7)).toMatchObject({ error: { code: -32600 } });
    expect(byId(run.replies, 8)).toMatchObject({ result: { structuredContent: { wellFormed: true } } });
  });

  it('answers malformed params with -32602 and a sentence naming the field, not a zod dump', async () => {
    const run = await runRaw([
      initialize(),
      initialized,
      JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/list', params: { cursor: 5 } }),
      JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 5 } }),
      call(6, 'xml_check', { xml: '<r/>' }),
    ]);
    expect(byId(run.replies, 4)).toMatchObject({
      error: {
        code: -32602,
        message: expect.stringContaining('Invalid params for tools/list: `params.cursor`'),
      },
    });
    expect(byId(run.replies, 5)).toMatchObject({
      error: { code: -32602, message: expect.stringContaining('`params.name`') },
    });
    for (const id of [4, 5]) expect(JSON.stringify(byId(run.replies, id))).not.toContain('invalid_type');
    expect(byId(run.replies, 6)).toMatchObject({ result: { structuredContent: { wellFormed: true } } });
  });

  it('answers an unknown method with -32601', async () => {
    const run = await runRaw([
      initialize(),
      initialized,
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'resources/list' }),
    ]);
    expect(byId(run.replies, 3)).toMatchObject({ error: { code: -32601 } });
  });

  it('skips a line over the transport limit with an error reply and keeps the session', async () => {
    const huge = Buffer.alloc(105 * 1024 * 1024, 0x61);
    huge[huge.length - 1] = 0x0a;
    const run = await runRaw([
      initialize(),
      initialized,
      huge,
      call(9, 'xml_query', { xml: '<r>ok</r>', xpath: 'string(/r)' }),
    ]);
    expect(run.replies).toContainEqual(
      expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32600 }) }),
    );
    expect(byId(run.replies, 9)).toMatchObject({
      result: { content: [{ text: 'ok' }, { text: HANDLE_LINE }] },
    });
  });

  it('lets an 8 MiB document through even when JSON escaping grows it sixfold', async () => {
    const xml = `<r>${'\u0001'.repeat(8 * 1024 * 1024 - 7)}</r>`;
    // What is tested is the line limit, not the time budget: on a loaded machine, give the
    // check all the time it needs.
    const run = await runRaw(
      [initialize(), initialized, call(4, 'xml_check', { xml })],
      ['--timeout-ms', '120000'],
    );
    const reply = byId(run.replies, 4) as { result: { isError: boolean; content: Array<{ text: string }> } };
    expect(reply.result.isError).toBe(true);
    expect(reply.result.content[0]?.text).toContain('not well-formed');
  });

  it('decodes surrogate-pair escapes the way Python clients send emoji', async () => {
    const line = `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"xml_query","arguments":{"xml":"<r>\\ud83d\\ude00</r>","xpath":"string(/r)"}}}`;
    const run = await runRaw([initialize(), initialized, line]);
    expect(byId(run.replies, 5)).toMatchObject({
      result: { content: [{ text: '😀' }, { text: HANDLE_LINE }] },
    });
  });

  it('abandons a cancelled call: its worker is stopped, it gets no reply, and later calls are answered', async () => {
    const slow = call(20, 'xml_query', {
      // Rebuilds the whole text for each of 200,000 <a>: over ten minutes of work uncancelled, so
      // a call that went on would keep the process (which ends only once every call is over)
      // past this test's time-out. No clock is read here.
      xml: `<r>${'<a>xxxxxxxxxx</a>'.repeat(200_000)}</r>`,
      xpath: "count(//a[contains(string(/), 'zzz')])",
    });
    const cancel = JSON.stringify({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 20, reason: 'test' },
    });
    const run = await runRaw(
      [initialize(), initialized, slow, cancel, call(21, 'xml_query', { xml: '<r/>', xpath: 'count(/r)' })],
      ['--timeout-ms', '60000'],
    );
    expect(byId(run.replies, 21)).toMatchObject({
      result: { content: [{ text: '1' }, { text: HANDLE_LINE }] },
    });
    expect(byId(run.replies, 20)).toBeUndefined();
    expect(run.code).toBe(0);
  });

  it('writes nothing but protocol messages to stdout', async () => {
    const run = await runRaw([
      initialize(),
      initialized,
      call(6, 'xml_query', { xml: '<r/>', xpath: '//[' }),
    ]);
    for (const line of run.stdout.trim().split('\n'))
      expect(JSON.parse(line)).toHaveProperty('jsonrpc', '2.0');
  });
});
