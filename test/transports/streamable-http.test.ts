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
  it('evicts an idle session at once, however long its period; refuses (503, Retry-After 1) only while every session has a call in flight', async () => {
    const url = await start(1, { evictableAfterMs: 600_000, engagedEvictableAfterMs: 600_000 });
    const first = await openSession(url);
    const second = await openSession(url);
    expect(await ping(url, first)).toBe(404);
    // A call held in flight in the one session: the engine answers only when the test says so.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const run = (engine as EnginePool).run.bind(engine);
    const spy = vi.spyOn(engine as EnginePool, 'run').mockImplementation(async (...args) => {
      await held;
      return run(...args);
    });
    const call = fetch(url, {
      method: 'POST',
      headers: sessionHeaders(second),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'xml_check', arguments: { xml: '<r/>' } },
      }),
    });
    await eventually(() => spy.mock.calls.length > 0);
    const refused = await fetch(url, { method: 'POST', headers, body: initialize });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(
      /request in flight; retry in 1 s/,
    );
    release();
    expect((await call).status).toBe(200);
    await (await call).text();
    await openSession(url);
    expect(await ping(url, second)).toBe(404);
  });

  it('hands the slot of the session idle longest to a new client when full, closing it and forgetting its parsed documents', async () => {
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

  it('evicts a session whose GET stream is open when it is the only one, ending the stream', async () => {
    const url = await start(1, { evictableAfterMs: 0 });
    const streaming = await openSession(url);
    const controller = new AbortController();
    const stream = await openStream(url, streaming, controller.signal);
    expect(stream.status).toBe(200);
    // A held stream orders its session after bare ones (ADR 0036); it is no wall (ADR 0047).
    await openSession(url);
    expect(await ping(url, streaming)).toBe(404);
    await stream.text();
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
      const health = (await (await fetch(new URL('/healthz', url))).json()) as { sessions: number };
      return health.sessions === 0;
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
