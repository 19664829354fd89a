import { afterEach, describe, expect, it } from 'vitest';
import type { Listening } from '../../src/transports/http-common.js';
import { serveHttp } from '../../src/transports/serve-http.js';
import { EnginePool } from '../../src/xml/pool.js';

let engine: EnginePool | undefined;
let listening: Listening | undefined;
afterEach(async () => {
  await listening?.close();
  await engine?.close();
});

const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});

async function start(maxSessions: number, idleMs = 60_000): Promise<string> {
  engine = new EnginePool({ size: 1 });
  listening = await serveHttp('streamable-http', engine, {
    host: '127.0.0.1',
    port: 0,
    onError: () => {},
    limits: { maxSessions, idleMs },
  });
  return listening.url;
}

describe('Streamable HTTP sessions', () => {
  it('refuses a session past the bound with 503, and accepts one again after DELETE', async () => {
    const url = await start(1);
    const first = await fetch(url, { method: 'POST', headers, body: initialize });
    const id = first.headers.get('mcp-session-id') as string;
    await first.text();
    const second = await fetch(url, { method: 'POST', headers, body: initialize });
    expect(second.status).toBe(503);
    await second.text();
    const deleted = await fetch(url, {
      method: 'DELETE',
      headers: { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
    });
    expect(deleted.status).toBe(200);
    const third = await fetch(url, { method: 'POST', headers, body: initialize });
    expect(third.status).toBe(200);
    await third.text();
  });

  it('answers an unknown session with 404', async () => {
    const url = await start(4);
    const response = await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'mcp-session-id': 'no-such-session' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: -32001 } });
  });

  it('sends the headers of the GET stream at once', async () => {
    const url = await start(4);
    const init = await fetch(url, { method: 'POST', headers, body: initialize });
    const id = init.headers.get('mcp-session-id') as string;
    await init.text();
    // Without the fix the headers come with the first keep-alive, 15 s in (the SDK's interval):
    // give up at 10 s, far beyond a busy machine's delay and well short of that.
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 10_000);
    const stream = await fetch(url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
      signal: controller.signal,
    });
    clearTimeout(timer);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    controller.abort();
  });
});
