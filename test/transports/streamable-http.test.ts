import { afterEach, describe, expect, it, vi } from 'vitest';
import { EnginePool } from '../../src/engine/runtime/pool.js';
import type { Listening } from '../../src/transports/http-common.js';
import { serveHttp } from '../../src/transports/serve-http.js';
import { DEFAULT_SESSION_LIMITS, type SessionLimits } from '../../src/transports/sessions.js';
import { POST_HEADERS as headers, INITIALIZE_2025 as initialize } from '../support/http-requests.js';

let engine: EnginePool | undefined;
let listening: Listening | undefined;
afterEach(async () => {
  await listening?.close();
  await engine?.close();
});

async function start(maxSessions: number, limits: Partial<SessionLimits> = {}): Promise<string> {
  engine = new EnginePool({ size: 1 });
  listening = await serveHttp('streamable-http', engine, {
    host: '127.0.0.1',
    port: 0,
    onError: () => {},
    limits: { ...DEFAULT_SESSION_LIMITS, maxSessions, ...limits },
  });
  return listening.url;
}

const sessionHeaders = (id: string) => ({
  ...headers,
  'mcp-session-id': id,
  'mcp-protocol-version': '2025-11-25',
});

async function openSession(url: string): Promise<string> {
  const response = await fetch(url, { method: 'POST', headers, body: initialize });
  expect(response.status).toBe(200);
  await response.text();
  return response.headers.get('mcp-session-id') as string;
}

async function ping(url: string, id: string): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: sessionHeaders(id),
    body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' }),
  });
  await response.text();
  return response.status;
}

function openStream(url: string, id: string, signal: AbortSignal): Promise<Response> {
  return fetch(url, {
    headers: { accept: 'text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
    signal,
  });
}

/** Polls until `condition` holds: the server notices a closed connection on its own schedule. */
async function eventually(condition: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('Streamable HTTP sessions', () => {
  it('refuses a session past the bound with 503 and Retry-After while none is evictable, and accepts one again after DELETE', async () => {
    const url = await start(1, { evictableAfterMs: 60_000 });
    const id = await openSession(url);
    const second = await fetch(url, { method: 'POST', headers, body: initialize });
    expect(second.status).toBe(503);
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(59);
    expect(((await second.json()) as { error: { message: string } }).error.message).toMatch(/retry in \d+ s/);
    const deleted = await fetch(url, {
      method: 'DELETE',
      headers: { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
    });
    expect(deleted.status).toBe(200);
    const third = await fetch(url, { method: 'POST', headers, body: initialize });
    expect(third.status).toBe(200);
    await third.text();
  });

  it('hands the slot of the session idle longest to a new client when full, closing it and freeing its documents', async () => {
    const url = await start(1, { evictableAfterMs: 0 });
    const forget = vi.spyOn(engine as EnginePool, 'forget');
    const first = await openSession(url);
    expect(await ping(url, first)).toBe(200);
    expect(forget).not.toHaveBeenCalled();
    const second = await openSession(url);
    expect(forget).toHaveBeenCalledTimes(1);
    expect(await ping(url, first)).toBe(404);
    expect(await ping(url, second)).toBe(200);
  });

  it('evicts the idle session rather than an older one whose GET stream is open', async () => {
    const url = await start(2, { evictableAfterMs: 0 });
    const streaming = await openSession(url);
    const controller = new AbortController();
    const stream = await openStream(url, streaming, controller.signal);
    expect(stream.status).toBe(200);
    const idle = await openSession(url);
    await openSession(url);
    expect(await ping(url, idle)).toBe(404);
    expect(await ping(url, streaming)).toBe(200);
    controller.abort();
  });

  it('counts a GET stream as activity until it closes, then lets the session be evicted', async () => {
    const url = await start(1, { evictableAfterMs: 0 });
    const streaming = await openSession(url);
    const controller = new AbortController();
    expect((await openStream(url, streaming, controller.signal)).status).toBe(200);
    const refused = await fetch(url, { method: 'POST', headers, body: initialize });
    expect(refused.status).toBe(503);
    // A held stream keeps its session the longer floor (ADR 0036), 5 minutes by default.
    expect(refused.headers.get('retry-after')).toBe('300');
    await refused.text();
    controller.abort();
    await eventually(async () => {
      const response = await fetch(url, { method: 'POST', headers, body: initialize });
      await response.text();
      return response.status === 200;
    });
    expect(await ping(url, streaming)).toBe(404);
  });

  it('frees the slot of a handshake the SDK refused', async () => {
    const url = await start(1, { evictableAfterMs: 60_000 });
    const refused = await fetch(url, {
      method: 'POST',
      headers: { ...headers, accept: 'application/json' },
      body: initialize,
    });
    expect(refused.status).toBe(406);
    await refused.text();
    await eventually(async () => {
      const response = await fetch(url, { method: 'POST', headers, body: initialize });
      await response.text();
      return response.status === 200;
    });
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
    // Headers held until the first keep-alive would come 15 s in (the SDK's interval): give up at
    // 10 s, far beyond a busy machine's delay and well short of that (docs/adr/0004).
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
