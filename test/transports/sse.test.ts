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
  it('admits a newcomer at once when full, however recent the idle session (issue 33)', async () => {
    const url = await start({ maxSessions: 1, evictableAfterMs: 60_000, engagedEvictableAfterMs: 60_000 });
    const first = await openStream(url);
    expect(first.status).toBe(200);
    expect((await openStream(url)).status).toBe(200);
    expect(await first.text()).toContain('event: endpoint');
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
