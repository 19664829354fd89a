import { Client, SSEClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { EnginePool } from '../../src/engine/runtime/pool.js';
import { HeldDocuments } from '../../src/tools/held-documents.js';
import type { Listening } from '../../src/transports/http-common.js';
import { serveHttp } from '../../src/transports/serve-http.js';
import { DEFAULT_SESSION_LIMITS } from '../../src/transports/sessions.js';
import { openSession, postInSession, queryCall } from '../support/http-session.js';

/*
 * Issue 33: clients that open a session, call a tool and leave without DELETE never lock others
 * out, and a model that thinks for 10 minutes finds its documents by handle even after its
 * session was evicted (ADR 0047). The sessions and the held texts run on a clock the test moves,
 * so nothing here waits or depends on the machine's speed.
 */

let engine: EnginePool | undefined;
let listening: Listening | undefined;
afterEach(async () => {
  await listening?.close();
  await engine?.close();
});

const TEN_MINUTES = 10 * 60 * 1000;

async function start(kind: 'streamable-http' | 'sse', maxSessions: number) {
  const clock = { now: 1_000_000 };
  const now = () => clock.now;
  engine = new EnginePool({ size: 1 });
  const documents = new HeldDocuments({ now });
  listening = await serveHttp(kind, engine, {
    host: '127.0.0.1',
    port: 0,
    onError: () => {},
    limits: { ...DEFAULT_SESSION_LIMITS, maxSessions },
    now,
    documents,
  });
  return { url: listening.url, clock, documents };
}

/** A session opened; a 503 here would be the lock-out this file is about. */
async function handshake(url: string): Promise<string> {
  const opened = await openSession(url);
  expect(opened).toHaveProperty('id');
  return (opened as { id: string }).id;
}

const post = postInSession;
const query = (args: Record<string, unknown>) => queryCall({ xpath: 'count(//a)', ...args });

const ping = (url: string, id: string) => post(url, { jsonrpc: '2.0', id: 9, method: 'ping' }, id);

describe('sessions under churn (issue 33)', () => {
  it('serves 200 short-lived clients that never DELETE through 8 sessions, while a model idle 10 minutes keeps its documents by handle', async () => {
    const { url, clock } = await start('streamable-http', 8);
    const thinker = await handshake(url);
    const first = await post(url, query({ xml: '<r><a/><a/><a/></r>' }), thinker);
    expect(first.text).toBe('3');
    const handle = first.document as string;
    expect(handle).toMatch(/^d_/);

    clock.now += TEN_MINUTES;
    for (let n = 1; n <= 200; n += 1) {
      const id = await handshake(url);
      const answer = await post(url, query({ xml: `<r>${'<a/>'.repeat(n)}</r>` }), id);
      expect(answer).toMatchObject({ status: 200, text: String(n) });
    }

    // Its session went to make room (the least recently used, past its 5 minutes)…
    expect((await ping(url, thinker)).status).toBe(404);
    // …and the model, starting a new one as the 404 says, still has its document by handle.
    const renewed = await handshake(url);
    expect(await post(url, query({ document: handle, xpath: 'count(/r/a)' }), renewed)).toMatchObject({
      status: 200,
      text: '3',
      document: handle,
    });
  });

  it('keeps an idle session that was not needed, and its handles, through the same 10 minutes', async () => {
    const { url, clock } = await start('streamable-http', 8);
    const thinker = await handshake(url);
    const handle = (await post(url, query({ xml: '<r><a/></r>' }), thinker)).document as string;
    clock.now += TEN_MINUTES;
    expect(await post(url, query({ document: handle }), thinker)).toMatchObject({ status: 200, text: '1' });
  });

  it('frees the texts of a session its client ends with DELETE, at once', async () => {
    const { url, documents } = await start('streamable-http', 8);
    const id = await handshake(url);
    const handle = (await post(url, query({ xml: '<r><a/></r>' }), id)).document as string;
    expect(documents.has(handle)).toBe(true);
    const deleted = await fetch(url, {
      method: 'DELETE',
      headers: { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
    });
    expect(deleted.status).toBe(200);
    expect(documents.has(handle)).toBe(false);
    const other = await handshake(url);
    expect(await post(url, query({ document: handle }), other)).toMatchObject({ isError: true });
  });

  it('lets the texts of an evicted session go by their expiry, 30 minutes after their last use', async () => {
    const { url, clock, documents } = await start('streamable-http', 1);
    const id = await handshake(url);
    const handle = (await post(url, query({ xml: '<r><a/></r>' }), id)).document as string;
    await handshake(url);
    expect((await ping(url, id)).status).toBe(404);
    expect(documents.has(handle)).toBe(true);
    clock.now += 30 * 60 * 1000;
    expect(documents.has(handle)).toBe(false);
  });

  it('over legacy SSE, keeps an evicted session’s texts for its handles too', async () => {
    const { url, documents } = await start('sse', 1);
    const sseUrl = new URL('/sse', url);
    const first = new Client({ name: 'thinker', version: '1' });
    await first.connect(new SSEClientTransport(sseUrl));
    const answer = (await first.callTool({
      name: 'xml_query',
      arguments: { xml: '<r><a/><a/></r>', xpath: 'count(//a)' },
    })) as {
      structuredContent: { document: string };
    };
    const handle = answer.structuredContent.document;
    // A newcomer takes the only slot: the first stream is closed by the server.
    const second = new Client({ name: 'newcomer', version: '1' });
    await second.connect(new SSEClientTransport(sseUrl));
    expect(documents.has(handle)).toBe(true);
    const again = (await second.callTool({
      name: 'xml_query',
      arguments: { document: handle, xpath: 'count(//a)' },
    })) as {
      content: Array<{ text: string }>;
    };
    expect(again.content[0]?.text).toBe('2');
    await first.close().catch(() => {});
    await second.close();
  });
});
