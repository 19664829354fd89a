import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { EnginePool } from '../../src/engine/runtime/pool.js';
import { HEALTH_PATH, type HttpService, serveHttp } from '../../src/transports/serve-http.js';
import { VERSION } from '../../src/version.js';
import {
  POST_HEADERS as headers,
  healthUntil,
  INITIALIZE_2025 as initialize,
  MODERN_COUNT_CALL as modernCall,
  MODERN_CALL_HEADERS as modernHeaders,
  postInTwoParts,
} from '../support/http-requests.js';

/** A stateless answer to a text ends with the text's handle too (ADR 0039). */
const HANDLE_LINE = { text: expect.stringMatching(/^document: d_[A-Za-z0-9_-]{22} /) };

let engine: EnginePool | undefined;
let service: HttpService | undefined;
afterEach(async () => {
  await service?.close();
  await engine?.close();
  service = undefined;
});

async function start(kind: 'streamable-http' | 'sse', instance?: string): Promise<string> {
  engine = new EnginePool({ size: 1 });
  service = await serveHttp(kind, engine, {
    host: '127.0.0.1',
    port: 0,
    onError: () => {},
    ...(instance === undefined ? {} : { instance }),
  });
  return service.url;
}

const healthOf = (url: string) => new URL(HEALTH_PATH, url).href;
async function health(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(healthOf(url));
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function openSession(url: string): Promise<string> {
  const response = await fetch(url, { method: 'POST', headers, body: initialize });
  expect(response.status).toBe(200);
  await response.text();
  return response.headers.get('mcp-session-id') as string;
}

/** A GET with a Host header of our choosing (fetch may not set one). */
function getWithHost(url: string, host: string): Promise<number> {
  return bodyWithHost(url, host).then(({ status }) => status);
}

function bodyWithHost(url: string, host: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { host, accept: 'application/json, text/event-stream' } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.once('error', reject);
    req.end();
  });
}

/** Waits until the server counts `n` calls in flight. */
const untilCallsInFlight = (url: string, n: number) => healthUntil(url, (_status, body) => body.calls === n);

describe('GET /healthz', () => {
  it('answers 200 with the version, the instance, the sessions and the engine’s workers and queue', async () => {
    const url = await start('streamable-http', 'a');
    await openSession(url);
    const { status, body } = await health(url);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      status: 'ok',
      version: VERSION,
      instance: 'a',
      sessions: 1,
      calls: 0,
      queued: 0,
    });
    expect(Object.keys(body).sort()).toEqual(
      ['busy', 'calls', 'instance', 'queued', 'sessions', 'status', 'version', 'workers'].sort(),
    );
  });

  it('answers whatever Host a balancer sends, where /mcp refuses a foreign one', async () => {
    const url = await start('streamable-http');
    expect(await getWithHost(healthOf(url), '10.0.0.7:8101')).toBe(200);
    expect(await getWithHost(url, '10.0.0.7:8101')).toBe(403);
  });

  it('gives a foreign Host the status only, never the counts a stranger should not watch (issue 24)', async () => {
    const url = await start('streamable-http', 'a');
    const foreign = await bodyWithHost(healthOf(url), 'evil.example:8101');
    expect(foreign.status).toBe(200);
    expect(JSON.parse(foreign.text)).toEqual({ status: 'ok', version: VERSION, instance: 'a' });
    const local = await bodyWithHost(healthOf(url), new URL(url).host);
    expect(JSON.parse(local.text)).toHaveProperty('sessions', 0);
  });

  it('is served beside the legacy SSE transport too', async () => {
    const url = await start('sse');
    expect((await health(url)).body).toMatchObject({ status: 'ok', sessions: 0 });
  });
});

describe('a drain', () => {
  it('answers the call in flight, refuses new requests (503) and sessions’ requests (404), then closes', async () => {
    const url = await start('streamable-http', 'a');
    const session = await openSession(url);
    expect(session).toMatch(/^a\.[0-9a-f-]{36}$/);
    const inFlight = postInTwoParts(url, modernCall);
    await untilCallsInFlight(url, 1);

    const drained = service?.drain(600_000);
    const draining = await health(url);
    expect(draining).toMatchObject({ status: 503, body: { status: 'draining', calls: 1 } });

    const refused = await fetch(url, { method: 'POST', headers: modernHeaders, body: modernCall });
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('connection')).toBe('close');
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/shutting down/);
    const handshake = await fetch(url, { method: 'POST', headers, body: initialize });
    expect(handshake.status).toBe(503);
    await handshake.text();
    const ofSession = await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
    });
    expect(ofSession.status).toBe(404);
    expect(((await ofSession.json()) as { error: { message: string } }).error.message).toMatch(
      /Start a new session/,
    );

    inFlight.finish();
    const answered = await inFlight.response;
    expect(answered.status).toBe(200);
    expect(JSON.parse(answered.text)).toMatchObject({
      id: 7,
      result: { content: [{ text: '2' }, HANDLE_LINE] },
    });
    expect(await drained).toBe(0);
    await expect(fetch(healthOf(url))).rejects.toThrow();
  });

  it('closes at its bound when a call does not finish, and says how many were left', async () => {
    const url = await start('streamable-http');
    const stuck = postInTwoParts(url, modernCall);
    const cut = stuck.response.catch((error: Error) => error);
    await untilCallsInFlight(url, 1);
    expect(await service?.drain(1)).toBe(1);
    expect(await cut).toBeInstanceOf(Error);
  });

  it('on legacy SSE answers the message in flight down its stream, refuses a new stream (503) and new messages (404)', async () => {
    const url = await start('sse');
    const base = url.replace(/\/sse$/, '');
    const stream = new AbortController();
    const opened = await fetch(url, { headers: { accept: 'text/event-stream' }, signal: stream.signal });
    const reader = (opened.body as ReadableStream<Uint8Array>).getReader();
    let announced = '';
    while (!/sessionId=([0-9a-f-]+)/.test(announced)) {
      const { value } = await reader.read();
      announced += new TextDecoder().decode(value);
    }
    const sessionId = /sessionId=([0-9a-f-]+)/.exec(announced)?.[1];
    const endpoint = `${base}/messages/?sessionId=${sessionId}`;
    const inFlight = postInTwoParts(endpoint, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    await untilCallsInFlight(url, 1);

    const drained = service?.drain(600_000);
    const again = await fetch(url, { headers: { accept: 'text/event-stream' } });
    expect(again.status).toBe(503);
    await again.text();
    const message = await fetch(endpoint, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
    });
    expect(message.status).toBe(404);
    await message.text();
    inFlight.finish();
    expect((await inFlight.response).status).toBe(202);
    while (!announced.includes('"id":1')) {
      const { value, done } = await reader.read();
      if (done) break;
      announced += new TextDecoder().decode(value);
    }
    expect(announced).toContain('{"result":{},"jsonrpc":"2.0","id":1}');
    expect(await drained).toBe(0);
    stream.abort();
  });
});
