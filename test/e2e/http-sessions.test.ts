import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../support/http-server.js';
import { runRaw } from './binary.js';

const MAX_SESSIONS = 8;
const CLIENTS = 200;
const VERSION = '2025-11-25';

const post = (url: string, body: unknown, id?: string) =>
  fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(id === undefined ? {} : { 'mcp-session-id': id, 'mcp-protocol-version': VERSION }),
    },
    body: JSON.stringify(body),
  });

/** The JSON-RPC message of a one-event SSE response. */
async function eventData(response: Response): Promise<{ result?: { structuredContent?: unknown } }> {
  const line = (await response.text()).split('\n').find((l) => l.startsWith('data: '));
  return JSON.parse(line?.slice('data: '.length) ?? 'null');
}

async function handshake(url: string, name: string): Promise<string> {
  const init = await post(url, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name, version: '1' } },
  });
  expect(init.status, `${name}: ${await init.clone().text()}`).toBe(200);
  await init.text();
  const id = init.headers.get('mcp-session-id') as string;
  const initialized = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, id);
  expect(initialized.status).toBe(202);
  await initialized.text();
  return id;
}

const countCall = (n: number) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'xml_query', arguments: { xml: `<r>${'<a/>'.repeat(n)}</r>`, xpath: 'count(//a)' } },
});

/** A short-lived 2025 client that leaves without DELETE /mcp, like the v1 SDK's close(). */
async function clientThatNeverDeletes(url: string, n: number): Promise<unknown> {
  const id = await handshake(url, `c${n}`);
  const call = await post(url, countCall(n), id);
  expect(call.status).toBe(200);
  return (await eventData(call)).result?.structuredContent;
}

describe('the built binary with a small session table', () => {
  let server: RunningServer;
  beforeAll(async () => {
    // The default periods (5 s, 5 minutes): before issue 33 they kept the table full of sessions
    // that had called a tool, and client 9 got 503 for five minutes (ADR 0047).
    server = await startServer('streamable-http', ['--max-sessions', String(MAX_SESSIONS)]);
  });
  afterAll(async () => {
    expect(await server.stop()).toBe(0);
  });

  it(`serves ${CLIENTS} short-lived clients that never DELETE through ${MAX_SESSIONS} sessions`, async () => {
    // A model idle meanwhile keeps its documents by handle (test/transports/session-churn.test.ts,
    // on a clock the test moves); here every client left.
    const quiet = await handshake(server.url, 'quiet');
    // One client at a time, so the session evicted is always one whose client has left.
    for (let n = 1; n <= CLIENTS; n += 1) {
      expect(await clientThatNeverDeletes(server.url, n)).toMatchObject({
        type: 'number',
        count: 1,
        values: [String(n)],
      });
    }
    expect((await post(server.url, countCall(3), quiet)).status).toBe(404);
  });
});

describe('the session flags', () => {
  it.each([
    ['--max-sessions', '0'],
    ['--max-sessions', '2.5'],
    ['--session-idle-ms', '0'],
    ['--session-idle-ms', '1e3'],
    ['--session-evict-after-ms', 'soon'],
  ])('refuse %s %s with the usage on stderr and exit 2', async (flag, value) => {
    const run = await runRaw([], ['--transport', 'streamable-http', '--port', '0', flag, value]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${flag} must be an integer`);
    expect(run.stderr).toContain('Usage: oxml-mcp');
    expect(run.stdout).toBe('');
  });

  it('are listed by --help', async () => {
    const help = await runRaw([], ['--help']);
    for (const flag of [
      '--max-sessions',
      '--session-idle-ms',
      '--session-evict-after-ms',
      '--session-keep-ms',
    ])
      expect(help.stdout).toContain(flag);
  });
});
