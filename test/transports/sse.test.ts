import { afterEach, describe, expect, it } from 'vitest';
import { EnginePool } from '../../src/engine/runtime/pool.js';
import type { Listening } from '../../src/transports/http-common.js';
import { serveHttp } from '../../src/transports/serve-http.js';
import { DEFAULT_SESSION_LIMITS, type SessionLimits } from '../../src/transports/sessions.js';

let engine: EnginePool | undefined;
let listening: Listening | undefined;
const streams: AbortController[] = [];
afterEach(async () => {
  for (const stream of streams.splice(0)) stream.abort();
  await listening?.close();
  await engine?.close();
});

async function start(limits: Partial<SessionLimits>): Promise<string> {
  engine = new EnginePool({ size: 1 });
  listening = await serveHttp('sse', engine, {
    host: '127.0.0.1',
    port: 0,
    onError: () => {},
    limits: { ...DEFAULT_SESSION_LIMITS, ...limits },
  });
  return listening.url;
}

function openStream(url: string): Promise<Response> {
  const controller = new AbortController();
  streams.push(controller);
  return fetch(url, { headers: { accept: 'text/event-stream' }, signal: controller.signal });
}

describe('legacy SSE sessions', () => {
  it('refuses a session past the bound with 503 and Retry-After while none is evictable', async () => {
    const url = await start({ maxSessions: 1, evictableAfterMs: 60_000 });
    expect((await openStream(url)).status).toBe(200);
    const refused = await openStream(url);
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(59);
    await refused.text();
  });

  it('closes the stream of the session silent longest to admit a new one', async () => {
    const url = await start({ maxSessions: 1, evictableAfterMs: 0 });
    const first = await openStream(url);
    expect(first.status).toBe(200);
    const second = await openStream(url);
    expect(second.status).toBe(200);
    // The first stream ends (text() resolves) only because the server closed its session.
    expect(await first.text()).toContain('event: endpoint');
  });
});
