/**
 * Legacy SSE sends every reply of a session down its one stream: a POST is read only while that
 * stream's unread replies are within the bound (docs/adr/0010-output-back-pressure.md).
 */
import http from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EnginePool } from '../../src/engine/runtime/pool.js';
import { type Listening, listen } from '../../src/transports/http-common.js';
import { createSseEndpoint, SSE_PATH } from '../../src/transports/sse.js';

let engine: EnginePool | undefined;
let listening: Listening | undefined;
afterEach(async () => {
  await listening?.close();
  await engine?.close();
});

/** 255 nested elements, repeated to 1 MiB: indented by 16, the reply is ~16 MB. */
const CHAIN = `${'<b>'.repeat(254)}<b/>${'</b>'.repeat(254)}`;
const DEEP = `<r>${CHAIN.repeat(Math.floor((1024 * 1024 - 7) / CHAIN.length))}</r>`;

function post(url: string, body: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

describe('SSE back-pressure', () => {
  it('leaves a POST unread while the replies on its stream are unread, and serves it once they are read', async () => {
    engine = new EnginePool({ size: 1 });
    const endpoint = createSseEndpoint(engine, () => {}, undefined, {
      maxUnwrittenBytes: 1024 * 1024,
      maxInFlightBytes: 64 * 1024 * 1024,
    });
    listening = await listen(endpoint.handle, '127.0.0.1', 0, SSE_PATH, () => {});
    const base = new URL(listening.url);

    const events: string[] = [];
    let text = '';
    const stream = await new Promise<http.IncomingMessage>((resolve) => http.get(base, resolve));
    stream.setEncoding('utf8');
    const endpointUrl = await new Promise<string>((resolve) => {
      stream.on('data', (chunk: string) => {
        text += chunk;
        for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
          events.push(text.slice(0, end));
          text = text.slice(end + 2);
        }
        const announced = events.find((event) => event.startsWith('event: endpoint'));
        if (announced) resolve(new URL(announced.split('data: ')[1] as string, base).toString());
      });
    });
    stream.pause();
    const sessionId = new URL(endpointUrl).searchParams.get('sessionId') as string;
    const replies = endpoint.sessions.begin(sessionId)?.replies;
    endpoint.sessions.end(sessionId);

    const call = (id: number, name: string, args: object) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: args },
    });
    const init = {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    expect(await post(endpointUrl, init)).toBe(202);
    expect(await post(endpointUrl, { jsonrpc: '2.0', method: 'notifications/initialized' })).toBe(202);
    expect(await post(endpointUrl, call(1, 'xml_format', { xml: DEEP, indent: 16 }))).toBe(202);
    // The ~16 MB reply outgrows the socket's buffers while the client reads nothing.
    await vi.waitFor(() => expect(replies?.open).toBe(false), { timeout: 20_000, interval: 20 });

    let secondStatus: number | undefined;
    const second = post(endpointUrl, call(2, 'xml_query', { xml: '<r/>', xpath: 'count(/r)' })).then(
      (status) => {
        secondStatus = status;
        return status;
      },
    );
    await vi.waitFor(() => expect(replies?.waiting).toBe(1), { timeout: 20_000, interval: 20 });
    expect(secondStatus).toBeUndefined();
    expect(replies?.owed).toBe(0);

    stream.resume();
    expect(await second).toBe(202);
    await vi.waitFor(() => expect(events.some((event) => event.includes('"id":2'))).toBe(true), {
      timeout: 20_000,
      interval: 20,
    });
    const formatted = events.find((event) => event.includes('"id":1'));
    expect(formatted?.length).toBeGreaterThan(15_000_000);
    stream.destroy();
  });

  it('refuses, on its POST, a request reusing the id of one still under way, and serves on', async () => {
    // An engine that never answers: the first request stays under way for as long as the test needs.
    const stalled = { run: () => new Promise(() => {}), forget() {}, warm() {} } as unknown as EnginePool;
    const endpoint = createSseEndpoint(stalled, () => {});
    listening = await listen(endpoint.handle, '127.0.0.1', 0, SSE_PATH, () => {});
    const base = new URL(listening.url);
    let text = '';
    const stream = await new Promise<http.IncomingMessage>((resolve) => http.get(base, resolve));
    stream.setEncoding('utf8');
    const endpointUrl = await new Promise<string>((resolve) => {
      stream.on('data', (chunk: string) => {
        text += chunk;
        const announced = /event: endpoint\ndata: (\S+)/.exec(text);
        if (announced) resolve(new URL(announced[1] as string, base).toString());
      });
    });
    const send = (body: unknown) =>
      fetch(endpointUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const init = {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    expect((await send(init)).status).toBe(202);
    expect((await send({ jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
    const call = {
      jsonrpc: '2.0',
      id: 5,
      method: 'tools/call',
      params: { name: 'xml_check', arguments: { xml: '<r/>' } },
    };
    expect((await send(call)).status).toBe(202);
    const again = await send(call);
    expect(again.status).toBe(400);
    expect(await again.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message:
          'Invalid Request: the id 5 is already used by a request still under way; send each request with an id of its own.',
      },
    });
    expect((await send({ jsonrpc: '2.0', id: 6, method: 'ping' })).status).toBe(202);
    await vi.waitFor(() => expect(text).toContain('"id":6'), { timeout: 20_000, interval: 20 });
    stream.destroy();
  });
});
